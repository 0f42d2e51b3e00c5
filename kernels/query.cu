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
**   4. qOne: a program without keys and with at most GA_QONE folds, its
**      rows folded where they are evaluated: each thread keeps its share
**      of every fold in registers (group_acc.h's accumulator: counts,
**      integer halves, window words, extremes by position), then the block
**      adds them up in shared memory and the grid in d_out. No grouping
**      rows are written, no table is made.
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
/* ---- one group: rows folded where they are evaluated (4) -------------------- */

typedef unsigned long long ull;

struct Jb { int jb[GA_QONE]; };

/* A thread's share of one fold: group_acc.h's accumulator, in registers. */
struct Acc {
  ull nInt, nReal, ilo;
  long long ihi, w[GA_GWORDS];
  ga_gext mx, mn;
};

__device__ __forceinline__ void keepBetter(ga_gext *b, ga_gext c){
  if( ga_gext_better(c, *b) ) *b = c;
}

__device__ __forceinline__ void extKeep(ga_gext *p, ga_gext c){
  ga_gext cur;
  if( c.hi == 0 && c.lo == 0 ) return;
  cur.hi = *(volatile ull *)&p->hi;
  if( c.hi < cur.hi ) return;
  cur.lo = 0;
  for( ;; ){
    ga_gext old = atomicCAS(p, cur, c);
    if( (old.hi == cur.hi && old.lo == cur.lo) || !ga_gext_better(c, old) ) return;
    cur = old;
  }
}

__device__ __forceinline__ void addU(ull *p, ull v){ if( v ) atomicAdd(p, v); }

/* d += a (d in shared or global memory). */
__device__ void accAdd(ga_gacc *d, const Acc &a){
  addU((ull *)&d->nInt, a.nInt);
  addU((ull *)&d->nReal, a.nReal);
  addU((ull *)&d->ilo, a.ilo);
  addU((ull *)&d->ihi, (ull)a.ihi);
  for( int j = 0; j < GA_GWORDS; j++ ) addU((ull *)&d->w[j], (ull)a.w[j]);
  extKeep(&d->mx, a.mx);
  extKeep(&d->mn, a.mn);
}

template <int NF>
__global__ void __launch_bounds__(kThreads)
qOne(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
     const unsigned char *tabC, const int64_t *tabV, long long n, long long base, Jb jbs, ga_gacc *out){
  extern __shared__ __align__(16) unsigned char sm[];
  Shared *s = (Shared *)sm;
  int64_t *rv = (int64_t *)(sm + ((sizeof(Shared) + 15) & ~(size_t)15));
  unsigned char *rc = (unsigned char *)(rv + nReg * kThreads);
  ga_gacc *sh = (ga_gacc *)(((uintptr_t)(rc + nReg * kThreads) + 15) & ~(uintptr_t)15);
  Acc a[NF];
  ull rows = 0, first = 0;
  loadProg(s, gp, colC, colV);
  for( int i = threadIdx.x; i < NF * (int)(sizeof(ga_gacc) / 8); i += kThreads ) ((ull *)sh)[i] = 0;
  #pragma unroll
  for( int f = 0; f < NF; f++ ){
    a[f].nInt = a[f].nReal = a[f].ilo = 0;
    a[f].ihi = 0;
    for( int j = 0; j < GA_GWORDS; j++ ) a[f].w[j] = 0;
    a[f].mx.hi = a[f].mx.lo = a[f].mn.hi = a[f].mn.lo = 0;
  }
  __syncthreads();
  for( long long i = (long long)blockIdx.x * kThreads + threadIdx.x; i < n; i += (long long)gridDim.x * kThreads ){
    unsigned char *c = rc + threadIdx.x;
    int64_t *v = rv + threadIdx.x;
    uint64_t key;
    unsigned char km;
    run(s, c, v, i, tabC, tabV);
    ga_q_key(&s->p, c, v, kThreads, &key, &km);
    if( km == GA_Q_DROPPED_META ) continue;
    if( rows++ == 0 ) first = ~((ull)(base + i) << 3 | GA_K_INT);
    #pragma unroll
    for( int f = 0; f < NF; f++ ){
      int r = s->p.foldReg[f], cl = c[r * kThreads];
      uint64_t x = (uint64_t)v[r * kThreads];
      if( cl == GA_QC_INT ){
        a[f].nInt++;
        a[f].ilo += x & 0xffffffffull;
        a[f].ihi += (long long)((int64_t)x >> 32);
      }else if( cl == GA_QC_REAL ){
        int w;
        int64_t p[3];
        a[f].nReal++;
        if( !ga_split(__longlong_as_double((long long)x), &w, p) ){
          int o = w - jbs.jb[f];                    /* the window holds it (the range pass) */
          #pragma unroll
          for( int j = 0; j < GA_GWORDS; j++ ){
            a[f].w[j] += (j == o ? p[0] : 0) + (j == o + 1 ? p[1] : 0) + (j == o + 2 ? p[2] : 0);
          }
        }
      }else{
        continue;
      }
      if( s->p.foldExt[f] ){
        keepBetter(&a[f].mx, ga_gext_make(x, cl == GA_QC_REAL, (uint64_t)(base + i), 1));
        keepBetter(&a[f].mn, ga_gext_make(x, cl == GA_QC_REAL, (uint64_t)(base + i), 0));
      }
    }
  }
  /* the block's, then the grid's */
  if( rows ){
    atomicAdd((ull *)&sh[0].rows, rows);
    atomicMax((ull *)&sh[0].first, first);
  }
  #pragma unroll
  for( int f = 0; f < NF; f++ ) accAdd(&sh[f], a[f]);
  __syncthreads();
  if( threadIdx.x < NF ){
    const ga_gacc *b = &sh[threadIdx.x];
    Acc t;
    ga_gacc *d = &out[threadIdx.x];
    t.nInt = b->nInt; t.nReal = b->nReal; t.ilo = b->ilo; t.ihi = b->ihi;
    for( int j = 0; j < GA_GWORDS; j++ ) t.w[j] = b->w[j];
    t.mx = b->mx; t.mn = b->mn;
    accAdd(d, t);
    if( threadIdx.x == 0 && sh[0].rows ){
      atomicAdd((ull *)&out[0].rows, (ull)sh[0].rows);
      atomicMax((ull *)&out[0].first, (ull)sh[0].first);
    }
  }
}

size_t smemBytes(int nReg, int extra){
  return ((sizeof(Shared) + 15) & ~(size_t)15) + (size_t)nReg * kThreads * 9 + 4 + (size_t)extra;
}

int blocksFor(long long n){
  long long b = (n + kThreads - 1) / kThreads;
  return b < 1 ? 1 : b > 4096 ? 4096 : (int)b;
}

}  // namespace

extern "C" cudaError_t ga_query_prepare(void){
  int one = (int)smemBytes(GA_QREG, 16 + GA_QONE * sizeof(ga_gacc));
  cudaError_t e = cudaFuncSetAttribute(qRange, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)smemBytes(GA_QREG, 3 * GA_QFOLD * sizeof(int)));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qRows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smemBytes(GA_QREG, 0));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  return e;
}

extern "C" cudaError_t ga_query_one_launch(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                                           const int64_t *const *d_colV, const unsigned char *d_tabC,
                                           const int64_t *d_tabV, int64_t n, int64_t base, const int *jb,
                                           ga_gacc *d_out, int blocks, cudaStream_t stream){
  Jb j;
  size_t sm = smemBytes(h_p->nReg, 16 + GA_QONE * sizeof(ga_gacc));
  int b = blocksFor(n);
  if( n <= 0 ) return cudaSuccess;
  if( blocks > 0 && b > blocks ) b = blocks;
  for( int f = 0; f < GA_QONE; f++ ) j.jb[f] = f < h_p->nFold ? jb[f] : 0;
  switch( h_p->nFold ){
    case 1: qOne<1><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    case 2: qOne<2><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    case 3: qOne<3><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    case 4: qOne<4><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
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
