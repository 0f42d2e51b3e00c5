/*
** How the shared accumulation headers declare their functions: for both
** host and device under nvcc (GA_HD), plain static inline under gcc; and
** how they align a type to 16 bytes (128-bit atomics and loads need it).
*/
#ifndef GPUAGG_HD_H
#define GPUAGG_HD_H
#ifdef __CUDACC__
# define GA_HD static __host__ __device__ __forceinline__
#else
# include <math.h>
# define GA_HD static inline
#endif
#define GA_ALIGN16 __attribute__((aligned(16)))
#endif
