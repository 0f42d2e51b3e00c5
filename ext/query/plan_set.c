/*
** gpu_query's planner: a rewrite of IN's subquery, x IN (SELECT c FROM
** ...), whose rows are a set (nothing depends on their order, nor on how
** many times a value comes): where it has no aggregate, it is grouped by
** its one result, as if it said GROUP BY c. Its reads then make one row of
** each value, not of each row (TPC-H Q20's partsupp joined with lineitem's
** sums: grouped, a kept plan serves it on the device; a subquery of more
** than Q_MAXIN rows of few values stays on the engine).
**
**   1. Only where the answer cannot differ: one result, a column of a
**      table (the scan's or a joined one's, not a subquery's or a view's),
**      whose equal values are alike (qpColExact: INTEGER, NUMERIC or TEXT
**      affinity, stored converted; BINARY), so that the value each group
**      shows is every one of its rows'; no DISTINCT, ORDER BY, LIMIT,
**      OFFSET, GROUP BY, HAVING or aggregate; not a compound's arm.
**   2. The groups' order is no answer's (the subquery's plan is orderFree:
**      plan_sqlite.c leaves SQLite's order of its rows aside).
*/
#include "planint.h"

int qpColExact(const qplan *pl, const qexpr *e, int coll){
  const ga_table *t = &pl->src.tab;
  int c, aff, k, j;
  if( e==0 || e->op!=E_COL || coll!=pl->bin ) return 0;
  if( e->iCol<Q_JCOL0 ){
    if( pl->pSub || e->iCol<0 || e->iCol>=pl->nCol ) return 0;
    c = pl->aiCol[e->iCol];
  }else{
    j = e->iCol - Q_JCOL0;
    for(k=0; k<pl->nJoin && (j<pl->aJoin[k].iCol0 || j>=pl->aJoin[k].iCol0 + pl->aJoin[k].nCol); k++){}
    if( k==pl->nJoin || pl->aJoin[k].semi ) return 0;
    t = &pl->aJoin[k].src.tab;
    c = pl->aJoin[k].aTabCol[j - pl->aJoin[k].iCol0];
  }
  if( t->zKind==0 || strcmp(t->zKind, "table") || c<0 || c>=t->nCol ) return 0;
  aff = t->aCol[c].aff;
  return aff==GA_AFF_INTEGER || aff==GA_AFF_NUMERIC || aff==GA_AFF_TEXT;
}

int qpSetGroup(Bind *b, int nOrder){
  qselect *s = b->s;
  qplan *pl = b->pl;
  qexpr *c;
  if( !s->asSet || pl->isArm || pl->grouped || s->distinct || s->nGroup || nOrder || s->pLimit || s->pOffset
   || s->nRes!=1 || s->aRes[0].e->op!=E_COL ){
    return 0;
  }
  if( (c = qpCopyTree(b, s->aRes[0].e))==0 || !qpBindTop(b, &c, CTX_ROW) ) return 0;
  if( !qpColExact(pl, c, qpCollWalk(c)<0 ? pl->bin : qpCollWalk(c)) ) return 0;
  if( (s->aGroup = q_alloc(s, (int)sizeof(qterm)))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
  s->aGroup[0].e = s->aRes[0].e;         /* (the parse's: the result is this key, requirement 5) */
  s->nGroup = 1;
  pl->grouped = 1;
  return 1;
}
