/*
** A DuckDB peer for the benchmarks, through DuckDB's C API opened with
** dlopen (the few types and prototypes used are declared here, as in the
** duckdb.h of v1.5; duckdb_result's layout has not changed since v0.1):
**
**   1. duck_load(zPath) opens libduckdb.so at zPath once per process (a
**      second call does nothing). A path ending in ".xz" is first
**      decompressed with `xz -dc` into a temporary file in $TMPDIR (or
**      /tmp), unlinked again once opened. Not thread-safe.
**   2. duck_open_memory(N) opens an in-memory database and one connection;
**      N>0 runs "SET threads=N", N==0 leaves DuckDB's default (every core).
**   3. duck_copy_table(db, zTab) creates (or replaces) the DuckDB table zTab
**      with the columns of SQLite's "SELECT * FROM zTab", typed by the values
**      they hold (counted by storage class, in the ranges below where the copy
**      is in ranges: at TPC-H SF 10 one scan took minutes): BIGINT if every
**      non-NULL value is an integer (or there is none), DOUBLE if they are
**      integers and reals, VARCHAR if any is TEXT (numbers among them become
**      sqlite3_column_text's text); a column with a BLOB is an error. It then
**      copies every row through an appender, NULL as NULL: a table of a
**      file in ranges of rowids, each by a thread of its own (a connection
**      of each side, one a core, 16 at most; DuckDB's rows in another order
**      than SQLite's), else in one scan.
**   4. duck_time_ms(sql) runs sql to a materialized result and returns the
**      wall time in ms, the row count in *pnRows; -1 (the error on stderr)
**      if it failed.
**
** Functions that can fail return nonzero or NULL and write a message into
** zErr[nErr] (zErr may be NULL).
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "duck.h"

/* duckdb.h's handles: each a pointer to a struct of one pointer. */
typedef struct { void *p; } *duckdb_database, *duckdb_connection;
typedef struct { void *p; } *duckdb_appender;
typedef int duckdb_state;                      /* DuckDBSuccess is 0 */
typedef struct duckdb_result {
  uint64_t deprecated_column_count;            /* use duckdb_column_count */
  uint64_t deprecated_row_count;               /* use duckdb_row_count */
  uint64_t deprecated_rows_changed;            /* use duckdb_rows_changed */
  void *deprecated_columns;                    /* duckdb_column* */
  char *deprecated_error_message;              /* use duckdb_result_error */
  void *internal_data;                         /* the result itself */
} duckdb_result;

/* The library's entry points, filled in by duck_load(). */
static struct {
  void *h;                                     /* dlopen handle, or NULL */
  duckdb_state (*xOpen)(const char*, duckdb_database*);
  void (*xClose)(duckdb_database*);
  duckdb_state (*xConnect)(duckdb_database, duckdb_connection*);
  void (*xDisconnect)(duckdb_connection*);
  duckdb_state (*xQuery)(duckdb_connection, const char*, duckdb_result*);
  const char *(*xResultError)(duckdb_result*);
  uint64_t (*xRowCount)(duckdb_result*);
  void (*xDestroyResult)(duckdb_result*);
  duckdb_state (*xAppenderCreate)(duckdb_connection, const char*, const char*,
                                  duckdb_appender*);
  const char *(*xAppenderError)(duckdb_appender);
  duckdb_state (*xAppenderDestroy)(duckdb_appender*);
  duckdb_state (*xEndRow)(duckdb_appender);
  duckdb_state (*xAppendInt64)(duckdb_appender, int64_t);
  duckdb_state (*xAppendDouble)(duckdb_appender, double);
  duckdb_state (*xAppendVarcharLength)(duckdb_appender, const char*, uint64_t);
  duckdb_state (*xAppendNull)(duckdb_appender);
} D;

/* An open in-memory database. */
struct duck {
  duckdb_database db;                          /* the database */
  duckdb_connection con;                       /* its one connection */
};

static void setErr(char *zErr, int nErr, const char *zFmt, ...){
  va_list ap;
  if( zErr==0 || nErr<=0 ) return;
  va_start(ap, zFmt);
  vsnprintf(zErr, nErr, zFmt, ap);
  va_end(ap);
}

int duck_load(const char *zPath, char *zErr, int nErr){
  static const struct { const char *zName; void **pp; } aSym[] = {
    {"duckdb_open", (void**)&D.xOpen},
    {"duckdb_close", (void**)&D.xClose},
    {"duckdb_connect", (void**)&D.xConnect},
    {"duckdb_disconnect", (void**)&D.xDisconnect},
    {"duckdb_query", (void**)&D.xQuery},
    {"duckdb_result_error", (void**)&D.xResultError},
    {"duckdb_row_count", (void**)&D.xRowCount},
    {"duckdb_destroy_result", (void**)&D.xDestroyResult},
    {"duckdb_appender_create", (void**)&D.xAppenderCreate},
    {"duckdb_appender_error", (void**)&D.xAppenderError},
    {"duckdb_appender_destroy", (void**)&D.xAppenderDestroy},
    {"duckdb_appender_end_row", (void**)&D.xEndRow},
    {"duckdb_append_int64", (void**)&D.xAppendInt64},
    {"duckdb_append_double", (void**)&D.xAppendDouble},
    {"duckdb_append_varchar_length", (void**)&D.xAppendVarcharLength},
    {"duckdb_append_null", (void**)&D.xAppendNull},
  };
  char zTmp[512], zCmd[1200];
  size_t n = strlen(zPath);
  const char *zLib = zPath;
  unsigned i;
  if( D.h ) return 0;
  zTmp[0] = 0;
  if( n>3 && strcmp(zPath+n-3, ".xz")==0 ){
    const char *zDir = getenv("TMPDIR");
    int fd;
    if( strchr(zPath, '\'') ){
      setErr(zErr, nErr, "quote in path %s", zPath);
      return 1;
    }
    snprintf(zTmp, sizeof(zTmp), "%s/libduckdb.XXXXXX",
             zDir && zDir[0] ? zDir : "/tmp");
    if( (fd = mkstemp(zTmp))<0 ){
      setErr(zErr, nErr, "cannot create %s", zTmp);
      return 1;
    }
    close(fd);
    snprintf(zCmd, sizeof(zCmd), "xz -dc -- '%s' > '%s'", zPath, zTmp);
    if( system(zCmd)!=0 ){
      setErr(zErr, nErr, "failed: %s", zCmd);
      unlink(zTmp);
      return 1;
    }
    zLib = zTmp;
  }
  D.h = dlopen(zLib, RTLD_NOW|RTLD_LOCAL);
  if( zTmp[0] ) unlink(zTmp);        /* the mapping outlives the name */
  if( D.h==0 ){
    setErr(zErr, nErr, "dlopen %s: %s", zPath, dlerror());
    return 1;
  }
  for(i=0; i<sizeof(aSym)/sizeof(aSym[0]); i++){
    if( (*aSym[i].pp = dlsym(D.h, aSym[i].zName))==0 ){
      setErr(zErr, nErr, "%s: no %s", zPath, aSym[i].zName);
      dlclose(D.h);
      D.h = 0;
      return 1;
    }
  }
  return 0;
}

/* Runs zSql and discards its result; 0 or nonzero, the error in zErr. */
static int duckExec(duck *p, const char *zSql, char *zErr, int nErr){
  duckdb_result r;
  int rc = D.xQuery(p->con, zSql, &r)!=0;
  if( rc ) setErr(zErr, nErr, "duckdb: %s", D.xResultError(&r));
  D.xDestroyResult(&r);
  return rc;
}

duck *duck_open_memory(int nThreads, char *zErr, int nErr){
  duck *p;
  if( D.h==0 ){ setErr(zErr, nErr, "duck_load() first"); return 0; }
  if( (p = calloc(1, sizeof(*p)))==0 ){ setErr(zErr, nErr, "no memory"); return 0; }
  if( D.xOpen(0, &p->db)!=0 ){
    setErr(zErr, nErr, "duckdb_open failed");
    free(p);
    return 0;
  }
  if( D.xConnect(p->db, &p->con)!=0 ){
    setErr(zErr, nErr, "duckdb_connect failed");
    duck_close(p);
    return 0;
  }
  if( nThreads>0 ){
    char zSql[64];
    snprintf(zSql, sizeof(zSql), "SET threads=%d", nThreads);
    if( duckExec(p, zSql, zErr, nErr) ){ duck_close(p); return 0; }
  }
  return p;
}

/* Column types for duck_copy_table (aType[i]). */
#define DUCK_BIGINT  1
#define DUCK_DOUBLE  2
#define DUCK_VARCHAR 3

/* pSel's rows into zTab through an appender of connection con. */
static int copyRows(duckdb_connection con, sqlite3_stmt *pSel, const char *aType, int nCol, const char *zTab,
                    char *zErr, int nErr){
  duckdb_appender app = 0;
  int e = 0, i;
  if( D.xAppenderCreate(con, 0, zTab, &app)!=0 ) goto appender_error;
  while( (e = sqlite3_step(pSel))==SQLITE_ROW ){
    for(i=0; i<nCol; i++){
      if( sqlite3_column_type(pSel, i)==SQLITE_NULL ) e = D.xAppendNull(app);
      else if( aType[i]==DUCK_BIGINT ) e = D.xAppendInt64(app, sqlite3_column_int64(pSel, i));
      else if( aType[i]==DUCK_DOUBLE ) e = D.xAppendDouble(app, sqlite3_column_double(pSel, i));
      else{
        const char *z = (const char*)sqlite3_column_text(pSel, i);
        e = D.xAppendVarcharLength(app, z ? z : "", (uint64_t)sqlite3_column_bytes(pSel, i));
      }
      if( e ) goto appender_error;
    }
    if( D.xEndRow(app) ) goto appender_error;
  }
  if( e!=SQLITE_DONE ){
    setErr(zErr, nErr, "sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(pSel)));
    D.xAppenderDestroy(&app);
    return 1;
  }
  if( D.xAppenderDestroy(&app)!=0 ){       /* flushes; frees even if it fails */
    setErr(zErr, nErr, "duckdb appender: flush of %s failed", zTab);
    return 1;
  }
  return 0;
appender_error:
  setErr(zErr, nErr, "duckdb appender: %s", app ? D.xAppenderError(app) : "cannot create");
  if( app ) D.xAppenderDestroy(&app);
  return 1;
}

/* One thread's share of a copy: rowids [lo, hi] of zTab in file zFile;
** or, where zCnt is set, of the count of its values' storage classes. */
typedef struct CopyPart {
  duck *p;
  const char *zFile, *zTab, *aType;
  const char *zCnt;               /* the count's SELECT (ends with its FROM), or 0: the copy */
  int64_t *aCnt;                  /* ... its nCnt sums over this part's rows */
  int nCol, nCnt;
  sqlite3_int64 lo, hi;
  int rc;
  char zErr[200];
} CopyPart;

static void *copyPart(void *pArg){
  CopyPart *c = (CopyPart*)pArg;
  sqlite3 *db = 0;
  sqlite3_stmt *pSel = 0;
  duckdb_connection con = 0;
  char *zSql = c->zCnt ? sqlite3_mprintf("%s WHERE rowid BETWEEN ?1 AND ?2", c->zCnt)
                       : sqlite3_mprintf("SELECT * FROM \"%w\" WHERE rowid BETWEEN ?1 AND ?2", c->zTab);
  int i;
  c->rc = 1;
  if( zSql==0 || sqlite3_open_v2(c->zFile, &db, SQLITE_OPEN_READONLY, 0)
   || sqlite3_prepare_v2(db, zSql, -1, &pSel, 0) ){
    setErr(c->zErr, sizeof(c->zErr), "sqlite: %s", db ? sqlite3_errmsg(db) : "no memory");
  }else if( c->zCnt ){
    sqlite3_bind_int64(pSel, 1, c->lo);
    sqlite3_bind_int64(pSel, 2, c->hi);
    if( sqlite3_step(pSel)==SQLITE_ROW ){
      for(i=0; i<c->nCnt; i++) c->aCnt[i] = sqlite3_column_int64(pSel, i);
      c->rc = 0;
    }else{
      setErr(c->zErr, sizeof(c->zErr), "sqlite: %s", sqlite3_errmsg(db));
    }
  }else if( D.xConnect(c->p->db, &con)!=0 ){
    setErr(c->zErr, sizeof(c->zErr), "duckdb_connect failed");
  }else{
    sqlite3_bind_int64(pSel, 1, c->lo);
    sqlite3_bind_int64(pSel, 2, c->hi);
    c->rc = copyRows(con, pSel, c->aType, c->nCol, c->zTab, c->zErr, sizeof(c->zErr));
  }
  if( con ) D.xDisconnect(&con);
  sqlite3_finalize(pSel);
  sqlite3_close(db);
  sqlite3_free(zSql);
  return 0;
}

/* zTab's rows copied by threads over ranges of its rowids (3); or, with
** zCnt, its nCnt counts summed into aCnt (room for 16*nCnt). -1: not done
** so (an in-memory database, no rowids, one core), try one scan. */
static int copyParallel(duck *p, sqlite3 *db, const char *zTab, const char *aType, int nCol, const char *zCnt,
                        int64_t *aCnt, int nCnt, char *zErr, int nErr){
  const char *zFile = sqlite3_db_filename(db, "main");
  long nCore = sysconf(_SC_NPROCESSORS_ONLN);
  int nPart = nCore>16 ? 16 : (int)nCore, i, rc = 0;
  sqlite3_int64 lo, hi;
  sqlite3_stmt *pRange = 0;
  char *zSql;
  CopyPart a[16];
  pthread_t aTid[16];
  if( zFile==0 || zFile[0]==0 || nPart<2 ) return -1;
  if( (zSql = sqlite3_mprintf("SELECT min(rowid), max(rowid) FROM \"%w\"", zTab))==0 ) return -1;
  if( sqlite3_prepare_v2(db, zSql, -1, &pRange, 0) || sqlite3_step(pRange)!=SQLITE_ROW
   || sqlite3_column_type(pRange, 0)==SQLITE_NULL ){
    sqlite3_finalize(pRange);
    sqlite3_free(zSql);
    return -1;
  }
  lo = sqlite3_column_int64(pRange, 0);
  hi = sqlite3_column_int64(pRange, 1);
  sqlite3_finalize(pRange);
  sqlite3_free(zSql);
  for(i=0; i<nPart; i++){
    sqlite3_int64 span = (hi - lo)/nPart + 1;
    memset(&a[i], 0, sizeof(a[i]));
    a[i].p = p;
    a[i].zFile = zFile;
    a[i].zTab = zTab;
    a[i].aType = aType;
    a[i].nCol = nCol;
    a[i].zCnt = zCnt;
    a[i].aCnt = aCnt + (size_t)i*nCnt;
    a[i].nCnt = nCnt;
    a[i].lo = lo + span*i;
    a[i].hi = i==nPart-1 ? hi : lo + span*(i+1) - 1;
    if( pthread_create(&aTid[i], 0, copyPart, &a[i]) ){
      a[i].rc = 1;
      setErr(a[i].zErr, sizeof(a[i].zErr), "pthread_create failed");
      aTid[i] = 0;
    }
  }
  for(i=0; i<nPart; i++){
    if( aTid[i] ) pthread_join(aTid[i], 0);
    if( a[i].rc && rc==0 ){
      rc = 1;
      setErr(zErr, nErr, "%s", a[i].zErr);
    }
  }
  for(i=1; zCnt && i<nPart; i++){
    int k;
    for(k=0; k<nCnt; k++) aCnt[k] += aCnt[(size_t)i*nCnt + k];
  }
  return rc;
}

int duck_copy_table(duck *p, sqlite3 *db, const char *zTab, char *zErr, int nErr){
  sqlite3_stmt *pSel = 0, *pCnt = 0;
  sqlite3_str *pDdl = sqlite3_str_new(db), *pCntSql = sqlite3_str_new(db);
  char *zSql = 0, *zDdl = 0, *aType = 0;
  int64_t *aCnt = 0;
  int rc = 1, nCol = 0, i;

  zSql = sqlite3_mprintf("SELECT * FROM \"%w\"", zTab);
  if( sqlite3_prepare_v2(db, zSql, -1, &pSel, 0) ) goto sqlite_error;
  nCol = sqlite3_column_count(pSel);
  if( (aType = calloc(nCol+1, 1))==0 || (aCnt = calloc(16*3*(size_t)nCol + 1, sizeof(int64_t)))==0 ){
    setErr(zErr, nErr, "no memory");
    goto done;
  }
  /* each column's reals, texts and blobs counted */
  for(i=0; i<nCol; i++){
    const char *zCol = sqlite3_column_name(pSel, i);
    sqlite3_str_appendf(pCntSql, "%ssum(typeof(\"%w\")='real'), sum(typeof(\"%w\")='text'), "
                        "sum(typeof(\"%w\")='blob')", i ? ", " : "SELECT ", zCol, zCol, zCol);
  }
  sqlite3_str_appendf(pCntSql, " FROM \"%w\"", zTab);
  sqlite3_free(zSql);
  zSql = sqlite3_str_finish(pCntSql);
  pCntSql = 0;
  if( zSql==0 ){ setErr(zErr, nErr, "no memory"); goto done; }
  if( nCol>0 && (i = copyParallel(0, db, zTab, 0, nCol, zSql, aCnt, 3*nCol, zErr, nErr))!=0 ){
    if( i>0 ) goto done;
    if( sqlite3_prepare_v2(db, zSql, -1, &pCnt, 0) ) goto sqlite_error;
    if( sqlite3_step(pCnt)!=SQLITE_ROW ) goto sqlite_error;
    for(i=0; i<3*nCol; i++) aCnt[i] = sqlite3_column_int64(pCnt, i);
  }
  sqlite3_str_appendf(pDdl, "CREATE OR REPLACE TABLE \"%w\"(", zTab);
  for(i=0; i<nCol; i++){
    const char *zCol = sqlite3_column_name(pSel, i);
    int64_t nReal = aCnt[3*i], nText = aCnt[3*i+1];
    if( aCnt[3*i+2] ){
      setErr(zErr, nErr, "%s.%s holds BLOB values: not copied", zTab, zCol);
      goto done;
    }
    aType[i] = nText ? DUCK_VARCHAR : nReal ? DUCK_DOUBLE : DUCK_BIGINT;
    sqlite3_str_appendf(pDdl, "%s\"%w\" %s", i ? ", " : "", zCol,
                        aType[i]==DUCK_VARCHAR ? "VARCHAR" : aType[i]==DUCK_DOUBLE ? "DOUBLE" : "BIGINT");
  }
  sqlite3_finalize(pCnt);
  pCnt = 0;
  sqlite3_str_appendall(pDdl, ")");
  zDdl = sqlite3_str_finish(pDdl);
  pDdl = 0;
  if( zDdl==0 ){ setErr(zErr, nErr, "no memory"); goto done; }
  if( duckExec(p, zDdl, zErr, nErr) ) goto done;

  if( (rc = copyParallel(p, db, zTab, aType, nCol, 0, 0, 0, zErr, nErr))<0 ){
    rc = copyRows(p->con, pSel, aType, nCol, zTab, zErr, nErr);
  }
  goto done;

sqlite_error:
  setErr(zErr, nErr, "sqlite: %s", sqlite3_errmsg(db));
  goto done;
done:
  sqlite3_finalize(pCnt);
  sqlite3_finalize(pSel);
  sqlite3_free(sqlite3_str_finish(pDdl));
  sqlite3_free(sqlite3_str_finish(pCntSql));
  sqlite3_free(zDdl);
  sqlite3_free(zSql);
  free(aType);
  free(aCnt);
  return rc;
}

double duck_time_ms(duck *p, const char *zSql, int64_t *pnRows){
  struct timespec t0, t1;
  duckdb_result r;
  double ms = -1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if( D.xQuery(p->con, zSql, &r)==0 ){
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (t1.tv_sec-t0.tv_sec)*1e3 + (t1.tv_nsec-t0.tv_nsec)/1e6;
    if( pnRows ) *pnRows = (int64_t)D.xRowCount(&r);
  }else{
    fprintf(stderr, "duckdb: %s\n  in: %s\n", D.xResultError(&r), zSql);
  }
  D.xDestroyResult(&r);
  return ms;
}

void duck_close(duck *p){
  if( p==0 ) return;
  if( p->con ) D.xDisconnect(&p->con);
  if( p->db ) D.xClose(&p->db);
  free(p);
}
