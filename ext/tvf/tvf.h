/*
** What the table-valued functions share: their error messages, resolving
** their SOURCE argument, and the plan that takes their arguments.
**
**   1. Each is an eponymous-only virtual table (as ext/misc/series.c) whose
**      hidden columns take the arguments as equality constraints; a plan
**      that lacks one the query gives is refused (ga_tvf_best_index).
**   2. SOURCE is a table or view, optionally schema-qualified ('main.t',
**      'aux.t'); a name with a dot is a table of that name if there is one,
**      else schema.table. Its columns are those SELECT * shows (generated
**      ones included), in declared order. Names are checked to exist and
**      quoted with %w, never pasted into SQL.
**   3. Errors name the function and the problem: "gpu_x: no such table: t".
*/
#ifndef GPUAGG_TVF_H
#define GPUAGG_TVF_H

#include "gpuagg.h"

/* The virtual table each of them declares. */
typedef struct ga_vtab {
  sqlite3_vtab base;        /* base class */
  sqlite3 *db;              /* the connection it reads through */
  ga_conn *conn;            /* its gpuagg state: pool, backend, settings */
} ga_vtab;

/* xConnect's work: declare the table zSchema, make it direct-only (it runs
** SQL of its own), allocate the ga_vtab. xDisconnect's. */
int ga_tvf_connect(sqlite3 *db, void *pAux, const char *zSchema, sqlite3_vtab **ppVtab);
int ga_tvf_disconnect(sqlite3_vtab*);

/* A TEXT or BLOB value kept as a least or greatest one. */
typedef struct ga_other {
  int type;                 /* SQLITE_TEXT or SQLITE_BLOB; 0: none yet */
  int n;                    /* bytes */
  char *z;                  /* them (malloc'd) */
} ga_other;

/* Sign of a - b for byte strings: bytes, then length (BINARY). */
int ga_bytes_cmp(const void *za, int na, const void *zb, int nb);

/* A TEXT or BLOB value (type, z, n): kept in *pMin / *pMax if it is less /
** greater than what they hold (TEXT < BLOB, then BINARY; the first of
** equals stays). SQLITE_OK or SQLITE_NOMEM. */
int ga_other_offer(ga_other *pMin, ga_other *pMax, int type, const void *z, int n);
void ga_other_free(ga_other*);
void ga_other_result(sqlite3_context*, const ga_other*);

/* A resolved SOURCE. */
typedef struct ga_source {
  char *zName;              /* as the user gave it */
  char *zFrom;              /* the quoted FROM term: "t" or "schema"."t" */
  int nCol;                 /* columns */
  char **azCol;             /* their declared names */
} ga_source;

/* Set the vtab's error message (printf-style); returns SQLITE_ERROR. */
int ga_tvf_error(sqlite3_vtab*, const char *zFmt, ...);

/* Resolve zSource for function zFn into *p (ga_source_free it, on failure
** too); SQLITE_OK, or an error set on the vtab. */
int ga_tvf_source(sqlite3_vtab*, sqlite3*, const char *zFn, const char *zSource, ga_source *p);
void ga_source_free(ga_source*);

/* The index of column zCol of p (names compare as SQLite's, ignoring ASCII
** case), or -1 with the error set. */
int ga_tvf_column(sqlite3_vtab*, const char *zFn, const ga_source *p, const char *zCol);

/* A column source over columns aiCol[0..nCol) of p, asking aWant[i] of
** each (colsrc.h), for function zFn: the page source where it can serve,
** else the statement source (gpuagg_info() tells which, and why).
** SQLITE_OK with *ppSrc, or an error set (SQLITE_CORRUPT: a malformed
** page). */
struct ga_colsrc;
int ga_tvf_open(sqlite3_vtab*, const char *zFn, const ga_source *p, int nCol, const int *aiCol,
                const unsigned char *aWant, struct ga_colsrc **ppSrc);

/* xBestIndex for arguments in the nArg hidden columns from iFirst: each one
** given becomes an argument in column order, idxNum says which (bit i:
** argument i). */
int ga_tvf_best_index(sqlite3_vtab*, sqlite3_index_info*, int iFirst, int nArg);

/* The arguments xFilter received, placed by idxNum: a[i] is argument i or
** NULL. */
void ga_tvf_args(int idxNum, int argc, sqlite3_value **argv, int nArg, sqlite3_value **a);

#endif /* GPUAGG_TVF_H */
