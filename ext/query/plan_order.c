/*
** gpu_query's planner: rows in the order SQLite gives them (plan.c's
** requirements 9d and 9f): ORDER BY the scanned table's INTEGER PRIMARY
** KEY, and rows without ORDER BY in the order of SQLite's plan's loops
** (joinorder.c reads them) made sort terms.
*/
#include "planint.h"

/* Rows of a join without aggregates whose order ORDER BY decides alone
** (9d): a term is the scanned table's INTEGER PRIMARY KEY, and each table
** joined to it finds at most one row for a row (its build's keys one a row,
** else the run is SQLite's: join.c, 1d). */
int qpOrderedByKey(Bind *b){
  qplan *pl = b->pl;
  int i, k;
  if( !qpRowidKeyed(&pl->src.tab) ) return 0;
  for(i=0; i<pl->nSort; i++){
    const qexpr *e = pl->aSort[i];
    if( e->op==E_COL && e->iCol>=0 && e->iCol<Q_JCOL0 && pl->src.tab.aCol[pl->aiCol[e->iCol]].pk==1 ) break;
  }
  if( i==pl->nSort ) return 0;
  for(k=0; k<pl->nJoin; k++) if( !pl->aJoin[k].semi && !pl->aJoin[k].unique ) pl->aJoin[k].unique = Q_ONE_ORDER;
  return 1;
}

/* 9f: a join's rows without ORDER BY in SQLite's join order, its plan's
** loops' terms (joinorder.c) the sort terms: an index's columns as bound
** columns, a table's rowid order as its rows' positions (places after the
** joined tables' columns: join.c gathers them). */
#define Q_JOIN_ORDER_MAX 512       /* terms SQLite's join order may take */

/* The columns of table t that e names (bits of *pUsed), e a conjunct over
** t alone (qualified by zQual, or not at all), not yet bound. */
static void namedCols(const qexpr *e, const ga_table *t, const char *zQual, uint64_t *pUsed){
  if( e==0 || e->op==E_SUBQ || e->op==E_INSEL ) return;   /* (a subquery's own names: none of t's) */
  if( e->op==E_COL && (e->zQual==0 || sqlite3_stricmp(e->zQual, zQual)==0) ){
    int c = qpColIndex(t, e->zName);
    if( c>=0 && c<64 ) *pUsed |= (uint64_t)1<<c;
  }
  EACH_CHILD((qexpr*)e, pp, namedCols(*pp, t, zQual, pUsed));
}

/* Each FROM table's columns the statement names as SQLite counts them
** (its colUsed: joinorder.c, 2a), into aUsed: those bound to it so far
** and those its own conjuncts name (aLocal: bound with its build), its
** rowid alias not among them (SQLite reads that as the rowid). 0 where
** not known: a subquery merged, a table of 64 columns or more, or with a
** generated column (SQLite counts every column where one is named). */
static int usedCols(Bind *b, qexpr ***aLocal, const int *nLocal, uint64_t *aUsed){
  const qplan *pl = b->pl;
  int i, c;
  if( b->s->flattened ) return 0;
  for(i=0; i<b->nFrom; i++){
    const ga_table *t = b->aTab[i].t;
    const int k = b->aTab[i].iJoin;
    if( t->nCol>63 ) return 0;
    for(c=0; c<t->nCol; c++) if( t->aCol[c].generated ) return 0;
    aUsed[i] = 0;
    if( k<0 ){
      for(c=0; c<pl->nCol; c++) aUsed[i] |= (uint64_t)1<<pl->aiCol[c];
    }else{
      for(c=0; c<pl->aJoin[k].nCol; c++) aUsed[i] |= (uint64_t)1<<pl->aJoin[k].aTabCol[c];
      for(c=0; c<nLocal[k]; c++) namedCols(aLocal[k][c], t, b->aTab[i].zQual, &aUsed[i]);
    }
    if( qpRowidKeyed(t) ){
      if( !t->rowidAlias ) return 0;       /* (an INTEGER PRIMARY KEY DESC: SQLite keeps an index) */
      for(c=0; c<t->nCol; c++) if( t->aCol[c].pk==1 ) aUsed[i] &= ~((uint64_t)1<<c);
    }
  }
  return 1;
}

/* Do the loops of SQLite's plan of the statement that are s's show where
** joinorder.c looks (the top level, or the isArm-th arm's of the top
** level's compound, one without ORDER BY)? */
int qpIsOwnPlan(const qselect *s, int isArm){
  const qselect *root = s->pRoot ? s->pRoot : s, *a;
  int i;
  if( !isArm ) return root==s;
  if( root->nOrder ) return 0;
  for(a=root, i=1; a && a!=s; a=a->pNext, i++){}
  return a==s && i==isArm;
}

/* 9f: rows without ORDER BY in SQLite's order: its plan's loops' terms
** (joinorder.c) the sort terms; iArm, the compound's arm this SELECT is
** (-1: the statement). A join's: an index's columns as bound columns, a
** table's rowid order its rows' positions (places after the joined tables'
** columns: join.c gathers them). One table's (and its correlated
** subqueries'): an index's columns where SQLite reads one, ties by the scan's
** order (the sort is stable), which is the rowid's. Where SQLite's order is
** not followed, a join's rows stay SQLite's; one table's are left as they
** were (qpSqlitePlan decides on an index it reads). */
void qpPlanOrderTerms(Bind *b, qexpr ***aLocal, const int *nLocal, int iArm){
  qplan *pl = b->pl;
  const char *azQual[Q_MAXTAB];
  const ga_table *apTab[Q_MAXTAB];
  uint64_t aUsed[Q_MAXTAB];
  const int nTab = b->nTab ? b->nFrom : 1, join = nTab>1;
  int known, reverse = 0, i, k, n = 0, rc;
  qordterm *a = 0;
  sqlite3_stmt *st = 0;
  char *zWhy = 0, *zOrder = 0;
  if( !join ){
    azQual[0] = b->s->zAlias ? b->s->zAlias : pl->src.tab.zTab;
    apTab[0] = &pl->src.tab;
    aUsed[0] = 0;
    known = 0;                     /* (SQLite builds no automatic index for it) */
  }else{
    for(i=0; i<nTab; i++){
      if( b->aTab[i].derived ){
        qpWhy(b, "rows of a join with a subquery in FROM, without aggregates or ORDER BY (their order is SQLite's join "
                 "order)");
        return;
      }
      azQual[i] = b->aTab[i].zQual;
      apTab[i] = b->aTab[i].t;
    }
    known = usedCols(b, aLocal, nLocal, aUsed);
  }
  if( sqlite3_prepare_v2(b->db, "PRAGMA reverse_unordered_selects", -1, &st, 0)==SQLITE_OK
   && sqlite3_step(st)==SQLITE_ROW ){
    reverse = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  st = 0;
  if( reverse ){
    if( join ) qpWhy(b, "rows of a join without aggregates or ORDER BY under PRAGMA reverse_unordered_selects");
    return;
  }
  if( (a = ga_malloc64(sizeof(qordterm)*Q_JOIN_ORDER_MAX))==0 ){
    b->rc = SQLITE_NOMEM;
    return;
  }
  rc = qpExplainPrepared(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, b->keep, (b->s->pRoot ? b->s->pRoot : b->s)->zSql,
                         b->apParam, b->nParam, &st);
  if( rc==SQLITE_OK ){
    rc = q_join_order(b->db, st, iArm, b->s, nTab, azQual, apTab, known ? aUsed : 0, a, &n, Q_JOIN_ORDER_MAX, &zOrder,
                      &zWhy);
    qpKeptDone(b->keep, st);
  }
  if( !join && rc==SQLITE_OK && zWhy==0 ){
    /* (one table: its index's columns alone, ties by the scan's order) */
    for(i=k=0; i<n; i++) if( a[i].zCol ) a[k++] = a[i];
    n = k;
  }
  if( rc==SQLITE_NOMEM ){
    b->rc = rc;
  }else if( !join && (rc || zWhy || n==0) ){
    /* (one table: as it was) */
  }else if( rc ){
    qpWhy(b, "rows of a join without aggregates or ORDER BY (their order is SQLite's join order: %s)", sqlite3_errstr(rc));
  }else if( zWhy ){
    qpWhy(b, "rows of a join without aggregates or ORDER BY, in the order of a plan the engine does not follow: %s", zWhy);
  }else if( !qpSortTerms(b, n) || (pl->zJoinOrd = q_alloc(b->s, (int)strlen(zOrder) + 24))==0 ){
    b->rc = SQLITE_NOMEM;
  }else{
    sqlite3_snprintf((int)strlen(zOrder) + 24, pl->zJoinOrd, "SQLite's %s order: %s", join ? "join" : "index", zOrder);
    if( join ) pl->nPos = 1 + pl->nJoin;
    for(i=0; i<n && !qpStopped(b); i++){
      qexpr *e = q_node(b->s, E_COL);
      if( e==0 ){ b->rc = SQLITE_NOMEM; break; }
      pl->aSort[i] = e;
      pl->aSortDesc[i] = a[i].desc;
      pl->aSortNulls[i] = 0;
      if( a[i].zCol ){
        e->zName = a[i].zCol;
        e->zQual = join ? (char*)b->aTab[a[i].iTab].zQual : 0;
        e->synth = 0;
        if( !qpBindTop(b, &pl->aSort[i], CTX_ROW) ) break;
        if( (pl->aSortColl[i] = qpCollOf(pl->bin, a[i].zColl))<0 ){
          qpWhy(b, "rows without ORDER BY, in the order of an index by the collation %s", a[i].zColl);
        }
      }else{
        e->iCol = Q_JCOL0 + pl->nJCol + b->aTab[a[i].iTab].iJoin + 1;
        pl->aSortColl[i] = pl->bin;
      }
    }
    pl->nSort = pl->nJoinOrd = i;
  }
  ga_free(zWhy);
  ga_free(zOrder);
  ga_free(a);
}
