/*
** Order statistics on the device (agg/ranks.c): a column's keys on the
** device (copied over, or made there from a kept column's numbers, its
** parts on other devices copied over peer to peer), sorted by
** CUB's radix sort (kernels/select.cu), and only the ranks asked for copied
** back: no per-row round trip, nothing else crosses the bus. Every CUDA call
** is checked and named; on any error everything is freed and the caller
** selects on the CPU instead (or fails, when cuda is forced).
*/
#include <limits.h>
#include <string.h>
#include "gpuagg_kernels.h"
#include "cuda.h"

/* n keys on device dev, made by xFill into dKeys on stream st, sorted, and
** the ranks read back into out. */
int ga_cuda_ranks_dev(int dev, int64_t n, ga_keys_fill xFill, void *pArg, const int64_t *rank, int nRank,
                      uint64_t *out, ga_stats *stats, char *zErr){
  uint64_t *dIn = 0, *dOut = 0;
  void *dTemp = 0;
  size_t tb = 0, nb = sizeof(uint64_t)*(size_t)n;
  cudaStream_t st = 0;
  cudaEvent_t e0 = 0, e1 = 0;
  cudaError_t e;
  const char *zWhat = "";
  float ms = 0;
  int i, rc = 0;
  if( n<=0 || n>INT_MAX ){
    strcpy(zErr, "gpuagg: the device sort takes 1 to 2147483647 values");
    return 1;
  }
  if( ga_cu_live(dev, zErr) ) return 1;
  if( (e = ga_sort_keys(0, &tb, 0, 0, (int)n, 0))!=cudaSuccess ){
    zWhat = "cub::DeviceRadixSort (scratch size)";
  }else if( (e = ga_cu_alloc((void**)&dIn, nb))!=cudaSuccess || (e = ga_cu_alloc((void**)&dOut, nb))!=cudaSuccess
         || (e = ga_cu_alloc(&dTemp, tb ? tb : 1))!=cudaSuccess ){
    zWhat = "cudaMalloc (sort keys)";
  }else if( (e = ga_cu_stream(&st))!=cudaSuccess ){
    zWhat = "cudaStreamCreate";
  }else if( (e = cudaEventCreate(&e0))!=cudaSuccess || (e = cudaEventCreate(&e1))!=cudaSuccess ){
    zWhat = "cudaEventCreate";
  }else if( (rc = xFill(pArg, dIn, st, zErr))==0 ){
    (void)ga_cu_set(dev);
    cudaEventRecord(e0, st);
    if( (e = FI(FAULT_LAUNCH, ga_sort_keys(dTemp, &tb, dIn, dOut, (int)n, st)))!=cudaSuccess ){
      zWhat = "cub::DeviceRadixSort";
    }
    cudaEventRecord(e1, st);
  }
  for(i=0; rc==0 && e==cudaSuccess && i<nRank; i++){
    e = FI(FAULT_COPY, cudaMemcpyAsync(&out[i], dOut + rank[i], sizeof(uint64_t), cudaMemcpyDeviceToHost, st));
    if( e!=cudaSuccess ) zWhat = "cudaMemcpyAsync (ranks)";
  }
  if( rc==0 && e==cudaSuccess && (e = FI(FAULT_SYNC, cudaStreamSynchronize(st)))!=cudaSuccess ){
    zWhat = "cudaStreamSynchronize";
  }
  if( rc==0 && e==cudaSuccess && cudaEventElapsedTime(&ms, e0, e1)==cudaSuccess ) ga_cu_ms(stats, dev, ms);
  if( rc==0 && e==cudaSuccess ) ga_cu_count(stats, dev, 0);
  (void)ga_cu_set(dev);
  if( e1 ) cudaEventDestroy(e1);
  if( e0 ) cudaEventDestroy(e0);
  if( st ) ga_cu_stream_free(st);
  ga_cu_free(dTemp);
  ga_cu_free(dOut);
  ga_cu_free(dIn);
  if( rc ) return rc;
  return e==cudaSuccess ? 0 : ga_cu_fail(e, zWhat, zErr);
}

/* Host keys, copied over. */
typedef struct HostKeys { const uint64_t *keys; int64_t n; ga_stats *stats; int dev; } HostKeys;
static int hostFill(void *pArg, uint64_t *dKeys, cudaStream_t st, char *zErr){
  HostKeys *h = (HostKeys*)pArg;
  size_t nb = sizeof(uint64_t)*(size_t)h->n;
  CK(FI(FAULT_COPY, cudaMemcpyAsync(dKeys, h->keys, nb, cudaMemcpyHostToDevice, st)), "cudaMemcpyAsync (sort keys)");
  h->stats->nBytes += (int64_t)nb;
  h->stats->dev[h->dev].nBytes += (int64_t)nb;
  return 0;
}

int ga_cuda_ranks(uint64_t *keys, int64_t n, const int64_t *rank, int nRank, uint64_t *out,
                  ga_stats *stats, char *zErr){
  HostKeys h;
  h.keys = keys;
  h.n = n;
  h.stats = stats;
  h.dev = ga_cu_first(0);
  return ga_cuda_ranks_dev(h.dev, n, hostFill, &h, rank, nRank, out, stats, zErr);
}
