/*
** Variances from exact sums (gpu_summary, the variance aggregates).
**
**   1. Given the exact sum S and sum of squares Q of n numbers, the variance
**      (n*Q - S^2) / (n*d) (d = n: population, d = n-1: sample) is computed
**      in big integers, exactly, and rounded once to the nearest double
**      (ties to even). The standard deviation is the exact variance's square
**      root, by an integer square root, rounded once the same way (so it is
**      right where the variance itself under- or overflows). No
**      cancellation, no drift.
**   2. NaN (SQL NULL) when n*d is 0 or an infinite value was summed.
*/
#ifndef GPUAGG_EXACTVAR_H
#define GPUAGG_EXACTVAR_H

#include "backend.h"

double ga_variance(const ga_sum *s, const ga_sq *q, int64_t n, int64_t d);
double ga_stddev(const ga_sum *s, const ga_sq *q, int64_t n, int64_t d);

#endif /* GPUAGG_EXACTVAR_H */
