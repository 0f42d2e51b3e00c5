/*
** A table named by a SOURCE argument or a FROM: resolved, described once,
** its columns found by name. The table-valued functions (tvf.h, their
** errors on their vtab) and gpu_query's planner both stand on it.
**
**   1. SOURCE names a table or view (ga_source_resolve), tried in this
**      order, so that a SOURCE that named a table before SQL's syntax was
**      read names the same one: the whole string as a table's name; before
**      the first dot a schema and after it a table, both as written; then
**      the string as SQL writes a name (ga_ident_parse). Without a schema,
**      SQLite's search: temp, main, then the attached in order. Its
**      columns are those SELECT * shows (generated ones included), in
**      declared order.
**   2. A COLUMN is the column named as written, else as SQL writes one
**      name (a table-qualified 't.x' is refused); either way ignoring ASCII
**      case, as SQLite compares names.
**   3. The resolved table is described once (ga_source's tab, a ga_table:
**      colsrc.h), and that description is what the page source and the
**      column cache read. Names are quoted with %w, never pasted into SQL.
**   4. Errors name the function and the problem: "gpu_x: no such table: t
**      (looked for table "t" in main and temp)", in *pzErr (sqlite3_free
**      it): no such table says which schemas were searched or that the
**      schema does not exist; no such column, which table; an argument
**      that is not a name says why, and hints what to do instead.
**   4a. A resolution in main or temp, outside a transaction, is
**      remembered on the connection (ga_source_resolve_on): the same
**      SOURCE again, outside a transaction, is copied from it while main's
**      and temp's schema cookies are what they were (the name then finds
**      the same table, described the same: temp and main are searched
**      before the attached schemas, and a committed schema change moves
**      its schema's cookie past every value it had). Resolved each time:
**      in a transaction (a rollback gives a cookie back, which a later
**      change can take again for another schema), and in an attached
**      schema (a DETACH and ATTACH can put another file with the same
**      cookie there). Within one read of a gpu_query table (between
**      ga_source_read_begin and _end) the cookies are read once, at its
**      start: its plan resolves each name as of that moment.
**   5. Its columns are opened (ga_source_open, open.c) from the column
**      cache where it keeps them, else the page source where it serves,
**      else the statement source; gpuagg_info()'s "sources" says which one
**      each function used last and, for the statement source, why not the
**      pages. The table-valued functions and gpu_query open them alike.
*/
#ifndef GPUAGG_TABLE_H
#define GPUAGG_TABLE_H

#include "colsrc.h"

/* A resolved SOURCE. */
typedef struct ga_source {
  char *zName;              /* as the user gave it */
  char *zTab;               /* the table's name as the user wrote it (messages name it so) */
  char *zFrom;              /* the quoted FROM term: "schema"."t" */
  ga_table tab;             /* the table, described once (colsrc.h): schema, SQLite's spelling,
                            ** kind, columns with their types and collations */
} ga_source;

/* Resolve zSource for function zFn into *p (ga_source_free it, on failure
** too): SQLITE_OK, or an error with its message in *pzErr. */
int ga_source_resolve(sqlite3*, const char *zFn, const char *zSource, ga_source *p, char **pzErr);
void ga_source_free(ga_source*);
/* As ga_source_resolve, remembered on conn (4a). */
int ga_source_resolve_on(sqlite3*, ga_conn*, const char *zFn, const char *zSource, ga_source *p, char **pzErr);
/* Main's and temp's schema cookies, outside a transaction (SQLITE_OK; else
** not to be relied on): those ga_source_read_begin read where a read is
** under way on conn (4a), else read now. A read's plan asks them for each
** name it resolves; they are read once for it. begin and end nest. */
int ga_source_cookies(sqlite3*, ga_conn*, int *pMain, int *pTemp);
void ga_source_read_begin(sqlite3*, ga_conn*);
void ga_source_read_end(ga_conn*);

/* The index of column zCol of p (2), or -1 with the message in *pzErr. */
int ga_source_column(const char *zFn, const ga_source *p, const char *zCol, char **pzErr);

/* A column source over columns aiCol[0..nCol) of p, asking aWant[i] of
** each (colsrc.h), for function zFn (5): kept columns first where useCache
** is GA_SRC_CACHE (a miss keeps what the reader reads; GA_SRC_LARGE: only
** if the table has gpuagg_config('threshold') rows; GA_SRC_RECORD: kept
** columns are not read, a miss keeps as GA_SRC_LARGE), then the page source where it
** serves, else the statement source. SQLITE_OK with *ppSrc; else an error
** (SQLITE_CORRUPT: a malformed page) with its message in *pzErr
** (sqlite3_free it). */
#define GA_SRC_CACHE  1
#define GA_SRC_RECORD 2
#define GA_SRC_LARGE  3
int ga_source_open(sqlite3*, ga_conn*, const char *zFn, const ga_source *p, int nCol, const int *aiCol,
                   const unsigned char *aWant, int useCache, ga_colsrc **ppSrc, char **pzErr);

/* gpuagg_info()'s "sources":{...} (5), from open.c's state per connection. */
void ga_source_describe(sqlite3_str*, const ga_conn*);

/* z as SQL writes a name: [qualifier.]name, each part bare (an ASCII
** letter, _ or a byte >= 0x80, then those, digits and $), "quoted" (""
** inside is one "), `quoted` (`` inside is one `) or [bracketed] (no
** escape), with spaces around parts and dot. SQLITE_OK with *pzQual (NULL
** if none) and *pzName (sqlite3_free them); SQLITE_ERROR with why in *pzWhy
** (sqlite3_free it) and in *piAt the byte that is not part of a name, or
** -1 if the text ended first (an empty string, an unclosed quote, a
** trailing dot); SQLITE_NOMEM. */
int ga_ident_parse(const char *z, char **pzQual, char **pzName, char **pzWhy, int *piAt);

#endif /* GPUAGG_TABLE_H */
