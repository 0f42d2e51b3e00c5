/*
** The CPU backend: chunks in ordinary memory, reduced on the calling thread
** when they are handed over. It runs when there is no GPU, when the user
** asks for it, and wherever the CUDA backend falls back; the tests use it
** as the reference for the pipeline.
*/
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "backend.h"

/* Chunk buffers are large and streamed through: align them to 2 MiB and ask
** for transparent huge pages (fewer TLB misses while appending). */
void *ga_host_alloc(int cap){
  size_t n = sizeof(int64_t)*(size_t)(cap + GA_BITMAP_WORDS(cap));
  void *p = 0;
  if( posix_memalign(&p, (size_t)2 << 20, n) ) return 0;
#ifdef MADV_HUGEPAGE
  madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

void ga_cpu_sum(const int64_t *buf, int64_t n, int64_t ni, ga_sum *out){
  const double *r = (const double*)buf;
  ga_fpe f = {0.0, 0.0, 0.0};
  int64_t i;
  memset(out, 0, sizeof(*out));
  for(i=0; i<ni; i++) ga_sum_int(out, buf[i]);
  for(; i<n; i++) ga_sum_real(out, &f, r[i]);
  ga_sum_settle(out, &f);
}

void ga_cpu_ext(const int64_t *buf, const uint64_t *bits, int64_t n, int isMax, ga_ext *out){
  ga_ext c = {0, 0, GA_T_NONE, 0};
  int64_t i;
  memset(out, 0, sizeof(*out));
  for(i=0; i<n; i++){
    c.bits = (uint64_t)buf[i];
    c.pos = i;
    c.type = (bits[i>>6] >> (i & 63)) & 1 ? GA_T_REAL : GA_T_INT;
    if( ga_ext_better(&c, out, isMax) ) *out = c;
  }
}

void ga_cpu_stats(const int64_t *v, const uint64_t *bits, int64_t n, ga_stat *out){
  ga_fpe f = {0.0, 0.0, 0.0};
  ga_ext c = {0, 0, GA_T_NONE, 0};
  int64_t i;
  memset(out, 0, sizeof(*out));
  for(i=0; i<n; i++){
    if( (bits[i>>6] >> (i & 63)) & 1 ){
      double x;
      memcpy(&x, &v[i], sizeof(x));
      ga_sum_real(&out->sum, &f, x);
      ga_sq_real(&out->sq, x);
      out->nReal++;
      c.type = GA_T_REAL;
    }else{
      ga_sum_int(&out->sum, v[i]);
      ga_sq_int(&out->sq, v[i]);
      out->nInt++;
      c.type = GA_T_INT;
    }
    c.bits = (uint64_t)v[i];
    c.pos = i;
    if( ga_ext_better(&c, &out->mx, 1) ) out->mx = c;
    if( ga_ext_better(&c, &out->mn, 0) ) out->mn = c;
  }
  ga_sum_settle(&out->sum, &f);
  ga_carry(out->sq.w, GA_SQWORDS);
  out->sq.nAdd = 0;
}

void ga_cpu_hist(const double *v, int64_t n, ga_hist *hist){
  int64_t i;
  for(i=0; i<n; i++){
    int64_t b = ga_hist_bin(&hist->h, v[i]);
    if( b>=0 ) hist->counts[b]++;
  }
}

void ga_cpu_keep(ga_hist *hist, const double *v, int64_t n){
  ga_kept *k = hist->host;
  if( hist->over || n<=0 ) return;
  if( k==0 || k->cap - k->n < n ){
    int64_t cap = n > 65536 ? n : 65536;
    int64_t nb = (int64_t)sizeof(double)*cap;
    k = hist->nKept + nb <= hist->budget ? malloc(sizeof(ga_kept) + (size_t)nb) : 0;
    if( k==0 ){
      ga_cpu_kept(hist, 0);
      hist->over = 1;
      return;
    }
    k->next = hist->host;
    k->n = 0;
    k->cap = cap;
    hist->host = k;
    hist->nKept += nb;
  }
  memcpy(k->v + k->n, v, sizeof(double)*(size_t)n);
  k->n += n;
}

void ga_cpu_kept(ga_hist *hist, int use){
  while( hist->host ){
    ga_kept *k = hist->host;
    if( use && !hist->over ) ga_cpu_hist(k->v, k->n, hist);
    hist->host = k->next;
    hist->nKept -= (int64_t)sizeof(double)*k->cap;
    free(k);
  }
}

void ga_cpu_run(ga_slot *s, const ga_job *j){
  if( j->op==GA_OP_SUM ){
    ga_cpu_sum(s->buf, j->n, j->ni, &s->res);
  }else if( j->op==GA_OP_HIST ){
    ga_cpu_hist((const double*)s->buf, j->n, j->hist);
  }else if( j->op==GA_OP_KEEP ){
    ga_cpu_keep(j->hist, (const double*)s->buf, j->n);
  }else if( j->op==GA_OP_STATS ){
    int c;
    for(c=0; c<j->nSeg; c++){
      if( j->segN[c] ) ga_cpu_stats(GA_STATS_VALS(s->buf, j->segCap, c), GA_STATS_BITS(s->buf, s->cap, j->segCap, c),
                                    j->segN[c], &s->stat[c]);
    }
  }else if( j->op==GA_OP_GROUP ){
    ga_group *g = j->group;
    if( g->dev ) g->lost = 1;     /* a device holds the other chunks */
    if( ga_cpu_group(g, GA_GROUP_KEYS(s->buf, s->cap), GA_GROUP_VALS(s->buf, s->cap),
                     GA_GROUP_META(s->buf, s->cap), j->n, j->base) ) g->oom = 1;
  }else{
    ga_cpu_ext(s->buf, (const uint64_t*)(s->buf + s->cap), j->n, j->op==GA_OP_MAX, &s->ext);
  }
}

static int cpuOpen(ga_slot *s, char *zErr){
  s->buf = ga_host_alloc(s->cap);
  if( s->buf==0 ){
    strcpy(zErr, "gpuagg: out of memory for a chunk buffer");
    return 1;
  }
  return 0;
}

static void cpuReady(ga_slot *s){ (void)s; }

static void cpuClose(ga_slot *s){
  free(s->buf);
  s->buf = 0;
}

static int cpuStart(ga_slot *s, const ga_job *j, char *zErr){
  (void)zErr;
  ga_cpu_run(s, j);
  s->stats->nCpuChunk++;
  return 0;
}

static int cpuWait(ga_slot *s, char *zErr){
  (void)s; (void)zErr;
  return 0;
}

static int cpuWarm(void){ return 1; }

/* Rearrange a[0..n) so that a[k] is the key of rank k, the ones before it
** no greater, the ones after no less (Hoare's selection, median of three). */
static void selectRank(uint64_t *a, int64_t n, int64_t k){
  int64_t lo = 0, hi = n - 1;
  while( hi>lo ){
    int64_t i = lo, j = hi, m = lo + (hi - lo)/2;
    uint64_t x, t;
    if( a[m]<a[lo] ){ t = a[m]; a[m] = a[lo]; a[lo] = t; }
    if( a[hi]<a[lo] ){ t = a[hi]; a[hi] = a[lo]; a[lo] = t; }
    if( a[hi]<a[m] ){ t = a[hi]; a[hi] = a[m]; a[m] = t; }
    x = a[m];
    while( i<=j ){
      while( a[i]<x ) i++;
      while( a[j]>x ) j--;
      if( i<=j ){ t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if( k<=j ) hi = j; else if( k>=i ) lo = i; else return;
  }
}

/* Order statistics by selection, in O(n): each rank selected in the part
** of a the ranks before it have not fixed. */
static int cpuRanks(uint64_t *a, int64_t n, const int64_t *r, int nr, uint64_t *out, ga_stats *stats, char *zErr){
  int64_t done = 0;             /* a[0..done) holds the ranks below it, in place */
  int i;
  (void)stats; (void)zErr;
  for(i=0; i<nr; i++){
    if( r[i]>=done ){
      selectRank(a + done, n - done, r[i] - done);
      done = r[i] + 1;
    }
    out[i] = a[r[i]];
  }
  return 0;
}

/* The CPU's counts and kept numbers are hist's own (counts, host). */
static int cpuHistDone(ga_hist *hist, int use, char *zErr){
  (void)hist; (void)use; (void)zErr;
  return 0;
}

const ga_backend ga_cpu_backend = {
  "cpu", cpuOpen, cpuReady, cpuClose, cpuStart, cpuWait, cpuWarm, cpuHistDone, ga_cpu_group_done, cpuRanks,
  0, 0, 0, 0, 0,                                /* no devices */
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,     /* no kept columns: the host copy is read */
  ga_cpu_query, ga_cpu_order, 0
};
