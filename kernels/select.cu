/*
** Order statistics: the keys of a column sorted on the device, so that the
** host reads back only the ranks it needs (gpu_median, gpu_percentile*,
** ext/backend/cuda_select.c); and distinct numbers, counted over the sorted
** keys (gpu_summary's distinct: ext/backend/cuda_resident.c).
**
** A key is a double's bits mapped so that unsigned order is numeric order
** (ga_pct_key: -0.0 just below +0.0). CUB's radix sort over all 64 bits:
** the sorted keys depend on the multiset alone, so the ranks read back are
** the same on every run and device, and the same as the CPU's selection.
**
** gpu_query's ORDER BY over kept columns (ga_order_*): the rows of one
** class (qprog.h, 5) picked in scan order (CUB's DeviceSelect, which keeps
** the input's order), their keys gathered, then sorted with their rows by
** CUB's radix sort, which is stable: ties stay in scan order. Every step
** depends on the keys and positions alone: the same rows on every run.
*/
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "gpuagg_kernels.h"
#include "qprog.h"

extern "C" cudaError_t ga_sort_keys(void *d_temp, size_t *temp_bytes, const uint64_t *d_in, uint64_t *d_out,
                                    int n, cudaStream_t stream){
  return cub::DeviceRadixSort::SortKeys(d_temp, *temp_bytes, d_in, d_out, n, 0, 64, stream);
}

/* Key i of the numbers num[0..n) (an int64, or a double where bit i of bits
** is set), as ranks.h's ga_key makes it from the number as a double. */
__global__ void keysKernel(const int64_t *num, const uint64_t *bits, int64_t n, uint64_t *keys){
  int64_t i;
  for(i = (int64_t)blockIdx.x*blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x*blockDim.x){
    double y = (bits[i >> 6] >> (i & 63)) & 1 ? __longlong_as_double(num[i]) : (double)num[i];
    uint64_t b = (uint64_t)__double_as_longlong(y);
    keys[i] = b >> 63 ? ~b : b | (1ull << 63);
  }
}

extern "C" cudaError_t ga_keys_launch(const int64_t *d_num, const uint64_t *d_bits, int64_t n, uint64_t *d_keys,
                                      cudaStream_t stream){
  int blocks = (int)((n + 255)/256 < 4096 ? (n + 255)/256 : 4096);
  keysKernel<<<blocks > 0 ? blocks : 1, 256, 0, stream>>>(d_num, d_bits, n, d_keys);
  return cudaGetLastError();
}

/* ga_distinct_keys_launch's first step (gpuagg_kernels.h). The numbers
** beyond 2^53 are appended in no set order: the host sorts them. */
__global__ void distinctKeys(const int64_t *num, const uint64_t *bits, int64_t n, uint64_t *keys, int64_t *big,
                             unsigned char *bigReal, unsigned long long *nBig){
  int64_t i;
  for(i = (int64_t)blockIdx.x*blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x*blockDim.x){
    int real = (bits[i >> 6] >> (i & 63)) & 1;
    double y = real ? __longlong_as_double(num[i]) : (double)num[i];
    if( fabs(y) < 9007199254740992.0 ){
      uint64_t b = (uint64_t)__double_as_longlong(y == 0.0 ? 0.0 : y);   /* -0.0 is 0 */
      keys[i] = b >> 63 ? ~b : b | (1ull << 63);
    }else{
      unsigned long long k = atomicAdd(nBig, 1ull);
      keys[i] = ~0ull;
      big[k] = num[i];
      bigReal[k] = (unsigned char)real;
    }
  }
}

/* Distinct keys of a sorted run, other than ~0: a key unlike the one
** before it. Each warp adds its count once. */
__global__ void distinctCount(const uint64_t *sorted, int64_t n, unsigned long long *count){
  unsigned long long c = 0;
  int64_t i;
  for(i = (int64_t)blockIdx.x*blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x*blockDim.x){
    uint64_t k = sorted[i];
    c += k != ~0ull && (i == 0 || sorted[i-1] != k);
  }
  for(int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
  if( (threadIdx.x & 31) == 0 && c ) atomicAdd(count, c);
}

extern "C" cudaError_t ga_distinct_keys_launch(const int64_t *d_num, const uint64_t *d_bits, int64_t n,
                                               uint64_t *d_keys, int64_t *d_big, unsigned char *d_bigReal,
                                               unsigned long long *d_nBig, cudaStream_t stream){
  int blocks = (int)((n + 255)/256 < 4096 ? (n + 255)/256 : 4096);
  if( n <= 0 ) return cudaSuccess;
  distinctKeys<<<blocks, 256, 0, stream>>>(d_num, d_bits, n, d_keys, d_big, d_bigReal, d_nBig);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_distinct_count_launch(const uint64_t *d_sorted, int64_t n, unsigned long long *d_count,
                                                cudaStream_t stream){
  int blocks = (int)((n + 255)/256 < 4096 ? (n + 255)/256 : 4096);
  if( n <= 0 ) return cudaSuccess;
  distinctCount<<<blocks, 256, 0, stream>>>(d_sorted, n, d_count);
  return cudaGetLastError();
}

/* ---- gpu_query's ORDER BY (ga_order_*) ---- */

namespace {
struct ClassIs {            /* row i's class is want (GA_QO_NULL), or a number (GA_QO_INT) */
  const unsigned char *cls;
  int want;
  __device__ bool operator()(uint32_t i) const {
    return want == GA_QO_NULL ? cls[i] == GA_QO_NULL : cls[i] >= GA_QO_INT;
  }
};

__global__ void gatherKeys(const uint64_t *keys, const uint32_t *rows, int n, uint64_t *out){
  for( int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x ) out[i] = keys[rows[i]];
}
}  // namespace

extern "C" cudaError_t ga_order_rows(void *d_temp, size_t *temp_bytes, const unsigned char *d_cls, int n, int want,
                                     uint32_t *d_rows, int *d_n, cudaStream_t stream){
  ClassIs f = { d_cls, want };
  return cub::DeviceSelect::If(d_temp, *temp_bytes, thrust::counting_iterator<uint32_t>(0), d_rows, d_n, n, f,
                               stream);
}

/* ---- gpu_query's groups by code with rows (ga_query_pick) ---- */

namespace {
struct HasRows {
  const ga_gacc *tab;
  __device__ bool operator()(uint32_t c) const { return tab[c].rows != 0; }
};
}  // namespace

extern "C" cudaError_t ga_query_pick(void *d_temp, size_t *temp_bytes, const ga_gacc *d_tab, int nGroup, uint32_t *d_codes,
                                     int *d_n, cudaStream_t stream){
  HasRows f = { d_tab };
  return cub::DeviceSelect::If(d_temp, *temp_bytes, thrust::counting_iterator<uint32_t>(0), d_codes, d_n, nGroup, f,
                               stream);
}

namespace {
struct Marked {
  const unsigned char *flag;
  __device__ bool operator()(uint32_t c) const { return flag[c] != 0; }
};
}  // namespace

extern "C" cudaError_t ga_query_pick_flags(void *d_temp, size_t *temp_bytes, const unsigned char *d_flag, int nCode,
                                           uint32_t *d_codes, int *d_n, cudaStream_t stream){
  Marked f = { d_flag };
  return cub::DeviceSelect::If(d_temp, *temp_bytes, thrust::counting_iterator<uint32_t>(0), d_codes, d_n, nCode, f,
                               stream);
}

extern "C" cudaError_t ga_order_gather(const uint64_t *d_keys, const uint32_t *d_rows, int n, uint64_t *d_out,
                                       cudaStream_t stream){
  int blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096;
  if( n <= 0 ) return cudaSuccess;
  gatherKeys<<<blocks, 256, 0, stream>>>(d_keys, d_rows, n, d_out);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_order_sort(void *d_temp, size_t *temp_bytes, const uint64_t *d_kin, uint64_t *d_kout,
                                     const uint32_t *d_rin, uint32_t *d_rout, int n, cudaStream_t stream){
  return cub::DeviceRadixSort::SortPairs(d_temp, *temp_bytes, d_kin, d_kout, d_rin, d_rout, n, 0, 64, stream);
}
