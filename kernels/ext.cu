/*
** Extreme (min or max) of a chunk and its first position, in SQLite's
** order (ext_acc.h). Layers: device (a launch over the chunk, then one final
** block over the block partials), block (warp bests through shared memory),
** warp (shuffle tree of (value, type, position)), thread (grid.cuh's
** grid-stride walk; positions only grow along a thread, so a strict
** comparison keeps the first occurrence).
**
** Mode: GA_T_INT or GA_T_REAL when the chunk holds one type (no bitmap is
** read: the common case, compared natively), 0 when mixed (the type bitmap
** says which, and the exact INTEGER/REAL comparison decides).
**
** Determinism: ties go to the lower position at every level, so the result
** is the first occurrence of the extreme whatever the launch shape.
*/
#include "gpuagg_kernels.h"
#include "grid.cuh"

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;
constexpr unsigned kAll = 0xffffffffu;

/* ---- thread ------------------------------------------------------------ */

/* Offer value w at position j to the thread's best (positions increase). */
template <int Mode, bool IsMax>
__device__ __forceinline__ void offer(ga_ext &b, long long w, long long j, const unsigned long long *bits){
  if( Mode == GA_T_REAL ){
    double x = __longlong_as_double(w), y = __longlong_as_double((long long)b.bits);
    if( b.type == GA_T_NONE || (IsMax ? x > y : x < y) ){ b.bits = w; b.pos = j; b.type = GA_T_REAL; }
  }else if( Mode == GA_T_INT ){
    if( b.type == GA_T_NONE || (IsMax ? w > (long long)b.bits : w < (long long)b.bits) ){
      b.bits = w; b.pos = j; b.type = GA_T_INT;
    }
  }else{
    ga_ext c;
    c.bits = w;
    c.pos = j;
    c.type = (__ldg(&bits[j >> 6]) >> (j & 63)) & 1 ? GA_T_REAL : GA_T_INT;
    if( ga_ext_better(&c, &b, IsMax) ) b = c;
  }
}

/* ---- warp and block ------------------------------------------------------ */

template <bool IsMax>
__device__ __forceinline__ ga_ext warp_best(ga_ext a){
  for( int d = 16; d > 0; d >>= 1 ){
    ga_ext o;
    o.bits = __shfl_down_sync(kAll, (unsigned long long)a.bits, d);
    o.pos = __shfl_down_sync(kAll, (long long)a.pos, d);
    o.type = __shfl_down_sync(kAll, a.type, d);
    o.pad = 0;
    if( ga_ext_better(&o, &a, IsMax) ) a = o;
  }
  return a;
}

/* Thread 0 ends with the block's best. */
template <bool IsMax>
__device__ __forceinline__ ga_ext block_best(ga_ext a){
  __shared__ ga_ext warps[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  a = warp_best<IsMax>(a);
  if( lane == 0 ) warps[warp] = a;
  __syncthreads();
  if( warp == 0 ){
    a = lane < kWarps ? warps[lane] : ga_ext{0, 0, GA_T_NONE, 0};
    a = warp_best<IsMax>(a);
  }
  return a;
}

/* ---- device ------------------------------------------------------------- */

template <int Mode, bool IsMax>
__global__ void __launch_bounds__(kThreads)
ext_blocks(const long long *__restrict__ vals, const unsigned long long *__restrict__ bits,
           long long n, ga_ext *__restrict__ part){
  ga_ext b = {0, 0, GA_T_NONE, 0};
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long j){ offer<Mode, IsMax>(b, w, j, bits); });
  b = block_best<IsMax>(b);
  if( threadIdx.x == 0 ) part[blockIdx.x] = b;
}

template <bool IsMax>
__global__ void __launch_bounds__(kThreads)
ext_final(const ga_ext *__restrict__ part, int nb, ga_ext *__restrict__ out){
  ga_ext b = {0, 0, GA_T_NONE, 0};
  for( int i = threadIdx.x; i < nb; i += kThreads ){
    if( ga_ext_better(&part[i], &b, IsMax) ) b = part[i];
  }
  b = block_best<IsMax>(b);
  if( threadIdx.x == 0 ) *out = b;
}

template <int Mode, bool IsMax>
cudaError_t launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                   ga_ext *d_part, int max_blocks, ga_ext *d_out, cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  ext_blocks<Mode, IsMax><<<nb, kThreads, 0, stream>>>((const long long *)d_vals,
      (const unsigned long long *)d_bits, n, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  ext_final<IsMax><<<1, kThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}

}  /* namespace */

extern "C" cudaError_t ga_ext_max_blocks(int *max_blocks){
  int dev, sms, per_sm;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ext_blocks<0, true>, kThreads, 0);
  if( e == cudaSuccess ) *max_blocks = sms * (per_sm > 0 ? per_sm : 1);
  return e;
}

extern "C" cudaError_t ga_ext_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                                     int mode, int is_max, ga_ext *d_part, int max_blocks,
                                     ga_ext *d_out, cudaStream_t stream){
  switch( mode * 2 + (is_max != 0) ){
    case GA_T_INT * 2:      return launch<GA_T_INT, false>(d_vals, d_bits, n, d_part, max_blocks, d_out, stream);
    case GA_T_INT * 2 + 1:  return launch<GA_T_INT, true>(d_vals, d_bits, n, d_part, max_blocks, d_out, stream);
    case GA_T_REAL * 2:     return launch<GA_T_REAL, false>(d_vals, d_bits, n, d_part, max_blocks, d_out, stream);
    case GA_T_REAL * 2 + 1: return launch<GA_T_REAL, true>(d_vals, d_bits, n, d_part, max_blocks, d_out, stream);
    case 0:                 return launch<0, false>(d_vals, d_bits, n, d_part, max_blocks, d_out, stream);
    default:                return launch<0, true>(d_vals, d_bits, n, d_part, max_blocks, d_out, stream);
  }
}
