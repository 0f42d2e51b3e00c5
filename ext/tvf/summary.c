/*
** gpu_summary(SOURCE [, COLUMN]): statistics of every column of a table or
** view (or just COLUMN), as DuckDB's SUMMARIZE gives them, as a
** table-valued function.
**
**   SELECT * FROM gpu_summary('t');
**
**   1. An eponymous-only virtual table (tvf.h). One row per column, in
**      declared order: name, rows (count(*)), nulls, integers, reals, texts,
**      blobs (values by storage class), min, max (as gpu_min and gpu_max),
**      sum, total, avg (as gpu_sum, gpu_total and gpu_avg: over the values
**      sum() sees, TEXT and BLOB as it reads them), var_samp, var_pop,
**      stddev_samp, stddev_pop (over those same numbers), q25, median, q75
**      (over the column's INTEGER and REAL values as doubles, ±Inf included:
**      gpu_percentile_cont's 0.25, 0.5 and 0.75, exact; NULL where the
**      interpolation has no value, between -Inf and +Inf).
**   2. Sums are exact and rounded once. A column whose integers' exact sum
**      leaves int64 gives a NULL sum (the other columns' rows must not
**      fail); total and avg stay. Variances come from the exact sums of x
**      and x^2 in big integers, rounded once (exactvar.h), and so are the
**      standard deviations, their exact square roots. NULL below 2 (sample)
**      or 1 (population) values, or with ±Inf among them.
**   3. All columns are read in one scan through a column source (at most
**      GA_COLS_MAX columns a scan: wider sources take more scans). Each
**      column's INTEGER and REAL values go through the chunk pipeline
**      (GA_OP_STATS: a segment of the chunk per column), reduced on the
**      device past the first chunks (sum, squares, min and max kernels) or
**      on the CPU; counts, and TEXT and BLOB values, are handled here.
**   4. SOURCE and COLUMN are names (tvf.h: checked, quoted, never pasted);
**      errors name the problem. It runs SQL of its own, so it is
**      SQLITE_VTAB_DIRECTONLY; it sees the current transaction's rows;
**      sqlite3_interrupt() stops it with SQLITE_INTERRUPT; every path frees
**      what the query held.
**   5. A CUDA error: in 'auto' mode the chunk is redone on the CPU (the
**      pipeline's fallback), in 'cuda' mode it is an SQL error.
**   6. The quartiles need every number: where the query reads them (the
**      plan's colUsed), the scan keeps each column's as order keys in host
**      memory (8 bytes a number), ranked after the scan (ranks.h: on the
**      device past `threshold` numbers); a column kept on the device (the
**      column cache) is ranked there with no copy. Queries that read none
**      of the three pay nothing for them.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "pipe.h"
#include "tvf.h"
#include "exactvar.h"
#include "ranks.h"

enum { COL_NAME, COL_ROWS, COL_NULLS, COL_INTS, COL_REALS, COL_TEXTS, COL_BLOBS, COL_MIN, COL_MAX,
       COL_SUM, COL_TOTAL, COL_AVG, COL_VSAMP, COL_VPOP, COL_SSAMP, COL_SPOP, COL_Q25, COL_MEDIAN, COL_Q75,
       COL_SOURCE, COL_COLUMN };
#define NARG 2

typedef ga_vtab SumVtab;

/* One column's statistics. */
typedef struct ColStat {
  char *zName;              /* its declared name */
  int64_t nNull, nInt, nReal, nText, nBlob;   /* values by storage class */
  int64_t nIntLane;         /* values sum() sees as integers (TEXT '12' too) */
  ga_stat num;              /* its INTEGER and REAL values, chunk after chunk */
  int64_t nNum;             /* how many went to num (the next chunk's base) */
  ga_sum hs;                /* TEXT and BLOB values as sum() reads them: sum */
  ga_fpe hf;                /* ... the reals not yet in hs's words */
  ga_sq hq;                 /* ... squares */
  ga_other omn, omx;         /* least and greatest TEXT or BLOB value */
  uint64_t *key;            /* order keys of its numbers (ranks.h), until ranked */
  int64_t nKey, capKey;     /* keys at key, room there */
  double q[3];              /* q25, median, q75 (NaN: NULL) */
} ColStat;

typedef struct SumCursor {
  sqlite3_vtab_cursor base; /* base class */
  ColStat *a;               /* the columns */
  int nCol;                 /* how many */
  int iRow;                 /* the current one */
  int64_t nRows;            /* rows of the source */
} SumCursor;

static void cursorReset(SumCursor *c){
  int i;
  for(i=0; i<c->nCol; i++){
    sqlite3_free(c->a[i].zName);
    ga_other_free(&c->a[i].omn);
    ga_other_free(&c->a[i].omx);
    free(c->a[i].key);
  }
  free(c->a);
  c->a = 0;
  c->nCol = c->iRow = 0;
  c->nRows = 0;
}

/* ---- the scan ------------------------------------------------------------- */

/* One scan of up to GA_COLS_MAX columns, a[0..n): a sink. */
typedef struct SumScan {
  ga_colsink sink;          /* the source delivers here (sumBatch) */
  SumVtab *v;               /* connection, settings, errors */
  ColStat *a;               /* the columns this scan reads */
  int n;                    /* how many */
  ga_pipe *q;               /* the pipeline, once opened */
  int cpu;                  /* no pipeline: reduce each batch here */
  int64_t nRows;            /* rows read */
  int failed;               /* sumBatch stopped the scan (message set) */
  int wantQ;                /* keep the numbers' keys for the quartiles */
} SumScan;

/* A chunk's (or batch's) statistics, column by column, in order. */
static void foldStats(ColStat *a, int n, const ga_stat *st, const int32_t *segN, const int32_t *segReal){
  int c;
  for(c=0; c<n; c++){
    ga_stat x;
    if( segN[c]==0 ) continue;
    x = st[c];
    x.nReal = segReal[c];
    x.nInt = segN[c] - segReal[c];
    ga_stat_merge(&a[c].num, &x, a[c].nNum);
    a[c].nNum += segN[c];
  }
}

static void sumFold(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  SumScan *sc = (SumScan*)pArg;
  (void)base;
  foldStats(sc->a, j->nSeg, s->stat, j->segN, j->segReal);
}

/* A TEXT or BLOB cell of column a: counted, summed as sum() reads it,
** compared with the column's other ones. */
static int foldOther(ColStat *a, int type, const ga_cell *x){
  if( type==SQLITE_TEXT ) a->nText++; else a->nBlob++;
  if( x->numType==SQLITE_INTEGER ){
    a->nIntLane++;
    ga_sum_int(&a->hs, x->num);
    ga_sq_int(&a->hq, x->num);
  }else{
    double d;
    memcpy(&d, &x->num, sizeof(d));
    ga_sum_real(&a->hs, &a->hf, d);
    ga_sq_real(&a->hq, d);
  }
  return ga_other_offer(&a->omn, &a->omx, type, x->z, x->n);
}

/* Without a pipeline: a batch's numbers reduced here, column by column. */
static int batchHere(SumScan *sc, const ga_colbatch *b){
  uint64_t bits[GA_BATCH/64];
  int64_t v[GA_BATCH];
  int32_t segN[1], segReal[1];
  ga_stat st;
  int c, i;
  for(c=0; c<b->nCol; c++){
    const ga_colvec *x = &b->col[c];
    memset(bits, 0, sizeof(bits));
    segN[0] = segReal[0] = 0;
    for(i=0; i<b->n; i++){
      if( x->type[i]!=SQLITE_INTEGER && x->type[i]!=SQLITE_FLOAT ) continue;
      if( x->type[i]==SQLITE_FLOAT ){
        bits[segN[0]>>6] |= (uint64_t)1 << (segN[0] & 63);
        segReal[0]++;
      }
      v[segN[0]++] = x->v[i];
    }
    ga_cpu_stats(v, bits, segN[0], &st);
    foldStats(&sc->a[c], 1, &st, segN, segReal);
  }
  return SQLITE_OK;
}

/* Keep the order key of number x (a REAL's bits if isReal) of column a. */
static int keepKey(ColStat *a, int64_t x, int isReal){
  double d;
  if( a->nKey==a->capKey ){
    int64_t cap = a->capKey ? 2*a->capKey : 1024;
    uint64_t *k = realloc(a->key, sizeof(uint64_t)*(size_t)cap);
    if( k==0 ) return SQLITE_NOMEM;
    a->key = k;
    a->capKey = cap;
  }
  if( isReal ) memcpy(&d, &x, sizeof(d)); else d = (double)x;
  a->key[a->nKey++] = ga_key(d);
  return SQLITE_OK;
}

/* Column a's quartiles from its numbers' keys (then freed), or from the
** device form d of a kept column. Non-zero: an error, the message in zErr. */
static int quartiles(SumVtab *v, ColStat *a, struct ga_dcol *d, char *zErr){
  static const double aFrac[3] = { 0.25, 0.5, 0.75 };
  int64_t r[6], n = d ? a->nNum : a->nKey;
  uint64_t k[6];
  double ix[3];
  int nr[3], j, m = 0, rc;
  a->q[0] = a->q[1] = a->q[2] = NAN;
  if( n==0 ) return SQLITE_OK;
  for(j=0; j<3; j++){
    nr[j] = ga_pct_ranks(aFrac[j], n, 0, &r[m], &ix[j]);
    m += nr[j];
  }
#ifdef GPUAGG_CUDA
  if( d ){
    rc = ga_dcol_ranks(&v->conn->cache.dres, d, r, m, k, &v->conn->stats, zErr);
  }else
#endif
  rc = ga_ranks(v->conn, a->key, n, r, m, k, zErr);
  free(a->key);
  a->key = 0;
  a->nKey = a->capKey = 0;
  if( rc ) return rc;
  for(j=m=0; j<3; m+=nr[j], j++) a->q[j] = ga_pct_value(ix[j], &r[m], nr[j], &k[m], 0);
  return SQLITE_OK;
}

static int sumBatch(ga_colsink *sink, const ga_colbatch *b){
  SumScan *sc = (SumScan*)sink;
  char zErr[GA_ERRLEN];
  int c, i, rc = SQLITE_OK;
  if( sc->q==0 && !sc->cpu ){
    sc->q = ga_pipe_open(sc->v->conn, GA_OP_STATS, sumFold, sc, zErr);
    if( sc->q==0 && zErr[0] ){
      rc = ga_tvf_error(&sc->v->base, "%s", zErr);
    }else if( sc->q==0 || ga_pipe_columns(sc->q, sc->n) ){
      sc->cpu = 1;                        /* no buffer, or too small a one: all of it here */
      if( sc->q && ga_pipe_close(sc->q, zErr) ) rc = ga_tvf_error(&sc->v->base, "%s", zErr);
      sc->q = 0;
    }
  }
  for(c=0; c<b->nCol && rc==SQLITE_OK; c++){
    const ga_colvec *x = &b->col[c];
    ColStat *a = &sc->a[c];
    for(i=0; i<b->n && rc==SQLITE_OK; i++){
      switch( x->type[i] ){
        case SQLITE_INTEGER:
          a->nInt++;
          a->nIntLane++;
          if( sc->q && ga_pipe_num(sc->q, c, x->v[i], 0) ) rc = ga_tvf_error(&sc->v->base, "%s", sc->q->zErr);
          else if( sc->wantQ ) rc = keepKey(a, x->v[i], 0);
          break;
        case SQLITE_FLOAT:
          a->nReal++;
          if( sc->q && ga_pipe_num(sc->q, c, x->v[i], 1) ) rc = ga_tvf_error(&sc->v->base, "%s", sc->q->zErr);
          else if( sc->wantQ ) rc = keepKey(a, x->v[i], 1);
          break;
        case SQLITE_NULL:
          a->nNull++;
          break;
        default:
          rc = foldOther(a, x->type[i], &x->cell[x->v[i]]);
          break;
      }
    }
  }
  if( rc==SQLITE_OK && sc->cpu ) rc = batchHere(sc, b);
  sc->nRows += b->n;
  sc->failed = rc!=SQLITE_OK;
  return rc;
}

/* Columns a[0..n) kept on the device (colsrc.h): reduced there, with no
** scan. 0: not served, scan instead (a column not on the device, the mode
** is cpu, or a CUDA error in 'auto' mode); 1: done; -1: an error, set. */
static int sumResident(SumVtab *v, ga_colsrc *src, ColStat *a, int n, int wantQ, int64_t *pnRows){
#ifdef GPUAGG_CUDA
  ga_dcol *d[GA_COLS_MAX];
  ga_resident *r[GA_COLS_MAX];
  char zErr[GA_ERRLEN];
  double t0 = ga_now_ms();
  ga_stat *st;
  int c, fail;
  if( v->conn->mode==GA_CPU ) return 0;
  for(c=0; c<n; c++){
    if( (r[c] = ga_colsrc_resident(src, c))==0 ) return 0;
    d[c] = r[c]->d;
  }
  if( (st = malloc(sizeof(ga_stat)*(size_t)n))==0 ) return 0;
  if( (fail = ga_dcol_stats(&v->conn->cache.dres, &v->conn->stats, d, n, st, zErr))!=0 ){
    free(st);
    sqlite3_snprintf(GA_ERRLEN, v->conn->stats.zLastErr, "%s", zErr);
    if( v->conn->mode!=GA_CUDA ) return 0;
    ga_tvf_error(&v->base, "%s", zErr);
    return -1;
  }
  for(c=0; c<n; c++){
    a[c].nNull = r[c]->nNull;
    a[c].nInt = a[c].nIntLane = r[c]->nInt;
    a[c].nReal = r[c]->nReal;
    a[c].nNum = r[c]->nInt + r[c]->nReal;
    if( a[c].nNum ){
      st[c].nInt = r[c]->nInt;
      st[c].nReal = r[c]->nReal;
      ga_stat_merge(&a[c].num, &st[c], 0);
    }
    if( wantQ && (fail = quartiles(v, &a[c], d[c], zErr))!=0 ) break;
  }
  free(st);
  if( fail ){                               /* the quartiles' sort: as above, or scan */
    sqlite3_snprintf(GA_ERRLEN, v->conn->stats.zLastErr, "%s", zErr);
    if( v->conn->mode==GA_CUDA ){
      ga_tvf_error(&v->base, "%s", zErr);
      return -1;
    }
    for(c=0; c<n; c++){
      char *zName = a[c].zName;
      memset(&a[c], 0, sizeof(a[c]));
      a[c].zName = zName;
    }
    return 0;
  }
  *pnRows = r[0]->n;
  ga_cache_device_hit(&v->conn->cache, ga_now_ms() - t0);
  return 1;
#else
  (void)v; (void)src; (void)a; (void)n; (void)wantQ; (void)pnRows;
  return 0;
#endif
}

/* Scan columns a[0..n) (aiCol in from) once. */
static int sumRun(SumVtab *v, const ga_source *from, ColStat *a, const int *aiCol, int n, int wantQ, int64_t *pnRows){
  unsigned char aWant[GA_COLS_MAX];
  char zErr[GA_ERRLEN];
  ga_colsrc *src = 0;
  SumScan sc;
  int rc, c;
  memset(aWant, GA_COL_BYTES|GA_COL_NUMERIC, sizeof(aWant));
  if( (rc = ga_tvf_open(&v->base, "gpu_summary", from, n, aiCol, aWant, &src))!=SQLITE_OK ) return rc;
  if( (rc = sumResident(v, src, a, n, wantQ, pnRows))!=0 ){
    src->xClose(src);
    return rc>0 ? SQLITE_OK : SQLITE_ERROR;
  }
  memset(&sc, 0, sizeof(sc));
  sc.sink.xBatch = sumBatch;
  sc.v = v;
  sc.a = a;
  sc.n = n;
  sc.wantQ = wantQ;
  rc = src->xScan(src, &sc.sink);
  if( rc!=SQLITE_OK && !sc.failed && rc!=SQLITE_NOMEM ) ga_tvf_error(&v->base, "%s", src->xErrmsg(src));
  if( sc.q && ga_pipe_close(sc.q, zErr) && rc==SQLITE_OK ) rc = ga_tvf_error(&v->base, "%s", zErr);
  src->xClose(src);
  *pnRows = sc.nRows;
  for(c=0; c<n && rc==SQLITE_OK && wantQ; c++){
    if( quartiles(v, &a[c], 0, zErr) ) rc = ga_tvf_error(&v->base, "%s", zErr);
  }
  return rc;
}

/* ---- the virtual table ------------------------------------------------------ */

static int sumConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ga_tvf_connect(db, pAux, "CREATE TABLE x(name TEXT, rows INTEGER, nulls INTEGER, integers INTEGER,"
                                  " reals INTEGER, texts INTEGER, blobs INTEGER, min, max, sum, total REAL, avg REAL,"
                                  " var_samp REAL, var_pop REAL, stddev_samp REAL, stddev_pop REAL,"
                                  " q25 REAL, median REAL, q75 REAL, source HIDDEN, column_name HIDDEN)", ppVtab);
}

static int sumOpen(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  SumCursor *c = calloc(1, sizeof(*c));
  (void)tab;
  if( c==0 ) return SQLITE_NOMEM;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static int sumClose(sqlite3_vtab_cursor *cur){
  cursorReset((SumCursor*)cur);
  free(cur);
  return SQLITE_OK;
}

#define WANT_QUARTILES 0x10000   /* idxNum: the query reads q25, median or q75 */

static int sumBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p){
  int rc = ga_tvf_best_index(tab, p, COL_SOURCE, NARG);
  if( p->colUsed & ((sqlite3_uint64)7 << COL_Q25) ) p->idxNum |= WANT_QUARTILES;
  return rc;
}

static int sumFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  static const char *zFn = "gpu_summary";
  SumCursor *c = (SumCursor*)cur;
  SumVtab *v = (SumVtab*)cur->pVtab;
  sqlite3_value *a[NARG];
  const char *zSource, *zCol = 0;
  ga_source from;
  int *ai = 0, i, rc;
  (void)idxStr;
  ga_tvf_args(idxNum, argc, argv, NARG, a);
  cursorReset(c);
  if( !(idxNum & 1) ) return ga_tvf_error(cur->pVtab, "%s: takes (source) or (source, column)", zFn);
  zSource = ga_tvf_name(a[0]);
  if( a[1] ) zCol = ga_tvf_name(a[1]);
  if( zSource==0 || (a[1] && zCol==0) ) return ga_tvf_error(cur->pVtab, "%s: source and column must be names (text without NUL bytes)", zFn);
  rc = ga_tvf_source(cur->pVtab, v->db, zFn, zSource, &from);
  if( rc==SQLITE_OK ){
    c->nCol = zCol ? 1 : from.tab.nCol;
    c->a = calloc((size_t)c->nCol, sizeof(ColStat));
    ai = malloc(sizeof(int)*(size_t)c->nCol);
    if( c->a==0 || ai==0 ) rc = SQLITE_NOMEM;
  }
  for(i=0; rc==SQLITE_OK && i<c->nCol; i++){
    ai[i] = zCol ? ga_tvf_column(cur->pVtab, zFn, &from, zCol) : i;
    if( ai[i]<0 ) rc = SQLITE_ERROR;
    else if( (c->a[i].zName = sqlite3_mprintf("%s", from.tab.aCol[ai[i]].zName))==0 ) rc = SQLITE_NOMEM;
  }
  /* A scan for each GA_COLS_MAX columns (one, but for the widest sources). */
  for(i=0; rc==SQLITE_OK && i<c->nCol; i+=GA_COLS_MAX){
    int n = c->nCol - i < GA_COLS_MAX ? c->nCol - i : GA_COLS_MAX;
    rc = sumRun(v, &from, &c->a[i], &ai[i], n, (idxNum & WANT_QUARTILES)!=0, &c->nRows);
  }
  ga_source_free(&from);
  free(ai);
  if( rc!=SQLITE_OK ) cursorReset(c);
  return rc;
}

static int sumNext(sqlite3_vtab_cursor *cur){
  ((SumCursor*)cur)->iRow++;
  return SQLITE_OK;
}

static int sumEof(sqlite3_vtab_cursor *cur){
  SumCursor *c = (SumCursor*)cur;
  return c->iRow >= c->nCol;
}

/* The column's exact sums: its numbers' and its TEXT and BLOB values'. */
static void colTotals(ColStat *a, ga_sum *s, ga_sq *q){
  ga_sum h = a->hs;
  ga_fpe f = a->hf;
  ga_sum_settle(&h, &f);
  *s = a->num.sum;
  ga_sum_merge(s, &h);
  *q = a->num.sq;
  ga_sq_merge(q, &a->hq);
}

/* min (isMax 0) or max: TEXT and BLOB above numbers. */
static void extremeResult(sqlite3_context *ctx, const ColStat *a, int isMax){
  const ga_ext *e = isMax ? &a->num.mx : &a->num.mn;
  const ga_other *k = isMax ? &a->omx : &a->omn;
  if( k->type && (isMax || e->type==GA_T_NONE) ){
    ga_other_result(ctx, k);
  }else if( e->type==GA_T_INT ){
    sqlite3_result_int64(ctx, (sqlite3_int64)e->bits);
  }else if( e->type==GA_T_REAL ){
    sqlite3_result_double(ctx, ga_bits_real(e->bits));
  }else{
    sqlite3_result_null(ctx);
  }
}

static int sumColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  SumCursor *c = (SumCursor*)cur;
  ColStat *a = &c->a[c->iRow];
  int64_t n = c->nRows - a->nNull;        /* the values sum() sees */
  ga_sum s;
  ga_sq q;
  switch( i ){
    case COL_NAME:  sqlite3_result_text(ctx, a->zName, -1, SQLITE_TRANSIENT); return SQLITE_OK;
    case COL_ROWS:  sqlite3_result_int64(ctx, c->nRows); return SQLITE_OK;
    case COL_NULLS: sqlite3_result_int64(ctx, a->nNull); return SQLITE_OK;
    case COL_INTS:  sqlite3_result_int64(ctx, a->nInt); return SQLITE_OK;
    case COL_REALS: sqlite3_result_int64(ctx, a->nReal); return SQLITE_OK;
    case COL_TEXTS: sqlite3_result_int64(ctx, a->nText); return SQLITE_OK;
    case COL_BLOBS: sqlite3_result_int64(ctx, a->nBlob); return SQLITE_OK;
    case COL_MIN:   extremeResult(ctx, a, 0); return SQLITE_OK;
    case COL_MAX:   extremeResult(ctx, a, 1); return SQLITE_OK;
    case COL_SOURCE: case COL_COLUMN: return SQLITE_OK;   /* the arguments: consumed */
    case COL_Q25: case COL_MEDIAN: case COL_Q75:
      if( !isnan(a->q[i - COL_Q25]) ) sqlite3_result_double(ctx, a->q[i - COL_Q25]);
      return SQLITE_OK;
  }
  colTotals(a, &s, &q);
  switch( i ){
    case COL_SUM:
      if( n==0 ){
        sqlite3_result_null(ctx);
      }else if( a->nIntLane==n ){
        __int128 t = ga_sum_int128(&s);
        if( t<INT64_MIN || t>INT64_MAX ) sqlite3_result_null(ctx);   /* overflow: NULL, not an error */
        else sqlite3_result_int64(ctx, (sqlite3_int64)t);
      }else{
        sqlite3_result_double(ctx, ga_sum_value(&s));
      }
      break;
    case COL_TOTAL: sqlite3_result_double(ctx, ga_sum_value(&s)); break;
    case COL_AVG:
      if( n ) sqlite3_result_double(ctx, ga_sum_value(&s)/(double)n);
      else sqlite3_result_null(ctx);
      break;
    case COL_VSAMP: sqlite3_result_double(ctx, ga_variance(&s, &q, n, n - 1)); break;
    case COL_VPOP:  sqlite3_result_double(ctx, ga_variance(&s, &q, n, n)); break;
    case COL_SSAMP: sqlite3_result_double(ctx, ga_stddev(&s, &q, n, n - 1)); break;
    case COL_SPOP:  sqlite3_result_double(ctx, ga_stddev(&s, &q, n, n)); break;
  }
  return SQLITE_OK;
}

static int sumRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((SumCursor*)cur)->iRow;
  return SQLITE_OK;
}

const sqlite3_module ga_summary_module = {
  0,                        /* iVersion */
  0,                        /* xCreate: eponymous only */
  sumConnect,
  sumBestIndex,
  ga_tvf_disconnect,
  0,                        /* xDestroy */
  sumOpen,
  sumClose,
  sumFilter,
  sumNext,
  sumEof,
  sumColumn,
  sumRowid,
  0, 0, 0, 0, 0, 0, 0,      /* xUpdate .. xRename */
  0, 0, 0,                  /* xSavepoint, xRelease, xRollbackTo */
  0                         /* xShadowName */
};
