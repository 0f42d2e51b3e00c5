/*
** Order statistics on the device (agg/ranks.c): a column's keys on the
** device (copied over, or made there from a kept column's numbers), sorted by
** CUB's radix sort (kernels/select.cu), and only the ranks asked for copied
** back: no per-row round trip, nothing else crosses the bus. Every CUDA call
** is checked and named; on any error everything is freed and the caller
** selects on the CPU instead (or fails, when cuda is forced).
*/
#include <limits.h>
#include <string.h>
#include "gpuagg_kernels.h"
#include "cuda.h"

/* Keys of n numbers: copied from host keys hKeys, or made from device
** numbers num/bits (as the chunk kernels read them). Then sorted, and the
** ranks read back into out. */
static int ranks(const uint64_t *hKeys, const int64_t *num, const uint64_t *bits, int64_t n, const int64_t *rank,
                 int nRank, uint64_t *out, ga_stats *stats, char *zErr){
  uint64_t *dIn = 0, *dOut = 0;
  void *dTemp = 0;
  size_t tb = 0, nb = sizeof(uint64_t)*(size_t)n;
  cudaStream_t st = 0;
  cudaEvent_t e0 = 0, e1 = 0;
  cudaError_t e;
  const char *zWhat = "";
  float ms = 0;
  int i;
  if( n<=0 || n>INT_MAX ){
    strcpy(zErr, "gpuagg: the device sort takes 1 to 2147483647 values");
    return 1;
  }
  if( ga_cu_live(zErr) ) return 1;
  if( (e = ga_sort_keys(0, &tb, 0, 0, (int)n, 0))!=cudaSuccess ){
    zWhat = "cub::DeviceRadixSort (scratch size)";
  }else if( (e = ga_cu_alloc((void**)&dIn, nb))!=cudaSuccess || (e = ga_cu_alloc((void**)&dOut, nb))!=cudaSuccess
         || (e = ga_cu_alloc(&dTemp, tb ? tb : 1))!=cudaSuccess ){
    zWhat = "cudaMalloc (sort keys)";
  }else if( (e = ga_cu_stream(&st))!=cudaSuccess ){
    zWhat = "cudaStreamCreate";
  }else if( (e = cudaEventCreate(&e0))!=cudaSuccess || (e = cudaEventCreate(&e1))!=cudaSuccess ){
    zWhat = "cudaEventCreate";
  }else if( hKeys && (e = FI(FAULT_COPY, cudaMemcpyAsync(dIn, hKeys, nb, cudaMemcpyHostToDevice, st)))!=cudaSuccess ){
    zWhat = "cudaMemcpyAsync (sort keys)";
  }else{
    if( hKeys ) stats->nBytes += (int64_t)nb;
    cudaEventRecord(e0, st);
    if( !hKeys && (e = FI(FAULT_LAUNCH, ga_keys_launch(num, bits, n, dIn, st)))!=cudaSuccess ){
      zWhat = "the keys kernel";
    }else if( (e = FI(FAULT_LAUNCH, ga_sort_keys(dTemp, &tb, dIn, dOut, (int)n, st)))!=cudaSuccess ){
      zWhat = "cub::DeviceRadixSort";
    }
    cudaEventRecord(e1, st);
  }
  for(i=0; e==cudaSuccess && i<nRank; i++){
    e = FI(FAULT_COPY, cudaMemcpyAsync(&out[i], dOut + rank[i], sizeof(uint64_t), cudaMemcpyDeviceToHost, st));
    if( e!=cudaSuccess ) zWhat = "cudaMemcpyAsync (ranks)";
  }
  if( e==cudaSuccess && (e = FI(FAULT_SYNC, cudaStreamSynchronize(st)))!=cudaSuccess ) zWhat = "cudaStreamSynchronize";
  if( e==cudaSuccess && cudaEventElapsedTime(&ms, e0, e1)==cudaSuccess ) stats->kernelMs += ms;
  if( e==cudaSuccess ) stats->nDevChunk++;
  if( e1 ) cudaEventDestroy(e1);
  if( e0 ) cudaEventDestroy(e0);
  if( st ) ga_cu_stream_free(st);
  ga_cu_free(dTemp);
  ga_cu_free(dOut);
  ga_cu_free(dIn);
  return e==cudaSuccess ? 0 : ga_cu_fail(e, zWhat, zErr);
}

int ga_cuda_ranks(const uint64_t *keys, int64_t n, const int64_t *rank, int nRank, uint64_t *out,
                  ga_stats *stats, char *zErr){
  return ranks(keys, 0, 0, n, rank, nRank, out, stats, zErr);
}

int ga_cuda_ranks_num(const int64_t *num, const uint64_t *bits, int64_t n, const int64_t *rank, int nRank,
                      uint64_t *out, ga_stats *stats, char *zErr){
  return ranks(0, num, bits, n, rank, nRank, out, stats, zErr);
}
