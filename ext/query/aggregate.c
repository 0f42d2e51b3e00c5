/*
** gpu_query's CPU operators (exec.c's requirement 4): each aggregate's
** state by group, as phases: Sink (a batch's values into a part's groups,
** qxAggApply), Combine (a part's group into another's, qxAggMerge) and
** Finalize (the groups' values, qxAggFinal). Exact: sums in 128-bit
** integers and floating-point expansions, variances as agg/variance.c,
** percentiles as agg/percentile.c; positions decide first rows and ties.
*/
#include "execint.h"

static void sumReal(QSum *s, double d){
  double rest = ga_fpe_add(&s->f, d);
  if( rest!=0.0 ){
    if( s->w==0 ){
      if( (s->w = ga_malloc64(sizeof(ga_sum)))==0 ){ s->nInf[0] = -1; return; }
      memset(s->w, 0, sizeof(ga_sum));
    }
    ga_sum_word(s->w, rest);
  }
}

static void sumAdd(QSum *s, int t, int64_t v){
  if( t==SQLITE_INTEGER ){
    ga_i128_add(&s->lo, &s->hi, v);
    s->nInt++;
  }else{
    double d = dbl(v);
    s->nReal++;
    if( !ga_is_finite(d) ){ s->nInf[d>0]++; return; }
    sumReal(s, d);
  }
}

/* a += b, exactly. */
static void sumMerge(QSum *a, QSum *b){
  {
    uint64_t lo = a->lo + b->lo;
    a->hi += b->hi + (lo<a->lo);
    a->lo = lo;
  }
  a->nInt += b->nInt;
  a->nReal += b->nReal;
  if( a->nInf[0]<0 || b->nInf[0]<0 ) a->nInf[0] = -1;
  else a->nInf[0] += b->nInf[0];
  a->nInf[1] += b->nInf[1];
  if( b->f.a0!=0.0 ) sumReal(a, b->f.a0);
  if( b->f.a1!=0.0 ) sumReal(a, b->f.a1);
  if( b->f.a2!=0.0 ) sumReal(a, b->f.a2);
  if( b->w ){
    if( a->w==0 ){
      a->w = b->w;
      b->w = 0;
    }else{
      ga_words_norm(a->w->w);
      a->w->nAdd = 0;
      ga_words_norm(b->w->w);
      b->w->nAdd = 0;
      ga_sum_merge(a->w, b->w);
    }
  }
}

/* The total, rounded once (gpu_sum's ga_sum_value). */
static double sumValue(const QSum *s){
  ga_sum a;
  ga_fpe f = s->f;
  if( s->nInf[0] && s->nInf[1] ) return NAN;
  if( s->nInf[0] || s->nInf[1] ) return s->nInf[1] ? INFINITY : -INFINITY;
  if( s->nReal==0 ){
    /* integers alone: their 128-bit total, converted with one rounding (to
    ** nearest, ties to even, as ga_sum_value rounds), without the words */
    return (double)(__int128)(((unsigned __int128)(uint64_t)s->hi << 64) | s->lo);
  }
  if( s->w==0 ) return ga_fpe_value(&f, (__int128)(((unsigned __int128)(uint64_t)s->hi << 64) | s->lo));
  a = *s->w;
  a.lo = s->lo;
  a.hi = s->hi;
  ga_sum_settle(&a, &f);
  a.inf = 0;
  return ga_sum_value(&a);
}

/* Add (value key, group: key z[0..n)) to DISTINCT aggregate a's set, with
** its value x at position pos where a keeps values (all but count), the
** first position's staying. */
int qxDistinctAdd(Part *p, Agg *a, const char *z, int n, const qval *x, int64_t pos, int *pNew){
  int64_t id;
  int rc;
  if( (rc = qxKeySetAdd(p->r, &a->dset, z, n, pNew, &id))!=SQLITE_OK || a->g->fn==A_COUNT ) return rc;
  if( a->dset.nAlloc>a->dvAlloc ){  /* values and positions grow with the set's keys */
    qval *v = ga_realloc64(a->dv, sizeof(qval)*(uint64_t)a->dset.nAlloc);
    int64_t *q;
    if( v==0 ) return SQLITE_NOMEM;
    a->dv = v;
    if( (q = ga_realloc64(a->dp, 8*(uint64_t)a->dset.nAlloc))==0 ) return SQLITE_NOMEM;
    a->dp = q;
    a->dvAlloc = a->dset.nAlloc;
  }
  if( !*pNew && p->strict && !qxSameVal(x, &a->dv[id]) ) return qxNotSame(p, Q_NOT_SAME("DISTINCT values"));
  if( *pNew || pos<a->dp[id] ){
    a->dv[id] = *x;
    a->dp[id] = pos;
    if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (a->dv[id].z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* DISTINCT: is (g, x) new? (distinctAdd keeps x at pos.) */
static int distinctNew(Part *p, Agg *a, int64_t g, const qval *x, int64_t pos, int *pNew){
  int n = 0, rc;
  if( (rc = qxKeyOf(p, x, a->g->dcoll, &n))!=SQLITE_OK || (rc = qxKbufRoom(p, n + 8))!=SQLITE_OK ) return rc;
  memcpy(p->kbuf + n, &g, 8);
  return qxDistinctAdd(p, a, p->kbuf, n + 8, x, pos, pNew);
}

/* A variance's number (t, v: sum()'s reading of a value) into *pp. */
static int varAdd(QVar **pp, int t, int64_t v){
  QVar *q = *pp;
  if( q==0 ){
    if( (q = *pp = ga_malloc64(sizeof(QVar)))==0 ) return SQLITE_NOMEM;
    memset(q, 0, sizeof(*q));
  }
  q->n++;
  if( t==SQLITE_INTEGER ){
    ga_i128_add(&q->sum.lo, &q->sum.hi, v);
    ga_sq_int_sign(&q->sq, v, 0);
  }else if( !ga_is_finite(dbl(v)) ){
    q->nInf++;
  }else{
    ga_sum_real(&q->sum, &q->fpe, dbl(v));
    ga_sq_real_sign(&q->sq, dbl(v), 0);
  }
  return SQLITE_OK;
}

/* A percentile's number x into *k; QE_BAIL where percentile.c reports an
** error (not a number, or infinite). */
static int keysAdd(Part *p, const qagg *g, QKeys *k, const qval *x){
  static const char *azFn[] = { "gpu_median", "gpu_percentile", "gpu_percentile_cont", "gpu_percentile_disc" };
  double d;
  if( x->t!=SQLITE_INTEGER && x->t!=SQLITE_FLOAT ){
    return q_run_error(p->r, QE_BAIL, "input to %s() that is not numeric (an error in SQLite)", azFn[g->fn - A_MEDIAN]);
  }
  d = x->t==SQLITE_INTEGER ? (double)x->v : dbl(x->v);
  if( !ga_is_finite(d) ) return q_run_error(p->r, QE_BAIL, "Inf input to %s() (an error in SQLite)", azFn[g->fn - A_MEDIAN]);
  if( k->n==k->cap ){
    int64_t cap = k->cap ? 2*k->cap : 16;
    uint64_t *a = ga_realloc64(k->a, 8*(uint64_t)cap);
    if( a==0 ) return SQLITE_NOMEM;
    k->a = a;
    k->cap = cap;
  }
  k->a[k->n++] = ga_key(d);
  return SQLITE_OK;
}

/* Fold value x into group g's sum, variance or percentile: each row's
** value, or each distinct value once (aggFinal; also gpu_min's and
** gpu_max's, whose distinct values never compare equal: no ties). */
static int foldValue(Part *p, Agg *a, int64_t g, const qval *x){
  int t = x->t, rc;
  int64_t v = x->v;
  switch( a->g->fn ){
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
      return keysAdd(p, a->g, &a->keys[g], x);
    case A_MIN: case A_MAX:
      rc = a->ext[g].t==SQLITE_NULL ? 1 : q_cmp(x, &a->ext[g], a->g->coll);
      if( rc==0 && p->strict && !qxSameVal(x, &a->ext[g]) ) return qxNotSame(p, Q_NOT_SAME("min() or max() values"));
      if( a->ext[g].t==SQLITE_NULL || (a->g->fn==A_MIN ? rc<0 : rc>0) ) a->ext[g] = *x;
      return SQLITE_OK;
    default: break;
  }
  if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
    if( (rc = q_sumnum(p->r, x, &t, &v))!=SQLITE_OK ) return rc;
  }
  if( a->sum ){
    sumAdd(&a->sum[g], t, v);
    return SQLITE_OK;
  }
  return varAdd(&a->var[g], t, v);
}

/* Fold the rows of a batch (their groups in aG, their positions from pos,
** the argument's values in x, the second argument's in y) into aggregate a.
** hit, for the min() or max() whose rows show the keys: set for each row
** SQLite's minmaxStep does not skip (a new least or greatest value, or a
** NULL before any value). one: every row's group is aG[0] (no GROUP BY). */
int qxAggApply(Part *p, Agg *a, int n, const qvec *x, const qvec *y, const int64_t *aG, const int *sel,
               int64_t pos, unsigned char *hit, int one){
  const qagg *g = a->g;
  int i, rc, intsDone = 0;
  if( g->fn==A_COUNTSTAR ){
    for(i=0; i<n; i++) a->cnt[aG[i]]++;
    return SQLITE_OK;
  }
  if( Q_DEDUP(g) ){
    /* the set: counted as it grows; other values folded at the end */
    for(i=0; i<n; i++){
      qval v;
      int isNew;
      if( x->t[i]==SQLITE_NULL ) continue;
      q_get(x, i, &v);
      if( (rc = distinctNew(p, a, aG[i], &v, pos + (sel ? sel[i] : i), &isNew))!=SQLITE_OK ) return rc;
      if( g->fn==A_COUNT ) a->cnt[aG[i]] += isNew;
    }
    return SQLITE_OK;
  }
  if( one && n>0 && (g->fn==A_SUM || g->fn==A_TOTAL || g->fn==A_AVG) ){
    /* One group's integers summed in registers, the other values below: the
    ** sums are exact, so the order they are added in does not matter. */
    QSum *s = &a->sum[aG[0]];
    uint64_t lo = s->lo;
    int64_t hi = s->hi, nInt = 0;
    int other = 0;
    for(i=0; i<n; i++){
      if( x->t[i]==SQLITE_INTEGER ){
        ga_i128_add(&lo, &hi, x->v[i]);
        nInt++;
      }else{
        other |= x->t[i]!=SQLITE_NULL;
      }
    }
    s->lo = lo;
    s->hi = hi;
    s->nInt += nInt;
    if( !other ) return SQLITE_OK;
    intsDone = 1;
  }
  for(i=0; i<n; i++){
    const qvec *w = g->fn==A_ARGMIN || g->fn==A_ARGMAX ? y : x;   /* the value compared */
    int t = w->t[i];
    if( hit ) hit[i] = 0;
    if( t==SQLITE_INTEGER && intsDone ) continue;
    if( t==SQLITE_NULL ){
      if( hit && a->ext[aG[i]].t==SQLITE_NULL ) hit[i] = 1;
      continue;
    }
    switch( g->fn ){
      case A_COUNT:
        a->cnt[aG[i]]++;
        break;
      case A_MIN: case A_MAX: case A_ARGMIN: case A_ARGMAX: {
        qval v, *cur = &a->ext[aG[i]];
        int c, isMin = g->fn==A_MIN || g->fn==A_ARGMIN;
        q_get(w, i, &v);
        if( cur->t!=SQLITE_NULL ){
          c = q_cmp(&v, cur, g->coll);
          if( c==0 && p->strict && !qxSameVal(&v, cur) ) return qxNotSame(p, Q_NOT_SAME("min() or max() values"));
          if( isMin ? c>=0 : c<=0 ) break;
        }
        if( (v.t==SQLITE_TEXT || v.t==SQLITE_BLOB) && (v.z = q_keep(p->r, v.z, v.n))==0 ) return SQLITE_NOMEM;
        *cur = v;
        a->extPos[aG[i]] = pos + (sel ? sel[i] : i);
        if( a->argA ){
          qval *A = &a->argA[aG[i]];
          q_get(x, i, A);
          if( (A->t==SQLITE_TEXT || A->t==SQLITE_BLOB) && (A->z = q_keep(p->r, A->z, A->n))==0 ) return SQLITE_NOMEM;
        }
        if( hit ) hit[i] = 1;
        break;
      }
      default: {
        qval v;
        q_get(x, i, &v);
        if( (rc = foldValue(p, a, aG[i], &v))!=SQLITE_OK ) return rc;
        break;
      }
    }
  }
  return SQLITE_OK;
}

/* Group gq of part q's aggregate b into group g of part p's a (p's run
** keeps what it takes): counts and sums add, a min's or max's first of
** equal values by position stays, numbers of variances and percentiles
** join. */
int qxAggMerge(Part *p, Agg *a, int64_t g, Agg *b, int64_t gq){
  switch( a->g->fn ){
    case A_COUNT: case A_COUNTSTAR: a->cnt[g] += b->cnt[gq]; return SQLITE_OK;
    case A_SUM: case A_TOTAL: case A_AVG: sumMerge(&a->sum[g], &b->sum[gq]); return SQLITE_OK;
    case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP: {
      QVar *x = a->var[g], *y = b->var[gq];
      if( y==0 ) return SQLITE_OK;
      if( x==0 ){                   /* q's, taken */
        a->var[g] = y;
        b->var[gq] = 0;
        return SQLITE_OK;
      }
      ga_sum_settle(&x->sum, &x->fpe);
      ga_sum_settle(&y->sum, &y->fpe);
      ga_sum_merge(&x->sum, &y->sum);
      ga_sq_merge(&x->sq, &y->sq);
      x->n += y->n;
      x->nInf += y->nInf;
      return SQLITE_OK;
    }
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC: {
      QKeys *x = &a->keys[g], *y = &b->keys[gq];
      if( x->n + y->n>x->cap ){
        uint64_t *k = ga_realloc64(x->a, 8*(uint64_t)(x->n + y->n));
        if( k==0 ) return SQLITE_NOMEM;
        x->a = k;
        x->cap = x->n + y->n;
      }
      if( y->n ) memcpy(x->a + x->n, y->a, 8*(size_t)y->n);
      x->n += y->n;
      return SQLITE_OK;
    }
    default: {                      /* min, max, argmin, argmax */
      qval *x = &b->ext[gq];
      int c;
      if( x->t==SQLITE_NULL ) return SQLITE_OK;
      if( a->ext[g].t!=SQLITE_NULL ){
        c = q_cmp(x, &a->ext[g], a->g->coll);
        if( c==0 && p->strict && !qxSameVal(x, &a->ext[g]) ) return qxNotSame(p, Q_NOT_SAME("min() or max() values"));
        if( a->g->fn==A_MAX || a->g->fn==A_ARGMAX ) c = -c;
        if( c>0 || (c==0 && b->extPos[gq]>a->extPos[g]) ) return SQLITE_OK;
      }
      a->ext[g] = *x;
      if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (a->ext[g].z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
      a->extPos[g] = b->extPos[gq];
      if( a->argA ){
        x = &b->argA[gq];
        a->argA[g] = *x;
        if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (a->argA[g].z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
      }
      return SQLITE_OK;
    }
  }
}

/* Group g's final value of aggregate a into *r. SQLITE_OK, SQLITE_NOMEM or
** QE_BAIL (a sum's integer overflow: SQLite reports it; the caller says
** so, for this may run on several threads). */
static int aggValue(Agg *a, int64_t g, qval *r){
  memset(r, 0, sizeof(*r));
  r->t = SQLITE_NULL;
  switch( a->g->fn ){
    case A_COUNT: case A_COUNTSTAR:
      r->t = SQLITE_INTEGER; r->v = a->cnt[g];
      return SQLITE_OK;
    case A_MIN: case A_MAX:
      *r = a->ext[g];
      return SQLITE_OK;
    case A_ARGMIN: case A_ARGMAX:
      if( a->ext[g].t!=SQLITE_NULL ) *r = a->argA[g];
      return SQLITE_OK;
    case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP: {
      /* agg/variance.c's varSettle and varResult */
      QVar *q = a->var[g];
      int pop = a->g->fn==A_VARPOP || a->g->fn==A_SDPOP;
      double d;
      if( q==0 ) return SQLITE_OK;
      ga_sum_settle(&q->sum, &q->fpe);
      ga_carry(q->sq.w, GA_SQWORDS);
      q->sq.nAdd = 0;
      q->sum.inf = q->sq.inf = q->nInf>0;
      d = a->g->fn<=A_VARPOP ? ga_variance(&q->sum, &q->sq, q->n, pop ? q->n : q->n - 1)
                             : ga_stddev(&q->sum, &q->sq, q->n, pop ? q->n : q->n - 1);
      if( d==d ){ r->t = SQLITE_FLOAT; memcpy(&r->v, &d, 8); }
      return SQLITE_OK;
    }
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC: {
      /* agg/percentile.c's pctResult, the keys sorted here */
      QKeys *q = &a->keys[g];
      int64_t rk[2];
      uint64_t k[2];
      double ix, d;
      int nr, disc = a->g->fn==A_PCTDISC;
      if( q->n==0 ) return SQLITE_OK;
      qsort(q->a, (size_t)q->n, 8, qxCmpU64);
      nr = ga_pct_ranks(a->g->frac, q->n, disc, rk, &ix);
      k[0] = q->a[rk[0]];
      k[1] = q->a[rk[nr-1]];
      d = ga_pct_value(ix, rk, nr, k, disc);
      r->t = SQLITE_FLOAT;
      memcpy(&r->v, &d, 8);
      return SQLITE_OK;
    }
    default: {
      const QSum *s = &a->sum[g];
      int64_t n = s->nInt + s->nReal;
      double d;
      if( s->nInf[0]<0 ) return SQLITE_NOMEM;
      if( a->g->fn!=A_TOTAL && n==0 ) return SQLITE_OK;
      if( a->g->fn==A_SUM && s->nReal==0 ){
        __int128 i = (__int128)(((unsigned __int128)(uint64_t)s->hi << 64) | s->lo);
        if( i<INT64_MIN || i>INT64_MAX ) return QE_BAIL;
        r->t = SQLITE_INTEGER; r->v = (int64_t)i;
        return SQLITE_OK;
      }
      d = n ? sumValue(s) : 0.0;
      if( a->g->fn==A_AVG ) d = d/(double)n;
      if( d==d ){ r->t = SQLITE_FLOAT; memcpy(&r->v, &d, 8); }
      return SQLITE_OK;
    }
  }
}

/* Groups [g0, g1)'s final values of aggregate a into a->res, on a thread
** of their own where the groups are many (valuesPar). */
typedef struct ValueJob { Agg *a; int64_t g0, g1; int rc; } ValueJob;
static void *valueJob(void *pArg){
  ValueJob *j = (ValueJob*)pArg;
  int64_t g;
  for(g=j->g0; g<j->g1 && j->rc==SQLITE_OK; g++) j->rc = aggValue(j->a, g, &j->a->res[g]);
  return 0;
}

#define VALUES_PAR_MIN 65536        /* groups from which their values are made on several threads */

/* The final values of a's nGroup groups into a->res, on up to nThread
** threads: SQLITE_OK, or the first part's error. */
static int valuesPar(Agg *a, int64_t nGroup, int nThread){
  ValueJob aJob[GA_THREADS_MAX + 1];
  int n = nGroup<VALUES_PAR_MIN ? 1 : nThread<1 ? 1 : nThread>GA_THREADS_MAX + 1 ? GA_THREADS_MAX + 1 : nThread, w;
  for(w=0; w<n; w++){
    aJob[w].a = a;
    aJob[w].g0 = nGroup*w/n;
    aJob[w].g1 = nGroup*(w + 1)/n;
    aJob[w].rc = SQLITE_OK;
  }
  q_fan(n, valueJob, aJob, sizeof(aJob[0]));
  for(w=0; w<n; w++) if( aJob[w].rc!=SQLITE_OK ) return aJob[w].rc;
  return SQLITE_OK;
}

/* Final aggregate values, by group: DISTINCT's values folded first (each
** distinct value of a group once, as its first row had it). SQLITE_OK or
** QE_BAIL (a sum's integer overflow, a percentile's input: SQLite reports
** it). */
int qxAggFinal(Exec *e){
  int k, rc;
  int64_t g, j;
  for(k=0; k<e->pl->nAgg; k++){
    Agg *a = &e->main.aAgg[k];
    if( Q_DEDUP(a->g) && a->g->fn!=A_COUNT ){
      for(j=0; j<a->dset.n; j++){
        memcpy(&g, a->dset.az[j] + a->dset.an[j] - 8, 8);
        if( (rc = foldValue(&e->main, a, g, &a->dv[j]))!=SQLITE_OK ) return rc;
      }
    }
    if( (a->res = ga_malloc64(sizeof(qval)*(uint64_t)(e->main.nGroup + 1)))==0 ) return SQLITE_NOMEM;
    if( (rc = valuesPar(a, e->main.nGroup, q_run_threads(e->r)))!=SQLITE_OK ){
      return rc==QE_BAIL ? q_run_error(e->r, QE_BAIL, "a sum whose integers overflow (an error in SQLite)") : rc;
    }
  }
  return SQLITE_OK;
}
