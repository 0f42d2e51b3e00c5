/*
** Statement results rendered exactly, to compare two answers (the engine's
** against SQLite's): test_query's differential tests and the sqllogictest
** runner share them.
*/
#ifndef GPUAGG_ROWS_H
#define GPUAGG_ROWS_H

#include <sqlite3.h>

/* The rows of a statement: each row one string, each cell by its class (i:
** integer, r: the REAL's bits and value, n: NULL, t: TEXT's length and
** bytes, x: BLOB in hex), or the error that ended it. */
typedef struct Rows {
  int n, nAlloc;                   /* rows at az, and room there */
  char **az;                       /* each row rendered (malloc'd) */
  char *zErr;                      /* the statement's error (malloc'd) or NULL */
} Rows;

/* st stepped to its end into r. */
void rowsRun(sqlite3 *db, sqlite3_stmt *st, Rows *r);
/* zSql's rows (an error in preparing it is its error). */
void rowsOf(sqlite3 *db, const char *zSql, Rows *r);
void rowsFree(Rows *r);
/* strcmp of two char* (qsort's form). */
int cmpStr(const void *a, const void *b);
/* The same answer: the same error, or the same rows (in order, or as
** sorted lists: both sorted then). */
int rowsSame(Rows *a, Rows *b, int ordered);
/* r in brief, for a message: its row count and error, and its first row
** that differs from o's (in order), or that o lacks (unordered: both lists
** sorted by rowsSame). */
void rowsShow(char *z, size_t n, const Rows *r, const Rows *o, int ordered);
/* Does SQL z have ORDER BY at its top level (outside parentheses,
** strings and quoted names)? Its rows' order is then the answer's. */
int sqlOrdered(const char *z);

#endif
