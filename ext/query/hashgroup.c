/*
** gpu_query's CPU operators (exec.c's requirements 3 and 7): the groups'
** hash table of a part (a worker's or the scan thread's) over canonical
** keys (keys.c), and the Combine phase: the parts merged into the main one
** when the scan ends.
*/
#include "execint.h"

/* p with room for nNew items of sz bytes, those past nOld zeroed (zero)
** or left as they are (a group's key, position and bytes are set as it is
** made: zeroing them would only touch fresh pages). */
static void *grow(void *p, int64_t nOld, int64_t nNew, int sz, int zero){
  char *q = sqlite3_realloc64(p, (uint64_t)sz*(uint64_t)nNew);
  if( q && zero ) memset(q + (size_t)sz*(size_t)nOld, 0, (size_t)sz*(size_t)(nNew - nOld));
  return q;
}

static int growGroups(Part *p, const qplan *pl, int64_t need){
  int64_t n = p->gAlloc ? 2*p->gAlloc : 64, a, j;
  while( n<need ) n *= 2;
  int nk = SHOWN(pl) ? SHOWN(pl) : 1;
  void *x;
  if( (x = grow(p->gKey, p->gAlloc*nk, n*nk, sizeof(qval), 0))==0 ) return SQLITE_NOMEM;
  p->gKey = x;
  if( (x = grow(p->gPos, p->gAlloc, n, 8, 0))==0 ) return SQLITE_NOMEM;
  p->gPos = x;
  if( (x = grow(p->gk, p->gAlloc, n, sizeof(GKey), 0))==0 ) return SQLITE_NOMEM;
  p->gk = x;
  for(a=0; a<pl->nAgg; a++){
    Agg *g = &p->aAgg[a];
    switch( g->g->fn ){
      case A_COUNT: case A_COUNTSTAR:
        if( (x = grow(g->cnt, p->gAlloc, n, 8, 1))==0 ) return SQLITE_NOMEM;
        g->cnt = x;
        break;
      case A_SUM: case A_TOTAL: case A_AVG:
        if( (x = grow(g->sum, p->gAlloc, n, sizeof(QSum), 1))==0 ) return SQLITE_NOMEM;
        g->sum = x;
        break;
      case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP:
        if( (x = grow(g->var, p->gAlloc, n, sizeof(QVar*), 1))==0 ) return SQLITE_NOMEM;
        g->var = x;
        break;
      case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
        if( (x = grow(g->keys, p->gAlloc, n, sizeof(QKeys), 1))==0 ) return SQLITE_NOMEM;
        g->keys = x;
        break;
      default:                      /* min, max, argmin, argmax */
        if( (x = grow(g->ext, p->gAlloc, n, sizeof(qval), 1))==0 ) return SQLITE_NOMEM;
        g->ext = x;
        for(j=p->gAlloc; j<n; j++) g->ext[j].t = SQLITE_NULL;
        if( (x = grow(g->extPos, p->gAlloc, n, 8, 1))==0 ) return SQLITE_NOMEM;
        g->extPos = x;
        if( g->g->fn==A_ARGMIN || g->g->fn==A_ARGMAX ){
          if( (x = grow(g->argA, p->gAlloc, n, sizeof(qval), 1))==0 ) return SQLITE_NOMEM;
          g->argA = x;
        }
        break;
    }
  }
  p->gAlloc = n;
  /* the hash table: twice the groups */
  {
    int64_t m = 2*n;
    HSlot *hs = sqlite3_malloc64(sizeof(HSlot)*(uint64_t)m);
    if( hs==0 ) return SQLITE_NOMEM;
    memset(hs, 0, sizeof(HSlot)*(size_t)m);
    for(j=0; j<p->hAlloc; j++){
      if( p->hs[j].h ){
        int64_t t = (int64_t)(p->hs[j].h & (uint64_t)(m - 1));
        while( hs[t].h ) t = (t + 1) & (m - 1);
        hs[t] = p->hs[j];
      }
    }
    sqlite3_free(p->hs);
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

/* The group of the canonical key z[0..n) (hashKey: h) into *pg; *pNew set
** if it was made (its key values and position are the caller's to set). */
int qxGroupOf(Part *p, const qplan *pl, const char *z, int n, uint64_t h, int64_t *pg, int *pNew){
  uint64_t k[2] = { KEY_LONG, 0 };
  int64_t s;
  int rc;
  if( n<=16 ){
    k[0] = 0;
    memcpy(k, z, (size_t)n);
  }
  if( p->nGroup>=p->gAlloc && (rc = growGroups(p, pl, 0))!=SQLITE_OK ) return rc;
  for(s = (int64_t)(h & (uint64_t)(p->hAlloc - 1)); p->hs[s].h; s = (s + 1) & (p->hAlloc - 1)){
    const HSlot *e = &p->hs[s];
    if( e->h==h && e->k[0]==k[0] && e->k[1]==k[1]
     && (n<=16 || (p->gk[e->g].n==n && sameKey(p->gk[e->g].z, z, n))) ){
      *pg = e->g;
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

/* Merge part q into p (exec.c, 7): groups by their canonical keys,
** positions deciding the first row and ties. */
static int partMerge(Exec *e, Part *p, Part *q){
  const qplan *pl = e->pl;
  int64_t g, h, *gh = 0;
  int k, rc, isNew;
  for(k=0; k<pl->nAgg && gh==0; k++){
    if( Q_DEDUP(&pl->aAgg[k]) && (gh = sqlite3_malloc64(8*(uint64_t)(q->nGroup + 1)))==0 ) return SQLITE_NOMEM;
  }
  for(g=0; g<q->nGroup; g++){
    if( pl->nKey==0 ){
      h = 0;
      isNew = 0;
    }else if( (rc = qxGroupOf(p, pl, q->gk[g].z, q->gk[g].n, qxHashKey(q->gk[g].z, q->gk[g].n), &h, &isNew))!=SQLITE_OK ){
      sqlite3_free(gh);
      return rc;
    }
    if( gh ) gh[g] = h;
    if( p->strict && !isNew && pl->nKey ){
      for(k=0; k<pl->nKey; k++){
        if( !qxSameVal(&q->gKey[g*SHOWN(pl) + k], &p->gKey[h*SHOWN(pl) + k]) ){
          sqlite3_free(gh);
          return qxNotSame(p, Q_NOT_SAME("GROUP BY values"));
        }
      }
    }
    if( SHOWN(pl) && (isNew || q->gPos[g]<p->gPos[h]) ){
      p->gPos[h] = q->gPos[g];
      if( (rc = setKeys(p, SHOWN(pl), h, &q->gKey[g*SHOWN(pl)]))!=SQLITE_OK ){ sqlite3_free(gh); return rc; }
    }
    for(k=0; k<pl->nAgg; k++){
      if( Q_DEDUP(&pl->aAgg[k]) ) continue;   /* its set, below */
      if( (rc = qxAggMerge(p, &p->aAgg[k], h, &q->aAgg[k], g))!=SQLITE_OK ){ sqlite3_free(gh); return rc; }
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
  sqlite3_free(gh);
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

/* The workers' parts into the main one: pairwise, each round's merges on
** threads of their own (part w takes part w + s), then the first into the
** main part. The order of merging decides nothing: positions decide first
** rows and ties, sums are exact, DISTINCT's pairs are sets. */
int qxPartsMerge(Exec *e){
  MergeJob *a;
  int s, w, rc = SQLITE_OK;
  if( e->nPart==0 ) return SQLITE_OK;
  if( (a = sqlite3_malloc64(sizeof(MergeJob)*(uint64_t)e->nPart))==0 ) return SQLITE_NOMEM;
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
  sqlite3_free(a);
  return rc==SQLITE_OK ? partMerge(e, &e->main, &e->aPart[0]) : rc;
}

/* A part's state for plan pl, on run r (owned by the part). */
int qxPartInit(Part *p, const qplan *pl, qrun *r){
  int k;
  memset(p, 0, sizeof(*p));
  p->r = r;
  p->strict = pl->strict;
  if( r==0 ) return SQLITE_NOMEM;
  if( pl->nAgg && (p->aAgg = sqlite3_malloc64(sizeof(Agg)*(uint64_t)pl->nAgg))==0 ) return SQLITE_NOMEM;
  if( p->aAgg ) memset(p->aAgg, 0, sizeof(Agg)*(size_t)pl->nAgg);
  for(k=0; k<pl->nAgg; k++) p->aAgg[k].g = &pl->aAgg[k];
  if( pl->grouped && pl->nKey==0 ){
    int rc = growGroups(p, pl, 0);  /* one group, rows or none */
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
      for(g=0; g<p->nGroup; g++) sqlite3_free(a->sum[g].w);
    }
    if( a->var || a->keys ){
      int64_t g;
      for(g=0; g<p->nGroup; g++){
        if( a->var ) sqlite3_free(a->var[g]);
        if( a->keys ) sqlite3_free(a->keys[g].a);
      }
    }
    sqlite3_free(a->cnt); sqlite3_free(a->sum); sqlite3_free(a->ext); sqlite3_free(a->extPos); sqlite3_free(a->res);
    sqlite3_free(a->argA); sqlite3_free(a->var); sqlite3_free(a->keys);
    qxKeySetFree(&a->dset); sqlite3_free(a->dv); sqlite3_free(a->dp);
  }
  sqlite3_free(p->aAgg);
  sqlite3_free(p->gKey);
  sqlite3_free(p->gPos);
  sqlite3_free(p->hs);
  sqlite3_free(p->gk);
  sqlite3_free(p->kbuf);
  sqlite3_free(p->aB);
  if( freeRun ) q_run_free(p->r);
  memset(p, 0, sizeof(*p));
}
