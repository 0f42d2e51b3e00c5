/*
** Exact sum of a chunk: 128-bit integer lane, exact real lane (sum_acc.h).
** Layers, from the top: device (a launch over the chunk, then one final
** block over the block partials), block (a shared fixed-point accumulator,
** integer atomics only), warp (shuffle trees; flushes aggregated per warp
** when the lanes agree on the words), thread (grid.cuh's grid-stride walk,
** an error-free expansion in registers).
*/
#include "gpuagg_kernels.h"
#include "grid.cuh"

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;            /* 16-byte loads in flight per thread */
constexpr int kMinBlocks = 4;         /* per SM: registers capped at 64 (see below) */
constexpr unsigned kAll = 0xffffffffu;

/* What one thread holds. */
struct Acc {
  uint64_t lo;                        /* integer total, low 64 bits */
  int64_t hi;                         /* integer total, high 64 bits */
  unsigned inf;                       /* GA_INF_POS | GA_INF_NEG */
  ga_fpe f;                           /* the reals, error-free */
};

/* ---- thread ------------------------------------------------------------ */

/* Exact: integer atomics on the block's words commute. Out of line: it is
** the rare path (the configuration measured in bench/NOTES.md). */
__device__ __noinline__ unsigned to_words(long long *big, unsigned inf, double x){
  int w;
  int64_t p[3];
  if( ga_split(x, &w, p) ) return inf | (x > 0 ? GA_INF_POS : GA_INF_NEG);
  for( int k = 0; k < 3; k++ ){
    if( p[k] ) atomicAdd((unsigned long long *)&big[w + k], (unsigned long long)p[k]);
  }
  return inf;
}

__device__ __forceinline__ void fold(Acc &a, long long *big, long long v, bool is_int){
  if( is_int ){
    ga_i128_add(&a.lo, &a.hi, v);
  }else{
    double r = ga_fpe_add(&a.f, __longlong_as_double(v));
    if( r != 0.0 ) a.inf = to_words(big, a.inf, r);
  }
}

/* ---- warp --------------------------------------------------------------- */

/* Every lane's x (finite, maybe 0) into the words. When all non-zero lanes
** hit the same words, as the leading parts of one column's values do, the
** warp adds its digits first (exact: 32 digits of 32 bits fit in 64) and one
** lane does the atomics. */
__device__ __forceinline__ void warp_to_words(long long *big, unsigned &inf, double x){
  int w = -1;
  int64_t p[3] = {0, 0, 0};
  if( x != 0.0 && ga_split(x, &w, p) ){
    inf |= x > 0 ? GA_INF_POS : GA_INF_NEG;
    w = -1;
  }
  const int wmax = __reduce_max_sync(kAll, w);
  if( wmax < 0 ) return;
  if( !__all_sync(kAll, w == wmax || w == -1) ){
    if( w >= 0 ){
      for( int k = 0; k < 3; k++ ){
        if( p[k] ) atomicAdd((unsigned long long *)&big[w + k], (unsigned long long)p[k]);
      }
    }
    return;
  }
  for( int d = 16; d > 0; d >>= 1 ){
    for( int k = 0; k < 3; k++ ) p[k] += __shfl_down_sync(kAll, (long long)p[k], d);
  }
  if( (threadIdx.x & 31) == 0 ){
    for( int k = 0; k < 3; k++ ){
      if( p[k] ) atomicAdd((unsigned long long *)&big[wmax + k], (unsigned long long)p[k]);
    }
  }
}

/* Lane 0 ends with the warp's integer total and infinities. */
__device__ __forceinline__ void warp_ints(uint64_t &lo, int64_t &hi, unsigned &inf){
  for( int d = 16; d > 0; d >>= 1 ){
    uint64_t l = __shfl_down_sync(kAll, (unsigned long long)lo, d);
    int64_t h = __shfl_down_sync(kAll, (long long)hi, d);
    uint64_t s = lo + l;
    hi += h + (s < lo);
    lo = s;
  }
  inf = __reduce_or_sync(kAll, inf);
}

/* ---- block -------------------------------------------------------------- */

/* Thread 0 ends with the block's integer total and infinities. */
__device__ __forceinline__ void block_ints(uint64_t &lo, int64_t &hi, unsigned &inf){
  __shared__ uint64_t slo[kWarps];
  __shared__ int64_t shi[kWarps];
  __shared__ unsigned sinf[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  warp_ints(lo, hi, inf);
  if( lane == 0 ){ slo[warp] = lo; shi[warp] = hi; sinf[warp] = inf; }
  __syncthreads();
  if( warp == 0 ){
    lo = lane < kWarps ? slo[lane] : 0;
    hi = lane < kWarps ? shi[lane] : 0;
    inf = lane < kWarps ? sinf[lane] : 0;
    warp_ints(lo, hi, inf);
  }
}

/* Write the block's total: words carried by thread 0, then copied out. */
__device__ __forceinline__ void block_store(ga_sum *out, long long *big,
                                           uint64_t lo, int64_t hi, unsigned inf){
  __syncthreads();                    /* every atomic on big has landed */
  if( threadIdx.x == 0 ){
    ga_words_norm((int64_t *)big);
    out->lo = lo;
    out->hi = hi;
    out->inf = inf;
    out->nAdd = 0;
  }
  __syncthreads();
  for( int i = threadIdx.x; i < GA_WORDS; i += kThreads ) out->w[i] = big[i];
}

/* ---- device ------------------------------------------------------------- */

/* Four blocks an SM, where the compiler would take 72 registers and fit
** three: the stalls are on latency (FP64 chains, loads), and more warps
** hide more of it than the registers save (bench/NOTES.md). */
template <bool Bits>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
sum_blocks(const long long *__restrict__ vals, const unsigned long long *__restrict__ bits, long long n,
           long long ni, ga_sum *__restrict__ part){
  __shared__ long long big[GA_WORDS];
  Acc a = {0, 0, 0, {0.0, 0.0, 0.0}};

  for( int k = threadIdx.x; k < GA_WORDS; k += kThreads ) big[k] = 0;
  __syncthreads();
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long j){
    fold(a, big, w, Bits ? !((__ldg(&bits[j >> 6]) >> (j & 63)) & 1) : j < ni);
  });

  warp_to_words(big, a.inf, a.f.a0);
  warp_to_words(big, a.inf, a.f.a1);
  warp_to_words(big, a.inf, a.f.a2);
  block_ints(a.lo, a.hi, a.inf);
  block_store(&part[blockIdx.x], big, a.lo, a.hi, a.inf);
}

__global__ void __launch_bounds__(kThreads)
sum_final(const ga_sum *__restrict__ part, int nb, ga_sum *__restrict__ out){
  __shared__ long long big[GA_WORDS];
  uint64_t lo = 0;
  int64_t hi = 0;
  unsigned inf = 0;
  /* Block partials are carried: summing 2^31 of them cannot overflow. */
  for( int k = threadIdx.x; k < GA_WORDS; k += kThreads ){
    long long s = 0;
    for( int b = 0; b < nb; b++ ) s += part[b].w[k];
    big[k] = s;
  }
  for( int b = threadIdx.x; b < nb; b += kThreads ){
    uint64_t s = lo + part[b].lo;
    hi += part[b].hi + (s < lo);
    lo = s;
    inf |= part[b].inf;
  }
  block_ints(lo, hi, inf);
  block_store(out, big, lo, hi, inf);
}

}  /* namespace */

extern "C" int ga_sum_blocks(int64_t n, int max_blocks){
  int64_t want = ((n >> 1) + kThreads - 1) / kThreads;
  if( want < 1 ) want = 1;
  return want < max_blocks ? (int)want : max_blocks;
}

extern "C" cudaError_t ga_sum_max_blocks(int *max_blocks){
  int dev, sms, per_sm;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_blocks<false>, kThreads, 0);
  if( e == cudaSuccess ) *max_blocks = sms * (per_sm > 0 ? per_sm : 1);
  return e;
}

extern "C" cudaError_t ga_sum_launch(const int64_t *d_vals, int64_t n, int64_t ni,
                                     ga_sum *d_part, int max_blocks, ga_sum *d_out,
                                     cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  sum_blocks<false><<<nb, kThreads, 0, stream>>>((const long long *)d_vals, nullptr, n, ni, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  sum_final<<<1, kThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_sum_bits_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                                          ga_sum *d_part, int max_blocks, ga_sum *d_out, cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  sum_blocks<true><<<nb, kThreads, 0, stream>>>((const long long *)d_vals, (const unsigned long long *)d_bits,
                                                n, 0, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  sum_final<<<1, kThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}
