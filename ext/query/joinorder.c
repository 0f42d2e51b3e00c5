/*
** The order SQLite's plan gives a join's rows (plan.c, 9f): where a SELECT
** of a join's rows has no ORDER BY, SQLite returns them in its nested
** loops' order, and so must the engine. That order is read from SQLite's
** own plan and handed to the engine as sort terms.
**
**   1. SQLite's plan is its EXPLAIN QUERY PLAN; its loops are the lines of
**      the top level (parent 0) that SCAN or SEARCH a table, outer first.
**      Lines beside them that decide no order are passed over: a bloom
**      filter, and the subtrees of subqueries (a correlated subquery's
**      loops run inside a row's; IN's and scalar subqueries' are values).
**      Anything else at the top level (a temp b-tree, a MULTI-INDEX OR, a
**      co-routine) is an order the engine does not follow: the read is
**      SQLite's.
**   1a. A compound's arm: its loops are the children of its heading, the
**      arm-th child of the top level's COMPOUND QUERY.
**   2. A loop visits its table's rows that a row of the loops before it
**      meets in the order of what it reads: a SCAN of the table or a SEARCH
**      by the rowid, in rowid order; a SCAN or SEARCH of an index, in that
**      index's order (its columns, each ascending or descending by its
**      collation, then the rowid; an IN's values are taken in that order
**      too, wherecode.c reversing them for a descending column). So the
**      join's rows come ordered by each loop's terms in turn: the index's
**      columns where it reads one, then the table's rowid, for which the
**      engine's term is the row's position in its table's scan (positions
**      rise with rowid order: colsrc.h). No two rows tie on them all.
**   2a. An automatic index (where.c's constructAutomaticIndex) holds the
**      columns its equalities bind, then the others of the table that the
**      statement names (its colUsed: every column named anywhere, not the
**      rowid alias), each by BINARY in the table's order, then the rowid.
**      A search of it meets rows equal on the first, so they come by the
**      others: those are its terms. Where the columns named are not known
**      for sure (plan_order.c's usedCols: a merged subquery's, a table of 64
**      columns or more, one with a generated column or an INTEGER PRIMARY
**      KEY DESC) the read is SQLite's.
**   3. A table of the join that no loop reads is one SQLite left out (a
**      LEFT JOIN that finds at most one row): it decides nothing, and its
**      position is a last term all the same.
*/
#include <string.h>
#include "query.h"
#include "cost.h"

/* z's copy in s's arena, or NULL. */
static char *arenaDup(qselect *s, const char *z){
  char *x = q_alloc(s, (int)strlen(z) + 1);
  if( x ) memcpy(x, z, strlen(z));
  return x;
}

/* A term of table iTab appended to a[0..*pn) (its column NULL: the rowid
** order), or NULL with *pzWhy set where nMax are there already. */
static qordterm *addTerm(qordterm *a, int *pn, int nMax, int iTab, char **pzWhy){
  qordterm *t;
  if( *pn==nMax ){
    *pzWhy = sqlite3_mprintf("more than %d terms", nMax);
    return 0;
  }
  t = &a[(*pn)++];
  memset(t, 0, sizeof(*t));
  t->iTab = iTab;
  return t;
}

/* The columns of table t (fewer than 64) that an automatic index's
** equalities bind (EXPLAIN QUERY PLAN's line z, "... AUTOMATIC [PARTIAL]
** COVERING INDEX (x=? AND y=?)") into *pKey: 1, or 0 where one is not t's. */
static int autoKey(const char *z, const ga_table *t, uint64_t *pKey){
  const char *p = strchr(z, '(');
  int c;
  *pKey = 0;
  if( p==0 || t->nCol>63 ) return 0;
  for(p++; *p && *p!=')'; ){
    const char *e = strstr(p, "=?");
    if( e==0 ) break;
    for(c=0; c<t->nCol && !((int)strlen(t->aCol[c].zName)==(int)(e - p) && memcmp(t->aCol[c].zName, p, (size_t)(e - p))==0); c++){}
    if( c==t->nCol ) return 0;
    *pKey |= (uint64_t)1<<c;
    p = e + 2;
    if( strncmp(p, " AND ", 5)==0 ) p += 5;
  }
  return *pKey!=0;
}

/* 2a: the terms of an automatic index of table t (EXPLAIN QUERY PLAN's
** line z), the columns used (aUsed's bits; NULL: not known) beside its
** equalities'. */
static int autoTerms(qselect *s, const char *z, const ga_table *t, const uint64_t *pUsed, int iTab, qordterm *a,
                     int *pn, int nMax, char **pzWhy){
  uint64_t key = 0;
  int c;
  if( pUsed==0 || !autoKey(z, t, &key) ){
    *pzWhy = sqlite3_mprintf("SQLite's plan (%s), whose index holds columns the engine does not know for sure", z);
    return SQLITE_OK;
  }
  for(c=0; c<t->nCol; c++){
    qordterm *x;
    if( !((*pUsed & ~key)>>c & 1) ) continue;
    if( (x = addTerm(a, pn, nMax, iTab, pzWhy))==0 ) return SQLITE_OK;
    if( (x->zCol = arenaDup(s, t->aCol[c].zName))==0 || (x->zColl = arenaDup(s, "BINARY"))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* The key columns of index zIdx in schema zDb: into a[*pn...], names in
** s's arena; where one is an expression or the rowid, *pzWhy set. */
static int indexTerms(sqlite3 *db, qselect *s, const char *zDb, const char *zIdx, int iTab, qordterm *a, int *pn,
                      int nMax, char **pzWhy){
  sqlite3_stmt *st = 0;
  int rc, n0 = *pn;
  rc = sqlite3_prepare_v2(db, "SELECT cid, name, \"desc\", coll FROM pragma_index_xinfo(?1, ?2) WHERE key ORDER BY seqno",
                          -1, &st, 0);
  if( rc ) return rc;
  sqlite3_bind_text(st, 1, zIdx, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, zDb, -1, SQLITE_STATIC);
  while( *pzWhy==0 && (rc = sqlite3_step(st))==SQLITE_ROW ){
    const char *zName = (const char*)sqlite3_column_text(st, 1), *zColl = (const char*)sqlite3_column_text(st, 3);
    qordterm *t;
    if( sqlite3_column_int(st, 0)<0 || zName==0 || zColl==0 ){
      *pzWhy = sqlite3_mprintf("an index on an expression or the rowid (%s)", zIdx);
      break;
    }
    if( (t = addTerm(a, pn, nMax, iTab, pzWhy))==0 ) break;
    t->desc = sqlite3_column_int(st, 2);
    if( (t->zCol = arenaDup(s, zName))==0 || (t->zColl = arenaDup(s, zColl))==0 ){
      rc = SQLITE_NOMEM;
      break;
    }
  }
  sqlite3_finalize(st);
  if( rc==SQLITE_DONE && *pn==n0 && *pzWhy==0 ) *pzWhy = sqlite3_mprintf("the index %s, which is not the schema's", zIdx);
  return rc==SQLITE_DONE || rc==SQLITE_ROW ? SQLITE_OK : rc;
}

int q_join_order(sqlite3 *db, sqlite3_stmt *pPlan, int iArm, qselect *s, int nTab, const char *const *azQual,
                 const ga_table *const *apTab, const uint64_t *aUsed, qordterm *a, int *pnTerm, int nMax,
                 char **pzOrder, char **pzWhy){
  int rc, i, aSeen[Q_MAXTAB], nLoop = 0;
  int idCompound = -1, nArm = 0, idLevel = iArm<0 ? 0 : -1;   /* (the loops' parent: 1, 1a) */
  sqlite3_str *pDesc = sqlite3_str_new(db);
  *pnTerm = 0;
  *pzWhy = 0;
  *pzOrder = 0;
  memset(aSeen, 0, sizeof(aSeen));
  while( *pzWhy==0 && (rc = sqlite3_step(pPlan))==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pPlan, 3);
    char *zIdx = 0;
    qloop lp;
    int id = sqlite3_column_int(pPlan, 0), parent = sqlite3_column_int(pPlan, 1);
    if( z==0 ) continue;
    if( iArm>=0 && parent==0 && strncmp(z, "COMPOUND QUERY", 14)==0 ){ idCompound = id; continue; }
    if( iArm>=0 && parent==idCompound && idCompound>=0 && nArm++==iArm ){ idLevel = id; continue; }
    if( idLevel<0 || parent!=idLevel ) continue;                      /* (a subquery's subtree) */
    if( strncmp(z, "BLOOM FILTER ", 13)==0 || strncmp(z, "CORRELATED ", 11)==0 || strncmp(z, "SCALAR SUBQUERY", 15)==0
     || strncmp(z, "LIST SUBQUERY", 13)==0 ){
      continue;
    }
    if( !q_loop_parse(z, &lp) ){
      *pzWhy = sqlite3_mprintf("SQLite's plan (%s)", z);
      break;
    }
    for(i=0; i<nTab && !((int)strlen(azQual[i])==lp.nName && sqlite3_strnicmp(azQual[i], lp.zName, lp.nName)==0); i++){}
    if( i==nTab || aSeen[i] ){
      *pzWhy = sqlite3_mprintf("SQLite's plan (%s)", z);
      break;
    }
    aSeen[i] = 1;
    sqlite3_str_appendf(pDesc, "%s%s", nLoop++ ? ", " : "", azQual[i]);
    if( lp.automatic ){
      sqlite3_str_appendall(pDesc, " (an automatic index)");
      if( (rc = autoTerms(s, z, apTab[i], aUsed ? &aUsed[i] : 0, i, a, pnTerm, nMax, pzWhy))!=SQLITE_OK ) break;
    }else if( lp.zIndex ){
      if( (zIdx = sqlite3_mprintf("%.*s", lp.nIndex, lp.zIndex))==0 ){ rc = SQLITE_NOMEM; break; }
      sqlite3_str_appendf(pDesc, " (index %s)", zIdx);
      rc = indexTerms(db, s, apTab[i]->zDb ? apTab[i]->zDb : "main", zIdx, i, a, pnTerm, nMax, pzWhy);
      ga_free(zIdx);
      if( rc ) break;
    }
    if( *pzWhy==0 ) addTerm(a, pnTerm, nMax, i, pzWhy);     /* (the rowid's order) */
  }
  sqlite3_reset(pPlan);
  if( rc==SQLITE_DONE || rc==SQLITE_ROW ) rc = SQLITE_OK;
  if( rc==SQLITE_OK && *pzWhy==0 && idLevel<0 ) *pzWhy = sqlite3_mprintf("SQLite's plan (no arm %d)", iArm + 1);
  for(i=0; i<nTab && rc==SQLITE_OK && *pzWhy==0; i++){
    if( !aSeen[i] ) addTerm(a, pnTerm, nMax, i, pzWhy);             /* (3) */
  }
  if( rc==SQLITE_OK ) rc = sqlite3_str_errcode(pDesc);
  *pzOrder = sqlite3_str_finish(pDesc);
  if( rc==SQLITE_OK && *pzOrder==0 && (*pzOrder = sqlite3_mprintf("%s", ""))==0 ) rc = SQLITE_NOMEM;
  if( rc ){
    ga_free(*pzWhy);
    ga_free(*pzOrder);
    *pzWhy = *pzOrder = 0;
  }
  return rc;
}
