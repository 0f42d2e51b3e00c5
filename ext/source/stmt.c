/*
** The statement column source (colsrc.h). It runs
**
**   SELECT gpuagg_colsrc("col") FROM <source>
**
** through the caller's connection (so it sees the caller's transaction and
** stops on sqlite3_interrupt()). Why an aggregate: SQLite calls an
** aggregate's step in its own loop (~35 ns a row on the GPU host), where
** stepping a SELECT to hand back each row costs twice that or more
** (DESIGN.md). The step finds the scan it feeds in the connection's state
** (ga_conn.pScan), set only while the scan runs: a plain API call, where a
** bound pointer (sqlite3_value_pointer) would cost a string compare a row.
** Called from SQL at any other time, it is an error; it is direct-only, so
** no view or trigger can call it during a scan.
*/
#include <string.h>
#include "colsrc.h"

#define SRC_BATCH 1024            /* numbers handed to the sink at a time */

typedef struct StmtSrc {
  ga_colsrc base;           /* the interface */
  sqlite3 *db;              /* the connection it reads through */
  ga_conn *conn;            /* its gpuagg state (pScan points here in a scan) */
  sqlite3_stmt *st;         /* the aggregate query */
  ga_colsink *sink;         /* where the scan running now delivers */
  int rcSink;               /* the sink's error code, if it stopped the scan */
  int n;                    /* numbers waiting in a */
  double a[SRC_BATCH];      /* the batch being filled */
} StmtSrc;

/* Deliver the batch. Non-zero: the sink stopped the scan. */
static int srcDeliver(StmtSrc *s){
  int n = s->n;
  s->n = 0;
  if( n>0 && s->rcSink==0 ) s->rcSink = s->sink->xBatch(s->sink, s->a, n);
  return s->rcSink;
}

void ga_colsrcStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  StmtSrc *s = (StmtSrc*)((ga_conn*)sqlite3_user_data(ctx))->pScan;
  (void)argc;
  if( s==0 ){
    sqlite3_result_error(ctx, "gpuagg_colsrc: for gpu_histogram's own use", -1);
    return;
  }
  switch( sqlite3_value_type(argv[0]) ){
    case SQLITE_INTEGER: s->a[s->n++] = (double)sqlite3_value_int64(argv[0]); break;
    case SQLITE_FLOAT:   s->a[s->n++] = sqlite3_value_double(argv[0]); break;
    default:             return;
  }
  if( s->n==SRC_BATCH && srcDeliver(s) ) sqlite3_result_error_code(ctx, s->rcSink);
}

void ga_colsrcFinal(sqlite3_context *ctx){
  sqlite3_result_null(ctx);
}

static int stmtScan(ga_colsrc *p, ga_colsink *sink){
  StmtSrc *s = (StmtSrc*)p;
  int rc;
  void *pOuter = s->conn->pScan;             /* restored after */
  s->sink = sink;
  s->rcSink = 0;
  s->n = 0;
  s->conn->pScan = s;
  rc = sqlite3_step(s->st);                  /* the whole scan: one row */
  s->conn->pScan = pOuter;
  if( rc==SQLITE_ROW ) rc = srcDeliver(s);   /* the last, partial batch */
  else if( s->rcSink ) rc = s->rcSink;       /* the sink stopped it */
  sqlite3_reset(s->st);
  s->sink = 0;
  return rc;
}

static const char *stmtErrmsg(ga_colsrc *p){
  return sqlite3_errmsg(((StmtSrc*)p)->db);
}

static void stmtClose(ga_colsrc *p){
  StmtSrc *s = (StmtSrc*)p;
  sqlite3_finalize(s->st);
  sqlite3_free(s);
}

ga_colsrc *ga_colsrc_stmt(sqlite3 *db, ga_conn *conn, const char *zFrom, const char *zCol, char **pzErr){
  StmtSrc *s = sqlite3_malloc(sizeof(*s));
  char *zSql = sqlite3_mprintf("SELECT gpuagg_colsrc(\"%w\") FROM %s", zCol, zFrom);
  int rc;
  if( s ) memset(s, 0, sizeof(*s));
  rc = s && zSql ? sqlite3_prepare_v2(db, zSql, -1, &s->st, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    if( s ) sqlite3_finalize(s->st);
    sqlite3_free(s);
    return 0;
  }
  s->base.xScan = stmtScan;
  s->base.xErrmsg = stmtErrmsg;
  s->base.xClose = stmtClose;
  s->db = db;
  s->conn = conn;
  return &s->base;
}
