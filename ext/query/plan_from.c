/*
** gpu_query's planner: FROM a subquery or a WITH table (plan.c's
** requirements 7 and 9b), planned first, its results the columns of the
** table the query reads.
*/
#include "planint.h"

/* Subquery sub planned into *pp (sqlite3_malloc'd, the caller's; also
** where *pzWhy says why it is not covered, prefixed "zWhat: "), with the
** read's kept statements (keep: its own subqueries keep their columns as
** the read's do; NULL, gpu_explain's: none). */
int qpFromPlan(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *sub, sqlite3_value **apParam, int nParam,
               const char *zWhat, qplan **pp, char **pzWhy){
  int rc;
  if( (*pp = ga_malloc64(sizeof(qplan)))==0 ) return SQLITE_NOMEM;
  memset(*pp, 0, sizeof(qplan));
  if( (rc = qpPlanAny(vt, db, keep, sub, apParam, nParam, 0, 0, *pp, pzWhy))!=SQLITE_OK ) return rc;
  if( *pzWhy ){
    char *z = sqlite3_mprintf("%s: %s", zWhat, *pzWhy);
    ga_free(*pzWhy);
    *pzWhy = z;
    return z ? SQLITE_OK : SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* Planned subquery sp (of SELECT sub, named zAlias) described as a table
** *t: each column's name (a WITH table's as listed, else its alias, its
** column's name, or its text), affinity and collation (its expression's:
** sqlite3SubqueryColumnTypes); or *pzWhy where that is not known. */
int qpSubTable(const qplan *sp, const qselect *sub, const char *zAlias, ga_table *t, char **pzWhy){
  const qplan *first;
  int i, k;
  if( sub->nOrder && sub->pLimit==0 ){
    /* SQLite may drop it (a subquery's ORDER BY without LIMIT): the order
    ** the outer query sees its rows in is SQLite's to choose */
    *pzWhy = sqlite3_mprintf("a subquery's ORDER BY without LIMIT");
    return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
  }
  first = sp->nArm ? &sp->aArm[0] : sp;
  t->nCol = sp->nOut;
  if( (t->zTab = sqlite3_mprintf("%s", zAlias ? zAlias : "(subquery)"))==0
   || (t->aCol = ga_malloc64(sizeof(ga_tabcol)*(uint64_t)(t->nCol + 1)))==0 ){
    return SQLITE_NOMEM;
  }
  memset(t->aCol, 0, sizeof(ga_tabcol)*(size_t)(t->nCol + 1));
  for(i=0; i<t->nCol; i++){
    ga_tabcol *c = &t->aCol[i];
    const qterm *r = &first->s->aRes[i];
    const qexpr *x = first->aOut[i];
    int coll = qpCollWalk(x), aff = x->aff;
    for(k=1; k<sp->nArm; k++){
      /* a compound's arms must agree (their leftmost arm's or all arms':
      ** SQLite versions differ) */
      int c2 = qpCollWalk(sp->aArm[k].aOut[i]);
      if( sp->aArm[k].aOut[i]->aff!=aff || (c2<0 ? sp->bin : c2)!=(coll<0 ? sp->bin : coll) ){
        *pzWhy = sqlite3_mprintf("a compound subquery whose arms' column %d differ in affinity or collation", i + 1);
        return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
      }
    }
    if( x->explicitColl ){
      /* where SQLite flattens it the COLLATE stays explicit, where not it is
      ** the column's own: which one is its choice */
      *pzWhy = sqlite3_mprintf("a subquery's result with COLLATE");
      return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
    }
    if( i<sub->nName ) c->zName = sqlite3_mprintf("%s", sub->azName[i]);
    else if( r->zAlias ) c->zName = sqlite3_mprintf("%s", r->zAlias);
    else if( r->e->op==E_COL || x->op==E_COL ) c->zName = sqlite3_mprintf("%s", r->e->zName ? r->e->zName : x->zName);
    else c->zName = sqlite3_mprintf("%.*s", r->e->end - r->e->at, first->s->zSql + r->e->at);
    c->aff = aff;
    c->zColl = sqlite3_mprintf("%s", coll==C_NOCASE ? "NOCASE" : coll==C_RTRIM ? "RTRIM" : "BINARY");
    if( c->zName==0 || c->zColl==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* s's FROM subquery, a LEFT JOIN counted for each of its table's rows,
** rewritten (groupjoin.c) where both tables resolve to rowid tables. 1, 0,
** or an error (SQLITE_NOMEM, SQLITE_INTERRUPT) negated. */
int qpGroupJoin(sqlite3_vtab *vt, sqlite3 *db, qselect *s){
  const qselect *sub = s->pSub;
  ga_conn *conn = vt ? ((ga_vtab*)vt)->conn : 0;
  ga_source L, R;
  char *zErr = 0;
  int rc;
  if( sub->nJoin!=1 || sub->nGroup!=1 || sub->zFrom==0 || sub->pSub || sub->aJoin[0].jt!=Q_JT_LEFT
   || sub->aJoin[0].pSub ) return 0;
  memset(&L, 0, sizeof(L));
  memset(&R, 0, sizeof(R));
  rc = ga_source_resolve_on(db, conn, "gpu_query", sub->zFrom, &L, &zErr);
  ga_free(zErr);
  zErr = 0;
  if( rc==SQLITE_OK ) rc = ga_source_resolve_on(db, conn, "gpu_query", sub->aJoin[0].zFrom, &R, &zErr);
  ga_free(zErr);
  if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ) rc = -rc;
  else if( rc!=SQLITE_OK || L.tab.zKind==0 || strcmp(L.tab.zKind, "table") || R.tab.zKind==0
        || strcmp(R.tab.zKind, "table") ) rc = 0;
  else if( (rc = q_groupjoin(db, s, 0, &L.tab, &R.tab))<0 ) rc = -SQLITE_NOMEM;
  ga_source_free(&L);
  ga_source_free(&R);
  return rc;
}

/* s's FROM subquery planned (pl->pSub; a joined subquery's plan made by
** qpPlanJoin taken as it is), and described as the table s reads
** (pl->src.tab). */
int qpFromSub(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
              qplan *pl, char **pzWhy){
  int rc;
  if( s->pSub->pPlanned ){
    pl->pSub = s->pSub->pPlanned;
    s->pSub->pPlanned = 0;
  }else if( (rc = qpFromPlan(vt, db, keep, s->pSub, apParam, nParam, "FROM a subquery", &pl->pSub, pzWhy))!=SQLITE_OK
              || *pzWhy ){
    return rc;
  }
  return qpSubTable(pl->pSub, s->pSub, s->zAlias, &pl->src.tab, pzWhy);
}
