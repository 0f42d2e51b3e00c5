/*
** gpu_query's operators on the CPU: scan, filter, group, aggregate, finish.
**
**   1. Scan: the plan's columns from a column source (colsrc.h: the cache,
**      the pages, or the statement), in rowid order, a batch at a time.
**   2. Filter: WHERE's conjuncts in order, each over the rows the ones
**      before it kept; a row stays where the conjunct is true.
**   3. Group: the keys' values, each made canonical as GROUP BY compares
**      them (an integral REAL is its integer; TEXT by its collation's key),
**      find the row's group; a new group keeps its first row's key values,
**      which are what SQLite shows for them. Without GROUP BY, one group.
**   4. Aggregate, per group: count; sum, total and avg exactly, rounded once
**      (as gpu_sum, gpu_total, gpu_avg), TEXT and BLOB read as sum() reads
**      them; min and max by the aggregate's collation, the first of equal
**      values staying; count(DISTINCT x) by x's collation.
**   5. Finish: groups in GROUP BY's order (ascending keys, NULL first), then
**      HAVING, the results, ORDER BY (stable), OFFSET and LIMIT; rows of a
**      query without aggregates in scan order, then the same.
**   6. A sum whose integers overflow, a LIMIT that is not an integer: the
**      run is left to SQLite (QE_BAIL), which reports what it reports.
*/
#include <string.h>
#include <math.h>
#include "query.h"
#include "tvf.h"

/* An exact sum (gpu_sum's): integers in 128 bits, reals in an expansion
** that spills into a full accumulator only when it must. */
typedef struct QSum {
  __int128 i;
  ga_fpe f;
  ga_sum *w;                       /* NULL until the expansion spills */
  int64_t nInt, nReal, nInf[2];
} QSum;

typedef struct Agg {
  const qagg *g;
  int64_t *cnt;                    /* count, count(*), count(DISTINCT) */
  QSum *sum;                       /* sum, total, avg */
  qval *ext;                       /* min, max */
  qval *res;                       /* final values, by group */
  /* count(DISTINCT): (group, value key) seen */
  uint64_t *dh; int64_t dAlloc, dN;
  const char **dk; int *dn;
} Agg;

typedef struct Exec {
  ga_colsink base;
  qrun *r;
  qplan *pl;
  int rc;
  /* groups */
  int64_t nGroup, gAlloc;
  qval *gKey;                      /* [g*nKey + k]: the first row's key values */
  uint64_t *hh; int64_t *hg; int64_t hAlloc;   /* hash -> group */
  const char **gk; int *gn;        /* each group's canonical key */
  char *kbuf; int kAlloc;          /* a row's canonical key being made */
  Agg *aAgg;
  /* rows (no aggregates) */
  qresult *out;
  int nW;                          /* values per row kept: results, then sort terms */
  int64_t rAlloc;
} Exec;

static double dbl(int64_t v){ double d; memcpy(&d, &v, 8); return d; }

/* ---- canonical keys -------------------------------------------------------------- */

/* Append x's key under coll to e->kbuf at *pn (requirement 3). */
static int keyOf(Exec *e, const qval *x, int coll, int *pn){
  int need = *pn + 13 + (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ? x->n + 4 : 0);
  char *p;
  if( need>e->kAlloc ){
    int n = need*2 + 64;
    char *b = sqlite3_realloc(e->kbuf, n);
    if( b==0 ) return SQLITE_NOMEM;
    e->kbuf = b;
    e->kAlloc = n;
  }
  p = e->kbuf + *pn;
  switch( x->t ){
    case SQLITE_NULL: p[0] = 0; *pn += 1; break;
    case SQLITE_INTEGER: p[0] = 1; memcpy(p + 1, &x->v, 8); *pn += 9; break;
    case SQLITE_FLOAT: {
      double d = dbl(x->v);
      if( d>=-9223372036854775808.0 && d<9223372036854775808.0 && d==floor(d) ){
        int64_t i = (int64_t)d;
        p[0] = 1; memcpy(p + 1, &i, 8);
      }else{
        p[0] = 2; memcpy(p + 1, &x->v, 8);
      }
      *pn += 9;
      break;
    }
    default: {
      int m = x->t==SQLITE_TEXT ? q_text_key(x->z, x->n, coll, p + 5) : (x->n ? (memcpy(p + 5, x->z, (size_t)x->n), x->n) : 0);
      p[0] = (char)(x->t==SQLITE_TEXT ? 3 : 4);
      memcpy(p + 1, &m, 4);
      *pn += 5 + m;
      break;
    }
  }
  return SQLITE_OK;
}

static uint64_t hashKey(const char *z, int n){
  uint64_t h = 0xcbf29ce484222325ull;
  int i = 0;
  for(; i + 8<=n; i+=8){
    uint64_t w;
    memcpy(&w, z + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
  }
  for(; i<n; i++) h = (h ^ (unsigned char)z[i]) * 0x100000001B3ull;
  h ^= h >> 29;
  return h | 1;
}

/* ---- groups and aggregates ---------------------------------------------------------- */

static int growGroups(Exec *e){
  qplan *pl = e->pl;
  int64_t n = e->gAlloc ? 2*e->gAlloc : 64, a;
  qval *k = sqlite3_realloc64(e->gKey, sizeof(qval)*(uint64_t)(n*(pl->nKey ? pl->nKey : 1)));
  if( k==0 ) return SQLITE_NOMEM;
  e->gKey = k;
  {
    const char **gk = sqlite3_realloc64(e->gk, sizeof(char*)*(uint64_t)n);
    int *gn;
    if( gk==0 ) return SQLITE_NOMEM;
    e->gk = gk;
    if( (gn = sqlite3_realloc64(e->gn, sizeof(int)*(uint64_t)n))==0 ) return SQLITE_NOMEM;
    e->gn = gn;
  }
  for(a=0; a<pl->nAgg; a++){
    Agg *g = &e->aAgg[a];
    switch( g->g->fn ){
      case A_COUNT: case A_COUNTSTAR: {
        int64_t *c = sqlite3_realloc64(g->cnt, 8*(uint64_t)n);
        if( c==0 ) return SQLITE_NOMEM;
        memset(c + e->gAlloc, 0, 8*(size_t)(n - e->gAlloc));
        g->cnt = c;
        break;
      }
      case A_SUM: case A_TOTAL: case A_AVG: {
        QSum *s = sqlite3_realloc64(g->sum, sizeof(QSum)*(uint64_t)n);
        if( s==0 ) return SQLITE_NOMEM;
        memset(s + e->gAlloc, 0, sizeof(QSum)*(size_t)(n - e->gAlloc));
        g->sum = s;
        break;
      }
      default: {
        qval *x = sqlite3_realloc64(g->ext, sizeof(qval)*(uint64_t)n);
        if( x==0 ) return SQLITE_NOMEM;
        memset(x + e->gAlloc, 0, sizeof(qval)*(size_t)(n - e->gAlloc));
        for(int64_t j=e->gAlloc; j<n; j++) x[j].t = SQLITE_NULL;
        g->ext = x;
        break;
      }
    }
  }
  e->gAlloc = n;
  /* the hash table: twice the groups */
  {
    int64_t m = 2*n, j;
    uint64_t *hh = sqlite3_malloc64(8*(uint64_t)m);
    int64_t *hg = sqlite3_malloc64(8*(uint64_t)m);
    if( hh==0 || hg==0 ){ sqlite3_free(hh); sqlite3_free(hg); return SQLITE_NOMEM; }
    memset(hh, 0, 8*(size_t)m);
    for(j=0; j<e->hAlloc; j++){
      if( e->hh[j] ){
        int64_t s = (int64_t)(e->hh[j] & (uint64_t)(m - 1));
        while( hh[s] ) s = (s + 1) & (m - 1);
        hh[s] = e->hh[j];
        hg[s] = e->hg[j];
      }
    }
    sqlite3_free(e->hh);
    sqlite3_free(e->hg);
    e->hh = hh;
    e->hg = hg;
    e->hAlloc = m;
  }
  return SQLITE_OK;
}

/* The group of the key in kbuf[0..n), made from the row's key values aK[]
** if new. */
static int groupOf(Exec *e, int n, qvec **aK, int row, int64_t *pg){
  uint64_t h = hashKey(e->kbuf, n);
  int64_t s;
  int rc, k;
  if( e->nGroup>=e->gAlloc && (rc = growGroups(e))!=SQLITE_OK ) return rc;
  for(s = (int64_t)(h & (uint64_t)(e->hAlloc - 1)); e->hh[s]; s = (s + 1) & (e->hAlloc - 1)){
    int64_t g = e->hg[s];
    if( e->hh[s]==h && e->gn[g]==n && memcmp(e->gk[g], e->kbuf, (size_t)n)==0 ){
      *pg = g;
      return SQLITE_OK;
    }
  }
  {
    int64_t g = e->nGroup++;
    if( (e->gk[g] = q_keep(e->r, e->kbuf, n))==0 ) return SQLITE_NOMEM;
    e->gn[g] = n;
    e->hh[s] = h;
    e->hg[s] = g;
    for(k=0; k<e->pl->nKey; k++){
      qval *x = &e->gKey[g*e->pl->nKey + k];
      q_get(aK[k], row, x);
      if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (x->z = q_keep(e->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
    }
    *pg = g;
  }
  return SQLITE_OK;
}

static void sumAdd(QSum *s, int t, int64_t v){
  if( t==SQLITE_INTEGER ){
    s->i += v;
    s->nInt++;
  }else{
    double d = dbl(v), rest;
    s->nReal++;
    if( !ga_is_finite(d) ){ s->nInf[d>0]++; return; }
    rest = ga_fpe_add(&s->f, d);
    if( rest!=0.0 ){
      if( s->w==0 ){
        if( (s->w = sqlite3_malloc(sizeof(ga_sum)))==0 ){ s->nInf[0] = -1; return; }
        memset(s->w, 0, sizeof(ga_sum));
      }
      ga_sum_word(s->w, rest);
    }
  }
}

/* The total, rounded once (gpu_sum's ga_sum_value). */
static double sumValue(const QSum *s){
  ga_sum a;
  ga_fpe f = s->f;
  if( s->nInf[0] && s->nInf[1] ) return NAN;
  if( s->nInf[0] || s->nInf[1] ) return s->nInf[1] ? INFINITY : -INFINITY;
  if( s->w ) a = *s->w;
  else memset(&a, 0, sizeof(a));
  a.lo = (uint64_t)s->i;
  a.hi = (int64_t)(s->i >> 64);
  ga_sum_settle(&a, &f);
  a.inf = 0;
  return ga_sum_value(&a);
}

/* count(DISTINCT): is (g, x) new? */
static int distinctNew(Exec *e, Agg *a, int64_t g, const qval *x, int *pNew){
  int n = 0, rc;
  uint64_t h;
  int64_t s;
  if( (rc = keyOf(e, x, a->g->coll, &n))!=SQLITE_OK ) return rc;
  if( n + 8>e->kAlloc ){
    char *b = sqlite3_realloc(e->kbuf, n + 72);
    if( b==0 ) return SQLITE_NOMEM;
    e->kbuf = b;
    e->kAlloc = n + 72;
  }
  memcpy(e->kbuf + n, &g, 8);
  n += 8;
  h = hashKey(e->kbuf, n);
  if( a->dN*2>=a->dAlloc ){
    int64_t m = a->dAlloc ? 2*a->dAlloc : 1024, j;
    uint64_t *dh = sqlite3_malloc64(8*(uint64_t)m);
    const char **dk = sqlite3_malloc64(sizeof(char*)*(uint64_t)m);
    int *dn = sqlite3_malloc64(sizeof(int)*(uint64_t)m);
    if( dh==0 || dk==0 || dn==0 ){ sqlite3_free(dh); sqlite3_free(dk); sqlite3_free(dn); return SQLITE_NOMEM; }
    memset(dh, 0, 8*(size_t)m);
    for(j=0; j<a->dAlloc; j++){
      if( a->dh[j] ){
        int64_t t = (int64_t)(a->dh[j] & (uint64_t)(m - 1));
        while( dh[t] ) t = (t + 1) & (m - 1);
        dh[t] = a->dh[j]; dk[t] = a->dk[j]; dn[t] = a->dn[j];
      }
    }
    sqlite3_free(a->dh); sqlite3_free(a->dk); sqlite3_free(a->dn);
    a->dh = dh; a->dk = dk; a->dn = dn;
    a->dAlloc = m;
  }
  for(s = (int64_t)(h & (uint64_t)(a->dAlloc - 1)); a->dh[s]; s = (s + 1) & (a->dAlloc - 1)){
    if( a->dh[s]==h && a->dn[s]==n && memcmp(a->dk[s], e->kbuf, (size_t)n)==0 ){
      *pNew = 0;
      return SQLITE_OK;
    }
  }
  if( (a->dk[s] = q_keep(e->r, e->kbuf, n))==0 ) return SQLITE_NOMEM;
  a->dh[s] = h;
  a->dn[s] = n;
  a->dN++;
  *pNew = 1;
  return SQLITE_OK;
}

/* Fold rows of ctx (their groups in aG) into aggregate a. hit, for min and
** max: set for each row whose value SQLite's min() or max() takes as its
** group's new one, or that is NULL before any value was (minmaxStep's rows
** that do not skip the accumulator load). */
static int aggFold(Exec *e, Agg *a, const qctx *ctx, const int64_t *aG, unsigned char *hit){
  const qagg *g = a->g;
  qvec *x = 0;
  int i, rc;
  if( g->fn==A_COUNTSTAR ){
    for(i=0; i<ctx->n; i++) a->cnt[aG[i]]++;
    return SQLITE_OK;
  }
  if( (rc = q_eval(e->r, g->x, ctx, &x))!=SQLITE_OK ) return rc;
  for(i=0; i<ctx->n; i++){
    int t = x->t[i];
    if( hit ) hit[i] = 0;
    if( t==SQLITE_NULL ){
      if( hit && a->ext[aG[i]].t==SQLITE_NULL ) hit[i] = 1;
      continue;
    }
    switch( g->fn ){
      case A_COUNT:
        if( g->distinct ){
          qval v;
          int isNew;
          q_get(x, i, &v);
          if( (rc = distinctNew(e, a, aG[i], &v, &isNew))!=SQLITE_OK ) return rc;
          a->cnt[aG[i]] += isNew;
        }else{
          a->cnt[aG[i]]++;
        }
        break;
      case A_SUM: case A_TOTAL: case A_AVG: {
        int nt = t;
        int64_t nv = x->v[i];
        if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
          qval v;
          q_get(x, i, &v);
          if( (rc = q_sumnum(e->r, &v, &nt, &nv))!=SQLITE_OK ) return rc;
        }
        sumAdd(&a->sum[aG[i]], nt, nv);
        break;
      }
      default: {
        qval v, *cur = &a->ext[aG[i]];
        int c;
        q_get(x, i, &v);
        if( cur->t!=SQLITE_NULL ){
          c = q_cmp(&v, cur, g->coll);
          if( g->fn==A_MIN ? c>=0 : c<=0 ) break;
        }
        if( (v.t==SQLITE_TEXT || v.t==SQLITE_BLOB) && (v.z = q_keep(e->r, v.z, v.n))==0 ) return SQLITE_NOMEM;
        *cur = v;
        if( hit ) hit[i] = 1;
        break;
      }
    }
  }
  return SQLITE_OK;
}

/* ---- the scan's sink ---------------------------------------------------------------------- */

static int rowsAppend(Exec *e, const qctx *ctx);

static int sinkBatch(ga_colsink *pSink, const ga_colbatch *b){
  Exec *e = (Exec*)pSink;
  qplan *pl = e->pl;
  int sel[GA_BATCH], sel2[GA_BATCH], n = b->n, i, k, rc = SQLITE_OK;
  int64_t aG[GA_BATCH];
  unsigned char aHit[GA_BATCH];
  qvec *aK[Q_MAXKEY];
  qctx ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.b = b;
  ctx.n = n;
  /* filter */
  for(k=0; k<pl->nConj && ctx.n; k++){
    qvec *v;
    int m = 0;
    if( (rc = q_eval(e->r, pl->aConj[k], &ctx, &v))!=SQLITE_OK ) goto done;
    for(i=0; i<ctx.n; i++){
      int t = v->t[i], yes;
      if( t==SQLITE_INTEGER ) yes = v->v[i]!=0;
      else if( t==SQLITE_NULL ) yes = 0;
      else if( (rc = q_true(e->r, v, i, &yes))!=SQLITE_OK ) goto done;
      if( yes ) sel2[m++] = ctx.sel ? ctx.sel[i] : i;
    }
    memcpy(sel, sel2, sizeof(int)*(size_t)m);
    ctx.sel = sel;
    ctx.n = m;
  }
  if( ctx.n==0 ) goto done;
  if( !pl->grouped ){
    rc = rowsAppend(e, &ctx);
    goto done;
  }
  /* group */
  if( pl->nKey==0 ){
    for(i=0; i<ctx.n; i++) aG[i] = 0;
  }else{
    for(k=0; k<pl->nKey; k++){
      if( (rc = q_eval(e->r, pl->aKey[k], &ctx, &aK[k]))!=SQLITE_OK ) goto done;
    }
    for(i=0; i<ctx.n; i++){
      int m = 0;
      for(k=0; k<pl->nKey; k++){
        qval x;
        q_get(aK[k], i, &x);
        if( (rc = keyOf(e, &x, pl->aKeyColl[k], &m))!=SQLITE_OK ) goto done;
      }
      if( (rc = groupOf(e, m, aK, i, &aG[i]))!=SQLITE_OK ) goto done;
    }
  }
  for(k=0; k<pl->nAgg; k++){
    if( (rc = aggFold(e, &e->aAgg[k], &ctx, aG, k==pl->iHit ? aHit : 0))!=SQLITE_OK ) goto done;
  }
  if( pl->iHit>=0 && pl->nKey ){
    /* the keys, as the rows min() or max() took show them; the keys were
    ** evaluated into their own buffers, which aggregates do not share */
    for(i=0; i<ctx.n; i++){
      if( !aHit[i] ) continue;
      for(k=0; k<pl->nKey; k++){
        qval *x = &e->gKey[aG[i]*pl->nKey + k];
        q_get(aK[k], i, x);
        if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (x->z = q_keep(e->r, x->z, x->n))==0 ){ rc = SQLITE_NOMEM; goto done; }
      }
    }
  }
done:
  e->rc = rc;
  return rc;
}

/* ---- rows of a query without aggregates ----------------------------------------------------- */

static int rowsGrow(Exec *e, int64_t need){
  qresult *o = e->out;
  if( need>e->rAlloc ){
    int64_t n = e->rAlloc ? 2*e->rAlloc : 1024;
    qval *a;
    while( n<need ) n *= 2;
    if( (a = sqlite3_realloc64(o->a, sizeof(qval)*(uint64_t)(n*e->nW)))==0 ) return SQLITE_NOMEM;
    o->a = a;
    e->rAlloc = n;
  }
  return SQLITE_OK;
}

/* Keep the results and sort terms of ctx's rows. */
static int rowsAppend(Exec *e, const qctx *ctx){
  qplan *pl = e->pl;
  qresult *o = e->out;
  int j, i, rc;
  if( (rc = rowsGrow(e, o->nRow + ctx->n))!=SQLITE_OK ) return rc;
  for(j=0; j<e->nW; j++){
    qexpr *x = j<pl->nOut ? pl->aOut[j] : pl->aSort[j - pl->nOut];
    qvec *v;
    if( (rc = q_eval(e->r, x, ctx, &v))!=SQLITE_OK ) return rc;
    for(i=0; i<ctx->n; i++){
      qval *d = &o->a[(o->nRow + i)*e->nW + j];
      q_get(v, i, d);
      if( (d->t==SQLITE_TEXT || d->t==SQLITE_BLOB) && (d->z = q_keep(e->r, d->z, d->n))==0 ) return SQLITE_NOMEM;
    }
  }
  o->nRow += ctx->n;
  return SQLITE_OK;
}

/* ---- finishing ------------------------------------------------------------------------------ */

static void groupLeaf(void *pArg, int isKey, int idx, int g, qval *out){
  Exec *e = (Exec*)pArg;
  *out = isKey ? e->gKey[(int64_t)g*e->pl->nKey + idx] : e->aAgg[idx].res[g];
}

/* Final aggregate values, by group. SQLITE_OK or QE_BAIL (a sum's integer
** overflow: SQLite reports it). */
static int aggFinal(Exec *e){
  int k;
  int64_t g;
  for(k=0; k<e->pl->nAgg; k++){
    Agg *a = &e->aAgg[k];
    if( (a->res = sqlite3_malloc64(sizeof(qval)*(uint64_t)(e->nGroup + 1)))==0 ) return SQLITE_NOMEM;
    for(g=0; g<e->nGroup; g++){
      qval *r = &a->res[g];
      memset(r, 0, sizeof(*r));
      switch( a->g->fn ){
        case A_COUNT: case A_COUNTSTAR:
          r->t = SQLITE_INTEGER; r->v = a->cnt[g];
          break;
        case A_MIN: case A_MAX:
          *r = a->ext[g];
          break;
        default: {
          const QSum *s = &a->sum[g];
          int64_t n = s->nInt + s->nReal;
          double d;
          if( s->nInf[0]<0 ) return SQLITE_NOMEM;
          if( a->g->fn!=A_TOTAL && n==0 ){ r->t = SQLITE_NULL; break; }
          if( a->g->fn==A_SUM && s->nReal==0 ){
            if( s->i<INT64_MIN || s->i>INT64_MAX ) return q_run_error(e->r, QE_BAIL, "a sum whose integers overflow (an error in SQLite)");
            r->t = SQLITE_INTEGER; r->v = (int64_t)s->i;
            break;
          }
          d = n ? sumValue(s) : 0.0;
          if( a->g->fn==A_AVG ) d = d/(double)n;
          if( d!=d ){ r->t = SQLITE_NULL; break; }
          r->t = SQLITE_FLOAT;
          memcpy(&r->v, &d, 8);
          break;
        }
      }
    }
  }
  return SQLITE_OK;
}

/* Stable merge sort of idx[0..n) by cmp. */
typedef int (*Cmp)(void*, int64_t, int64_t);
static void msort(int64_t *a, int64_t *tmp, int64_t n, Cmp cmp, void *arg){
  int64_t h = n/2, i = 0, j = h, k = 0;
  if( n<2 ) return;
  msort(a, tmp, h, cmp, arg);
  msort(a + h, tmp, n - h, cmp, arg);
  while( i<h && j<n ) tmp[k++] = cmp(arg, a[j], a[i])<0 ? a[j++] : a[i++];
  while( i<h ) tmp[k++] = a[i++];
  while( j<n ) tmp[k++] = a[j++];
  memcpy(a, tmp, sizeof(int64_t)*(size_t)n);
}

static int groupCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  int k, c;
  for(k=0; k<e->pl->nKey; k++){
    c = q_cmp(&e->gKey[x*e->pl->nKey + k], &e->gKey[y*e->pl->nKey + k], e->pl->aKeyColl[k]);
    if( c ) return c;
  }
  return 0;
}

static int sortCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  qplan *pl = e->pl;
  int k;
  for(k=0; k<pl->nSort; k++){
    const qval *a = &e->out->a[x*e->nW + pl->nOut + k], *b = &e->out->a[y*e->nW + pl->nOut + k];
    int an = a->t==SQLITE_NULL, bn = b->t==SQLITE_NULL, c;
    if( an || bn ){
      int nullsFirst = pl->aSortNulls[k] ? pl->aSortNulls[k]==1 : !pl->aSortDesc[k];
      if( an && bn ) continue;
      return (an ? -1 : 1)*(nullsFirst ? 1 : -1);
    }
    c = q_cmp(a, b, pl->aSortColl[k]);
    if( c ) return pl->aSortDesc[k] ? -c : c;
  }
  return 0;
}

/* The groups as rows: HAVING, then results and sort terms. */
static int groupsToRows(Exec *e){
  qplan *pl = e->pl;
  int64_t *order = 0, *tmp = 0, g0;
  int rc = SQLITE_OK, aGrp[GA_BATCH];
  if( (rc = aggFinal(e))!=SQLITE_OK ) return rc;
  order = sqlite3_malloc64(8*(uint64_t)(e->nGroup + 1));
  tmp = sqlite3_malloc64(8*(uint64_t)(e->nGroup + 1));
  if( order==0 || tmp==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(g0=0; g0<e->nGroup; g0++) order[g0] = g0;
  if( pl->nKey ) msort(order, tmp, e->nGroup, groupCmp, e);
  q_run_groups(e->r, groupLeaf, e);
  for(g0=0; g0<e->nGroup && rc==SQLITE_OK; g0+=GA_BATCH){
    qctx ctx;
    int i, m = 0;
    memset(&ctx, 0, sizeof(ctx));
    ctx.n = (int)(e->nGroup - g0<GA_BATCH ? e->nGroup - g0 : GA_BATCH);
    for(i=0; i<ctx.n; i++) aGrp[i] = (int)order[g0 + i];
    ctx.grp = aGrp;
    if( pl->pHaving ){
      qvec *v;
      if( (rc = q_eval(e->r, pl->pHaving, &ctx, &v))!=SQLITE_OK ) break;
      for(i=0; i<ctx.n; i++){
        int yes;
        if( (rc = q_true(e->r, v, i, &yes))!=SQLITE_OK ) break;
        if( yes ) aGrp[m++] = aGrp[i];
      }
      ctx.n = m;
    }
    if( rc==SQLITE_OK && ctx.n ) rc = rowsAppend(e, &ctx);
  }
done:
  sqlite3_free(order);
  sqlite3_free(tmp);
  return rc;
}

/* ORDER BY, OFFSET, LIMIT over e->out's rows; the sort terms dropped. */
static int finish(Exec *e, sqlite3_value **apParam, int nParam){
  qplan *pl = e->pl;
  qresult *o = e->out;
  qselect *s = pl->s;
  int64_t lim = -1, off = 0, i, *idx = 0, *tmp = 0, n;
  qval *a;
  (void)apParam; (void)nParam;
  if( s->pLimit ){
    if( s->pLimit->op!=E_LIT || s->pLimit->t!=SQLITE_INTEGER ) return q_run_error(e->r, QE_BAIL, "a LIMIT that is not an integer");
    lim = s->pLimit->i;
  }
  if( s->pOffset && s->pOffset!=s->pLimit ){
    if( s->pOffset->op!=E_LIT || s->pOffset->t!=SQLITE_INTEGER ) return q_run_error(e->r, QE_BAIL, "an OFFSET that is not an integer");
    off = s->pOffset->i<0 ? 0 : s->pOffset->i;
  }
  if( (idx = sqlite3_malloc64(8*(uint64_t)(o->nRow + 1)))==0 || (tmp = sqlite3_malloc64(8*(uint64_t)(o->nRow + 1)))==0 ){
    sqlite3_free(idx);
    return SQLITE_NOMEM;
  }
  for(i=0; i<o->nRow; i++) idx[i] = i;
  if( pl->nSort ) msort(idx, tmp, o->nRow, sortCmp, e);
  n = o->nRow - off;
  if( n<0 ) n = 0;
  if( lim>=0 && n>lim ) n = lim;
  if( (a = sqlite3_malloc64(sizeof(qval)*(uint64_t)(n*pl->nOut + 1)))==0 ){
    sqlite3_free(idx);
    sqlite3_free(tmp);
    return SQLITE_NOMEM;
  }
  for(i=0; i<n; i++) memcpy(&a[i*pl->nOut], &o->a[idx[off + i]*e->nW], sizeof(qval)*(size_t)pl->nOut);
  sqlite3_free(o->a);
  o->a = a;
  o->nRow = n;
  o->nCol = pl->nOut;
  sqlite3_free(idx);
  sqlite3_free(tmp);
  return SQLITE_OK;
}

static void execFree(Exec *e){
  int k;
  for(k=0; e->aAgg && k<e->pl->nAgg; k++){
    Agg *a = &e->aAgg[k];
    if( a->sum ){
      int64_t g;
      for(g=0; g<e->nGroup; g++) sqlite3_free(a->sum[g].w);
    }
    sqlite3_free(a->cnt); sqlite3_free(a->sum); sqlite3_free(a->ext); sqlite3_free(a->res);
    sqlite3_free(a->dh); sqlite3_free(a->dk); sqlite3_free(a->dn);
  }
  sqlite3_free(e->aAgg);
  sqlite3_free(e->gKey);
  sqlite3_free(e->hh);
  sqlite3_free(e->hg);
  sqlite3_free(e->gk);
  sqlite3_free(e->gn);
  sqlite3_free(e->kbuf);
}

int q_exec(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, sqlite3_value **apParam, int nParam,
           qresult *r, char **pzErr){
  Exec e;
  ga_colsrc *src = 0;
  int rc, k;
  memset(&e, 0, sizeof(e));
  memset(r, 0, sizeof(*r));
  *pzErr = 0;
  e.base.xBatch = sinkBatch;
  e.pl = pl;
  e.out = r;
  e.nW = pl->nOut + pl->nSort;
  if( (e.r = q_run_new(db, pl, apParam, nParam, pzErr))==0 ) return SQLITE_NOMEM;
  r->run = e.r;
  if( pl->nAgg && (e.aAgg = sqlite3_malloc64(sizeof(Agg)*(uint64_t)pl->nAgg))==0 ){ rc = SQLITE_NOMEM; goto fail; }
  if( e.aAgg ) memset(e.aAgg, 0, sizeof(Agg)*(size_t)pl->nAgg);
  for(k=0; k<pl->nAgg; k++) e.aAgg[k].g = &pl->aAgg[k];
  if( pl->grouped && pl->nKey==0 ){
    /* one group, rows or none */
    if( (rc = growGroups(&e))!=SQLITE_OK ) goto fail;
    e.nGroup = 1;
  }
  if( pl->nCol==0 ){
    pl->aiCol[0] = 0;               /* count(*) alone: a column to count rows by */
    pl->aWant[0] = 0;
    pl->nCol = 1;
  }
  if( (rc = ga_tvf_open(vt, "gpu_query", &pl->src, pl->nCol, pl->aiCol, pl->aWant, &src))!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", vt->zErrMsg ? vt->zErrMsg : sqlite3_errstr(rc));
    goto done;
  }
  rc = src->xScan(src, &e.base);
  if( rc!=SQLITE_OK ){
    if( e.rc==rc ) goto fail;       /* the sink's own */
    *pzErr = sqlite3_mprintf("%s", src->xErrmsg(src));
    goto done;
  }
  if( pl->grouped && (rc = groupsToRows(&e))!=SQLITE_OK ) goto fail;
  if( (rc = finish(&e, apParam, nParam))!=SQLITE_OK ) goto fail;
  goto done;
fail:
  *pzErr = sqlite3_mprintf("%s", q_run_errmsg(e.r));
done:
  if( src ) src->xClose(src);
  execFree(&e);
  return rc;
}

void q_result_free(qresult *r){
  sqlite3_free(r->a);
  q_run_free(r->run);
  memset(r, 0, sizeof(*r));
}
