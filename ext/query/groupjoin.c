/*
** A rewrite of the parse: a subquery in FROM that counts, for each row of
** a table, the rows a LEFT JOIN meets, grouped by that table's key,
**
**     SELECT c_custkey, count(o_orderkey) AS c_count FROM customer
**     LEFT JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE ...
**     GROUP BY c_custkey
**
** (TPC-H Q13), becomes the join of that table with the other one's rows
** grouped by its key first (an eager aggregation), one row for each of the
** table's rows:
**
**     SELECT c_custkey, coalesce(gpuagg_gN.gpuagg_a1, 0) AS c_count
**     FROM customer LEFT JOIN (SELECT o_custkey AS gpuagg_k, count(o_orderkey)
**     AS gpuagg_a1 FROM orders WHERE o_comment NOT LIKE ... GROUP BY
**     o_custkey) AS gpuagg_gN ON c_custkey = gpuagg_gN.gpuagg_k
**
** which flatten.c then merges into the query that reads it: a join with
** aggregates over kept columns, its build a key's one row.
**
**   1. Rewritten only where the answer cannot differ: the subquery is one
**      core, FROM a rowid table L LEFT JOIN a table R (no NATURAL, USING,
**      WHERE, HAVING, DISTINCT, ORDER BY, LIMIT or OFFSET), GROUP BY L's
**      INTEGER PRIMARY KEY alone; ON is that key = a column of R of
**      INTEGER or NUMERIC affinity (its values stored as numbers: no two
**      of its groups meet one key) AND conjuncts over R alone (the rows R
**      keeps: the derived table's WHERE); each result is a column of L (one
**      a group: its key decides its row) or count(*), count, sum, total,
**      avg, min or max over R's columns alone.
**   2. Where L's row meets none of R's, the LEFT JOIN's one row of NULLs
**      gives count 0, count(*) 1, total 0.0 and the others NULL: the
**      derived table's missing row gives NULL, and coalesce() those values.
**   3. Only where flatten.c merges the result (q_flatten_outer): the
**      rows of a join alone would come in SQLite's join order.
**   4. Which names are L's and R's is the caller's: their columns, as
**      resolved (a name of both is SQLite's error, never seen here).
**   5. SQLite's plan (plan_sqlite.c) is asked of the same rewrite's text
**      (s->zExplain): its loops are then the rewritten query's. Only in a
**      statement of its own (not a subquery of another one) without
**      parameters (their numbers would move), and where SQLite prepares
**      that text.
*/
#include <string.h>
#include "query.h"

/* What a column node of the subquery names: 0 L's column, 1 R's, -1
** neither (or a name this rewrite does not read). */
typedef struct GJ {
  const qselect *sub;              /* the subquery */
  const ga_table *pL, *pR;         /* its tables, resolved */
} GJ;

static int colIndex(const ga_table *t, const char *z){
  int i;
  for(i=0; i<t->nCol; i++) if( sqlite3_stricmp(t->aCol[i].zName, z)==0 ) return i;
  return -1;
}

/* zFrom's table name (after a schema's dot), where it is a plain name. */
static const char *plainName(const char *zFrom){
  const char *z = strrchr(zFrom, '.');
  if( strpbrk(zFrom, "\"'[`") ) return 0;
  return z ? z + 1 : zFrom;
}

static int qualifies(const char *zQual, const char *zAlias, const char *zFrom){
  const char *z = zAlias ? zAlias : plainName(zFrom);
  return z && sqlite3_stricmp(zQual, z)==0;
}

static int sideOfCol(const GJ *g, const qexpr *e){
  const qfrom *r = &g->sub->aJoin[0];
  int inL, inR;
  if( e->quoted ) return -1;
  if( e->zQual ){
    if( qualifies(e->zQual, g->sub->zAlias, g->sub->zFrom) ) return colIndex(g->pL, e->zName)>=0 ? 0 : -1;
    if( qualifies(e->zQual, r->zAlias, r->zFrom) ) return colIndex(g->pR, e->zName)>=0 ? 1 : -1;
    return -1;
  }
  inL = colIndex(g->pL, e->zName)>=0;
  inR = colIndex(g->pR, e->zName)>=0;
  return inL!=inR ? inR : -1;
}

/* 1 where every column below e is R's (or there is none), else 0 (an L
** column, an unknown name, a subquery). */
static int overR(const GJ *g, const qexpr *e){
  int i;
  if( e==0 ) return 1;
  if( e->op==E_SUBQ || e->op==E_INSEL || e->op==E_PARAM ) return 0;
  if( e->op==E_COL ) return sideOfCol(g, e)==1;
  for(i=0; i<e->nArg; i++) if( !overR(g, e->arg[i]) ) return 0;
  return overR(g, e->a) && overR(g, e->b);
}

/* Is e L's INTEGER PRIMARY KEY? */
static int isKeyOfL(const GJ *g, const qexpr *e){
  int c;
  if( e->op!=E_COL || sideOfCol(g, e)!=0 || !g->pL->rowidAlias ) return 0;
  c = colIndex(g->pL, e->zName);
  return c>=0 && g->pL->aCol[c].pk==1;
}

/* Is e a column of R whose values are stored as numbers (1)? */
static int isNumColOfR(const GJ *g, const qexpr *e){
  int c;
  if( e->op!=E_COL || sideOfCol(g, e)!=1 ) return 0;
  c = colIndex(g->pR, e->zName);
  return c>=0 && !g->pR->aCol[c].generated
         && (g->pR->aCol[c].aff==GA_AFF_INTEGER || g->pR->aCol[c].aff==GA_AFF_NUMERIC);
}

/* The value aggregate e takes over the LEFT JOIN's row of NULLs alone
** (2.): *pT its class (0: NULL, read as is) and *pV its value. */
static int emptyOf(const qexpr *e, int *pT, int64_t *pV){
  double d = 0.0;
  *pT = 0;
  *pV = 0;
  switch( e->agg ){
    case A_COUNT: *pT = SQLITE_INTEGER; return 1;
    case A_COUNTSTAR: *pT = SQLITE_INTEGER; *pV = 1; return 1;
    case A_TOTAL: *pT = SQLITE_FLOAT; memcpy(pV, &d, 8); return 1;
    case A_SUM: case A_AVG: case A_MIN: case A_MAX: return 1;
    default: return 0;
  }
}

static void span(sqlite3_str *x, const qselect *s, const qexpr *e){
  sqlite3_str_appendf(x, "%.*s", e->end - e->at, s->zSql + e->at);
}

/* The rewritten statement's text (5.): s's with its subquery's SELECT
** (after its keyword) replaced, the derived table named zAlias; NULL where
** out of memory. */
static char *rewrittenText(qselect *s, const char *zAlias, qexpr *pKeyL, qexpr *pKeyR, int keyLeft, qexpr **aW, int nW){
  const qselect *sub = s->pSub;
  const qfrom *r = &sub->aJoin[0];
  sqlite3_str *x = sqlite3_str_new(0);
  char *z, *zOut;
  int i, n;
  sqlite3_str_appendf(x, "%.*s", sub->at, s->zSql);
  for(i=0; i<sub->nRes; i++){
    const qexpr *e = sub->aRes[i].e;
    int t;
    int64_t v;
    if( i ) sqlite3_str_appendall(x, ", ");
    if( e->op==E_COL ){
      span(x, s, e);
    }else{
      emptyOf(e, &t, &v);
      if( t ) sqlite3_str_appendf(x, "coalesce(%s.gpuagg_a%d, %s)", zAlias, i, t==SQLITE_FLOAT ? "0.0" : v ? "1" : "0");
      else sqlite3_str_appendf(x, "%s.gpuagg_a%d", zAlias, i);
    }
    if( sub->aRes[i].zAlias ) sqlite3_str_appendf(x, " AS \"%w\"", sub->aRes[i].zAlias);
  }
  sqlite3_str_appendf(x, " FROM %s", sub->zFrom);
  if( sub->zAlias ) sqlite3_str_appendf(x, " AS \"%w\"", sub->zAlias);
  sqlite3_str_appendall(x, " LEFT JOIN (SELECT ");
  span(x, s, pKeyR);
  sqlite3_str_appendall(x, " AS gpuagg_k");
  for(i=0; i<sub->nRes; i++){
    if( sub->aRes[i].e->op==E_COL ) continue;
    sqlite3_str_appendall(x, ", ");
    span(x, s, sub->aRes[i].e);
    sqlite3_str_appendf(x, " AS gpuagg_a%d", i);
  }
  sqlite3_str_appendf(x, " FROM %s", r->zFrom);
  if( r->zAlias ) sqlite3_str_appendf(x, " AS \"%w\"", r->zAlias);
  for(i=0; i<nW; i++){
    sqlite3_str_appendall(x, i ? " AND (" : " WHERE (");
    span(x, s, aW[i]);
    sqlite3_str_appendchar(x, 1, ')');
  }
  sqlite3_str_appendall(x, " GROUP BY ");
  span(x, s, pKeyR);
  sqlite3_str_appendf(x, ") AS %s ON ", zAlias);
  if( keyLeft ){ span(x, s, pKeyL); sqlite3_str_appendf(x, " = %s.gpuagg_k", zAlias); }
  else{ sqlite3_str_appendf(x, "%s.gpuagg_k = ", zAlias); span(x, s, pKeyL); }
  sqlite3_str_appendf(x, "%s", s->zSql + sub->end);
  if( (z = sqlite3_str_finish(x))==0 ) return 0;
  n = (int)strlen(z);
  if( (zOut = q_alloc(s, n + 1))!=0 ) memcpy(zOut, z, (size_t)n);
  ga_free(z);
  return zOut;
}

int q_groupjoin(sqlite3 *db, qselect *s, int iName, const ga_table *pL, const ga_table *pR){
  qselect *sub = s->pSub, *d;
  qfrom *r, *aJoin;
  qexpr *aOn[64], *aW[64], *pEq = 0, *pKeyL = 0, *pKeyR = 0, *pWhere = 0;
  sqlite3_stmt *st = 0;
  char *zText;
  qterm *aRes, *aGroup;
  GJ g;
  char zAlias[32], zName[24];
  int nOn, nW = 0, i, nAgg = 0;
  /* 1: the subquery's shape */
  if( sub==0 || sub->pNext || sub->pSub || sub->zFrom==0 || sub->nJoin!=1 || sub->zWhy || sub->star || sub->distinct
   || sub->pWhere || sub->pHaving || sub->nOrder || sub->pLimit || sub->pOffset || sub->nGroup!=1 ) return 0;
  r = &sub->aJoin[0];
  if( r->jt!=Q_JT_LEFT || r->natural || r->nUsing || r->pSub || r->pOn==0 || r->zFrom==0 ) return 0;
  if( pL->withoutRowid || pR->withoutRowid ) return 0;
  g.sub = sub; g.pL = pL; g.pR = pR;
  if( !isKeyOfL(&g, sub->aGroup[0].e) ) return 0;
  if( (nOn = q_terms(r->pOn, E_AND, aOn, 64, 0))>64 ) return 0;
  for(i=0; i<nOn; i++){
    qexpr *c = aOn[i];
    if( pEq==0 && c->op==E_EQ && isKeyOfL(&g, c->a) && isNumColOfR(&g, c->b) ){ pEq = c; pKeyL = c->a; pKeyR = c->b; }
    else if( pEq==0 && c->op==E_EQ && isKeyOfL(&g, c->b) && isNumColOfR(&g, c->a) ){ pEq = c; pKeyL = c->b; pKeyR = c->a; }
    else if( overR(&g, c) ){
      if( (pWhere = q_and_node(s, pWhere, c))==0 ) return -1;
      aW[nW++] = c;
    }
    else return 0;
  }
  if( pEq==0 ) return 0;
  for(i=0; i<sub->nRes; i++){
    const qexpr *e = sub->aRes[i].e;
    int t;
    int64_t v;
    if( e->op==E_COL && sideOfCol(&g, e)==0 ) continue;
    if( e->op!=E_AGG || !emptyOf(e, &t, &v) || !overR(&g, e->a) || !overR(&g, e->b) ) return 0;
    nAgg++;
  }
  if( nAgg==0 || !q_flatten_outer(s) || s->pRoot || s->nParam || sub->end<=sub->at ) return 0;   /* (3., 5.) */
  sqlite3_snprintf(sizeof(zAlias), zAlias, "gpuagg_g%d", iName);
  if( (zText = rewrittenText(s, zAlias, pKeyL, pKeyR, pEq->a==pKeyL, aW, nW))==0 ) return -1;
  if( sqlite3_prepare_v2(db, zText, -1, &st, 0)!=SQLITE_OK ){   /* (5.: never seen; the query stays as it was) */
    sqlite3_finalize(st);
    return 0;
  }
  sqlite3_finalize(st);
  /* the derived table: R's key and the aggregates, R's rows its ON keeps, grouped by the key */
  if( (d = q_alloc(s, sizeof(qselect)))==0 || (aRes = q_alloc(s, (int)sizeof(qterm)*(nAgg + 1)))==0
   || (aGroup = q_alloc(s, (int)sizeof(qterm)))==0 || (aJoin = q_alloc(s, (int)sizeof(qfrom)))==0 ){
    return -1;
  }
  memset(d, 0, sizeof(*d));
  d->zSql = sub->zSql;
  d->pRoot = s->pRoot ? s->pRoot : s;
  d->nParam = sub->nParam;
  d->zFrom = r->zFrom;
  d->zAlias = r->zAlias;
  d->pWhere = pWhere;
  d->aRes = aRes;
  d->aGroup = aGroup;
  d->nGroup = 1;
  if( (aRes[0].e = q_expr_copy(s, pKeyR))==0 || (aRes[0].zAlias = q_str(s, "gpuagg_k"))==0
   || (aGroup[0].e = q_expr_copy(s, pKeyR))==0 ){
    return -1;
  }
  d->nRes = 1;
  /* the subquery: L LEFT JOIN the derived table ON L's key = its key, each aggregate its value (2.) */
  memset(aJoin, 0, sizeof(qfrom));
  aJoin[0].jt = Q_JT_LEFT;
  aJoin[0].pSub = d;
  if( (aJoin[0].zFrom = q_str(s, "(subquery)"))==0 || (aJoin[0].zAlias = q_str(s, zAlias))==0 ) return -1;
  {
    qexpr *eq = q_node(s, E_EQ), *k = q_col_node(s, aJoin[0].zAlias, "gpuagg_k");
    if( eq==0 || k==0 ) return -1;
    eq->a = pEq->a==pKeyL ? pKeyL : k;        /* (the equality's operands in their order: its affinity's) */
    eq->b = pEq->a==pKeyL ? k : pKeyL;
    eq->at = pEq->at;
    eq->end = pEq->end;
    aJoin[0].pOn = eq;
  }
  for(i=0; i<sub->nRes; i++){
    qexpr *e = sub->aRes[i].e, *v, *f, *lit;
    int t;
    int64_t x;
    if( e->op==E_COL ) continue;
    sqlite3_snprintf(sizeof(zName), zName, "gpuagg_a%d", i);
    d->aRes[d->nRes].e = e;
    if( (d->aRes[d->nRes++].zAlias = q_str(s, zName))==0 || (v = q_col_node(s, aJoin[0].zAlias, zName))==0 ) return -1;
    emptyOf(e, &t, &x);
    v->at = e->at;
    v->end = e->end;
    if( t ){
      if( (f = q_node(s, E_FUNC))==0 || (f->zName = q_str(s, "coalesce"))==0
       || (f->arg = q_alloc(s, (int)sizeof(qexpr*)*2))==0 || (lit = q_node(s, E_LIT))==0 ){
        return -1;
      }
      lit->t = t;
      lit->i = x;
      f->arg[0] = v;
      f->arg[1] = lit;
      f->nArg = 2;
      f->at = e->at;
      f->end = e->end;
      v = f;
    }
    sub->aRes[i].e = v;
  }
  sub->aJoin = aJoin;
  sub->aGroup = 0;
  sub->nGroup = 0;
  s->zExplain = zText;
  return 1;
}
