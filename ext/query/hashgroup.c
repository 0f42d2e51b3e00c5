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

/* Room in p's arrays for n groups, those past gAlloc zeroed (on nThread
** threads) where zero is set, else left for the caller to fill. */
static int growArrays(Part *p, const qplan *pl, int64_t n, int zero, int nThread){
  int nk = SHOWN(pl) ? SHOWN(pl) : 1, a;
  int64_t j;
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
        if( (x = grow(g->cnt, p->gAlloc, n, 8, zero, nThread))==0 ) return SQLITE_NOMEM;
        g->cnt = x;
        break;
      case A_SUM: case A_TOTAL: case A_AVG:
        if( (x = grow(g->sum, p->gAlloc, n, sizeof(QSum), zero, nThread))==0 ) return SQLITE_NOMEM;
        g->sum = x;
        break;
      case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP:
        if( (x = grow(g->var, p->gAlloc, n, sizeof(QVar*), zero, nThread))==0 ) return SQLITE_NOMEM;
        g->var = x;
        break;
      case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
        if( (x = grow(g->keys, p->gAlloc, n, sizeof(QKeys), zero, nThread))==0 ) return SQLITE_NOMEM;
        g->keys = x;
        break;
      default:                      /* min, max, argmin, argmax */
        if( (x = grow(g->ext, p->gAlloc, n, sizeof(qval), zero, nThread))==0 ) return SQLITE_NOMEM;
        g->ext = x;
        for(j=p->gAlloc; zero && j<n; j++) g->ext[j].t = SQLITE_NULL;
        if( (x = grow(g->extPos, p->gAlloc, n, 8, zero, nThread))==0 ) return SQLITE_NOMEM;
        g->extPos = x;
        if( g->g->fn==A_ARGMIN || g->g->fn==A_ARGMAX ){
          if( (x = grow(g->argA, p->gAlloc, n, sizeof(qval), zero, nThread))==0 ) return SQLITE_NOMEM;
          g->argA = x;
        }
        break;
    }
  }
  p->gAlloc = n;
  return SQLITE_OK;
}

/* Room in p for need groups (0: one more), its new arrays zeroed on
** nThread threads. */
static int growGroups(Part *p, const qplan *pl, int64_t need, int nThread){
  int64_t n = p->gAlloc ? 2*p->gAlloc : 64, j;
  int rc;
  while( n<need ) n *= 2;
  if( (rc = growArrays(p, pl, n, 1, nThread))!=SQLITE_OK ) return rc;
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

/* ---- wide groupings: every part's groups appended to the main one ----------------------- */

/* Many groups in parts that hardly share them (a GROUP BY of a key the
** table is in the order of: each worker's rows have keys of their own)
** make the pairwise merge below a chain of large merges, the last ones on
** one thread: TPC-H Q18's 1.5M orders a second of its first read on 16
** threads. Such parts are appended instead. The main part takes the first
** part's arrays as they are (where the scan's thread made no groups of
** its own: else its groups stay first), and every later part's groups
** that no earlier part has are copied after them, their state moved (its
** pointers, and the bytes its run kept, become the main part's); a group
** an earlier part has is merged into that one (groupMerge).
**
** Which part has a key first is found in one table of every part's
** groups, a slot a key: its hash and its owner (part and group). Each
** thread claims the keys whose hashes fall in its share, the parts in
** order, so the first part that has a key owns it. A key is only ever
** looked for by the thread of its share, so a slot is claimed by an
** atomic exchange of its hash and its owner is then read by that thread
** alone (other threads compare the hash, which differs, and read no
** further). New memory: that table (16 bytes a slot, at most three
** quarters full), two words a group, and the groups appended: a merge
** into an empty part touched a table of 64 bytes a group and every
** group's state, zeroed first, of fresh pages (here, 2 cores, a VM whose
** page faults are costly, TPC-H SF 1's 1.5M orders: 1.8 s, now 0.75). The
** main part's own table is left stale, and freed: after the merge groups
** are read by their numbers. */
#define WIDE_MIN    65536           /* groups in all the parts from which they may go at once */
#define WIDE_SAMPLE 256             /* groups of part 1 looked for in part 0: how much they share */
#define WIDE_G      40              /* an owner's part above this bit, its group below */

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

typedef struct WSlot { uint64_t h, owner; } WSlot;   /* a key's hash (0: none) and its owner */
#define WIDE_OF    ((int64_t)1<<62)  /* aOwn: an owner (part << WIDE_G | group) follows */
#define WIDE_GMASK (((uint64_t)1<<WIDE_G) - 1)

/* One thread's share of a wide merge: the keys whose hashes fall in share
** j of nJob (wideClaim), else part j's groups (the others). */
typedef struct WideJob {
  Exec *e;
  int j, nJob;
  Part **aSrc; int nSrc;            /* the parts in order, the main part first */
  uint64_t **aHash;                 /* [part][group]: its key's hash */
  int64_t **aOwn;                   /* [part][group]: -1 where the part owns the key, else WIDE_OF |
                                    ** its owner; then an owned group's place in the main part, and
                                    ** another's -2 - its owner's place */
  WSlot *aSlot; uint64_t mask;      /* the table of keys */
  int64_t nOwn, at, nDup;           /* part j's groups it owns, the place of the first, the others */
} WideJob;

/* The share of hash h among n (a table's slot comes from its low bits). */
static int wideShare(uint64_t h, int n){ return (int)(((h >> 32)*(uint64_t)n) >> 32); }

static void *wideHash(void *pArg){
  WideJob *j = (WideJob*)pArg;
  const Part *q = j->aSrc[j->j];
  int64_t g;
  for(g=0; g<q->nGroup; g++) j->aHash[j->j][g] = qxHashKey(q->gk[g].z, q->gk[g].n);
  return 0;
}

static void *wideClaim(void *pArg){
  WideJob *j = (WideJob*)pArg;
  int s;
  for(s=0; s<j->nSrc; s++){
    const Part *q = j->aSrc[s];
    const uint64_t *aH = j->aHash[s];
    int64_t g, t;
    for(g=0; g<q->nGroup; g++){
      uint64_t h = aH[g], seen;
      if( wideShare(h, j->nJob)!=j->j ) continue;
      for(t = (int64_t)((h >> 1) & j->mask); ; t = (t + 1) & (int64_t)j->mask){
        WSlot *e = &j->aSlot[t];
        seen = __atomic_load_n(&e->h, __ATOMIC_ACQUIRE);
        if( seen==0 && __atomic_compare_exchange_n(&e->h, &seen, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ){
          e->owner = (uint64_t)s<<WIDE_G | (uint64_t)g;
          j->aOwn[s][g] = -1;
          break;
        }
        if( seen==h ){
          const GKey *o = &j->aSrc[e->owner>>WIDE_G]->gk[e->owner & WIDE_GMASK];
          if( o->n==q->gk[g].n && memcmp(o->z, q->gk[g].z, (size_t)o->n)==0 ){
            j->aOwn[s][g] = WIDE_OF | (int64_t)e->owner;
            break;
          }
        }
      }
    }
  }
  return 0;
}

/* Part j's owned groups counted. */
static void *wideCount(void *pArg){
  WideJob *j = (WideJob*)pArg;
  const int64_t *aOwn = j->aOwn[j->j];
  int64_t g, n = 0, nGroup = j->aSrc[j->j]->nGroup;
  for(g=0; g<nGroup; g++) n += aOwn[g]==-1;
  j->nOwn = n;
  return 0;
}

/* Part j's owned groups given their places from j->at (the main part's:
** where they are). */
static void *wideNumber(void *pArg){
  WideJob *j = (WideJob*)pArg;
  int64_t *aOwn = j->aOwn[j->j], g, at = j->at, nGroup = j->aSrc[j->j]->nGroup;
  for(g=0; g<nGroup; g++) if( aOwn[g]==-1 ) aOwn[g] = j->j ? at++ : g;
  return 0;
}

/* Group g of b's state moved to group t of a. */
static void aggMove(Agg *a, int64_t t, Agg *b, int64_t g){
  switch( a->g->fn ){
    case A_COUNT: case A_COUNTSTAR: a->cnt[t] = b->cnt[g]; break;
    case A_SUM: case A_TOTAL: case A_AVG: a->sum[t] = b->sum[g]; b->sum[g].w = 0; break;
    case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP: a->var[t] = b->var[g]; b->var[g] = 0; break;
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
      a->keys[t] = b->keys[g];
      memset(&b->keys[g], 0, sizeof(QKeys));
      break;
    default:
      a->ext[t] = b->ext[g];
      a->extPos[t] = b->extPos[g];
      if( a->argA ) a->argA[t] = b->argA[g];
      break;
  }
}

/* Part j's (j > 0) other groups given their owners' places, and its owned
** groups moved to theirs in the main part (aSrc[0], grown for them). The
** owners' places read are owned groups', which no thread writes now. */
static void *wideMove(void *pArg){
  WideJob *j = (WideJob*)pArg;
  const qplan *pl = j->e->pl;
  Part *p = j->aSrc[0], *q = j->aSrc[j->j];
  int64_t *aOwn = j->aOwn[j->j], g, t, nDup = 0;
  int nk = SHOWN(pl), k;
  for(g=0; g<q->nGroup; g++){
    if( aOwn[g]&WIDE_OF ){
      uint64_t o = (uint64_t)(aOwn[g] & ~WIDE_OF);
      aOwn[g] = -2 - j->aOwn[o>>WIDE_G][o & WIDE_GMASK];   /* (the main part's places are its numbers) */
      nDup++;
      continue;
    }
    t = aOwn[g];
    for(k=0; k<nk; k++) p->gKey[t*nk + k] = q->gKey[g*nk + k];
    p->gPos[t] = q->gPos[g];
    p->gk[t] = q->gk[g];
    for(k=0; k<pl->nAgg; k++) aggMove(&p->aAgg[k], t, &q->aAgg[k], g);
  }
  j->nDup = nDup;
  return 0;
}

/* a's groups (its arrays and their count, its table) and b's swapped. */
static void swapGroups(Part *a, Part *b, const qplan *pl){
  Part t = *a;
  int k;
  a->nGroup = b->nGroup; a->gAlloc = b->gAlloc; a->gKey = b->gKey; a->gPos = b->gPos; a->hs = b->hs;
  a->hAlloc = b->hAlloc; a->gk = b->gk;
  b->nGroup = t.nGroup; b->gAlloc = t.gAlloc; b->gKey = t.gKey; b->gPos = t.gPos; b->hs = t.hs;
  b->hAlloc = t.hAlloc; b->gk = t.gk;
  for(k=0; k<pl->nAgg; k++){
    Agg *x = &a->aAgg[k], *y = &b->aAgg[k], u = *x;
    assert( !Q_DEDUP(x->g) && x->res==0 && y->res==0 );
    x->cnt = y->cnt; x->sum = y->sum; x->ext = y->ext; x->extPos = y->extPos; x->argA = y->argA;
    x->var = y->var; x->keys = y->keys;
    y->cnt = u.cnt; y->sum = u.sum; y->ext = u.ext; y->extPos = u.extPos; y->argA = u.argA;
    y->var = u.var; y->keys = u.keys;
  }
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

/* The workers' parts appended to the main one (wideMerge said so): nAll
** groups at most. */
static int mergeWide(Exec *e, int64_t nAll){
  const qplan *pl = e->pl;
  WideJob a[GA_THREADS_MAX + 1];
  Part *aSrc[GA_THREADS_MAX + 1], *p = &e->main;
  uint64_t *aHash[GA_THREADS_MAX + 1];
  int64_t *aOwn[GA_THREADS_MAX + 1], nSlot = 1024, at, g;
  WSlot *aSlot;
  int nSrc = 0, w = 0, rc = SQLITE_OK;
  if( p->nGroup==0 ){                /* the first part's groups are the main part's */
    swapGroups(p, &e->aPart[0], pl);
    q_keep_move(p->r, e->aPart[0].r);
    w = 1;
  }
  aSrc[nSrc++] = p;
  for(; w<e->nPart; w++) if( e->aPart[w].nGroup ) aSrc[nSrc++] = &e->aPart[w];
  assert( nSrc<=GA_THREADS_MAX + 1 );
  while( 3*nSlot<4*nAll ) nSlot *= 2;
  memset(aHash, 0, sizeof(aHash));
  memset(aOwn, 0, sizeof(aOwn));
  if( (aSlot = ga_malloc64(sizeof(WSlot)*(uint64_t)nSlot))==0 ) return SQLITE_NOMEM;
  zeroPar((char*)aSlot, sizeof(WSlot)*(size_t)nSlot, nSrc);
  for(w=0; w<nSrc; w++){
    memset(&a[w], 0, sizeof(a[w]));
    a[w].e = e;
    a[w].j = w;
    a[w].nJob = nSrc;
    a[w].aSrc = aSrc;
    a[w].nSrc = nSrc;
    a[w].aHash = aHash;
    a[w].aOwn = aOwn;
    a[w].aSlot = aSlot;
    a[w].mask = (uint64_t)nSlot - 1;
    if( (aHash[w] = ga_malloc64(8*(uint64_t)(aSrc[w]->nGroup + 1)))==0
     || (aOwn[w] = ga_malloc64(8*(uint64_t)(aSrc[w]->nGroup + 1)))==0 ){
      rc = SQLITE_NOMEM;
      goto done;
    }
  }
  q_fan(nSrc, wideHash, a, sizeof(a[0]));
  q_fan(nSrc, wideClaim, a, sizeof(a[0]));
  q_fan(nSrc, wideCount, a, sizeof(a[0]));
  for(w=0, at=0; w<nSrc; w++){
    a[w].at = at;
    at += a[w].nOwn;
  }
  assert( a[0].nOwn==p->nGroup );
  q_fan(nSrc, wideNumber, a, sizeof(a[0]));
  if( at>p->gAlloc && (rc = growArrays(p, pl, at, 0, nSrc))!=SQLITE_OK ) goto done;
  if( nSrc>1 ) q_fan(nSrc - 1, wideMove, a + 1, sizeof(a[0]));
  p->nGroup = at;
  ga_free(p->hs);                    /* (stale: the main part's groups are read by number now) */
  p->hs = 0;
  p->hAlloc = 0;
  for(w=1; w<nSrc; w++) q_keep_move(p->r, aSrc[w]->r);   /* (the main part's groups show their bytes) */
  /* the groups an earlier part has, merged into its group */
  for(w=1; w<nSrc && rc==SQLITE_OK; w++){
    for(g=0; a[w].nDup && g<aSrc[w]->nGroup && rc==SQLITE_OK; g++){
      if( aOwn[w][g]<-1 ) rc = groupMerge(p, pl, aSrc[w], g, -2 - aOwn[w][g], 0);
    }
  }
done:
  for(w=0; w<nSrc; w++){
    ga_free(aHash[w]);
    ga_free(aOwn[w]);
  }
  ga_free(aSlot);
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
