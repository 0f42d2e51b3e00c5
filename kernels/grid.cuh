/*
** The thread layer shared by the chunk kernels: a grid-stride walk over a
** chunk of 8-byte values with 16-byte loads, kUnroll of them in flight.
** Each thread sees its values in increasing position, which the kernels'
** first-occurrence and fixed-order guarantees rely on.
*/
#ifndef GPUAGG_GRID_CUH
#define GPUAGG_GRID_CUH

/* Call f(value, position) for this thread's share of vals[0..n). */
template <int kThreads, int kUnroll, class F>
__device__ __forceinline__ void for_each_value(const long long *__restrict__ vals, long long n, F &&f){
  const longlong2 *v = reinterpret_cast<const longlong2 *>(vals);
  const long long nv = n >> 1;
  const long long stride = (long long)gridDim.x * kThreads;
  long long i = (long long)blockIdx.x * kThreads + threadIdx.x;
  for( ; i + (kUnroll - 1) * stride < nv; i += kUnroll * stride ){
    longlong2 w[kUnroll];
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ) w[k] = __ldg(&v[i + k * stride]);
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ){
      long long j = 2 * (i + k * stride);
      f(w[k].x, j);
      f(w[k].y, j + 1);
    }
  }
  for( ; i < nv; i += stride ){
    longlong2 w = __ldg(&v[i]);
    f(w.x, 2 * i);
    f(w.y, 2 * i + 1);
  }
  /* The odd last value, to the thread that saw only lower positions. */
  if( (n & 1) && blockIdx.x == 0 && threadIdx.x == 0 ) f(vals[n - 1], n - 1);
}

#endif
