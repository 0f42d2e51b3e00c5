/*
** A rewrite of the parse: a subquery in FROM, or a WITH table, that only
** selects rows is merged into the query that reads it, as SQLite's query
** flattener merges it (select.c's flattenSubquery). TPC-H Q7, Q8 and Q9
** aggregate the rows of a join in FROM: merged, they are a join with
** aggregates, which the engine runs.
**
**   1. Merged only where nothing can tell: the outer query reads the
**      subquery alone (no join, no *, one core); the subquery is one core
**      with a FROM, without aggregates, GROUP BY, HAVING, DISTINCT, ORDER
**      BY, LIMIT or OFFSET (SQLite keeps a subquery's ORDER BY where the
**      outer query aggregates, its rows' order then deciding the ties of
**      min() and max()), and it is merged first itself where it reads a
**      subquery.
**   2. Every name of the outer query is one of the subquery's columns
**      (unqualified, or qualified by its alias), replaced by a copy of the
**      expression that makes it, as SQLite's flattener replaces it
**      (substExpr): its affinity is the expression's, and its collation
**      the column's, not explicit: the expression's own, else BINARY (an
**      E_COLLATE marked synth: plan.c binds it so and never folds it).
**      In ORDER BY a name may also be a result's alias (ORDER BY tries
**      those first). Any other name, where the inner tables' columns would
**      now answer to it, leaves the query as it was.
**   3. The merged query reads the subquery's FROM and joins; its WHERE is
**      the subquery's AND the outer one (a node whose text is its operands',
**      synth: plan_sub.c's qpFold writes it so).
*/
#include <string.h>
#include "query.h"

/* The name of the subquery's result i as the outer query sees it: the WITH
** table's column list, its alias, or the column it is (NULL: none). */
static const char *resultName(const qselect *sub, int i){
  const qexpr *e = sub->aRes[i].e;
  if( i<sub->nName ) return sub->azName[i];
  if( sub->aRes[i].zAlias ) return sub->aRes[i].zAlias;
  return e->op==E_COL ? e->zName : 0;
}

/* The subquery's result that E_COL e of the outer query s names, or -1. */
static int resultOf(const qselect *s, const qexpr *e){
  const qselect *sub = s->pSub;
  int i;
  if( e->zQual && !(s->zAlias && sqlite3_stricmp(e->zQual, s->zAlias)==0) ) return -1;
  for(i=0; i<sub->nRes; i++){
    const char *z = resultName(sub, i);
    if( z && sqlite3_stricmp(z, e->zName)==0 ) return i;
  }
  return -1;
}

/* Is outer result alias z one of s's? */
static int isAlias(const qselect *s, const char *z){
  int i;
  for(i=0; i<s->nRes; i++) if( s->aRes[i].zAlias && sqlite3_stricmp(s->aRes[i].zAlias, z)==0 ) return 1;
  return 0;
}

/* Can every name below e be replaced (2.)? inOrder: an ORDER BY term's. */
static int names(const qselect *s, const qexpr *e, int inOrder){
  int i;
  if( e==0 ) return 1;
  if( e->op==E_SUBQ || e->op==E_INSEL ) return 0;   /* (a subquery's names: not read here) */
  if( e->op==E_COL ){
    if( resultOf(s, e)>=0 ) return 1;
    return inOrder && e->zQual==0 && !e->quoted && isAlias(s, e->zName);
  }
  for(i=0; i<e->nArg; i++) if( !names(s, e->arg[i], inOrder) ) return 0;
  return names(s, e->a, inOrder) && names(s, e->b, inOrder);
}

/* The nodes replace() has made into copies so far: a node the parse shares
** (BETWEEN's operand, CASE's base) is met again, and is not replaced again
** (its copy may name the column it replaced: (r * 2) AS r). */
typedef struct Replaced {
  const qexpr **a; int n, nAlloc;
} Replaced;

/* Every subquery column below e replaced by a copy of its expression. 0,
** or SQLITE_NOMEM. */
static int replace(qselect *s, qexpr *e, Replaced *p){
  int i, k;
  if( e==0 ) return 0;
  for(i=0; i<p->n && p->a[i]!=e; i++){}
  if( i<p->n ) return 0;
  if( e->op==E_COL ){
    qexpr *c, *w;
    if( (k = resultOf(s, e))<0 ) return 0;     /* (an ORDER BY alias) */
    if( (c = q_expr_copy(s, s->pSub->aRes[k].e))==0 || (w = q_node(s, E_COLLATE))==0 ) return SQLITE_NOMEM;
    w->a = c;                                  /* (2.: the column's collation, implicit) */
    w->at = c->at;
    w->end = c->end;
    *e = *w;
    if( p->n==p->nAlloc ){
      int n = p->nAlloc ? 2*p->nAlloc : 16;
      const qexpr **a = ga_realloc64(p->a, sizeof(qexpr*)*(uint64_t)n);
      if( a==0 ) return SQLITE_NOMEM;
      p->a = a;
      p->nAlloc = n;
    }
    p->a[p->n++] = e;
    return 0;
  }
  for(i=0; i<e->nArg; i++) if( replace(s, e->arg[i], p) ) return SQLITE_NOMEM;
  return replace(s, e->a, p) || replace(s, e->b, p) ? SQLITE_NOMEM : 0;
}

/* Each name of s's that is the subquery's column replaced (2.). 0, or
** SQLITE_NOMEM. */
static int replaceAll(qselect *s){
  Replaced r = { 0, 0, 0 };
  int i, rc = 0;
  for(i=0; i<s->nRes && rc==0; i++) rc = replace(s, s->aRes[i].e, &r);
  for(i=0; i<s->nGroup && rc==0; i++) rc = replace(s, s->aGroup[i].e, &r);
  for(i=0; i<s->nOrder && rc==0; i++) rc = replace(s, s->aOrder[i].e, &r);
  if( rc==0 ) rc = replace(s, s->pWhere, &r);
  if( rc==0 ) rc = replace(s, s->pHaving, &r);
  ga_free(r.a);
  return rc;
}

int q_flatten_outer(const qselect *s){
  int i;
  if( s->pSub==0 || s->pNext || s->nJoin || s->star || s->zWhy ) return 0;
  for(i=0; i<s->nRes; i++) if( !names(s, s->aRes[i].e, 0) ) return 0;
  for(i=0; i<s->nGroup; i++) if( !names(s, s->aGroup[i].e, 0) ) return 0;
  for(i=0; i<s->nOrder; i++) if( !names(s, s->aOrder[i].e, 1) ) return 0;
  return names(s, s->pWhere, 0) && names(s, s->pHaving, 0);
}

int q_flatten(qselect *s){
  qselect *sub = s->pSub;
  int i, rc;
  if( sub==0 || s->pNext || s->nJoin || s->star || s->zWhy ) return 0;
  if( sub->pSub && (rc = q_flatten(sub))<0 ) return rc;
  if( sub->pSub || sub->pNext || sub->zFrom==0 || sub->star || sub->distinct || sub->nGroup || sub->pHaving
   || sub->nOrder || sub->pLimit || sub->pOffset || sub->zWhy ){
    return 0;
  }
  for(i=0; i<sub->nRes; i++) if( q_has_agg(sub->aRes[i].e) ) return 0;
  if( !q_flatten_outer(s) ) return 0;
  if( replaceAll(s) ) return -SQLITE_NOMEM;   /* (2.) */
  /* (3.) */
  if( s->pWhere && sub->pWhere ){
    qexpr *a = q_node(s, E_AND);
    if( a==0 ) return -SQLITE_NOMEM;
    a->a = sub->pWhere;
    a->b = s->pWhere;
    a->at = a->a->at;
    a->end = a->a->end;
    s->pWhere = a;
  }else if( sub->pWhere ){
    s->pWhere = sub->pWhere;
  }
  s->zFrom = sub->zFrom;
  s->zAlias = sub->zAlias;
  s->aJoin = sub->aJoin;
  s->nJoin = sub->nJoin;
  s->pSub = 0;
  s->flattened = 1;
  return 1;
}
