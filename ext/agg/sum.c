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
*/
#include "pipe.h"

/* One aggregate context of the sum family. */
typedef struct Sum {
  ga_sum acc;               /* values folded here, then the pipeline's total */
  ga_fpe fpe;               /* reals folded here not yet in acc's words */
  int64_t nInt;             /* integer values in acc */
  int64_t nReal;            /* real values in acc */
  ga_pipe *pipe;            /* chunk pipeline, once past the threshold */
  int64_t left;             /* values still to fold here before pipelining */
} Sum;

/* The per-row work once pipelined: append to the chunk. */
static inline void sumAppend(sqlite3_context *ctx, ga_pipe *q, int t, sqlite3_value *v){
  if( t==SQLITE_INTEGER ? ga_pipe_int(q, sqlite3_value_int64(v))
                        : ga_pipe_real(q, sqlite3_value_double(v)) ){
    sqlite3_result_error(ctx, q->zErr, -1);
  }
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
  if( p->nInt+p->nReal==0 ) p->left = ((ga_conn*)sqlite3_user_data(ctx))->threshold;
  if( p->left==0 ){
    int rc = ga_pipe_attach(ctx, GA_OP_SUM, sumFoldChunk, p, &p->pipe);
    if( rc==0 ) p->left = INT64_MAX;     /* no buffer: fold here to the end */
    if( rc>0 ) sumAppend(ctx, p->pipe, t, v);
    if( rc ) return;
  }
  p->left--;
  if( t==SQLITE_INTEGER ){
    ga_sum_int(&p->acc, sqlite3_value_int64(v));
    p->nInt++;
  }else{
    ga_sum_real(&p->acc, &p->fpe, sqlite3_value_double(v));
    p->nReal++;
  }
}

void ga_sumStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Sum *p = (Sum*)sqlite3_aggregate_context(ctx, sizeof(*p));
  int t = sqlite3_value_numeric_type(argv[0]);
  (void)argc;
  if( t==SQLITE_NULL ) return;
  if( p && p->pipe ){
    sumAppend(ctx, p->pipe, t, argv[0]);
  }else{
    sumFold(ctx, p, t, argv[0]);
  }
}

/* The aggregate's context with everything folded, or NULL when no row came
** (or an SQL error was set: *pErr is then non-zero). */
static Sum *sumFinish(sqlite3_context *ctx, int *pErr){
  Sum *p = (Sum*)sqlite3_aggregate_context(ctx, 0);
  char zErr[GA_ERRLEN];
  *pErr = 0;
  if( p ) ga_sum_settle(&p->acc, &p->fpe);
  if( p && p->pipe ){
    ga_pipe *q = p->pipe;
    p->pipe = 0;
    if( ga_pipe_close(q, zErr) ){
      sqlite3_result_error(ctx, zErr, -1);
      *pErr = 1;
      return 0;
    }
  }
  return p;
}

void ga_sumFinal(sqlite3_context *ctx){
  int err;
  Sum *p = sumFinish(ctx, &err);
  if( p==0 || p->nInt+p->nReal==0 ) return;
  if( p->nReal==0 ){
    __int128 i = ga_sum_int128(&p->acc);
    if( i<INT64_MIN || i>INT64_MAX ){
      sqlite3_result_error(ctx, "integer overflow", -1);
    }else{
      sqlite3_result_int64(ctx, (sqlite3_int64)i);
    }
  }else{
    sqlite3_result_double(ctx, ga_sum_value(&p->acc));
  }
}

void ga_totalFinal(sqlite3_context *ctx){
  int err;
  Sum *p = sumFinish(ctx, &err);
  if( !err ) sqlite3_result_double(ctx, p ? ga_sum_value(&p->acc) : 0.0);
}

void ga_avgFinal(sqlite3_context *ctx){
  int err;
  Sum *p = sumFinish(ctx, &err);
  if( p && p->nInt+p->nReal>0 ){
    sqlite3_result_double(ctx, ga_sum_value(&p->acc)/(double)(p->nInt+p->nReal));
  }
}

void ga_countStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3_int64 *n = (sqlite3_int64*)sqlite3_aggregate_context(ctx, sizeof(*n));
  if( n==0 ){
    sqlite3_result_error_nomem(ctx);
  }else if( argc==0 || sqlite3_value_type(argv[0])!=SQLITE_NULL ){
    (*n)++;
  }
}

void ga_countFinal(sqlite3_context *ctx){
  sqlite3_int64 *n = (sqlite3_int64*)sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, n ? *n : 0);
}
