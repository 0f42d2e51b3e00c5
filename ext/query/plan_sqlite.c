/*
** gpu_query's planner: SQLite's own plan (plan.c's requirement 8).
** EXPLAIN QUERY PLAN with the parameters bound, its loops costed (cost.c)
** against the engine's read: a search that is cheaper, or an index whose
** order the answer depends on, makes the read SQLite's, with the reason.
** The statements this asks SQLite are kept between a table's reads
** (qsqlkeep).
*/
#include <math.h>
#include "planint.h"

#define Q_SAMPLE_ROWS 4096         /* a table this large or larger: rows per key sampled (cost.c, 1b) */

/* Is pl's answer the same when its rows are read in index ix's order? With
** GROUP BY keys that are ix's columns in GROUP BY's order (plain columns,
** the same collations, ascending; no other, unless nothing shown depends on
** a group's first row: rowsFree), ix gives a group's rows in rowid order, as
** the engine reads them: every choice of a row (a key's shown form) is the same,
** and the groups come in the engine's order (GROUP BY b, a by an index on
** (a, b) does not: ORDER BY's ties, or the rows without one, would differ).
** Without keys, where nothing depends on the order: no DISTINCT, LIMIT,
** OFFSET, bare column, min(), max(), argmin, argmax or DISTINCT aggregate. */
/* Does nothing pl shows depend on which row of a group comes first? No bare
** column, min(), max(), argmin, argmax or DISTINCT aggregate, and keys that
** are a table's columns whose equal values are alike (qpColExact: INTEGER,
** NUMERIC or TEXT affinity, BINARY; a REAL column's 0.0 and -0.0, a NOCASE
** key's 'a' and 'A', differ). */
static int rowsFree(const qplan *pl){
  int i;
  if( pl->nBare ) return 0;
  for(i=0; i<pl->nAgg; i++){
    int fn = pl->aAgg[i].fn;
    if( fn==A_MIN || fn==A_MAX || fn==A_ARGMIN || fn==A_ARGMAX || Q_DEDUP(&pl->aAgg[i]) ) return 0;
  }
  for(i=0; i<pl->nKey; i++) if( !qpColExact(pl, pl->aKey[i], pl->aKeyColl[i]) ) return 0;
  return 1;
}

/* Does nothing pl shows depend on the order SQLite reads its rows in? Its
** rows a set (IN's: orderFree) whose groups show what every row of them
** would (rowsFree). */
static int anyOrder(const qplan *pl){
  return pl->orderFree && pl->grouped && rowsFree(pl);
}

static int orderFree(sqlite3 *db, const qplan *pl, const char *zIndex){
  sqlite3_stmt *st = 0;
  int i, ok = 1;
  const qselect *s = pl->s;
  if( !pl->grouped ) return 0;
  if( pl->nKey==0 ){
    if( pl->distinct || s->pLimit || s->pOffset || pl->nBare ) return 0;
    for(i=0; i<pl->nAgg; i++){
      int fn = pl->aAgg[i].fn;
      if( fn==A_MIN || fn==A_MAX || fn==A_ARGMIN || fn==A_ARGMAX || Q_DEDUP(&pl->aAgg[i]) ) return 0;
    }
    return 1;
  }
  if( sqlite3_prepare_v2(db, "SELECT name, coll, desc FROM pragma_index_xinfo(?1, ?2) WHERE key ORDER BY seqno", -1, &st,
                         0) ){
    sqlite3_finalize(st);
    return 0;
  }
  sqlite3_bind_text(st, 1, zIndex, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, pl->src.tab.zDb, -1, SQLITE_STATIC);
  for(i=0; i<=pl->nKey && ok; i++){
    const char *zCol, *zColl;
    if( i==pl->nKey ){                            /* (a column after the keys orders a group's rows) */
      ok = sqlite3_step(st)!=SQLITE_ROW || rowsFree(pl);
      break;
    }
    ok = sqlite3_step(st)==SQLITE_ROW && (zCol = (const char*)sqlite3_column_text(st, 0))!=0
         && (zColl = (const char*)sqlite3_column_text(st, 1))!=0 && qpCollOf(pl->bin, zColl)>=0
         && sqlite3_column_int(st, 2)==0;               /* (a DESC column gives its groups descending) */
    if( ok ){
      const qexpr *e = pl->aKey[i];
      while( e->op==E_COLLATE ) e = e->a;     /* (its collation is the key's: aKeyColl) */
      ok = e->op==E_COL && sqlite3_stricmp(pl->src.tab.aCol[pl->aiCol[e->iCol]].zName, zCol)==0
           && pl->aKeyColl[i]==qpCollOf(pl->bin, zColl);
    }
  }
  sqlite3_finalize(st);
  return ok;
}

void q_sqlkeep_fn_forget(qsqlkeep *k){
  int i;
  for(i=0; i<k->nFn; i++) ga_free(k->aFn[i].zName);
  k->nFn = 0;
}

void q_sqlkeep_free(qsqlkeep *k){
  ga_conn *conn = k->conn;
  int i;
  for(i=0; i<k->n; i++){
    sqlite3_finalize(k->aSt[i]);
    ga_free(k->azSql[i]);
  }
  for(i=0; i<k->nCount; i++) ga_free(k->azCount[i]);
  for(i=0; i<k->nPer; i++) ga_free(k->azPer[i]);
  ga_free(k->zShareKey);
  q_sqlkeep_fn_forget(k);
  memset(k, 0, sizeof(*k));
  k->conn = conn;
}

/* zSql prepared (SQLITE_OK) into *pSt: k's statement of that text where
** main's and temp's cookies are still the ones it was prepared under
** (reset, its bindings cleared), else prepared now, and kept in k where
** there is room, outside a transaction; qpKeptDone ends its use. */
int qpKeptPrepare(sqlite3 *db, ga_conn *conn, qsqlkeep *k, const char *zSql, sqlite3_stmt **pSt){
  int vMain, vTemp, i, rc;
  *pSt = 0;
  if( k && conn==0 ) conn = k->conn;
  if( k && ga_source_cookies(db, conn, &vMain, &vTemp)!=SQLITE_OK ){      /* (in a transaction too) */
    q_sqlkeep_free(k);
    k = 0;
  }
  if( k && (k->mainVer!=vMain || k->tempVer!=vTemp) ){
    q_sqlkeep_free(k);
    k->mainVer = vMain;
    k->tempVer = vTemp;
  }
  for(i=0; k && i<k->n; i++){
    if( strcmp(k->azSql[i], zSql)==0 ){
      sqlite3_reset(k->aSt[i]);
      sqlite3_clear_bindings(k->aSt[i]);
      *pSt = k->aSt[i];
      return SQLITE_OK;
    }
  }
  if( (rc = sqlite3_prepare_v2(db, zSql, -1, pSt, 0))!=SQLITE_OK ) return rc;
  if( k && k->n<Q_SQLKEEP_ST && (k->azSql[k->n] = sqlite3_mprintf("%s", zSql))!=0 ) k->aSt[k->n++] = *pSt;
  return SQLITE_OK;
}

/* EXPLAIN QUERY PLAN of zSql, its parameters bound, into *pSt
** (qpKeptPrepare's: qpKeptDone ends its use). */
int qpExplainPrepared(sqlite3 *db, ga_conn *conn, qsqlkeep *k, const char *zSql, sqlite3_value **apParam,
                      int nParam, sqlite3_stmt **pSt){
  char *z = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", zSql);
  int rc, i;
  *pSt = 0;
  if( z==0 ) return SQLITE_NOMEM;
  rc = qpKeptPrepare(db, conn, k, z, pSt);
  ga_free(z);
  if( rc ){
    sqlite3_finalize(*pSt);
    *pSt = 0;
    return rc;
  }
  for(i=0; i<nParam && i<sqlite3_bind_parameter_count(*pSt); i++){
    if( apParam && apParam[i] ) sqlite3_bind_value(*pSt, i + 1, apParam[i]);
  }
  return SQLITE_OK;
}

/* The end of a use of st (qpKeptPrepare's): reset where k keeps it, else
** finalized. */
void qpKeptDone(qsqlkeep *k, sqlite3_stmt *st){
  int i;
  for(i=0; k && i<k->n && k->aSt[i]!=st; i++){}
  if( k && i<k->n ) sqlite3_reset(st);
  else sqlite3_finalize(st);
}

/* ANALYZE's row counts of main's tables (sqlite_stat1: each row's first
** figure), for the cost model: an INTEGER PRIMARY KEY's span is no count
** (TPC-H's orders: 8 keys of every 32). */
typedef struct StatRows {
  struct { char *zTab; int64_t n; } a[Q_MAXTAB*2];
  int n;
} StatRows;

static void statRowsRead(sqlite3 *db, ga_conn *conn, qsqlkeep *keep, StatRows *p){
  sqlite3_stmt *st = 0;
  p->n = 0;
  if( qpKeptPrepare(db, conn, keep, "SELECT tbl, CAST(stat AS INTEGER) FROM main.sqlite_stat1", &st)!=SQLITE_OK ){
    sqlite3_finalize(st);                    /* (no ANALYZE: no sqlite_stat1) */
    return;
  }
  while( p->n<(int)(sizeof(p->a)/sizeof(p->a[0])) && sqlite3_step(st)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 0);
    int64_t n = sqlite3_column_int64(st, 1);
    int k;
    if( z==0 || n<=0 ) continue;
    for(k=0; k<p->n && sqlite3_stricmp(p->a[k].zTab, z)!=0; k++){}
    if( k<p->n || (p->a[p->n].zTab = sqlite3_mprintf("%s", z))==0 ) continue;
    p->a[p->n++].n = n;
  }
  qpKeptDone(keep, st);
}

static void statRowsFree(StatRows *p){
  int k;
  for(k=0; k<p->n; k++) ga_free(p->a[k].zTab);
  p->n = 0;
}

/* Estimate n of table t's rows, or ANALYZE's count where that is fewer. */
static int64_t statMin(const StatRows *p, const ga_source *t, int64_t n){
  int k;
  if( t->tab.zTab==0 || (t->tab.zDb && strcmp(t->tab.zDb, "main")!=0) ) return n;
  for(k=0; k<p->n; k++){
    if( sqlite3_stricmp(p->a[k].zTab, t->tab.zTab)==0 ) return p->a[k].n<n ? p->a[k].n : n;
  }
  return n;
}

/* Rows of joined table q, at most: its estimate, or where it has none (a
** correlated subquery's table) its rowids' span; either ANALYZE's count
** where that is fewer. */
static int64_t joinRows(sqlite3 *db, qsqlkeep *keep, const qjoin *q, const StatRows *pStat){
  int64_t n = q->nEst;
  if( n<=0 && q->src.tab.zTab ) n = qpSpanOf(db, keep, q->src.tab.zDb, q->src.tab.zTab, -1);
  return statMin(pStat, &q->src, n);
}

/* Rows of table zName as SQLite's plan names it (its alias, where it has
** one), at most: a join's estimates (rowid spans), else the one table's
** span, either ANALYZE's count where that is fewer; -1 not one of the
** query's. */
static int64_t loopRows(sqlite3 *db, qsqlkeep *keep, const qplan *pl, const qloop *lp, const StatRows *pStat){
  int i;
  if( pl->nJoin ){
    if( (int)strlen(pl->zScanQual)==lp->nName && sqlite3_strnicmp(pl->zScanQual, lp->zName, lp->nName)==0 ){
      return statMin(pStat, &pl->src, pl->nScanEst);
    }
    for(i=0; i<pl->nJoin; i++){
      const qjoin *q = &pl->aJoin[i];
      if( (int)strlen(q->zQual)==lp->nName && sqlite3_strnicmp(q->zQual, lp->zName, lp->nName)==0 ){
        return joinRows(db, keep, q, pStat);
      }
    }
    return -1;
  }
  if( pl->pSub || pl->nArm || pl->src.tab.zTab==0 ) return -1;
  if( !((int)strlen(pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab)==lp->nName
        && sqlite3_strnicmp(pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab, lp->zName, lp->nName)==0) ){
    return -1;                               /* (a subquery's table) */
  }
  return statMin(pStat, &pl->src, qpSpanOf(db, keep, pl->src.tab.zDb, pl->src.tab.zTab, -1));
}

/* The table of pl's that loop lp reads, or NULL. */
static const ga_table *loopTable(const qplan *pl, const qloop *lp){
  int i;
  if( pl->nJoin ){
    if( (int)strlen(pl->zScanQual)==lp->nName && sqlite3_strnicmp(pl->zScanQual, lp->zName, lp->nName)==0 ){
      return &pl->src.tab;
    }
    for(i=0; i<pl->nJoin; i++){
      const qjoin *q = &pl->aJoin[i];
      if( (int)strlen(q->zQual)==lp->nName && sqlite3_strnicmp(q->zQual, lp->zName, lp->nName)==0 ) return &q->src.tab;
    }
    return 0;
  }
  if( pl->pSub || pl->nArm || pl->src.tab.zTab==0 ) return 0;
  if( (int)strlen(pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab)==lp->nName
   && sqlite3_strnicmp(pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab, lp->zName, lp->nName)==0 ){
    return &pl->src.tab;
  }
  return 0;
}

/* Does loop lp's table have a conjunct of its own that is an equality (=,
** IS, IN) by NOCASE or RTRIM? SQLite 3.40.1 searches an automatic index
** for one otherwise than it compares: fewer rows than the comparison
** matches. (A join's equality by them the engine checks as it joins:
** join.c, 1b.) */
static int collatedConst(const qplan *pl, const qloop *lp){
  const ga_table *t = loopTable(pl, lp);
  qexpr **aConj = 0;
  int nConj = 0, i;
  if( t==0 ) return 1;
  if( t==&pl->src.tab ){
    aConj = pl->aConj;
    nConj = pl->nConj;
  }
  for(i=0; i<pl->nJoin; i++){
    if( t==&pl->aJoin[i].src.tab && pl->aJoin[i].pBuild ){
      aConj = pl->aJoin[i].pBuild->aConj;
      nConj = pl->aJoin[i].pBuild->nConj;
    }
  }
  for(i=0; i<nConj; i++){
    const qexpr *e = aConj[i];
    if( (e->op==E_EQ || e->op==E_IS || e->op==E_IN) && (e->cmpColl==C_NOCASE || e->cmpColl==C_RTRIM) ) return 1;
  }
  return 0;
}

/* The database (schema name) of the table loop lp reads. */
static const char *loopDb(const qplan *pl, const qloop *lp){
  int i;
  for(i=0; i<pl->nJoin; i++){
    const qjoin *q = &pl->aJoin[i];
    if( (int)strlen(q->zQual)==lp->nName && sqlite3_strnicmp(q->zQual, lp->zName, lp->nName)==0 ) return q->src.tab.zDb;
  }
  return pl->src.tab.zDb ? pl->src.tab.zDb : "main";
}

/* Rows a key of the columns loop lp's search binds by equality holds in
** table t of nRows rows, estimated from a sample (cost.c, 1b): 8 runs of
** 128 rowids spread over its span, the keys' distinct values by the GEE
** estimator. Kept in keep by the sample's text. 0 where not measured (no
** equality, a column it cannot name, an error). */
static double sampledPerKey(sqlite3 *db, qsqlkeep *keep, const ga_table *t, const qloop *lp, int64_t nRows){
  const char *zDb = t->zDb ? t->zDb : "main", *z = lp->zCols, *zEnd = lp->zCols + lp->nCols;
  sqlite3_str *x, *y;
  sqlite3_stmt *st = 0;
  sqlite3_int64 lo = 0, hi = -1;
  double per = 0.0, n, d, f1;
  char *zSql, *zCols, *zNotNull, *zKey;
  int i, nEq = 0;
  if( z==0 || lp->nEq==0 ) return 0.0;
  /* the bound columns, "a=? AND b=? AND c>?": their list, and none NULL */
  x = sqlite3_str_new(db);
  y = sqlite3_str_new(db);
  while( z<zEnd && nEq<lp->nEq ){
    int m = 0;
    while( z + m<zEnd && z[m]!='=' && z[m]!='<' && z[m]!='>' && z[m]!=' ' ) m++;
    if( z + m>=zEnd || z[m]!='=' || m==0 ) break;
    sqlite3_str_appendf(x, "%s\"", nEq ? ", " : "");
    sqlite3_str_appendf(y, "%s\"", nEq ? " AND " : "");
    for(i=0; i<m; i++){
      sqlite3_str_appendchar(x, z[i]=='"' ? 2 : 1, z[i]);
      sqlite3_str_appendchar(y, z[i]=='"' ? 2 : 1, z[i]);
    }
    sqlite3_str_appendall(x, "\"");
    sqlite3_str_appendall(y, "\" IS NOT NULL");
    nEq++;
    z += m;
    z += strcspn(z, " ");
    if( strncmp(z, " AND ", 5)==0 ) z += 5;
  }
  zCols = sqlite3_str_finish(x);
  zNotNull = sqlite3_str_finish(y);
  if( zCols==0 || zNotNull==0 || nEq!=lp->nEq ){
    ga_free(zCols);
    ga_free(zNotNull);
    return 0.0;
  }
  /* kept by the table and the columns: a table's reads plan one SELECT */
  if( (zKey = sqlite3_mprintf("%s.%s(%s)", zDb, t->zTab, zCols))==0 ){
    ga_free(zCols);
    ga_free(zNotNull);
    return 0.0;
  }
  for(i=0; keep && i<keep->nPer; i++){
    if( strcmp(keep->azPer[i], zKey)==0 ){
      ga_free(zKey);
      ga_free(zCols);
      ga_free(zNotNull);
      return keep->aPer[i];
    }
  }
  /* (min() and max() each by a b-tree's edge: together in one SELECT they scan) */
  zSql = sqlite3_mprintf("SELECT (SELECT min(rowid) FROM \"%w\".\"%w\"), (SELECT max(rowid) FROM \"%w\".\"%w\")",
                         zDb, t->zTab, zDb, t->zTab);
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW
   && sqlite3_column_type(st, 0)==SQLITE_INTEGER ){
    lo = sqlite3_column_int64(st, 0);
    hi = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  ga_free(zSql);
  st = 0;
  x = sqlite3_str_new(db);
  sqlite3_str_appendf(x, "SELECT total(n), count(*), total(n = 1) FROM (SELECT count(*) AS n FROM \"%w\".\"%w\" WHERE (",
                      zDb, t->zTab);
  for(i=0; i<8; i++){
    sqlite3_int64 a = lo + (sqlite3_int64)((double)(hi - lo)*i/8.0);
    sqlite3_str_appendf(x, "%srowid BETWEEN %lld AND %lld", i ? " OR " : "", a, a + 127);
  }
  sqlite3_str_appendf(x, ") AND %s GROUP BY %s)", zNotNull, zCols);
  ga_free(zCols);
  ga_free(zNotNull);
  zSql = sqlite3_str_finish(x);
  if( hi>=lo && zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    n = sqlite3_column_double(st, 0);
    d = sqlite3_column_double(st, 1);
    f1 = sqlite3_column_double(st, 2);
    if( n>0 && d>0 ){
      double dEst = (double)nRows>n ? sqrt((double)nRows/n)*f1 + (d - f1) : d;
      per = (double)nRows/(dEst<1.0 ? 1.0 : dEst);
      if( per<1.0 ) per = 1.0;
    }
  }
  sqlite3_finalize(st);
  ga_free(zSql);
  if( keep && per>0.0 && keep->nPer<Q_SQLKEEP ){
    keep->azPer[keep->nPer] = zKey;
    keep->aPer[keep->nPer++] = per;
  }else{
    ga_free(zKey);
  }
  return per;
}

/* Rows a search of loop lp visits (cost.c, 1): its index's columns and
** uniqueness (pragma_index_list, pragma_index_info) and sqlite_stat1's
** figures where ANALYZE wrote them, else a sample's (1b). */
static double loopPer(sqlite3 *db, qsqlkeep *keep, const qplan *pl, const qloop *lp, int64_t nRows){
  sqlite3_stmt *st = 0;
  int64_t aStat[8];
  int nStat = 0, nKey = 0, isUnique = 0;
  char *zIx, *zSql;
  const char *zDb = loopDb(pl, lp);
  const ga_table *t = loopTable(pl, lp);
  double per;
  if( !lp->search || (lp->zIndex==0 && !lp->automatic) ) return q_loop_rows(lp, nRows, 0, 0, 0, 0);
  if( lp->automatic ){
    per = nRows>=Q_SAMPLE_ROWS && t && lp->nEq<8 ? sampledPerKey(db, keep, t, lp, nRows) : 0.0;
    aStat[0] = nRows;                      /* (the sample's figure as stat1's would be) */
    aStat[lp->nEq] = (int64_t)per;
    return q_loop_rows(lp, nRows, 0, 0, per>0.0 ? aStat : 0, per>0.0 ? lp->nEq + 1 : 0);
  }
  if( (zIx = sqlite3_mprintf("%.*s", lp->nIndex, lp->zIndex))==0 ) return q_loop_rows(lp, nRows, 0, 0, 0, 0);
  zSql = sqlite3_mprintf("SELECT (SELECT count(*) FROM pragma_index_info(%Q, %Q)), (SELECT \"unique\" FROM"
                         " pragma_index_list((SELECT tbl_name FROM \"%w\".sqlite_schema WHERE name=%Q), %Q) WHERE name=%Q)",
                         zIx, zDb, zDb, zIx, zDb, zIx);
  if( zSql && qpKeptPrepare(db, 0, keep, zSql, &st)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    nKey = sqlite3_column_int(st, 0);
    isUnique = sqlite3_column_int(st, 1);
  }
  qpKeptDone(keep, st);
  ga_free(zSql);
  st = 0;
  zSql = sqlite3_mprintf("SELECT stat FROM \"%w\".sqlite_stat1 WHERE idx=%Q", zDb, zIx);
  if( zSql && qpKeptPrepare(db, 0, keep, zSql, &st)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 0);
    while( z && *z && nStat<8 ){
      aStat[nStat++] = atoll(z);
      z += strcspn(z, " ");
      z += strspn(z, " ");
      if( *z<'0' || *z>'9' ) break;          /* ("unordered", "sz=": not figures) */
    }
  }
  qpKeptDone(keep, st);
  ga_free(zSql);
  ga_free(zIx);
  if( nStat==0 && !isUnique && lp->nEq && lp->nEq<8 && nRows>=Q_SAMPLE_ROWS && t
   && (per = sampledPerKey(db, keep, t, lp, nRows))>0.0 ){
    aStat[0] = nRows;
    aStat[lp->nEq] = (int64_t)per;
    nStat = lp->nEq + 1;
  }
  return q_loop_rows(lp, nRows, nKey, isUnique, nStat ? aStat : 0, nStat);
}

/* Rows of the table a loop of a correlated subquery names (a table of
** main by that name; -1: an alias, a view, or empty). */
static int64_t tableRows(sqlite3 *db, qsqlkeep *keep, const qloop *lp){
  int64_t n = qpSpanOf(db, keep, "main", lp->zName, lp->nName);
  return n>0 ? n : -1;
}

/* Rows of one table and its correlated subqueries' semi joins (no other
** join): they come in the scan's order. */
static int isSemiRows(const qplan *pl){
  int i;
  if( pl->grouped || pl->nJoin==0 ) return 0;
  for(i=0; i<pl->nJoin; i++) if( !pl->aJoin[i].semi ) return 0;
  return 1;
}

/* A subtree of SQLite's plan costed as a nest of its own (qpSqlitePlan). */
typedef struct PlanNest {
  int iFirst;                      /* its ids' start in qpSqlitePlan's aId */
  double outer;                    /* the rows reaching the loop after it (restored when it ends) */
  const qplan *pl;                 /* the engine's plan of its tables; NULL: a subquery's in WHERE (its
                                   ** tables named as in main) */
  int corr;                        /* ... a correlated one's */
} PlanNest;

/* Is the innermost of the n nests a correlated subquery's? (A LIST
** SUBQUERY runs once, its outer rows 1: PlanNest's outer is restored
** after it; a correlated one keeps the rows reaching it.) */
static int corrNest(const PlanNest *a, int n){
  return n>0 && a[n-1].pl==0 && a[n-1].corr;
}

/* Does e read a column of joined table q? */
static int readsJoin(const qexpr *e, const qjoin *q){
  int r = 0;
  if( e==0 ) return 0;
  if( e->op==E_COL && e->iCol>=Q_JCOL0 + q->iCol0 && e->iCol<Q_JCOL0 + q->iCol0 + GA_COLS_MAX ) return 1;
  EACH_CHILD((qexpr*)e, pp, r = r || readsJoin(*pp, q));
  return r;
}

/* Does a conjunct over pl's joined rows read joined table q? */
static int postReads(const qplan *pl, const qjoin *q){
  int i;
  for(i=0; i<pl->nPost; i++) if( readsJoin(pl->aPost[i], q) ) return 1;
  return 0;
}

/* Does pl join a subquery's rows (9b, 9c) or a correlated count (9e)?
** Kept columns serve no read of it: each read costs what the first does. */
static int neverKept(const qplan *pl){
  int k;
  for(k=0; k<pl->nJoin; k++){
    const qjoin *q = &pl->aJoin[k];
    if( q->pDerived || (q->pBuild && q->pBuild->pSub) || q->semi==Q_COUNT ) return 1;
  }
  return 0;
}

/* One walk of SQLite's plan (qpSqlitePlan): its loops costed, and what it
** searches and reads in an index's order. */
typedef struct PlanWalk {
  qcost c;                         /* the loops' costs */
  int known;                       /* every loop costed */
  char *zSearch;                   /* a search that decides (sqlite3_malloc'd), or NULL */
  char *zOrdered;                  /* an index whose order the rows come in, or NULL */
  const ga_table *pFirst;          /* the first loop's table, where it SCANs one of the plan's */
  int groupSorted;                 /* the query's groups are sorted (a temp B-tree for GROUP BY) */
  const ga_table *pFirstRead;      /* the first loop's table, where it is one of the plan's */
  int firstEq;                     /* ... the index's columns its SEARCH binds by = or IN */
  int firstAuto;                   /* ... by an automatic index */
  char *zFirstIndex;               /* ... the index it reads (sqlite3_malloc'd; NULL: the rowids) */
} PlanWalk;

/* The share of table t's rows that the conjuncts aConj[0..nConj) (over t
** alone, named zQual, their text s's) keep, measured by SQLite over a
** sample: 8 runs of 128 rows spread over its rowids (cost.c, 1a). Kept in
** keep by the sample's text (a table's reads plan one SELECT); 1 where it
** is not measured (a parameter or a subquery in them, an error). */
static double sampleShare(sqlite3 *db, qsqlkeep *keep, const ga_table *t, const char *zQual, const qselect *s,
                          qexpr *const *aConj, int nConj){
  const char *zDb = t->zDb ? t->zDb : "main";
  sqlite3_str *x = sqlite3_str_new(db);
  sqlite3_stmt *st = 0;
  char *zSql;
  double nAll = 0, nKept = 0, share = 1.0;
  int i, ok = nConj>0 && s->nParam==0;
  for(i=0; i<nConj && ok; i++){
    char *z = qpExprText(s, aConj[i]);
    ok = z && sqlite3_strlike("%select%", z, 0)!=0;
    sqlite3_str_appendf(x, "%s(%s)", i ? " AND " : "", z ? z : "");
    ga_free(z);
  }
  zSql = sqlite3_str_finish(x);
  if( !ok || zSql==0 ){
    ga_free(zSql);
    return 1.0;
  }
  /* run ?1 of 8 starts at the span's ?1/8 */
  x = sqlite3_str_new(db);
  sqlite3_str_appendf(x, "SELECT count(*), total(CASE WHEN %s THEN 1 ELSE 0 END) FROM \"%w\".\"%w\" AS \"%w\" WHERE "
                      "\"%w\".rowid IN (SELECT rowid FROM \"%w\".\"%w\" WHERE rowid>=(SELECT min(rowid) FROM \"%w\".\"%w\")"
                      " + ?1*((SELECT max(rowid) FROM \"%w\".\"%w\") - (SELECT min(rowid) FROM \"%w\".\"%w\"))/8 LIMIT 128)",
                      zSql, zDb, t->zTab, zQual, zQual, zDb, t->zTab, zDb, t->zTab, zDb, t->zTab, zDb, t->zTab);
  ga_free(zSql);
  if( (zSql = sqlite3_str_finish(x))==0 ) return 1.0;
  if( keep && keep->zShareKey && strcmp(keep->zShareKey, zSql)==0 ){
    ga_free(zSql);
    return keep->share;
  }
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK ){
    for(i=0; i<8; i++){
      sqlite3_bind_int(st, 1, i);
      if( sqlite3_step(st)!=SQLITE_ROW ){ nAll = 0; break; }
      nAll += sqlite3_column_double(st, 0);
      nKept += sqlite3_column_double(st, 1);
      sqlite3_reset(st);
    }
  }
  sqlite3_finalize(st);
  if( nAll>0 ) share = (nKept>0 ? nKept : 0.5)/nAll;
  if( keep && nAll>0 ){
    ga_free(keep->zShareKey);
    keep->zShareKey = zSql;
    keep->share = share;
  }else{
    ga_free(zSql);
  }
  return share;
}

/* The share of its table's rows that SQLite's first loop keeps (w's
** pFirst: the scan's table, or a joined one, its own conjuncts). */
static double firstShare(sqlite3 *db, qsqlkeep *keep, const qplan *pl, const PlanWalk *w){
  int k;
  if( w->pFirst==&pl->src.tab ){
    return sampleShare(db, keep, w->pFirst, pl->nJoin ? pl->zScanQual : (pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab),
                       pl->s, pl->aConj, pl->nConj);
  }
  for(k=0; k<pl->nJoin; k++){
    const qjoin *q = &pl->aJoin[k];
    if( w->pFirst==&q->src.tab && q->pBuild && !q->pDerived ){
      return sampleShare(db, keep, w->pFirst, q->zQual, q->pBuild->s, q->pBuild->aConj, q->pBuild->nConj);
    }
  }
  return 1.0;
}

/* Walk SQLite's plan st (reset after) into *w: each loop costed (cost.c),
** the rows leaving the first one scaled by share0 (the share its table's
** conjuncts keep: 1 where not counted). See qpSqlitePlan. */
static void planWalk(sqlite3 *db, qsqlkeep *keep, qplan *pl, sqlite3_stmt *st, const StatRows *pStat, double share0,
                     PlanWalk *w, char **pzWhy){
  const char *zSubName = pl->pSub && !pl->nJoin ? (pl->s->zAlias ? pl->s->zAlias : pl->s->zFrom) : 0;
  char zAnon[32];                  /* an unnamed FROM subquery: the name SQLite's plan gives it at
                                   ** its top, "(subquery-N)", once met */
  int rc, aSkip[64], nSkip = 0, aId[256], nId = 0, nNest = 0, semiRows = isSemiRows(pl), nLoop = 0;
  int idCompound = -1, aArmId[64], nArmId = 0;   /* a compound's arms' headings */
  PlanNest aNest[8];
  qcost c;
  memset(&c, 0, sizeof(c));
  memset(w, 0, sizeof(*w));
  w->known = 1;
  while( *pzWhy==0 && (rc = sqlite3_step(st))==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 3);
    int id = sqlite3_column_int(st, 0), parent = sqlite3_column_int(st, 1), k, corr, list, ordered;
    const qplan *own;
    qloop lp;
    int64_t nRows;
    if( z==0 ) continue;
    if( parent==0 && (strcmp(z, "USE TEMP B-TREE FOR GROUP BY")==0 || strcmp(z, "USE TEMP B-TREE FOR DISTINCT")==0) ){
      w->groupSorted = 1;
    }
    if( parent==0 && strncmp(z, "COMPOUND QUERY", 14)==0 ) idCompound = id;
    else if( parent==idCompound && nArmId<(int)(sizeof(aArmId)/sizeof(aArmId[0])) ) aArmId[nArmId++] = id;
    /* (a loop of rows the plan orders as SQLite's plan does: 9f) */
    for(k=0; k<nArmId && aArmId[k]!=parent; k++){}
    ordered = (parent==0 && pl->zJoinOrd) || (k<nArmId && k<pl->nArm && pl->aArm[k].zJoinOrd);
    /* an uncorrelated subquery's loops are its own: SQLite computes its constant once */
    for(k=0; k<nSkip && aSkip[k]!=parent; k++){}
    corr = strncmp(z, "CORRELATED ", 11)==0;
    list = strncmp(z, "LIST SUBQUERY", 13)==0;
    if( k<nSkip || strncmp(z, "SCALAR SUBQUERY", 15)==0 ){
      if( nSkip<(int)(sizeof(aSkip)/sizeof(aSkip[0])) ) aSkip[nSkip++] = id;
      continue;
    }
    /* the nests this row is outside of end */
    while( nNest>0 ){
      for(k=aNest[nNest-1].iFirst; k<nId && aId[k]!=parent; k++){}
      if( k<nId ) break;
      nId = aNest[--nNest].iFirst;
      c.outer = aNest[nNest].outer;
    }
    if( nNest>0 && nId<(int)(sizeof(aId)/sizeof(aId[0])) ) aId[nId++] = id;
    if( pl->pSub && !pl->nJoin && zSubName==0 && parent==0 && strlen(z)<40
     && (strncmp(z, "CO-ROUTINE (subquery-", 21)==0 || strncmp(z, "MATERIALIZE (subquery-", 22)==0) ){
      sqlite3_snprintf(sizeof(zAnon), zAnon, "%s", strchr(z, ' ') + 1);
      zSubName = zAnon;
    }
    if( corr || list || (zSubName && (strncmp(z, "CO-ROUTINE ", 11)==0 || strncmp(z, "MATERIALIZE ", 12)==0)
                         && sqlite3_stricmp(strchr(z, ' ') + 1, zSubName)==0) ){
      if( nNest==(int)(sizeof(aNest)/sizeof(aNest[0])) || nId==(int)(sizeof(aId)/sizeof(aId[0])) ){
        w->known = 0;
        continue;
      }
      if( nNest==0 ) aId[nId++] = id;
      aNest[nNest].iFirst = nId - 1;
      aNest[nNest].outer = c.outer;
      aNest[nNest].corr = corr;
      aNest[nNest++].pl = corr || list ? 0 : pl->pSub;
      if( !corr ) c.outer = 1.0;
      continue;
    }
    if( !q_loop_parse(z, &lp) ) continue;
    own = nNest==0 ? pl : aNest[nNest-1].pl;
    if( lp.automatic && collatedConst(own ? own : pl, &lp) ){
      *pzWhy = sqlite3_mprintf("SQLite's plan (%s): an automatic index for an equality with a constant by NOCASE "
                               "or RTRIM (SQLite may find fewer rows by it than its comparison matches)", z);
      break;
    }
    if( own==0 ){
      own = pl;
      if( (nRows = loopRows(db, keep, pl, &lp, pStat))<0 ) nRows = tableRows(db, keep, &lp);
    }else if( own==pl && zSubName && (int)strlen(zSubName)==lp.nName && sqlite3_strnicmp(zSubName, lp.zName, lp.nName)==0 ){
      continue;                              /* (the FROM subquery's rows, read alike by both; SQLite's
                                             ** SEARCH of them is max()'s or min()'s, no index) */
    }else{
      nRows = loopRows(db, keep, own, &lp, pStat);
    }
    if( nRows>=0 ) q_cost_add(&c, &lp, loopPer(db, keep, own, &lp, nRows), nRows);
    else if( parent==0 || own!=pl ) w->known = 0;   /* (an uncosted subquery's table: not the query's loops) */
    if( nNest==0 && nLoop++==0 ){
      /* (the first loop: where it SCANs a table of the plan, the share its conjuncts keep; what
      ** it reads, for the order of a join's groups) */
      if( !lp.search && own==pl ) w->pFirst = loopTable(pl, &lp);
      w->pFirstRead = own==pl ? loopTable(pl, &lp) : 0;
      w->firstEq = lp.search ? lp.nEq : 0;
      w->firstAuto = lp.automatic;
      if( lp.zIndex && !lp.automatic ) w->zFirstIndex = sqlite3_mprintf("%.*s", lp.nIndex, lp.zIndex);
      c.outer *= share0;
    }
    if( nNest>0 && aNest[nNest-1].pl==0 ){
      /* (a subquery's loops in WHERE: costed, a search by a user's index costs both; their order
      ** is not the rows') */
      if( corrNest(aNest, nNest) && w->zSearch==0 && lp.search && lp.zIndex && !lp.automatic ){
        w->zSearch = sqlite3_mprintf("%s", z);
      }
    }else if( pl->nJoin ){
      size_t nq = strlen(pl->zScanQual);
      int scanned = (size_t)lp.nName==nq && sqlite3_strnicmp(lp.zName, pl->zScanQual, (int)nq)==0;
      if( w->zSearch==0 && lp.search && lp.zIndex && !lp.automatic && scanned ) w->zSearch = sqlite3_mprintf("%s", z);
      if( semiRows && scanned && lp.zIndex && !lp.automatic && w->zOrdered==0 && !ordered ){
        w->zOrdered = sqlite3_mprintf("%.*s", lp.nIndex, lp.zIndex);
      }
    }else if( lp.search && w->zSearch==0 ){
      w->zSearch = sqlite3_mprintf("%s", z);
      if( lp.zIndex && !lp.automatic && !ordered ) w->zOrdered = sqlite3_mprintf("%.*s", lp.nIndex, lp.zIndex);
    }else if( !lp.search && lp.zIndex && w->zOrdered==0 && !ordered ){
      w->zOrdered = sqlite3_mprintf("%.*s", lp.nIndex, lp.zIndex);
    }
  }
  sqlite3_reset(st);
  w->c = c;
}

/* The table of pl whose column key e is (its COLLATE passed over): 0 the
** scanned one, k + 1 joined table k, -1 none (not a column); its column's
** index in that table into *pCol. */
static int keyTable(const qplan *pl, const qexpr *e, int *pCol){
  int k;
  while( e->op==E_COLLATE ) e = e->a;
  if( e->op!=E_COL ) return -1;
  if( e->iCol<Q_JCOL0 ){
    *pCol = pl->aiCol[e->iCol];
    return 0;
  }
  for(k=0; k<pl->nJoin; k++){
    const qjoin *q = &pl->aJoin[k];
    if( e->iCol>=Q_JCOL0 + q->iCol0 && e->iCol<Q_JCOL0 + q->iCol0 + q->nCol ){
      *pCol = q->aTabCol[e->iCol - Q_JCOL0 - q->iCol0];
      return k + 1;
    }
  }
  return -1;
}

/* Key e's column name where it is a column of table t of pl, else NULL. */
static const char *keyColumn(const qplan *pl, const qexpr *e, const ga_table *t){
  int c, k = keyTable(pl, e, &c);
  const ga_table *kt = k==0 ? &pl->src.tab : k>0 ? &pl->aJoin[k - 1].src.tab : 0;
  return kt && kt==t ? t->aCol[c].zName : 0;
}

/* Is key i one value in every group: its column equal to a constant by a
** conjunct of its table's own (o_pri = 'p1')? */
static int keyConst(const qplan *pl, int i){
  int c, j, k = keyTable(pl, pl->aKey[i], &c);
  const qplan *own = k==0 ? pl : k>0 ? pl->aJoin[k - 1].pBuild : 0;
  if( own==0 || own->pSub ) return 0;
  for(j=0; j<own->nConj; j++){
    const qexpr *x = own->aConj[j], *col = 0;
    if( x->op!=E_EQ && x->op!=E_IS ) continue;
    if( x->a->op==E_COL && x->b->op==E_LIT ) col = x->a;
    if( x->b->op==E_COL && x->a->op==E_LIT ) col = x->b;
    if( col && col->iCol<Q_JCOL0 && own->aiCol[col->iCol]==c ) return 1;
  }
  return 0;
}

/* Can a join's groups come in SQLite's order where its loops read them
** grouped (no temp B-tree for GROUP BY)? Its plan proved each group one
** value of what its first loop orders the rows by; keys of one value
** (keyConst) decide no order:
**   - that table's rowids (a SCAN, or a SEARCH of them: an IN's list), one
**     of the keys their alias: the groups by it, ascending; where it is not
**     the first key, pl->keyFirst says so (TPC-H Q18's o_orderkey among
**     c_name, c_custkey, o_orderkey, ...);
**   - an index of that table whose first columns (but those a SEARCH binds
**     that no key reads: one value) are the first keys in their order
**     (plain columns, the keys' collations, ascending), no other key one of
**     its columns (TPC-H Q3 by lineitem's key: l_orderkey, then o_orderdate
**     of its one order). GROUP BY t.b, t.a by an index on (a, b) is not.
** 0: neither (the read is SQLite's). */
static int joinGroupOrder(sqlite3 *db, qplan *pl, const PlanWalk *w){
  sqlite3_stmt *st = 0;
  const ga_table *t = w->pFirstRead;
  int i, m = 0, at, pos = 0, ok = 1, nConst = 0;
  int aAt[Q_MAXKEY];               /* key i's column's place among the index's ordering columns, or -1 */
  int aConst[Q_MAXKEY];            /* key i is one value (keyConst) */
  for(i=0; i<pl->nKey; i++) nConst += (aConst[i] = keyConst(pl, i));
  if( nConst==pl->nKey ) return 1;               /* (one group at most) */
  if( t==0 || w->firstAuto ) return 0;
  if( w->zFirstIndex==0 ){
    for(i=0; i<pl->nKey; i++){
      const qexpr *e;
      for(e=pl->aKey[i]; e->op==E_COLLATE; e=e->a){}
      if( !aConst[i] && keyColumn(pl, e, t) && e->noColl ) break;
    }
    if( i==pl->nKey ) return 0;
    pl->keyFirst = i ? i + 1 : 0;
    return 1;
  }
  if( sqlite3_prepare_v2(db, "SELECT name, coll, desc FROM pragma_index_xinfo(?1, ?2) WHERE key ORDER BY seqno", -1, &st,
                         0) ){
    sqlite3_finalize(st);
    return 0;
  }
  sqlite3_bind_text(st, 1, w->zFirstIndex, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, t->zDb ? t->zDb : "main", -1, SQLITE_STATIC);
  for(i=0; i<pl->nKey; i++) aAt[i] = -1;
  for(at=0; ok && sqlite3_step(st)==SQLITE_ROW; at++){
    const char *zCol = (const char*)sqlite3_column_text(st, 0), *zColl = (const char*)sqlite3_column_text(st, 1), *z;
    for(i=0; zCol && i<pl->nKey; i++){
      if( (z = keyColumn(pl, pl->aKey[i], t))!=0 && sqlite3_stricmp(z, zCol)==0 ) break;
    }
    if( zCol==0 ){ ok = 0; break; }
    if( i<pl->nKey && !aConst[i] ){
      aAt[i] = pos++;
      ok = zColl && pl->aKeyColl[i]==qpCollOf(pl->bin, zColl) && sqlite3_column_int(st, 2)==0;
    }else if( i==pl->nKey && at>=w->firstEq ){
      pos++;                                      /* (a column no key reads orders the rows) */
    }
  }
  sqlite3_finalize(st);
  /* the keys of more than one value: first those of the index's first ordering columns, in
  ** their order; then none of its columns */
  for(i=0; i<pl->nKey && (aConst[i] || aAt[i]==m); i++) m += !aConst[i];
  for(; ok && i<pl->nKey; i++) ok = aConst[i] || aAt[i]<0;
  return ok && m>0;
}

/* SQLite's plan for the SELECT (EXPLAIN QUERY PLAN, the parameters bound).
** Where it searches an index (one table) or searches the scan's table by
** an index of the user's (a join: the joined tables it searches by their
** keys, as it must), or a correlated subquery's table by one, the two are
** costed (cost.c): SQLite's path, with the
** estimate in the reason, where its plan costs less than the engine's read
** of every table whole; else the engine, the costs in the plan (explain).
** Where the engine's wins and kept columns would never serve its later
** reads (neverKept: each costs what the first does), the rows SQLite's
** first loop keeps are counted (the share its conditions keep of a
** sample: cost.c, 1a) and the two costed again. (Elsewhere a read over
** kept columns costs a thousandth of SQLite's plan, which only the first
** read could win.)
** Its nests: the FROM subquery's co-routine (or materialization) is costed
** by the subquery's plan, from one row, its scan by the outer query
** costing both the same; a correlated subquery runs once for each row
** reaching it, its tables named as in main (the engine reads each once,
** decorrelated); IN's uncorrelated subquery runs once (so does the
** engine's); a scalar one is a constant, computed alike by both.
** Where it reads or searches an index of one table, rows come in that
** index's order: fine where the answer does not depend on it (orderFree),
** or where the plan sorts them so (9f), else SQLite's path.
** tryEngine: where SQLite's plan won by cost alone and the engine's cost is
** within Q_COST_CLOSE times its own (cost.c, 3), the plan is the engine's,
** the reason in pl->zCostWhy for the caller to decide by. */
int qpSqlitePlan(sqlite3 *db, ga_conn *conn, qplan *pl, sqlite3_value **apParam, int nParam, qsqlkeep *keep,
                 int tryEngine, char **pzWhy){
  sqlite3_stmt *st = 0;
  char *zClose = 0;                /* SQLite's plan won by cost, closely (tryEngine): why */
  int rc, i, pairs = 0;            /* pairs: a join by no equality, its pairs costed */
  StatRows stat;
  PlanWalk w;
  double share;
  statRowsRead(db, conn, keep, &stat);
  if( (rc = qpExplainPrepared(db, conn, keep, pl->s->zExplain ? pl->s->zExplain : pl->s->zSql, apParam, nParam,
                              &st))!=SQLITE_OK ){
    statRowsFree(&stat);
    return rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ? rc : SQLITE_OK;
  }
  planWalk(db, keep, pl, st, &stat, 1.0, &w, pzWhy);
  if( *pzWhy==0 && w.zSearch && w.known && w.c.sqlite>=w.c.engine && w.pFirst && neverKept(pl)
   && (share = firstShare(db, keep, pl, &w))<1.0 ){
    ga_free(w.zSearch);
    ga_free(w.zOrdered);
    ga_free(w.zFirstIndex);
    planWalk(db, keep, pl, st, &stat, share, &w, pzWhy);
  }
  qpKeptDone(keep, st);
  for(i=0; i<pl->nJoin; i++){
    const qjoin *q = &pl->aJoin[i];
    int64_t nIn;
    /* a correlated subquery by no equality, or a cross product with a condition over its
    ** pairs: the engine pairs each row with every row of its table (join.c, 2c), SQLite's
    ** plan may search an index (a range by the rows before it). (A cross product whose
    ** conditions are each table's own: its pairs are its rows, SQLite's too.) */
    if( q->nEq || (!q->semi && !postReads(pl, q)) ) continue;
    nIn = joinRows(db, keep, q, &stat);
    pairs = 1;
    w.c.engine += (double)(pl->nScanEst>0 ? pl->nScanEst : 1)*(double)(nIn>0 ? nIn : 1);
    if( w.known && w.c.sqlite<w.c.engine && *pzWhy==0 ){
      *pzWhy = q->semi ? sqlite3_mprintf("%s (a correlated subquery by no equality with the outer query): SQLite's plan "
                                         "costs about %.3g, the engine's pairs of rows %.3g",
                                         q->semi==Q_ANTI ? "NOT EXISTS" : "EXISTS", w.c.sqlite, w.c.engine)
                       : sqlite3_mprintf("a join of %s by no equality, a condition over the pairs: SQLite's plan "
                                         "costs about %.3g, the engine's pairs of rows %.3g", q->zQual, w.c.sqlite,
                                         w.c.engine);
    }
  }
  if( *pzWhy==0 && w.zSearch && (!w.known || w.c.sqlite<w.c.engine) ){
    char *z = w.known ? sqlite3_mprintf("SQLite's plan searches (%s): about %.0f rows in %.0f searches, cost %.3g, "
                                        "against %.3g for the engine's read of every table whole", w.zSearch, w.c.nVisit,
                                        w.c.nSearch, w.c.sqlite, w.c.engine)
                      : sqlite3_mprintf("SQLite's plan searches (%s): faster than reading the whole table", w.zSearch);
    /* (a close choice the caller may try the engine against: decided by what else says SQLite's) */
    if( tryEngine && w.known && w.c.engine<=Q_COST_CLOSE*w.c.sqlite && z ){
      zClose = z;
      pl->costSqlite = w.c.sqlite;
      pl->costEngine = w.c.engine;
    }else{
      *pzWhy = z;
    }
  }
  if( *pzWhy ){
    /* (costed: SQLite's) */
  }else if( w.zOrdered && (!pl->nJoin || isSemiRows(pl)) && !anyOrder(pl)
            && (pl->nArm || pl->pSub || !orderFree(db, pl, w.zOrdered)) ){
    *pzWhy = sqlite3_mprintf("an answer that depends on the order SQLite reads rows in (by its index %s), which the "
                             "engine does not follow", w.zOrdered);
  }else if( !zClose && (w.zSearch || pairs) ){
    pl->costSqlite = w.c.sqlite;
    pl->costEngine = w.c.engine;
  }
  if( *pzWhy==0 && pl->aKeyDesc && !pl->nArm && !w.groupSorted ){
    /* SQLite gives the GROUP BY ORDER BY's directions only to sort the groups (exec.c, 5);
    ** where its loops read them in an index's order instead (TPC-H Q11 by partsupp's key)
    ** they come ascending, as ORDER BY's ties do then */
    for(i=0; i<pl->nKey; i++) pl->aKeyDesc[i] = 0;
  }
  if( *pzWhy==0 && pl->nJoin && pl->grouped && pl->nKey && !pl->nArm && !w.groupSorted && !anyOrder(pl)
   && !joinGroupOrder(db, pl, &w) ){
    *pzWhy = sqlite3_mprintf("a join's groups in the order SQLite's loops read them (no temp B-tree for GROUP BY), "
                             "which the engine's does not follow");
  }
  if( zClose && *pzWhy ){
    ga_free(*pzWhy);                        /* (the cost's reason is the first) */
    *pzWhy = zClose;
  }else if( zClose ){
    pl->zCostWhy = zClose;
  }
  ga_free(w.zSearch);
  ga_free(w.zOrdered);
  ga_free(w.zFirstIndex);
  statRowsFree(&stat);
  return SQLITE_OK;
}
