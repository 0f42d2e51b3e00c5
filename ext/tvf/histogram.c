/*
** gpu_histogram(SOURCE, COLUMN, BINS [, LO, HI]): an equal-width histogram
** of a column, as a table-valued function.
**
**   SELECT * FROM gpu_histogram('t', 'x', 256);
**   SELECT bin, count FROM gpu_histogram('aux.t', 'x', 10, 0, 1);
**
**   1. An eponymous-only virtual table (as ext/misc/series.c): hidden columns
**      take the arguments as equality constraints. Result columns: bin
**      INTEGER (0..BINS-1), lo REAL and hi REAL (that bin's edges; bin i's hi
**      is bin i+1's lo), count INTEGER; one row per bin in bin order, empty
**      bins included.
**   2. numpy.histogram's semantics (hist_acc.h): equal-width bins over
**      [lo, hi], each half-open except the last, which is closed; values
**      outside are not counted; NULL, TEXT and BLOB values are not counted;
**      INTEGER values count as doubles. Without LO and HI the range is
**      [min, max] of the column's numbers, [v-0.5, v+0.5] if they are all v;
**      no numbers then means no rows. With LO and HI and no numbers: BINS
**      rows of 0.
**   3. SOURCE is a table or view and COLUMN one of its columns, named as
**      tvf.h reads names ('t', '"my table"', 'main."t.x"', 'aux.t'); both
**      are checked to exist and quoted with %w, never pasted. Clear errors,
**      naming the problem, for: the wrong arguments, no such table, no such
**      column, BINS not an integer from 1 to 16777216, LO/HI not numbers,
**      not finite, or LO >= HI.
**   4. It runs SQL of its own, so it is SQLITE_VTAB_DIRECTONLY: not usable
**      from views or triggers. It reads through the caller's connection and
**      so sees the current transaction's uncommitted rows.
**   5. The column is read by a column source (colsrc.h: today the SQLite
**      statement that steps it); its numbers go through the chunk pipeline
**      like the aggregates' values: the first `threshold` are handled here,
**      later chunks by the backend. Counts are integers: exact, any order.
**   6. Without LO and HI the column is scanned once: its numbers are kept
**      (GA_OP_KEEP: on the device for CUDA, in host memory for the CPU)
**      while the range is folded, then counted where they are. Keeping is
**      limited by gpuagg_config('resident') bytes and by the memory there;
**      past either, the range scan finishes without keeping and a second
**      scan counts (gpuagg_info's hist_rescans).
**   7. A device that fails mid-histogram may have counted part of a chunk
**      that the pipeline then redoes on the CPU: in 'auto' mode the column
**      is counted again on the CPU (hist_rescans); in 'cuda' mode it is an
**      SQL error naming the CUDA error.
**   8. sqlite3_interrupt() stops a scan with SQLITE_INTERRUPT; every path
**      frees what the query held.
**   9. A column the cache keeps on the device (source/cache.c) is counted
**      there with no scan: its range by the extreme kernels, its numbers
**      as doubles by the histogram kernel; a CUDA error reads the host copy
**      instead ('cuda' mode: an SQL error).
*/
#include <math.h>
#include <string.h>
#include "colsrc.h"
#include "pipe.h"
#include "tvf.h"

#define HIST_MAX_BINS 16777216

/* Columns; the hidden ones (from COL_SOURCE) take the arguments in order. */
enum { COL_BIN, COL_LO, COL_HI, COL_COUNT, COL_SOURCE, COL_COLUMN, COL_BINS, COL_RLO, COL_RHI };
#define ARG_SOURCE 1
#define ARG_COLUMN 2
#define ARG_BINS   4
#define ARG_LO     8
#define ARG_HI     16

typedef ga_vtab HistVtab;

typedef struct HistCursor {
  sqlite3_vtab_cursor base; /* base class */
  ga_hparams h;             /* the bins */
  uint64_t *counts;         /* h.bins counts, or NULL */
  int64_t nRow;             /* rows to give: h.bins, or 0 */
  int64_t iRow;             /* the current row */
} HistCursor;

/* ---- counting ------------------------------------------------------------- */

/* One scan of the column: a sink for the column source's batches. */
typedef struct HistScan {
  ga_colsink sink;          /* the source delivers here (histBatch) */
  HistVtab *v;              /* the table: connection, settings, errors */
  int op;                   /* GA_OP_HIST: count; GA_OP_KEEP: keep, find the range */
  ga_hist *hist;            /* where the numbers go */
  ga_pipe *q;               /* the pipeline past the threshold, or NULL */
  int64_t left;             /* numbers still to handle on this thread */
  int failed;               /* histBatch stopped the scan (message set) */
  double mn, mx;            /* the range of the numbers (when keeping) */
  int64_t nNum;             /* how many numbers */
  const ga_backend *be;     /* the pipeline's backend, if one was opened */
} HistScan;

static void histFoldNothing(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  (void)pArg; (void)s; (void)j; (void)base;   /* chunks count into the job's histogram */
}

/* A batch of numbers: fold their range (keeping), then count or keep them,
** the first `threshold` here, the rest through a pipeline. */
static int histNumbers(HistScan *sc, const double *a, int n){
  ga_hist *hist = sc->hist;
  char zErr[GA_ERRLEN];
  int i, rc = SQLITE_OK;
  sc->nNum += n;
  if( sc->op==GA_OP_KEEP ){
    for(i=0; i<n; i++){
      if( a[i]<sc->mn ) sc->mn = a[i];
      if( a[i]>sc->mx ) sc->mx = a[i];
    }
    if( hist->over ) return SQLITE_OK;    /* a second scan will count */
  }
  for(i=0; i<n && rc==SQLITE_OK; ){
    if( sc->left>0 ){                     /* this thread's share */
      int k = sc->left < n - i ? (int)sc->left : n - i;
      if( sc->op==GA_OP_KEEP ) ga_cpu_keep(hist, a + i, k); else ga_cpu_hist(a + i, k, hist);
      sc->left -= k;
      i += k;
    }else if( sc->q==0 ){
      sc->q = ga_pipe_open(sc->v->conn, sc->op, histFoldNothing, 0, zErr);
      if( sc->q ){
        sc->q->hist = hist;
        sc->be = sc->q->fill->be;
      }else if( zErr[0] ){
        rc = ga_vtab_error(&sc->v->base, "%s", zErr);
      }else{
        sc->left = INT64_MAX;             /* no buffer: all of it here */
      }
    }else{
      if( ga_pipe_doubles(sc->q, a + i, n - i) ) rc = ga_vtab_error(&sc->v->base, "%s", sc->q->zErr);
      i = n;
    }
  }
  sc->failed = rc!=SQLITE_OK;
  return rc;
}

/* A batch of rows: their numbers, as doubles. */
static int histBatch(ga_colsink *sink, const ga_colbatch *b){
  const ga_colvec *c = &b->col[0];
  double a[GA_BATCH];
  int i, n = 0;
  for(i=0; i<b->n; i++){
    if( c->type[i]==SQLITE_INTEGER ) a[n++] = (double)c->v[i];
    else if( c->type[i]==SQLITE_FLOAT ) memcpy(&a[n++], &c->v[i], sizeof(double));
  }
  return histNumbers((HistScan*)sink, a, n);
}

/* Scan src once. op GA_OP_HIST: count every number into hist. GA_OP_KEEP:
** keep every number in hist (ga_hist) and fold their range. cpu: all of it
** on this thread, no pipeline. SQLITE_OK or an error code (message set);
** the caller ends hist either way (histEnd). */
static int histScan(HistVtab *v, ga_colsrc *src, int op, int cpu, ga_hist *hist, HistScan *sc){
  char zErr[GA_ERRLEN];
  int rc;
  memset(sc, 0, sizeof(*sc));
  sc->sink.xBatch = histBatch;
  sc->sink.xPar = 0;
  sc->v = v;
  sc->op = op;
  sc->hist = hist;
  sc->left = cpu ? INT64_MAX : v->conn->threshold;
  sc->mn = INFINITY;
  sc->mx = -INFINITY;
  rc = src->xScan(src, &sc->sink);
  if( rc!=SQLITE_OK && !sc->failed ) ga_vtab_error(&v->base, "%s", src->xErrmsg(src));
  if( sc->q && ga_pipe_close(sc->q, zErr) && rc==SQLITE_OK ) rc = ga_vtab_error(&v->base, "%s", zErr);
  return rc;
}

/* After a scan that ended with rc. use: count what was kept and gather the
** backend's counts into hist->counts. Then, on every path, free what the
** scan held. Returns rc, or the error that gathering met. */
static int histEnd(HistVtab *v, ga_hist *hist, const HistScan *sc, int use, int rc){
  char zErr[GA_ERRLEN];
  ga_cpu_kept(hist, use);
  if( sc->be && sc->be->xHistDone(hist, use, zErr) && rc==SQLITE_OK ){
    rc = ga_vtab_error(&v->base, "%s", zErr);
  }
  return rc;
}

/* The cursor's counts for c->h, zeroed, and hist set to count into them. */
static int histCounts(HistCursor *c, ga_hist *hist){
  size_t nb = sizeof(uint64_t)*(size_t)c->h.bins;
  ga_free(c->counts);
  if( (c->counts = sqlite3_malloc64(nb))==0 ) return SQLITE_NOMEM;
  memset(c->counts, 0, nb);
  hist->h = c->h;
  hist->counts = c->counts;
  return SQLITE_OK;
}

/* Count src's numbers into the cursor's bins with one scan (cpu: on this
** thread only). */
static int histCount(HistVtab *v, HistCursor *c, ga_colsrc *src, int cpu, ga_hist *hist){
  HistScan sc = { 0 };
  int rc = histCounts(c, hist);
  if( rc==SQLITE_OK ){
    rc = histScan(v, src, GA_OP_HIST, cpu, hist, &sc);
    rc = histEnd(v, hist, &sc, rc==SQLITE_OK, rc);
  }
  return rc;
}

/* The range of numbers from mn to mx as numpy takes it: [min, max],
** widened to [v-0.5, v+0.5] if they are all v. */
static int histAutoRange(sqlite3_vtab *tab, const char *zCol, double mn, double mx, ga_hparams *h){
  h->lo = mn;
  h->hi = mx;
  if( !isfinite(h->lo) || !isfinite(h->hi) ){
    return ga_vtab_error(tab, "gpu_histogram: the range of %s is not finite: give lo and hi", zCol);
  }
  if( h->lo==h->hi ){
    h->lo -= 0.5;
    h->hi += 0.5;
    if( h->lo==h->hi ){                   /* |v| too large for ±0.5 to show */
      h->lo = nextafter(h->lo, -INFINITY);
      h->hi = nextafter(h->hi, INFINITY);
    }
  }
  return SQLITE_OK;
}

/* Check BINS, LO, HI; fill h. SQLITE_OK, or the error set. */
static int histShape(sqlite3_vtab *tab, sqlite3_value *pBins, sqlite3_value *pLo, sqlite3_value *pHi,
                     ga_hparams *h){
  int tLo, tHi;
  if( sqlite3_value_numeric_type(pBins)!=SQLITE_INTEGER || sqlite3_value_int64(pBins)<1
   || sqlite3_value_int64(pBins)>HIST_MAX_BINS ){
    return ga_vtab_error(tab, "gpu_histogram: bins must be an integer from 1 to %d", HIST_MAX_BINS);
  }
  h->bins = sqlite3_value_int64(pBins);
  if( pLo==0 ) return SQLITE_OK;
  tLo = sqlite3_value_numeric_type(pLo);
  tHi = sqlite3_value_numeric_type(pHi);
  if( (tLo!=SQLITE_INTEGER && tLo!=SQLITE_FLOAT) || (tHi!=SQLITE_INTEGER && tHi!=SQLITE_FLOAT) ){
    return ga_vtab_error(tab, "gpu_histogram: lo and hi must be numbers");
  }
  h->lo = sqlite3_value_double(pLo);
  h->hi = sqlite3_value_double(pHi);
  if( !isfinite(h->lo) || !isfinite(h->hi) ) return ga_vtab_error(tab, "gpu_histogram: lo and hi must be finite");
  if( !(h->lo < h->hi) ) return ga_vtab_error(tab, "gpu_histogram: lo must be less than hi");
  return SQLITE_OK;
}

/* Step and norm of h's range; an error if the doubles cannot express it. */
static int histScale(sqlite3_vtab *tab, ga_hparams *h){
  double w = h->hi - h->lo;
  h->step = w / (double)h->bins;
  h->norm = (double)h->bins / w;
  h->slack = ga_hist_slack(h);
  if( !isfinite(w) ) return ga_vtab_error(tab, "gpu_histogram: the range [%g, %g] is too wide for doubles", h->lo, h->hi);
  if( h->step==0.0 || !isfinite(h->norm) ){
    return ga_vtab_error(tab, "gpu_histogram: the range [%g, %g] is too narrow for %lld bins",
                     h->lo, h->hi, (long long)h->bins);
  }
  return SQLITE_OK;
}

/* A column the cache keeps on the device (colsrc.h): counted there, with
** no scan. *pDone 0: not served, scan instead (no device form, the
** connection's mode is cpu, or a CUDA error in 'auto' mode); 1: the
** answer or the error is in. given: LO and HI were (c->h has them). */
static int histResident(HistVtab *v, HistCursor *c, ga_colsrc *src, int given, const char *zCol, int *pDone){
  ga_resident *r = ga_colsrc_resident(src, 0);
  int rc = SQLITE_OK;
  *pDone = 0;
  if( r && v->conn->mode!=GA_CPU ){
    char zErr[GA_ERRLEN];
    double t0 = ga_now_ms();
    ga_hist hist;
    int fail = 0;
    memset(&hist, 0, sizeof(hist));
    *pDone = 1;
    if( !given ){
      ga_ext e[2];
      if( r->nInt + r->nReal==0 ){            /* no numbers, no range: no rows */
        c->h.bins = 0;
        ga_cache_device_hit(v->conn->cache, ga_now_ms() - t0);
        return SQLITE_OK;
      }
      if( (fail = r->be->xColRange(r->pRes, &v->conn->stats, r->d, &e[0], &e[1], zErr))==0 ){
        double x[2];
        int i;
        for(i=0; i<2; i++) x[i] = e[i].type==GA_T_INT ? (double)(int64_t)e[i].bits : ga_bits_real(e[i].bits);
        rc = histAutoRange(&v->base, zCol, x[0], x[1], &c->h);
      }
    }
    if( !fail && rc==SQLITE_OK ) rc = histScale(&v->base, &c->h);
    if( !fail && rc==SQLITE_OK ) rc = histCounts(c, &hist);
    if( !fail && rc==SQLITE_OK ) fail = r->be->xColHist(r->pRes, &v->conn->stats, r->d, &hist, zErr);
    if( fail ){
      if( ga_device_failed(v->conn, zErr) ) return ga_vtab_error(&v->base, "%s", zErr);
      *pDone = 0;                             /* read the host copy instead */
      return SQLITE_OK;
    }
    if( rc==SQLITE_OK ) ga_cache_device_hit(v->conn->cache, ga_now_ms() - t0);
  }
  return rc;
}

/* ---- the virtual table ------------------------------------------------------ */

static int histConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                       sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ga_tvf_connect(db, pAux, "CREATE TABLE x(bin INTEGER, lo REAL, hi REAL, count INTEGER,"
                                  " source HIDDEN, col HIDDEN, bins HIDDEN, range_lo HIDDEN, range_hi HIDDEN)", ppVtab);
}

static int histOpen(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  HistCursor *c = sqlite3_malloc(sizeof(*c));
  (void)tab;
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *ppCur = &c->base;
  return SQLITE_OK;
}

static int histClose(sqlite3_vtab_cursor *cur){
  HistCursor *c = (HistCursor*)cur;
  ga_free(c->counts);
  ga_free(c);
  return SQLITE_OK;
}

static int histBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p){
  return ga_tvf_best_index(tab, p, COL_SOURCE, 5);
}

static int histFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                      int argc, sqlite3_value **argv){
  HistCursor *c = (HistCursor*)cur;
  HistVtab *v = (HistVtab*)cur->pVtab;
  sqlite3_value *a[5];
  const char *zSource, *zCol;
  ga_source from;
  ga_colsrc *src = 0;
  ga_hist hist;
  int iCol, rc, done;
  (void)idxStr;
  ga_tvf_args(idxNum, argc, argv, 5, a);
  ga_free(c->counts);
  c->counts = 0;
  c->nRow = c->iRow = 0;
  memset(&c->h, 0, sizeof(c->h));
  if( (idxNum & (ARG_SOURCE|ARG_COLUMN|ARG_BINS))!=(ARG_SOURCE|ARG_COLUMN|ARG_BINS)
   || ((idxNum & ARG_LO)!=0)!=((idxNum & ARG_HI)!=0) ){
    return ga_vtab_error(cur->pVtab, "gpu_histogram: takes (source, column, bins) or (source, column, bins, lo, hi)");
  }
  zSource = ga_tvf_name(a[0]);
  zCol = ga_tvf_name(a[1]);
  if( zSource==0 || zCol==0 ) return ga_vtab_error(cur->pVtab, "gpu_histogram: source and column must be names (UTF-8 text without NUL bytes)");
  if( (rc = histShape(cur->pVtab, a[2], a[3], a[4], &c->h))!=SQLITE_OK ) return rc;
  rc = ga_tvf_source(cur->pVtab, v->db, "gpu_histogram", zSource, &from);
  if( rc==SQLITE_OK && (iCol = ga_tvf_column(cur->pVtab, "gpu_histogram", &from, zCol))<0 ) rc = SQLITE_ERROR;
  if( rc==SQLITE_OK ) rc = ga_tvf_open(cur->pVtab, "gpu_histogram", &from, 1, &iCol, 0, &src);
  ga_source_free(&from);
  if( rc!=SQLITE_OK ) return rc;
  memset(&hist, 0, sizeof(hist));
  rc = histResident(v, c, src, a[3]!=0, zCol, &done);
  if( done ){
    /* answered from the column the cache keeps on the device */
  }else if( a[3] ){
    rc = histScale(cur->pVtab, &c->h);
    if( rc==SQLITE_OK ) rc = histCount(v, c, src, 0, &hist);
  }else{
    /* One scan keeps the numbers while it finds their range. */
    HistScan sc = { 0 };
    int use;
    hist.budget = v->conn->resident;
    rc = histScan(v, src, GA_OP_KEEP, 0, &hist, &sc);
    use = rc==SQLITE_OK && sc.nNum>0;     /* no numbers, no range: no rows */
    if( use ) rc = histAutoRange(cur->pVtab, zCol, sc.mn, sc.mx, &c->h);
    if( use && rc==SQLITE_OK ) rc = histScale(cur->pVtab, &c->h);
    if( use && rc==SQLITE_OK ) rc = histCounts(c, &hist);
    rc = histEnd(v, &hist, &sc, use && rc==SQLITE_OK, rc);
    if( use && rc==SQLITE_OK && hist.over ){
      /* Too many to keep: count with a second scan. */
      v->conn->stats.nRescan++;
      memset(&hist, 0, sizeof(hist));
      rc = histCount(v, c, src, 0, &hist);
    }
    if( !use && rc==SQLITE_OK ) c->h.bins = 0;
  }
  if( hist.lost && c->counts && (rc==SQLITE_OK || rc==SQLITE_ERROR) && v->conn->mode!=GA_CUDA ){
    /* A device failed (the error is reported by the pipeline's counters):
    ** count again, on the CPU. */
    ga_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = 0;
    v->conn->stats.nRescan++;
    memset(&hist, 0, sizeof(hist));
    rc = histCount(v, c, src, 1, &hist);
  }
  src->xClose(src);
  if( rc==SQLITE_OK ) c->nRow = c->h.bins;
  return rc;
}

static int histNext(sqlite3_vtab_cursor *cur){
  ((HistCursor*)cur)->iRow++;
  return SQLITE_OK;
}

static int histEof(sqlite3_vtab_cursor *cur){
  HistCursor *c = (HistCursor*)cur;
  return c->iRow >= c->nRow;
}

static int histColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  HistCursor *c = (HistCursor*)cur;
  switch( i ){
    case COL_BIN:   sqlite3_result_int64(ctx, c->iRow); break;
    case COL_LO:    sqlite3_result_double(ctx, ga_hist_edge(&c->h, c->iRow)); break;
    case COL_HI:    sqlite3_result_double(ctx, ga_hist_edge(&c->h, c->iRow + 1)); break;
    case COL_COUNT: sqlite3_result_int64(ctx, (sqlite3_int64)c->counts[c->iRow]); break;
    default:        break;                    /* the arguments: consumed */
  }
  return SQLITE_OK;
}

static int histRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((HistCursor*)cur)->iRow;
  return SQLITE_OK;
}

const sqlite3_module ga_histogram_module = {
  0,                        /* iVersion */
  0,                        /* xCreate: eponymous only */
  histConnect,
  histBestIndex,
  ga_tvf_disconnect,
  0,                        /* xDestroy */
  histOpen,
  histClose,
  histFilter,
  histNext,
  histEof,
  histColumn,
  histRowid,
  0, 0, 0, 0, 0, 0, 0,      /* xUpdate .. xRename */
  0, 0, 0,                  /* xSavepoint, xRelease, xRollbackTo */
  0                         /* xShadowName */
};
