/*
** gpu_sum(X), gpu_total(X), gpu_avg(X) and gpu_count(X).
**
**   1. Values are classified as SQLite's sum() does, by
**      sqlite3_value_numeric_type(): NULL is skipped, INTEGER (including text
**      such as '12') goes to the integer lane, anything else to the real lane
**      as sqlite3_value_double() reads it ('abc' is 0.0, like the builtin).
**   2. The first `threshold` values of an aggregate are folded right here on
**      the CPU; past that the aggregate opens a chunk pipeline (pipe.h) and
**      only appends. Small groups never touch a buffer, a pool or CUDA.
**   3. Sums are exact (kernels/sum_acc.h) and rounded once at the end, so the
**      result does not depend on the order of rows, the chunk size, the
**      backend or the device: the same bits everywhere.
**   4. gpu_sum is NULL without non-NULL input; INTEGER when every value was an
**      integer, with the error "integer overflow" when the exact total does
**      not fit in 64 bits (the builtin also raises it when only an
**      intermediate total overflows: ours depends on the total alone); REAL
**      otherwise: the exact total of all values rounded to the nearest double
**      (the builtin rounds at every row: 3.43+ compensates, older versions do
**      not). A finite total beyond the double range is ±Inf; +Inf and -Inf
**      among the values give NULL, as in the builtin.
**   5. gpu_total is always REAL, 0.0 without input, never an error. gpu_avg is
**      the total over the count, NULL without input.
**   6. gpu_count counts non-NULL values (all rows with no argument, as
**      count(*)); SQLite hands each value over already classified, so there is
**      nothing for a device to do and no value is buffered.
**   7. As window functions (xValue, xInverse) each frame's result is the
**      aggregate's over that frame's rows: the exact total of the frame,
**      rounded once, at every row, however many rows came and went (a row
**      leaving is an exact subtraction: its negation added to the same
**      accumulator). ±Inf are counted, so one that left the frame no longer
**      counts. gpu_sum is INTEGER when the frame's values are all integers,
**      even after a real has left it (the builtin stays REAL once a real
**      entered the partition). Windows fold on the CPU: the first xValue or
**      xInverse lands any pipeline and no other opens.
*/
#include "pipe.h"

/* One aggregate context of the sum family. */
typedef struct Sum {
  ga_sum acc;               /* values folded here, then the pipeline's total */
  ga_fpe fpe;               /* reals folded here not yet in acc's words */
  int64_t nInt;             /* integer values in acc */
  int64_t nReal;            /* real values in acc */
  int64_t nInf[2];          /* -Inf, +Inf values among them (not in acc's words) */
  int win;                  /* used as a window function: fold here only */
  ga_pipe *pipe;            /* chunk pipeline, once past the threshold */
  int64_t left;             /* values still to fold here before pipelining */
} Sum;

/* The per-row work once pipelined: append to the chunk. */
static inline void sumAppend(sqlite3_context *ctx, Sum *p, int t, sqlite3_value *v){
  ga_pipe *q = p->pipe;
  int rc;
  if( t==SQLITE_INTEGER ){
    rc = ga_pipe_int(q, sqlite3_value_int64(v));
  }else{
    double d = sqlite3_value_double(v);
    if( !ga_is_finite(d) ) p->nInf[d>0]++;
    rc = ga_pipe_real(q, d);
  }
  if( rc ) sqlite3_result_error(ctx, q->zErr, -1);
}

/* A chunk's total, in chunk order. */
static void sumFoldChunk(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  Sum *p = (Sum*)pArg;
  (void)base;
  ga_sum_merge(&p->acc, &s->res);
  p->nInt += j->ni;
  p->nReal += j->n - j->ni;
}

/* Every value before the pipeline, or without one: fold it here. Out of
** line, so that the appending path below stays short. */
static __attribute__((noinline)) void sumFold(sqlite3_context *ctx, Sum *p, int t, sqlite3_value *v){
  if( p==0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( p->nInt+p->nReal==0 && !p->win ) p->left = ((ga_conn*)sqlite3_user_data(ctx))->threshold;
  if( p->left==0 ){
    int rc = ga_pipe_attach(ctx, GA_OP_SUM, sumFoldChunk, p, &p->pipe);
    if( rc==0 ) p->left = INT64_MAX;     /* no buffer: fold here to the end */
    if( rc>0 ) sumAppend(ctx, p, t, v);
    if( rc ) return;
  }
  p->left--;
  if( t==SQLITE_INTEGER ){
    ga_sum_int(&p->acc, sqlite3_value_int64(v));
    p->nInt++;
  }else{
    double d = sqlite3_value_double(v);
    if( !ga_is_finite(d) ) p->nInf[d>0]++;
    ga_sum_real(&p->acc, &p->fpe, d);
    p->nReal++;
  }
}

void ga_sumStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Sum *p = (Sum*)sqlite3_aggregate_context(ctx, sizeof(*p));
  int t = sqlite3_value_numeric_type(argv[0]);
  (void)argc;
  if( t==SQLITE_NULL ) return;
  if( p && p->pipe ){
    sumAppend(ctx, p, t, argv[0]);
  }else{
    sumFold(ctx, p, t, argv[0]);
  }
}

/* Everything folded into acc (the pipeline, if any, landed and closed) and
** acc's infinities those of the values now in it. Non-zero: an SQL error was
** set. */
static int sumSettle(sqlite3_context *ctx, Sum *p){
  char zErr[GA_ERRLEN];
  ga_sum_settle(&p->acc, &p->fpe);
  if( p->pipe ){
    ga_pipe *q = p->pipe;
    p->pipe = 0;
    if( ga_pipe_close(q, zErr) ){
      sqlite3_result_error(ctx, zErr, -1);
      return 1;
    }
  }
  p->acc.inf = (p->nInf[1] ? GA_INF_POS : 0) | (p->nInf[0] ? GA_INF_NEG : 0);
  return 0;
}

/* The context serves a window from now on: any pipeline landed, every row
** folded here. Non-zero: an SQL error was set. */
static int sumWindow(sqlite3_context *ctx, Sum *p){
  if( p->win ) return 0;
  p->win = 1;
  p->left = INT64_MAX;
  return sumSettle(ctx, p);
}

/* The aggregate's context with everything folded, or NULL when no row came
** (or an SQL error was set: *pErr is then non-zero). From xValue (isWin),
** the context serves a window from then on. */
static Sum *sumFinish(sqlite3_context *ctx, int isWin, int *pErr){
  Sum *p = (Sum*)sqlite3_aggregate_context(ctx, 0);
  *pErr = p && (isWin || p->win ? sumWindow(ctx, p) : sumSettle(ctx, p));
  return *pErr ? 0 : p;
}

/* A window's total, rounded once, without settling acc: a copy of the words
** with the expansion and the integer total added, carried and rounded over
** the words that are not zero only (a window's values touch a few; settling
** every word at every row would cost more than the row). */
static double sumWindowValue(const Sum *p){
  int64_t w[GA_WORDS];
  double f[3] = { p->fpe.a0, p->fpe.a1, p->fpe.a2 };
  __int128 iv = ga_sum_int128(&p->acc);
  int i, lo, hi, top;
  if( p->nInf[0] && p->nInf[1] ) return NAN;
  if( p->nInf[0] || p->nInf[1] ) return p->nInf[1] ? INFINITY : -INFINITY;
  memcpy(w, p->acc.w, sizeof(w));
  for(i=0; i<3; i++) if( f[i]!=0.0 ) ga_words_add(w, f[i]);
  if( iv ) ga_words_add_int(w, iv);
  for(lo=0; lo<GA_WORDS && w[lo]==0; lo++){}
  if( lo==GA_WORDS ) return 0.0;
  for(hi=GA_WORDS-1; w[hi]==0; hi--){}
  top = hi + 3 < GA_WORDS ? hi + 3 : GA_WORDS - 1;   /* room for the carries */
  ga_carry(w + lo, top - lo + 1);
  return ga_round_words(w + lo, top - lo + 1, lo);
}

/* The total of p, rounded once. */
static double sumValue(const Sum *p){
  return p->win ? sumWindowValue(p) : ga_sum_value(&p->acc);
}

/* A row leaves the frame: its value subtracted exactly. */
void ga_sumInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Sum *p = (Sum*)sqlite3_aggregate_context(ctx, 0);
  int t = sqlite3_value_numeric_type(argv[0]);
  (void)argc;
  if( p==0 || t==SQLITE_NULL || sumWindow(ctx, p) ) return;
  if( t==SQLITE_INTEGER ){
    __int128 i = ga_sum_int128(&p->acc) - sqlite3_value_int64(argv[0]);
    p->acc.lo = (uint64_t)i;
    p->acc.hi = (int64_t)(i >> 64);
    p->nInt--;
  }else{
    double d = sqlite3_value_double(argv[0]);
    if( !ga_is_finite(d) ) p->nInf[d>0]--;
    else ga_sum_real(&p->acc, &p->fpe, -d);
    p->nReal--;
  }
}

static void sumResult(sqlite3_context *ctx, int isWin){
  int err;
  Sum *p = sumFinish(ctx, isWin, &err);
  if( p==0 || p->nInt+p->nReal==0 ) return;
  if( p->nReal==0 ){
    __int128 i = ga_sum_int128(&p->acc);
    if( i<INT64_MIN || i>INT64_MAX ){
      sqlite3_result_error(ctx, "integer overflow", -1);
    }else{
      sqlite3_result_int64(ctx, (sqlite3_int64)i);
    }
  }else{
    sqlite3_result_double(ctx, sumValue(p));
  }
}

static void totalResult(sqlite3_context *ctx, int isWin){
  int err;
  Sum *p = sumFinish(ctx, isWin, &err);
  if( !err ) sqlite3_result_double(ctx, p ? sumValue(p) : 0.0);
}

static void avgResult(sqlite3_context *ctx, int isWin){
  int err;
  Sum *p = sumFinish(ctx, isWin, &err);
  if( p && p->nInt+p->nReal>0 ){
    sqlite3_result_double(ctx, sumValue(p)/(double)(p->nInt+p->nReal));
  }
}

void ga_sumFinal(sqlite3_context *ctx){ sumResult(ctx, 0); }
void ga_sumValue(sqlite3_context *ctx){ sumResult(ctx, 1); }
void ga_totalFinal(sqlite3_context *ctx){ totalResult(ctx, 0); }
void ga_totalValue(sqlite3_context *ctx){ totalResult(ctx, 1); }
void ga_avgFinal(sqlite3_context *ctx){ avgResult(ctx, 0); }
void ga_avgValue(sqlite3_context *ctx){ avgResult(ctx, 1); }

void ga_countStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3_int64 *n = (sqlite3_int64*)sqlite3_aggregate_context(ctx, sizeof(*n));
  if( n==0 ){
    sqlite3_result_error_nomem(ctx);
  }else if( argc==0 || sqlite3_value_type(argv[0])!=SQLITE_NULL ){
    (*n)++;
  }
}

void ga_countInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3_int64 *n = (sqlite3_int64*)sqlite3_aggregate_context(ctx, 0);
  if( n && (argc==0 || sqlite3_value_type(argv[0])!=SQLITE_NULL) ) (*n)--;
}

/* xFinal and xValue: nothing to free. */
void ga_countFinal(sqlite3_context *ctx){
  sqlite3_int64 *n = (sqlite3_int64*)sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, n ? *n : 0);
}
