/*
** gpu_median(Y), gpu_percentile(Y, P), gpu_percentile_cont(Y, F) and
** gpu_percentile_disc(Y, F): the semantics of SQLite's percentile extension
** (ext/misc/percentile.c, built in from 3.51 with SQLITE_ENABLE_PERCENTILE).
**
**   1. The fraction is P/100.0 (gpu_percentile, P in 0..100), F (cont and
**      disc, 0..1) or 0.5 (median); on every row, NULL Y included, it must
**      be an INTEGER or REAL (text that looks like one counts) within that
**      range, else "the fraction argument to gpu_percentile() is not between
**      0.0 and 100.0" (1.0 for cont and disc); one that differs from the
**      first row's by more than 0.001 is "... is not the same for all input
**      rows".
**   2. NULL Y is skipped; a Y not INTEGER or REAL (no conversion of text) is
**      "input to gpu_median() is not numeric"; ±Inf is "Inf input to
**      gpu_median()". Numbers are read as doubles, as the extension does.
**   3. With the n numbers in ascending order a[0..n), ix = frac*(n-1) and
**      i1 = (int)ix: disc gives a[i1]; the others a[i1] + (a[i2] - a[i1]) *
**      (ix - i1), i2 = i1 + 1 unless ix is whole or i1 is the last. The same
**      double operations in the same order, so the same bits. Always REAL;
**      NULL without numbers.
**   4. The order is numeric with -0.0 just below +0.0 (the extension's sort
**      leaves those two in input order, so where its answer is a zero the
**      sign may differ; nothing else can).
**   5. Inputs of `threshold` numbers or more are ranked on the device (CUB's
**      radix sort of all the keys, only the one or two ranks read back) when
**      the connection's backend is CUDA; smaller ones, and any CUDA error
**      in 'auto' mode, by selection on the CPU in O(n). Same answer either
**      way.
**   6. As window functions (xValue, xInverse): the frame's numbers are kept
**      sorted (sorted once at the first xValue or xInverse, then each row
**      inserted or removed by binary search), as the extension does: O(frame)
**      a row. The window form runs on the CPU.
*/
#include <stdlib.h>
#include <string.h>
#include "pipe.h"

enum { PCT_MEDIAN, PCT_PERCENTILE, PCT_CONT, PCT_DISC };
static const struct { const char *zName; double mx; } aKind[] = {
  { "gpu_median", 1.0 }, { "gpu_percentile", 100.0 }, { "gpu_percentile_cont", 1.0 }, { "gpu_percentile_disc", 1.0 }
};

/* One aggregate context: the numbers, as order keys. */
typedef struct Pct {
  uint64_t *a;              /* keys of the numbers */
  int64_t n;                /* keys at a */
  int64_t cap;              /* room at a */
  double frac;              /* the first row's fraction */
  int kind;                 /* PCT_* */
  int havePct;              /* frac is set */
  int sorted;               /* a is in ascending order */
  int win;                  /* used as a window function: a stays sorted */
} Pct;

/* A double's order key: unsigned order is numeric order, -0.0 < +0.0. */
static uint64_t pctKey(double y){
  uint64_t b;
  memcpy(&b, &y, sizeof(b));
  return b >> 63 ? ~b : b | ((uint64_t)1 << 63);
}
static double pctVal(uint64_t k){
  double y;
  k = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
  memcpy(&y, &k, sizeof(y));
  return y;
}

static int cmpKey(const void *x, const void *y){
  uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return a < b ? -1 : a > b;
}

/* Index of the first key >= k in the sorted a[0..n). */
static int64_t lowerBound(const uint64_t *a, int64_t n, uint64_t k){
  int64_t lo = 0, hi = n;
  while( lo<hi ){
    int64_t mid = lo + (hi - lo)/2;
    if( a[mid]<k ) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* Rearrange a[0..n) so that a[k] is the key of rank k, the ones before it
** no greater, the ones after no less (Hoare's selection, median of three). */
static void selectRank(uint64_t *a, int64_t n, int64_t k){
  int64_t lo = 0, hi = n - 1;
  while( hi>lo ){
    int64_t i = lo, j = hi, m = lo + (hi - lo)/2;
    uint64_t x, t;
    if( a[m]<a[lo] ){ t = a[m]; a[m] = a[lo]; a[lo] = t; }
    if( a[hi]<a[lo] ){ t = a[hi]; a[hi] = a[lo]; a[lo] = t; }
    if( a[hi]<a[m] ){ t = a[hi]; a[hi] = a[m]; a[m] = t; }
    x = a[m];
    while( i<=j ){
      while( a[i]<x ) i++;
      while( a[j]>x ) j--;
      if( i<=j ){ t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if( k<=j ) hi = j; else if( k>=i ) lo = i; else return;
  }
}

/* The keys of ranks r[0..nr) (ascending ranks) into out: read off when a is
** sorted, else on the device for large inputs, else selected here. Non-zero:
** an SQL error was set. */
static int pctRanks(sqlite3_context *ctx, Pct *p, const int64_t *r, int nr, uint64_t *out){
  int i;
  if( !p->sorted ){
    ga_conn *c = (ga_conn*)sqlite3_user_data(ctx);
    char zErr[GA_ERRLEN];
    const ga_backend *be = p->n>=c->threshold ? ga_conn_backend(c, zErr) : 0;
    (void)be;
#ifdef GPUAGG_CUDA
    if( be==&ga_cuda_backend ){
      if( ga_cuda_ranks(p->a, p->n, r, nr, out, &c->stats, zErr)==0 ) return 0;
      memcpy(c->stats.zLastErr, zErr, GA_ERRLEN);
      if( c->mode==GA_CUDA ){
        sqlite3_result_error(ctx, zErr, -1);
        return 1;
      }
      c->stats.nFallback++;
    }
#endif
    selectRank(p->a, p->n, r[0]);
    for(i=1; i<nr; i++){            /* the next rank: the least key after r[0] */
      int64_t j;
      uint64_t m = p->a[r[0]+1];
      for(j=r[0]+2; j<p->n; j++) if( p->a[j]<m ) m = p->a[j];
      out[i] = m;
    }
    out[0] = p->a[r[0]];
    return 0;
  }
  for(i=0; i<nr; i++) out[i] = p->a[r[i]];
  return 0;
}

static void pctError(sqlite3_context *ctx, const char *zFmt, int kind){
  char *z = sqlite3_mprintf(zFmt, aKind[kind].zName, aKind[kind].mx);
  sqlite3_result_error(ctx, z ? z : "gpuagg: out of memory", -1);
  sqlite3_free(z);
}

static void pctStep(sqlite3_context *ctx, int kind, sqlite3_value **argv){
  Pct *p;
  double frac = 0.5, y;
  int t;
  uint64_t k;
  if( kind!=PCT_MEDIAN ){
    t = sqlite3_value_numeric_type(argv[1]);
    frac = sqlite3_value_double(argv[1])/aKind[kind].mx;
    if( (t!=SQLITE_INTEGER && t!=SQLITE_FLOAT) || frac<0.0 || frac>1.0 ){
      pctError(ctx, "the fraction argument to %s() is not between 0.0 and %.1f", kind);
      return;
    }
  }
  p = (Pct*)sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( !p->havePct ){
    p->frac = frac;
    p->kind = kind;
    p->havePct = 1;
  }else if( !(p->frac - frac >= -0.001 && p->frac - frac <= 0.001) ){
    pctError(ctx, "the fraction argument to %s() is not the same for all input rows", kind);
    return;
  }
  t = sqlite3_value_type(argv[0]);
  if( t==SQLITE_NULL ) return;
  if( t!=SQLITE_INTEGER && t!=SQLITE_FLOAT ){
    pctError(ctx, "input to %s() is not numeric", kind);
    return;
  }
  y = sqlite3_value_double(argv[0]);
  if( !ga_is_finite(y) ){
    pctError(ctx, "Inf input to %s()", kind);
    return;
  }
  if( p->n==p->cap ){
    int64_t cap = p->cap ? 2*p->cap : 64;
    uint64_t *a = (uint64_t*)sqlite3_realloc64(p->a, sizeof(uint64_t)*(size_t)cap);
    if( a==0 ){
      sqlite3_result_error_nomem(ctx);
      return;
    }
    p->a = a;
    p->cap = cap;
  }
  k = pctKey(y);
  if( p->n==0 ){
    p->sorted = 1;
  }else if( p->sorted && k<p->a[p->n-1] ){
    if( p->win ){
      int64_t i = lowerBound(p->a, p->n, k);
      memmove(&p->a[i+1], &p->a[i], sizeof(uint64_t)*(size_t)(p->n - i));
      p->a[i] = k;
      p->n++;
      return;
    }
    p->sorted = 0;
  }
  p->a[p->n++] = k;
}

void ga_pctStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  pctStep(ctx, PCT_MEDIAN, argv);
}
void ga_percentileStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  pctStep(ctx, PCT_PERCENTILE, argv);
}
void ga_contStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  pctStep(ctx, PCT_CONT, argv);
}
void ga_discStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  pctStep(ctx, PCT_DISC, argv);
}

/* The context serves a window from now on: a sorted. */
static void pctWindow(Pct *p){
  if( p->win ) return;
  p->win = 1;
  if( !p->sorted ) qsort(p->a, (size_t)p->n, sizeof(uint64_t), cmpKey);
  p->sorted = 1;
}

/* The oldest row leaves: its number, if it was kept, is removed. */
void ga_pctInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Pct *p = (Pct*)sqlite3_aggregate_context(ctx, 0);
  int t = sqlite3_value_type(argv[0]);
  double y;
  int64_t i;
  (void)argc;
  if( p==0 || (t!=SQLITE_INTEGER && t!=SQLITE_FLOAT) ) return;
  y = sqlite3_value_double(argv[0]);
  if( !ga_is_finite(y) ) return;
  pctWindow(p);
  i = lowerBound(p->a, p->n, pctKey(y));
  if( i<p->n && p->a[i]==pctKey(y) ){
    memmove(&p->a[i], &p->a[i+1], sizeof(uint64_t)*(size_t)(p->n - i - 1));
    p->n--;
  }
}

static void pctResult(sqlite3_context *ctx, int isWin){
  Pct *p = (Pct*)sqlite3_aggregate_context(ctx, 0);
  double ix, v1, v2;
  int64_t r[2];
  uint64_t k[2];
  int nr = 1;
  if( p==0 ) return;
  if( isWin ) pctWindow(p);
  if( p->n ){
    ix = p->frac*(double)(p->n - 1);
    r[0] = (int64_t)ix;
    r[1] = r[0];
    if( p->kind!=PCT_DISC && ix!=(double)r[0] && r[0]!=p->n - 1 ){
      r[1] = r[0] + 1;
      nr = 2;
    }
    if( pctRanks(ctx, p, r, nr, k) ) goto done;
    v1 = pctVal(k[0]);
    v2 = nr==2 ? pctVal(k[1]) : v1;
    sqlite3_result_double(ctx, p->kind==PCT_DISC ? v1 : v1 + (v2 - v1)*(ix - (double)r[0]));
  }
done:
  if( !isWin ){
    sqlite3_free(p->a);
    memset(p, 0, sizeof(*p));
  }
}

void ga_pctFinal(sqlite3_context *ctx){ pctResult(ctx, 0); }
void ga_pctValue(sqlite3_context *ctx){ pctResult(ctx, 1); }
