/*
** Columns kept on the device: the column cache's device form
** (source/cache.c), and the reductions that read them where they are.
**
**   1. A ga_dcol is one column of n rows (a TEXT or BLOB value as its place
**      in the column's dictionary: source/cache.c), split
**      by row ranges into parts, one per device the connection uses (a
**      column of fewer than PART_MIN rows a device stays whole on the first
**      of them). A part holds its rows' values (an int64, a REAL's bits, 0
**      for NULL) and storage classes, and its numbers (INTEGER and REAL, in
**      scan order) with a bitmap of the reals, as the chunk kernels read
**      them; without NULLs the numbers are the rows' values themselves. One
**      allocation per part, filled before ga_dcol_make returns: the host
**      copy's values and classes cross (staged by several threads through
**      the connection's pinned buffers: cuda_upload.c), the numbers and
**      the bitmap are made from them on the device (resident.cu); when a
**      device has no room the caller hears GA_DEV_NOMEM, so
**      that it can evict and retry. A table larger than one device's
**      memory thus fits in the devices' sum.
**   2. The reductions give what the chunk pipeline gives on the same rows,
**      from the same kernels: ga_stat by the sum, squares and extreme
**      kernels over the numbers; histogram counts by the histogram kernel
**      over the numbers as doubles, converted a piece at a time into a
**      scratch buffer; groupings folded a piece at a time (cuda_group.c).
**      Every part's work is enqueued on its device before any is waited
**      for, so the devices run together. Parts are combined on the host in
**      row order: exact sums and counts add, extremes keep the first of
**      equals (positions offset by the part's first number), each device's
**      groups are added into one table; so the bits are those of one
**      device. Nothing crosses the bus but the results: no per-row or
**      per-group round trip.
**   3. Order statistics sort the column's keys on the device of its first
**      part; the other parts' keys are made on their devices and copied
**      over peer to peer.
**   3a. Distinct numbers: each number's order key where it is below 2^53 in
**      magnitude (exact there), sorted and its runs counted on the device;
**      the few beyond 2^53, where two integers can share a double, go to
**      the host and are compared exactly. A split column is not served
**      (GA_DEV_SCAN): the host copy is read.
**   4. They run on a per-connection ga_dres (per device: a stream, the
**      scratch buffer, partials, results and two events), made at the first
**      use and freed with the cache. Every CUDA call is checked and
**      reported by name; the caller then reads the host copy instead (or
**      fails, when cuda is forced).
*/
#include <assert.h>
#include <stddef.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "gpuagg_kernels.h"
#include "cuda.h"
#include "qprog.h"

#define HIST_PIECE  ((int64_t)1 << 22)   /* numbers converted at a time: 32 MiB */
#define GROUP_PIECE ((int64_t)1 << 21)   /* rows encoded at a time: 34 MiB */
#define PART_MIN    ((int64_t)4096)      /* rows a device, at least, before a column splits */

/* One device's rows of a column. */
typedef struct dPart {
  int dev;                  /* the device */
  int64_t row0, n;          /* its rows: [row0, row0+n) of the column */
  int64_t num0;             /* its first number's place among the column's */
  int64_t nNum, nReal;      /* numbers, and how many of them are reals */
  int64_t bytes;            /* device memory mem takes */
  void *mem;                /* the one allocation */
  int64_t *rowV;            /* each row's value */
  unsigned char *rowC;      /* ... and class */
  int64_t *num;             /* the numbers (rowV when there is no NULL) */
  uint64_t *bits;           /* bit i set: number i is a real */
  int64_t *dictNum;         /* the number sum() reads from each dictionary entry, or NULL */
  unsigned char *dictReal;  /* ... 1: a double's bits */
} dPart;

struct ga_dcol {
  int64_t n;                /* rows */
  int nPart;                /* parts, in row order, each on its own device */
  dPart a[GA_DEV_MAX];
};

/* A connection's state on one device. */
typedef struct dRes {
  cudaStream_t st;          /* the connection's resident work there */
  cudaEvent_t e0, e1;       /* around one reduction, for its kernel time */
  void *scratch;            /* HIST_PIECE doubles or GROUP_PIECE encoded rows */
  ga_sum *dPart;            /* per-block partials (ga_sum or ga_ext) */
  ga_sq *dSqPart;           /* ... of squares */
  ga_stat *dStat;           /* results (device), nStat of them */
  ga_stat *hStat;           /* ... landed here (pinned) */
  int nStat;
  int nb, nbExt;            /* resident blocks of the sum and extreme kernels */
  void *qAux;               /* gpu_query: its program, column pointers, tables, ranges */
  void *hAux;               /* ... staged here (pinned) */
  int64_t nAux, nHAux;      /* ... bytes of each */
  void *qTab;               /* ... the tables of the program last served (tabId) */
  int64_t nTabBytes;        /* ... bytes there */
  uint64_t tabId;           /* ... their ga_qprog.tabId once a run over them ended well; 0: none */
  void *qRows;              /* ... its grouping rows */
  int64_t nRows;            /* ... bytes there */
  cudaEvent_t qReady, qDone;/* ... rows made, a fold done */
} dRes;

struct ga_dres {
  dRes *d[GA_DEV_MAX];      /* by device, made at first use */
  ga_stage *stage;          /* pinned buffers for columns' copies to a device (cuda_upload.c) */
};

static int64_t up16(int64_t n){ return (n + 15) & ~(int64_t)15; }

/* A part's allocation's layout: rows' values, numbers (if some rows are
** not), the reals' bitmap, rows' classes, the dictionary's numbers and
** their classes (nDict of them); each 16-byte aligned. */
static int64_t layout(int64_t n, int64_t nNum, int64_t nDict, int64_t *oNum, int64_t *oBits, int64_t *oC,
                      int64_t *oDict){
  *oNum = up16(8*n);
  *oBits = *oNum + (nNum<n ? up16(8*nNum) : 0);
  *oC = *oBits + up16(8*GA_BITMAP_WORDS(nNum));
  *oDict = *oC + up16(n ? n : 1);
  return *oDict + up16(9*nDict);
}

int64_t ga_dcol_bytes(int64_t n, int64_t nNum, int64_t nDict){
  int64_t a, b, c, d;
  return layout(n, nNum, nDict, &a, &b, &c, &d);
}

int64_t ga_dcol_bytes_on(const ga_dcol *d, int iDev){
  int64_t nb = 0;
  int p;
  for(p=0; d && p<d->nPart; p++) if( d->a[p].dev==iDev ) nb += d->a[p].bytes;
  return nb;
}

static int resOn(ga_dres **pp, int dev, int nStat, dRes **pr, char *zErr);

/* Counting a part's numbers and reals, on ga_cu_fan's threads (each a
** run of rows; the sums after). */
typedef struct Count {
  const unsigned char *type;                /* the rows' classes */
  int64_t n;                                /* ... how many */
  int64_t aNum[GA_FAN_MAX], aReal[GA_FAN_MAX];  /* each thread's counts */
} Count;

static void countWork(void *pArg, int iThr, int nThr){
  Count *c = (Count*)pArg;
  int64_t i, nNum = 0, nReal = 0, i1 = c->n*(iThr+1)/nThr;
  for(i=c->n*iThr/nThr; i<i1; i++){
    nNum += (unsigned)(c->type[i] - SQLITE_INTEGER) <= (unsigned)(SQLITE_FLOAT - SQLITE_INTEGER);
    nReal += c->type[i]==SQLITE_FLOAT;
  }
  c->aNum[iThr] = nNum;
  c->aReal[iThr] = nReal;
}

/* Part p's rows (classes type, values v) to its device, with the column's
** dictionary numbers (nDict of them; dictNum NULL: none): the rows copied
** over (cuda_upload.c), its numbers and reals' bitmap made there from them
** (resident.cu). */
static int partMake(ga_dres **pp, dPart *p, const unsigned char *type, const int64_t *v, const int64_t *dictNum,
                    const unsigned char *dictReal, int64_t nDict, char *zErr){
  int64_t oNum, oBits, oC, oDict, *tiles = 0;
  Count cnt;
  dRes *r;
  int i, nThr = p->n>=((int64_t)1<<20) ? ga_cu_fan_threads() : 1;
  cudaError_t e;
  memset(&cnt, 0, sizeof(cnt));
  cnt.type = type;
  cnt.n = p->n;
  ga_cu_fan(nThr, countWork, &cnt);
  for(i=0; i<nThr; i++){
    p->nNum += cnt.aNum[i];
    p->nReal += cnt.aReal[i];
  }
  if( dictNum==0 ) nDict = 0;
  p->bytes = layout(p->n, p->nNum, nDict, &oNum, &oBits, &oC, &oDict);
  e = ga_cu_alloc(&p->mem, (size_t)p->bytes);
  if( e==cudaErrorMemoryAllocation ){
    (void)cudaGetLastError();
    return GA_DEV_NOMEM;
  }
  CK(e, "cudaMalloc (keeping a column on the device)");
  {
    char *m = (char*)p->mem;
    p->rowV = (int64_t*)m;
    p->num = p->nNum<p->n ? (int64_t*)(m + oNum) : p->rowV;
    p->bits = (uint64_t*)(m + oBits);
    p->rowC = (unsigned char*)(m + oC);
    if( nDict ){
      p->dictNum = (int64_t*)(m + oDict);
      p->dictReal = (unsigned char*)(p->dictNum + nDict);
    }
  }
  if( nDict ){
    CK(FI(FAULT_COPY, cudaMemcpy(p->dictNum, dictNum, (size_t)(8*nDict), cudaMemcpyHostToDevice)),
       "cudaMemcpy (keeping a column on the device)");
    CK(FI(FAULT_COPY, cudaMemcpy(p->dictReal, dictReal, (size_t)nDict, cudaMemcpyHostToDevice)),
       "cudaMemcpy (keeping a column on the device)");
  }
  if( p->n==0 ) return 0;
  if( resOn(pp, p->dev, 0, &r, zErr)
   || ga_cu_upload(&(*pp)->stage, p->dev, p->rowV, v, (size_t)(8*p->n), zErr)
   || ga_cu_upload(&(*pp)->stage, p->dev, p->rowC, type, (size_t)p->n, zErr) ) return 1;
  CK(ga_cu_alloc((void**)&tiles, sizeof(int64_t)*(size_t)ga_res_numbers_tiles(p->n)), "cudaMalloc (a column's numbers)");
  e = FI(FAULT_LAUNCH, ga_res_numbers_launch(p->rowV, p->rowC, p->n, tiles, p->nNum<p->n ? p->num : 0, p->bits,
                                             GA_BITMAP_WORDS(p->nNum), r->st));
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(r->st));
  ga_cu_free(tiles);
  CK(e, "the kernel making a column's numbers");
  return 0;
}

int ga_dcol_make(ga_dres **ppRes, const unsigned char *type, const int64_t *v, int64_t n, const int64_t *dictNum,
                 const unsigned char *dictReal, int64_t nDict, int nDev, ga_dcol **pp, int64_t *pBytes, char *zErr){
  ga_dcol *d = calloc(1, sizeof(ga_dcol));
  int aDev[GA_DEV_MAX], nUse = 0, i, rc = 0;
  int64_t num0 = 0, total = 0;
  *pp = 0;
  if( d==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  for(i=0; i<GA_DEV_MAX; i++) if( ga_cuda_allowed(i, nDev) ) aDev[nUse++] = i;
  if( nUse==0 ){
    free(d);
    strcpy(zErr, "gpuagg: no device to keep a column on");
    return 1;
  }
  if( n < PART_MIN*nUse ) nUse = 1;
  d->n = n;
  for(i=0; i<nUse && rc==0; i++){
    dPart *p = &d->a[i];
    p->dev = aDev[i];
    p->row0 = n*i/nUse;
    p->n = n*(i+1)/nUse - p->row0;
    p->num0 = num0;
    d->nPart = i + 1;
    if( (rc = ga_cu_live(p->dev, zErr))==0 && (rc = partMake(ppRes, p, type + p->row0, v + p->row0, dictNum, dictReal, nDict, zErr))==0 ){
      num0 += p->nNum;
      total += p->bytes;
    }
  }
  if( rc ){
    ga_dcol_free(d);
    return rc;
  }
  *pBytes = total;
  *pp = d;
  return 0;
}

void ga_dcol_free(ga_dcol *d){
  int p;
  if( d==0 ) return;
  for(p=0; p<d->nPart; p++){
    if( d->a[p].mem==0 ) continue;
    (void)ga_cu_set(d->a[p].dev);
    ga_cu_free(d->a[p].mem);
  }
  free(d);
}

int64_t ga_cuda_free_bytes(int nDev){
  size_t fr = 0, tot = 0;
  char zErr[GA_ERRLEN];
  int64_t sum = -1;
  int i;
  for(i=0; i<GA_DEV_MAX; i++){
    if( !ga_cuda_allowed(i, nDev) ) continue;
    if( ga_cu_live(i, zErr) || cudaMemGetInfo(&fr, &tot)!=cudaSuccess ){
      (void)cudaGetLastError();
      continue;
    }
    sum = (sum<0 ? 0 : sum) + (int64_t)fr + (int64_t)ga_cu_blocks_cached(i);   /* (cuda_blocks.c, 2) */
  }
  return sum;
}

static void resFree(int dev, dRes *r){
  if( r==0 ) return;
  (void)ga_cu_set(dev);
  ga_cu_stream_free(r->st);
  if( r->e0 ) cudaEventDestroy(r->e0);
  if( r->e1 ) cudaEventDestroy(r->e1);
  ga_cu_free(r->scratch);
  ga_cu_free(r->dPart);
  ga_cu_free(r->dSqPart);
  ga_cu_free(r->dStat);
  ga_cu_pinned_free(r->hStat);
  ga_cu_free(r->qAux);
  ga_cu_pinned_free(r->hAux);
  ga_cu_free(r->qTab);
  ga_cu_free(r->qRows);
  if( r->qReady ) cudaEventDestroy(r->qReady);
  if( r->qDone ) cudaEventDestroy(r->qDone);
  (void)cudaGetLastError();
  free(r);
}

void ga_dres_free(ga_dres *r){
  int i;
  if( r==0 ) return;
  for(i=0; i<GA_DEV_MAX; i++) resFree(i, r->d[i]);
  ga_stage_free(r->stage);
  free(r);
}

int64_t ga_dres_bytes(const ga_dres *p){
  int64_t n = 0;
  int i;
  for(i=0; p && i<GA_DEV_MAX; i++){
    const dRes *r = p->d[i];
    if( r ) n += r->nAux + r->nHAux + r->nTabBytes + r->nRows;
  }
  return n;
}

/* The buffers a program's read grows (grown()) given back, once the
** stream's work ended; its tables then are copied again at the next read. */
void ga_dres_trim(ga_dres *p){
  int i;
  for(i=0; p && i<GA_DEV_MAX; i++){
    dRes *r = p->d[i];
    if( r==0 ) continue;
    (void)ga_cu_set(i);
    (void)cudaStreamSynchronize(r->st);      /* (a failed device: the frees fail too, as in resFree) */
    ga_cu_free(r->qAux);
    ga_cu_pinned_free(r->hAux);
    ga_cu_free(r->qTab);
    ga_cu_free(r->qRows);
    r->qAux = r->hAux = r->qTab = r->qRows = 0;
    r->nAux = r->nHAux = r->nTabBytes = r->nRows = 0;
    r->tabId = 0;
    (void)cudaGetLastError();
  }
}

/* A new state on device dev, the current one (all of it, or none). */
static int resNew(int dev, dRes *r, char *zErr){
  ga_cu_blocks(dev, &r->nb, &r->nbExt);
  CK(ga_cu_stream(&r->st), "cudaStreamCreate (kept columns)");
  CK(FI(FAULT_DEVICE, cudaEventCreate(&r->e0)), "cudaEventCreate");
  CK(FI(FAULT_DEVICE, cudaEventCreate(&r->e1)), "cudaEventCreate");
  CK(FI(FAULT_DEVICE, cudaEventCreateWithFlags(&r->qReady, cudaEventDisableTiming)), "cudaEventCreate");
  CK(FI(FAULT_DEVICE, cudaEventCreateWithFlags(&r->qDone, cudaEventDisableTiming)), "cudaEventCreate");
  CK(ga_cu_alloc(&r->scratch, (size_t)(HIST_PIECE*8 > GROUP_PIECE*17 ? HIST_PIECE*8 : GROUP_PIECE*17)),
     "cudaMalloc (kept columns)");
  CK(ga_cu_alloc((void**)&r->dPart, sizeof(ga_sum)*(size_t)((r->nb > r->nbExt ? r->nb : r->nbExt) + 1)),
     "cudaMalloc (kept columns)");
  CK(ga_cu_alloc((void**)&r->dSqPart, sizeof(ga_sq)*(size_t)r->nb), "cudaMalloc (kept columns)");
  return 0;
}

/* The connection's state on device dev, made current; made at its first
** use there, with results for nStat columns. Starts a reduction there: its
** kernel time from here (resEnd). */
static int resOn(ga_dres **pp, int dev, int nStat, dRes **pr, char *zErr){
  dRes *r;
  if( *pp==0 && (*pp = calloc(1, sizeof(ga_dres)))==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  if( ga_cu_live(dev, zErr) ) return 1;
  if( (r = (*pp)->d[dev])==0 ){
    if( (r = calloc(1, sizeof(dRes)))==0 ){
      strcpy(zErr, "gpuagg: out of memory");
      return 1;
    }
    if( resNew(dev, r, zErr) ){
      resFree(dev, r);
      return 1;
    }
    (*pp)->d[dev] = r;
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
  CK(cudaEventRecord(r->e0, r->st), "cudaEventRecord");
  *pr = r;
  return 0;
}

/* After the reduction on dev is waited for: counted, with its kernel time. */
static void resEnd(dRes *r, int dev, ga_stats *stats){
  float ms;
  ga_cu_count(stats, dev, 0);
  if( cudaEventElapsedTime(&ms, r->e0, r->e1)==cudaSuccess ) ga_cu_ms(stats, dev, ms);
  (void)cudaGetLastError();
}

/* The extremes of part p's numbers into r->dStat[i].mn and .mx. */
static int extremes(dRes *r, const dPart *p, int i, char *zErr){
  int mode = p->nReal==0 ? GA_T_INT : p->nReal==p->nNum ? GA_T_REAL : 0;
  CK(FI(FAULT_LAUNCH, ga_ext_launch(p->num, p->bits, p->nNum, mode, 0, (ga_ext*)r->dPart, r->nbExt,
                                    &r->dStat[i].mn, r->st)), "the min/max kernel");
  CK(FI(FAULT_LAUNCH, ga_ext_launch(p->num, p->bits, p->nNum, mode, 1, (ga_ext*)r->dPart, r->nbExt,
                                    &r->dStat[i].mx, r->st)), "the min/max kernel");
  return 0;
}

/* Device dev's results of columns 0..n) on their way to the host. */
static int sendStats(dRes *r, int n, char *zErr){
  CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(r->hStat, r->dStat, sizeof(ga_stat)*(size_t)n, cudaMemcpyDeviceToHost, r->st)),
     "cudaMemcpyAsync (statistics)");
  return 0;
}

/* Wait for the work enqueued on every device in use[]. */
static int waitAll(ga_dres *pr, const int *use, ga_stats *stats, char *zErr){
  int i;
  for(i=0; i<GA_DEV_MAX; i++){
    if( !use[i] ) continue;
    CK(ga_cu_set(i), "cudaSetDevice");
    CK(FI(FAULT_SYNC, cudaStreamSynchronize(pr->d[i]->st)), "cudaStreamSynchronize (kept columns)");
    resEnd(pr->d[i], i, stats);
  }
  return 0;
}

/* Column c's parts' statistics, from each device's hStat[c], combined in
** row order into *out (2). */
static void gatherStat(ga_dres *pr, const ga_dcol *d, int c, ga_stat *out){
  int p;
  memset(out, 0, sizeof(*out));
  for(p=0; p<d->nPart; p++){
    ga_stat x;
    if( d->a[p].nNum==0 ) continue;
    x = pr->d[d->a[p].dev]->hStat[c];
    x.nInt = x.nReal = 0;              /* the caller counts */
    ga_stat_merge(out, &x, d->a[p].num0);
  }
}

int ga_dcol_stats(ga_dres **pp, ga_stats *stats, ga_dcol *const *a, int n, ga_stat *out, char *zErr){
  int use[GA_DEV_MAX] = {0}, c, p, i;
  dRes *r;
  for(c=0; c<n; c++){
    for(p=0; p<a[c]->nPart; p++){
      const dPart *q = &a[c]->a[p];
      if( !use[q->dev] && resOn(pp, q->dev, n, &r, zErr) ) return 1;
      use[q->dev] = 1;
      if( q->nNum==0 ) continue;
      CK(ga_cu_set(q->dev), "cudaSetDevice");
      r = (*pp)->d[q->dev];
      CK(FI(FAULT_LAUNCH, ga_sum_bits_launch(q->num, q->bits, q->nNum, r->dPart, r->nb, &r->dStat[c].sum, r->st)),
         "the sum kernel");
      CK(FI(FAULT_LAUNCH, ga_sq_launch(q->num, q->bits, q->nNum, r->dSqPart, r->nb, &r->dStat[c].sq, r->st)),
         "the squares kernel");
      if( extremes(r, q, c, zErr) ) return 1;
    }
  }
  for(i=0; i<GA_DEV_MAX; i++){
    if( !use[i] ) continue;
    CK(ga_cu_set(i), "cudaSetDevice");
    if( sendStats((*pp)->d[i], n, zErr) ) return 1;
  }
  if( waitAll(*pp, use, stats, zErr) ) return 1;
  for(c=0; c<n; c++) gatherStat(*pp, a[c], c, &out[c]);
  return 0;
}

int ga_dcol_range(ga_dres **pp, ga_stats *stats, ga_dcol *d, ga_ext *mn, ga_ext *mx, char *zErr){
  int use[GA_DEV_MAX] = {0}, p;
  ga_stat st;
  dRes *r;
  for(p=0; p<d->nPart; p++){
    if( resOn(pp, d->a[p].dev, 1, &r, zErr) ) return 1;
    use[d->a[p].dev] = 1;
    if( d->a[p].nNum && extremes(r, &d->a[p], 0, zErr) ) return 1;
    if( sendStats(r, 1, zErr) ) return 1;
  }
  if( waitAll(*pp, use, stats, zErr) ) return 1;
  gatherStat(*pp, d, 0, &st);
  *mn = st.mn;
  *mx = st.mx;
  return 0;
}

int ga_dcol_hist(ga_dres **pp, ga_stats *stats, ga_dcol *d, ga_hist *hist, char *zErr){
  size_t nb = sizeof(uint64_t)*(size_t)hist->h.bins;
  unsigned long long *counts[GA_DEV_MAX] = {0};
  uint64_t *tmp = malloc(nb*(size_t)d->nPart);
  cudaError_t e = cudaSuccess;
  const char *zWhat = "cudaMalloc (histogram)";
  int use[GA_DEV_MAX] = {0}, p, rc = 0;
  int64_t i;
  dRes *r;
  if( tmp==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  /* Every part counted on its device, into its own counts... */
  for(p=0; p<d->nPart && e==cudaSuccess && rc==0; p++){
    const dPart *q = &d->a[p];
    if( (rc = resOn(pp, q->dev, 1, &r, zErr))!=0 ) break;
    use[q->dev] = 1;
    e = ga_cu_alloc((void**)&counts[p], nb);
    if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemsetAsync(counts[p], 0, nb, r->st)))!=cudaSuccess ){
      zWhat = "cudaMemsetAsync";
    }
    for(i=0; e==cudaSuccess && i<q->nNum; i+=HIST_PIECE){
      int64_t k = q->nNum - i < HIST_PIECE ? q->nNum - i : HIST_PIECE;
      e = FI(FAULT_LAUNCH, ga_res_doubles_launch(q->num + i, q->bits + i/64, k, (double*)r->scratch, r->st));
      if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_hist_launch((const double*)r->scratch, k, &hist->h, counts[p], r->st));
      if( e!=cudaSuccess ) zWhat = "the histogram kernels";
    }
    if( e==cudaSuccess ) e = cudaEventRecord(r->e1, r->st);
    if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemcpyAsync(tmp + p*(size_t)hist->h.bins, counts[p], nb,
                                                           cudaMemcpyDeviceToHost, r->st)))!=cudaSuccess ){
      zWhat = "cudaMemcpyAsync (histogram)";
    }
  }
  /* ... then waited for, and added: counting commutes. */
  if( rc==0 && e!=cudaSuccess ) rc = ga_cu_fail(e, zWhat, zErr);
  if( rc==0 ) rc = waitAll(*pp, use, stats, zErr);
  for(p=0; rc==0 && p<d->nPart; p++){
    for(i=0; i<hist->h.bins; i++) hist->counts[i] += tmp[p*(size_t)hist->h.bins + i];
  }
  for(p=0; p<d->nPart; p++){
    if( counts[p]==0 ) continue;
    (void)ga_cu_set(d->a[p].dev);
    ga_cu_free(counts[p]);
  }
  free(tmp);
  return rc;
}

int ga_dcol_group(ga_dres **pp, ga_stats *stats, ga_dcol *k, ga_dcol *v, int64_t nGroup, int places, ga_group *g,
                  char *zErr){
  int use[GA_DEV_MAX] = {0}, p;
  dRes *r;
  for(p=0; p<k->nPart; p++){                /* split alike, or not served: no failure */
    if( k->nPart!=v->nPart || k->a[p].dev!=v->a[p].dev || k->a[p].row0!=v->a[p].row0 || k->a[p].n!=v->a[p].n ){
      return GA_DEV_SCAN;
    }
  }
  for(p=0; p<k->nPart; p++){
    const dPart *a = &k->a[p], *b = &v->a[p];
    if( resOn(pp, a->dev, 1, &r, zErr) ) return 1;
    use[a->dev] = 1;
    /* The scratch is the connection stream's: wait for its last user. */
    CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (kept columns)");
    if( ga_cu_group_resident(g, a->dev, a->row0, a->rowV, a->rowC, b->rowV, b->rowC, b->dictNum, b->dictReal, places,
                             a->n, nGroup, r->scratch, GROUP_PIECE, r->e0, r->e1, zErr) ) return 1;
  }
  /* Every device folds its part; then each is waited for. */
  for(p=0; p<GA_DEV_MAX; p++){
    if( !use[p] ) continue;
    CK(ga_cu_set(p), "cudaSetDevice");
    CK(FI(FAULT_SYNC, cudaEventSynchronize((*pp)->d[p]->e1)), "cudaEventSynchronize (grouping)");
    resEnd((*pp)->d[p], p, stats);
  }
  return 0;
}

/* The keys of a kept column's numbers, part by part, on the device of its
** first part (3). */
typedef struct PartKeys { const ga_dcol *d; ga_dres **pp; } PartKeys;
static int partKeys(void *pArg, uint64_t *dKeys, cudaStream_t st, char *zErr){
  PartKeys *k = (PartKeys*)pArg;
  const ga_dcol *d = k->d;
  int dev = d->a[0].dev, p;
  for(p=0; p<d->nPart; p++){
    const dPart *q = &d->a[p];
    uint64_t *tmp = 0;
    cudaError_t e;
    dRes *r;
    if( q->nNum==0 ) continue;
    if( q->dev==dev ){
      CK(FI(FAULT_LAUNCH, ga_keys_launch(q->num, q->bits, q->nNum, dKeys + q->num0, st)), "the keys kernel");
      continue;
    }
    ga_cu_peer(dev, q->dev);
    if( resOn(k->pp, q->dev, 1, &r, zErr) ) return 1;
    e = ga_cu_alloc((void**)&tmp, sizeof(uint64_t)*(size_t)q->nNum);
    if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_keys_launch(q->num, q->bits, q->nNum, tmp, r->st));
    if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(r->st));
    if( e==cudaSuccess ) e = ga_cu_set(dev);
    if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyPeerAsync(dKeys + q->num0, dev, tmp, q->dev,
                                                             sizeof(uint64_t)*(size_t)q->nNum, st));
    if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(st));
    (void)ga_cu_set(q->dev);
    ga_cu_free(tmp);
    (void)ga_cu_set(dev);
    if( e!=cudaSuccess ) return ga_cu_fail(e, "gathering a kept column's keys", zErr);
  }
  return 0;
}

int ga_dcol_ranks(ga_dres **pp, ga_stats *stats, ga_dcol *d, const int64_t *rank, int nRank, uint64_t *out,
                  char *zErr){
  PartKeys k;
  int64_t nNum = d->a[d->nPart-1].num0 + d->a[d->nPart-1].nNum;
  k.d = d;
  k.pp = pp;
  return ga_cuda_ranks_dev(d->a[0].dev, nNum, partKeys, &k, rank, nRank, out, stats, zErr);
}

/* Sign of a - b for two numbers (an int64, or a double's bits where isReal)
** as SQL compares them: exactly, integers against reals too. */
static int numCmp(int64_t a, int aReal, int64_t b, int bReal){
  double x, y;
  int64_t t;
  if( aReal && !bReal ) return -numCmp(b, 0, a, 1);
  if( !aReal && !bReal ) return a<b ? -1 : a>b;
  memcpy(&y, &b, sizeof(y));
  if( aReal ){
    memcpy(&x, &a, sizeof(x));
    return x<y ? -1 : x>y;
  }
  if( y>=9223372036854775808.0 ) return -1;
  if( y<-9223372036854775808.0 ) return 1;
  t = (int64_t)y;
  if( a!=t ) return a<t ? -1 : 1;
  return (double)t<y ? -1 : (double)t>y;
}

typedef struct BigNum { int64_t v; int real; } BigNum;
static int cmpBig(const void *pa, const void *pb){
  const BigNum *a = (const BigNum*)pa, *b = (const BigNum*)pb;
  return numCmp(a->v, a->real, b->v, b->real);
}

int ga_dcol_distinct(ga_dres **pp, ga_stats *stats, ga_dcol *d, int64_t *pn, char *zErr){
  const dPart *q = &d->a[0];
  uint64_t *dIn = 0, *dOut = 0;
  int64_t *dBig = 0, nNum = q->nNum, i;
  unsigned char *dBigReal = 0, *hReal = 0;
  unsigned long long *dCnt = 0, hCnt[2];
  void *dTemp = 0;
  size_t tb = 0;
  BigNum *big = 0;
  cudaError_t e;
  const char *zWhat = "cudaMalloc (distinct)";
  int rc = 0;
  dRes *r;
  *pn = 0;
  if( d->nPart>1 || nNum>INT_MAX ) return GA_DEV_SCAN;
  if( nNum==0 ) return 0;
  if( resOn(pp, q->dev, 1, &r, zErr) ) return 1;
  e = ga_sort_keys(0, &tb, 0, 0, (int)nNum, 0);
  if( e!=cudaSuccess ) zWhat = "cub::DeviceRadixSort (scratch size)";
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&dIn, sizeof(uint64_t)*(size_t)nNum);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&dOut, sizeof(uint64_t)*(size_t)nNum);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&dBig, sizeof(int64_t)*(size_t)nNum);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&dBigReal, (size_t)nNum);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&dCnt, 2*sizeof(unsigned long long));
  if( e==cudaSuccess ) e = ga_cu_alloc(&dTemp, tb ? tb : 1);
  if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemsetAsync(dCnt, 0, 2*sizeof(unsigned long long), r->st)))!=cudaSuccess ){
    zWhat = "cudaMemsetAsync (distinct)";
  }
  if( e==cudaSuccess && (e = FI(FAULT_LAUNCH, ga_distinct_keys_launch(q->num, q->bits, nNum, dIn, dBig, dBigReal,
                                                                      dCnt, r->st)))!=cudaSuccess ){
    zWhat = "the distinct keys kernel";
  }
  if( e==cudaSuccess && (e = FI(FAULT_LAUNCH, ga_sort_keys(dTemp, &tb, dIn, dOut, (int)nNum, r->st)))!=cudaSuccess ){
    zWhat = "cub::DeviceRadixSort";
  }
  if( e==cudaSuccess && (e = FI(FAULT_LAUNCH, ga_distinct_count_launch(dOut, nNum, dCnt + 1, r->st)))!=cudaSuccess ){
    zWhat = "the distinct count kernel";
  }
  if( e==cudaSuccess && (e = cudaEventRecord(r->e1, r->st))!=cudaSuccess ) zWhat = "cudaEventRecord";
  if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemcpyAsync(hCnt, dCnt, sizeof(hCnt), cudaMemcpyDeviceToHost,
                                                         r->st)))!=cudaSuccess ){
    zWhat = "cudaMemcpyAsync (distinct)";
  }
  if( e==cudaSuccess && (e = FI(FAULT_SYNC, cudaStreamSynchronize(r->st)))!=cudaSuccess ){
    zWhat = "cudaStreamSynchronize (kept columns)";
  }
  /* The numbers beyond 2^53, compared here. */
  if( e==cudaSuccess && hCnt[0] ){
    int64_t nBig = (int64_t)hCnt[0];
    int64_t *hv = malloc(sizeof(int64_t)*(size_t)nBig);
    hReal = malloc((size_t)nBig);
    big = malloc(sizeof(BigNum)*(size_t)nBig);
    if( hv==0 || hReal==0 || big==0 ){
      free(hv);
      strcpy(zErr, "gpuagg: out of memory");
      rc = SQLITE_NOMEM;                /* the host's, not the device's */
    }else{
      e = FI(FAULT_COPY, cudaMemcpy(hv, dBig, sizeof(int64_t)*(size_t)nBig, cudaMemcpyDeviceToHost));
      if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpy(hReal, dBigReal, (size_t)nBig, cudaMemcpyDeviceToHost));
      if( e!=cudaSuccess ) zWhat = "cudaMemcpy (distinct)";
      for(i=0; e==cudaSuccess && i<nBig; i++){
        big[i].v = hv[i];
        big[i].real = hReal[i];
      }
      free(hv);
      if( e==cudaSuccess ){
        qsort(big, (size_t)nBig, sizeof(BigNum), cmpBig);
        for(i=0; i<nBig; i++) hCnt[1] += i==0 || cmpBig(&big[i-1], &big[i])!=0;
      }
    }
  }
  if( rc==0 && e==cudaSuccess ){
    resEnd(r, q->dev, stats);
    *pn = (int64_t)hCnt[1];
  }
  free(big);
  free(hReal);
  (void)ga_cu_set(q->dev);
  ga_cu_free(dTemp);
  ga_cu_free(dCnt);
  ga_cu_free(dBigReal);
  ga_cu_free(dBig);
  ga_cu_free(dOut);
  ga_cu_free(dIn);
  if( rc ) return rc;
  return e==cudaSuccess ? 0 : ga_cu_fail(e, zWhat, zErr);
}

/* ---- gpu_query's programs (backend.h's xQuery) ------------------------------------ */

#define QROWS_BYTES ((int64_t)1 << 30)   /* grouping rows made at a time, at most */
#define QROWS_UNKNOWN ((int64_t)1 << 20) /* ... rows, where a program's groups are not known */

/* Buffer *pp (device memory, or pinned host memory) of at least n bytes. */
static int grown(void **pp, int64_t *pHave, int64_t n, int pinned, char *zErr){
  if( *pHave>=n ) return 0;
  if( pinned ) ga_cu_pinned_free(*pp); else ga_cu_free(*pp);
  *pp = 0;
  *pHave = 0;
  CK(pinned ? ga_cu_pinned(pp, (size_t)n) : ga_cu_alloc(pp, (size_t)n), pinned ? "cudaHostAlloc (query)" : "cudaMalloc (query)");
  *pHave = n;
  return 0;
}

/* The groups a numeric key can make, from the range pass's keyStat (least
** and greatest integer keys, count of other keys not NULL): every integer
** in the range, NULL and the dropped rows' group; 0 (not known) where
** other keys were met or the range is not below the rows. */
static int64_t keyRange(const int64_t *keyStat, int64_t nRow){
  uint64_t span;
  if( keyStat[2] ) return 0;
  if( keyStat[1]<keyStat[0] ) return 2;                       /* no integer key */
  span = (uint64_t)keyStat[1] - (uint64_t)keyStat[0];      /* wraps to the true span */
  if( span>=(uint64_t)nRow ) return 0;
  return (int64_t)span + 3;
}

/* A number key's codes (query.cu, 10) for the range qRange found: every
** integer key from *pLo on a code, then NULL's; 0 where a key is of
** another class (a REAL, not integral) or the keys spread over more codes
** than the rows could fill (2 a row, and 65,536: the rows' path then, its
** table sized for the groups). */
static int64_t keyCodes(const int64_t *keyStat, int64_t nRow, int64_t *pLo){
  uint64_t span;
  *pLo = 0;
  if( keyStat[2] ) return 0;
  if( keyStat[1]<keyStat[0] ) return 1;                       /* NULL's code alone */
  span = (uint64_t)keyStat[1] - (uint64_t)keyStat[0];      /* wraps to the true span */
  if( span>=(uint64_t)GA_QGROUP_MAPPED - 1 || span + 2>2*(uint64_t)nRow + 65536 ) return 0;
  *pLo = keyStat[0];
  return (int64_t)span + 2;
}

/*
** The program and its tables go to the device with one copy; a first pass
** finds each fold's reals' exponents, so that its window is chosen for all
** of them (or the device declines: GA_DEV_SCAN), unless the caller knows
** the windows already (jbSure), and a numeric key's range, so that the
** groups' table is sized for the keys, not the rows (avg(distance) by
** distance, 12M rows, 2,726 groups: a table for a million rows a piece,
** made and compacted each query, took most of 4.1 ms); then pieces of rows are
** made and folded, every fold on its own table's stream, the next piece
** waiting for the folds of the last. One device: a column split across
** devices is not served here.
*/
/* A program's place in r's aux buffers (pinned host, and device): the
** program, its columns' pointers (classes, then values), its tables (where
** they are not kept in r->qTab), then what the caller keeps there (from
** oMore); and where the kernels find the tables (tabC, tabV). */
typedef struct Aux { int64_t oProg, oCols, oTabC, oTabV, oMore; const unsigned char *tabC; const int64_t *tabV; } Aux;

/* The device and state that serve p over columns a (nRow rows each), made
** current, and its program, pointers and tables staged at h (the copy to
** d is the caller's, with what it adds from x->oMore, nMore bytes). A
** program whose tables have an identity (p->tabId) finds them in r->qTab
** if the last run that ended well had them (tabsKept), else copies them
** there: a repeated read copies only its program. 0; GA_DEV_SCAN where a
** column is split across devices or on another device than the first; 1
** with zErr. */
static int progStage(ga_dres **pp, const ga_qprog *p, const ga_qcol *a, int64_t nRow, const unsigned char *tabC,
                     const int64_t *tabV, int64_t nTab, int64_t nMore, Aux *x, dRes **pr, int *pDev, char *zErr){
  int dev = a[0].d->a[0].dev, c, held = nTab>0 && p->tabId!=0;
  unsigned char *h;
  dRes *r;
  for(c=0; c<p->nCol; c++){
    if( a[c].d==0 || a[c].d->nPart!=1 || a[c].d->a[0].dev!=dev || a[c].d->n!=nRow ) return GA_DEV_SCAN;
  }
  x->oProg = 0;
  x->oCols = up16(sizeof(ga_qprog));
  x->oTabC = x->oCols + 16*GA_QCOL;
  x->oTabV = x->oTabC + up16(held || nTab==0 ? 1 : nTab);
  x->oMore = up16(x->oTabV + 8*(held || nTab==0 ? 1 : nTab));
  if( resOn(pp, dev, 1, &r, zErr) ) return 1;
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
  if( grown(&r->qAux, &r->nAux, x->oMore + nMore, 0, zErr) ) return 1;
  if( grown(&r->hAux, &r->nHAux, x->oMore + nMore, 1, zErr) ) return 1;
  h = (unsigned char*)r->hAux;
  memcpy(h + x->oProg, p, sizeof(ga_qprog));
  for(c=0; c<p->nCol; c++){
    memcpy(h + x->oCols + 8*c, &a[c].d->a[0].rowC, 8);
    memcpy(h + x->oCols + 8*GA_QCOL + 8*c, &a[c].d->a[0].rowV, 8);
  }
  x->tabC = (const unsigned char*)r->qAux + x->oTabC;
  x->tabV = (const int64_t*)((const unsigned char*)r->qAux + x->oTabV);
  if( held ){
    int64_t oV = up16(nTab);
    if( r->tabId!=p->tabId ){
      r->tabId = 0;
      if( grown(&r->qTab, &r->nTabBytes, oV + 8*nTab, 0, zErr) ) return 1;
      CK(FI(FAULT_COPY, cudaMemcpyAsync(r->qTab, tabC, (size_t)nTab, cudaMemcpyHostToDevice, r->st)),
         "cudaMemcpyAsync (query tables)");
      CK(FI(FAULT_COPY, cudaMemcpyAsync((unsigned char*)r->qTab + oV, tabV, 8*(size_t)nTab, cudaMemcpyHostToDevice,
                                        r->st)), "cudaMemcpyAsync (query tables)");
    }
    x->tabC = (const unsigned char*)r->qTab;
    x->tabV = (const int64_t*)((const unsigned char*)r->qTab + oV);
  }else if( nTab ){
    memcpy(h + x->oTabC, tabC, (size_t)nTab);
    memcpy(h + x->oTabV, tabV, 8*(size_t)nTab);
  }
  *pr = r;
  *pDev = dev;
  return 0;
}

/* After a run of p that ended well (its stream waited for): r->qTab holds
** p's tables for the next run. */
static void tabsKept(dRes *r, const ga_qprog *p, int64_t nTab){
  if( nTab>0 ) r->tabId = p->tabId;
}

/* The m groups finished on the device (out: fold f's group i at f*m + i)
** copied back into each fold's g[f] (their rows and first rows fold 0's,
** as the finish kernel made them). Non-zero: failed (zErr). */
static int groupsBack(dRes *r, const ga_qprog *p, const ga_grow *out, int64_t m, ga_group *const *g, char *zErr){
  ga_grow *res;
  int f;
  if( (res = malloc(sizeof(ga_grow)*(size_t)(m*p->nFold + 1)))==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  if( m ){
    cudaError_t e = FI(FAULT_COPY, cudaMemcpyAsync(res, out, sizeof(ga_grow)*(size_t)(m*p->nFold), cudaMemcpyDeviceToHost, r->st));
    if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(r->st));
    if( e!=cudaSuccess ){
      free(res);
      return ga_cu_fail(e, "cudaMemcpyAsync (query groups)", zErr);
    }
  }
  /* fold 0's rows as they are; each other fold's copied out of them */
  for(f=p->nFold - 1; f>=0; f--){
    if( f==0 ){
      g[0]->res = res;
    }else if( (g[f]->res = malloc(sizeof(ga_grow)*(size_t)(m ? m : 1)))==0 ){
      strcpy(zErr, "gpuagg: out of memory");
      free(res);
      return 1;
    }else if( m ){
      memcpy(g[f]->res, res + f*m, sizeof(ga_grow)*(size_t)m);
    }
    g[f]->nRes = m;
  }
  return 0;
}

/* groupsBack for one fold with HAVING's conditions (g[0]->have): the m
** groups at out that may meet them picked on the device first (as
** cuda_group.c picks a table's), so that only those cross the bus (TPC-H
** Q18's IN keeps 71 of 1.5M groups at scale factor 1). word: a pinned 8
** bytes.
** Non-zero: failed (zErr). */
static int groupsPicked(dRes *r, const ga_qprog *p, const ga_grow *out, int64_t m, ga_group *const *g, int64_t *word,
                        char *zErr){
  ga_grow *kept = 0;
  void *temp = 0;
  size_t tb = 0;
  int64_t n = 0;
  int rc;
  cudaError_t e;
  assert( p->nFold==1 && g[0]->have.n>0 );
  if( m==0 ) return groupsBack(r, p, out, 0, g, zErr);
  e = ga_group_keep(0, &tb, out, m, &g[0]->have, 0, 0, r->st);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&kept, sizeof(ga_grow)*(size_t)m + 16);
  if( e==cudaSuccess ) e = ga_cu_alloc(&temp, tb + 1);
  if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_group_keep(temp, &tb, out, m, &g[0]->have, kept, (int64_t*)(kept + m),
                                                       r->st));
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(word, kept + m, 8, cudaMemcpyDeviceToHost, r->st));
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(r->st));
  if( e==cudaSuccess ){
    n = *word;
    if( n<0 || n>m ) e = cudaErrorUnknown;                 /* (never) */
  }
  rc = e==cudaSuccess ? groupsBack(r, p, kept, n, g, zErr) : ga_cu_fail(e, "picking the groups", zErr);
  ga_cu_free(kept);
  ga_cu_free(temp);
  return rc;
}

/* The m finished groups at out back to g: picked first where one fold has
** HAVING's conditions. */
static int groupsOut(dRes *r, const ga_qprog *p, const ga_grow *out, int64_t m, ga_group *const *g, int64_t *word,
                     char *zErr){
  if( p->nFold==1 && g[0]->have.n>0 ) return groupsPicked(r, p, out, m, g, word, zErr);
  return groupsBack(r, p, out, m, g, zErr);
}

/* The least key of a number key's codes, as the run's program has it
** (ga_dcol_query sets it in the staged copy: query.cu, 10). */
static int64_t keyLoOf(const dRes *r, const Aux *x){
  return ((const ga_qprog*)((const unsigned char*)r->hAux + x->oProg))->keyLo;
}

/* A device pointer past p, rounded up to 16 bytes (CUB's scratch). */
static void *align16(void *p){ return (unsigned char*)p + (16 - ((uintptr_t)p & 15)) % 16; }

/* Keys by code, more codes than a table copied back whole would be worth
** (TPC-H Q3's and Q10's at SF 1: a joined table's rows): folded into the
** grid's table by code (query.cu, 7), the codes with rows picked there in
** order and their groups finished there (8), only those copied back (hCnt:
** two pinned words). Non-zero: failed (zErr). */
static int sparseGroups(dRes *r, const ga_qprog *p, const Aux *x, const ga_qcol *a, int64_t nRow, int64_t nGroup,
                        const int *aJb, int *hCnt, ga_group *const *g, char *zErr){
  unsigned char *d = (unsigned char*)r->qAux;
  int64_t nAcc = nGroup*p->nFold;
  size_t tb = 0;
  ga_gacc *tab;
  ga_grow *out;
  uint32_t *codes;
  int *cnt;
  if( nGroup>INT_MAX ) return GA_DEV_SCAN;
  CK(ga_query_pick(0, &tb, 0, (int)nGroup, 0, 0, r->st), "cub::DeviceSelect (scratch size)");
  if( grown(&r->qRows, &r->nRows, (int64_t)(sizeof(ga_gacc) + sizeof(ga_grow))*nAcc + 4*nGroup + 16 + (int64_t)tb + 64,
            0, zErr) ) return 1;
  tab = (ga_gacc*)r->qRows;
  out = (ga_grow*)(tab + nAcc);
  codes = (uint32_t*)(out + nAcc);
  cnt = (int*)(codes + nGroup);                       /* the codes picked, the codes past nGroup */
  CK(FI(FAULT_COPY, cudaMemsetAsync(tab, 0, sizeof(ga_gacc)*(size_t)nAcc, r->st)), "cudaMemsetAsync (query)");
  CK(FI(FAULT_COPY, cudaMemsetAsync(cnt, 0, 8, r->st)), "cudaMemsetAsync (query)");
  CK(FI(FAULT_LAUNCH, ga_query_group_launch((const ga_qprog*)(d + x->oProg), p, (const unsigned char *const*)(d + x->oCols),
                                            (const int64_t *const*)(d + x->oCols + 8*GA_QCOL), x->tabC, x->tabV, nRow,
                                            a[0].d->a[0].row0, aJb, nGroup, tab, cnt + 1, r->st)),
     "the query kernel (groups by code)");
  CK(FI(FAULT_LAUNCH, ga_query_pick(align16(cnt + 4), &tb, tab, (int)nGroup, codes, cnt, r->st)), "cub::DeviceSelect (groups)");
  CK(FI(FAULT_LAUNCH, ga_query_finish_launch(tab, nGroup, p->nFold, aJb, codes, cnt, 0, keyLoOf(r, x),
                                             p->keyNum ? nGroup - 1 : -1, out, r->st)),
     "the query kernel (groups finished)");
  CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(hCnt, cnt, 8, cudaMemcpyDeviceToHost, r->st)), "cudaMemcpyAsync (query)");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
  if( hCnt[1] || hCnt[0]<0 || hCnt[0]>nGroup ){      /* (never, by the rule above) */
    strcpy(zErr, "gpuagg: a group's code past the program's groups");
    return 1;
  }
  return groupsOut(r, p, out, hCnt[0], g, (int64_t*)(hCnt + 2), zErr);
}

/* Keys by code, too many codes for an accumulator each (TPC-H Q3 and Q10
** at SF 10: 15M and 37.5M; query.cu, 9): the codes with rows marked and
** picked in order, the rows folded at their code's place among them, the
** places finished there and copied back. The buffer holds the flags, the
** codes, the map, the counts, CUB's scratch, then the groups' accumulators
** and results; the groups are known only after the marking, so where the
** buffer is too small for them it is made larger and the marking done
** again (once: the same rows mark the same codes; a repeated read finds it
** large enough). GA_DEV_SCAN where the groups' accumulators would pass
** mapBytes (the rows' path folds them instead). Non-zero: failed (zErr). */
static int mappedGroups(dRes *r, const ga_qprog *p, const Aux *x, const ga_qcol *a, int64_t nRow, int64_t nCode,
                        const int *aJb, int *hCnt, ga_group *const *g, char *zErr){
  const int64_t mapBytes = (int64_t)1 << 33;          /* 8 GiB of accumulators and results, at most */
  const int64_t perGroup = (int64_t)(sizeof(ga_gacc) + sizeof(ga_grow))*p->nFold;
  const unsigned char *const *colC;
  const int64_t *const *colV;
  unsigned char *d = (unsigned char*)r->qAux, *flag;
  int64_t oCodes, oMap, oCnt, oTab, m = 0, pass;
  size_t tb = 0;
  ga_gacc *tab;
  uint32_t *codes, *map;
  int *cnt;
  if( nCode>GA_QGROUP_MAPPED ) return GA_DEV_SCAN;
  colC = (const unsigned char *const*)(d + x->oCols);
  colV = (const int64_t *const*)(d + x->oCols + 8*GA_QCOL);
  CK(ga_query_pick_flags(0, &tb, 0, (int)nCode, 0, 0, r->st), "cub::DeviceSelect (scratch size)");
  oCodes = up16(nCode);
  oMap = oCodes + up16(4*nCode);
  oCnt = oMap + up16(4*nCode);
  oTab = up16(oCnt + 32 + (int64_t)tb);
  for(pass=0; pass<2; pass++){
    if( grown(&r->qRows, &r->nRows, oTab + perGroup*m, 0, zErr) ) return 1;
    flag = (unsigned char*)r->qRows;
    codes = (uint32_t*)(flag + oCodes);
    map = (uint32_t*)(flag + oMap);
    cnt = (int*)(flag + oCnt);                        /* the codes picked, the codes past nCode or not marked */
    CK(FI(FAULT_COPY, cudaMemsetAsync(flag, 0, (size_t)nCode, r->st)), "cudaMemsetAsync (query)");
    CK(FI(FAULT_COPY, cudaMemsetAsync(cnt, 0, 8, r->st)), "cudaMemsetAsync (query)");
    CK(FI(FAULT_LAUNCH, ga_query_mark_launch((const ga_qprog*)(d + x->oProg), p, colC, colV, x->tabC, x->tabV, nRow, nCode,
                                             flag, cnt + 1, r->st)), "the query kernel (codes marked)");
    CK(FI(FAULT_LAUNCH, ga_query_pick_flags(align16(cnt + 4), &tb, flag, (int)nCode, codes, cnt, r->st)),
       "cub::DeviceSelect (codes)");
    CK(FI(FAULT_LAUNCH, ga_query_map_launch(codes, cnt, map, r->st)), "the query kernel (codes' places)");
    CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
    CK(FI(FAULT_COPY, cudaMemcpyAsync(hCnt, cnt, 8, cudaMemcpyDeviceToHost, r->st)), "cudaMemcpyAsync (query)");
    CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
    if( hCnt[1] || hCnt[0]<0 || hCnt[0]>nCode ){       /* (never, by the rule above) */
      strcpy(zErr, "gpuagg: a group's code past the program's groups");
      return 1;
    }
    m = hCnt[0];
    if( m==0 ) return groupsBack(r, p, 0, 0, g, zErr);
    if( perGroup*m>mapBytes ) return GA_DEV_SCAN;
    if( r->nRows>=oTab + perGroup*m ) break;
  }
  if( r->nRows<oTab + perGroup*m ){                  /* (never: the second marking's are the first's) */
    strcpy(zErr, "gpuagg: the codes marked changed between two markings");
    return 1;
  }
  tab = (ga_gacc*)((unsigned char*)r->qRows + oTab);
  CK(FI(FAULT_COPY, cudaMemsetAsync(tab, 0, sizeof(ga_gacc)*(size_t)(m*p->nFold), r->st)), "cudaMemsetAsync (query)");
  CK(FI(FAULT_LAUNCH, ga_query_group_mapped_launch((const ga_qprog*)(d + x->oProg), p, colC, colV, x->tabC, x->tabV, nRow,
                                                   a[0].d->a[0].row0, aJb, nCode, map, codes, m, tab, cnt + 1, r->st)),
     "the query kernel (groups by place)");
  CK(FI(FAULT_LAUNCH, ga_query_finish_launch(tab, m, p->nFold, aJb, codes, cnt, 1, keyLoOf(r, x),
                                             p->keyNum ? nCode - 1 : -1, (ga_grow*)(tab + m*p->nFold), r->st)),
     "the query kernel (groups finished)");
  CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(hCnt, cnt, 8, cudaMemcpyDeviceToHost, r->st)), "cudaMemcpyAsync (query)");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
  if( hCnt[1] || hCnt[0]!=m ){                        /* (never: the same rows as the marking's) */
    strcpy(zErr, "gpuagg: a group's code not among those marked");
    return 1;
  }
  return groupsOut(r, p, (ga_grow*)(tab + m*p->nFold), m, g, (int64_t*)(hCnt + 2), zErr);
}

int ga_dcol_query(ga_dres **pp, ga_stats *stats, const ga_qprog *p, const ga_qcol *a, int64_t nRow,
                  const unsigned char *tabC, const int64_t *tabV, int64_t nTab, ga_group *const *g, char *zErr){
  Aux x;
  int64_t oProg, oCols, oRange, oKey, oOne, nAux, i, piece, rowBytes, nGroup = p->nGroup;
  int one = p->nKey==0 && p->nFold>=1 && p->nFold<=GA_QONE && nRow<GA_CARRY_ROWS, anyReal = 0;
  /* keys' codes below nGroup (query.cu, 7): compile.c bounds them by the product of the keys' ids, or by the rows
  ** plus 2 where that is less (then a code may pass it: not this path) */
  int byCode = p->nKey>0 && !p->keyNum && nGroup>0 && nGroup<nRow + 2 && nRow<GA_CARRY_ROWS;
  int direct = byCode && nGroup*p->nFold<=GA_QGROUP_MAX;
  /* ... many codes: the groups there are picked on the device (sparseGroups) */
  int sparse = byCode && !direct && nGroup*p->nFold<=GA_QGROUP_SPARSE;
  /* ... more: only those with rows get accumulators (mappedGroups) */
  int mapped = byCode && !direct && !sparse && nGroup<=GA_QGROUP_MAPPED;
  /* a number key's range: its codes (keyCodes), or the table's size (keyRange); not
  ** where an earlier run found the codes */
  int wantKey = p->keyNum && p->nCode==0;
  int64_t *keyStat, nCode = p->keyNum ? p->nCode : 0, keyLo = p->keyLo;
  int dev, f, rc;
  unsigned char *h, *d;
  int *range;
  dRes *r;
  if( nRow<=0 ) return GA_DEV_SCAN;
  /* room for the one-group accumulators (zeroed and copied up by every path), or for the groups by code */
  if( (rc = progStage(pp, p, a, nRow, tabC, tabV, nTab, up16(12*GA_QFOLD) + 32 + 16
                        + (int64_t)sizeof(ga_gacc)*(direct && nGroup*p->nFold>GA_QONE ? nGroup*p->nFold : GA_QONE),
                      &x, &r, &dev, zErr))!=0 ) return rc;
  oProg = x.oProg; oCols = x.oCols;
  oRange = x.oMore; oKey = oRange + up16(12*GA_QFOLD); oOne = oKey + 32;
  nAux = oOne + (int64_t)sizeof(ga_gacc)*GA_QONE;
  h = (unsigned char*)r->hAux;
  d = (unsigned char*)r->qAux;
  range = (int*)(h + oRange);
  for(f=0; f<p->nFold; f++){ range[3*f] = 0x7ff; range[3*f + 1] = -1; range[3*f + 2] = 0; }
  keyStat = (int64_t*)(h + oKey);
  keyStat[0] = INT64_MAX;
  keyStat[1] = INT64_MIN;
  keyStat[2] = 0;
  memset(h + oOne, 0, sizeof(ga_gacc)*GA_QONE);
  CK(FI(FAULT_COPY, cudaMemcpyAsync(d, h, (size_t)nAux, cudaMemcpyHostToDevice, r->st)), "cudaMemcpyAsync (query)");
  /* the reals' range, by fold, where a fold may hold reals and its window
  ** is not known already */
  for(f=0; f<p->nFold; f++) anyReal |= p->foldReal[f] && !g[f]->jbSure;
  if( anyReal || wantKey ){
    CK(FI(FAULT_LAUNCH, ga_query_range_launch((const ga_qprog*)(d + oProg), p->nReg, (const unsigned char *const*)(d + oCols),
                                              (const int64_t *const*)(d + oCols + 8*GA_QCOL), x.tabC, x.tabV, nRow, (int*)(d + oRange),
                                              wantKey ? (int64_t*)(d + oKey) : 0, r->st)),
       "the query range kernel");
    CK(FI(FAULT_COPY, cudaMemcpyAsync(range, d + oRange, oOne - oRange, cudaMemcpyDeviceToHost, r->st)),
       "cudaMemcpyAsync (query range)");
    CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
    if( wantKey && nGroup==0 ) nGroup = keyRange(keyStat, nRow);
    if( wantKey && nRow<GA_CARRY_ROWS ) nCode = keyCodes(keyStat, nRow, &keyLo);
  }
  for(f=0; anyReal && f<p->nFold; f++){
    if( g[f]->jbSure ) continue;
    g[f]->jb = -1;
    if( range[3*f + 2] ) return GA_DEV_SCAN;                  /* ±Inf: the host sums those */
    if( range[3*f + 1]>=0 && !ga_group_window_all(range[3*f], range[3*f + 1], &g[f]->jb) ) return GA_DEV_SCAN;
  }
  if( one ){
    /* no keys, few folds: folded where evaluated (query.cu, 5) */
    int aJb[GA_QONE];
    ga_gacc *acc = (ga_gacc*)(h + oOne);
    for(f=0; f<p->nFold; f++) aJb[f] = g[f]->jb;
    CK(FI(FAULT_LAUNCH, ga_query_one_launch((const ga_qprog*)(d + oProg), p, (const unsigned char *const*)(d + oCols),
                                            (const int64_t *const*)(d + oCols + 8*GA_QCOL), x.tabC, x.tabV, nRow, a[0].d->a[0].row0, aJb,
                                            (ga_gacc*)(d + oOne), 0, r->st)), "the query kernel (one group)");
    CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
    CK(FI(FAULT_COPY, cudaMemcpyAsync(acc, d + oOne, sizeof(ga_gacc)*(size_t)p->nFold, cudaMemcpyDeviceToHost, r->st)),
       "cudaMemcpyAsync (query)");
    CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
    for(f=0; f<p->nFold; f++){
      if( (g[f]->res = malloc(sizeof(ga_grow)))==0 ){
        strcpy(zErr, "gpuagg: out of memory");
        return 1;
      }
      acc[f].rows = acc[0].rows;             /* the rows and first row are fold 0's */
      acc[f].first = acc[0].first;
      ga_group_finish(&acc[f], 0, g[f]->jb, 0, g[f]->res);
      g[f]->nRes = acc[0].rows ? 1 : 0;
    }
    ga_cu_count(stats, dev, nAux);
    tabsKept(r, p, nTab);
    resEnd(r, dev, stats);
    return 0;
  }
  if( direct ){
    /* dictionary keys, few groups: folded where evaluated into a table by
    ** code (query.cu, 7), finished here in the codes' order */
    int64_t nAcc = nGroup*p->nFold, code;
    int aJb[GA_QFOLD], *bad;
    ga_gacc *acc = (ga_gacc*)(h + oOne);
    for(f=0; f<p->nFold; f++) aJb[f] = g[f]->jb;
    if( grown(&r->qRows, &r->nRows, (int64_t)sizeof(ga_gacc)*nAcc + 16, 0, zErr) ) return 1;
    CK(FI(FAULT_COPY, cudaMemsetAsync(r->qRows, 0, sizeof(ga_gacc)*(size_t)nAcc + 16, r->st)), "cudaMemsetAsync (query)");
    CK(FI(FAULT_LAUNCH, ga_query_group_launch((const ga_qprog*)(d + oProg), p, (const unsigned char *const*)(d + oCols),
                                              (const int64_t *const*)(d + oCols + 8*GA_QCOL), x.tabC, x.tabV, nRow,
                                              a[0].d->a[0].row0, aJb, nGroup, (ga_gacc*)r->qRows,
                                              (int*)((unsigned char*)r->qRows + sizeof(ga_gacc)*(size_t)nAcc), r->st)),
       "the query kernel (groups by code)");
    CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
    CK(FI(FAULT_COPY, cudaMemcpyAsync(acc, r->qRows, sizeof(ga_gacc)*(size_t)nAcc + 16, cudaMemcpyDeviceToHost, r->st)),
       "cudaMemcpyAsync (query)");
    CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
    bad = (int*)(acc + nAcc);
    if( *bad ){                                     /* a code past nGroup (never, by the rule above) */
      strcpy(zErr, "gpuagg: a group's code past the program's groups");
      return 1;
    }
    for(f=0; f<p->nFold; f++){
      int64_t m = 0;
      for(code=0; code<nGroup; code++) m += acc[code].rows!=0;
      if( (g[f]->res = malloc(sizeof(ga_grow)*(size_t)(m ? m : 1)))==0 ){
        strcpy(zErr, "gpuagg: out of memory");
        return 1;
      }
      for(code=0, m=0; code<nGroup; code++){
        ga_gacc *c = &acc[f*nGroup + code];
        if( acc[code].rows==0 ) continue;
        c->rows = acc[code].rows;             /* the rows and first row are fold 0's */
        c->first = acc[code].first;
        ga_group_finish(c, (uint64_t)code, g[f]->jb, 0, &g[f]->res[m++]);
      }
      g[f]->nRes = m;
    }
    ga_cu_count(stats, dev, nAux);
    tabsKept(r, p, nTab);
    resEnd(r, dev, stats);
    return 0;
  }
  if( nCode>0 ){
    /* a number key folded by code (query.cu, 10): its least key to the program's copy there */
    ga_qprog *hp = (ga_qprog*)(h + oProg);
    hp->keyLo = keyLo;
    CK(FI(FAULT_COPY, cudaMemcpyAsync(d + oProg + offsetof(ga_qprog, keyLo), &hp->keyLo, sizeof(hp->keyLo),
                                      cudaMemcpyHostToDevice, r->st)), "cudaMemcpyAsync (query)");
    sparse = nCode*p->nFold<=GA_QGROUP_SPARSE;
    mapped = !sparse;
  }
  if( sparse || mapped ){
    int aJb[GA_QFOLD];
    int64_t n = nCode>0 ? nCode : nGroup;
    for(f=0; f<p->nFold; f++) aJb[f] = g[f]->jb;
    rc = sparse ? sparseGroups(r, p, &x, a, nRow, n, aJb, (int*)(h + oKey), g, zErr)
                : mappedGroups(r, p, &x, a, nRow, n, aJb, (int*)(h + oKey), g, zErr);
    if( rc!=0 && rc!=GA_DEV_SCAN ) return rc;
    if( rc==0 ){
      if( nCode>0 ){
        stats->nKeyCoded++;
        g[0]->nCode = nCode;
        g[0]->keyLo = keyLo;
      }
      ga_cu_count(stats, dev, nAux);
      tabsKept(r, p, nTab);
      resEnd(r, dev, stats);
      return 0;
    }
    if( sparse ) return rc;
    /* too many groups with rows for their accumulators: the rows' path */
  }
  /* the rows, a piece at a time (where the groups there can be are not
  ** known, a smaller piece: each fold's table makes room for a piece's rows
  ** all being new groups, and 12M rows' room took more time to make and
  ** compact than the rows to fold) */
  rowBytes = 8 + 9*(int64_t)p->nFold;
  piece = QROWS_BYTES/rowBytes;
  if( nGroup==0 && piece>QROWS_UNKNOWN ) piece = QROWS_UNKNOWN;
  if( piece>nRow ) piece = nRow;
  piece = (piece + 15) & ~(int64_t)15;
  if( grown(&r->qRows, &r->nRows, piece*rowBytes, 0, zErr) ) return 1;
  for(i=0; i<nRow; i+=piece){
    int64_t k = nRow - i<piece ? nRow - i : piece;
    uint64_t *keys = (uint64_t*)r->qRows, *vals = keys + piece;
    unsigned char *meta = (unsigned char*)(vals + piece*p->nFold);
    CK(FI(FAULT_LAUNCH, ga_query_rows_launch((const ga_qprog*)(d + oProg), p->nReg, (const unsigned char *const*)(d + oCols),
                                             (const int64_t *const*)(d + oCols + 8*GA_QCOL), x.tabC, x.tabV, i, k, keys, vals, meta, piece, r->st)),
       "the query kernel");
    CK(cudaEventRecord(r->qReady, r->st), "cudaEventRecord");
    for(f=0; f<p->nFold; f++){
      if( ga_cu_group_fold(g[f], dev, keys, vals + f*piece, meta + f*piece, k, a[0].d->a[0].row0 + i, nGroup,
                           r->qReady, r->qDone, zErr) ) return 1;
      CK(cudaStreamWaitEvent(r->st, r->qDone, 0), "cudaStreamWaitEvent");
    }
  }
  CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (query)");
  ga_cu_count(stats, dev, nAux);
  tabsKept(r, p, nTab);
  resEnd(r, dev, stats);
  return 0;
}

/*
** ORDER BY one term over kept columns (backend.h's xOrder): the program's
** classes and keys (query.cu's qOrder), the numbers' rows and the NULLs'
** picked in scan order, the numbers' keys sorted with their rows (stable:
** ties in scan order), and only the window's rows copied back. The rows'
** buffers are the grouping rows' (r->qRows): a repeated query makes none.
*/
int ga_dcol_order(ga_dres **pp, ga_stats *stats, const ga_qprog *p, const ga_qcol *a, int64_t nRow,
                  const unsigned char *tabC, const int64_t *tabV, int64_t nTab, int desc, int nullsFirst,
                  int64_t off, int64_t n, int64_t *aRow, int64_t *pnRow, char *zErr){
  Aux x;
  int64_t nNum, nNull, numLo, nullLo, lo, hi, a0, a1, b0, b1, i, m = 0, bytes;
  size_t t1 = 0, t2 = 0, tb;
  unsigned char *h, *d, *buf, *cls;
  uint64_t *keys, *keys2;
  uint32_t *rowsNum, *rows2, *rowsNull, *hRows;
  int *cnt, dev, rc;
  dRes *r;
  *pnRow = 0;
  if( nRow<=0 || nRow>INT_MAX || n<=0 ) return GA_DEV_SCAN;
  if( n>nRow ) n = nRow;
  if( (rc = progStage(pp, p, a, nRow, tabC, tabV, nTab, 16 + 4*n, &x, &r, &dev, zErr))!=0 ) return rc;
  h = (unsigned char*)r->hAux;
  d = (unsigned char*)r->qAux;
  cnt = (int*)(h + x.oMore);                     /* classes met, numbers, NULLs */
  hRows = (uint32_t*)(h + x.oMore + 16);
  memset(cnt, 0, 16);
  CK(FI(FAULT_COPY, cudaMemcpyAsync(d, h, (size_t)(x.oMore + 16), cudaMemcpyHostToDevice, r->st)),
     "cudaMemcpyAsync (order)");
  CK(ga_order_rows(0, &t1, 0, (int)nRow, GA_QO_INT, 0, 0, r->st), "cub::DeviceSelect (scratch size)");
  CK(ga_order_sort(0, &t2, 0, 0, 0, 0, (int)nRow, r->st), "cub::DeviceRadixSort (scratch size)");
  tb = t1>t2 ? t1 : t2;
  bytes = 16*up16(nRow) + 12*up16(nRow) + up16(nRow) + (int64_t)tb;
  if( grown(&r->qRows, &r->nRows, bytes, 0, zErr) ) return 1;
  keys = (uint64_t*)r->qRows;
  keys2 = keys + up16(nRow);
  rowsNum = (uint32_t*)(keys2 + up16(nRow));
  rows2 = rowsNum + up16(nRow);
  rowsNull = rows2 + up16(nRow);
  cls = (unsigned char*)(rowsNull + up16(nRow));
  buf = cls + up16(nRow);
  CK(FI(FAULT_LAUNCH, ga_query_order_launch((const ga_qprog*)(d + x.oProg), p->nReg, (const unsigned char *const*)(d + x.oCols),
                                            (const int64_t *const*)(d + x.oCols + 8*GA_QCOL), x.tabC, x.tabV, nRow, desc, keys, cls,
                                            (int*)(d + x.oMore), r->st)), "the query order kernel");
  CK(FI(FAULT_LAUNCH, ga_order_rows(buf, &tb, cls, (int)nRow, GA_QO_INT, rowsNum, (int*)(d + x.oMore) + 1, r->st)),
     "cub::DeviceSelect (numbers)");
  CK(FI(FAULT_LAUNCH, ga_order_rows(buf, &tb, cls, (int)nRow, GA_QO_NULL, rowsNull, (int*)(d + x.oMore) + 2, r->st)),
     "cub::DeviceSelect (NULLs)");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(cnt, d + x.oMore, 12, cudaMemcpyDeviceToHost, r->st)), "cudaMemcpyAsync (order)");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (order)");
  if( (cnt[0] & (1<<GA_QO_INT)) && (cnt[0] & (1<<GA_QO_REAL)) ) return GA_DEV_SCAN;
  nNum = cnt[1];
  nNull = cnt[2];
  /* the window [lo, hi) of the order: NULLs first or last, the numbers */
  numLo = nullsFirst ? nNull : 0;
  nullLo = nullsFirst ? 0 : nNum;
  lo = off<nNum + nNull ? off : nNum + nNull;
  hi = nNum + nNull - lo<n ? nNum + nNull : lo + n;
  a0 = lo>numLo ? lo : numLo;                    /* the numbers' part of it */
  a1 = hi<numLo + nNum ? hi : numLo + nNum;
  b0 = lo>nullLo ? lo : nullLo;                  /* the NULLs' */
  b1 = hi<nullLo + nNull ? hi : nullLo + nNull;
  if( a1>a0 ){
    CK(FI(FAULT_LAUNCH, ga_order_gather(keys, rowsNum, (int)nNum, keys2, r->st)), "the order's gather kernel");
    CK(FI(FAULT_LAUNCH, ga_order_sort(buf, &tb, keys2, keys, rowsNum, rows2, (int)nNum, r->st)),
       "cub::DeviceRadixSort (order)");
    CK(FI(FAULT_COPY, cudaMemcpyAsync(hRows + (a0 - lo), rows2 + (a0 - numLo), 4*(size_t)(a1 - a0),
                                      cudaMemcpyDeviceToHost, r->st)), "cudaMemcpyAsync (order rows)");
  }
  if( b1>b0 ){
    CK(FI(FAULT_COPY, cudaMemcpyAsync(hRows + (b0 - lo), rowsNull + (b0 - nullLo), 4*(size_t)(b1 - b0),
                                      cudaMemcpyDeviceToHost, r->st)), "cudaMemcpyAsync (order rows)");
  }
  CK(cudaEventRecord(r->e1, r->st), "cudaEventRecord");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(r->st)), "cudaStreamSynchronize (order)");
  for(i=lo; i<hi; i++) aRow[m++] = a[0].d->a[0].row0 + hRows[i - lo];
  *pnRow = m;
  ga_cu_count(stats, dev, x.oMore + 16);
  tabsKept(r, p, nTab);
  resEnd(r, dev, stats);
  return 0;
}
