/*
** gpu_query's CPU operators (exec.c's requirement 8): a plan over kept
** columns, run by the backend (xQuery, xOrder) in place of the scan; what
** it does not serve, said and read from the table.
*/
#include "execint.h"

static int nullBatch(ga_colsink *pSink, const ga_colbatch *b){
  (void)pSink; (void)b;
  return SQLITE_OK;
}

static int nullPar(ga_colsink *pSink, int w, const ga_colbatch *b){
  (void)w;
  return nullBatch(pSink, b);
}

/* Key kk's id in a group's code (compile.c, 3: code / aKeyDiv % aKeyN),
** with no division where none is needed: the last digit's place is 1 and
** the first's quotient is below its ids (TPC-H Q16's three keys share one
** digit: a group's code is its id). */
static uint64_t keyId(const qkept *k, int kk, uint64_t code){
  uint64_t q = k->aKeyDiv[kk]==1 ? code : code/(uint64_t)k->aKeyDiv[kk];
  return q<(uint64_t)k->aKeyN[kk] ? q : q % (uint64_t)k->aKeyN[kk];
}

/* The keys fold row x shows (compile.c, 3) into out: a dictionary key's
** value as aShown[kk] has it, made there (its bytes kept by run r) the
** first time its id is shown, or, where aShown[kk] is NULL (more ids than
** groups), made for this row. Non-zero: out of memory. */
static int keptKeys(const qkept *k, qrun *r, qval **aShown, const ga_grow *x, qval *out){
  int kk;
  if( k->p.keyNum ){
    double d;
    memset(out, 0, sizeof(*out));
    switch( x->kclass ){
      case GA_K_NULL: out->t = SQLITE_NULL; break;
      case GA_K_INT: out->t = SQLITE_INTEGER; out->v = (int64_t)x->key; break;
      case GA_K_REAL: out->t = SQLITE_FLOAT; out->v = (int64_t)x->key; break;
      default:
        d = x->kclass==GA_K_INTZ ? -0.0 : (double)(int64_t)x->key;
        out->t = SQLITE_FLOAT;
        memcpy(&out->v, &d, 8);
        break;
    }
    return 0;
  }
  for(kk=0; kk<k->nKey; kk++){
    uint64_t id = keyId(k, kk, x->key);
    qval one, *v = aShown[kk] ? &aShown[kk][id] : &one;
    one.t = 0;
    if( v->t==0 ){
      *v = k->aKeyVal[kk][id];
      if( (v->t==SQLITE_TEXT || v->t==SQLITE_BLOB) && v->z && (v->z = q_keep(r, v->z, v->n))==0 ){
        v->t = 0;
        return 1;
      }
    }
    out[kk] = *v;
  }
  return 0;
}

/* Aggregate a's final value from its fold's row x (NULL: the group has no
** row there: no rows) into *out; QE_BAIL where SQLite would raise an error. */
static int keptValue(Exec *e, const qagg *a, const ga_grow *x, qval *out){
  int64_t n = x ? x->nInt + x->nReal : 0;
  double d;
  memset(out, 0, sizeof(*out));
  out->t = SQLITE_NULL;
  switch( a->fn ){
    case A_COUNTSTAR: out->t = SQLITE_INTEGER; out->v = x ? x->rows : 0; return SQLITE_OK;
    case A_COUNT: out->t = SQLITE_INTEGER; out->v = n; return SQLITE_OK;
    case A_MIN: case A_MAX: {
      uint64_t bits, pos;
      int t = x ? ga_gext_value(a->fn==A_MAX ? x->mx : x->mn, a->fn==A_MAX, &bits, &pos) : GA_T_NONE;
      if( t==GA_T_REAL && e->pl->nJoin && (bits<<1)==0 ){
        /* (compile.c's realOnly: of 0.0 and -0.0 SQLite shows the first its join order meets) */
        return q_run_error(e->r, QE_BAIL, "a min() or max() over joined rows that is 0.0 (SQLite shows 0.0 or -0.0 "
                                          "as its join order meets them)");
      }
      if( t!=GA_T_NONE ){
        out->t = t==GA_T_INT ? SQLITE_INTEGER : SQLITE_FLOAT;
        out->v = (int64_t)bits;
      }
      return SQLITE_OK;
    }
    default:
      if( a->fn!=A_TOTAL && n==0 ) return SQLITE_OK;
      if( a->fn==A_SUM && x->sumType==GA_SUM_OVERFLOW ){
        return q_run_error(e->r, QE_BAIL, "a sum whose integers overflow (an error in SQLite)");
      }
      if( a->fn==A_SUM && x->sumType==GA_SUM_INT ){
        out->t = SQLITE_INTEGER;
        out->v = x->isum;
        return SQLITE_OK;
      }
      d = n ? x->total : 0.0;
      if( a->fn==A_AVG ) d = d/(double)n;
      if( d==d ){
        out->t = SQLITE_FLOAT;
        memcpy(&out->v, &d, 8);
      }
      return SQLITE_OK;
  }
}

/* count(DISTINCT x) over kept columns: each group's count, by its code
** (compile.c, 3: 0 without keys). */
typedef struct Dist {
  ga_kmap map;                     /* code -> index in n */
  int64_t *n;                      /* the counts */
  int64_t nAlloc;
  int64_t *aDense;                 /* or the counts by code, where the codes are few for the
                                   ** groups counted (TPC-H Q16: 187,500 codes, 118,247 groups) */
  uint64_t nDense;                 /* ... codes */
} Dist;

/* Aggregate a's program, count(DISTINCT x): pl compiled again with x as one
** more key (its collation the aggregate's), counting rows, into *pp (a join's
** by its tables' rows aJr). Its keys' values are read for their classes
** alone (their bytes are the run's, gone after it). SQLITE_OK, QE_BAIL with
** *pzWhy, or SQLITE_NOMEM. */
static int distProgram(Exec *e, const qplan *pl, ga_resident *const *aRes, const qjoinrows *aJr, int a, qkept **pp,
                       char **pzWhy){
  qplan aux = *pl;
  qagg cnt;
  qkept *k;
  int64_t i;
  int rc, kk, last = pl->nKey;
  if( pl->nKey>=Q_MAXKEY ){
    *pzWhy = sqlite3_mprintf("count(DISTINCT) with %d keys", Q_MAXKEY);
    return QE_BAIL;
  }
  memset(&cnt, 0, sizeof(cnt));
  cnt.fn = A_COUNTSTAR;
  aux.aKey[last] = pl->aAgg[a].x;
  aux.aKeyColl[last] = pl->aAgg[a].dcoll;
  aux.nKey = last + 1;
  aux.aAgg = &cnt;
  aux.nAgg = 1;
  aux.iHit = -1;
  aux.lastCounted = 1;
  if( (k = ga_malloc64(sizeof(*k)))==0 ) return SQLITE_NOMEM;
  rc = pl->nJoin ? q_compile_join(e->r, &aux, aRes, aJr, k, pzWhy) : q_compile(e->r, &aux, aRes, k, pzWhy);
  if( rc!=SQLITE_OK ){
    ga_free(k);
    return rc;
  }
  for(kk=0; kk<k->nKey; kk++){
    for(i=0; k->aKeyVal[kk] && i<k->aKeyN[kk]; i++){ k->aKeyVal[kk][i].z = 0; k->aKeyVal[kk][i].n = 0; }
  }
  *pp = k;
  return SQLITE_OK;
}

/* A group's code in count(DISTINCT x)'s program k without x's digit (x the
** last key): the code of the group it counts for. */
static uint64_t distCode(const qkept *k, uint64_t key){
  uint64_t div = (uint64_t)k->aKeyDiv[k->nKey - 1];
  return key/(div*(uint64_t)k->aKeyN[k->nKey - 1])*div + key%div;
}

/* How the backend may count count(DISTINCT x)'s groups by code itself
** (group_acc.h, 7) for program k over nRow rows, into *c: where the keys
** are codes, x's NULL is at most one id, and the codes without x's digit
** are few (a count each, zeroed and copied every read: at most 2^22, and
** not many more than the rows could make groups). 0: the groups come back
** and are counted here. */
static int distCodes(const qkept *k, int64_t nRow, ga_gcodes *c){
  const int last = k->nKey - 1;
  uint64_t mul = 1, id;
  int kk;
  if( k->p.keyNum ) return 0;
  memset(c, 0, sizeof(*c));
  c->div = (uint64_t)k->aKeyDiv[last];
  c->nId = c->nullId = (uint64_t)k->aKeyN[last];
  for(id=0; id<c->nId; id++){
    if( k->aKeyVal[last][id].t!=SQLITE_NULL ) continue;
    if( c->nullId<c->nId ) return 0;
    c->nullId = id;
  }
  /* every code is below the product of the digits: the greatest digit's place times its ids */
  for(kk=0; kk<k->nKey; kk++){
    if( (uint64_t)k->aKeyDiv[kk]*(uint64_t)k->aKeyN[kk]>mul ) mul = (uint64_t)k->aKeyDiv[kk]*(uint64_t)k->aKeyN[kk];
  }
  c->nCode = mul/c->nId;
  return c->nCode<=((uint64_t)1<<22) && c->nCode<=2*(uint64_t)nRow + 65536;
}

/* count(DISTINCT x) by its program k (distProgram) into d: run, and the
** groups each original group has counted (x NULL: none). SQLITE_OK, with
** *pFail set where the backend failed or declined (zErr, GA_DEV_SCAN); or
** SQLITE_NOMEM. */
static int keptDistinct(const qkept *k, ga_resident *const *aRes, const ga_qcol *aCol, const ga_backend *be,
                        ga_conn *conn, Dist *d, int *pFail, char *zErr){
  ga_group g, *pg = &g;
  ga_gcodes codes;
  int64_t i;
  int rc = SQLITE_OK, fail, last = k->nKey - 1;
  memset(&g, 0, sizeof(g));
  g.jb = -1;
  if( distCodes(k, aRes[0]->n, &codes) ){
    /* counted where the groups are: only the counts come back */
    if( (d->aDense = ga_malloc64(8*codes.nCode))==0 ) return SQLITE_NOMEM;
    memset(d->aDense, 0, 8*(size_t)codes.nCode);
    d->nDense = codes.nCode;
    codes.aCount = d->aDense;
    g.codes = &codes;
  }
  fail = be->xQuery(be==ga_device_backend() ? aRes[0]->pRes : 0, &conn->stats, &k->p, aCol, aRes[0]->n, k->tabC,
                    k->tabV, k->nTab, &pg, zErr);
  if( (g.dev || g.cpu) && be->xGroupDone(&g, !fail, zErr) && !fail ) fail = 1;
  if( g.codes ){
    /* a device that finished few groups itself (a table by code: cuda_resident.c) gives them in res */
    for(i=0; !fail && i<g.nRes; i++){
      int64_t c = ga_gcodes_at(&codes, ga_kgroup(g.res[i].kclass & GA_K_MASK), g.res[i].key);
      if( c>=0 ) codes.aCount[c]++;
      else if( c==-2 ){
        strcpy(zErr, "gpuagg: a count(DISTINCT) group's code out of range");
        fail = 1;
      }
    }
    ga_group_clear(&g);
    *pFail = fail;
    return SQLITE_OK;
  }
  if( !fail && !k->p.keyNum ){
    /* the counts by code where the codes span few more than the groups */
    uint64_t most = 0;
    for(i=0; i<g.nRes; i++){
      if( g.res[i].kclass!=GA_Q_DROPPED_META && distCode(k, g.res[i].key)>most ) most = distCode(k, g.res[i].key);
    }
    d->nDense = most + 1;
    if( d->nDense<=8*(uint64_t)g.nRes + 65536 ){
      if( (d->aDense = ga_malloc64(8*d->nDense))==0 ) rc = SQLITE_NOMEM;
      else memset(d->aDense, 0, 8*(size_t)d->nDense);
    }
  }
  for(i=0; !fail && rc==SQLITE_OK && i<g.nRes; i++){
    const ga_grow *x = &g.res[i];
    uint64_t code = 0;
    int isNew;
    int64_t j;
    if( x->kclass==GA_Q_DROPPED_META ) continue;
    if( k->p.keyNum ){
      if( x->kclass==GA_K_NULL ) continue;
    }else{
      uint64_t id = keyId(k, last, x->key);
      if( k->aKeyVal[last][id].t==SQLITE_NULL ) continue;
      code = distCode(k, x->key);
      if( d->aDense ){
        assert( code<d->nDense );
        d->aDense[code]++;
        continue;
      }
    }
    if( (j = ga_kmap_add(&d->map, GA_K_INT + 1, code, &isNew))<0 ){ rc = SQLITE_NOMEM; break; }
    if( j>=d->nAlloc ){
      int64_t m = 2*j + 16;
      int64_t *p = ga_realloc64(d->n, 8*(uint64_t)m);
      if( p==0 ){ rc = SQLITE_NOMEM; break; }
      memset(p + d->nAlloc, 0, 8*(size_t)(m - d->nAlloc));
      d->n = p;
      d->nAlloc = m;
    }
    d->n[j]++;
  }
  ga_group_clear(&g);
  *pFail = fail;
  return rc;
}

/* The order of the first ORDER BY term, as finish.c sorts by it. */
static int topCmp(const qplan *pl, const qval *a, const qval *b){ return qxSortTermCmp(pl, 0, a, b); }

/* Heap h[0..n) of groups by their values v, the last in topCmp's order at
** its root: h[i] sifted down. */
static void topSift(const qplan *pl, const qval *v, int64_t *h, int64_t n, int64_t i){
  for(;;){
    int64_t l = 2*i + 1, r = l + 1, w = i, t;
    if( l<n && topCmp(pl, &v[h[l]], &v[h[w]])>0 ) w = l;
    if( r<n && topCmp(pl, &v[h[r]], &v[h[w]])>0 ) w = r;
    if( w==i ) return;
    t = h[i]; h[i] = h[w]; h[w] = t;
    i = w;
  }
}

/* Where pl orders its groups by an aggregate first, LIMIT and OFFSET
** constants, without HAVING, DISTINCT or a compound, and no sum overflows
** (an error whatever the LIMIT keeps): only the groups whose
** value of that aggregate is not after the (LIMIT + OFFSET)-th best (ties
** kept) can be among the rows finish.c keeps (its order compares that
** value first, the same way), so the others leave aAt's nFold lists (of
** *pnG groups) before their keys are shown (TPC-H Q3's and Q10's keys were
** most of their time). */
static int keptTop(Exec *e, const qkept *k, ga_group *aG, int64_t **aAt, int nFold, int64_t *pnG){
  const qplan *pl = e->pl;
  const qselect *s = pl->s;
  const qexpr *t = pl->nSort ? pl->aSort[0] : 0;
  int64_t nG = *pnG, need, g, n = 0, *h = 0;
  unsigned char *keep = 0;
  qval *v = 0;
  int a, f, j, rc = SQLITE_OK;
  if( t==0 || t->op!=E_AGGREF || pl->pHaving || pl->distinct || pl->isArm || pl->nArm || pl->nKey==0 ) return SQLITE_OK;
  if( s->pLimit==0 || s->pLimit->op!=E_LIT || s->pLimit->t!=SQLITE_INTEGER || s->pLimit->i<0 ) return SQLITE_OK;
  need = s->pLimit->i;
  if( need>65536 ) return SQLITE_OK;
  if( s->pOffset && s->pOffset!=s->pLimit ){
    if( s->pOffset->op!=E_LIT || s->pOffset->t!=SQLITE_INTEGER || s->pOffset->i>65536 ) return SQLITE_OK;
    if( s->pOffset->i>0 ) need += s->pOffset->i;
  }
  a = t->iCol;
  if( need<1 || 2*need>nG || k->aFold[a]==-2 ) return SQLITE_OK;
  /* a sum that overflows in any group is SQLite's error, whichever rows the LIMIT keeps */
  for(j=0; j<pl->nAgg; j++){
    if( pl->aAgg[j].fn!=A_SUM || k->aFold[j]<0 ) continue;
    for(g=0; g<nG; g++){
      int64_t at = aAt[k->aFold[j]][g];
      if( at>=0 && aG[k->aFold[j]].res[at].sumType==GA_SUM_OVERFLOW ) return SQLITE_OK;
    }
  }
  f = k->aFold[a]<0 ? 0 : k->aFold[a];
  v = ga_malloc64(sizeof(qval)*(uint64_t)nG);
  h = ga_malloc64(8*(uint64_t)need);
  keep = ga_malloc64((uint64_t)nG);
  if( v==0 || h==0 || keep==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(g=0; g<nG; g++){
    /* (an error: every group kept, for finish to meet it) */
    if( keptValue(e, &pl->aAgg[a], aAt[f][g]>=0 ? &aG[f].res[aAt[f][g]] : 0, &v[g])!=SQLITE_OK ) goto done;
    if( n<need ){
      int64_t i = n++;
      h[i] = g;
      while( i>0 && topCmp(pl, &v[h[i]], &v[h[(i - 1)/2]])>0 ){
        int64_t p = (i - 1)/2, x = h[i];
        h[i] = h[p]; h[p] = x;
        i = p;
      }
    }else if( topCmp(pl, &v[g], &v[h[0]])<0 ){
      h[0] = g;
      topSift(pl, v, h, n, 0);
    }
  }
  for(g=0; g<nG; g++) keep[g] = topCmp(pl, &v[g], &v[h[0]])<=0;
  for(f=0; f<nFold; f++){
    int64_t m = 0;
    for(j=0; j<f && aAt[j]!=aAt[f]; j++){}
    if( j<f ) continue;                         /* (a list folds share) */
    for(g=0; g<nG; g++) if( keep[g] ) aAt[f][m++] = aAt[f][g];
    n = m;
  }
  *pnG = n;
done:
  ga_free(v);
  ga_free(h);
  ga_free(keep);
  return rc;
}

/* The folds' groups as e->main's, their aggregates final. Fold 0's rows
** (the dropped rows' none) are the groups, in its order; every fold has
** the same (class, key) rows in the same order when every row reaches it,
** so another fold's row is looked up only where its rows differ. Only the
** shown keys and final values are made: nothing per group is allocated
** that the finish does not read (fresh pages are most of a big grouping's
** host time). */
static int keptGroups(Exec *e, const qkept *k, ga_group *aG, Dist *aDist){
  const qplan *pl = e->pl;
  Part *m = &e->main;
  ga_kmap map;
  int64_t i, g, nG = 0, *at0 = 0, **aAt = 0;
  qval *aShown[Q_MAXKEY];
  int64_t aRadix[Q_MAXKEY];                   /* each key's places in gRank */
  int f, a, kk, j, rc = SQLITE_OK, nk = pl->nKey ? pl->nKey : 1;
  memset(&map, 0, sizeof(map));
  memset(aShown, 0, sizeof(aShown));
  if( (at0 = ga_malloc64(8*(uint64_t)(aG[0].nRes + 1)))==0 ) return SQLITE_NOMEM;
  for(i=0; i<aG[0].nRes; i++){
    if( aG[0].res[i].kclass!=GA_Q_DROPPED_META ) at0[nG++] = i;
  }
  if( pl->nKey==0 ){
    if( nG==0 ) at0[0] = -1;
    nG = 1;
  }else if( (m->gKey = ga_malloc64(sizeof(qval)*(uint64_t)(nG*nk + 1)))==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  m->nGroup = nG;
  /* each fold's row of each group */
  if( (aAt = ga_malloc64(sizeof(int64_t*)*(uint64_t)k->p.nFold))==0 ){ rc = SQLITE_NOMEM; goto done; }
  memset(aAt, 0, sizeof(int64_t*)*(size_t)k->p.nFold);
  aAt[0] = at0;
  for(f=1; f<k->p.nFold; f++){
    int same = aG[f].nRes==aG[0].nRes;
    for(i=0; same && i<aG[0].nRes; i++){
      same = aG[f].res[i].key==aG[0].res[i].key
          && ga_kgroup(aG[f].res[i].kclass)==ga_kgroup(aG[0].res[i].kclass);
    }
    if( same ){
      aAt[f] = at0;
      continue;
    }
    if( map.n==0 ){                           /* groups by (class, key), as fold 0 has them */
      for(g=0; g<nG && at0[g]>=0; g++){
        int isNew;
        const ga_grow *x = &aG[0].res[at0[g]];
        if( ga_kmap_add(&map, (uint32_t)ga_kgroup(x->kclass) + 1, x->key, &isNew)<0 ){ rc = SQLITE_NOMEM; goto done; }
      }
    }
    if( (aAt[f] = ga_malloc64(8*(uint64_t)(nG + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
    for(g=0; g<nG; g++) aAt[f][g] = -1;
    for(i=0; i<aG[f].nRes; i++){
      const ga_grow *x = &aG[f].res[i];
      if( x->kclass==GA_Q_DROPPED_META ) continue;
      g = pl->nKey ? ga_kmap_find(&map, (uint32_t)ga_kgroup(x->kclass) + 1, x->key) : 0;
      if( g>=0 && g<nG ) aAt[f][g] = i;
    }
  }
  if( (rc = keptTop(e, k, aG, aAt, k->p.nFold, &nG))!=SQLITE_OK ) goto done;
  m->nGroup = nG;
  if( pl->nKey && !k->p.keyNum && !pl->keyFirst ){   /* (keyFirst's order: finish compares the keys) */
    /* the groups' places where they fit 2^40 (else finish compares the keys);
    ** a key of a joined table's id after one of the same id whose values are
    ** all distinct (TPC-H Q3's l_orderkey, Q10's c_custkey) adds none */
    for(kk=0, e->nRank=1; kk<pl->nKey && e->nRank; kk++){
      uint64_t n;
      for(j=0; j<kk && !(k->aKeyDiv[j]==k->aKeyDiv[kk] && k->aKeyN[j]==k->aKeyN[kk]
                         && k->aKeyPlaces[j]==k->aKeyN[j]); j++){}
      aRadix[kk] = j<kk ? 1 : k->aKeyPlaces[kk];
      n = (uint64_t)aRadix[kk];
      e->nRank = e->nRank<=((uint64_t)1<<40)/n ? e->nRank*n : 0;
    }
    if( e->nRank && (e->gRank = ga_malloc64(8*(uint64_t)(nG + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
  }
  for(kk=0; kk<pl->nKey && !k->p.keyNum; kk++){
    if( k->aKeyN[kk]>2*nG + 4096 ) continue;   /* (many ids, few of them shown: each made for its group) */
    if( (aShown[kk] = ga_malloc64(sizeof(qval)*(uint64_t)k->aKeyN[kk]))==0 ){ rc = SQLITE_NOMEM; goto done; }
    memset(aShown[kk], 0, sizeof(qval)*(size_t)k->aKeyN[kk]);
  }
  for(g=0; pl->nKey && g<nG; g++){
    if( keptKeys(k, e->r, aShown, &aG[0].res[at0[g]], &m->gKey[g*nk]) ){ rc = SQLITE_NOMEM; goto done; }
    if( e->gRank ){
      /* the keys' places, the first key the most significant */
      uint64_t code = aG[0].res[at0[g]].key, rank = 0;
      for(kk=0; kk<pl->nKey; kk++){
        uint64_t id = keyId(k, kk, code);
        uint64_t r = (uint64_t)k->aKeyRank[kk][id], n = (uint64_t)aRadix[kk];
        if( n==1 ) continue;
        if( pl->aKeyDesc && pl->aKeyDesc[kk] ) r = n - 1 - r;
        rank = rank*n + r;
      }
      e->gRank[g] = rank;
    }
  }
  for(a=0; a<pl->nAgg && rc==SQLITE_OK; a++){
    Agg *x = &m->aAgg[a];
    f = k->aFold[a]<0 ? 0 : k->aFold[a];
    if( (x->res = ga_malloc64(sizeof(qval)*(uint64_t)(nG + 1)))==0 ){ rc = SQLITE_NOMEM; break; }
    if( k->aFold[a]==-2 ){                      /* count(DISTINCT): the counts by code */
      for(g=0; g<nG; g++){
        uint64_t code = pl->nKey ? aG[0].res[at0[g]].key : 0;
        int64_t j = aDist[a].aDense ? -1 : ga_kmap_find(&aDist[a].map, GA_K_INT + 1, code);
        memset(&x->res[g], 0, sizeof(qval));
        x->res[g].t = SQLITE_INTEGER;
        x->res[g].v = aDist[a].aDense ? (code<aDist[a].nDense ? aDist[a].aDense[code] : 0) : j>=0 ? aDist[a].n[j] : 0;
      }
      continue;
    }
    for(g=0; g<nG && rc==SQLITE_OK; g++){
      rc = keptValue(e, &pl->aAgg[a], aAt[f][g]>=0 ? &aG[f].res[aAt[f][g]] : 0, &x->res[g]);
    }
  }
  e->kept = 1;
done:
  for(f=1; aAt && f<k->p.nFold; f++) if( aAt[f]!=at0 ) ga_free(aAt[f]);
  ga_free(aAt);
  ga_free(at0);
  for(kk=0; kk<Q_MAXKEY; kk++) ga_free(aShown[kk]);
  ga_kmap_free(&map);
  return rc;
}

/* HAVING's conjuncts that fold 0's finished groups decide alone, into h
** (group_acc.h, 6): count(*), or count, sum or total of fold 0's
** argument, compared with a number (no TEXT affinity applied). Only where
** every conjunct is one: a conjunct that can raise an error is the
** finish's to meet, in every group. Not without GROUP BY: its one group
** dropped would read as no rows, whose empty group the finish shows. */
static void haveOf(const qplan *pl, const qkept *k, ga_ghaves *h){
  const qexpr *aStack[2*GA_HAVE_MAX + 2];
  int n = 0, ok = 1;
  memset(h, 0, sizeof(*h));
  if( pl->pHaving==0 || k->p.nFold<1 || pl->nKey==0 ) return;
  aStack[n++] = pl->pHaving;
  while( ok && n>0 ){
    const qexpr *e = aStack[--n], *x, *c;
    const qagg *a;
    ga_ghave *g;
    int flip;
    if( e->op==E_AND ){
      ok = n + 2<=(int)(sizeof(aStack)/sizeof(aStack[0]));
      aStack[n++] = e->b;
      aStack[n++] = e->a;
      continue;
    }
    if( h->n==GA_HAVE_MAX || e->op<E_EQ || e->op>E_GE || e->cmpAff==GA_AFF_TEXT ){ ok = 0; break; }
    flip = e->a->op==E_LIT;
    x = flip ? e->b : e->a;
    c = flip ? e->a : e->b;
    if( x->op!=E_AGGREF || c->op!=E_LIT || (c->t!=SQLITE_INTEGER && c->t!=SQLITE_FLOAT) ){ ok = 0; break; }
    a = &pl->aAgg[x->iCol];
    if( a->distinct || a->gpu || (a->fn!=A_COUNTSTAR && k->aFold[x->iCol]!=0) ){ ok = 0; break; }
    g = &h->a[h->n++];
    switch( a->fn ){
      case A_COUNTSTAR: g->fn = GA_HAVE_ROWS; break;
      case A_COUNT: g->fn = GA_HAVE_COUNT; break;
      case A_SUM: g->fn = GA_HAVE_SUM; break;
      case A_TOTAL: g->fn = GA_HAVE_TOTAL; break;
      default: ok = 0; break;
    }
    switch( e->op ){
      case E_LT: g->op = flip ? GA_HAVE_GT : GA_HAVE_LT; break;
      case E_LE: g->op = flip ? GA_HAVE_GE : GA_HAVE_LE; break;
      case E_GT: g->op = flip ? GA_HAVE_LT : GA_HAVE_GT; break;
      case E_GE: g->op = flip ? GA_HAVE_LE : GA_HAVE_GE; break;
      case E_EQ: g->op = GA_HAVE_EQ; break;
      default: g->op = GA_HAVE_NE; break;
    }
    g->litType = c->t==SQLITE_INTEGER ? GA_T_INT : GA_T_REAL;
    g->lit = (uint64_t)c->i;
  }
  if( !ok ) memset(h, 0, sizeof(*h));          /* (a conjunct of another form) */
}

/* Fold 0's groups that may meet h alone kept (a backend may have dropped the
** others already: group_acc.h, 6), in order. */
static void haveKept(ga_group *g, const ga_ghaves *h){
  int64_t i, m = 0;
  for(i=0; h->n && i<g->nRes; i++){
    if( ga_grow_may(&g->res[i], h) ) g->res[m++] = g->res[i];
  }
  if( h->n ) g->nRes = m;
}

/* Requirement 8: SQLITE_OK with *pDone set where the groups are e->main's,
** else why in r->zKeptWhy (where it was wanted); an error (*pzErr). */
/* The column cache dropped kc's hold (its columns went): its memory too. */
static void keptDropped(void *p){
  qkeptcache *kc = (qkeptcache*)p;
  kc->hold = 0;
  q_keptcache_clear(kc);
}

/* Keep compiled plan k (made from columns aRes) in kc, its memory held in
** the column cache's budget with them (and nMore bytes: a join's built
** tables, which the caller then gives kc): its keys' shown bytes copied there.
** Non-zero: it does not fit, or out of memory (kc stays empty, k as it was). */
static int keptSave(ga_cache *cache, qkeptcache *kc, const qplan *pl, ga_resident *const *aRes, const char *zParams,
                    qkept *k, int64_t nMore){
  int64_t n = 0, i;
  uint64_t aGen[GA_COLS_MAX];
  int kk, c;
  char *z;
  q_keptcache_clear(kc);
  for(kk=0; kk<k->nKey; kk++){
    for(i=0; k->aKeyVal[kk] && i<k->aKeyN[kk]; i++){
      if( k->aKeyVal[kk][i].t==SQLITE_TEXT || k->aKeyVal[kk][i].t==SQLITE_BLOB ) n += k->aKeyVal[kk][i].n;
    }
  }
  for(c=0; c<pl->nCol; c++) aGen[c] = aRes[c]->gen;
  kc->cache = cache;
  kc->hold = ga_cache_hold(cache, q_kept_bytes(k) + n + (int64_t)strlen(zParams) + nMore, aGen, pl->nCol,
                          keptDropped, kc);
  if( kc->hold==0 || (kc->aBytes = z = ga_malloc64((uint64_t)n + 1))==0
   || (kc->zKey = sqlite3_mprintf("%s", zParams))==0 ){
    q_keptcache_clear(kc);
    return 1;
  }
  for(kk=0; kk<k->nKey; kk++){
    for(i=0; k->aKeyVal[kk] && i<k->aKeyN[kk]; i++){
      qval *x = &k->aKeyVal[kk][i];
      if( x->t!=SQLITE_TEXT && x->t!=SQLITE_BLOB ) continue;
      if( x->n ) memcpy(z, x->z, (size_t)x->n);
      x->z = z;
      z += x->n;
    }
  }
  kc->k = *k;
  memset(k, 0, sizeof(*k));
  kc->nCol = pl->nCol;
  memcpy(kc->aGen, aGen, sizeof(uint64_t)*(size_t)pl->nCol);
  kc->valid = 1;
  return 0;
}

void q_keptcache_clear(qkeptcache *kc){
  ga_cache_unhold(kc->cache, kc->hold);
  if( kc->valid ) q_kept_free(&kc->k);
  qxJoinTabsFree(kc->aJt, kc->nJt);
  ga_free(kc->zKey);
  ga_free(kc->aBytes);
  memset(kc, 0, sizeof(*kc));
}

/* Value (t, v, z, n) onto s, as litKey writes each: its class, v's 16 hex
** digits, its bytes' hex (TEXT, BLOB), ';'. Written without a printf: an
** IN's values are written each read (TPC-H Q20's 2,105 part keys at SF 1: 0.4 ms
** of printf). */
static void litValue(sqlite3_str *s, int t, int64_t v, const char *z, int n){
  static const char hex[] = "0123456789abcdef";
  char b[64];
  int i, m;
  b[0] = (char)('0' + t);
  for(i=0; i<16; i++) b[1 + i] = hex[((uint64_t)v >> (60 - 4*i)) & 15];
  b[17] = ':';
  sqlite3_str_append(s, b, 18);
  for(i=0; (t==SQLITE_TEXT || t==SQLITE_BLOB) && i<n; i+=m){
    int j;
    m = n - i<32 ? n - i : 32;
    for(j=0; j<m; j++){
      b[2*j] = hex[(unsigned char)z[i + j] >> 4];
      b[2*j + 1] = hex[(unsigned char)z[i + j] & 15];
    }
    sqlite3_str_append(s, b, 2*m);
  }
  sqlite3_str_appendchar(s, 1, ';');
}

/* The constants e folds to (its literals, as this read's plan has them:
** parameters, what SQLite folded, 'now' too, and the values this read's
** subqueries gave: a compiled plan is kept while they are the same) onto
** s; 0 where e asks a connection's own function per value (LIKE, a
** function not built in: it may change between reads), or holds a
** subquery not read yet, so that nothing compiled from it is kept. */
static int litKey(sqlite3_str *s, const qexpr *e){
  int i;
  if( e==0 ) return 1;
  if( e->op==E_SQL && e->mainOnly ) return 0;
  if( e->op==E_SUBQ || e->op==E_INSEL ) return 0;
  if( e->op==E_LIT ) litValue(s, e->t, e->i, e->z, e->n);
  if( e->op==E_IN && e->aIn ){               /* IN (a subquery): its values this time */
    sqlite3_str_appendf(s, "in%d:%d:", e->nIn, e->hasNull);
    for(i=0; i<e->nIn; i++) litValue(s, e->aIn[i].t, e->aIn[i].v, e->aIn[i].z, e->aIn[i].n);
  }
  for(i=0; i<e->nTplLit; i++) if( !litKey(s, e->aTplLit[i]) ) return 0;
  for(i=0; i<e->nArg; i++) if( !litKey(s, e->arg[i]) ) return 0;
  return litKey(s, e->a) && litKey(s, e->b);
}

static int buildKey(sqlite3_str *s, const qplan *pl);

/* pl's constants onto s (litKey), its joins' builds' too (buildKey); where
** whole, those its finish reads as well (results, HAVING, ORDER BY, LIMIT,
** OFFSET: a build's rows are all of it). 0 where one may not be kept. */
static int planLits(sqlite3_str *s, const qplan *pl, int whole){
  int i, k, ok = 1;
  for(i=0; ok && i<pl->nConj; i++) ok = litKey(s, pl->aConj[i]);
  for(i=0; ok && i<pl->nKey; i++) ok = litKey(s, pl->aKey[i]);
  for(i=0; ok && i<pl->nAgg; i++) ok = litKey(s, pl->aAgg[i].x) && litKey(s, pl->aAgg[i].y);
  for(i=0; ok && i<pl->nPost; i++) ok = litKey(s, pl->aPost[i]);
  for(i=0; ok && whole && i<pl->nOut; i++) ok = litKey(s, pl->aOut[i]);
  for(i=0; ok && whole && i<pl->nSort; i++) ok = litKey(s, pl->aSort[i]);
  ok = ok && (!whole || (litKey(s, pl->pHaving) && litKey(s, pl->s->pLimit) && litKey(s, pl->s->pOffset)));
  for(k=0; ok && k<pl->nJoin; k++){
    /* a joined table's rows are built in the compiled plan: kept only where they are
    ** of main's file alone (buildKey: a subquery's too, TPC-H Q17's grouped lineitem) */
    const qjoin *q = &pl->aJoin[k];
    ok = q->pBuild && buildKey(s, q->pBuild);
    for(i=0; ok && i<q->nEq; i++) ok = litKey(s, q->aEq[i]);
    for(i=0; ok && i<q->nOn; i++) ok = litKey(s, q->aOn[i]);
  }
  return ok;
}

/* The constants a join's build pl (its table's rows, or a subquery's: its
** whole plan) folds to, onto s; 0 where its rows may change with nothing
** kept changed: a table of another file than main (the scanned table's
** kept columns' gens say nothing of main changed: cache.c, 2), a compound,
** a constant that litKey does not keep. */
static int buildKey(sqlite3_str *s, const qplan *pl){
  int ok;
  if( pl->nArm ) return 0;
  if( pl->pSub ) ok = buildKey(s, pl->pSub);
  else ok = pl->src.tab.zDb && strcmp(pl->src.tab.zDb, "main")==0;
  ok = ok && planLits(s, pl, 1);
  sqlite3_str_appendchar(s, 1, '|');
  return ok;
}

/* What a compiled plan of pl depends on besides its columns: the read's
** parameters (zParams, or NULL), its constants and its joins' builds'
** (sqlite3_malloc'd); NULL where it must not be kept (or out of memory).
** Its results, HAVING and ORDER BY are the finish's, each read. */
static char *planKey(const qplan *pl, const char *zParams){
  sqlite3_str *s = sqlite3_str_new(0);
  int ok;
  sqlite3_str_appendf(s, "%s|", zParams ? zParams : "");
  ok = planLits(s, pl, 0);
  sqlite3_str_appendchar(s, 1, '.');
  if( !ok ){
    ga_free(sqlite3_str_finish(s));
    return 0;
  }
  return sqlite3_str_finish(s);
}

/* kc holds the plan compiled for columns aRes and these parameters. */
static int keptSame(const qkeptcache *kc, const qplan *pl, ga_resident *const *aRes, const char *zParams){
  int c;
  if( kc==0 || zParams==0 || !kc->valid || kc->nCol!=pl->nCol || strcmp(kc->zKey, zParams)!=0 ) return 0;
  for(c=0; c<pl->nCol; c++) if( kc->aGen[c]!=aRes[c]->gen ) return 0;
  return 1;
}

/* The plan's columns as the cache keeps them (read into it first where keep
** says the table is large), into aRes and aCol, the source that holds them
** into *pSrc (the caller closes it), and the backend that will serve into
** *pBe: the device where useDev and every column is there, the CPU's where
** gpuagg_config('query_kept') is 1, else none (why, if any, in *pzWhy; in
** 'cuda' mode, where strict, an error; *pHost set where the columns are
** kept and the device is being readied). SQLITE_OK or an error (*pzErr). */
static int keptCols(sqlite3_vtab *vt, qplan *pl, int keep, int useDev, int strict, ga_colsrc **pSrc,
                    ga_resident **aRes, ga_qcol *aCol, const ga_backend **pBe, int *pHost, char **pzWhy,
                    char **pzErr){
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend();
  ga_colsrc *src = 0;
  char zErr[GA_ERRLEN], *zOpen = 0;
  int c, rc = SQLITE_OK;
  *pBe = 0;
  if( ga_source_open(((ga_vtab*)vt)->db, conn, "gpu_query", &pl->src, pl->nCol, pl->aiCol, pl->aWant, GA_SRC_CACHE,
                     pSrc, &zOpen)!=SQLITE_OK ){
    *pzWhy = zOpen;
    return SQLITE_OK;
  }
  src = *pSrc;
  if( !ga_cache_source(src) ){
    *pzWhy = sqlite3_mprintf("the columns cannot be kept here (the column cache is off, or the table is a view, "
                             "in a temp, in-memory or attached database, or this connection writes it)");
    return SQLITE_OK;
  }
  if( ga_cache_kept(src, 0)==0 ){
    ga_colsink none;
    if( !keep ) return SQLITE_OK;               /* the table's size is not known yet */
    if( useDev && !dev->xWarm() && dev->xWake(conn->devices, zErr) ){
      *pzWhy = sqlite3_mprintf("%s", zErr);
      return SQLITE_OK;
    }
    memset(&none, 0, sizeof(none));
    none.xBatch = nullBatch;
    none.xPar = nullPar;                        /* (recorded by the page source's workers) */
    none.nPar = conn->threads;
    if( (rc = src->xScan(src, &none))!=SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : src->xErrmsg(src));
      return rc;
    }
    if( ga_cache_kept(src, 0)==0 ){
      *pzWhy = sqlite3_mprintf("the columns were not kept (gpuagg_config('cache') too small, or none)");
      return SQLITE_OK;
    }
  }
  for(c=0; useDev && c<pl->nCol; c++){
    if( ga_cache_kept(src, c)->d==0 ){       /* kept in host memory only: the device again */
      /* (a first read that kept them on the host made no context, its operators the CPU's;
      ** one is being made on a thread of its own (cache.c, 5): until it is, outside 'cuda'
      ** mode, the CPU operators read the kept columns rather than wait for it) */
      if( !dev->xWarm() ){
        if( conn->mode!=GA_CUDA && ga_device_warm_soon() ){
          *pHost = 1;
          *pzWhy = sqlite3_mprintf("the device's context is being made: the CPU operators read the kept columns");
          return SQLITE_OK;
        }
        if( dev->xWake(conn->devices, zErr) ){
          *pzWhy = sqlite3_mprintf("%s", zErr);
          return SQLITE_OK;
        }
      }
      ga_cache_device_again(src);
      break;
    }
  }
  for(c=0; c<pl->nCol; c++){
    aRes[c] = ga_cache_kept(src, c);
    aCol[c].type = aRes[c]->type;
    aCol[c].v = aRes[c]->v;
    aCol[c].d = aRes[c]->d;
    if( aRes[c]->d==0 ) useDev = 0;
  }
  /* no rows: nothing for a device to do (the CPU's program gives the empty groups) */
  *pBe = aRes[0]->n==0 ? &ga_cpu_backend : useDev ? dev : conn->qkept==1 ? &ga_cpu_backend : 0;
  if( *pBe==0 && strict && conn->mode==GA_CUDA ){
    *pzErr = sqlite3_mprintf("gpu_query: not on the device in 'cuda' mode: the columns are not on the device%s%s%s",
                             conn->stats.zLastErr[0] ? " (the last device error: " : "", conn->stats.zLastErr,
                             conn->stats.zLastErr[0] ? ")" : "");
    return SQLITE_ERROR;
  }
  if( *pBe==0 ) *pzWhy = sqlite3_mprintf("the columns are not on the device");
  return SQLITE_OK;
}

/* Whether kept columns may serve a plan of pl's form: NULL, else why not;
** *pNote: a run notes it (keptMay). */
static const char *keptForm(const qplan *pl, int *pNote){
  int64_t lim, off;
  int k;
  *pNote = 0;
  if( pl->s->zFrom==0 || pl->pSub ) return pl->pSub ? "FROM a subquery" : "there is no table";
  if( !pl->grouped && !pl->nJoin && !qxOrderable(pl, &lim, &off) ){
    return "rows without aggregates (other than ordered by one term with a LIMIT of 1 to " Q_STR(Q_ORDER_MAX)
           ", or from a join)";
  }
  *pNote = 1;
  for(k=0; k<pl->nJoin; k++){     /* (compile.c, 6: what the builds show is said once they are made) */
    if( pl->aJoin[k].nEq==0 ) return "a join by no equality";
  }
  return 0;
}

/* Whether kept columns may serve plan pl on this connection at all, before
** any column is looked at: the one decision qxKeptRun, qxKeptOrder and
** q_kept_explain share. NULL: they may (*pUseDev: on the device, its
** backend having the operation, grouped or ordered, pl needs), else why
** not; *pNote: a run notes it among the reads not over kept columns (a
** plan's form; not the connection's settings, nor a shape neither serves). */
static const char *keptMay(const ga_conn *conn, const qplan *pl, int *pUseDev, int *pNote, char *zErr){
  const ga_backend *dev = ga_device_backend();
  *pUseDev = 0;
  *pNote = 0;
  zErr[0] = 0;
  if( conn->qkept!=0 && conn->mode!=GA_CPU && ga_device_usable(zErr) ){   /* (zErr: why not) */
    if( pl->grouped ? dev->xQuery!=0 : dev->xOrder!=0 ) *pUseDev = 1;
    else strcpy(zErr, "the device's backend has no operators for this read");
  }
  if( pl->s->zFrom==0 || pl->pSub || *pUseDev || conn->qkept==1 ) return keptForm(pl, pNote);
  return conn->qkept==0 ? "gpuagg_config('query_kept') is 0" : conn->mode==GA_CPU ? "the backend is cpu" : zErr;
}

/* Whether the connection keeps any column of pl's table (by its schema and
** name, whatever the snapshot): where it keeps none and the read keeps
** none (keep 0: a first read), kept columns cannot serve it, and keptMay
** is not asked, so that the device is not probed for it (the driver's
** first answer takes about 100 ms, a first read's whole cost on a smaller
** table: docs/BENCHMARKS.md). */
static int keptAny(const ga_conn *conn, const qplan *pl){
  const ga_table *t = &pl->src.tab;
  ga_cache_row w;
  int i;
  for(i=0; conn->cache && ga_cache_row_at(conn->cache, i, &w); i++){
    if( strcmp(w.zDb, t->zDb)==0 && strcmp(w.zTab, t->zTab)==0 ) return 1;
  }
  return 0;
}

int qxKeptRecord(const ga_conn *conn, const qplan *pl, int heavy){
  int note;
  if( conn->qkept==0 ) return 0;
  /* (a join's rows: its scanned table's kept columns serve the CPU's operators where the
  ** program does not: qxKeptOrder) */
  return keptForm(pl, &note)==0 && (pl->grouped || !pl->nJoin) ? GA_SRC_RECORD : qxKeptSource(conn, pl, heavy);
}

int qxKeptSource(const ga_conn *conn, const qplan *pl, int heavy){
  int note;
  if( conn->qkept==0 ) return 0;
  /* (a join's rows: its tables are built every read its kept program does not serve) */
  return heavy && (keptForm(pl, &note)!=0 || !pl->grouped) ? GA_SRC_CACHE : GA_SRC_LARGE;
}

int qxKeptRun(Exec *e, sqlite3_vtab *vt, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
              int *pDone, char **pzErr){
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend(), *be = 0;
  ga_resident *aRes[GA_COLS_MAX];
  ga_qcol aCol[GA_COLS_MAX];
  ga_group aG[GA_QFOLD], *apG[GA_QFOLD];
  qjoinrows aJr[Q_MAXTAB];
  Dist *aDist = 0;
  ga_colsrc *src = 0;
  qkept k, *pk = &k;
  char zErr[GA_ERRLEN], *zWhy = 0, *zKey = 0;
  const char *zNot;
  int c, f, rc = SQLITE_OK, fail = 0, useDev, note;
  double t0 = ga_now_ms();
  *pDone = 0;
  memset(&k, 0, sizeof(k));
  memset(aG, 0, sizeof(aG));
  if( !pl->grouped ) return SQLITE_OK;          /* (qxKeptOrder's) */
  if( !keep && !keptAny(conn, pl) ) return SQLITE_OK;
  if( (zNot = keptMay(conn, pl, &useDev, &note, zErr))!=0 ){
    if( note && (r->zKeptWhy = sqlite3_mprintf("%s", zNot))==0 ) return SQLITE_NOMEM;
    return SQLITE_OK;
  }
  rc = keptCols(vt, pl, keep, useDev, 1, &src, aRes, aCol, &be, &r->keptHost, &zWhy, pzErr);
  r->aMs[0] = ga_now_ms() - t0;
  if( rc!=SQLITE_OK || be==0 ) goto done;
  if( kc ) zKey = planKey(pl, zParams);    /* the parameters, and the constants they fold into */
  if( keptSame(kc, pl, aRes, zKey) ){
    pk = &kc->k;                            /* (a join's: its tables unchanged, nothing built) */
    r->planKept = 1;
  }else{
    if( pl->nJoin ){
      /* the joined tables built as the CPU operators build them (join.c, 1), which
      ** serve the read where the program does not */
      if( (rc = qxJoinBuild(e, vt, ((ga_vtab*)vt)->db, keep, pzErr))!=SQLITE_OK ) goto done;
      for(c=0; c<pl->nJoin; c++) qxJoinRows(e, c, &aJr[c]);
      r->aMs[0] = ga_now_ms() - t0;
    }
    rc = pl->nJoin ? q_compile_join(e->r, pl, aRes, aJr, &k, &zWhy) : q_compile(e->r, pl, aRes, &k, &zWhy);
    for(c=0; rc==SQLITE_OK && c<pl->nAgg; c++){
      if( k.aFold[c]==-2 ) rc = distProgram(e, pl, aRes, aJr, c, &k.apDist[c], &zWhy);
    }
    if( rc!=SQLITE_OK ){
      if( rc==QE_BAIL ) rc = SQLITE_OK;
      else *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : q_run_errmsg(e->r));
      goto done;
    }
    if( zKey && keptSave(conn->cache, kc, pl, aRes, zKey, &k, 0)==0 ) pk = &kc->k;
  }
  if( pk!=&k ) ga_cache_hold_use(kc->hold, 1);  /* (kept through the read) */
  r->aMs[1] = ga_now_ms() - t0 - r->aMs[0];
  for(f=0; f<pk->p.nFold; f++){
    aG[f].jb = pk->jbSure ? pk->aJb[f] : -1;
    aG[f].jbSure = pk->jbSure;
    apG[f] = &aG[f];
  }
  haveOf(pl, pk, &aG[0].have);
  /* groups in any order where their order decides nothing (finish.c does not sort them either),
  ** one fold's (keptGroups looks another fold's up by the order they share) */
  aG[0].anyOrder = pl->orderFree && pk->p.nFold==1;
  for(c=0; c<pl->nAgg; c++) if( pk->aFold[c]==-2 ) aG[0].anyOrder = 0;
  fail = be->xQuery(be==dev ? aRes[0]->pRes : 0, &conn->stats, &pk->p, aCol, aRes[0]->n, pk->tabC, pk->tabV, pk->nTab,
                    apG, zErr);
  if( be==dev ) ga_cache_work(conn->cache);
  for(f=0; f<pk->p.nFold; f++){
    if( (aG[f].dev || aG[f].cpu) && be->xGroupDone(&aG[f], !fail, zErr) && !fail ) fail = 1;
  }
  if( !fail ) haveKept(&aG[0], &aG[0].have);
  if( fail==0 && be==dev && kc && pk==&kc->k ){   /* the device found the windows: the next read need not */
    int64_t nAll = 0;
    for(f=0; f<pk->p.nFold; f++) pk->aJb[f] = aG[f].jb;
    pk->jbSure = 1;
    /* ... nor a number key's range: the same program over the same columns makes the same groups,
    ** so the next read's table is made for them (TPC-H Q18's IN: 1.5M groups of keys spanning 6M) */
    for(f=0; f<pk->p.nFold; f++) if( aG[f].nAll>nAll ) nAll = aG[f].nAll;
    if( pk->p.keyNum && pk->p.nGroup==0 && nAll>0 ) pk->p.nGroup = nAll;
    /* ... nor, where it folded them by code, the key's codes (TPC-H Q18's IN: a pass over lineitem) */
    if( pk->p.keyNum && aG[0].nCode>0 ){
      pk->p.nCode = aG[0].nCode;
      pk->p.keyLo = aG[0].keyLo;
    }
  }
  for(c=0; !fail && rc==SQLITE_OK && c<pl->nAgg; c++){
    if( pk->aFold[c]!=-2 ) continue;
    if( aDist==0 ){
      if( (aDist = ga_malloc64(sizeof(Dist)*(uint64_t)pl->nAgg))==0 ){ rc = SQLITE_NOMEM; break; }
      memset(aDist, 0, sizeof(Dist)*(size_t)pl->nAgg);
    }
    rc = keptDistinct(pk->apDist[c], aRes, aCol, be, conn, &aDist[c], &fail, zErr);
  }
  if( rc==QE_BAIL ) rc = SQLITE_OK;
  else if( rc ){
    *pzErr = sqlite3_mprintf("out of memory");
    goto done;
  }
  if( fail==GA_DEV_SCAN ){
    zWhy = sqlite3_mprintf("reals whose range the device's sums do not hold, or infinite, or a column split "
                           "across devices");
  }else if( fail && be==dev ){
    if( ga_device_failed(conn, zErr) ){
      rc = SQLITE_ERROR;
      *pzErr = sqlite3_mprintf("%s", zErr);
    }else{
      zWhy = sqlite3_mprintf("%s", zErr);
    }
  }else if( fail ){
    rc = SQLITE_NOMEM;
    *pzErr = sqlite3_mprintf("out of memory");
  }else if( (rc = keptGroups(e, pk, aG, aDist))==SQLITE_OK ){
    *pDone = 1;
    r->nScan = aRes[0]->n;                  /* (a table read only this way is large too: its
                                            ** subqueries' plans are kept, vtab.c) */
    r->kept = be==dev ? Q_KEPT_DEVICE : Q_KEPT_CPU;
    r->aMs[2] = ga_now_ms() - t0 - r->aMs[0] - r->aMs[1];
    if( be==dev ) ga_cache_device_hit(conn->cache, ga_now_ms() - t0);
  }else if( rc!=QE_BAIL ){
    *pzErr = sqlite3_mprintf("out of memory");
  }
done:
  for(f=0; f<GA_QFOLD; f++) ga_group_clear(&aG[f]);
  for(c=0; aDist && c<pl->nAgg; c++){
    ga_kmap_free(&aDist[c].map);
    ga_free(aDist[c].n);
    ga_free(aDist[c].aDense);
  }
  ga_free(aDist);
  ga_free(zKey);
  q_kept_free(&k);
  if( pk!=&k ) ga_cache_hold_use(kc->hold, 0);   /* (kc may be empty after) */
  if( src ) src->xClose(src);
  if( zWhy && rc==SQLITE_OK && conn->mode==GA_CUDA && be==dev && dev ){
    rc = SQLITE_ERROR;
    *pzErr = sqlite3_mprintf("gpu_query: not on the device in 'cuda' mode: %s", zWhy);
  }
  r->zKeptWhy = zWhy;
  return rc;
}

/* The window's rows (xOrder over the kept columns), in scan order, into
** e's part as batches from the columns' host copies; *pDone set. A join's
** rows without aggregates (exec.c, 8a): the scanned rows its program
** keeps, in scan order, each joined again by the CPU operators; the
** program and the built tables kept in kc for the next read of the same
** constants (as qxKeptRun keeps a plan). Where it does not serve, nothing,
** the reason in r->zKeptWhy. */
int qxKeptOrder(Exec *e, sqlite3_vtab *vt, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
                int *pDone, char **pzErr){
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend(), *be = 0;
  ga_resident *aRes[GA_COLS_MAX];
  ga_qcol aCol[GA_COLS_MAX];
  ga_colvec aVec[GA_COLS_MAX];
  qjoinrows aJr[Q_MAXTAB];
  ga_colsrc *src = 0;
  qkept k, *pk = &k;
  char zErr[GA_ERRLEN], *zWhy = 0, *zKey = 0;
  int64_t lim = Q_JOIN_ROWS + 1, off = 0, *aRow = 0, nRow = 0, i;
  unsigned char *aT = 0;
  int64_t *aV = 0;
  int c, rc = SQLITE_OK, fail, useDev, note, joined = pl->nJoin>0;
  double t0 = ga_now_ms();
  *pDone = 0;
  memset(&k, 0, sizeof(k));
  if( pl->grouped || (!keep && !keptAny(conn, pl)) || keptMay(conn, pl, &useDev, &note, zErr)
   || (!joined && !qxOrderable(pl, &lim, &off)) ){
    return SQLITE_OK;
  }
  rc = keptCols(vt, pl, keep, useDev, 0, &src, aRes, aCol, &be, &r->keptHost, &zWhy, pzErr);
  r->aMs[0] = ga_now_ms() - t0;
  if( rc!=SQLITE_OK || be==0 ) goto done;
  if( joined && kc ) zKey = planKey(pl, zParams);
  if( joined && keptSame(kc, pl, aRes, zKey) && kc->aJt ){
    pk = &kc->k;                            /* (its tables unchanged: built, indexed) */
    ga_cache_hold_use(kc->hold, 1);         /* (kept through the read) */
    qxJoinLend(e, kc->aJt);
    r->planKept = 1;
  }else if( joined ){
    /* the joined tables built as the CPU operators build them: the program
    ** probes them, and the operators join the rows it keeps */
    assert( e->aJt==0 );                    /* (qxKeptRun builds only for groups) */
    if( (rc = qxJoinBuild(e, vt, ((ga_vtab*)vt)->db, keep, pzErr))!=SQLITE_OK ) goto done;
    for(c=0; c<pl->nJoin; c++) qxJoinRows(e, c, &aJr[c]);
    r->aMs[0] = ga_now_ms() - t0;
  }
  if( pk==&k && (rc = joined ? q_compile_join_rows(e->r, pl, aRes, aJr, &k, &zWhy)
                             : q_compile_order(e->r, pl, aRes, &k, &zWhy))!=SQLITE_OK ){
    if( rc==QE_BAIL ) rc = SQLITE_OK;
    else *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : q_run_errmsg(e->r));
    goto done;
  }
  r->aMs[1] = ga_now_ms() - t0 - r->aMs[0];
  if( (aRow = ga_malloc64(8*(uint64_t)(lim + 1)))==0
   || (aT = ga_malloc64((uint64_t)pl->nCol*GA_BATCH))==0
   || (aV = ga_malloc64(8*(uint64_t)pl->nCol*GA_BATCH))==0 ){
    rc = SQLITE_NOMEM;
    *pzErr = sqlite3_mprintf("out of memory");
    goto done;
  }
  fail = be->xOrder(be==dev ? aRes[0]->pRes : 0, &conn->stats, &pk->p, aCol, aRes[0]->n, pk->tabC, pk->tabV, pk->nTab,
                    joined ? 0 : pl->aSortDesc[0], joined ? 0 : qxNullsFirst(pl, 0), off, lim, aRow, &nRow, zErr);
  if( be==dev ) ga_cache_work(conn->cache);
  if( fail==GA_DEV_SCAN ){
    zWhy = sqlite3_mprintf("an ORDER BY term with INTEGER and REAL values both");
    goto done;
  }else if( fail && be==dev && ga_device_failed(conn, zErr) ){
    rc = SQLITE_ERROR;
    *pzErr = sqlite3_mprintf("%s", zErr);
    goto done;
  }else if( fail ){
    zWhy = sqlite3_mprintf("%s", zErr);
    goto done;
  }else if( joined && nRow>Q_JOIN_ROWS ){
    zWhy = sqlite3_mprintf("the join keeps more than %d of its first table's rows (%s)", Q_JOIN_ROWS,
                           pl->src.tab.zTab);
    goto done;
  }
  if( joined && (rc = qxJoinIndex(e))!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("out of memory");
    goto done;
  }
  if( joined && pk==&k && zKey ){           /* the program and the tables kept for the next read */
    struct JoinTab *aJt;
    int64_t nJt = qxJoinTake(e, &aJt);
    if( nJt>=0 && keptSave(conn->cache, kc, pl, aRes, zKey, &k, nJt)==0 ){
      kc->aJt = aJt;
      kc->nJt = pl->nJoin;
      pk = &kc->k;
      ga_cache_hold_use(kc->hold, 1);
      qxJoinLend(e, aJt);
    }else if( nJt>=0 ){
      e->aJt = aJt;                         /* (e's again) */
    }
  }
  /* the rows in scan order (finish orders them again, ties by that order) */
  qsort(aRow, (size_t)nRow, sizeof(int64_t), qxCmpU64);   /* (rows are not negative) */
  for(i=0; i<nRow && rc==SQLITE_OK; i+=GA_BATCH){
    ga_colbatch b;
    int m = nRow - i<GA_BATCH ? (int)(nRow - i) : GA_BATCH, j;
    memset(&b, 0, sizeof(b));
    for(c=0; c<pl->nCol; c++){
      for(j=0; j<m; j++){
        aT[c*GA_BATCH + j] = aRes[c]->type[aRow[i + j]];
        aV[c*GA_BATCH + j] = aRes[c]->v[aRow[i + j]];
      }
      aVec[c].type = aT + c*GA_BATCH;
      aVec[c].v = aV + c*GA_BATCH;
      aVec[c].cell = aRes[c]->dict;
    }
    b.pos = aRow[i];
    b.n = m;
    b.nCol = pl->nCol;
    b.col = aVec;
    rc = e->xBatch(e, &e->main, &b, 0);
  }
  if( rc==SQLITE_OK ){
    e->offDone = !joined;
    *pDone = 1;
    r->nScan = nRow;
    r->kept = be==dev ? Q_KEPT_DEVICE : Q_KEPT_CPU;
    r->aMs[2] = ga_now_ms() - t0 - r->aMs[0] - r->aMs[1];
    if( be==dev ) ga_cache_device_hit(conn->cache, ga_now_ms() - t0);
  }
done:
  ga_free(aRow);
  ga_free(aT);
  ga_free(aV);
  ga_free(zKey);
  q_kept_free(&k);
  if( e->jtLent ) qxJoinFree(e);            /* (not for the CPU's scan: their hold ends here) */
  if( pk!=&k ) ga_cache_hold_use(kc->hold, 0);   /* (kc may be empty after) */
  if( src ) src->xClose(src);
  r->zKeptWhy = zWhy;
  return rc;
}

/* q_kept_explain of a plan that is not a compound: its text, and in *pKept
** the operators that would serve it (Q_KEPT_*; 0: none) */
static char *keptExplain(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int *pKept){
  /* (what qxKeptRun and qxKeptOrder decide, without reading or keeping
  ** anything) */
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const char *azCol[GA_COLS_MAX], *zNot;
  ga_resident *aRes[GA_COLS_MAX];
  char zErr[GA_ERRLEN] = "", *zWhy = 0, *z;
  int c, hit = 0, rc, useDev, note;
  ga_colsrc *src;
  qrun *r;
  qkept k;
  *pKept = 0;
  if( (zNot = keptMay(conn, pl, &useDev, &note, zErr))!=0 ) return sqlite3_mprintf("no: %s", zNot);
  qxSomeColumn(pl);
  for(c=0; c<pl->nCol; c++) azCol[c] = pl->src.tab.aCol[pl->aiCol[c]].zName;
  src = ga_colsrc_cache(db, conn, &pl->src.tab, pl->nCol, azCol, pl->aWant, 0, &hit);
  if( src==0 ) return sqlite3_mprintf("no: the columns cannot be kept here");
  if( !hit ){
    if( src ) src->xClose(src);
    return sqlite3_mprintf("not yet: a read that does not run over kept columns keeps them where the table has"
                           " gpuagg_config('threshold') rows or more");
  }
  for(c=0; c<pl->nCol; c++){
    aRes[c] = ga_cache_kept(src, c);
    if( aRes[c]->d==0 ) useDev = 0;
  }
  if( pl->nJoin ){                /* (the builds decide: qxKeptRun makes them) */
    src->xClose(src);
    if( !useDev && conn->qkept!=1 ) return sqlite3_mprintf("no: the columns are not on the device");
    *pKept = useDev ? Q_KEPT_DEVICE : Q_KEPT_CPU;
    return sqlite3_mprintf("yes: the %s operators, where each joined table's keys are integers, one row a key"
                           " or a pair of keys but for a subquery's (known once a read has built the joins)",
                           useDev ? "device's" : "CPU's");
  }
  if( (r = q_run_new(db, pl))==0 ){
    src->xClose(src);
    return 0;
  }
  rc = pl->grouped ? q_compile(r, pl, aRes, &k, &zWhy) : q_compile_order(r, pl, aRes, &k, &zWhy);
  if( rc==SQLITE_OK ){
    q_kept_free(&k);
    *pKept = useDev ? Q_KEPT_DEVICE : conn->qkept==1 ? Q_KEPT_CPU : 0;
    z = sqlite3_mprintf(useDev ? "yes: the device's operators%s" : conn->qkept==1 ? "yes: the CPU's operators%s"
                                                                                : "no: the columns are not on the device",
                        pl->grouped ? "" : " (the window of the order)");
  }else{
    z = sqlite3_mprintf("no: %s", zWhy ? zWhy : q_run_errmsg(r));
  }
  ga_free(zWhy);
  q_run_free(r);
  src->xClose(src);
  return z;
}

char *q_kept_explain(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int *aKept){
  sqlite3_str *x;
  int k;
  if( pl->nArm==0 ) return keptExplain(vt, db, pl, aKept);
  x = sqlite3_str_new(0);            /* each arm's */
  for(k=0; k<pl->nArm; k++){
    char *z = keptExplain(vt, db, &pl->aArm[k], &aKept[k]);
    sqlite3_str_appendf(x, "%sarm %d: %s", k ? "; " : "", k + 1, z ? z : "out of memory");
    ga_free(z);
  }
  return sqlite3_str_finish(x);
}
