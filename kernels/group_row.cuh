/*
** A row folded into a group's exact accumulator (group_acc.h) with
** atomics, in global or shared memory; and one accumulator added into
** another. group.cu's tables use them, and bench_kernels' grouping study.
** Determinism: integer adds, maxima and packed extremes: the same result
** whatever the order of the atomics.
*/
#ifndef GPUAGG_GROUP_ROW_CUH
#define GPUAGG_GROUP_ROW_CUH
#include "group_acc.h"

/* Keep candidate c at p if it beats what is there. The high word only
** grows, so a candidate below it never wins: no atomic for it. */
static __device__ __forceinline__ void ext_keep(ga_gext *p, ga_gext c){
  unsigned long long hi = *(volatile unsigned long long *)&p->hi;
  ga_gext cur;
  if( c.hi < hi ) return;
  cur.hi = hi;
  cur.lo = 0;                         /* a guess: the swap says what is there */
  for( ;; ){
    ga_gext old = atomicCAS(p, cur, c);
    if( (old.hi == cur.hi && old.lo == cur.lo) || !ga_gext_better(c, old) ) return;
    cur = old;
  }
}

static __device__ __forceinline__ void max_u64(uint64_t *p, uint64_t v){
  if( v > *(volatile unsigned long long *)p ) atomicMax((unsigned long long *)p, (unsigned long long)v);
}

static __device__ __forceinline__ void add_u64(uint64_t *p, uint64_t v){
  if( v ) atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

/* Fold one row into a (global or shared). */
static __device__ __forceinline__ void acc_row(ga_gacc *a, int jb, unsigned m, uint64_t bits, uint64_t pos){
  atomicAdd((unsigned long long *)&a->rows, 1ull);
  max_u64(&a->first, ~(pos << 3 | (m & GA_K_MASK)));
  if( m & GA_V_INT ){
    atomicAdd((unsigned long long *)&a->nInt, 1ull);
    add_u64(&a->ilo, bits & 0xffffffffull);
    add_u64((uint64_t *)&a->ihi, (uint64_t)((int64_t)bits >> 32));
  }else if( m & GA_V_REAL ){
    int w;
    int64_t p[3];
    atomicAdd((unsigned long long *)&a->nReal, 1ull);
    /* Every real not flagged fits the window (group.c checked); ±0.0 adds
    ** nothing. */
    if( !(m & GA_V_HOST) && !ga_split(__longlong_as_double((long long)bits), &w, p) ){
      for( int k = 0; k < 3; k++ ) add_u64((uint64_t *)&a->w[w - jb + k], (uint64_t)p[k]);
    }
  }else{
    return;
  }
  if( !(m & GA_V_OTHER) ){
    ext_keep(&a->mx, ga_gext_make(bits, (m & GA_V_REAL) != 0, pos, 1));
    ext_keep(&a->mn, ga_gext_make(bits, (m & GA_V_REAL) != 0, pos, 0));
  }
}

/* d += s. */
static __device__ void acc_merge(ga_gacc *d, const ga_gacc *s){
  add_u64(&d->rows, s->rows);
  max_u64(&d->first, s->first);
  add_u64(&d->nInt, s->nInt);
  add_u64(&d->nReal, s->nReal);
  add_u64(&d->ilo, s->ilo);
  add_u64((uint64_t *)&d->ihi, (uint64_t)s->ihi);
  for( int j = 0; j < GA_GWORDS; j++ ) add_u64((uint64_t *)&d->w[j], (uint64_t)s->w[j]);
  if( s->mx.hi | s->mx.lo ) ext_keep(&d->mx, s->mx);
  if( s->mn.hi | s->mn.lo ) ext_keep(&d->mn, s->mn);
}

#endif
