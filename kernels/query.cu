/*
** gpu_query's tile interpreter (qprog.h): a program over kept columns, run
** on the device without compiling anything per query. Built with
** -fmad=false: a REAL multiply and add are two roundings, as in SQLite.
**
**   1. A block copies the program into shared memory once, then takes
**      tiles of kThreads rows; each thread runs the program over its row,
**      its registers in shared memory (register r of thread t at r*kThreads
**      + t; as many as the program uses). Every thread of a warp runs the same instruction: one dispatch
**      per instruction and warp, no divergence but SQLite's own branches.
**   2. qRange: for each fold, the least and greatest biased exponents of
**      the finite non-zero reals among the rows the filter keeps, and how
**      many are infinite (shared-memory atomics, then global ones), so that
**      the host can choose each fold's window (group_acc.h, 3) or decline.
**   3. qRows: rows [first, first+n)'s group rows (key and key meta once; value and meta
**      per fold, fold f at f*stride), as group.cu folds them.
** Determinism: pure maps, and minima, maxima and counts of integers.
*/
#include "gpuagg_kernels.h"
#include "qprog.h"

namespace {

constexpr int kThreads = 256;

struct Shared {
  ga_qprog p;
  const unsigned char *colC[GA_QCOL];
  const int64_t *colV[GA_QCOL];
};

__device__ void loadProg(Shared *s, const ga_qprog *p, const unsigned char *const *colC,
                         const int64_t *const *colV){
  const int *src = (const int *)p;
  int *dst = (int *)&s->p;
  for( int i = threadIdx.x; i < (int)(sizeof(ga_qprog) / sizeof(int)); i += kThreads ) dst[i] = src[i];
  for( int i = threadIdx.x; i < GA_QCOL; i += kThreads ){ s->colC[i] = colC[i]; s->colV[i] = colV[i]; }
  __syncthreads();
}

__device__ void run(const Shared *s, unsigned char *rc, int64_t *rv, long long i, const unsigned char *tabC,
                    const int64_t *tabV){
  const ga_qprog *p = &s->p;
  for( int k = 0; k < p->nIns; k++ ) ga_q_step(p, &p->ins[k], rc, rv, kThreads, s->colC, s->colV, i, tabC, tabV);
}

__global__ void qRange(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
                       const unsigned char *tabC, const int64_t *tabV, long long n, int *range){
  extern __shared__ __align__(16) unsigned char sm[];
  Shared *s = (Shared *)sm;
  int64_t *rv = (int64_t *)(sm + ((sizeof(Shared) + 15) & ~(size_t)15));
  unsigned char *rc = (unsigned char *)(rv + nReg * kThreads);
  int *bMin = (int *)(((uintptr_t)(rc + nReg * kThreads) + 3) & ~(uintptr_t)3), *bMax = bMin + GA_QFOLD, *bInf = bMax + GA_QFOLD;
  loadProg(s, gp, colC, colV);
  for( int f = threadIdx.x; f < GA_QFOLD; f += kThreads ){ bMin[f] = 0x7ff; bMax[f] = -1; bInf[f] = 0; }
  __syncthreads();
  for( long long i0 = (long long)blockIdx.x * kThreads; i0 < n; i0 += (long long)gridDim.x * kThreads ){
    long long i = i0 + threadIdx.x;
    uint64_t key;
    unsigned char km;
    if( i >= n ) continue;
    run(s, rc + threadIdx.x, rv + threadIdx.x, i, tabC, tabV);
    ga_q_key(&s->p, rc + threadIdx.x, rv + threadIdx.x, kThreads, &key, &km);
    if( km == GA_Q_DROPPED_META ) continue;
    for( int f = 0; f < s->p.nFold; f++ ){
      int r = s->p.foldReg[f];
      if( rc[r * kThreads + threadIdx.x] == GA_QC_REAL ){
        uint64_t b = (uint64_t)rv[r * kThreads + threadIdx.x];
        int e = (int)((b >> 52) & 0x7ff);
        if( e == 0x7ff ) atomicAdd(&bInf[f], 1);
        else if( (b << 1) != 0 ){ atomicMin(&bMin[f], e); atomicMax(&bMax[f], e); }
      }
    }
  }
  __syncthreads();
  for( int f = threadIdx.x; f < s->p.nFold; f += kThreads ){
    if( bMax[f] >= 0 ){ atomicMin(&range[3 * f], bMin[f]); atomicMax(&range[3 * f + 1], bMax[f]); }
    if( bInf[f] ) atomicAdd(&range[3 * f + 2], bInf[f]);
  }
}

__global__ void qRows(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
                      const unsigned char *tabC, const int64_t *tabV, long long first, long long n,
                      unsigned long long *keys, unsigned long long *vals, unsigned char *meta, long long stride){
  extern __shared__ __align__(16) unsigned char sm[];
  Shared *s = (Shared *)sm;
  int64_t *rv = (int64_t *)(sm + ((sizeof(Shared) + 15) & ~(size_t)15));
  unsigned char *rc = (unsigned char *)(rv + nReg * kThreads);
  loadProg(s, gp, colC, colV);
  for( long long i = (long long)blockIdx.x * kThreads + threadIdx.x; i < n; i += (long long)gridDim.x * kThreads ){
    uint64_t key;
    unsigned char km;
    run(s, rc + threadIdx.x, rv + threadIdx.x, first + i, tabC, tabV);
    ga_q_key(&s->p, rc + threadIdx.x, rv + threadIdx.x, kThreads, &key, &km);
    keys[i] = key;
    for( int f = 0; f < s->p.nFold; f++ ){
      uint64_t v;
      unsigned char m;
      ga_q_val(rc + threadIdx.x, rv + threadIdx.x, kThreads, s->p.foldReg[f], &v, &m);
      vals[f * stride + i] = v;
      meta[f * stride + i] = km == GA_Q_DROPPED_META ? km : (unsigned char)(km | m);
    }
  }
}

/* Shared memory of a block: the program, nReg registers a thread, extra. */
size_t smemBytes(int nReg, int extra){
  return ((sizeof(Shared) + 15) & ~(size_t)15) + (size_t)nReg * kThreads * 9 + 4 + (size_t)extra;
}

int blocksFor(long long n){
  long long b = (n + kThreads - 1) / kThreads;
  return b < 1 ? 1 : b > 4096 ? 4096 : (int)b;
}

}  // namespace

extern "C" cudaError_t ga_query_prepare(void){
  cudaError_t e = cudaFuncSetAttribute(qRange, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)smemBytes(GA_QREG, 3 * GA_QFOLD * sizeof(int)));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qRows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smemBytes(GA_QREG, 0));
  return e;
}

extern "C" cudaError_t ga_query_range_launch(const ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                             const int64_t *const *d_colV, const unsigned char *d_tabC,
                                             const int64_t *d_tabV, int64_t n, int *d_range, cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  qRange<<<blocksFor(n), kThreads, smemBytes(nReg, 3 * GA_QFOLD * sizeof(int)), stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV,
                                                                                    n, d_range);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_query_rows_launch(const ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                            const int64_t *const *d_colV, const unsigned char *d_tabC,
                                            const int64_t *d_tabV, int64_t first, int64_t n, uint64_t *d_keys, uint64_t *d_vals,
                                            unsigned char *d_meta, int64_t stride, cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  qRows<<<blocksFor(n), kThreads, smemBytes(nReg, 0), stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, first, n,
                                                          (unsigned long long *)d_keys, (unsigned long long *)d_vals,
                                                          d_meta, stride);
  return cudaGetLastError();
}
