/*
** Exact and compensated accumulation, shared by the CPU backend (gcc) and
** the CUDA kernels (nvcc), so that both fold values the same way.
**
**   1. Integers are summed exactly in 128 bits (two's complement, hi:lo).
**      2^63 rows of 64-bit values cannot overflow it.
**   2. Reals are summed with Neumaier's compensated sum (the algorithm of
**      SQLite 3.43+'s sum()): the value is s + c, c collecting the rounding
**      error of every addition into s.
**   3. Two partial sums merge exactly for integers and with an error-free
**      TwoSum for the reals' leading parts; merging in a fixed order gives
**      the same bits every time.
**   4. ±Inf inputs make s ±Inf (NaN if both signs) and c NaN; whoever reads
**      the total uses s alone when c is not finite, as SQLite 3.43+ does.
**
** No multiplications appear, so no fused multiply-add can change a result.
*/
#ifndef GPUAGG_SUM_ACC_H
#define GPUAGG_SUM_ACC_H

#include <stdint.h>
#ifdef __CUDACC__
# define GA_HD static __host__ __device__ __forceinline__
#else
# include <math.h>
# define GA_HD static inline
#endif

/* A partial sum of one lane pair: what one chunk, block or thread folded. */
typedef struct ga_sum {
  uint64_t lo;   /* low 64 bits of the exact integer total */
  int64_t hi;    /* high 64 bits of the exact integer total */
  double s;      /* compensated real total: leading part */
  double c;      /* compensated real total: accumulated error */
} ga_sum;

GA_HD void ga_sum_int(ga_sum *a, int64_t v){
  uint64_t lo = a->lo + (uint64_t)v;
  a->hi += (v < 0 ? -1 : 0) + (lo < a->lo);
  a->lo = lo;
}

GA_HD void ga_sum_real(ga_sum *a, double x){
  double t = a->s + x;
  if( fabs(a->s) >= fabs(x) ){
    a->c += (a->s - t) + x;
  }else{
    a->c += (x - t) + a->s;
  }
  a->s = t;
}

/* a += b. Exact for the integers; TwoSum of the leading parts. */
GA_HD void ga_sum_merge(ga_sum *a, const ga_sum *b){
  uint64_t lo = a->lo + b->lo;
  double s = a->s + b->s;
  double bp = s - a->s;
  double e = (a->s - (s - bp)) + (b->s - bp);
  a->hi += b->hi + (lo < a->lo);
  a->lo = lo;
  a->c += b->c + e;
  a->s = s;
}

#endif /* GPUAGG_SUM_ACC_H */
