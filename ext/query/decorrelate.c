/*
** A rewrite of the parse: a WHERE conjunct that compares with a correlated
** aggregate, x < (SELECT 0.2*avg(l_quantity) FROM lineitem WHERE
** l_partkey = p_partkey), becomes a join with that aggregate grouped by
** the correlation (TPC-H Q2, Q17, Q20; Neumann and Kemper's unnesting):
**
**     ... JOIN (SELECT l_partkey AS gpuagg_k0, 0.2*avg(l_quantity) AS
**     gpuagg_v FROM lineitem GROUP BY l_partkey) AS gpuagg_cN
**     ON gpuagg_cN.gpuagg_k0 = p_partkey ... WHERE x < gpuagg_cN.gpuagg_v
**
**   1. Rewritten only where the answer cannot differ: the conjunct is one
**      of WHERE's top-level ANDs and a comparison (=, <>, <, <=, >, >=)
**      whose other operand has no subquery; the subquery is one core with
**      a FROM of tables, one result that is arithmetic (+ - * /, unary -)
**      of sum, avg, min, max and constants without COLLATE (over no rows,
**      or NULLs alone, it is NULL, and NULL compares true with nothing, so
**      an outer row without a group is dropped as the comparison drops
**      it), no GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT or OFFSET.
**   2. Its WHERE's conjuncts are over its own tables alone (the derived
**      table's WHERE), or equalities of an expression over its tables with
**      one over the outer query's alone (the keys: the derived table's
**      GROUP BY and the join's ON, each operand on the side it was
**      written: the left one's collation wins), at least one. Any other
**      reference to the outer query leaves it.
**   3. Which names are the subquery's is the caller's (xInner: SQLite
**      resolves a name to the innermost table that has it). What remains
**      for the plan (plan.c, 9c): a group of values that compare equal but
**      differ, and two groups that the join's equality takes as one (its
**      affinity, its collation), are where the rows the subquery would
**      aggregate are not one group's: the run is then SQLite's.
**   4. A key whose outer side the outer query's WHERE restricts with IN
**      (TPC-H Q20's ps_partkey IN (SELECT p_partkey FROM part WHERE ...))
**      restricts the derived table's rows the same way on its inner side,
**      where the caller (xRestrict) gives that conjunct: the join meets no
**      group whose key fails it, so only those groups go (lineitem's 1994
**      rows of 2,105 parts at scale factor 1, not of 200,000). The caller
**      gives it only where the IN means the same on both sides.
**   4a. Else, where the subquery joins tables, a key whose outer side is a
**      column of an outer table that the outer query's WHERE restricts by
**      conditions over it alone (TPC-H Q2's part: p_size = 15 AND p_type
**      LIKE '%BRASS') joins that table to the derived table's, by the key,
**      with those conditions: again the join meets no group it drops (Q2's
**      118,741 groups of partsupp's minimum cost become 476 at SF 1; H200,
**      Q2 on the engine 40.7 -> 11.2 ms a read). A one-table subquery's
**      groups the device makes and joins where they are: Q17's took 0.20
**      ms a read without it, 0.31 with it. The caller gives it only where
**      the column is that table's rowid's alias: a group's rows each meet
**      one row of it, the same one, so a group is whole or gone. (A key
**      that repeats would meet its rows more than once: a sum would
**      change, and the device joins no such table.)
**   5. The derived table's rows, and its plan over kept columns, are named
**      in a table's reads (exec.c's qxSubRows: rows read once a read where
**      the name has no parameter, the plan kept between reads) by its
**      subquery's place and text and the text of each restriction of 4:
**      the same name, the same rows.
*/
#include <string.h>
#include "query.h"

/* Whether e is a value of aggregates that is NULL where they are (1). */
static int nullStrict(const qexpr *e){
  if( e==0 ) return 0;
  switch( e->op ){
    case E_AGG:
      return !e->distinct && (e->agg==A_SUM || e->agg==A_AVG || e->agg==A_MIN || e->agg==A_MAX);
    case E_LIT: case E_PARAM:
      return 1;
    case E_ADD: case E_SUB: case E_MUL: case E_DIV:
      return nullStrict(e->a) && nullStrict(e->b) && (q_has_agg(e->a) || q_has_agg(e->b));
    case E_UPLUS:
      return nullStrict(e->a) && q_has_agg(e->a);
    default:
      return 0;
  }
}

/* 1 where every column below e is the subquery's, 0 where every one is
** the outer query's (or there is none: 2), -1 where they mix or there is a
** subquery below. */
static int sideOf(const qexpr *e, int (*xInner)(void*, const qexpr*), void *pCtx){
  int r = 2, i;
  const qexpr *a[2];
  if( e==0 ) return 2;
  if( e->op==E_SUBQ || e->op==E_INSEL ) return -1;
  if( e->op==E_COL ) return xInner(pCtx, e) ? 1 : 0;
  a[0] = e->a; a[1] = e->b;
  for(i=0; i<2 + e->nArg; i++){
    int s = sideOf(i<2 ? a[i] : e->arg[i - 2], xInner, pCtx);
    if( s<0 || (s!=2 && r!=2 && s!=r) ) return -1;
    if( s!=2 ) r = s;
  }
  return r;
}

int q_decorrelate(qselect *s, qexpr *pTerm, qselect *sub, int iName, int (*xInner)(void*, const qexpr*),
                  int (*xRestrict)(void*, const qexpr*, const qexpr*, qrestrict*), void *pCtx){
  qexpr *aW[64], *aKey[Q_MAXKEY], *aOuter[Q_MAXKEY], *pLocal = 0, **ppSub, *v;
  qfrom *apJoin[Q_MAXKEY];         /* 4a: the outer tables joined to the derived table's */
  int nAdd = 0;
  int aKeyLeft[Q_MAXKEY];          /* the key was the equality's left operand (its collation,
                                   ** its affinity's order: kept) */
  qselect *d;
  qfrom *aJoin;
  qterm *aRes, *aGroup;
  char zAlias[32], zName[16], *z;
  sqlite3_str *x;
  int nW, nKey = 0, i;
  /* 1: the conjunct and the subquery's shape */
  if( pTerm->op<E_EQ || pTerm->op>E_GE ) return 0;
  ppSub = pTerm->a && pTerm->a->op==E_SUBQ ? &pTerm->a : &pTerm->b;
  if( (*ppSub)->op!=E_SUBQ || q_has_subq(ppSub==&pTerm->a ? pTerm->b : pTerm->a) ) return 0;
  if( sub->zWhy || sub->pNext || sub->pSub || sub->zFrom==0 || sub->star || sub->distinct || sub->nGroup
   || sub->pHaving || sub->nOrder || sub->pLimit || sub->pOffset || sub->nRes!=1 || !nullStrict(sub->aRes[0].e) ){
    return 0;
  }
  for(i=0; i<sub->nJoin; i++) if( sub->aJoin[i].pSub || sub->aJoin[i].jt==Q_JT_LEFT ) return 0;
  if( sideOf(sub->aRes[0].e, xInner, pCtx)<1 ) return 0;
  if( s->nJoin + 1>=Q_MAXTAB ) return 0;
  /* 2: its WHERE's conjuncts, local or keys */
  if( (nW = q_terms(sub->pWhere, E_AND, aW, 64, 0))>64 ) return 0;
  for(i=0; i<nW; i++){
    qexpr *c = aW[i];
    int side = sideOf(c, xInner, pCtx), sa, sb;
    if( side==1 || side==2 ){
      if( (pLocal = q_and_node(s, pLocal, c))==0 ) return -1;
      continue;
    }
    if( c->op!=E_EQ || nKey==Q_MAXKEY ) return 0;
    sa = sideOf(c->a, xInner, pCtx);
    sb = sideOf(c->b, xInner, pCtx);
    if( sa==1 && sb==0 ){ aKey[nKey] = c->a; aOuter[nKey] = c->b; aKeyLeft[nKey++] = 1; }
    else if( sa==0 && sb==1 ){ aKey[nKey] = c->b; aOuter[nKey] = c->a; aKeyLeft[nKey++] = 0; }
    else return 0;
  }
  if( nKey==0 ) return 0;
  /* 4: the outer query's restrictions of the keys, on their inner sides; 5: the rows' name, the
  ** subquery's place and text, then each restriction's */
  sqlite3_snprintf(sizeof(zAlias), zAlias, "gpuagg_c%d", iName);
  if( (x = sqlite3_str_new(0))==0 ) return -1;
  sqlite3_str_appendf(x, "%s/%d %.*s", zAlias, (*ppSub)->at, (*ppSub)->end - (*ppSub)->at, s->zSql + (*ppSub)->at);
  for(i=0; xRestrict && i<nKey; i++){
    qrestrict r;
    int k = xRestrict(pCtx, aOuter[i], aKey[i], &r);
    if( k<0 ) break;
    if( k==0 || (r.pJoin && 2 + sub->nJoin + nAdd>Q_MAXTAB) ) continue;
    if( (pLocal = q_and_node(s, pLocal, r.pWhere))==0 ) break;
    if( r.pJoin ) apJoin[nAdd++] = r.pJoin;
    sqlite3_str_appendf(x, " AND %s", r.zName);
  }
  z = sqlite3_str_finish(x);
  if( i<nKey || z==0 ){
    ga_free(z);
    return -1;
  }
  /* the derived table: SELECT keys, value FROM its tables WHERE local GROUP BY keys */
  if( (d = q_alloc(s, sizeof(qselect)))==0 || (aRes = q_alloc(s, (int)sizeof(qterm)*(nKey + 1)))==0
   || (aGroup = q_alloc(s, (int)sizeof(qterm)*nKey))==0 ){
    ga_free(z);
    return -1;
  }
  *d = *sub;
  d->arena = 0;
  d->zRowsKey = q_str(s, z);
  ga_free(z);
  if( d->zRowsKey==0 ) return -1;
  d->pRoot = s->pRoot ? s->pRoot : s;
  d->pWhere = pLocal;
  if( nAdd ){
    qfrom *a = q_alloc(s, (int)sizeof(qfrom)*(sub->nJoin + nAdd));
    if( a==0 ) return -1;
    if( sub->nJoin ) memcpy(a, sub->aJoin, sizeof(qfrom)*(size_t)sub->nJoin);
    for(i=0; i<nAdd; i++) a[sub->nJoin + i] = *apJoin[i];
    d->aJoin = a;
    d->nJoin = sub->nJoin + nAdd;
  }
  d->aRes = aRes;
  d->nRes = nKey + 1;
  d->aGroup = aGroup;
  d->nGroup = nKey;
  d->azName = 0;
  d->nName = 0;
  for(i=0; i<nKey; i++){
    sqlite3_snprintf(sizeof(zName), zName, "gpuagg_k%d", i);
    if( (aRes[i].e = q_expr_copy(s, aKey[i]))==0 || (aRes[i].zAlias = q_str(s, zName))==0
     || (aGroup[i].e = q_expr_copy(s, aKey[i]))==0 ){
      return -1;
    }
  }
  aRes[nKey].e = sub->aRes[0].e;
  if( (aRes[nKey].zAlias = q_str(s, "gpuagg_v"))==0 ) return -1;
  /* joined after FROM's tables, ON its keys = the outer sides */
  if( (aJoin = q_alloc(s, (int)sizeof(qfrom)*(s->nJoin + 1)))==0 ) return -1;
  if( s->nJoin ) memcpy(aJoin, s->aJoin, sizeof(qfrom)*(size_t)s->nJoin);
  memset(&aJoin[s->nJoin], 0, sizeof(qfrom));
  aJoin[s->nJoin].jt = Q_JT_INNER;
  aJoin[s->nJoin].pSub = d;
  aJoin[s->nJoin].unique = 1;
  if( (aJoin[s->nJoin].zFrom = q_str(s, "(subquery)"))==0 || (aJoin[s->nJoin].zAlias = q_str(s, zAlias))==0 ) return -1;
  for(i=0; i<nKey; i++){
    qexpr *eq = q_node(s, E_EQ), *k;
    sqlite3_snprintf(sizeof(zName), zName, "gpuagg_k%d", i);
    if( eq==0 || (k = q_col_node(s, aJoin[s->nJoin].zAlias, zName))==0 ) return -1;
    eq->a = aKeyLeft[i] ? k : aOuter[i];
    eq->b = aKeyLeft[i] ? aOuter[i] : k;
    if( (aJoin[s->nJoin].pOn = q_and_node(s, aJoin[s->nJoin].pOn, eq))==0 ) return -1;
  }
  s->aJoin = aJoin;
  s->nJoin++;
  /* the comparison reads the value */
  if( (v = q_col_node(s, aJoin[s->nJoin - 1].zAlias, "gpuagg_v"))==0 ) return -1;
  v->noColl = 1;                   /* (as the subquery it stands for: no collation, so the
                                   ** comparison takes the other operand's) */
  v->at = (*ppSub)->at;
  v->end = (*ppSub)->end;
  *ppSub = v;
  return 1;
}
