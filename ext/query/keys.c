/*
** gpu_query's CPU operators: canonical keys (exec.c's requirement 3), the
** bytes that compare as SQLite compares a value under a collation, their
** hash, and the sets of them DISTINCT and rows keep; where two values that
** compare equal differ and the plan is strict, the run is SQLite's
** (exec.c, 12). Every operator above uses these; they use none.
*/
#include "execint.h"

/* Room for n bytes (at most 1 GiB) in p->kbuf. */
int qxKbufRoom(Part *p, int n){
  if( n>p->kAlloc ){
    char *b = ga_realloc64(p->kbuf, n + n/2 + 64);
    if( b==0 ) return SQLITE_NOMEM;
    p->kbuf = b;
    p->kAlloc = n + n/2 + 64;
  }
  return SQLITE_OK;
}

/* Append x's key under coll to p->kbuf at *pn (exec.c, 3): a batch's
** keys, at most 1 GiB of them (more is left to SQLite). */
int qxKeyOf(Part *p, const qval *x, int coll, int *pn){
  int64_t need = (int64_t)*pn + 13 + (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ? (int64_t)x->n + 4 : 0);
  int rc;
  if( need>((int64_t)1<<30) ) return q_run_error(p->r, QE_BAIL, "group keys of more than 1 GiB in a batch of rows");
  if( (rc = qxKbufRoom(p, (int)need))!=SQLITE_OK ) return rc;
  *pn += q_key_bytes(x, coll, p->kbuf + *pn);
  return SQLITE_OK;
}

uint64_t qxHashKey(const char *z, int n){
  return q_hash(0xcbf29ce484222325ull, z, n) | 1;
}

/* Add key z[0..n) to set s (its bytes kept by run r): *pNew set if it was
** not there, its id in *pId. */
int qxKeySetAdd(qrun *r, KeySet *s, const char *z, int n, int *pNew, int64_t *pId){
  uint64_t h = qxHashKey(z, n);
  int64_t t;
  if( s->n*2>=s->nSlot ){
    int64_t m = s->nSlot ? 2*s->nSlot : 1024, j;
    uint64_t *aH = ga_malloc64(8*(uint64_t)m);
    int64_t *aId = ga_malloc64(8*(uint64_t)m);
    if( aH==0 || aId==0 ){ ga_free(aH); ga_free(aId); return SQLITE_NOMEM; }
    memset(aH, 0, 8*(size_t)m);
    for(j=0; j<s->nSlot; j++){
      if( s->aH[j] ){
        t = (int64_t)(s->aH[j] & (uint64_t)(m - 1));
        while( aH[t] ) t = (t + 1) & (m - 1);
        aH[t] = s->aH[j];
        aId[t] = s->aId[j];
      }
    }
    ga_free(s->aH); ga_free(s->aId);
    s->aH = aH; s->aId = aId;
    s->nSlot = m;
  }
  for(t = (int64_t)(h & (uint64_t)(s->nSlot - 1)); s->aH[t]; t = (t + 1) & (s->nSlot - 1)){
    int64_t id = s->aId[t];
    if( s->aH[t]==h && s->an[id]==n && memcmp(s->az[id], z, (size_t)n)==0 ){
      *pNew = 0;
      *pId = id;
      return SQLITE_OK;
    }
  }
  if( s->n==s->nAlloc ){
    int64_t m = s->nAlloc ? 2*s->nAlloc : 512;
    const char **az = ga_realloc64(s->az, sizeof(char*)*(uint64_t)m);
    int *an;
    if( az==0 ) return SQLITE_NOMEM;
    s->az = az;
    if( (an = ga_realloc64(s->an, sizeof(int)*(uint64_t)m))==0 ) return SQLITE_NOMEM;
    s->an = an;
    s->nAlloc = m;
  }
  if( (s->az[s->n] = q_keep(r, z, n))==0 ) return SQLITE_NOMEM;
  s->an[s->n] = n;
  s->aH[t] = h;
  s->aId[t] = s->n;
  *pId = s->n++;
  *pNew = 1;
  return SQLITE_OK;
}

void qxKeySetFree(KeySet *s){
  ga_free(s->aH); ga_free(s->aId); ga_free(s->az); ga_free(s->an);
  memset(s, 0, sizeof(*s));
}

/* Values that compare equal but differ where the plan is strict (12):
** zWhy, and the run is SQLite's. */
int qxNotSame(Part *p, const char *zWhy){
  p->zNotSame = zWhy;
  return q_run_error(p->r, QE_BAIL, "%s", zWhy);
}

int qxCmpU64(const void *x, const void *y){
  uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return (a>b) - (a<b);
}
