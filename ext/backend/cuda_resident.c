/*
** Columns kept on the device: the column cache's device form
** (source/cache.c), and the reductions that read them where they are.
**
**   1. A ga_dcol is one column of n rows with no TEXT or BLOB value: each
**      row's value (an int64, a REAL's bits, 0 for NULL) and storage class,
**      and its numbers (INTEGER and REAL, in scan order) with a bitmap of
**      the reals, as the chunk kernels read them; without NULLs the numbers
**      are the rows' values themselves. One allocation, made and filled
**      synchronously from the host copy; when the device has no room the
**      caller hears GA_DEV_NOMEM, so that it can evict and retry.
**   2. The reductions give what the chunk pipeline gives on the same rows,
**      from the same kernels: ga_stat by the sum, squares and extreme
**      kernels over the numbers; histogram counts by the histogram kernel
**      over the numbers as doubles, converted a piece at a time into a
**      scratch buffer; groupings folded a piece at a time (cuda_group.c).
**      Nothing crosses the bus but the results: no per-row or per-group
**      round trip.
**   3. They run on a per-connection ga_dres (a stream, the scratch buffer,
**      partials and results), made at the first use and freed with the
**      cache. Every CUDA call is checked and reported by name; the caller
**      then reads the host copy instead (or fails, when cuda is forced).
*/
#include <stdlib.h>
#include <string.h>
#include "gpuagg_kernels.h"
#include "cuda.h"

#define HIST_PIECE  ((int64_t)1 << 22)   /* numbers converted at a time: 32 MiB */
#define GROUP_PIECE ((int64_t)1 << 21)   /* rows encoded at a time: 34 MiB */

struct ga_dcol {
  int64_t n;                /* rows */
  int64_t nNum, nReal;      /* numbers, and how many of them are reals */
  void *mem;                /* the one allocation */
  int64_t *rowV;            /* each row's value */
  unsigned char *rowC;      /* ... and class */
  int64_t *num;             /* the numbers (rowV when there is no NULL) */
  uint64_t *bits;           /* bit i set: number i is a real */
};

struct ga_dres {
  cudaStream_t st;          /* the connection's resident work */
  void *scratch;            /* HIST_PIECE doubles or GROUP_PIECE encoded rows */
  ga_sum *dPart;            /* per-block partials (ga_sum or ga_ext) */
  ga_sq *dSqPart;           /* ... of squares */
  ga_stat *dStat;           /* results (device), nStat of them */
  ga_stat *hStat;           /* ... landed here (pinned) */
  int nStat;
  int nb, nbExt;            /* resident blocks of the sum and extreme kernels */
};

static int64_t up16(int64_t n){ return (n + 15) & ~(int64_t)15; }

/* The one allocation's layout: rows' values, numbers (if some rows are
** NULL), the reals' bitmap, rows' classes; each 16-byte aligned. */
static int64_t layout(int64_t n, int64_t nNum, int64_t *oNum, int64_t *oBits, int64_t *oC){
  *oNum = up16(8*n);
  *oBits = *oNum + (nNum<n ? up16(8*nNum) : 0);
  *oC = *oBits + up16(8*GA_BITMAP_WORDS(nNum));
  return *oC + up16(n ? n : 1);
}

int64_t ga_dcol_bytes(int64_t n, int64_t nNum){
  int64_t a, b, c;
  return layout(n, nNum, &a, &b, &c);
}

int ga_dcol_make(const unsigned char *type, const int64_t *v, int64_t n, ga_dcol **pp, int64_t *pBytes, char *zErr){
  ga_dcol *d = calloc(1, sizeof(ga_dcol));
  int64_t i, nW, oNum, oBits, oC, total;
  uint64_t *hBits = 0;
  int64_t *hNum = 0;
  cudaError_t e;
  *pp = 0;
  if( d==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  d->n = n;
  for(i=0; i<n; i++){
    if( type[i]==SQLITE_INTEGER || type[i]==SQLITE_FLOAT ) d->nNum++;
    if( type[i]==SQLITE_FLOAT ) d->nReal++;
  }
  nW = GA_BITMAP_WORDS(d->nNum);
  total = layout(n, d->nNum, &oNum, &oBits, &oC);
  hBits = calloc((size_t)(nW ? nW : 1), 8);
  if( d->nNum<n ) hNum = malloc((size_t)(d->nNum ? d->nNum : 1)*8);
  if( hBits==0 || (d->nNum<n && hNum==0) ){
    free(hBits); free(hNum); free(d);
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  {
    int64_t k = 0;
    for(i=0; i<n; i++){
      if( type[i]!=SQLITE_INTEGER && type[i]!=SQLITE_FLOAT ) continue;
      if( type[i]==SQLITE_FLOAT ) hBits[k>>6] |= (uint64_t)1 << (k & 63);
      if( hNum ) hNum[k] = v[i];
      k++;
    }
  }
  e = ga_cu_alloc(&d->mem, (size_t)total);
  if( e==cudaErrorMemoryAllocation ){
    (void)cudaGetLastError();
    free(hBits); free(hNum); free(d);
    return GA_DEV_NOMEM;
  }
  if( e==cudaSuccess ){
    char *m = (char*)d->mem;
    d->rowV = (int64_t*)m;
    d->num = hNum ? (int64_t*)(m + oNum) : d->rowV;
    d->bits = (uint64_t*)(m + oBits);
    d->rowC = (unsigned char*)(m + oC);
    if( n ) e = FI(FAULT_COPY, cudaMemcpy(d->rowV, v, (size_t)(8*n), cudaMemcpyHostToDevice));
    if( e==cudaSuccess && hNum && d->nNum ) e = FI(FAULT_COPY, cudaMemcpy(d->num, hNum, (size_t)(8*d->nNum), cudaMemcpyHostToDevice));
    if( e==cudaSuccess && nW ) e = FI(FAULT_COPY, cudaMemcpy(d->bits, hBits, (size_t)(8*nW), cudaMemcpyHostToDevice));
    if( e==cudaSuccess && n ) e = FI(FAULT_COPY, cudaMemcpy(d->rowC, type, (size_t)n, cudaMemcpyHostToDevice));
  }
  free(hBits);
  free(hNum);
  if( e!=cudaSuccess ){
    ga_dcol_free(d);
    return ga_cu_fail(e, "keeping a column on the device", zErr);
  }
  *pBytes = total;
  *pp = d;
  return 0;
}

void ga_dcol_free(ga_dcol *d){
  if( d==0 ) return;
  ga_cu_free(d->mem);
  free(d);
}

int64_t ga_cuda_free_bytes(void){
  size_t fr = 0, tot = 0;
  char zErr[GA_ERRLEN];
  if( ga_cu_live(zErr) || cudaMemGetInfo(&fr, &tot)!=cudaSuccess ){
    (void)cudaGetLastError();
    return -1;
  }
  return (int64_t)fr;
}

void ga_dres_free(ga_dres *r){
  if( r==0 ) return;
  ga_cu_stream_free(r->st);
  ga_cu_free(r->scratch);
  ga_cu_free(r->dPart);
  ga_cu_free(r->dSqPart);
  ga_cu_free(r->dStat);
  ga_cu_pinned_free(r->hStat);
  (void)cudaGetLastError();
  free(r);
}

/* A new connection state (all of it, or none). */
static int dresNew(ga_dres *r, char *zErr){
  ga_cu_blocks(&r->nb, &r->nbExt);
  CK(ga_cu_stream(&r->st), "cudaStreamCreate (kept columns)");
  CK(ga_cu_alloc(&r->scratch, (size_t)(HIST_PIECE*8 > GROUP_PIECE*17 ? HIST_PIECE*8 : GROUP_PIECE*17)),
     "cudaMalloc (kept columns)");
  CK(ga_cu_alloc((void**)&r->dPart, sizeof(ga_sum)*(size_t)((r->nb > r->nbExt ? r->nb : r->nbExt) + 1)),
     "cudaMalloc (kept columns)");
  CK(ga_cu_alloc((void**)&r->dSqPart, sizeof(ga_sq)*(size_t)r->nb), "cudaMalloc (kept columns)");
  return 0;
}

/* The connection's state, made at its first use; results for nStat columns. */
static int dres(ga_dres **pp, int nStat, char *zErr){
  ga_dres *r = *pp;
  if( ga_cu_live(zErr) ) return 1;
  if( r==0 ){
    if( (r = calloc(1, sizeof(ga_dres)))==0 ){
      strcpy(zErr, "gpuagg: out of memory");
      return 1;
    }
    if( dresNew(r, zErr) ){
      ga_dres_free(r);
      return 1;
    }
    *pp = r;
  }
  if( r->nStat<nStat ){
    ga_cu_free(r->dStat);
    ga_cu_pinned_free(r->hStat);
    r->dStat = 0;
    r->hStat = 0;
    r->nStat = 0;
    CK(ga_cu_alloc((void**)&r->dStat, sizeof(ga_stat)*(size_t)nStat), "cudaMalloc (statistics)");
    CK(ga_cu_pinned((void**)&r->hStat, sizeof(ga_stat)*(size_t)nStat), "cudaHostAlloc (statistics)");
    r->nStat = nStat;
  }
  return 0;
}

/* The extremes of d's numbers into r->dStat[i].mn and .mx. */
static int extremes(ga_dres *r, const ga_dcol *d, int i, char *zErr){
  int mode = d->nReal==0 ? GA_T_INT : d->nReal==d->nNum ? GA_T_REAL : 0;
  CK(FI(FAULT_LAUNCH, ga_ext_launch(d->num, d->bits, d->nNum, mode, 0, (ga_ext*)r->dPart, r->nbExt,
                                    &r->dStat[i].mn, r->st)), "the min/max kernel");
  CK(FI(FAULT_LAUNCH, ga_ext_launch(d->num, d->bits, d->nNum, mode, 1, (ga_ext*)r->dPart, r->nbExt,
                                    &r->dStat[i].mx, r->st)), "the min/max kernel");
  return 0;
}

/* The results of columns 0..n) to the host. */
static int landStats(ga_dres *r, int n, ga_stat *out, char *zErr){
  CK(FI(FAULT_COPY, cudaMemcpyAsync(r->hStat, r->dStat, sizeof(ga_stat)*(size_t)n, cudaMemcpyDeviceToHost, r->st)),
     "cudaMemcpyAsync (statistics)");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (kept columns)");
  memcpy(out, r->hStat, sizeof(ga_stat)*(size_t)n);
  return 0;
}

int ga_dcol_stats(ga_dres **pp, ga_dcol *const *a, int n, ga_stat *out, char *zErr){
  ga_dres *r;
  int c;
  if( dres(pp, n, zErr) ) return 1;
  r = *pp;
  for(c=0; c<n; c++){
    const ga_dcol *d = a[c];
    if( d->nNum==0 ) continue;
    CK(FI(FAULT_LAUNCH, ga_sum_bits_launch(d->num, d->bits, d->nNum, r->dPart, r->nb, &r->dStat[c].sum, r->st)),
       "the sum kernel");
    CK(FI(FAULT_LAUNCH, ga_sq_launch(d->num, d->bits, d->nNum, r->dSqPart, r->nb, &r->dStat[c].sq, r->st)),
       "the squares kernel");
    if( extremes(r, d, c, zErr) ) return 1;
  }
  return landStats(r, n, out, zErr);
}

int ga_dcol_range(ga_dres **pp, ga_dcol *d, ga_ext *mn, ga_ext *mx, char *zErr){
  ga_stat st;
  if( dres(pp, 1, zErr) || extremes(*pp, d, 0, zErr) || landStats(*pp, 1, &st, zErr) ) return 1;
  *mn = st.mn;
  *mx = st.mx;
  return 0;
}

int ga_dcol_hist(ga_dres **pp, ga_dcol *d, ga_hist *hist, char *zErr){
  size_t nb = sizeof(uint64_t)*(size_t)hist->h.bins;
  unsigned long long *counts = 0;
  uint64_t *tmp = 0;
  cudaError_t e;
  const char *zWhat = "cudaMalloc (histogram)";
  int64_t i;
  ga_dres *r;
  if( dres(pp, 1, zErr) ) return 1;
  r = *pp;
  if( (tmp = malloc(nb))==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  e = ga_cu_alloc((void**)&counts, nb);
  if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemsetAsync(counts, 0, nb, r->st)))!=cudaSuccess ) zWhat = "cudaMemsetAsync";
  for(i=0; e==cudaSuccess && i<d->nNum; i+=HIST_PIECE){
    int64_t k = d->nNum - i < HIST_PIECE ? d->nNum - i : HIST_PIECE;
    e = FI(FAULT_LAUNCH, ga_res_doubles_launch(d->num + i, d->bits + i/64, k, (double*)r->scratch, r->st));
    if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_hist_launch((const double*)r->scratch, k, &hist->h, counts, r->st));
    if( e!=cudaSuccess ) zWhat = "the histogram kernels";
  }
  if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemcpyAsync(tmp, counts, nb, cudaMemcpyDeviceToHost, r->st)))!=cudaSuccess ){
    zWhat = "cudaMemcpyAsync (histogram)";
  }
  if( e==cudaSuccess && (e = FI(FAULT_SYNC, cudaStreamSynchronize(r->st)))!=cudaSuccess ) zWhat = "cudaStreamSynchronize";
  if( e==cudaSuccess ) for(i=0; i<hist->h.bins; i++) hist->counts[i] += tmp[i];
  free(tmp);
  ga_cu_free(counts);
  return e==cudaSuccess ? 0 : ga_cu_fail(e, zWhat, zErr);
}

int ga_dcol_group(ga_dres **pp, ga_dcol *k, ga_dcol *v, int64_t nGroup, ga_group *g, char *zErr){
  if( dres(pp, 1, zErr) ) return 1;
  /* The scratch is the connection stream's: wait for its last user. */
  CK(FI(FAULT_SYNC, cudaStreamSynchronize((*pp)->st)), "cudaStreamSynchronize (kept columns)");
  return ga_cu_group_resident(g, k->rowV, k->rowC, v->rowV, v->rowC, k->n, nGroup, (*pp)->scratch, GROUP_PIECE, zErr);
}

int ga_dcol_ranks(ga_dcol *d, const int64_t *rank, int nRank, uint64_t *out, ga_stats *stats, char *zErr){
  return ga_cuda_ranks_num(d->num, d->bits, d->nNum, rank, nRank, out, stats, zErr);
}
