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
**   5. Inputs of `threshold` numbers or more are ranked on the device when
**      the connection's backend is CUDA, smaller ones by selection on the
**      CPU (ranks.h). Same answer either way.
**   6. As window functions (xValue, xInverse): the frame's numbers are kept
**      sorted (sorted once at the first xValue or xInverse, then each row
**      inserted or removed by binary search), as the extension does: O(frame)
**      a row. The window form runs on the CPU.
*/
#include <stdlib.h>
#include <string.h>
#include "pipe.h"
#include "ranks.h"

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

static void pctError(sqlite3_context *ctx, const char *zFmt, int kind){
  char *z = sqlite3_mprintf(zFmt, aKind[kind].zName, aKind[kind].mx);
  sqlite3_result_error(ctx, z ? z : "gpuagg: out of memory", -1);
  ga_free(z);
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
  k = ga_key(y);
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

void ga_medianStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
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
  i = lowerBound(p->a, p->n, ga_key(y));
  if( i<p->n && p->a[i]==ga_key(y) ){
    memmove(&p->a[i], &p->a[i+1], sizeof(uint64_t)*(size_t)(p->n - i - 1));
    p->n--;
  }
}

static void pctResult(sqlite3_context *ctx, int isWin){
  Pct *p = (Pct*)sqlite3_aggregate_context(ctx, 0);
  char zErr[GA_ERRLEN];
  double ix;
  int64_t r[2];
  uint64_t k[2];
  int nr, disc;
  if( p==0 ) return;
  if( isWin ) pctWindow(p);
  if( p->n ){
    disc = p->kind==PCT_DISC;
    nr = ga_pct_ranks(p->frac, p->n, disc, r, &ix);
    if( p->sorted ){
      k[0] = p->a[r[0]];
      k[1] = p->a[r[nr-1]];
    }else if( ga_ranks((ga_conn*)sqlite3_user_data(ctx), p->a, p->n, r, nr, k, zErr) ){
      sqlite3_result_error(ctx, zErr, -1);
      goto done;
    }
    sqlite3_result_double(ctx, ga_pct_value(ix, r, nr, k, disc));
  }
done:
  if( !isWin ){
    ga_free(p->a);
    memset(p, 0, sizeof(*p));
  }
}

void ga_pctFinal(sqlite3_context *ctx){ pctResult(ctx, 0); }
void ga_pctValue(sqlite3_context *ctx){ pctResult(ctx, 1); }
