/*
** The host's side of a grouping (backend.h's ga_group, group_acc.h's rows):
**
**   1. Before a chunk goes to any backend, ga_group_window chooses the
**      real window at the first reals (one word of room above the largest)
**      and flags each real it cannot surely hold GA_V_HOST, summing those
**      here, exactly, by group (g->exc). The test is on the exponent alone,
**      a few cycles a row; a backend only adds the digits of the rest.
**   2. The CPU backend's table: groups by (class, key) in a ga_kmap, each a
**      ga_gacc folded as the device folds it, without atomics, so that both
**      give the same bits through ga_group_finish.
**   3. Results: every group finished into g->res, the numeric ones first,
**      by ga_grow_order; what that order cannot tell apart (big integers
**      sharing a floor double) the caller sorts with ga_grow_cmp_num.
*/
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "kmap.h"

/* ---- the window and the reals summed here --------------------------------- */

/* Biased exponent of x. */
static int expOf(uint64_t bits){ return (int)((bits >> 52) & 0x7ff); }

/* Choose the window from the largest real of the chunk (GA_V_REAL rows). */
static void chooseWindow(ga_group *g, const uint64_t *vals, const unsigned char *meta, int64_t n){
  int64_t i;
  int eMax = -1;
  for(i=0; i<n; i++){
    if( (meta[i] & GA_V_REAL) && expOf(vals[i])!=0x7ff && expOf(vals[i])>eMax ) eMax = expOf(vals[i]);
  }
  if( eMax<0 ) return;                       /* only ±Inf, or no reals */
  /* Its top bit sits at grid bit max(e,1)-1+52 (sum_acc.h's ga_split). */
  g->jb = ga_window_base(((eMax ? eMax : 1) - 1 + 52) >> 5);
}

/* Sum real bits (which the window cannot hold) for group (cls, key). */
static int excAdd(ga_group *g, int cls, uint64_t key, uint64_t bits){
  int isNew;
  int64_t i;
  double x;
  if( g->excMap==0 && (g->excMap = calloc(1, sizeof(ga_kmap)))==0 ) return 1;
  if( (i = ga_kmap_add(g->excMap, (uint32_t)ga_kgroup(cls) + 1, key, &isNew))<0 ) return 1;
  if( isNew ){
    if( (i & (i - 1))==0 ){                  /* 0, 1, 2, 4, ...: room for twice as many */
      ga_sum *p = realloc(g->exc, sizeof(ga_sum)*(size_t)(i ? 2*i : 1));
      if( p==0 ) return 1;
      g->exc = p;
    }
    memset(&g->exc[i], 0, sizeof(ga_sum));
    g->nExc = i + 1;
  }
  memcpy(&x, &bits, sizeof(x));
  ga_sum_word(&g->exc[i], x);
  return 0;
}

int ga_group_window(ga_group *g, const uint64_t *keys, const uint64_t *vals, unsigned char *meta, int64_t n){
  int64_t i;
  int eLo, eHi;
  if( g->jb<0 ) chooseWindow(g, vals, meta, n);
  /* A finite real with biased exponent e has its bits in grid bits
  ** [max(e,1)-1, max(e,1)+51]: inside the window's words for e in
  ** [eLo, eHi] (subnormals, e 0, sit at grid bit 0, inside when jb is 0). */
  eLo = g->jb==0 ? 0 : 32*g->jb + 1;
  eHi = 32*(g->jb + GA_GWORDS) - 52;
  for(i=0; i<n; i++){
    int e;
    if( !(meta[i] & GA_V_REAL) ) continue;
    e = expOf(vals[i]);
    if( g->jb>=0 && e>=eLo && e<=eHi && e!=0x7ff ) continue;
    if( (vals[i] << 1)==0 ) continue;        /* ±0.0 adds nothing anywhere */
    meta[i] |= GA_V_HOST;
    if( excAdd(g, meta[i] & GA_K_MASK, keys[i], vals[i]) ) return 1;
  }
  return 0;
}

int ga_group_window_all(int eMin, int eMax, int *pjb){
  int jb = ga_window_base(((eMax ? eMax : 1) - 1 + 52) >> 5);
  *pjb = jb;
  return eMin >= (jb==0 ? 0 : 32*jb + 1) && eMax <= 32*(jb + GA_GWORDS) - 52;
}

void ga_group_clear(ga_group *g){
  if( g->excMap ) ga_kmap_free(g->excMap);
  free(g->excMap);
  free(g->exc);
  free(g->res);
  g->excMap = 0;
  g->exc = 0;
  g->res = 0;
  g->nExc = g->nRes = 0;
}

/* ---- the CPU's table -------------------------------------------------------- */

typedef struct CpuGroup {
  ga_kmap map;              /* (class, key) -> index */
  ga_gacc *acc;             /* accumulators, by index */
  uint64_t *aKey;           /* keys, by index */
  int64_t nAlloc;           /* room in acc and aKey */
} CpuGroup;

/* Fold value bits (meta m) at position pos into a; one thread owns a. */
static void fold(ga_gacc *a, int jb, unsigned char m, uint64_t bits, uint64_t pos){
  uint64_t f = ~(pos << 3 | (m & GA_K_MASK));
  a->rows++;
  if( f>a->first ) a->first = f;
  if( m & GA_V_INT ){
    a->nInt++;
    a->ilo += bits & 0xffffffffu;
    a->ihi += (int64_t)bits >> 32;
  }else if( m & GA_V_REAL ){
    a->nReal++;
    if( !(m & GA_V_HOST) ){
      int j;
      int64_t p[3];
      double x;
      memcpy(&x, &bits, sizeof(x));
      if( ga_window_split(x, jb, &j, p)==0 ){ /* always, as prepared (or ±0.0) */
        int k;
        for(k=0; k<3; k++) if( p[k] ) a->w[j + k] += p[k];
      }
    }
  }else{
    return;
  }
  if( !(m & GA_V_OTHER) ){
    ga_gext cx = ga_gext_make(bits, (m & GA_V_REAL)!=0, pos, 1);
    ga_gext cn = ga_gext_make(bits, (m & GA_V_REAL)!=0, pos, 0);
    if( ga_gext_better(cx, a->mx) ) a->mx = cx;
    if( ga_gext_better(cn, a->mn) ) a->mn = cn;
  }
}

/* The index of group (tag, key) in g's CPU table, made (zeroed) if new and
** the table too; -1: out of memory. */
static int64_t groupAt(ga_group *g, uint32_t tag, uint64_t key){
  CpuGroup *t = (CpuGroup*)g->cpu;
  int isNew;
  int64_t k;
  if( t==0 && (g->cpu = t = calloc(1, sizeof(CpuGroup)))==0 ) return -1;
  if( (k = ga_kmap_add(&t->map, tag, key, &isNew))<0 ) return -1;
  if( isNew ){
    if( k==t->nAlloc ){
      int64_t na = t->nAlloc ? 2*t->nAlloc : 64;
      ga_gacc *pa = realloc(t->acc, sizeof(ga_gacc)*(size_t)na);
      uint64_t *pk = pa ? realloc(t->aKey, sizeof(uint64_t)*(size_t)na) : 0;
      if( pa ) t->acc = pa;
      if( pk==0 ) return -1;
      t->aKey = pk;
      t->nAlloc = na;
    }
    memset(&t->acc[k], 0, sizeof(ga_gacc));
    t->aKey[k] = key;
  }
  return k;
}

int ga_cpu_group(ga_group *g, const uint64_t *keys, const uint64_t *vals, const unsigned char *meta,
                 int64_t n, int64_t base){
  CpuGroup *t;
  int64_t i;
  for(i=0; i<n; i++){
    int64_t k = groupAt(g, (uint32_t)ga_kgroup(meta[i] & GA_K_MASK) + 1, keys[i]);
    if( k<0 ) return 1;
    t = (CpuGroup*)g->cpu;
    fold(&t->acc[k], g->jb, meta[i], vals[i], (uint64_t)(base + i));
    if( ++g->nRow % GA_CARRY_ROWS==0 ){
      int64_t j;
      for(j=0; j<t->map.n; j++) ga_gacc_carry(&t->acc[j]);
    }
  }
  return 0;
}

/* Every part of an accumulator is a sum of integers, a maximum or a best
** candidate: adding b's parts to a's gives what one table folding both
** rows would hold, in any order. */
int ga_cpu_group_add(ga_group *g, const ga_gent *ent, const ga_gacc *acc, int64_t n){
  int64_t i;
  int j;
  for(i=0; i<n; i++){
    ga_gacc *a, b = acc[i];
    int64_t k;
    if( ent[i].tag==0 ) continue;
    if( (k = groupAt(g, (uint32_t)ent[i].tag, ent[i].key))<0 ) return 1;
    a = &((CpuGroup*)g->cpu)->acc[k];
    ga_gacc_carry(a);
    ga_gacc_carry(&b);
    a->rows += b.rows;
    if( b.first>a->first ) a->first = b.first;
    a->nInt += b.nInt;
    a->nReal += b.nReal;
    a->ilo += b.ilo;
    a->ihi += b.ihi;
    for(j=0; j<GA_GWORDS; j++) a->w[j] += b.w[j];
    if( ga_gext_better(b.mx, a->mx) ) a->mx = b.mx;
    if( ga_gext_better(b.mn, a->mn) ) a->mn = b.mn;
  }
  return 0;
}

/* A group's place, with its index: sorted, then the rows follow. */
typedef struct Place { uint64_t order; int64_t i; } Place;

static int cmpPlace(const void *pa, const void *pb){
  const Place *a = (const Place*)pa, *b = (const Place*)pb;
  return a->order<b->order ? -1 : a->order>b->order;
}

int ga_cpu_group_done(ga_group *g, int use, char *zErr){
  CpuGroup *t = (CpuGroup*)g->cpu;
  int rc = 0;
  if( t==0 ) return 0;
  if( use && g->codes ){
    /* count(DISTINCT): each group counted for its code, none finished */
    int64_t i;
    free(g->res);
    g->res = 0;
    g->nRes = 0;
    for(i=0; i<t->map.n && rc==0; i++){
      int64_t k = ga_gcodes_at(g->codes, ga_kgroup((int)(~t->acc[i].first & GA_K_MASK)), t->aKey[i]);
      if( k>=0 ) g->codes->aCount[k]++;
      else if( k==-2 ){
        strcpy(zErr, "gpuagg: a count(DISTINCT) group's code out of range");
        rc = 1;
      }
    }
  }else if( use ){
    int64_t i, n = t->map.n;
    Place *p = malloc(sizeof(Place)*(size_t)(n ? n : 1));
    free(g->res);
    g->res = malloc(sizeof(ga_grow)*(size_t)(n ? n : 1));
    if( p==0 || g->res==0 ){
      strcpy(zErr, "gpuagg: out of memory");
      rc = 1;
    }else{
      /* In the order of keys (unless any order will do): sort the places, then finish
      ** group by group. */
      for(i=0; i<n; i++){
        p[i].order = ga_key_order(ga_kgroup((int)(~t->acc[i].first & GA_K_MASK)), t->aKey[i]);
        p[i].i = i;
      }
      if( !g->anyOrder ) qsort(p, (size_t)n, sizeof(Place), cmpPlace);
      for(i=0; i<n; i++){
        int64_t k = p[i].i;
        uint32_t tag = (uint32_t)ga_kgroup((int)(~t->acc[k].first & GA_K_MASK)) + 1;
        int64_t e = g->excMap ? ga_kmap_find(g->excMap, tag, t->aKey[k]) : -1;
        if( e>=0 ) ga_words_norm(g->exc[e].w);
        ga_gacc_carry(&t->acc[k]);
        ga_group_finish(&t->acc[k], t->aKey[k], g->jb, e>=0 ? &g->exc[e] : 0, &g->res[i]);
      }
      g->nRes = n;
    }
    free(p);
  }
  ga_kmap_free(&t->map);
  free(t->acc);
  free(t->aKey);
  free(t);
  g->cpu = 0;
  return rc;
}

/* ---- order -------------------------------------------------------------------- */

uint64_t ga_grow_order(const ga_grow *r){
  return ga_key_order(ga_kgroup(r->kclass), r->key);
}

int ga_grow_cmp_num(const ga_grow *a, const ga_grow *b){
  int ia = ga_kgroup(a->kclass)==GA_K_INT, ib = ga_kgroup(b->kclass)==GA_K_INT;
  return ga_num_cmp(a->key, ia ? GA_T_INT : GA_T_REAL, b->key, ib ? GA_T_INT : GA_T_REAL);
}
