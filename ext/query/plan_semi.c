/*
** gpu_query's planner: correlated subqueries as joins (plan.c's
** requirements 9a, 9c and 9e). EXISTS, NOT EXISTS and IN of WHERE become
** semi and anti joins; a comparison with a correlated aggregate a join of
** that aggregate grouped by the correlation (decorrelate.c); a correlated
** count(*) of the result list a count join.
*/
#include <ctype.h>
#include "planint.h"

/* What subquery place i is, as the SQL says it. */
const char *qpSemiWord(const Bind *b, int i){
  const struct Semi *m = &b->aSemi[i - b->nFrom];
  return m->count ? "count(*)" : m->anti ? "NOT EXISTS" : m->pIn ? "IN" : "EXISTS";
}

/* Is e (unbound) a positive integer literal? */
static int positiveInt(const Bind *b, const qexpr *e){
  const char *z = b->s->zSql + e->at;
  int i, n = e->end - e->at;
  if( e->op!=E_LIT || n<1 || n>18 ) return 0;
  for(i=0; i<n; i++) if( z[i]<'0' || z[i]>'9' ) return 0;
  return atoll(z)>0;
}

/* Subquery q's SELECT parsed from the statement's text with all else
** blanked, so that its nodes' text positions are the statement's; its nodes
** in the statement's arena. NULL (b->rc set) where out of memory. */
static qselect *subParsed(Bind *b, const qexpr *q){
  const char *zSql = b->s->zSql;
  int n = (int)strlen(zSql), at = q->at, end = q->end - 1, rc;
  qselect *sel = q_alloc(b->s, sizeof(qselect));
  char *z;
  while( at<end && zSql[at]!='(' ) at++;
  if( sel==0 || (z = ga_malloc64(n + 1))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
  memset(z, ' ', (size_t)n);
  z[n] = 0;
  memcpy(z + at + 1, zSql + at + 1, (size_t)(end - at - 1));
  rc = q_parse(z, 0, sel);
  ga_free(z);
  if( rc ){ b->rc = rc; return 0; }
  sel->zSql = zSql;
  q_select_adopt(b->s, sel);
  return sel;
}

/* WHERE's conjunct t, subquery q (its EXISTS, NOT EXISTS when anti, or
** pIn IN it) that refers to the outer query, into b->aSemi where it is a
** join the engine covers: one rowid table, no aggregate, GROUP BY or
** LIMIT (EXISTS's LIMIT of a positive integer decides nothing). */
static void semiOf(Bind *b, qexpr *t, const qexpr *q, int anti, qexpr *pIn){
  const char *zW = anti ? "NOT EXISTS" : pIn ? "IN" : "EXISTS";
  int i;
  qselect *sel = subParsed(b, q);
  struct Semi *m;
  if( sel==0 ) return;
  if( sel->zWhy ){
    qpWhy(b, "%s (a correlated subquery the engine does not cover: %s)", zW, sel->zWhy);
    ga_free(sel->zWhy);
    sel->zWhy = 0;
    return;
  }
  if( sel->pNext || sel->pSub || sel->nJoin || sel->zFrom==0 ){
    qpWhy(b, "%s (a correlated subquery of a compound, a join or a subquery)", zW);
    return;
  }
  for(i=0; i<sel->nRes && !q_has_agg(sel->aRes[i].e); i++){}
  if( sel->nGroup || sel->pHaving || i<sel->nRes ){
    qpWhy(b, "%s (a correlated subquery with aggregates or GROUP BY)", zW);
    return;
  }
  if( sel->pOffset || (sel->pLimit && (pIn || !positiveInt(b, sel->pLimit))) ){
    qpWhy(b, "%s (a correlated subquery with LIMIT)", zW);
    return;
  }
  if( pIn && (sel->star || sel->nRes!=1) ){
    qpWhy(b, "IN (a correlated subquery whose result is not one column)");
    return;
  }
  if( b->s->nJoin + 1 + b->nSemi>=Q_MAXTAB ){
    qpWhy(b, "more than %d tables, correlated subqueries' included", Q_MAXTAB);
    return;
  }
  m = &b->aSemi[b->nSemi++];
  m->pTerm = t;
  m->sel = sel;
  m->pIn = pIn;
  m->anti = anti;
}

/* WHERE's conjuncts that are subqueries referring to the outer query: a
** correlated EXISTS, NOT EXISTS or IN (SELECT ...), each a join of its
** table (9a) where the engine covers it. */
/* Each scalar subquery of the result list (any depth) that is a
** correlated SELECT count(*) FROM one table [WHERE ...], of a query without
** aggregates, into b->aSemi: a count join (9e). Others are left as they
** are (binding gives their reason). */
static void countIn(Bind *b, qexpr *e){
  qselect *sel;
  if( e==0 || qpStopped(b) ) return;
  if( e->op!=E_SUBQ || sqlite3_strnicmp(b->s->zSql + e->at, "EXISTS", 6)==0 ){
    EACH_CHILD(e, pp, countIn(b, *pp));
    return;
  }
  if( !qpCorrelated(b, e, 0) || (sel = subParsed(b, e))==0 ) return;
  if( sel->zWhy ){
    ga_free(sel->zWhy);
    sel->zWhy = 0;
    return;
  }
  if( sel->pNext || sel->pSub || sel->nJoin || sel->zFrom==0 || sel->nGroup || sel->pHaving || sel->pLimit
   || sel->pOffset || sel->distinct || sel->nRes!=1 || sel->aRes[0].e->op!=E_AGG || sel->aRes[0].e->agg!=A_COUNTSTAR
   || b->s->nJoin + 1 + b->nSemi>=Q_MAXTAB ){
    return;
  }
  memset(&b->aSemi[b->nSemi], 0, sizeof(b->aSemi[0]));
  b->aSemi[b->nSemi].pTerm = e;
  b->aSemi[b->nSemi].sel = sel;
  b->aSemi[b->nSemi++].count = 1;
}

void qpCountJoins(Bind *b){
  int i;
  if( b->s->zFrom==0 || b->s->pSub || b->s->nJoin || b->s->nGroup || b->s->pHaving || b->s->distinct ) return;
  for(i=0; i<b->s->nRes; i++) if( q_has_agg(b->s->aRes[i].e) ) return;
  for(i=0; i<b->s->nRes && !qpStopped(b); i++) countIn(b, b->s->aRes[i].e);
}

/* WHERE's conjuncts into aT (64 of them at most; q_terms says how many
** there are), or 0 where there is no WHERE, no FROM or FROM a subquery. */
static int whereTerms(Bind *b, qexpr **aT){
  if( b->s->pWhere==0 || b->s->zFrom==0 || b->s->pSub ) return 0;
  return q_terms(b->s->pWhere, E_AND, aT, 64, 0);
}

void qpSemiJoins(Bind *b){
  qexpr *aT[64];
  int nT = whereTerms(b, aT), i;
  for(i=0; i<nT && i<64 && !qpStopped(b); i++){
    qexpr *t = aT[i], *q = t->op==E_NOT ? t->a : t->op==E_INSEL ? t->b : t;
    if( q && q->op==E_INSEL && q->b && qpCorrelated(b, q->b, 0) ){
      qpWhy(b, "NOT IN (a subquery that refers to the outer query: its NULL rule is not a join's)");
      break;
    }
    if( q==0 || q->op!=E_SUBQ ) continue;
    if( t->op!=E_INSEL && sqlite3_strnicmp(b->s->zSql + q->at, "EXISTS", 6)!=0 ) continue;
    if( qpCorrelated(b, q, 0) ) semiOf(b, t, q, t->op==E_NOT, t->op==E_INSEL ? t->a : 0);
  }
}

/* A correlated subquery's tables (qpAggJoins): its FROM's, resolved. */
typedef struct Inner {
  ga_source aSrc[Q_MAXTAB];        /* each table */
  const char *azQual[Q_MAXTAB];    /* ... the name that qualifies its columns */
  int n;
  Bind *b;                         /* the outer query's */
  int nJoined;                     /* outer tables joined to its derived table so far (4a) */
  int iName;                       /* the derived table's number (gpuagg_cN) */
} Inner;

/* decorrelate.c's xInner: does column node e name one of the subquery's
** tables' columns (an alias hides its table's name; an unqualified name is
** the innermost table's that has it)? */
static int innerHas(void *p, const qexpr *e){
  const Inner *x = (const Inner*)p;
  int i;
  for(i=0; i<x->n; i++){
    if( e->zQual ? sqlite3_stricmp(e->zQual, x->azQual[i])==0 : qpColIndex(&x->aSrc[i].tab, e->zName)>=0 ) return 1;
  }
  return 0;
}

/* The column of table t (qualified as zQual) that node e names, or NULL. */
static const ga_tabcol *colOf(const ga_table *t, const char *zQual, const qexpr *e){
  int c;
  if( e->op!=E_COL || (e->zQual && sqlite3_stricmp(e->zQual, zQual)) ) return 0;
  return (c = qpColIndex(t, e->zName))>=0 ? &t->aCol[c] : 0;
}

/* Does subquery q's text say nothing whose meaning its place decides: a
** quoted name ("x", `x`, [x]: a column where the place has one, else a
** string) or TRUE or FALSE (the same)? */
static int placeFree(const Bind *b, const qexpr *q){
  const char *z = b->s->zSql;
  int i;
  for(i=q->at; i<q->end; i++){
    if( z[i]=='"' || z[i]=='`' || z[i]=='[' ) return 0;
    if( (sqlite3_strnicmp(z + i, "true", 4)==0 || sqlite3_strnicmp(z + i, "false", 5)==0)
     && (i==q->at || !(isalnum((unsigned char)z[i-1]) || z[i-1]=='_')) ) return 0;
  }
  return 1;
}

/* Do columns ca and cb compare alike: one affinity, one collation? */
static int sameCompare(const ga_tabcol *ca, const ga_tabcol *cb){
  return ca->aff==cb->aff && ca->zColl && cb->zColl && sqlite3_stricmp(ca->zColl, cb->zColl)==0;
}

/* The outer query's FROM tables (4a): each entry's, resolved where it is
** a table (a subquery's left unresolved). */
typedef struct Outer {
  ga_source aSrc[Q_MAXTAB];        /* FROM's entry k's table (k 0: the first) */
  const char *azQual[Q_MAXTAB];    /* ... the name that qualifies its columns; NULL: a subquery */
  int n;
} Outer;

/* The outer FROM entry that column node e names (qualified, or the one
** table that has its name), or -1. */
static int outerEntry(const Outer *o, const qexpr *e){
  int k, r = -1;
  if( e->op!=E_COL || e->quoted ) return -1;
  for(k=0; k<o->n; k++){
    if( o->azQual[k]==0 ){
      if( e->zQual==0 ) return -1;              /* (a subquery's columns are not known here) */
      continue;
    }
    if( e->zQual ? sqlite3_stricmp(e->zQual, o->azQual[k])==0 : qpColIndex(&o->aSrc[k].tab, e->zName)>=0 ){
      if( r>=0 ) return -1;
      r = k;
    }
  }
  return r;
}

/* Is e over outer entry k's columns alone, of operators whose value is its
** operands' (no subquery, parameter, function an application may define,
** or aggregate)? */
static int overOnly(const Outer *o, int k, const qexpr *e){
  int i;
  if( e==0 ) return 1;
  switch( e->op ){
    case E_COL:
      return outerEntry(o, e)==k;
    case E_LIT: case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_REM:
    case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE: case E_IS: case E_ISNOT:
    case E_AND: case E_OR: case E_NOT: case E_ISNULL: case E_NOTNULL: case E_IN: case E_CASE:
    case E_COALESCE: case E_NULLIF: case E_ABS: case E_COLLATE: case E_UPLUS: case E_CAST: case E_CONCAT:
      break;
    case E_LIKE:
      if( sqlite3_stricmp(e->zName, "LIKE") && sqlite3_stricmp(e->zName, "GLOB") ) return 0;
      break;
    default:
      return 0;
  }
  if( !overOnly(o, k, e->a) || !overOnly(o, k, e->b) ) return 0;
  for(i=0; i<e->nArg; i++) if( !overOnly(o, k, e->arg[i]) ) return 0;
  return 1;
}

/* Text z (sqlite3_malloc'd, NULL: out of memory) moved into the statement's
** arena. */
static char *inArena(Bind *b, char *z){
  char *r = z ? q_str(b->s, z) : 0;
  ga_free(z);
  return r;
}

/* Each column node below e qualified by zQual. */
static void qualifyAll(qexpr *e, const char *zQual){
  if( e==0 ) return;
  if( e->op==E_COL ) e->zQual = (char*)zQual;
  EACH_CHILD(e, pp, qualifyAll(*pp, zQual));
}

/* e copied with each column qualified by zQual. */
static qexpr *copyAs(Bind *b, const qexpr *e, const char *zQual){
  qexpr *y = q_expr_copy(b->s, e);
  if( y ) qualifyAll(y, zQual);
  return y;
}

/* decorrelate.c's 4a for restrictOf: the outer table whose column pOuter
** is (its rowid's alias, compared as pInner's column cIn), joined to the
** derived table's by pInner = pOuter with WHERE's conditions over it alone,
** into *pR: 1, or 0 where there is none (-1 out of memory). */
static int restrictJoin(Inner *x, const qexpr *pOuter, const qexpr *pInner, const ga_tabcol *cIn, qrestrict *pR){
  Bind *b = x->b;
  const qselect *s = b->s;
  Outer o;
  qexpr *aT[64], *eq;
  qfrom *f;
  sqlite3_str *z;
  char zAlias[48];
  int nT, i, j, e, nUse = 0, rc = 0;
  const ga_tabcol *cOut;
  memset(&o, 0, sizeof(o));
  if( x->n<2 || s->pSub || s->zFrom==0 || s->nJoin + 1>Q_MAXTAB ) return 0;
  for(i=0; i<=s->nJoin; i++){
    const char *zFrom = i ? s->aJoin[i - 1].zFrom : s->zFrom, *zAs = i ? s->aJoin[i - 1].zAlias : s->zAlias;
    char *zErr = 0;
    o.n = i + 1;
    if( i && s->aJoin[i - 1].pSub ) continue;
    rc = ga_source_resolve_on(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, "gpu_query", zFrom, &o.aSrc[i], &zErr);
    ga_free(zErr);
    if( rc ) goto done;
    o.azQual[i] = zAs ? zAs : o.aSrc[i].tab.zTab;
  }
  if( (e = outerEntry(&o, pOuter))<0 || (cOut = colOf(&o.aSrc[e].tab, o.azQual[e], pOuter))==0
   || !sameCompare(cIn, cOut) ) goto done;
  /* one row of it a key at most: the rowid's alias */
  if( !o.aSrc[e].tab.rowidAlias || cOut->pk!=1 ) goto done;
  /* its columns' names none of the derived table's tables has (their names unqualified stay theirs) */
  for(i=0; i<o.aSrc[e].tab.nCol; i++){
    for(j=0; j<x->n && qpColIndex(&x->aSrc[j].tab, o.aSrc[e].tab.aCol[i].zName)<0; j++){}
    if( j<x->n ) goto done;
  }
  nT = whereTerms(b, aT);
  sqlite3_snprintf(sizeof(zAlias), zAlias, "gpuagg_r%d_%d", x->iName, x->nJoined);
  if( (f = q_alloc(b->s, sizeof(qfrom)))==0 || (z = sqlite3_str_new(0))==0 ){ rc = SQLITE_NOMEM; goto done; }
  memset(f, 0, sizeof(*f));
  f->jt = Q_JT_INNER;
  if( (f->zFrom = q_str(b->s, e ? s->aJoin[e - 1].zFrom : s->zFrom))==0 || (f->zAlias = q_str(b->s, zAlias))==0
   || (eq = q_node(b->s, E_EQ))==0 || (eq->a = q_expr_copy(b->s, pInner))==0
   || (eq->b = copyAs(b, pOuter, f->zAlias))==0 ){
    ga_free(sqlite3_str_finish(z));
    rc = SQLITE_NOMEM;
    goto done;
  }
  eq->synth = 1;
  eq->at = pInner->at;
  eq->end = pOuter->end;
  pR->pWhere = eq;
  sqlite3_str_appendf(z, "JOIN %s ON %.*s = %.*s WHERE", f->zFrom, pInner->end - pInner->at, s->zSql + pInner->at,
                      pOuter->end - pOuter->at, s->zSql + pOuter->at);
  for(i=0; i<nT && i<64; i++){
    qexpr *t = aT[i], *c;
    static const char *azOp[] = { "=", "<>", "<", "<=", ">", ">=" };
    if( (t->synth && (t->op<E_EQ || t->op>E_GE)) || !overOnly(&o, e, t) ) continue;
    if( (c = copyAs(b, t, f->zAlias))==0 || (pR->pWhere = q_and_node(b->s, pR->pWhere, c))==0 ){
      rc = SQLITE_NOMEM;
      break;
    }
    if( t->synth ){                /* (BETWEEN's comparisons: their operands' texts) */
      sqlite3_str_appendf(z, "%s %.*s %s %.*s", nUse++ ? " AND" : "", t->a->end - t->a->at, s->zSql + t->a->at,
                          azOp[t->op - E_EQ], t->b->end - t->b->at, s->zSql + t->b->at);
    }else{
      sqlite3_str_appendf(z, "%s %.*s", nUse++ ? " AND" : "", t->end - t->at, s->zSql + t->at);
    }
  }
  if( rc ){
    ga_free(sqlite3_str_finish(z));
    goto done;
  }
  if( (pR->zName = inArena(b, sqlite3_str_finish(z)))==0 ){ rc = SQLITE_NOMEM; goto done; }
  if( nUse ){
    pR->pJoin = f;
    x->nJoined++;
  }
done:
  for(i=0; i<o.n; i++) ga_source_free(&o.aSrc[i]);
  if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){ b->rc = rc; return -1; }
  return nUse>0;
}

/* decorrelate.c's xRestrict (its 4.): the outer query's WHERE conjunct
** pOuter IN (constants, or a subquery that uses no outer row and says
** nothing its place decides), made over pInner, where the IN means the same
** for both: each a bare column, of the outer query's one table and of the
** subquery's, of one affinity and one collation (the join's equality then
** meets only values the IN takes alike); else its 4a (restrictJoin). */
static int restrictOf(void *p, const qexpr *pOuter, const qexpr *pInner, qrestrict *pR){
  Inner *x = (Inner*)p;
  Bind *b = x->b;
  const ga_table *tOut = &b->pl->src.tab;
  const ga_tabcol *cOut, *cIn = 0;
  qexpr *aT[64], *r;
  int nT, i, k;
  memset(pR, 0, sizeof(*pR));
  for(k=0; k<x->n && cIn==0; k++) cIn = colOf(&x->aSrc[k].tab, x->azQual[k], pInner);
  if( cIn==0 ) return 0;
  if( b->s->nJoin || b->s->pSub || b->s->zFrom==0
   || (cOut = colOf(tOut, b->s->zAlias ? b->s->zAlias : tOut->zTab, pOuter))==0 || !sameCompare(cIn, cOut) ){
    return restrictJoin(x, pOuter, pInner, cIn, pR);
  }
  nT = whereTerms(b, aT);
  for(i=0; i<nT && i<64; i++){
    qexpr *t = aT[i];
    if( (t->op!=E_IN && t->op!=E_INSEL) || t->a==0
     || colOf(tOut, b->s->zAlias ? b->s->zAlias : tOut->zTab, t->a)!=cOut ) continue;
    if( t->op==E_IN ){
      for(k=0; k<t->nArg && t->arg[k]->op==E_LIT; k++){}
      if( t->nArg==0 || k<t->nArg ) continue;
    }else if( t->b==0 || t->b->op!=E_SUBQ || !placeFree(b, t->b) || qpCorrelated(b, t->b, 0) || b->rc ){
      continue;
    }
    /* (its text for gpu_explain: the inner column's, then " IN (...)": plan_explain.c) */
    if( (r = q_expr_copy(b->s, t))==0 || (r->a = q_expr_copy(b->s, pInner))==0 ){
      b->rc = SQLITE_NOMEM;
      return 0;
    }
    r->synth = 1;
    r->at = t->a->end;
    pR->pWhere = r;
    if( (pR->zName = inArena(b, sqlite3_mprintf("%.*s%.*s", pInner->end - pInner->at, b->s->zSql + pInner->at,
                                                r->end - r->at, b->s->zSql + r->at)))==0 ){
      b->rc = SQLITE_NOMEM;
      return -1;
    }
    return 1;
  }
  return restrictJoin(x, pOuter, pInner, cIn, pR);
}

/* WHERE's conjuncts that compare with a correlated aggregate, each made a
** comparison with a join of that aggregate grouped by the correlation
** (decorrelate.c; plan.c, 9c) where it can be. */
void qpAggJoins(Bind *b){
  qexpr *aT[64];
  int nT = whereTerms(b, aT), i;
  for(i=0; i<nT && i<64 && !qpStopped(b); i++){
    qexpr *t = aT[i], *q = t->op<E_EQ || t->op>E_GE ? 0 : t->a->op==E_SUBQ ? t->a : t->b->op==E_SUBQ ? t->b : 0;
    qselect *sel;
    Inner in;
    int k, ok = 1, rc;
    if( q==0 || sqlite3_strnicmp(b->s->zSql + q->at, "EXISTS", 6)==0 || !qpCorrelated(b, q, 0) ) continue;
    if( (sel = subParsed(b, q))==0 ) return;
    memset(&in, 0, sizeof(in));
    in.b = b;
    in.iName = i + 1;
    for(k=0; k<=sel->nJoin && ok && sel->zWhy==0 && sel->zFrom && !sel->pSub && !sel->pNext; k++){
      const char *zFrom = k ? sel->aJoin[k - 1].zFrom : sel->zFrom, *zAlias = k ? sel->aJoin[k - 1].zAlias : sel->zAlias;
      char *zErr = 0;
      if( k && sel->aJoin[k - 1].pSub ){ ok = 0; break; }
      rc = ga_source_resolve_on(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, "gpu_query", zFrom, &in.aSrc[k], &zErr);
      ga_free(zErr);
      if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){ b->rc = rc; ok = 0; }
      if( rc ){ ok = 0; break; }
      in.azQual[k] = zAlias ? zAlias : in.aSrc[k].tab.zTab;
      in.n = k + 1;
    }
    if( ok && sel->zWhy==0 && (rc = q_decorrelate(b->s, t, sel, i + 1, innerHas, restrictOf, &in))<0 ){
      b->rc = SQLITE_NOMEM;
    }
    for(k=0; k<in.n; k++) ga_source_free(&in.aSrc[k]);
    ga_free(sel->zWhy);
    sel->zWhy = 0;
  }
}

/* e's unqualified column names (unbound) qualified by the table that has
** them: place self first (a subquery's own table, as SQLite resolves its
** names), else the outer query's (qpTabOfCol). A name no table has (TRUE
** aside) is not covered. */
int qpQualify(Bind *b, qexpr *e, int self){
  if( e==0 || e->op==E_SUBQ ) return 1;
  if( e->op==E_COL && e->zQual==0 ){
    int i = self>=0 && qpColIndex(b->aTab[self].t, e->zName)>=0 ? self : qpTabOfCol(b, e);
    if( i>=0 ) e->zQual = (char*)b->aTab[i].zQual;
    else if( sqlite3_stricmp(e->zName, "true") && sqlite3_stricmp(e->zName, "false") ){
      return qpWhy(b, "%s in a correlated subquery, which is no column of its table or the outer query's", e->zName);
    }
    return 1;
  }
  EACH_CHILD(e, pp, if( !qpQualify(b, *pp, self) ) return 0);
  return 1;
}
