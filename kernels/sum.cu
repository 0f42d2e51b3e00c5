/*
** Sum of a chunk: exact 128-bit integer lane plus compensated real lane.
** Layers, from the top: device (two launches: blocks, then one final block),
** block (warp totals through shared memory), warp (shuffle tree), thread
** (grid-stride loop over 16-byte vectors, four loads in flight).
*/
#include "gpuagg_kernels.h"

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;   /* 16-byte loads in flight per thread */

/* ---- thread ------------------------------------------------------------ */

__device__ __forceinline__ void fold(ga_sum &a, long long w, bool is_int){
  if( is_int ) ga_sum_int(&a, w);
  else ga_sum_real(&a, __longlong_as_double(w));
}

__device__ __forceinline__ void fold2(ga_sum &a, longlong2 w, long long i, long long ni){
  fold(a, w.x, i < ni);
  fold(a, w.y, i + 1 < ni);
}

/* ---- warp --------------------------------------------------------------- */

__device__ __forceinline__ ga_sum shfl_down(const ga_sum &a, int d){
  ga_sum b;
  b.lo = __shfl_down_sync(0xffffffffu, (unsigned long long)a.lo, d);
  b.hi = __shfl_down_sync(0xffffffffu, (long long)a.hi, d);
  b.s = __shfl_down_sync(0xffffffffu, a.s, d);
  b.c = __shfl_down_sync(0xffffffffu, a.c, d);
  return b;
}

/* Lane 0 ends with the warp's total; the tree is fixed. */
__device__ __forceinline__ ga_sum warp_sum(ga_sum a){
  for( int d = 16; d > 0; d >>= 1 ){
    ga_sum b = shfl_down(a, d);
    ga_sum_merge(&a, &b);
  }
  return a;
}

/* ---- block -------------------------------------------------------------- */

/* Thread 0 ends with the block's total. */
__device__ __forceinline__ ga_sum block_sum(ga_sum a){
  __shared__ ga_sum warps[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  a = warp_sum(a);
  if( lane == 0 ) warps[warp] = a;
  __syncthreads();
  if( warp == 0 ){
    a = lane < kWarps ? warps[lane] : ga_sum{0, 0, 0.0, 0.0};
    a = warp_sum(a);
  }
  return a;
}

/* ---- device ------------------------------------------------------------- */

__global__ void __launch_bounds__(kThreads)
sum_blocks(const long long *__restrict__ vals, long long n, long long ni,
           ga_sum *__restrict__ part){
  const longlong2 *v = reinterpret_cast<const longlong2 *>(vals);
  const long long nv = n >> 1;
  const long long stride = (long long)gridDim.x * kThreads;
  long long i = (long long)blockIdx.x * kThreads + threadIdx.x;
  ga_sum a = {0, 0, 0.0, 0.0};

  for( ; i + (kUnroll - 1) * stride < nv; i += kUnroll * stride ){
    longlong2 w[kUnroll];
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ) w[k] = __ldg(&v[i + k * stride]);
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ) fold2(a, w[k], 2 * (i + k * stride), ni);
  }
  for( ; i < nv; i += stride ) fold2(a, __ldg(&v[i]), 2 * i, ni);
  if( (n & 1) && blockIdx.x == 0 && threadIdx.x == 0 ) fold(a, vals[n - 1], n - 1 < ni);

  a = block_sum(a);
  if( threadIdx.x == 0 ) part[blockIdx.x] = a;
}

__global__ void __launch_bounds__(kThreads)
sum_final(const ga_sum *__restrict__ part, int nb, ga_sum *__restrict__ out){
  ga_sum a = {0, 0, 0.0, 0.0};
  for( int i = threadIdx.x; i < nb; i += kThreads ) ga_sum_merge(&a, &part[i]);
  a = block_sum(a);
  if( threadIdx.x == 0 ) *out = a;
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
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_blocks, kThreads, 0);
  if( e == cudaSuccess ) *max_blocks = sms * (per_sm > 0 ? per_sm : 1);
  return e;
}

extern "C" cudaError_t ga_sum_launch(const int64_t *d_vals, int64_t n, int64_t ni,
                                     ga_sum *d_part, int max_blocks, ga_sum *d_out,
                                     cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  sum_blocks<<<nb, kThreads, 0, stream>>>((const long long *)d_vals, n, ni, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  sum_final<<<1, kThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}
