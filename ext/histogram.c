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
**   3. SOURCE is a table or view, optionally schema-qualified ('main.t',
**      'aux.t'); it and COLUMN are checked to exist and quoted with %w, never
**      pasted. Clear errors, naming the problem, for: the wrong arguments,
**      no such table, no such column, BINS not an integer from 1 to
**      16777216, LO/HI not numbers, not finite, or LO >= HI.
**   4. It runs SQL of its own, so it is SQLITE_VTAB_DIRECTONLY: not usable
**      from views or triggers. It reads through the caller's connection and
**      so sees the current transaction's uncommitted rows.
**   5. The column is read by a column source (the SQLite statement that
**      steps it, below); values go through the chunk pipeline (GA_OP_HIST)
**      like the aggregates' values: the first `threshold` are counted here,
**      later chunks by the backend. Counts are integers: exact, any order.
**   6. Without LO and HI the column is read twice: once for its range, once
**      to count. sqlite3_interrupt() stops either scan with SQLITE_INTERRUPT.
*/
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "pipe.h"

#define HIST_MAX_BINS 16777216

/* Columns; the hidden ones (from COL_SOURCE) take the arguments in order. */
enum { COL_BIN, COL_LO, COL_HI, COL_COUNT, COL_SOURCE, COL_COLUMN, COL_BINS, COL_RLO, COL_RHI };
#define ARG_SOURCE 1
#define ARG_COLUMN 2
#define ARG_BINS   4
#define ARG_LO     8
#define ARG_HI     16

typedef struct HistVtab {
  sqlite3_vtab base;        /* base class */
  sqlite3 *db;              /* the connection it reads through */
  ga_conn *conn;            /* its gpuagg state: pool, backend, settings */
} HistVtab;

typedef struct HistCursor {
  sqlite3_vtab_cursor base; /* base class */
  ga_hparams h;             /* the bins */
  uint64_t *counts;         /* h.bins counts, or NULL */
  int64_t nRow;             /* rows to give: h.bins, or 0 */
  int64_t iRow;             /* the current row */
} HistCursor;

/* ---- the column source: one SQLite statement stepping the column -------- */

/* The column's numbers, one at a time. */
typedef struct ColSource {
  sqlite3_stmt *st;         /* SELECT "column" FROM "schema"."table" */
} ColSource;

/* Next number: 1 and *pX, 0 at the end, or an SQLite error code < 0. */
static int srcNext(ColSource *s, double *pX){
  int rc;
  while( (rc = sqlite3_step(s->st))==SQLITE_ROW ){
    switch( sqlite3_column_type(s->st, 0) ){
      case SQLITE_INTEGER: *pX = (double)sqlite3_column_int64(s->st, 0); return 1;
      case SQLITE_FLOAT:   *pX = sqlite3_column_double(s->st, 0); return 1;
    }
  }
  return rc==SQLITE_DONE ? 0 : -rc;
}

/* ---- resolving and validating the arguments ------------------------------ */

/* Set the vtab's error message (printf-style) and return SQLITE_ERROR. */
static int histError(sqlite3_vtab *tab, const char *zFmt, ...){
  va_list ap;
  sqlite3_free(tab->zErrMsg);
  va_start(ap, zFmt);
  tab->zErrMsg = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  return SQLITE_ERROR;
}

/* Does schema.table (schema NULL: the usual search) exist, and has it the
** column? 0: no table, 1: no column, 2: both. */
static int histLookup(sqlite3 *db, const char *zSchema, const char *zTab, const char *zCol){
  sqlite3_stmt *st = 0;
  int nCol = 0, found = 0;
  if( sqlite3_prepare_v2(db, zSchema ? "SELECT name FROM pragma_table_info(?1, ?2)"
                                     : "SELECT name FROM pragma_table_info(?1)", -1, &st, 0)==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zTab, -1, SQLITE_STATIC);
    if( zSchema ) sqlite3_bind_text(st, 2, zSchema, -1, SQLITE_STATIC);
    while( sqlite3_step(st)==SQLITE_ROW ){
      nCol++;
      if( sqlite3_stricmp((const char*)sqlite3_column_text(st, 0), zCol)==0 ) found = 1;
    }
  }
  sqlite3_finalize(st);
  return nCol==0 ? 0 : found ? 2 : 1;
}

/* SOURCE as a quoted FROM term ("table" or "schema"."table") that has
** COLUMN; NULL with the error set. A name with a dot is a table of that
** name if there is one, else schema.table. */
static char *histFrom(sqlite3_vtab *tab, sqlite3 *db, const char *zSource, const char *zCol){
  const char *zDot = strchr(zSource, '.');
  int r = histLookup(db, 0, zSource, zCol);
  if( r==2 ) return sqlite3_mprintf("\"%w\"", zSource);
  if( r==0 && zDot ){
    char *zSchema = sqlite3_mprintf("%.*s", (int)(zDot - zSource), zSource);
    char *zFrom = 0;
    r = zSchema ? histLookup(db, zSchema, zDot+1, zCol) : 0;
    if( r==2 ) zFrom = sqlite3_mprintf("\"%w\".\"%w\"", zSchema, zDot+1);
    sqlite3_free(zSchema);
    if( r==2 ) return zFrom;
  }
  if( r==1 ) histError(tab, "gpu_histogram: no such column: %s in %s", zCol, zSource);
  else histError(tab, "gpu_histogram: no such table: %s", zSource);
  return 0;
}

/* ---- counting ------------------------------------------------------------- */

static void histFoldNothing(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  (void)pArg; (void)s; (void)j; (void)base;   /* chunks count into the job's histogram */
}

/* Count the column's numbers into hist: the first `threshold` here, the
** rest through a pipeline. SQLITE_OK or an error code (message set). */
static int histCount(HistVtab *v, ColSource *src, ga_hist *hist){
  const ga_backend *be = 0;
  ga_pipe *q = 0;
  int64_t left = v->conn->threshold;
  char zErr[GA_ERRLEN];
  double x = 0.0;
  int r, rc = SQLITE_OK;

  while( (r = srcNext(src, &x))>0 ){
    if( q==0 && left==0 ){
      q = ga_pipe_open(v->conn, GA_OP_HIST, histFoldNothing, 0, zErr);
      if( q==0 && zErr[0] ){
        rc = histError(&v->base, "%s", zErr);
        break;
      }
      if( q ){
        q->hist = hist;
        be = q->fill->be;
      }else{
        left = INT64_MAX;                 /* no buffer: count here */
      }
    }
    if( q ){
      if( ga_pipe_double(q, x) ){
        rc = histError(&v->base, "%s", q->zErr);
        break;
      }
    }else{
      int64_t b = ga_hist_bin(&hist->h, x);
      left--;
      if( b>=0 ) hist->counts[b]++;
    }
  }
  if( r<0 && rc==SQLITE_OK ){
    histError(&v->base, "%s", sqlite3_errmsg(v->db));
    rc = -r;
  }
  if( q && ga_pipe_close(q, zErr) && rc==SQLITE_OK ) rc = histError(&v->base, "%s", zErr);
  if( be && be->xHistDone(hist, zErr) && rc==SQLITE_OK ) rc = histError(&v->base, "%s", zErr);
  return rc;
}

/* [min, max] of the column's numbers: 1 (and the range), 0 if it has none,
** or an error code < 0 (message set). */
static int histRange(HistVtab *v, const char *zFrom, const char *zCol, double *pLo, double *pHi){
  sqlite3_stmt *st = 0;
  char *zSql = sqlite3_mprintf(
      "SELECT min(c), max(c) FROM (SELECT \"%w\" AS c FROM %s) WHERE typeof(c) IN ('integer','real')",
      zCol, zFrom);
  int rc = zSql ? sqlite3_prepare_v2(v->db, zSql, -1, &st, 0) : SQLITE_NOMEM;
  int found = 0;
  sqlite3_free(zSql);
  if( rc==SQLITE_OK ){
    rc = sqlite3_step(st);
    if( rc==SQLITE_ROW ){
      rc = SQLITE_OK;
      if( sqlite3_column_type(st, 0)!=SQLITE_NULL ){
        *pLo = sqlite3_column_double(st, 0);
        *pHi = sqlite3_column_double(st, 1);
        found = 1;
      }
    }
  }
  if( rc!=SQLITE_OK ){
    histError(&v->base, "%s", sqlite3_errmsg(v->db));
    found = -rc;
  }
  sqlite3_finalize(st);
  return found;
}

/* Check BINS, LO, HI; fill h. SQLITE_OK, or the error set. */
static int histShape(sqlite3_vtab *tab, sqlite3_value *pBins, sqlite3_value *pLo, sqlite3_value *pHi,
                     ga_hparams *h){
  int tLo, tHi;
  if( sqlite3_value_numeric_type(pBins)!=SQLITE_INTEGER || sqlite3_value_int64(pBins)<1
   || sqlite3_value_int64(pBins)>HIST_MAX_BINS ){
    return histError(tab, "gpu_histogram: bins must be an integer from 1 to %d", HIST_MAX_BINS);
  }
  h->bins = sqlite3_value_int64(pBins);
  if( pLo==0 ) return SQLITE_OK;
  tLo = sqlite3_value_numeric_type(pLo);
  tHi = sqlite3_value_numeric_type(pHi);
  if( (tLo!=SQLITE_INTEGER && tLo!=SQLITE_FLOAT) || (tHi!=SQLITE_INTEGER && tHi!=SQLITE_FLOAT) ){
    return histError(tab, "gpu_histogram: lo and hi must be numbers");
  }
  h->lo = sqlite3_value_double(pLo);
  h->hi = sqlite3_value_double(pHi);
  if( !isfinite(h->lo) || !isfinite(h->hi) ) return histError(tab, "gpu_histogram: lo and hi must be finite");
  if( !(h->lo < h->hi) ) return histError(tab, "gpu_histogram: lo must be less than hi");
  return SQLITE_OK;
}

/* Step and norm of h's range; an error if the doubles cannot express it. */
static int histScale(sqlite3_vtab *tab, ga_hparams *h){
  double w = h->hi - h->lo;
  h->step = w / (double)h->bins;
  h->norm = (double)h->bins / w;
  h->slack = ga_hist_slack(h);
  if( !isfinite(w) ) return histError(tab, "gpu_histogram: the range [%g, %g] is too wide for doubles", h->lo, h->hi);
  if( h->step==0.0 || !isfinite(h->norm) ){
    return histError(tab, "gpu_histogram: the range [%g, %g] is too narrow for %lld bins",
                     h->lo, h->hi, (long long)h->bins);
  }
  return SQLITE_OK;
}

/* ---- the virtual table ------------------------------------------------------ */

static int histConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                       sqlite3_vtab **ppVtab, char **pzErr){
  HistVtab *v;
  int rc;
  (void)argc; (void)argv; (void)pzErr;
  rc = sqlite3_declare_vtab(db, "CREATE TABLE x(bin INTEGER, lo REAL, hi REAL, count INTEGER,"
                                " source HIDDEN, col HIDDEN, bins HIDDEN, range_lo HIDDEN, range_hi HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  v = sqlite3_malloc(sizeof(*v));
  if( v==0 ) return SQLITE_NOMEM;
  memset(v, 0, sizeof(*v));
  v->db = db;
  v->conn = (ga_conn*)pAux;
  *ppVtab = &v->base;
  return SQLITE_OK;
}

static int histDisconnect(sqlite3_vtab *tab){
  sqlite3_free(tab);
  return SQLITE_OK;
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
  sqlite3_free(c->counts);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* Take equality constraints on the argument columns, in column order;
** idxNum says which arguments came. A plan that lacks one the query gives
** (unusable now) is refused, so the planner picks one that has it. */
static int histBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p){
  int aIdx[5] = { -1, -1, -1, -1, -1 };
  int i, n = 0, have = 0, unusable = 0;
  (void)tab;
  for(i=0; i<p->nConstraint; i++){
    const struct sqlite3_index_constraint *k = &p->aConstraint[i];
    int a = k->iColumn - COL_SOURCE;
    if( a<0 ) continue;
    if( !k->usable ){
      unusable |= 1<<a;
    }else if( k->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      have |= 1<<a;
      aIdx[a] = i;
    }
  }
  if( unusable & ~have ) return SQLITE_CONSTRAINT;
  for(i=0; i<5; i++){
    if( aIdx[i]<0 ) continue;
    p->aConstraintUsage[aIdx[i]].argvIndex = ++n;
    p->aConstraintUsage[aIdx[i]].omit = 1;
  }
  p->idxNum = have;
  p->estimatedCost = 1000.0;
  p->estimatedRows = 256;
  return SQLITE_OK;
}

static int histFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                      int argc, sqlite3_value **argv){
  HistCursor *c = (HistCursor*)cur;
  HistVtab *v = (HistVtab*)cur->pVtab;
  sqlite3_value *a[5] = { 0, 0, 0, 0, 0 };
  const char *zSource, *zCol;
  char *zFrom = 0, *zSql = 0;
  ColSource src = { 0 };
  ga_hist hist;
  int i, j = 0, rc;
  (void)idxStr;
  for(i=0; i<5 && j<argc; i++) if( idxNum & (1<<i) ) a[i] = argv[j++];
  sqlite3_free(c->counts);
  c->counts = 0;
  c->nRow = c->iRow = 0;
  memset(&c->h, 0, sizeof(c->h));
  if( (idxNum & (ARG_SOURCE|ARG_COLUMN|ARG_BINS))!=(ARG_SOURCE|ARG_COLUMN|ARG_BINS)
   || ((idxNum & ARG_LO)!=0)!=((idxNum & ARG_HI)!=0) ){
    return histError(cur->pVtab, "gpu_histogram: takes (source, column, bins) or (source, column, bins, lo, hi)");
  }
  zSource = (const char*)sqlite3_value_text(a[0]);
  zCol = (const char*)sqlite3_value_text(a[1]);
  if( zSource==0 || zCol==0 ) return histError(cur->pVtab, "gpu_histogram: source and column must be names");
  if( (rc = histShape(cur->pVtab, a[2], a[3], a[4], &c->h))!=SQLITE_OK ) return rc;
  if( (zFrom = histFrom(cur->pVtab, v->db, zSource, zCol))==0 ) return SQLITE_ERROR;

  if( a[3]==0 ){
    int r = histRange(v, zFrom, zCol, &c->h.lo, &c->h.hi);
    if( r<=0 ){
      sqlite3_free(zFrom);
      return r<0 ? -r : SQLITE_OK;            /* no numbers, no range: no rows */
    }
    if( !isfinite(c->h.lo) || !isfinite(c->h.hi) ){
      sqlite3_free(zFrom);
      return histError(cur->pVtab, "gpu_histogram: the range of %s is not finite: give lo and hi", zCol);
    }
    if( c->h.lo==c->h.hi ){
      c->h.lo -= 0.5;
      c->h.hi += 0.5;
      if( c->h.lo==c->h.hi ){                 /* |v| too large for ±0.5 to show */
        c->h.lo = nextafter(c->h.lo, -INFINITY);
        c->h.hi = nextafter(c->h.hi, INFINITY);
      }
    }
  }
  if( (rc = histScale(cur->pVtab, &c->h))!=SQLITE_OK ){
    sqlite3_free(zFrom);
    return rc;
  }
  c->counts = sqlite3_malloc64(sizeof(uint64_t)*(size_t)c->h.bins);
  zSql = sqlite3_mprintf("SELECT \"%w\" FROM %s", zCol, zFrom);
  sqlite3_free(zFrom);
  if( c->counts==0 || zSql==0 ){
    sqlite3_free(zSql);
    return SQLITE_NOMEM;
  }
  memset(c->counts, 0, sizeof(uint64_t)*(size_t)c->h.bins);
  rc = sqlite3_prepare_v2(v->db, zSql, -1, &src.st, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ) return histError(cur->pVtab, "%s", sqlite3_errmsg(v->db));
  hist.h = c->h;
  hist.counts = c->counts;
  hist.dev = 0;
  rc = histCount(v, &src, &hist);
  sqlite3_finalize(src.st);
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
  histDisconnect,
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
