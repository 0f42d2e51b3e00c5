/*
** TEXT as SQLite has it: its BINARY order by the database's encoding, and
** UTF-8 that is safe to show in a message.
**
** SQLite's BINARY order of TEXT by the database's encoding. The API hands
** out TEXT as UTF-8; in a UTF-16 database, BINARY compares the stored
** UTF-16 bytes (memcmp, then the lengths), an order that differs from the
** UTF-8 bytes' (in UTF-16le, U+0101 sorts before 'a'; in both, characters
** past U+FFFF sort below U+E000..U+FFFF). NOCASE and RTRIM are defined for
** UTF-8 only: SQLite converts to compare, so they keep the UTF-8 order.
**
**   1. ga_text_order gives that order from the UTF-8 alone, decoding both
**      strings into UTF-16 code units as it goes (no copy): a character
**      past U+FFFF becomes its surrogate pair; a UTF-16le unit compares by
**      its low byte first. Bytes that are not UTF-8 (which SQLite's
**      conversion from UTF-16 never makes) become one unit each, so
**      distinct strings never compare equal.
**   2. ga_db_encoding: SQLITE_UTF8, SQLITE_UTF16LE or SQLITE_UTF16BE, read
**      with PRAGMA encoding; kept on the connection's state once the
**      database has a schema (the encoding cannot change after).
**   3. Messages never carry bytes that are not UTF-8 (a client decoding
**      them strictly, as Python's sqlite3 does, would fail on the message
**      instead of reporting it): ga_utf8_clean writes each run of such
**      bytes as a BLOB literal, x'...', as quote() shows a blob.
**   4. ga_json_str writes TEXT as a JSON string (gpuagg_info(),
**      gpu_explain): bytes that are not UTF-8 become U+FFFD.
*/
#ifndef GPUAGG_TEXT_H
#define GPUAGG_TEXT_H

#include "gpuagg.h"

/* Sign of a - b (UTF-8 bytes) as a database of encoding enc orders them
** under BINARY. */
int ga_text_order(const void *a, int na, const void *b, int nb, int enc);

/* TEXT z[0..n) (UTF-8, as the API gives it; kept until st is reset) bound
** to st's parameter i in the database's encoding enc, as a stored value
** is: SQLite tags a value bound as UTF-8 so, and what makes a BLOB of it
** (CAST, hex()) shows those bytes. SQLITE_OK or an error. */
int ga_bind_text(sqlite3_stmt *st, int i, const char *z, int n, int enc);

/* db's text encoding (c: where it is kept, or NULL); SQLITE_UTF8 where it
** cannot be read. */
int ga_db_encoding(sqlite3 *db, ga_conn *c);

/* The length of the strict UTF-8 character at z[0..n) (n >= 1), or 0
** where there is none. */
int ga_utf8_len(const void *z, int n);

/* Are z[0..n) strict UTF-8 (no overlong form, surrogate or value past
** U+10FFFF)? */
int ga_utf8_valid(const void *z, int n);

/* z (sqlite3_malloc'd, NUL-terminated) itself where it is UTF-8, else a
** copy with each run of other bytes written x'..' and z freed (3.); NULL
** stays NULL, and out of memory gives NULL. */
char *ga_utf8_clean(char *z);

/* Append z to out as a JSON string (4.). */
void ga_json_str(sqlite3_str *out, const char *z);

#endif /* GPUAGG_TEXT_H */
