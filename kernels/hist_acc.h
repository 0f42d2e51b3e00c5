/*
** Equal-width histogram bins as numpy.histogram computes them, shared by the
** CPU backend (gcc) and the CUDA kernels (nvcc), so that both put every
** value in the same bin.
**
**   1. Edge i is fl(fl(i * step) + lo), step = fl((hi - lo) / bins), and the
**      last edge is hi exactly (numpy.linspace). Products and sums are rounded
**      separately: no fused multiply-add, on either side.
**   2. A value x in [lo, hi] goes to bin floor(fl(fl(x - lo) * norm)),
**      norm = fl(bins / (hi - lo)), clamped to bins-1, then corrected against
**      the edges: down one if x < edge(i), up one if x >= edge(i+1) and i is
**      not the last bin. Every bin is half-open [edge(i), edge(i+1)) except
**      the last, which is closed. Values outside [lo, hi] are not counted.
**   3. The correction is skipped when the estimate's fraction is further
**      than `slack` from a whole number: slack bounds the rounding of the
**      estimate (4u per bin of the index) and of the edges (2u per bin, u per
**      step of |lo|+|hi|), times two, so such a value is inside its bin by
**      every edge's rounding. Most values take only this path.
*/
#ifndef GPUAGG_HIST_ACC_H
#define GPUAGG_HIST_ACC_H

#include <stdint.h>
#include "hd.h"

/* The shape of one histogram. */
typedef struct ga_hparams {
  int64_t bins;                 /* number of bins, >= 1 */
  double lo, hi;                /* range, lo < hi, both finite */
  double step;                  /* (hi - lo) / bins */
  double norm;                  /* bins / (hi - lo) */
  double slack;                 /* see 3: ga_hist_slack() */
} ga_hparams;

GA_HD double ga_mul(double a, double b){
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  volatile double r = a * b;    /* no contraction into an FMA */
  return r;
#endif
}

GA_HD double ga_add(double a, double b){
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

GA_HD double ga_hist_edge(const ga_hparams *h, int64_t i){
  return i >= h->bins ? h->hi : ga_add(ga_mul((double)i, h->step), h->lo);
}

/* The slack of 3 for h's range (1: always correct against the edges). */
GA_HD double ga_hist_slack(const ga_hparams *h){
  double lo = h->lo < 0 ? -h->lo : h->lo, hi = h->hi < 0 ? -h->hi : h->hi;
  double s = 16 * 2.220446049250313e-16 * ((double)h->bins + 1 + (lo + hi) / h->step);
  return s < 0.25 ? s : 1.0;
}

/* The bin of x, or -1 if x is outside [lo, hi] (NaN included). */
GA_HD int64_t ga_hist_bin(const ga_hparams *h, double x){
  int64_t i;
  double f;
  if( !(x >= h->lo && x <= h->hi) ) return -1;
  f = ga_mul(ga_add(x, -h->lo), h->norm);
  i = (int32_t)f;               /* f <= bins + rounding, bins <= 2^24 */
  if( i >= h->bins ){
    i = h->bins - 1;
  }else{
    double frac = f - (double)(int32_t)i;
    if( frac > h->slack && frac < 1.0 - h->slack ) return i;
  }
  if( i > 0 && x < ga_hist_edge(h, i) ) i--;
  if( i != h->bins - 1 && x >= ga_hist_edge(h, i + 1) ) i++;
  return i;
}

#endif /* GPUAGG_HIST_ACC_H */
