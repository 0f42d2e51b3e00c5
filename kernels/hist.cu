/*
** Equal-width histogram of a chunk of doubles, added into device counts
** (hist_acc.h decides each value's bin, as numpy does). Layers: device (one
** launch per chunk, counts accumulate across chunks and streams), block
** (privatized counts in shared memory), warp (one sub-histogram per warp
** where bins are few; peers on the same bin merged with a match before one
** atomic where they are many), thread (grid.cuh's grid-stride walk).
**
** Paths by bin count: per-warp shared sub-histograms (bins <= 1024), one
** shared histogram per block (bins <= 12288), global counts with
** warp-aggregated atomics (more bins).
**
** Determinism: integer counts; atomics only reorder additions of integers,
** so the counts are exact and the same on every run.
*/
#include "gpuagg_kernels.h"
#include "grid.cuh"

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;
constexpr int kWarpBins = 1024;       /* 8 warps x 1024 x 4 bytes = 32 KiB */
constexpr int kBlockBins = 12288;     /* 48 KiB */

enum { WARPS, BLOCK, GLOBAL };

/* Add one to counts[b] for every lane of the warp that has b, in one atomic. */
__device__ __forceinline__ void add_global(unsigned long long *counts, long long b){
  unsigned peers = __match_any_sync(__activemask(), (unsigned long long)b);
  if( b >= 0 && (int)(threadIdx.x & 31) == __ffs(peers) - 1 ){
    atomicAdd(&counts[b], (unsigned long long)__popc(peers));
  }
}

template <int Path>
__global__ void __launch_bounds__(kThreads)
hist_blocks(const long long *__restrict__ vals, long long n, ga_hparams h,
            unsigned long long *__restrict__ counts){
  extern __shared__ unsigned int sh[];
  const int nb = (int)h.bins;
  if( Path == GLOBAL ){
    for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long){
      add_global(counts, ga_hist_bin(&h, __longlong_as_double(w)));
    });
    return;
  }
  const int nsh = Path == WARPS ? kWarps * nb : nb;
  unsigned int *mine = Path == WARPS ? sh + (threadIdx.x >> 5) * nb : sh;
  for( int i = threadIdx.x; i < nsh; i += kThreads ) sh[i] = 0;
  __syncthreads();
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long){
    long long b = ga_hist_bin(&h, __longlong_as_double(w));
    if( b >= 0 ) atomicAdd(&mine[b], 1u);
  });
  __syncthreads();
  for( int i = threadIdx.x; i < nb; i += kThreads ){
    unsigned long long c = 0;
    if( Path == WARPS ){
      for( int k = 0; k < kWarps; k++ ) c += sh[k * nb + i];
    }else{
      c = sh[i];
    }
    if( c ) atomicAdd(&counts[i], c);
  }
}

}  /* namespace */

extern "C" cudaError_t ga_hist_launch(const double *d_vals, int64_t n, const ga_hparams *h,
                                      unsigned long long *d_counts, int max_blocks,
                                      cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  if( h->bins <= kWarpBins ){
    hist_blocks<WARPS><<<nb, kThreads, sizeof(unsigned) * kWarps * h->bins, stream>>>(
        (const long long *)d_vals, n, *h, d_counts);
  }else if( h->bins <= kBlockBins ){
    hist_blocks<BLOCK><<<nb, kThreads, sizeof(unsigned) * h->bins, stream>>>(
        (const long long *)d_vals, n, *h, d_counts);
  }else{
    hist_blocks<GLOBAL><<<nb, kThreads, 0, stream>>>((const long long *)d_vals, n, *h, d_counts);
  }
  return cudaGetLastError();
}
