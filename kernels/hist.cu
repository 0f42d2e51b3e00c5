/*
** Equal-width histogram of a chunk of doubles, added into device counts
** (hist_acc.h decides each value's bin, as numpy does). Layers: device (one
** launch per chunk, counts accumulate across chunks and streams), cluster
** (the bins split over the shared memory of 2-8 blocks, reached as
** distributed shared memory), block (privatized counts in shared memory),
** warp (one sub-histogram per warp where bins are few; where they are
** many, the lanes' last counts merged by bin before the atomics), thread
** (grid.cuh's grid-stride walk; where bins are many, runs of equal bins and
** the longest run counted in registers).
**
** Paths by bin count: per-warp shared sub-histograms (bins <= 1024), one
** shared histogram per block (bins <= 12288), one split over a cluster's
** blocks (bins <= 8 x 24576), global counts beyond.
**
** Determinism: integer counts; atomics only reorder additions of integers,
** so the counts are exact and the same on every run.
*/
#include <cooperative_groups.h>
#include "gpuagg_kernels.h"
#include "grid.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;
constexpr int kWarpBins = 1024;       /* 8 warps x 1024 x 4 bytes = 32 KiB */
constexpr int kBlockBins = 12288;     /* 48 KiB: no opt-in needed */
constexpr int kClusterMax = 8;        /* the portable cluster size */
constexpr int kClusterPer = 24576;    /* bins per cluster block: 96 KiB, two blocks an SM */

enum { WARPS, BLOCK, GLOBAL, NPATH };

/* Resident blocks of each path on the device (ga_hist_prepare; clusters
** are counted at launch, as they depend on the bins). */
int gBlocks[NPATH];

/* ---- warp ---------------------------------------------------------------- */

/* Add k to bin b (-1: none) for every active lane: the lanes whose bin is
** the first active lane's add their k's with one call, add(b, total); the
** others one call each. */
template <class Add>
__device__ __forceinline__ void add_hot(int b, unsigned k, Add &&add){
  unsigned act = __activemask();
  int lead = __ffs(act) - 1;
  int hot = __shfl_sync(act, b, lead);
  unsigned same = __ballot_sync(act, b == hot);
  if( b == hot ){
    unsigned total = __reduce_add_sync(same, k);
    if( b >= 0 && (int)(threadIdx.x & 31) == lead ) add(b, total);
  }else if( b >= 0 ){
    add(b, k);
  }
}

/* A thread's counts held in registers: the current run of equal bins, and
** the longest run seen so far, which stays (sticky) until a longer one
** displaces it. A value in either costs no atomic, so a bin that most
** values fall in (skewed data) costs about one atomic a thread; other runs
** are added as they end, each with one plain atomic: warp-wide merging at
** that point, where lanes diverge, cost more than it saved (bench/NOTES.md).
** What is held at the end is merged across the warp (add_hot). */
template <class Add>
struct Run {
  Add &add;
  int hot = -1;             /* the sticky bin, -1: none */
  unsigned hk = 0;          /* its count */
  int bin = -1;             /* the current run's bin, -1: none */
  unsigned k = 0;           /* its length */
  __device__ explicit Run(Add &a) : add(a) {}
  __device__ __forceinline__ void push(int b){
    if( b == hot ){
      hk++;
    }else if( b == bin ){
      k++;
    }else{
      if( k > hk ){           /* the run ending is the longest: it stays */
        if( hot >= 0 ) add(hot, hk);
        hot = bin;
        hk = k;
      }else if( bin >= 0 ){
        add(bin, k);
      }
      bin = b;
      k = 1;
    }
  }
  __device__ __forceinline__ void flush(){
    add_hot(hot, hk, add);
    add_hot(bin, k, add);
  }
};

__device__ __forceinline__ int bin_of(const ga_hparams &h, long long w){
  return (int)ga_hist_bin(&h, __longlong_as_double(w));
}

/* ---- block --------------------------------------------------------------- */

/* Shared counts: one sub-histogram per warp (WARPS) or one per block. */
template <int Path>
__global__ void __launch_bounds__(kThreads)
hist_shared(const long long *__restrict__ vals, long long n, ga_hparams h,
            unsigned long long *__restrict__ counts){
  extern __shared__ unsigned int sh[];
  const int nb = (int)h.bins;
  const int nsh = Path == WARPS ? kWarps * nb : nb;
  unsigned int *mine = Path == WARPS ? sh + (threadIdx.x >> 5) * nb : sh;
  for( int i = threadIdx.x; i < nsh; i += kThreads ) sh[i] = 0;
  __syncthreads();
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long){
    int b = bin_of(h, w);
    if( b >= 0 ) atomicAdd(&mine[b], 1u);
  });
  __syncthreads();
  for( int i = threadIdx.x; i < nb; i += kThreads ){
    unsigned long long c = 0;
    if( Path == WARPS ){
      for( int k = 0; k < kWarps; k++ ) c += sh[k * nb + i];
    }else{
      c = sh[i];
    }
    if( c ) atomicAdd(&counts[i], c);
  }
}

/* ---- cluster ------------------------------------------------------------- */

/* Block r of a cluster owns bins [r*per, (r+1)*per) in its shared memory;
** every block adds into the owner's through distributed shared memory. */
__global__ void __launch_bounds__(kThreads)
hist_cluster(const long long *__restrict__ vals, long long n, ga_hparams h, int per,
             unsigned long long *__restrict__ counts){
  extern __shared__ unsigned int sh[];
  cg::cluster_group cl = cg::this_cluster();
  for( int i = threadIdx.x; i < per; i += kThreads ) sh[i] = 0;
  cl.sync();                           /* every block's counts are zero */
  auto add = [&](int b, unsigned k){
    unsigned r = (unsigned)b / (unsigned)per;
    atomicAdd(cl.map_shared_rank(sh, r) + (b - (int)r * per), k);
  };
  Run<decltype(add)> run(add);
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long){ run.push(bin_of(h, w)); });
  run.flush();
  cl.sync();                           /* no block adds into this one any more */
  const long long first = (long long)cl.block_rank() * per;
  for( int i = threadIdx.x; i < per && first + i < h.bins; i += kThreads ){
    if( sh[i] ) atomicAdd(&counts[first + i], (unsigned long long)sh[i]);
  }
}

/* ---- global -------------------------------------------------------------- */

__global__ void __launch_bounds__(kThreads)
hist_global(const long long *__restrict__ vals, long long n, ga_hparams h,
            unsigned long long *__restrict__ counts){
  auto add = [&](int b, unsigned k){ atomicAdd(&counts[b], (unsigned long long)k); };
  Run<decltype(add)> run(add);
  for_each_value<kThreads, kUnroll>(vals, n, [&](long long w, long long){ run.push(bin_of(h, w)); });
  run.flush();
}

/* Blocks for n values on a path: enough for two values a thread, at most
** what stays resident. */
int blocks_for(long long n, int path){
  long long want = ((n >> 1) + kThreads - 1) / kThreads;
  if( want < 1 ) want = 1;
  return want < gBlocks[path] ? (int)want : gBlocks[path];
}

/* The smallest cluster that holds bins at kClusterPer a block, or 0. */
int cluster_size(long long bins){
  for( int cs = 2; cs <= kClusterMax; cs *= 2 ){
    if( bins <= (long long)cs * kClusterPer ) return cs;
  }
  return 0;
}

}  /* namespace */

extern "C" cudaError_t ga_hist_prepare(void){
  int dev, sms, per;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(hist_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  sizeof(unsigned) * kClusterPer);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, hist_shared<WARPS>, kThreads,
                                                                          sizeof(unsigned) * kWarps * kWarpBins);
  if( e == cudaSuccess ) gBlocks[WARPS] = sms * (per > 0 ? per : 1);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, hist_shared<BLOCK>, kThreads,
                                                                          sizeof(unsigned) * kBlockBins);
  if( e == cudaSuccess ) gBlocks[BLOCK] = sms * (per > 0 ? per : 1);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, hist_global, kThreads, 0);
  if( e == cudaSuccess ) gBlocks[GLOBAL] = sms * (per > 0 ? per : 1);
  return e;
}

extern "C" cudaError_t ga_hist_launch(const double *d_vals, int64_t n, const ga_hparams *h,
                                      unsigned long long *d_counts, cudaStream_t stream){
  const long long *v = (const long long *)d_vals;
  int cs = cluster_size(h->bins);
  if( gBlocks[WARPS] == 0 ) return cudaErrorNotReady;    /* ga_hist_prepare first */
  if( h->bins <= kWarpBins ){
    hist_shared<WARPS><<<blocks_for(n, WARPS), kThreads, sizeof(unsigned) * kWarps * h->bins, stream>>>(
        v, n, *h, d_counts);
  }else if( h->bins <= kBlockBins ){
    hist_shared<BLOCK><<<blocks_for(n, BLOCK), kThreads, sizeof(unsigned) * h->bins, stream>>>(v, n, *h, d_counts);
  }else if( cs > 0 ){
    int per = (int)((h->bins + cs - 1) / cs), nc = 0;
    long long want = ((n >> 1) + kThreads - 1) / kThreads;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at;
    cudaError_t e;
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = cs;
    at.val.clusterDim.y = at.val.clusterDim.z = 1;
    cfg.gridDim = dim3(cs);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = sizeof(unsigned) * per;
    cfg.stream = stream;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    /* Clusters must fit in one GPC: as many as run at once, no second wave. */
    if( (e = cudaOccupancyMaxActiveClusters(&nc, hist_cluster, &cfg)) != cudaSuccess ) return e;
    if( nc < 1 ) nc = 1;
    if( want > (long long)nc * cs ) want = (long long)nc * cs;
    cfg.gridDim = dim3((unsigned)((want + cs - 1) / cs * cs));
    return cudaLaunchKernelEx(&cfg, hist_cluster, v, (long long)n, *h, per, d_counts);
  }else{
    hist_global<<<blocks_for(n, GLOBAL), kThreads, 0, stream>>>(v, n, *h, d_counts);
  }
  return cudaGetLastError();
}
