/*
** Order statistics: the keys of a column sorted on the device, so that the
** host reads back only the ranks it needs (gpu_median, gpu_percentile*,
** ext/backend/cuda_select.c).
**
** A key is a double's bits mapped so that unsigned order is numeric order
** (ga_pct_key: -0.0 just below +0.0). CUB's radix sort over all 64 bits:
** the sorted keys depend on the multiset alone, so the ranks read back are
** the same on every run and device, and the same as the CPU's selection.
*/
#include <cub/device/device_radix_sort.cuh>
#include "gpuagg_kernels.h"

extern "C" cudaError_t ga_sort_keys(void *d_temp, size_t *temp_bytes, const uint64_t *d_in, uint64_t *d_out,
                                    int n, cudaStream_t stream){
  return cub::DeviceRadixSort::SortKeys(d_temp, *temp_bytes, d_in, d_out, n, 0, 64, stream);
}
