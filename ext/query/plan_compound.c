/*
** gpu_query's planner: compounds (plan.c's requirement 6), each arm
** planned alone, the columns' collations and the ORDER BY terms as
** SQLite's multiSelect takes them.
*/
#include "planint.h"

/* A compound's ORDER BY term e: the result column it names (a number, an
** arm's alias, or an arm's result as written, the first arm first:
** resolveCompoundOrderBy), or -1. */
static int compoundTerm(const qselect *s, const qexpr *e){
  const qselect *a;
  int i;
  if( e->op==E_LIT && e->t==0 && e->end>e->at ){
    const char *z = s->zSql + e->at;
    int n = e->end - e->at;
    for(i=0; i<n && z[i]>='0' && z[i]<='9'; i++){}
    if( i==n && n<9 ) return atoi(z) - 1;
  }
  for(a=s; a; a=a->pNext){
    if( e->op==E_COL && e->zQual==0 && qpAliasIndex(a, e->zName)>=0 ) return qpAliasIndex(a, e->zName);
    for(i=0; i<a->nRes; i++) if( qpSame(s, e, a->aRes[i].e) ) return i;
  }
  return -1;
}

int qpPlanCompound(sqlite3_vtab *vt, sqlite3 *db, qselect *s, sqlite3_value **apParam, int nParam,
                   qplan *pl, char **pzWhy){
  static const char *azOp[] = { "", "UNION ALL", "UNION", "INTERSECT", "EXCEPT" };
  Bind b;
  qselect *a;
  int n = 0, i, rc;
  memset(pl, 0, sizeof(*pl));
  memset(&b, 0, sizeof(b));
  *pzWhy = 0;
  pl->s = s;
  pl->bin = qpBinaryOf(db, vt);
  b.pl = pl; b.s = s; b.db = db; b.vt = vt;
  b.apParam = apParam; b.nParam = nParam;
  for(a=s; a; a=a->pNext) n++;
  if( (pl->aArm = ga_malloc64(sizeof(qplan)*(uint64_t)n))==0 ) return SQLITE_NOMEM;
  memset(pl->aArm, 0, sizeof(qplan)*(size_t)n);
  pl->nArm = n;
  /* ORDER BY: result columns, resolved on the arms as written (room for
  ** every column: a merge that dedups orders by all of them) */
  if( s->nOrder && ((pl->aSortCol = q_alloc(s, (int)sizeof(int)*(s->nOrder + s->nRes)))==0
                    || !qpSortTerms(&b, s->nOrder + s->nRes)) ){
    return SQLITE_NOMEM;
  }
  for(i=0; i<s->nOrder && !qpStopped(&b); i++){
    qexpr *e = s->aOrder[i].e;
    int c = -1;
    while( e->op==E_COLLATE && !e->synth ){
      if( c<0 && (c = qpCollOf(pl->bin, e->zName))<0 ) qpWhy(&b, "COLLATE %s", e->zName);
      e = e->a;
    }
    pl->aSortColl[i] = c;
    if( (pl->aSortCol[i] = compoundTerm(s, e))<0 ) qpWhy(&b, "a compound's ORDER BY term that is no result's number or name");
    pl->aSortDesc[i] = s->aOrder[i].desc;
    pl->aSortNulls[i] = s->aOrder[i].nulls;
  }
  pl->nSort = s->nOrder;
  for(i=0, a=s; a && !qpStopped(&b); a=a->pNext, i++){
    if( (rc = qpPlanCore(vt, db, 0, a, apParam, nParam, 0, 0, &pl->aArm[i], pzWhy, 1 + i))!=SQLITE_OK ) return rc;
    if( *pzWhy ){
      char *z = sqlite3_mprintf("%s's arm %d: %s", azOp[s->pNext->op], i + 1, *pzWhy);
      ga_free(*pzWhy);
      *pzWhy = z;
      return z ? SQLITE_OK : SQLITE_NOMEM;
    }
  }
  /* without ORDER BY, an arm whose rows go into SQLite's index of a UNION,
  ** INTERSECT or EXCEPT (one at it or after it) has its DISTINCT dropped
  ** (IgnorableDistinct): the index dedups them, by its own collations */
  if( pl->nSort==0 ){
    int last = 0;                   /* the last arm joined by UNION, INTERSECT or EXCEPT */
    for(i=1; i<n; i++) if( pl->aArm[i].s->op!=Q_UNION_ALL ) last = i;
    for(i=0; last && i<=last; i++) pl->aArm[i].distinct = 0;
  }
  /* each column's collation: the first arm's that has one (multiSelectCollSeq) */
  pl->nOut = pl->aArm[0].nOut;
  if( !qpStopped(&b) && (pl->aOutColl = q_alloc(s, (int)sizeof(int)*(pl->nOut + 1)))==0 ) b.rc = SQLITE_NOMEM;
  for(i=0; i<pl->nOut && !qpStopped(&b); i++){
    int k, c = -1;
    for(k=0; k<n && c<0; k++) c = qpCollWalk(pl->aArm[k].aOut[i]);
    pl->aOutColl[i] = c<0 ? pl->bin : c;
  }
  for(i=0; i<pl->nSort && !qpStopped(&b); i++){
    /* (SQLite gives each term the compound's collation explicitly, so that
    ** each arm orders its rows by it too: multiSelectOrderByKeyInfo) */
    if( pl->aSortColl[i]<0 ) pl->aSortColl[i] = pl->aOutColl[pl->aSortCol[i]];
  }
  for(a=s->pNext; a && a->op==Q_UNION_ALL; a=a->pNext){}
  if( pl->nSort && a && !qpStopped(&b) ){
    /* multiSelectOrderBy: a merge that dedups (the last operator's) orders
    ** by every column, the ORDER BY's first; equal rows are equal by the
    ** columns' collations, which the ORDER BY must not change */
    int c;
    for(a=s->pNext; a->pNext; a=a->pNext){}
    if( a->op==Q_UNION_ALL ) qpWhy(&b, "ORDER BY over a compound whose last operator is UNION ALL after UNION, INTERSECT or EXCEPT");
    for(i=0; i<pl->nSort && !qpStopped(&b); i++){
      if( pl->aSortColl[i]!=pl->aOutColl[pl->aSortCol[i]] ) qpWhy(&b, "a compound's ORDER BY term with a collation not its column's");
    }
    for(c=0; c<pl->nOut && !qpStopped(&b); c++){
      for(i=0; i<pl->nSort && pl->aSortCol[i]!=c; i++){}
      if( i<pl->nSort ) continue;
      pl->aSortCol[pl->nSort] = c;
      pl->aSortColl[pl->nSort] = pl->aOutColl[c];
      pl->aSortDesc[pl->nSort] = pl->aSortNulls[pl->nSort] = 0;
      pl->nSort++;
    }
  }
  /* each arm gets the compound's ORDER BY, and so its groups' order */
  for(i=0; i<n && pl->nSort && !qpStopped(&b); i++){
    qplan *arm = &pl->aArm[i];
    if( arm->nKey && arm->nKey==pl->nSort ){
      b.pl = arm;
      qpKeyOrder(&b, pl->aSortDesc);
      b.pl = pl;
    }
  }
  if( !qpStopped(&b) ) qpLimits(&b);
  if( b.rc ){
    *pzWhy = b.zErr ? b.zErr : sqlite3_mprintf("%s", sqlite3_errstr(b.rc));
    ga_free(b.zWhy);
    return b.rc;
  }
  *pzWhy = b.zWhy;
  return SQLITE_OK;
}
