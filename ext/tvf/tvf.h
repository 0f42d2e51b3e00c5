/*
** What the table-valued functions share: their error messages, their
** SOURCE and COLUMN arguments resolved (source/table.h, as gpu_query's
** tables are), and the plan that takes their arguments.
**
**   1. Each is an eponymous-only virtual table (as ext/misc/series.c) whose
**      hidden columns take the arguments as equality constraints; a plan
**      that lacks one the query gives is refused (ga_tvf_best_index).
**   2. SOURCE and COLUMN arguments are resolved as source/table.h says
**      (its 1-4: a SOURCE as written, then as schema.table as written, then
**      as SQL writes a name: 'my_t', '"my table"', '[my table]', '`my
**      table`', '"a""b"', 'main.t', 'main."t.x"', '"main".[t]', 'temp.t',
**      'aux.t'; SQLite's search; one description the sources read; errors
**      that name the function and the problem), the errors set on the
**      function's vtab (ga_tvf_source, ga_tvf_column).
**
** Adding a table-valued function: a file in ext/tvf/ with an eponymous-only
** sqlite3_module (xCreate 0, as summary.c's) whose xConnect is
** ga_tvf_connect with its CREATE TABLE (the arguments as HIDDEN columns
** after the results; a result named as an SQL keyword is declared quoted),
** whose xBestIndex is ga_tvf_best_index (plus, like summary.c's
** WANT_QUARTILES, bits of idxNum for costly results the plan's colUsed
** reads), and whose xFilter takes its arguments with ga_tvf_args, checks
** names with ga_tvf_name, resolves SOURCE with ga_tvf_source and COLUMNs
** with ga_tvf_column, opens a source with ga_tvf_open (or serves columns
** kept on a device: ga_colsrc_resident) and frees the ga_source. Register
** the module in gpuagg.c's list, make room for its note in tvf.c's
** ga_tvfnotes (aNote), and add a README row and section and a tests/test_*.c
** suite (Makefile.am) that checks it against SQL.
*/
#ifndef GPUAGG_TVF_H
#define GPUAGG_TVF_H

#include "gpuagg.h"
#include "colsrc.h"
#include "table.h"
#include "vtab.h"

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
int ga_other_offer(ga_other *pMin, ga_other *pMax, int type, const void *z, int n, int enc);
void ga_other_free(ga_other*);
/* Keep a copy of (type, z, n) in k, replacing what it held. SQLITE_OK or
** SQLITE_NOMEM. */
int ga_other_set(ga_other *k, int type, const void *z, int n);
void ga_other_result(sqlite3_context*, const ga_other*);


/* An argument's text as a name, or NULL if it is NULL or holds a NUL byte. */
const char *ga_tvf_name(sqlite3_value*);

/* ga_source_resolve and ga_source_column (table.h), their errors set on
** the vtab. */
int ga_tvf_source(sqlite3_vtab*, sqlite3*, const char *zFn, const char *zSource, ga_source *p);
int ga_tvf_column(sqlite3_vtab*, const char *zFn, const ga_source *p, const char *zCol);

/* ga_source_open (table.h) with the column cache, its error set on the
** vtab. */
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

/* What the table-valued functions tell gpuagg_info(), tvf.c's own state
** per connection: its JSON field ("summary":{...}), the
** reason gpu_summary gave NULL (zWhy NULL: none). */
void ga_tvf_describe(sqlite3_str*, const ga_conn*);
void ga_tvf_summary_why(ga_conn*, const char *zWhy);

#endif /* GPUAGG_TVF_H */
