/*
** gpu_var_samp(X), gpu_var_pop(X), gpu_stddev_samp(X), gpu_stddev_pop(X);
** gpu_variance and gpu_stddev are the sample forms, as sqlean and DuckDB name
** them.
**
**   1. Over the numbers sum() sees: values classified as agg/sum.c does
**      (NULL skipped, '12' the integer 12, 'abc' the real 0.0).
**   2. The exact sum S and sum of squares Q of the n numbers (sum_acc.h,
**      sq_acc.h) give the variance (n*Q - S^2) / (n*d), d = n-1 (sample) or
**      n (population), computed in big integers and rounded once; the
**      standard deviation is its exact square root rounded once
**      (exactvar.h). Both correctly rounded: no cancellation, no order
**      dependence, the same bits on every backend.
**   3. REAL, or NULL: below 2 numbers (sample) or 1 (population), or with
**      ±Inf among them.
**   4. The first `threshold` numbers fold here; past that a chunk pipeline
**      (GA_OP_STATS, one column) reduces them on the device.
**   5. As window functions the same over each frame: a row leaving subtracts
**      x and x^2 exactly; ±Inf are counted, so a frame without one is
**      finite again. Windows fold on the CPU.
*/
#include "pipe.h"
#include "exactvar.h"

/* One aggregate context. */
typedef struct Var {
  ga_stat st;               /* S, Q and the counts by type (mn, mx unused) */
  ga_fpe fpe;               /* reals of S not yet in its words */
  int64_t nInf;             /* ±Inf values among the numbers */
  int win;                  /* used as a window function: fold here only */
  ga_pipe *pipe;            /* chunk pipeline, once past the threshold */
  int64_t left;             /* numbers still to fold here before pipelining */
} Var;

static void varFoldChunk(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  Var *p = (Var*)pArg;
  ga_stat x = s->stat[0];
  (void)base;
  x.nReal = j->segReal[0];
  x.nInt = j->segN[0] - j->segReal[0];
  ga_stat_merge(&p->st, &x, 0);
}

/* Add (sign 1) or subtract (sign -1) one number here. */
static void varFold(Var *p, int t, sqlite3_value *v, int sign){
  if( t==SQLITE_INTEGER ){
    int64_t i = sqlite3_value_int64(v);
    __int128 s = ga_sum_int128(&p->st.sum) + (sign>0 ? (__int128)i : -(__int128)i);
    p->st.sum.lo = (uint64_t)s;
    p->st.sum.hi = (int64_t)(s >> 64);
    ga_sq_int_sign(&p->st.sq, i, sign<0);
    p->st.nInt += sign;
  }else{
    double d = sqlite3_value_double(v);
    if( !ga_is_finite(d) ){
      p->nInf += sign;
    }else{
      ga_sum_real(&p->st.sum, &p->fpe, sign>0 ? d : -d);
      ga_sq_real_sign(&p->st.sq, d, sign<0);
    }
    p->st.nReal += sign;
  }
}

void ga_varStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Var *p = (Var*)sqlite3_aggregate_context(ctx, sizeof(*p));
  int t = sqlite3_value_numeric_type(argv[0]);
  (void)argc;
  if( t==SQLITE_NULL ) return;
  if( p==0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( p->st.nInt+p->st.nReal==0 && !p->win ) p->left = ((ga_conn*)sqlite3_user_data(ctx))->threshold;
  if( p->left==0 && p->pipe==0 ){
    int rc = ga_pipe_attach(ctx, GA_OP_STATS, varFoldChunk, p, &p->pipe);
    if( rc<0 ) return;
    if( rc>0 && ga_pipe_columns(p->pipe, 1) ){         /* chunks too small for it */
      char zErr[GA_ERRLEN];
      ga_pipe_close(p->pipe, zErr);
      p->pipe = 0;
    }
    if( p->pipe==0 ) p->left = INT64_MAX;              /* fold here to the end */
  }
  if( p->pipe ){
    double d = t==SQLITE_INTEGER ? 0.0 : sqlite3_value_double(argv[0]);
    int64_t x;
    if( t==SQLITE_INTEGER ) x = sqlite3_value_int64(argv[0]);
    else memcpy(&x, &d, sizeof(x));
    if( t!=SQLITE_INTEGER && !ga_is_finite(d) ) p->nInf++;
    if( ga_pipe_num(p->pipe, 0, x, t!=SQLITE_INTEGER) ) sqlite3_result_error(ctx, p->pipe->zErr, -1);
    return;
  }
  p->left--;
  varFold(p, t, argv[0], 1);
}

/* Everything folded (the pipeline landed and closed), S settled, Q carried.
** Non-zero: an SQL error was set. */
static int varSettle(sqlite3_context *ctx, Var *p){
  char zErr[GA_ERRLEN];
  ga_sum_settle(&p->st.sum, &p->fpe);
  if( p->pipe ){
    ga_pipe *q = p->pipe;
    p->pipe = 0;
    if( ga_pipe_close(q, zErr) ){
      sqlite3_result_error(ctx, zErr, -1);
      return 1;
    }
  }
  ga_carry(p->st.sq.w, GA_SQWORDS);
  p->st.sq.nAdd = 0;
  p->st.sum.inf = p->st.sq.inf = p->nInf>0;
  return 0;
}

/* The context serves a window from now on. Non-zero: an SQL error was set. */
static int varWindow(sqlite3_context *ctx, Var *p){
  if( p->win ) return 0;
  p->win = 1;
  p->left = INT64_MAX;
  return p->pipe ? varSettle(ctx, p) : 0;
}

void ga_varInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Var *p = (Var*)sqlite3_aggregate_context(ctx, 0);
  int t = sqlite3_value_numeric_type(argv[0]);
  (void)argc;
  if( p==0 || t==SQLITE_NULL || varWindow(ctx, p) ) return;
  varFold(p, t, argv[0], -1);
}

/* kind: 0 var_samp, 1 var_pop, 2 stddev_samp, 3 stddev_pop. */
static void varResult(sqlite3_context *ctx, int kind, int isWin){
  Var *p = (Var*)sqlite3_aggregate_context(ctx, 0);
  int64_t n;
  double r;
  if( p==0 || (isWin && varWindow(ctx, p)) || varSettle(ctx, p) ) return;
  n = p->st.nInt + p->st.nReal;
  r = kind<2 ? ga_variance(&p->st.sum, &p->st.sq, n, kind&1 ? n : n-1)
             : ga_stddev(&p->st.sum, &p->st.sq, n, kind&1 ? n : n-1);
  if( !isnan(r) ) sqlite3_result_double(ctx, r);
}

void ga_varSampFinal(sqlite3_context *ctx){ varResult(ctx, 0, 0); }
void ga_varSampValue(sqlite3_context *ctx){ varResult(ctx, 0, 1); }
void ga_varPopFinal(sqlite3_context *ctx){ varResult(ctx, 1, 0); }
void ga_varPopValue(sqlite3_context *ctx){ varResult(ctx, 1, 1); }
void ga_sdSampFinal(sqlite3_context *ctx){ varResult(ctx, 2, 0); }
void ga_sdSampValue(sqlite3_context *ctx){ varResult(ctx, 2, 1); }
void ga_sdPopFinal(sqlite3_context *ctx){ varResult(ctx, 3, 0); }
void ga_sdPopValue(sqlite3_context *ctx){ varResult(ctx, 3, 1); }
