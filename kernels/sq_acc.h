/*
** Exact sums of squares (gpu_summary's variances), and a column's exact
** statistics, shared by the CPU backend (gcc) and the CUDA kernels (nvcc).
**
**   1. A ga_sq holds the sum of x^2 exactly: GA_SQWORDS signed 64-bit words,
**      word i weighing 2^(32i-2148), 32-bit digits with 31 bits of headroom
**      for carries (sum_acc.h's scheme over the range of squares: a double's
**      square lies in [2^-2148, 2^2048), an int64's in [0, 2^126]).
**   2. A double x = m * 2^k squares to m^2 * 2^2k: m^2 (106 bits) from a
**      64 x 64 -> 128 multiply, placed at grid bit 2k+2148. Integers only:
**      exact for every finite double. An int64 squares to |x|^2 at grid bit
**      2148. ±Inf is flagged.
**   3. A double that is a part of squares (the device keeps squares in an
**      error-free expansion first, stats.cu) is added at its own weight,
**      with its sign.
**   4. A ga_stat is what a column's numbers reduce to: the exact sum, the
**      exact sum of squares, the first least and greatest number with their
**      positions, and how many were integers and reals. Stats merge exactly,
**      so chunks, blocks and backends may split the numbers any way.
*/
#ifndef GPUAGG_SQ_ACC_H
#define GPUAGG_SQ_ACC_H

#include "sum_acc.h"
#include "ext_acc.h"

#define GA_SQWORDS 136                /* grid bits 0 .. 4351: squares of 2^63 values */
#define GA_SQ_BIT0 2148               /* grid bit of 2^0 */

typedef struct ga_sq {
  uint32_t inf;                       /* an infinite value was squared */
  uint32_t nAdd;                      /* word additions since the last carry pass */
  int64_t w[GA_SQWORDS];              /* sum of w[i] * 2^(32i-2148) */
} ga_sq;

typedef struct ga_stat {
  ga_sum sum;                         /* the numbers' exact sum */
  ga_sq sq;                           /* ... and sum of squares */
  ga_ext mn, mx;                      /* the first least and greatest, by position */
  int64_t nInt, nReal;                /* numbers by type */
} ga_stat;

/* Add u (unsigned, below 2^128) shifted to grid bit pos, negated if neg:
** five digits. */
GA_HD void ga_sq_digits(int64_t *w, unsigned __int128 u, int pos, int neg){
  int i = pos >> 5, sh = pos & 31, k;
  unsigned __int128 lo = u << sh;
  uint64_t top = sh ? (uint64_t)(u >> (128 - sh)) : 0;
  for(k = 0; k < 4; k++){
    int64_t d = (int64_t)((uint64_t)(lo >> (32*k)) & 0xffffffffu);
    if( d ) w[i + k] += neg ? -d : d;
  }
  if( top ) w[i + 4] += neg ? -(int64_t)top : (int64_t)top;
}

GA_HD void ga_sq_tick(ga_sq *q){
  if( ++q->nAdd >= (1u << 30) ){      /* stay far from 2^63 per word */
    ga_carry(q->w, GA_SQWORDS);
    q->nAdd = 0;
  }
}

/* q += x^2 (neg: q -= x^2) for a double x. */
GA_HD void ga_sq_real_sign(ga_sq *q, double x, int neg){
  uint64_t b = ga_bits(x), m = b & 0xfffffffffffffull;
  int e = (int)((b >> 52) & 0x7ff);
  if( e == 0x7ff ){
    q->inf = 1;
    return;
  }
  if( e ) m |= 1ull << 52; else e = 1;
  /* x = m * 2^(e-1-1074): x^2 at grid bit 2(e-1-1074)+2148 = 2(e-1). */
  if( m ){
    ga_sq_digits(q->w, (unsigned __int128)m * m, 2*(e - 1), neg);
    ga_sq_tick(q);
  }
}
GA_HD void ga_sq_real(ga_sq *q, double x){ ga_sq_real_sign(q, x, 0); }

/* q += x^2 (neg: q -= x^2) for an int64 x. */
GA_HD void ga_sq_int_sign(ga_sq *q, int64_t x, int neg){
  uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
  if( u ){
    ga_sq_digits(q->w, (unsigned __int128)u * u, GA_SQ_BIT0, neg);
    ga_sq_tick(q);
  }
}
GA_HD void ga_sq_int(ga_sq *q, int64_t x){ ga_sq_int_sign(q, x, 0); }

/* q += y for a finite double y that is a part of squares. */
GA_HD void ga_sq_part(ga_sq *q, double y){
  uint64_t b = ga_bits(y), m = b & 0xfffffffffffffull;
  int e = (int)((b >> 52) & 0x7ff);
  if( e ) m |= 1ull << 52; else e = 1;
  /* y = m * 2^(e-1-1074): grid bit e-1-1074+2148. */
  if( m ){
    ga_sq_digits(q->w, m, e - 1 + GA_SQ_BIT0 - 1074, (int)(b >> 63));
    ga_sq_tick(q);
  }
}

/* a += b; both carried after. */
GA_HD void ga_sq_merge(ga_sq *a, const ga_sq *b){
  int i;
  for(i = 0; i < GA_SQWORDS; i++) a->w[i] += b->w[i];
  a->inf |= b->inf;
  ga_carry(a->w, GA_SQWORDS);
  a->nAdd = 0;
}

/* a += b for stats of numbers that come after a's (positions of b's
** extremes offset by base). Both sums settled. */
GA_HD void ga_stat_merge(ga_stat *a, const ga_stat *b, int64_t base){
  ga_ext c;
  ga_sum_merge(&a->sum, &b->sum);
  ga_sq_merge(&a->sq, &b->sq);
  c = b->mx; c.pos += base;
  if( ga_ext_better(&c, &a->mx, 1) ) a->mx = c;
  c = b->mn; c.pos += base;
  if( ga_ext_better(&c, &a->mn, 0) ) a->mn = c;
  a->nInt += b->nInt;
  a->nReal += b->nReal;
}

#endif /* GPUAGG_SQ_ACC_H */
