/*
** How the shared accumulation headers declare their functions: for both
** host and device under nvcc (GA_HD), host only where they need the host's
** 128-bit integers or libm (GA_H); plain static inline under gcc.
*/
#ifndef GPUAGG_HD_H
#define GPUAGG_HD_H
#ifdef __CUDACC__
# define GA_HD static __host__ __device__ __forceinline__
# define GA_H static __host__ inline
#else
# include <math.h>
# define GA_HD static inline
# define GA_H static inline
#endif
#endif
