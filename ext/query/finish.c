/*
** gpu_query's CPU operators (exec.c's requirement 5): result rows (a
** batch's, or the groups' after HAVING), SELECT DISTINCT, ORDER BY (stable),
** OFFSET and LIMIT.
*/
#include "execint.h"

static void groupLeaf(void *pArg, int kind, int idx, int g, qval *out);

/* Room for need rows (exact: at least need, or, growing, twice as many). */
int qxRowsGrow(Exec *e, int64_t need, int exact){
  qresult *o = e->out;
  if( need>e->rAlloc ){
    int64_t n = exact ? need : e->rAlloc ? 2*e->rAlloc : 1024;
    qval *a;
    while( n<need ) n *= 2;
    if( (a = ga_realloc64(o->a, sizeof(qval)*(uint64_t)(n*e->nW)))==0 ) return SQLITE_NOMEM;
    o->a = a;
    e->rAlloc = n;
  }
  return SQLITE_OK;
}

/* Every value (results, then sort terms: e->nW) of ctx's rows into rows,
** evaluated on run r; a group's leaves as the groups show them. */
static int rowsMake(Exec *e, qrun *r, const qctx *ctx, qval *rows){
  const qplan *pl = e->pl;
  int j, i, rc;
  for(j=0; j<e->nW; j++){
    qexpr *x = j<pl->nOut ? pl->aOut[j] : pl->aSort[j - pl->nOut];
    qvec *v;
    if( ctx->grp && Q_GROUP_LEAF(x->op) ){
      /* a group's key, bare column or aggregate: its bytes are the run's already */
      for(i=0; i<ctx->n; i++) groupLeaf(e, x->op, x->iCol, ctx->grp[i], &rows[(int64_t)i*e->nW + j]);
      continue;
    }
    if( (rc = q_eval(r, x, ctx, &v))!=SQLITE_OK ) return rc;
    for(i=0; i<ctx->n; i++) q_get(v, i, &rows[(int64_t)i*e->nW + j]);
  }
  return SQLITE_OK;
}

/* Row row's TEXT and BLOB bytes (but a group leaf's) kept for run r. */
static int rowKeep(Exec *e, qrun *r, const qctx *ctx, qval *row){
  const qplan *pl = e->pl;
  int j;
  for(j=0; j<e->nW; j++){
    qval *d = &row[j];
    const qexpr *x = j<pl->nOut ? pl->aOut[j] : pl->aSort[j - pl->nOut];
    if( (d->t==SQLITE_TEXT || d->t==SQLITE_BLOB) && !(ctx->grp && Q_GROUP_LEAF(x->op))
     && (d->z = q_keep(r, d->z, d->n))==0 ){
      return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

static int tooMany(Exec *e){
  return q_run_error(e->r, QE_BAIL, "a result of more than %lld values (SQLite streams it)", (long long)Q_MAXVALUES);
}

/* Keep the results and sort terms of ctx's rows (e->nW values a row); with
** SELECT DISTINCT, only each row whose results are new (by their
** collations: requirement 5), the first of equal rows staying. */
int qxRowsAppend(Exec *e, const qctx *ctx){
  qplan *pl = e->pl;
  qresult *o = e->out;
  int j, i, rc, m = 0;
  if( (o->nRow + ctx->n)*e->nW>Q_MAXVALUES ) return tooMany(e);
  if( (rc = qxRowsGrow(e, o->nRow + ctx->n, 0))!=SQLITE_OK ) return rc;
  if( (rc = rowsMake(e, e->r, ctx, &o->a[o->nRow*e->nW]))!=SQLITE_OK ) return rc;
  /* the rows kept (their bytes the run's) */
  for(i=0; i<ctx->n; i++){
    qval *row = &o->a[(o->nRow + i)*e->nW];
    if( pl->distinct ){
      int n = 0, isNew;
      int64_t id;
      for(j=0; j<pl->nOut; j++){
        if( (rc = qxKeyOf(&e->main, &row[j], pl->aOutColl[j], &n))!=SQLITE_OK ) return rc;
      }
      if( (rc = qxKeySetAdd(e->r, &e->rows, e->main.kbuf, n, &isNew, &id))!=SQLITE_OK ) return rc;
      if( !isNew ) continue;
    }
    if( (rc = rowKeep(e, e->r, ctx, row))!=SQLITE_OK ) return rc;
    if( m<i ) memmove(&o->a[(o->nRow + m)*e->nW], row, sizeof(qval)*(size_t)e->nW);
    m++;
  }
  o->nRow += m;
  return SQLITE_OK;
}

/* Room in part p for need rows (e->nW values each), and one batch's record
** more. */
static int partRowsGrow(Exec *e, Part *p, int64_t need){
  if( need>p->rowVAlloc ){
    int64_t n = p->rowVAlloc ? 2*p->rowVAlloc : 1024;
    qval *a;
    while( n<need ) n *= 2;
    if( (a = ga_realloc64(p->aRowV, sizeof(qval)*(uint64_t)(n*e->nW)))==0 ) return SQLITE_NOMEM;
    p->aRowV = a;
    p->rowVAlloc = n;
  }
  if( p->nChunk==p->chunkAlloc ){
    int64_t n = p->chunkAlloc ? 2*p->chunkAlloc : 64, *a;
    if( (a = ga_realloc64(p->aChunk, 2*sizeof(int64_t)*(uint64_t)n))==0 ) return SQLITE_NOMEM;
    p->aChunk = a;
    p->chunkAlloc = n;
  }
  return SQLITE_OK;
}

int qxRowsPart(Exec *e, Part *p, int64_t pos, const qctx *ctx, int worker){
  qval *rows;
  int64_t n;
  int i, rc;
  assert( !e->pl->distinct && ctx->grp==0 );
  if( (rc = partRowsGrow(e, p, p->nRowV + ctx->n))!=SQLITE_OK ) return rc;
  /* every value made before anything is kept: a worker's batch that needs the
  ** scan's thread (GA_SINK_LATER) leaves no trace */
  rows = &p->aRowV[p->nRowV*e->nW];
  if( (rc = rowsMake(e, p->r, ctx, rows))!=SQLITE_OK ) return rc;
  n = __atomic_add_fetch(&e->nRowsPar, ctx->n, __ATOMIC_RELAXED);
  if( n*e->nW>Q_MAXVALUES ){
    __atomic_sub_fetch(&e->nRowsPar, ctx->n, __ATOMIC_RELAXED);
    return worker ? GA_SINK_LATER : tooMany(e);   /* (the scan's thread says why) */
  }
  for(i=0; i<ctx->n; i++){
    if( (rc = rowKeep(e, p->r, ctx, &rows[(int64_t)i*e->nW]))!=SQLITE_OK ) return rc;
  }
  p->aChunk[2*p->nChunk] = pos;
  p->aChunk[2*p->nChunk + 1] = p->nRowV;
  p->nChunk++;
  p->nRowV += ctx->n;
  return SQLITE_OK;
}

/* A batch's rows in a part (qxRowsMerge). */
typedef struct RowChunk { int64_t pos; int part; int64_t i0, n; } RowChunk;
static int chunkCmp(const void *x, const void *y){
  const RowChunk *a = (const RowChunk*)x, *b = (const RowChunk*)y;
  if( a->pos!=b->pos ) return a->pos<b->pos ? -1 : 1;
  if( a->part!=b->part ) return a->part<b->part ? -1 : 1;   /* (a batch's rows are one part's) */
  return a->i0<b->i0 ? -1 : a->i0>b->i0;
}

int qxRowsMerge(Exec *e){
  qresult *o = e->out;
  RowChunk *a;
  int64_t nC = 0, nRow = 0, c, k;
  int w, rc;
  for(w=-1; w<e->nPart; w++){
    const Part *p = w<0 ? &e->main : &e->aPart[w];
    nC += p->nChunk;
    nRow += p->nRowV;
  }
  if( (a = ga_malloc64(sizeof(RowChunk)*(uint64_t)(nC + 1)))==0 ) return SQLITE_NOMEM;
  for(w=-1, c=0; w<e->nPart; w++){
    const Part *p = w<0 ? &e->main : &e->aPart[w];
    for(k=0; k<p->nChunk; k++, c++){
      a[c].pos = p->aChunk[2*k];
      a[c].part = w;
      a[c].i0 = p->aChunk[2*k + 1];
      a[c].n = (k + 1<p->nChunk ? p->aChunk[2*k + 3] : p->nRowV) - a[c].i0;
    }
  }
  qsort(a, (size_t)nC, sizeof(RowChunk), chunkCmp);
  if( (rc = qxRowsGrow(e, o->nRow + nRow, 1))==SQLITE_OK ){
    for(c=0; c<nC; c++){
      const Part *p = a[c].part<0 ? &e->main : &e->aPart[a[c].part];
      memcpy(&o->a[o->nRow*e->nW], &p->aRowV[a[c].i0*e->nW], sizeof(qval)*(size_t)(a[c].n*e->nW));
      o->nRow += a[c].n;
    }
    for(w=0; w<e->nPart; w++) q_keep_move(e->r, e->aPart[w].r);   /* (the rows show their bytes) */
  }
  ga_free(a);
  return rc;
}

static void groupLeaf(void *pArg, int kind, int idx, int g, qval *out){
  Exec *e = (Exec*)pArg;
  const qplan *pl = e->pl;
  if( kind==E_AGGREF ) *out = e->main.aAgg[idx].res[g];
  else *out = e->main.gKey[(int64_t)g*SHOWN(pl) + (kind==E_BARE ? pl->nKey : 0) + idx];
}

/* Stable merge sort of idx[0..n) by cmp; two halves already in order are
** not merged (groups made in their keys' order take n comparisons). */
typedef int (*Cmp)(void*, int64_t, int64_t);
void qxSort(int64_t *a, int64_t *tmp, int64_t n, Cmp cmp, void *arg){
  int64_t h = n/2, i = 0, j = h, k = 0;
  if( n<2 ) return;
  qxSort(a, tmp, h, cmp, arg);
  qxSort(a + h, tmp, n - h, cmp, arg);
  if( cmp(arg, a[h], a[h-1])>=0 ) return;      /* in order already (groups made in their keys' order) */
  while( i<h && j<n ) tmp[k++] = cmp(arg, a[j], a[i])<0 ? a[j++] : a[i++];
  while( i<h ) tmp[k++] = a[i++];
  while( j<n ) tmp[k++] = a[j++];
  memcpy(a, tmp, sizeof(int64_t)*(size_t)n);
}

static int rankCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  return (e->gRank[x]>e->gRank[y]) - (e->gRank[x]<e->gRank[y]);
}

/* Groups x and y in GROUP BY's order (its keys, each ascending or as
** aKeyDesc says), or SQLite's join's (keyFirst's key first). */
static int groupCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  int k, c, lead = e->pl->keyFirst - 1;
  for(k=lead>=0 ? -1 : 0; k<e->pl->nKey; k++){
    int kk = k<0 ? lead : k;
    if( k==lead ) continue;
    c = q_cmp(&e->main.gKey[x*SHOWN(e->pl) + kk], &e->main.gKey[y*SHOWN(e->pl) + kk], e->pl->aKeyColl[kk]);
    if( c ) return e->pl->aKeyDesc && e->pl->aKeyDesc[kk] ? -c : c;
  }
  return 0;
}

/* ORDER BY term k puts NULLs first: NULLS FIRST, or ascending without NULLS. */
int qxNullsFirst(const qplan *pl, int k){
  return pl->aSortNulls[k] ? pl->aSortNulls[k]==1 : !pl->aSortDesc[k];
}

int qxSortTermCmp(const qplan *pl, int k, const qval *a, const qval *b){
  int an = a->t==SQLITE_NULL, bn = b->t==SQLITE_NULL, c;
  if( an || bn ) return an && bn ? 0 : (an ? -1 : 1)*(qxNullsFirst(pl, k) ? 1 : -1);
  c = q_cmp(a, b, pl->aSortColl[k]);
  return pl->aSortDesc[k] ? -c : c;
}

static int sortCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  qplan *pl = e->pl;
  int k, c;
  for(k=0; k<pl->nSort - e->sortCut; k++){
    c = qxSortTermCmp(pl, k, &e->out->a[x*e->nW + pl->nOut + k], &e->out->a[y*e->nW + pl->nOut + k]);
    if( c ) return c;
  }
  return 0;
}

/* order[] = the groups by gRank, stably: a counting sort over the
** e->nRank places (tmp is nGroup + 1 long; the counts are its own). */
static int rankSort(Exec *e, int64_t *order, int64_t *tmp){
  int64_t *at = ga_malloc64(8*(e->nRank + 1)), g, n = e->main.nGroup;
  uint64_t r, sum = 0;
  if( at==0 ) return SQLITE_NOMEM;
  memset(at, 0, 8*(size_t)(e->nRank + 1));
  for(g=0; g<n; g++){ assert( e->gRank[g]<e->nRank ); at[e->gRank[g]]++; }
  for(r=0; r<e->nRank; r++){
    uint64_t c = (uint64_t)at[r];
    at[r] = (int64_t)sum;
    sum += c;
  }
  for(g=0; g<n; g++) tmp[at[e->gRank[g]]++] = g;
  memcpy(order, tmp, 8*(size_t)n);
  ga_free(at);
  return SQLITE_OK;
}

/* HAVING over ctx's groups (ctx.grp, which is aGrp): ctx keeps those it is
** true for. */
static int havingKeep(Exec *e, qctx *ctx, int *aGrp){
  qvec *v;
  int i, m = 0, rc;
  if( (rc = q_eval(e->r, e->pl->pHaving, ctx, &v))!=SQLITE_OK ) return rc;
  for(i=0; i<ctx->n; i++){
    int yes;
    if( (rc = q_true(e->r, v, i, &yes))!=SQLITE_OK ) return rc;
    if( yes ) aGrp[m++] = aGrp[i];
  }
  ctx->n = m;
  return SQLITE_OK;
}

/* HAVING first, over the groups as they were made, so that only the groups
** it keeps are sorted (TPC-H Q18's subquery: 1.5M groups, 57 kept): order
** becomes those groups, *pn of them. The order HAVING meets the groups in
** decides nothing: every error it can raise sends the read to SQLite's run
** (QE_BAIL), and an interrupt or no memory is the statement's anyway. */
static int havingFirst(Exec *e, int64_t *order, int64_t *pn){
  int64_t g0, n = 0;
  int aGrp[GA_BATCH], i, rc;
  for(g0=0; g0<e->main.nGroup; g0+=GA_BATCH){
    qctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.n = (int)(e->main.nGroup - g0<GA_BATCH ? e->main.nGroup - g0 : GA_BATCH);
    for(i=0; i<ctx.n; i++) aGrp[i] = (int)(g0 + i);
    ctx.grp = aGrp;
    if( (rc = havingKeep(e, &ctx, aGrp))!=SQLITE_OK ) return rc;
    for(i=0; i<ctx.n; i++) order[n++] = aGrp[i];
  }
  *pn = n;
  return SQLITE_OK;
}

/* ORDER BY term i is GROUP BY's key k as the groups' order has it: by the
** key's collation, ascending with NULLs first, or descending with NULLs
** last where the key's order is descending (groupCmp, rankSort). */
static int keyTerm(const qplan *pl, int i, int k){
  const qexpr *t = pl->aSort[i];
  int desc;
  if( t->op!=E_KEY || t->iCol!=k || k>=pl->nKey ) return 0;
  desc = pl->aKeyDesc && pl->aKeyDesc[k];
  return !pl->aSortDesc[i]==!desc && qxNullsFirst(pl, i)==!desc && pl->aSortColl[i]==pl->aKeyColl[k];
}

/* How many trailing ORDER BY terms the groups, once in GROUP BY's order,
** need not be compared by: ORDER BY x, k0, k1 over GROUP BY k0, k1, ...
** sorts as ORDER BY x alone does, stably (ties of x stay in the keys'
** order), and one term of numbers sorts by typed keys (order.c: TPC-H
** Q16's count and its three keys, 18,217 groups); ORDER BY k0 sorts
** nothing. */
static int sortTermsCut(const qplan *pl){
  int m, i;
  if( pl->keyFirst || pl->nJoinOrd || pl->tieBail || pl->isArm || pl->nArm ) return 0;
  for(m=0; m<pl->nSort; m++){
    for(i=m; i<pl->nSort && keyTerm(pl, i, i - m); i++){}
    if( i==pl->nSort ) return pl->nSort - m;
  }
  return 0;
}

/* The groups as rows: HAVING, then results and the sort terms compared
** (the trailing ones the groups' order gives, e->sortCut, are not made:
** a row holds nOut + nSort - sortCut values). */
int qxGroupsToRows(Exec *e){
  qplan *pl = e->pl;
  int64_t *order = 0, *tmp = 0, g0, n = e->main.nGroup;
  int rc = SQLITE_OK, aGrp[GA_BATCH], kept = 0;
  if( !e->kept && (rc = qxAggFinal(e))!=SQLITE_OK ) return rc;
  order = ga_malloc64(8*(uint64_t)(e->main.nGroup + 1));
  tmp = ga_malloc64(8*(uint64_t)(e->main.nGroup + 1));
  if( order==0 || tmp==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(g0=0; g0<e->main.nGroup; g0++) order[g0] = g0;
  q_run_groups(e->r, groupLeaf, e);
  if( pl->nKey && e->gRank && e->nRank && e->nRank<=4*(uint64_t)e->main.nGroup + 65536 ){
    if( (rc = rankSort(e, order, tmp))!=SQLITE_OK ) goto done;
    e->sortCut = sortTermsCut(pl);
    e->nW -= e->sortCut;
  }else if( pl->nKey ){
    if( pl->pHaving ){
      if( (rc = havingFirst(e, order, &n))!=SQLITE_OK ) goto done;
      kept = 1;
    }
    if( !pl->orderFree ){
      qxSort(order, tmp, n, e->gRank ? rankCmp : groupCmp, e);
      e->sortCut = sortTermsCut(pl);
      e->nW -= e->sortCut;
    }
  }
  if( (rc = qxRowsGrow(e, n, 1))!=SQLITE_OK ) goto done;
  for(g0=0; g0<n && rc==SQLITE_OK; g0+=GA_BATCH){
    qctx ctx;
    int i;
    memset(&ctx, 0, sizeof(ctx));
    ctx.n = (int)(n - g0<GA_BATCH ? n - g0 : GA_BATCH);
    for(i=0; i<ctx.n; i++) aGrp[i] = (int)order[g0 + i];
    ctx.grp = aGrp;
    if( pl->pHaving && !kept && (rc = havingKeep(e, &ctx, aGrp))!=SQLITE_OK ) break;
    if( ctx.n ) rc = qxRowsAppend(e, &ctx);
  }
done:
  ga_free(order);
  ga_free(tmp);
  return rc;
}

/* sortCmp, ties by scan order (a row's number): the stable sort's order. */
static int totalCmp(void *e, int64_t x, int64_t y){
  int c = sortCmp(e, x, y);
  return c ? c : (x>y) - (x<y);
}

/* Reorder idx[0..n) so that idx[k] is the k-th row of totalCmp's order,
** those before it no later, those after it no earlier (Hoare's selection,
** the middle of three as the pivot). */
static void selectNth(Exec *e, int64_t *idx, int64_t n, int64_t k){
  int64_t lo = 0, hi = n - 1;
  while( hi>lo ){
    int64_t m = lo + (hi - lo)/2, i = lo, j = hi, t, p;
    if( totalCmp(e, idx[m], idx[lo])<0 ){ t = idx[m]; idx[m] = idx[lo]; idx[lo] = t; }
    if( totalCmp(e, idx[hi], idx[lo])<0 ){ t = idx[hi]; idx[hi] = idx[lo]; idx[lo] = t; }
    if( totalCmp(e, idx[hi], idx[m])<0 ){ t = idx[hi]; idx[hi] = idx[m]; idx[m] = t; }
    p = idx[m];
    while( i<=j ){
      while( totalCmp(e, idx[i], p)<0 ) i++;
      while( totalCmp(e, p, idx[j])<0 ) j--;
      if( i<=j ){ t = idx[i]; idx[i] = idx[j]; idx[j] = t; i++; j--; }
    }
    if( k<=j ) hi = j;
    else if( k>=i ) lo = i;
    else break;
  }
}

/* ORDER BY, OFFSET, LIMIT over e->out's rows; the sort terms dropped. */
int qxFinish(Exec *e){
  qplan *pl = e->pl;
  qresult *o = e->out;
  qselect *s = pl->s;
  int64_t lim = -1, off = 0, i, *idx = 0, *tmp = 0, n;
  qval *a;
  int rc, nTerm = pl->nSort - e->sortCut;   /* the terms compared */
  if( s->pLimit && !pl->isArm ){
    if( s->pLimit->op!=E_LIT || s->pLimit->t!=SQLITE_INTEGER ) return q_run_error(e->r, QE_BAIL, "a LIMIT that is not an integer");
    lim = s->pLimit->i;
  }
  if( s->pOffset && s->pOffset!=s->pLimit && !pl->isArm && !e->offDone ){
    if( s->pOffset->op!=E_LIT || s->pOffset->t!=SQLITE_INTEGER ) return q_run_error(e->r, QE_BAIL, "an OFFSET that is not an integer");
    off = s->pOffset->i<0 ? 0 : s->pOffset->i;
  }
  n = o->nRow - off;
  if( n<0 ) n = 0;
  if( lim>=0 && n>lim ) n = lim;
  if( pl->nSort==0 && off==0 && n==o->nRow ){    /* the rows as they are */
    o->nCol = pl->nOut;
    return SQLITE_OK;
  }
  if( (idx = ga_malloc64(8*(uint64_t)(o->nRow + 1)))==0 || (tmp = ga_malloc64(8*(uint64_t)(o->nRow + 1)))==0 ){
    ga_free(idx);
    return SQLITE_NOMEM;
  }
  for(i=0; i<o->nRow; i++) idx[i] = i;
  rc = SQLITE_DONE;
  if( pl->tieBail ){
    /* (plan.c, 9d) every row sorted: two that tie and differ are SQLite's
    ** join order's to place */
    qxSort(idx, tmp, o->nRow, sortCmp, e);
    for(i=0; i + 1<o->nRow && rc==SQLITE_DONE; i++){
      int j;
      if( sortCmp(e, idx[i], idx[i + 1]) ) continue;
      for(j=0; j<pl->nOut && qxSameVal(&o->a[idx[i]*e->nW + j], &o->a[idx[i + 1]*e->nW + j]); j++){}
      if( j<pl->nOut ) rc = q_run_error(e->r, QE_BAIL, "at run time: rows of a join that tie on every ORDER BY term "
                                        "and differ (their order is SQLite's join order)");
    }
    if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  }
  if( rc==SQLITE_DONE && nTerm==1 && n>0 ){       /* one term: by typed keys where numbers */
    rc = q_order_numeric(&o->a[pl->nOut], o->nRow, e->nW, pl->aSortDesc[0], qxNullsFirst(pl, 0), off, n, idx + off);
  }
  if( rc==SQLITE_DONE && nTerm && n>0 && n<o->nRow/2 ){
    /* only rows off..off+n of the order are wanted (OFFSET n/2 LIMIT 2: a
    ** median): the first off picked, then the n, by selection (ties by
    ** scan order, as the stable sort), and only the n sorted (selection
    ** moved them: ties by scan order again) */
    selectNth(e, idx, o->nRow, off);
    selectNth(e, idx + off, o->nRow - off, n - 1);
    qxSort(idx + off, tmp, n, totalCmp, e);
  }else if( rc==SQLITE_DONE && nTerm ){
    qxSort(idx, tmp, o->nRow, sortCmp, e);
  }
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  if( rc==SQLITE_OK && (a = ga_malloc64(sizeof(qval)*(uint64_t)(n*pl->nOut + 1)))==0 ) rc = SQLITE_NOMEM;
  if( rc!=SQLITE_OK ){
    ga_free(idx);
    ga_free(tmp);
    return rc;
  }
  for(i=0; i<n; i++) memcpy(&a[i*pl->nOut], &o->a[idx[off + i]*e->nW], sizeof(qval)*(size_t)pl->nOut);
  ga_free(o->a);
  o->a = a;
  o->nRow = n;
  o->nCol = pl->nOut;
  ga_free(idx);
  ga_free(tmp);
  return SQLITE_OK;
}
