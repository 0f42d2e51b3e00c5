/*
** gpu_query's CPU operators (exec.c's requirements 3 and 7): the groups'
** hash table of a part (a worker's or the scan thread's) over canonical
** keys (keys.c), and the Combine phase: the parts merged into the main one
** when the scan ends.
*/
#include "execint.h"

/* n bytes at p zeroed, on nThread threads where they are many: the first
** touch of fresh pages is most of the cost (a wide merge's tables for 15M
** groups: over a gigabyte, which one thread faults in at about 1.7 GB/s). */
typedef struct ZeroJob { char *p; size_t n; } ZeroJob;
static void *zeroJob(void *pArg){
  ZeroJob *j = (ZeroJob*)pArg;
  memset(j->p, 0, j->n);
  return 0;
}
static void zeroPar(char *p, size_t n, int nThread){
  ZeroJob a[GA_THREADS_MAX + 1];
  int w;
  if( nThread>GA_THREADS_MAX + 1 ) nThread = GA_THREADS_MAX + 1;
  if( nThread<2 || n<((size_t)8<<20) ){
    memset(p, 0, n);
    return;
  }
  for(w=0; w<nThread; w++){
    a[w].p = p + n/(size_t)nThread*(size_t)w;
    a[w].n = w<nThread - 1 ? n/(size_t)nThread : n - n/(size_t)nThread*(size_t)w;
  }
  q_fan(nThread, zeroJob, a, sizeof(a[0]));
}

/* p with room for nNew items of sz bytes, those past nOld zeroed (zero:
** on nThread threads) or left as they are (a group's key, position and
** bytes are set as it is made: zeroing them would only touch fresh pages). */
static void *grow(void *p, int64_t nOld, int64_t nNew, int sz, int zero, int nThread){
  char *q = ga_realloc64(p, (uint64_t)sz*(uint64_t)nNew);
  if( q && zero ) zeroPar(q + (size_t)sz*(size_t)nOld, (size_t)sz*(size_t)(nNew - nOld), nThread);
  return q;
}

/* Room in p for need groups (0: one more), its new arrays zeroed on
** nThread threads. */
static int growGroups(Part *p, const qplan *pl, int64_t need, int nThread){
  int64_t n = p->gAlloc ? 2*p->gAlloc : 64, a, j;
  while( n<need ) n *= 2;
  int nk = SHOWN(pl) ? SHOWN(pl) : 1;
  void *x;
  if( (x = grow(p->gKey, p->gAlloc*nk, n*nk, sizeof(qval), 0, nThread))==0 ) return SQLITE_NOMEM;
  p->gKey = x;
  if( (x = grow(p->gPos, p->gAlloc, n, 8, 0, nThread))==0 ) return SQLITE_NOMEM;
  p->gPos = x;
  if( (x = grow(p->gk, p->gAlloc, n, sizeof(GKey), 0, nThread))==0 ) return SQLITE_NOMEM;
  p->gk = x;
  for(a=0; a<pl->nAgg; a++){
    Agg *g = &p->aAgg[a];
    switch( g->g->fn ){
      case A_COUNT: case A_COUNTSTAR:
        if( (x = grow(g->cnt, p->gAlloc, n, 8, 1, nThread))==0 ) return SQLITE_NOMEM;
        g->cnt = x;
        break;
      case A_SUM: case A_TOTAL: case A_AVG:
        if( (x = grow(g->sum, p->gAlloc, n, sizeof(QSum), 1, nThread))==0 ) return SQLITE_NOMEM;
        g->sum = x;
        break;
      case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP:
        if( (x = grow(g->var, p->gAlloc, n, sizeof(QVar*), 1, nThread))==0 ) return SQLITE_NOMEM;
        g->var = x;
        break;
      case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
        if( (x = grow(g->keys, p->gAlloc, n, sizeof(QKeys), 1, nThread))==0 ) return SQLITE_NOMEM;
        g->keys = x;
        break;
      default:                      /* min, max, argmin, argmax */
        if( (x = grow(g->ext, p->gAlloc, n, sizeof(qval), 1, nThread))==0 ) return SQLITE_NOMEM;
        g->ext = x;
        for(j=p->gAlloc; j<n; j++) g->ext[j].t = SQLITE_NULL;
        if( (x = grow(g->extPos, p->gAlloc, n, 8, 1, nThread))==0 ) return SQLITE_NOMEM;
        g->extPos = x;
        if( g->g->fn==A_ARGMIN || g->g->fn==A_ARGMAX ){
          if( (x = grow(g->argA, p->gAlloc, n, sizeof(qval), 1, nThread))==0 ) return SQLITE_NOMEM;
          g->argA = x;
        }
        break;
    }
  }
  p->gAlloc = n;
  /* the hash table: twice the groups */
  {
    int64_t m = 2*n;
    HSlot *hs = ga_malloc64(sizeof(HSlot)*(uint64_t)m);
    if( hs==0 ) return SQLITE_NOMEM;
    zeroPar((char*)hs, sizeof(HSlot)*(size_t)m, nThread);
    for(j=0; j<p->hAlloc; j++){
      if( p->hs[j].h ){
        int64_t t = (int64_t)(p->hs[j].h & (uint64_t)(m - 1));
        while( hs[t].h ) t = (t + 1) & (m - 1);
        hs[t] = p->hs[j];
      }
    }
    ga_free(p->hs);
    p->hs = hs;
    p->hAlloc = m;
  }
  return SQLITE_OK;
}

/* Are a[0..n) and b[0..n) the same bytes? (Keys are short: no call.) */
static inline int sameKey(const char *a, const char *b, int n){
  uint64_t x, y;
  for(; n>=8; n-=8, a+=8, b+=8){
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if( x!=y ) return 0;
  }
  for(; n>0; n--) if( *a++!=*b++ ) return 0;
  return 1;
}

/* A slot's words for key z[0..n) (HSlot.k). */
static inline void slotWords(const char *z, int n, uint64_t *k){
  k[0] = KEY_LONG;
  k[1] = 0;
  if( n<=16 ){
    k[0] = 0;
    memcpy(k, z, (size_t)n);
  }
}

/* Does slot e (its hash h, its words k: the caller's) hold key z[0..n) of p? */
static inline int slotIs(const Part *p, const HSlot *e, uint64_t h, const uint64_t *k, const char *z, int n){
  return e->h==h && e->k[0]==k[0] && e->k[1]==k[1] && (n<=16 || (p->gk[e->g].n==n && sameKey(p->gk[e->g].z, z, n)));
}

/* The group of the canonical key z[0..n) (hashKey: h) into *pg; *pNew set
** if it was made (its key values and position are the caller's to set). */
int qxGroupOf(Part *p, const qplan *pl, const char *z, int n, uint64_t h, int64_t *pg, int *pNew){
  uint64_t k[2];
  int64_t s;
  int rc;
  slotWords(z, n, k);
  if( p->nGroup>=p->gAlloc && (rc = growGroups(p, pl, 0, 1))!=SQLITE_OK ) return rc;
  for(s = (int64_t)(h & (uint64_t)(p->hAlloc - 1)); p->hs[s].h; s = (s + 1) & (p->hAlloc - 1)){
    if( slotIs(p, &p->hs[s], h, k, z, n) ){
      *pg = p->hs[s].g;
      *pNew = 0;
      return SQLITE_OK;
    }
  }
  {
    int64_t g = p->nGroup++;
    if( (p->gk[g].z = q_keep(p->r, z, n))==0 ) return SQLITE_NOMEM;
    p->gk[g].n = n;
    p->hs[s].h = h;
    p->hs[s].g = g;
    p->hs[s].k[0] = k[0];
    p->hs[s].k[1] = k[1];
    *pg = g;
    *pNew = 1;
  }
  return SQLITE_OK;
}

/* Set group g's shown keys from values a (bytes kept by p's run). */
/* Group g shows the n values a (keys, then bare columns), their bytes kept. */
static int setKeys(Part *p, int n, int64_t g, const qval *a){
  int k;
  for(k=0; k<n; k++){
    qval *x = &p->gKey[g*n + k];
    *x = a[k];
    if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (x->z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* Group g shows row i of a batch: its keys' values aK, its bare columns' aB. */
int qxSetShown(Part *p, const qplan *pl, int64_t g, qvec **aK, qvec **aB, int i){
  int n = SHOWN(pl), k;
  for(k=0; k<n; k++){
    qval *x = &p->gKey[g*n + k];
    q_get(k<pl->nKey ? aK[k] : aB[k - pl->nKey], i, x);
    if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (x->z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* q's group g into p's group h (isNew: just made): its keys checked where
** the plan is strict, its shown row the earlier, its aggregates but
** DISTINCT's (their sets: partMerge) merged. */
static int groupMerge(Part *p, const qplan *pl, Part *q, int64_t g, int64_t h, int isNew){
  int k, rc = SQLITE_OK;
  if( p->strict && !isNew && pl->nKey ){
    for(k=0; k<pl->nKey; k++){
      if( !qxSameVal(&q->gKey[g*SHOWN(pl) + k], &p->gKey[h*SHOWN(pl) + k]) ){
        return qxNotSame(p, Q_NOT_SAME("GROUP BY values"));
      }
    }
  }
  if( SHOWN(pl) && (isNew || q->gPos[g]<p->gPos[h]) ){
    p->gPos[h] = q->gPos[g];
    if( (rc = setKeys(p, SHOWN(pl), h, &q->gKey[g*SHOWN(pl)]))!=SQLITE_OK ) return rc;
  }
  for(k=0; k<pl->nAgg && rc==SQLITE_OK; k++){
    if( !Q_DEDUP(&pl->aAgg[k]) ) rc = qxAggMerge(p, &p->aAgg[k], h, &q->aAgg[k], g);
  }
  return rc;
}

/* Merge part q into p (exec.c, 7): groups by their canonical keys,
** positions deciding the first row and ties. */
static int partMerge(Exec *e, Part *p, Part *q){
  const qplan *pl = e->pl;
  int64_t g, h, *gh = 0;
  int k, rc, isNew;
  for(k=0; k<pl->nAgg && gh==0; k++){
    if( Q_DEDUP(&pl->aAgg[k]) && (gh = ga_malloc64(8*(uint64_t)(q->nGroup + 1)))==0 ) return SQLITE_NOMEM;
  }
  for(g=0; g<q->nGroup; g++){
    if( pl->nKey==0 ){
      h = 0;
      isNew = 0;
    }else if( (rc = qxGroupOf(p, pl, q->gk[g].z, q->gk[g].n, qxHashKey(q->gk[g].z, q->gk[g].n), &h, &isNew))!=SQLITE_OK ){
      ga_free(gh);
      return rc;
    }
    if( gh ) gh[g] = h;
    if( (rc = groupMerge(p, pl, q, g, h, isNew))!=SQLITE_OK ){
      ga_free(gh);
      return rc;
    }
  }
  /* DISTINCT: q's (value, group) pairs into p's set, its group p's, the
  ** first position's value staying */
  for(k=0, rc=SQLITE_OK; gh && k<pl->nAgg && rc==SQLITE_OK; k++){
    Agg *a = &p->aAgg[k], *b = &q->aAgg[k];
    int64_t j;
    if( !Q_DEDUP(a->g) ) continue;
    for(j=0; j<b->dset.n && rc==SQLITE_OK; j++){
      int n = b->dset.an[j];
      memcpy(&g, b->dset.az[j] + n - 8, 8);
      if( (rc = qxKbufRoom(p, n))!=SQLITE_OK ) break;
      memcpy(p->kbuf, b->dset.az[j], (size_t)(n - 8));
      memcpy(p->kbuf + n - 8, &gh[g], 8);
      rc = qxDistinctAdd(p, a, p->kbuf, n, b->dv ? &b->dv[j] : 0, b->dp ? b->dp[j] : 0, &isNew);
      if( rc==SQLITE_OK && a->g->fn==A_COUNT ) a->cnt[gh[g]] += isNew;
    }
  }
  ga_free(gh);
  return rc;
}

/* Part q into p on a thread of its own (qxPartsMerge). */
typedef struct MergeJob {
  Exec *e;
  Part *p, *q;
  int rc;
} MergeJob;

static void *mergeJob(void *pArg){
  MergeJob *j = (MergeJob*)pArg;
  j->rc = partMerge(j->e, j->p, j->q);
  return 0;
}

/* ---- wide groupings: every part's groups into the main one at once ---------------------- */

/* Many groups in parts that hardly share them (a GROUP BY of a key the
** table is in the order of: each worker's rows have keys of their own)
** make the pairwise merge below a chain of large merges, the last ones on
** one thread: TPC-H Q18's 1.5M orders a second of its first read on 16
** threads. Such parts go into the main part at once instead: its table
** sized for all their groups (it never grows), each thread taking the
** groups whose hashes fall in its share, from every part. A key is only
** ever looked for by the thread of its share, so a slot is claimed by an
** atomic exchange of its hash, read by that thread alone (other threads
** compare the hash, which differs, and read no further), and a group's
** state is written by one thread. */
#define WIDE_MIN    65536           /* groups in all the parts from which they may go at once */
#define WIDE_SAMPLE 256             /* groups of part 1 looked for in part 0: how much they share */

/* The group of key z[0..n) (hash h) in p, or -1. */
static int64_t groupFind(const Part *p, const char *z, int n, uint64_t h){
  uint64_t k[2];
  int64_t s;
  slotWords(z, n, k);
  for(s = (int64_t)(h & (uint64_t)(p->hAlloc - 1)); p->hs[s].h; s = (s + 1) & (p->hAlloc - 1)){
    if( slotIs(p, &p->hs[s], h, k, z, n) ) return p->hs[s].g;
  }
  return -1;
}

/* The group of key z[0..n) (hash h) in v's table, made if it is not there
** (its number from *pnGroup, its bytes kept by v's run): *pNew set then.
** -1 when out of memory. The thread of h's share only. */
static int64_t groupClaim(Part *v, int64_t *pnGroup, const char *z, int n, uint64_t h, int *pNew){
  uint64_t k[2], mask = (uint64_t)v->hAlloc - 1, seen;
  int64_t s, g;
  slotWords(z, n, k);
  for(s = (int64_t)(h & mask); ; s = (s + 1) & (int64_t)mask){
    HSlot *e = &v->hs[s];
    seen = __atomic_load_n(&e->h, __ATOMIC_ACQUIRE);
    if( seen==0 ){
      if( __atomic_compare_exchange_n(&e->h, &seen, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ) break;
    }
    if( seen==h && slotIs(v, e, h, k, z, n) ){
      *pNew = 0;
      return e->g;
    }
  }
  g = __atomic_fetch_add(pnGroup, 1, __ATOMIC_RELAXED);
  if( (v->gk[g].z = q_keep(v->r, z, n))==0 ) return -1;
  v->gk[g].n = n;
  v->hs[s].g = g;
  v->hs[s].k[0] = k[0];
  v->hs[s].k[1] = k[1];
  *pNew = 1;
  return g;
}

/* One thread's share of a wide merge. */
typedef struct WideJob {
  Exec *e;
  int j, nJob;                      /* its share, of how many */
  int64_t *pnGroup;                 /* the main part's groups (atomic) */
  uint64_t **aHash;                 /* [part]: each group's hash */
  int rc;
  const char *zNotSame;             /* its qxNotSame, if any (the message in its run) */
  qrun *r;                          /* the run keeping its bytes */
} WideJob;

/* The share of hash h among n. */
static int wideShare(uint64_t h, int n){ return (int)(((h >> 32)*(uint64_t)n) >> 32); }

static void *wideHash(void *pArg){
  WideJob *j = (WideJob*)pArg;
  Part *q = &j->e->aPart[j->j];
  int64_t g;
  for(g=0; g<q->nGroup; g++) j->aHash[j->j][g] = qxHashKey(q->gk[g].z, q->gk[g].n);
  return 0;
}

static void *wideJob(void *pArg){
  WideJob *j = (WideJob*)pArg;
  Exec *e = j->e;
  const qplan *pl = e->pl;
  Part v = e->main;                 /* the main part, seen by this thread: its run and errors its own */
  int w, isNew, rc = SQLITE_OK;
  v.r = j->r;
  v.zNotSame = 0;
  for(w=0; w<e->nPart && rc==SQLITE_OK; w++){
    Part *q = &e->aPart[w];
    const uint64_t *aH = j->aHash[w];
    int64_t g, h;
    for(g=0; g<q->nGroup && rc==SQLITE_OK; g++){
      if( wideShare(aH[g], j->nJob)!=j->j ) continue;
      if( (h = groupClaim(&v, j->pnGroup, q->gk[g].z, q->gk[g].n, aH[g], &isNew))<0 ){ rc = SQLITE_NOMEM; break; }
      rc = groupMerge(&v, pl, q, g, h, isNew);   /* (no DISTINCT here: wideMerge) */
    }
  }
  j->rc = rc;
  j->zNotSame = v.zNotSame;
  return 0;
}

/* Do the parts hardly share their groups, and are they many (no DISTINCT,
** whose sets' pairs name groups by number)? */
static int wideMerge(const Exec *e, int64_t *pnAll){
  const qplan *pl = e->pl;
  const Part *p0 = &e->aPart[0], *p1 = &e->aPart[1];
  int64_t n = e->main.nGroup, i, nShared = 0, nLook;
  int w, k;
  if( e->nPart<2 || pl->nKey==0 ) return 0;
  for(k=0; k<pl->nAgg; k++) if( Q_DEDUP(&pl->aAgg[k]) ) return 0;
  for(w=0; w<e->nPart; w++) n += e->aPart[w].nGroup;
  *pnAll = n;
  if( n<WIDE_MIN || p0->hAlloc==0 || p1->nGroup==0 ) return 0;
  nLook = p1->nGroup<WIDE_SAMPLE ? p1->nGroup : WIDE_SAMPLE;
  for(i=0; i<nLook; i++){
    const GKey *x = &p1->gk[i*p1->nGroup/nLook];
    nShared += groupFind(p0, x->z, x->n, qxHashKey(x->z, x->n))>=0;
  }
  return nShared*8<=nLook;          /* an eighth or less */
}

/* The workers' parts into the main one at once (wideMerge said so): nAll
** groups at most. */
static int mergeWide(Exec *e, int64_t nAll){
  WideJob a[GA_THREADS_MAX + 1];
  uint64_t *aHash[GA_THREADS_MAX + 1];
  int64_t nGroup = e->main.nGroup;
  int n = e->nPart, w, rc;
  assert( n<=GA_THREADS_MAX + 1 );
  if( nAll>e->main.gAlloc && (rc = growGroups(&e->main, e->pl, nAll, e->nPart))!=SQLITE_OK ) return rc;
  memset(aHash, 0, sizeof(aHash));
  for(w=0; w<n; w++){
    a[w].e = e;
    a[w].j = w;
    a[w].nJob = n;
    a[w].pnGroup = &nGroup;
    a[w].aHash = aHash;
    a[w].rc = SQLITE_OK;
    a[w].zNotSame = 0;
    a[w].r = e->aPart[w].r;
    if( (aHash[w] = ga_malloc64(8*(uint64_t)(e->aPart[w].nGroup + 1)))==0 ){
      for(w=0; w<n; w++) ga_free(aHash[w]);
      return SQLITE_NOMEM;
    }
  }
  q_fan(n, wideHash, a, sizeof(a[0]));
  q_fan(n, wideJob, a, sizeof(a[0]));
  e->main.nGroup = nGroup;
  assert( nGroup<=e->main.gAlloc );
  rc = SQLITE_OK;
  for(w=0; w<n; w++){
    q_keep_move(e->main.r, e->aPart[w].r);   /* (the main part's groups show their bytes) */
    ga_free(aHash[w]);
    if( rc==SQLITE_OK && a[w].zNotSame ){
      e->main.zNotSame = a[w].zNotSame;
      rc = q_run_error(e->main.r, QE_BAIL, "%s", a[w].zNotSame);
    }
    if( rc==SQLITE_OK ) rc = a[w].rc;
  }
  return rc;
}

/* The workers' parts into the main one: at once where they are many and
** hardly shared (mergeWide), else pairwise, each round's merges on
** threads of their own (part w takes part w + s), then the first into the
** main part. The order of merging decides nothing: positions decide first
** rows and ties, sums are exact, DISTINCT's pairs are sets. */
int qxPartsMerge(Exec *e){
  MergeJob *a;
  int64_t nAll = 0;
  int s, w, rc = SQLITE_OK;
  if( e->nPart==0 ) return SQLITE_OK;
  if( wideMerge(e, &nAll) ) return mergeWide(e, nAll);
  if( (a = ga_malloc64(sizeof(MergeJob)*(uint64_t)e->nPart))==0 ) return SQLITE_NOMEM;
  for(s=1; s<e->nPart && rc==SQLITE_OK; s*=2){
    int n = 0, j;
    for(w=0; w + s<e->nPart; w+=2*s){
      a[n].e = e;
      a[n].p = &e->aPart[w];
      a[n].q = &e->aPart[w + s];
      a[n].rc = SQLITE_OK;
      n++;
    }
    q_fan(n, mergeJob, a, sizeof(a[0]));
    for(j=0; j<n; j++) if( rc==SQLITE_OK ) rc = a[j].rc;
  }
  ga_free(a);
  return rc==SQLITE_OK ? partMerge(e, &e->main, &e->aPart[0]) : rc;
}

/* A part's state for plan pl, on run r (owned by the part). */
int qxPartInit(Part *p, const qplan *pl, qrun *r){
  int k;
  memset(p, 0, sizeof(*p));
  p->r = r;
  p->strict = pl->strict;
  if( r==0 ) return SQLITE_NOMEM;
  if( pl->nAgg && (p->aAgg = ga_malloc64(sizeof(Agg)*(uint64_t)pl->nAgg))==0 ) return SQLITE_NOMEM;
  if( p->aAgg ) memset(p->aAgg, 0, sizeof(Agg)*(size_t)pl->nAgg);
  for(k=0; k<pl->nAgg; k++) p->aAgg[k].g = &pl->aAgg[k];
  if( pl->grouped && pl->nKey==0 ){
    int rc = growGroups(p, pl, 0, 1);  /* one group, rows or none */
    if( rc ) return rc;
    p->nGroup = 1;
    p->gPos[0] = INT64_MAX;         /* no row shows it yet: its bare columns NULL */
    for(k=0; k<pl->nBare; k++){
      memset(&p->gKey[k], 0, sizeof(qval));
      p->gKey[k].t = SQLITE_NULL;
    }
  }
  return SQLITE_OK;
}

void qxPartFree(Part *p, const qplan *pl, int freeRun){
  int k;
  for(k=0; p->aAgg && k<pl->nAgg; k++){
    Agg *a = &p->aAgg[k];
    if( a->sum ){
      int64_t g;
      for(g=0; g<p->nGroup; g++) ga_free(a->sum[g].w);
    }
    if( a->var || a->keys ){
      int64_t g;
      for(g=0; g<p->nGroup; g++){
        if( a->var ) ga_free(a->var[g]);
        if( a->keys ) ga_free(a->keys[g].a);
      }
    }
    ga_free(a->cnt); ga_free(a->sum); ga_free(a->ext); ga_free(a->extPos); ga_free(a->res);
    ga_free(a->argA); ga_free(a->var); ga_free(a->keys);
    qxKeySetFree(&a->dset); ga_free(a->dv); ga_free(a->dp);
  }
  ga_free(p->aAgg);
  ga_free(p->gKey);
  ga_free(p->gPos);
  ga_free(p->hs);
  ga_free(p->gk);
  ga_free(p->kbuf);
  ga_free(p->aB);
  if( freeRun ) q_run_free(p->r);
  memset(p, 0, sizeof(*p));
}
