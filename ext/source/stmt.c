/*
** The statement column source (colsrc.h). It runs
**
**   SELECT gpuagg_colsrc("a", "b", ...) FROM <source> NOT INDEXED
**
** through the caller's connection (so it sees the caller's transaction and
** stops on sqlite3_interrupt()). Why an aggregate: SQLite calls an
** aggregate's step in its own loop (~35 ns a row on the GPU host), where
** stepping a SELECT to hand back each row costs twice that or more
** (measured on the GPU host). The step finds the scan it feeds in the connection's state
** (ga_conn.pScan), set only while the scan runs: a plain API call, where a
** bound pointer (sqlite3_value_pointer) would cost a string compare a row.
** Called from SQL at any other time, it is an error; it is direct-only, so
** no view or trigger can call it during a scan.
*/
#include <string.h>
#include "colsrc.h"

#define ARENA_SOON ((int64_t)16 << 20)   /* TEXT/BLOB bytes that end a batch early */

typedef struct StmtSrc {
  ga_colsrc base;           /* the interface */
  sqlite3 *db;              /* the connection it reads through */
  ga_conn *conn;            /* its gpuagg state (pScan points here in a scan) */
  sqlite3_stmt *st;         /* the aggregate query */
  ga_colsink *sink;         /* where the scan running now delivers */
  int rcSink;               /* the sink's error code, if it stopped the scan */
  int nCol;                 /* columns */
  unsigned char *aWant;     /* what each column asks (GA_COL_*) */
  int n;                    /* rows in the batch being filled */
  unsigned char *type;      /* classes, GA_BATCH per column */
  int64_t *v;               /* values, GA_BATCH per column */
  ga_colvec *col;           /* the batch's columns, pointing into type and v */
  ga_cell *cell;            /* TEXT and BLOB cells of the batch */
  int64_t *aOff;            /* each cell's bytes' offset in arena (it moves as it grows) */
  int nCell;                /* cells in use */
  int nCellAlloc;           /* room in cell and aOff */
  char *arena;              /* the cells' bytes */
  int64_t nArena;           /* bytes in use */
  int64_t szArena;          /* bytes allocated */
  int64_t nDone;            /* rows delivered (the next batch's position) */
} StmtSrc;

/* Deliver the batch. Non-zero: the sink stopped the scan. */
static int srcDeliver(StmtSrc *s){
  ga_colbatch b;
  int i;
  if( s->n>0 && s->rcSink==0 ){
    for(i=0; i<s->nCell; i++) s->cell[i].z = s->arena + s->aOff[i];
    for(i=0; i<s->nCol; i++) s->col[i].cell = s->cell;
    b.pos = s->nDone;
    b.at1 = 0;                      /* (no nRowMax: positions not told) */
    s->nDone += s->n;
    b.n = s->n;
    b.nCol = s->nCol;
    b.col = s->col;
    b.sel = 0;
    b.nSel = 0;
    s->rcSink = s->sink->xBatch(s->sink, &b);
  }
  s->n = s->nCell = 0;
  s->nArena = 0;
  return s->rcSink;
}

/* Describe TEXT or BLOB x (class t) of column c, row i, as the column asks. */
static int srcCell(StmtSrc *s, int c, int i, sqlite3_value *x, int t){
  ga_cell *k;
  if( s->nCell==s->nCellAlloc ){
    int na = s->nCellAlloc ? 2*s->nCellAlloc : 64;
    ga_cell *pc = sqlite3_realloc64(s->cell, sizeof(ga_cell)*(sqlite3_uint64)na);
    int64_t *po = pc ? sqlite3_realloc64(s->aOff, sizeof(int64_t)*(sqlite3_uint64)na) : 0;
    if( pc ) s->cell = pc;
    if( po==0 ) return SQLITE_NOMEM;
    s->aOff = po;
    s->nCellAlloc = na;
  }
  k = &s->cell[s->nCell];
  memset(k, 0, sizeof(*k));
  s->aOff[s->nCell] = s->nArena;
  if( s->aWant[c] & GA_COL_BYTES ){
    const void *z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(x) : sqlite3_value_blob(x);
    int n = sqlite3_value_bytes(x);
    if( z==0 && n>0 ) return SQLITE_NOMEM;
    if( s->nArena + n > s->szArena ){
      int64_t want = s->szArena ? s->szArena : 65536;
      char *p;
      while( want < s->nArena + n ) want *= 2;
      if( (p = sqlite3_realloc64(s->arena, (sqlite3_uint64)want))==0 ) return SQLITE_NOMEM;
      s->arena = p;
      s->szArena = want;
    }
    if( n ) memcpy(s->arena + s->nArena, z, n);
    s->nArena += n;
    k->n = n;
  }
  if( s->aWant[c] & GA_COL_NUMERIC ){
    /* As sum() reads it (after the bytes: this may convert x in place). */
    if( sqlite3_value_numeric_type(x)==SQLITE_INTEGER ){
      k->numType = SQLITE_INTEGER;
      k->num = sqlite3_value_int64(x);
    }else{
      double d = sqlite3_value_double(x);
      k->numType = SQLITE_FLOAT;
      memcpy(&k->num, &d, sizeof(d));
    }
  }
  s->v[c*GA_BATCH + i] = s->nCell++;
  return SQLITE_OK;
}

void ga_colsrcStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  StmtSrc *s = (StmtSrc*)((ga_conn*)sqlite3_user_data(ctx))->pScan;
  int c, i;
  if( s==0 || argc!=s->nCol ){
    sqlite3_result_error(ctx, "gpuagg_colsrc: for the table-valued functions' own use", -1);
    return;
  }
  i = s->n;
  for(c=0; c<argc; c++){
    sqlite3_value *x = argv[c];
    int t = sqlite3_value_type(x);
    s->type[c*GA_BATCH + i] = (unsigned char)t;
    if( t==SQLITE_INTEGER ){
      s->v[c*GA_BATCH + i] = sqlite3_value_int64(x);
    }else if( t==SQLITE_FLOAT ){
      double d = sqlite3_value_double(x);
      memcpy(&s->v[c*GA_BATCH + i], &d, sizeof(d));
    }else if( t!=SQLITE_NULL && s->aWant[c] && srcCell(s, c, i, x, t) ){
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if( (++s->n==GA_BATCH || s->nArena>=ARENA_SOON) && srcDeliver(s) ){
    sqlite3_result_error_code(ctx, s->rcSink);
  }
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
  s->n = s->nCell = 0;
  s->nArena = 0;
  s->nDone = 0;
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
  ga_free(s->cell);
  ga_free(s->aOff);
  ga_free(s->arena);
  ga_free(s);
}

ga_colsrc *ga_colsrc_stmt(sqlite3 *db, ga_conn *conn, const char *zFrom, int nCol,
                          const char *const *azCol, const unsigned char *aWant, char **pzErr){
  /* One allocation: the source, then aWant, col, v and type. */
  size_t sz = sizeof(StmtSrc) + (size_t)nCol*(1 + sizeof(ga_colvec) + GA_BATCH*(sizeof(int64_t) + 1)) + 16;
  StmtSrc *s;
  sqlite3_str *q;
  char *zSql;
  int rc, c;
  if( nCol<1 || nCol>GA_STMT_COLS ){
    *pzErr = sqlite3_mprintf("a scan reads 1 to %d columns", GA_STMT_COLS);
    return 0;
  }
  s = sqlite3_malloc64(sz);
  q = sqlite3_str_new(db);
  sqlite3_str_appendall(q, "SELECT gpuagg_colsrc(");
  for(c=0; c<nCol; c++) sqlite3_str_appendf(q, "%s\"%w\"", c ? ", " : "", azCol[c]);
  sqlite3_str_appendf(q, ") FROM %s NOT INDEXED", zFrom);
  zSql = sqlite3_str_finish(q);
  if( s ) memset(s, 0, sz);
  rc = s && zSql ? sqlite3_prepare_v2(db, zSql, -1, &s->st, 0) : SQLITE_NOMEM;
  if( rc==SQLITE_ERROR ){
    /* A view: no NOT INDEXED (a table's rows come in rowid order, as the
    ** page source gives them, whatever index covers the columns). */
    zSql[strlen(zSql) - 12] = 0;
    rc = sqlite3_prepare_v2(db, zSql, -1, &s->st, 0);
  }
  ga_free(zSql);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    if( s ) sqlite3_finalize(s->st);
    ga_free(s);
    return 0;
  }
  s->base.xScan = stmtScan;
  s->base.xErrmsg = stmtErrmsg;
  s->base.xClose = stmtClose;
  s->db = db;
  s->conn = conn;
  s->nCol = nCol;
  s->v = (int64_t*)&s[1];
  s->col = (ga_colvec*)&s->v[(size_t)nCol*GA_BATCH];
  s->type = (unsigned char*)&s->col[nCol];
  s->aWant = &s->type[(size_t)nCol*GA_BATCH];
  for(c=0; c<nCol; c++){
    s->aWant[c] = aWant ? aWant[c] : 0;
    s->col[c].type = &s->type[(size_t)c*GA_BATCH];
    s->col[c].v = &s->v[(size_t)c*GA_BATCH];
  }
  return &s->base;
}
