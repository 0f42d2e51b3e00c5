/*
** Order statistics, shared by the percentile aggregates (agg/percentile.c)
** and gpu_summary's quartiles (tvf/summary.c).
**
**   1. Numbers are ranked as keys: a double's bits mapped so that unsigned
**      order is numeric order, -0.0 just below +0.0 (ga_key).
**   2. ga_ranks finds the keys at given ranks: on the device (CUB's radix
**      sort of all keys, only those ranks read back) for `threshold` keys or
**      more when the connection's backend is CUDA; else by selection here,
**      in O(n). The answer depends on the keys alone: the same on every
**      path. A CUDA error selects here instead in 'auto' mode (counted as a
**      fallback) and is an error in 'cuda' mode.
**   3. The percentile of fraction frac is percentile.c's: with the n keys
**      ascending a[0..n), ix = frac*(n-1), i1 = (int)ix; discrete: a[i1];
**      else a[i1] + (a[i2] - a[i1])*(ix - i1), i2 = i1 + 1 unless ix is
**      whole or i1 is the last; the same double operations in that order.
*/
#ifndef GPUAGG_RANKS_H
#define GPUAGG_RANKS_H

#include "gpuagg.h"

uint64_t ga_key(double);
double ga_key_value(uint64_t);

/* The keys of ranks r[0..nr) (ascending, repeats allowed) of a[0..n) into
** out; a is reordered. Non-zero: an error, the message in zErr. */
int ga_ranks(ga_conn*, uint64_t *a, int64_t n, const int64_t *r, int nr, uint64_t *out, char *zErr);

/* The ranks a percentile needs (1 or 2, into r) and its ix. */
int ga_pct_ranks(double frac, int64_t n, int disc, int64_t r[2], double *pIx);
/* The percentile from the keys at those ranks. */
double ga_pct_value(double ix, const int64_t r[2], int nr, const uint64_t k[2], int disc);

#endif /* GPUAGG_RANKS_H */
