/*
** Exact sum of squares of a chunk (sq_acc.h): gpu_summary's variances.
** Layers: device (a launch over the chunk, then one final block over the
** block partials), block (a shared fixed-point accumulator over the range
** of squares, GA_SQWORDS words, integer atomics only), thread (grid.cuh's
** grid-stride walk).
**
** A thread keeps integers' squares in a 192-bit integer and reals' squares
** in an error-free expansion of three doubles: x*x = p + r exactly, with
** p = x*x and r = fma(x, x, -p), where |x| lies in [2^-480, 2^511) (no
** overflow, and r is representable). What the expansion cannot hold, and
** squares of reals outside that range (by the integer square of the
** mantissa), go to the block's words.
*/
#include "gpuagg_kernels.h"
#include "grid.cuh"

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kUnroll = 4;

typedef unsigned long long ull;

/* ---- thread ------------------------------------------------------------- */

/* Add the digits of u << grid bit pos (negated if neg) into the block's
** words, with atomics. */
__device__ __forceinline__ void add_digits(long long *big, unsigned __int128 u, int pos, bool neg){
  int i = pos >> 5, sh = pos & 31;
  unsigned __int128 lo = u << sh;
  ull top = sh ? (ull)(u >> (128 - sh)) : 0;
  for( int k = 0; k < 4; k++ ){
    long long d = (long long)((ull)(lo >> (32 * k)) & 0xffffffffull);
    if( d ) atomicAdd((ull *)&big[i + k], (ull)(neg ? -d : d));
  }
  if( top ) atomicAdd((ull *)&big[i + 4], (ull)(neg ? -(long long)top : (long long)top));
}

/* A part of squares (a finite double, any sign) into the words. */
__device__ __forceinline__ void add_part(long long *big, double y){
  ull b = (ull)__double_as_longlong(y), m = b & 0xfffffffffffffull;
  int e = (int)((b >> 52) & 0x7ff);
  if( e ) m |= 1ull << 52; else e = 1;
  if( m ) add_digits(big, m, e - 1 + GA_SQ_BIT0 - 1074, (b >> 63) != 0);
}

/* What one thread holds. */
struct SqAcc {
  ull i0, i1, i2;                     /* integers' squares, 192 bits */
  ga_fpe f;                           /* reals' squares, error-free */
};

__device__ __forceinline__ void fold(SqAcc &a, long long *big, unsigned *inf, long long w, bool isReal){
  if( !isReal ){
    ull u = w < 0 ? 0ull - (ull)w : (ull)w, lo = u * u, hi = __umul64hi(u, u), c;
    a.i0 += lo;
    c = a.i0 < lo;
    a.i1 += hi + c;                   /* hi < 2^62: hi + c cannot wrap */
    a.i2 += a.i1 < hi + c;
  }else{
    double x = __longlong_as_double(w);
    int e = (int)((w >> 52) & 0x7ff);
    if( e >= 1023 - 480 && e < 1023 + 511 ){
      double p = __dmul_rn(x, x), r = __fma_rn(x, x, -p), o;
      if( (o = ga_fpe_add(&a.f, p)) != 0.0 ) add_part(big, o);
      if( r != 0.0 && (o = ga_fpe_add(&a.f, r)) != 0.0 ) add_part(big, o);
    }else if( e == 0x7ff ){
      atomicOr(inf, 1u);
    }else{
      ull m = (ull)w & 0xfffffffffffffull;
      if( e ) m |= 1ull << 52; else e = 1;
      if( m ) add_digits(big, (unsigned __int128)m * m, 2 * (e - 1), false);
    }
  }
}

/* ---- block and device ------------------------------------------------------ */

/* The thread's totals into the block's words. The expansion's parts may be
** ±Inf only if a sum of squares overflowed: then they went to add_part
** already, and the expansion holds finite values. */
__device__ __forceinline__ void flush(SqAcc &a, long long *big){
  unsigned __int128 lo = ((unsigned __int128)a.i1 << 64) | a.i0;
  if( a.f.a0 != 0.0 ) add_part(big, a.f.a0);
  if( a.f.a1 != 0.0 ) add_part(big, a.f.a1);
  if( a.f.a2 != 0.0 ) add_part(big, a.f.a2);
  if( lo ) add_digits(big, lo, GA_SQ_BIT0, false);
  if( a.i2 ) add_digits(big, a.i2, GA_SQ_BIT0 + 128, false);
}

/* Write the block's words, carried, to out. */
__device__ __forceinline__ void store(ga_sq *out, long long *big, const unsigned *inf){
  __syncthreads();                    /* every atomic on big and inf has landed */
  if( threadIdx.x == 0 ){
    ga_carry((int64_t *)big, GA_SQWORDS);
    out->inf = *inf;
    out->nAdd = 0;
  }
  __syncthreads();
  for( int i = threadIdx.x; i < GA_SQWORDS; i += kThreads ) out->w[i] = big[i];
}

__global__ void __launch_bounds__(kThreads)
sq_blocks(const long long *__restrict__ vals, const ull *__restrict__ bits, long long n, ga_sq *__restrict__ part){
  __shared__ long long big[GA_SQWORDS];
  __shared__ unsigned inf;
  SqAcc a = {0, 0, 0, {0.0, 0.0, 0.0}};
  for( int k = threadIdx.x; k < GA_SQWORDS; k += kThreads ) big[k] = 0;
  if( threadIdx.x == 0 ) inf = 0;
  __syncthreads();
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long j){
    fold(a, big, &inf, w, (__ldg(&bits[j >> 6]) >> (j & 63)) & 1);
  });
  flush(a, big);
  store(&part[blockIdx.x], big, &inf);
}

__global__ void __launch_bounds__(kThreads)
sq_final(const ga_sq *__restrict__ part, int nb, ga_sq *__restrict__ out){
  __shared__ long long big[GA_SQWORDS];
  __shared__ unsigned inf;
  if( threadIdx.x == 0 ) inf = 0;
  __syncthreads();
  /* Block partials are carried: summing 2^31 of them cannot overflow. */
  for( int k = threadIdx.x; k < GA_SQWORDS; k += kThreads ){
    long long s = 0;
    for( int b = 0; b < nb; b++ ) s += part[b].w[k];
    big[k] = s;
  }
  for( int b = threadIdx.x; b < nb; b += kThreads ) if( part[b].inf ) atomicOr(&inf, 1u);
  store(out, big, &inf);
}

}  /* namespace */

extern "C" cudaError_t ga_sq_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                                    ga_sq *d_part, int max_blocks, ga_sq *d_out, cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  sq_blocks<<<nb, kThreads, 0, stream>>>((const long long *)d_vals, (const ull *)d_bits, n, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  sq_final<<<1, kThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}
