/*
** The thread layer shared by the chunk kernels: a grid-stride walk over a
** chunk of 8-byte values (or a range of it) with 16-byte loads, kUnroll of
** them in flight.
** Each thread sees its values in increasing position, which the kernels'
** first-occurrence and fixed-order guarantees rely on.
*/
#ifndef GPUAGG_GRID_CUH
#define GPUAGG_GRID_CUH

/* Walk this thread's share of vals[lo..hi): fb(w, pos) for each batch of
** kUnroll 16-byte loads (w[k] holds the values at pos[k] and pos[k] + 1),
** f(value, position) for the values outside batches. */
template <int kThreads, int kUnroll, class FB, class F>
__device__ __forceinline__ void for_each_batch(const long long *__restrict__ vals, long long lo, long long hi,
                                               FB &&fb, F &&f){
  const bool first = blockIdx.x == 0 && threadIdx.x == 0;
  if( lo >= hi ) return;
  /* An odd first position, to the thread that sees the lowest ones. */
  if( lo & 1 ){
    if( first ) f(vals[lo], lo);
    if( ++lo == hi ) return;
  }
  const longlong2 *v = reinterpret_cast<const longlong2 *>(vals + lo);
  const long long nv = (hi - lo) >> 1;
  const long long stride = (long long)gridDim.x * kThreads;
  long long i = (long long)blockIdx.x * kThreads + threadIdx.x;
  for( ; i + (kUnroll - 1) * stride < nv; i += kUnroll * stride ){
    longlong2 w[kUnroll];
    long long pos[kUnroll];
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ) w[k] = __ldg(&v[i + k * stride]);
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ) pos[k] = lo + 2 * (i + k * stride);
    fb(w, pos);
  }
  for( ; i < nv; i += stride ){
    longlong2 w = __ldg(&v[i]);
    f(w.x, lo + 2 * i);
    f(w.y, lo + 2 * i + 1);
  }
  /* An odd last value, to the thread that saw only lower positions. */
  if( ((hi - lo) & 1) && first ) f(vals[hi - 1], hi - 1);
}

/* Call f(value, position) for this thread's share of vals[lo..hi). */
template <int kThreads, int kUnroll, class F>
__device__ __forceinline__ void for_each_value(const long long *__restrict__ vals, long long lo, long long hi,
                                               F &&f){
  for_each_batch<kThreads, kUnroll>(vals, lo, hi, [&](const longlong2 (&w)[kUnroll], const long long (&pos)[kUnroll]){
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ){
      f(w[k].x, pos[k]);
      f(w[k].y, pos[k] + 1);
    }
  }, f);
}

/* The same over vals[0..n). */
template <int kThreads, int kUnroll, class F>
__device__ __forceinline__ void for_each_value(const long long *__restrict__ vals, long long n, F &&f){
  for_each_value<kThreads, kUnroll>(vals, 0, n, f);
}

#endif
