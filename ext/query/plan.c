/*
** gpu_query's planner: the parsed SELECT bound to its table as it is now,
** with SQLite's static rules applied once, so that evaluation (eval.c)
** only applies them.
**
**   1. Names: a column of the table (ignoring ASCII case; qualified by the
**      table's name or alias), else a result's alias (as SQLite allows in
**      WHERE, GROUP BY, HAVING; ORDER BY tries aliases first), else TRUE or
**      FALSE. GROUP BY and ORDER BY take result numbers.
**   2. Affinity and collation of each node, as sqlite3ExprAffinity and
**      sqlite3ExprCollSeq give them: a column's own, CAST's type's, COLLATE's
**      (which marks every node above it, as EP_Collate does); comparisons
**      take the affinity comparisonAffinity gives and the collation of
**      sqlite3BinaryCompareCollSeq. Collations other than BINARY, NOCASE and
**      RTRIM are not covered. In a UTF-16 database BINARY orders TEXT by
**      its UTF-16 bytes (C_BIN16LE, C_BIN16BE: the plan's bin); NOCASE and
**      RTRIM compare UTF-8 there too (text.h).
**   3. Constants (no column, no aggregate) are computed by SQLite once per
**      run, parameters bound: their values are SQLite's by construction
**      (a subquery's sums as gpu_query's, correctly rounded: vtab.c, 2). A
**      literal's sign is part of it (-9223372036854775808 is an INTEGER).
**   3a. x IN (SELECT ...), its SELECT referring to no outer column: run
**      once per run, on the engine where it covers it (its own plan, as
**      q_plan's), its values a constant list compared as SQLite compares
**      with its subquery's index: x's and the result's comparison affinity
**      and collation; no row makes it FALSE even for NULL.
**   3b. Its SELECT's rows are a set: one of rows alone, its result a
**      column whose equal values are alike, is grouped by it (plan_set.c).
**   4. What the engine does not compute itself (LIKE, CAST, ||, a function
**      other than abs, coalesce, ifnull, nullif, iif, min and max of
**      several) becomes E_SQL when it has inputs that are not constant: a
**      template of it with each operand a parameter, which SQLite computes
**      once per distinct combination of the inputs (eval.c). A
**      non-deterministic function is not covered. Unary + is its
**      operand's value and collation without its affinity.
**   5. Grouped queries: the results, HAVING and ORDER BY are over the keys
**      (a subtree equal to a GROUP BY term, as sqlite3ExprCompare finds),
**      the aggregates and bare columns: a column outside both, whose value
**      SQLite takes from the row that shows the group (its first row, or
**      the last row the last min() or max() took: exec.c, 3).
**   6. A compound: each arm planned alone (without the compound's ORDER BY
**      and LIMIT); a column's collation is the first arm's that has one
**      (multiSelectCollSeq); ORDER BY terms name result columns (a number,
**      an arm's alias or result as written, the first arm first), and where
**      the last operator dedups, SQLite's merge orders by every column
**      after them; without ORDER BY, an arm whose rows go into SQLite's
**      index of a UNION, INTERSECT or EXCEPT loses its DISTINCT
**      (IgnorableDistinct).
**   7. FROM a subquery (or a WITH table): planned first; its results are
**      the table's columns (names, affinities, collations: qpFromSub).
**      One that counts a LEFT JOIN's rows for each row of its table is
**      that table joined with the other's rows grouped first
**      (groupjoin.c), and one that selects rows is merged (flatten.c).
**   8. SQLite's own plan decides too (EXPLAIN QUERY PLAN, the parameters
**      bound): where it searches an index or the rowids, the engine's scan
**      of the whole table would be slower, and where it reads a whole index
**      its rows come in that index's order, which the answer may depend
**      on (ties, shown rows, LIMIT): SQLite's path, with the reason. A
**      join: only where it searches the scan's table by an index of the
**      user's (the joined tables it searches by their keys, as it must).
**   9. A join (FROM of up to Q_MAXTAB rowid tables: commas, [INNER],
**      CROSS, NATURAL and LEFT joins, ON, USING): the scan reads the table
**      with the most rows (largest; with a LEFT JOIN, FROM's first, the
**      order FROM's), and the others are joined to its rows in
**      turn, each the first in FROM that an equality joins to those before
**      it (join.c), else FROM's next, not a LEFT JOIN: a cross product, each
**      row meeting every row its table keeps (SQLite's plan costed against
**      those pairs where a condition over them decides: qpSqlitePlan). The
**      conjuncts of WHERE and ON sort themselves: over the
**      scan's table alone (or none), filters before the joins; over one
**      joined table alone, its build's WHERE (a plan of its own: SELECT the
**      columns the query reads of it FROM it WHERE them); an equality of an
**      expression over a joined table with one over the tables before it,
**      what joins it (its affinity and collation as the comparison's:
**      exec.c, 12); the rest, filters over the joined rows. A LEFT JOIN's
**      ON only ever decides matches: its conjuncts over its table alone go
**      to its build, its equalities join it, and a WHERE conjunct over it
**      is a filter over the joined rows (its NULLs included). Covered
**      only: aggregates or GROUP BY (a join's rows come in SQLite's join
**      order), every table joined by an equality (no cross product), a
**      LEFT JOIN's ON of equalities and conjuncts over its table alone, no
**      bare column, gpu_argmin or gpu_argmax (their rows are the join
**      order's), no filter over the joined rows that can fail (abs(), a
**      function other than the builtins that never raise an error: SQLite
**      may meet it on rows the equalities would drop, a WHERE's terms
**      being tested before an ON's; fallible); an unqualified name is the first table's in FROM that has
**      it (a USING column: the left one); SELECT * shows a USING or NATURAL
**      column once. The plan is strict (exec.c, 12). The rows of IN's
**      subquery (3a) are a set: their order decides nothing.
**   9b. A table after FROM's first may be a subquery or a WITH table:
**      planned as 7 (not merged), its results its columns; it is never
**      the scan's table (its rows are not known before it runs); its build
**      reads its run's rows (join.c, 1c); kept columns do not serve it.
**   9c. A comparison with a correlated aggregate (decorrelate.c) is one
**      with a joined subquery of that aggregate grouped by the correlation
**      (9b): its plan strict (exec.c, 12: a group of values that compare
**      equal but differ is SQLite's), its build's keys one a row (join.c,
**      1d: two groups that the equality takes as one are SQLite's), its
**      value without a collation.
**   9d. Rows of a join without aggregates come in SQLite's join order,
**      unless ORDER BY decides it alone: a term is the scanned table's
**      INTEGER PRIMARY KEY and each table joined to it finds at most one
**      row for a row (join.c, 1d); else, where no two rows that differ tie
**      on every ORDER BY term (finish.c checks them all, tieBail: else the
**      run is SQLite's). Not DISTINCT's rows (which of equal rows stays).
**   9e. A scalar subquery of the result list, of a query without
**      aggregates, GROUP BY or DISTINCT over one table, that is a correlated
**      SELECT count(*) FROM one table [WHERE ...] is a count join of that
**      table (join.c, 2d): its WHERE as 9a's (equalities join, conditions
**      over both decide which matches count, by no equality every row a
**      match; a condition on the outer query alone stays SQLite's: it
**      would make the count 0, not drop the row); the node reads the
**      count, a value without affinity (Q_COUNT_COL). Kept columns do not
**      serve it.
**   9f. Rows of a join without aggregates, DISTINCT or ORDER BY come in
**      SQLite's join order: its plan's loops, outer first, each reading
**      its rows in an index's order or the rowid's (joinorder.c), made the
**      sort terms (for the rowid, the rows' positions in their tables:
**      join.c gathers them). A plan whose order the engine does not follow
**      (an automatic index, a MULTI-INDEX OR, a subquery in FROM) is
**      SQLite's to run.
**   9a. A conjunct of WHERE that is EXISTS, NOT EXISTS or x IN (SELECT ...)
**      over a subquery that refers to the outer query (SQLite cannot
**      prepare it alone) is a join of its table, after FROM's: a semi join
**      (a row stays once where it has a match) or an anti join (NOT
**      EXISTS: where it has none). Its WHERE's names are its table's first,
**      then the outer query's (qpQualify); its conjuncts over its table
**      alone, or constant, are its build's; its equalities with the outer
**      query join it (IN's x = its result is one more); a conjunct over
**      the outer query alone is a WHERE conjunct of EXISTS and IN; its
**      other conditions over its table and the outer query's decide which
**      matches count (join.c, 2c: TPC-H Q21's l2.l_suppkey <>
**      l1.l_suppkey). Covered only: one rowid table, no aggregate, GROUP BY
**      or LIMIT (EXISTS's LIMIT of a positive integer decides nothing), no
**      condition that can fail beside its equalities (which rows SQLite
**      meets it on is its plan's), a conjunct of NOT EXISTS over the outer
**      query alone, or NOT IN (whose NULL rule is no join's). By no
**      equality, it comes after FROM's tables, each row's matches every row
**      of its table (join.c, 2c); those pairs are costed against SQLite's
**      plan (qpSqlitePlan), which may search an index instead.
*/
#include "planint.h"

/* Why the engine does not cover the query; the first reason stays. */
int qpWhy(Bind *b, const char *zFmt, ...){
  if( b->zWhy==0 && b->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    b->zWhy = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
    if( b->zWhy==0 ) b->rc = SQLITE_NOMEM;
  }
  return 0;
}

void qpConjuncts(qplan *pl, qexpr *e, Bind *b){
  if( e==0 ) return;
  if( e->op==E_AND ){
    qpConjuncts(pl, e->a, b);
    qpConjuncts(pl, e->b, b);
    return;
  }
  if( pl->nConj%16==0 ){
    qexpr **a = q_alloc(b->s, (int)sizeof(qexpr*)*(pl->nConj + 16));
    if( a==0 ){ b->rc = SQLITE_NOMEM; return; }
    if( pl->nConj ) memcpy(a, pl->aConj, sizeof(qexpr*)*(size_t)pl->nConj);
    pl->aConj = a;
  }
  pl->aConj[pl->nConj++] = e;
}

/* The scan's columns e reads, marked in aRead. */
static void readsCols(qexpr *e, unsigned char *aRead){
  if( e==0 ) return;
  if( e->op==E_COL && e->iCol>=0 && e->iCol<Q_JCOL0 ) aRead[e->iCol] = 1;
  EACH_CHILD(e, pp, readsCols(*pp, aRead));
}

static void slots(qplan *pl, qexpr *e){
  if( e==0 || e->slot>=0 ) return;
  EACH_CHILD(e, pp, slots(pl, *pp));
  e->slot = pl->nSlot++;
}

/* Room for n ORDER BY terms' directions, NULLS and collations. 0: out of
** memory. */
int qpSortTerms(Bind *b, int n){
  qplan *pl = b->pl;
  if( (pl->aSort = q_alloc(b->s, (int)sizeof(qexpr*)*n))==0
   || (pl->aSortDesc = q_alloc(b->s, (int)sizeof(int)*3*n))==0 ) return 0;
  pl->aSortNulls = pl->aSortDesc + n;
  pl->aSortColl = pl->aSortNulls + n;
  return 1;
}

/* The groups' order: key k descending where ORDER BY's term k is (SQLite
** gives the GROUP BY the ORDER BY's directions where they have as many
** terms: exec.c, 5). */
void qpKeyOrder(Bind *b, const int *aDesc){
  qplan *pl = b->pl;
  int k;
  if( (pl->aKeyDesc = q_alloc(b->s, (int)sizeof(int)*Q_MAXKEY))==0 ){ b->rc = SQLITE_NOMEM; return; }
  for(k=0; k<pl->nKey; k++) pl->aKeyDesc[k] = aDesc[k];
}

/* LIMIT and OFFSET: constants, folded. */
/* A LIMIT's or OFFSET's value as SQLite's OP_MustBeInt takes it: a REAL
** that is an integer within int64's range (sqlite3VdbeIntegerAffinity:
** not its least or greatest value), or TEXT that is spaces, a sign, digits
** and spaces (applyNumericAffinity) and fits int64, becomes that INTEGER.
** Any other value stays: SQLite reports it ("datatype mismatch"), or reads
** a form left to it (TEXT '1e3'), and the run goes through SQLite. */
static void mustBeInt(qexpr *e){
  if( e==0 || e->op!=E_LIT ) return;
  if( e->t==SQLITE_FLOAT ){
    double d;
    memcpy(&d, &e->i, 8);
    if( d>-9223372036854775808.0 && d<9223372036854775807.0 && (double)(int64_t)d==d ){
      e->t = SQLITE_INTEGER;
      e->i = (int64_t)d;
    }
  }else if( e->t==SQLITE_TEXT ){
    const char *z = e->z;
    int n = e->n, i = 0, neg = 0, nd = 0;
    uint64_t u = 0;
    while( i<n && (z[i]==' ' || (z[i]>='\t' && z[i]<='\r')) ) i++;
    if( i<n && (z[i]=='-' || z[i]=='+') ) neg = z[i++]=='-';
    for(; i<n && z[i]>='0' && z[i]<='9'; i++, nd++){
      if( u>(UINT64_MAX - 9)/10 ) return;
      u = u*10 + (uint64_t)(z[i] - '0');
    }
    while( i<n && (z[i]==' ' || (z[i]>='\t' && z[i]<='\r')) ) i++;
    if( nd==0 || i<n || u>(neg ? (uint64_t)1<<63 : ((uint64_t)1<<63) - 1) ) return;
    e->t = SQLITE_INTEGER;
    e->i = neg ? (int64_t)(0 - u) : (int64_t)u;
    e->z = 0;
    e->n = 0;
  }
}

void qpLimits(Bind *b){
  qselect *s = b->s;
  if( s->pLimit && !qpStopped(b) ){
    if( !qpIsConst(s->pLimit) ) qpWhy(b, "a LIMIT that is not constant");
    else if( qpBindTop(b, &s->pLimit, CTX_ROW) ) mustBeInt(s->pLimit);
  }
  if( s->pOffset && s->pOffset!=s->pLimit && !qpStopped(b) ){
    if( !qpIsConst(s->pOffset) ) qpWhy(b, "an OFFSET that is not constant");
    else if( qpBindTop(b, &s->pOffset, CTX_ROW) ) mustBeInt(s->pOffset);
  }
}

/* A GROUP BY or ORDER BY term that names a result: its index, else -1. */
static int resultRef(Bind *b, qexpr *e, int isOrder, int *pColl){
  qselect *s = b->s;
  int k;
  /* SQLite looks through COLLATE (whose collation the term keeps) and
  ** parentheses */
  *pColl = -1;
  while( e->op==E_COLLATE && !e->synth ){
    if( *pColl<0 && (*pColl = qpCollOf(b->pl->bin, e->zName))<0 ){ qpWhy(b, "COLLATE %s", e->zName); return -2; }
    e = e->a;
  }
  if( isOrder && e->op==E_COL && e->zQual==0 && (k = qpAliasIndex(s, e->zName))>=0 ) return k;
  if( e->op==E_LIT && e->t==0 && e->end>e->at ){
    /* an integer literal term is a result's number */
    const char *z = s->zSql + e->at;
    int n = e->end - e->at, i;
    while( n>0 && (*z=='(' || *z==' ') ){ z++; n--; }
    while( n>0 && (z[n-1]==')' || z[n-1]==' ') ) n--;
    for(i=0; i<n && z[i]>='0' && z[i]<='9'; i++){}
    if( i==n && n>0 && n<9 ){
      k = atoi(z);
      if( k<1 || k>s->nRes ){ qpWhy(b, "a term number out of range"); return -2; }
      return k - 1;
    }
  }
  return -1;
}

/* A plan of its own (a subquery's, a build's) freed (NULL: none). */
void qpPlanFree(qplan *sp){
  if( sp ) q_plan_free(sp);
  ga_free(sp);
}

/* q_plan of one SELECT core (isArm: a compound's arm, 1 + its place, whose
** ORDER BY and LIMIT are not its own). */
int qpPlanCore(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
               const qpush *aPush, int nPush, qplan *pl, char **pzWhy, int isArm){
  Bind b;
  JSort js;
  qexpr **aLocal[Q_MAXTAB];        /* a join: each joined table's own conjuncts (unbound) */
  int nLocal[Q_MAXTAB];
  char *zErr = 0;                  /* the FROM table not resolved: why */
  int i, rc, nOrder = isArm ? 0 : s->nOrder;
  memset(pl, 0, sizeof(*pl));
  memset(&js, 0, sizeof(js));
  memset(&b, 0, sizeof(b));
  *pzWhy = 0;
  pl->s = s;
  pl->bin = qpBinaryOf(db, vt);
  pl->isArm = isArm;
  pl->distinct = s->distinct;
  if( s->zWhy ){
    *pzWhy = sqlite3_mprintf("%s", s->zWhy);
    return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
  }
  if( s->pSub && !s->pSub->pPlanned && (rc = qpGroupJoin(vt, db, s))<0 ) return -rc;   /* a LEFT JOIN's counts
                                                                                       ** (groupjoin.c) */
  if( s->pSub && !s->pSub->pPlanned && (rc = q_flatten(s))<0 ) return -rc;   /* merged where it selects rows
                                                                               ** (flatten.c) */
  if( s->pSub ){                    /* FROM a subquery: its rows (requirement 7) */
    if( (rc = qpFromSub(vt, db, keep, s, apParam, nParam, pl, pzWhy))!=SQLITE_OK || *pzWhy ) return rc;
    goto bind;
  }
  if( s->zFrom==0 ) goto bind;      /* no table: one row of no columns */
  rc = ga_source_resolve_on(db, vt ? ((ga_vtab*)vt)->conn : 0, "gpu_query", s->zFrom, &pl->src, &zErr);
  if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ){
    ga_free(zErr);
    *pzWhy = sqlite3_mprintf("%s", sqlite3_errstr(rc));
    return rc;
  }
  if( rc ){
    /* SQLite prepared the SELECT, so the table is there: something the
    ** resolver does not take (a temp shadowing, say) — SQLite serves. */
    *pzWhy = sqlite3_mprintf("its FROM (%s)", zErr ? zErr : sqlite3_errstr(rc));
    ga_free(zErr);
    return rc==SQLITE_NOMEM ? rc : SQLITE_OK;
  }
  if( pl->src.tab.zKind==0 || strcmp(pl->src.tab.zKind, "table") || pl->src.tab.withoutRowid ){
    *pzWhy = sqlite3_mprintf("FROM %s, which is %s", s->zFrom,
                             pl->src.tab.withoutRowid ? "a WITHOUT ROWID table" :
                             pl->src.tab.zKind ? (strcmp(pl->src.tab.zKind, "view")==0 ? "a view" : "not a table")
                             : "of a kind not known");
    return SQLITE_OK;
  }
bind:
  b.pl = pl; b.s = s; b.db = db; b.vt = vt; b.keep = keep;
  b.apParam = apParam; b.nParam = nParam;
  memset(&js, 0, sizeof(js));
  memset(aLocal, 0, sizeof(aLocal));
  memset(nLocal, 0, sizeof(nLocal));
  qpAggJoins(&b);                         /* comparisons with correlated aggregates as joins (9c) */
  qpSemiJoins(&b);                        /* correlated subqueries as joins (9a) */
  qpCountJoins(&b);                       /* ... and correlated count(*)s (9e) */
  if( s->nJoin || b.nSemi ) qpPlanJoin(&b, &js);   /* a join (requirement 9) */
  /* SELECT *: the table's columns (a join's: each table's in FROM's order,
  ** a USING or NATURAL column once) */
  if( s->star && !qpStopped(&b) ){
    int nT = b.nTab ? b.nFrom : 1, n = 0, k;
    for(k=0; k<nT; k++){
      const ga_table *t = b.nTab ? b.aTab[k].t : &pl->src.tab;
      for(i=0; i<t->nCol; i++) n += !(b.nTab && b.aTab[k].aUsing[i]);
    }
    if( s->nRes!=1 ) qpWhy(&b, "* beside other results");
    else{
      qterm *a = q_alloc(s, (int)sizeof(qterm)*(n + 1));
      if( a==0 ){ ga_free(js.a); return SQLITE_NOMEM; }
      for(k=0, n=0; k<nT; k++){
        const ga_table *t = b.nTab ? b.aTab[k].t : &pl->src.tab;
        for(i=0; i<t->nCol; i++){
          qexpr *e;
          if( b.nTab && b.aTab[k].aUsing[i] ) continue;
          if( (e = q_alloc(s, sizeof(qexpr)))==0 ){ ga_free(js.a); return SQLITE_NOMEM; }
          e->op = E_COL; e->zName = t->aCol[i].zName; e->aff = e->coll = e->cmpAff = -1; e->slot = -1;
          if( b.nTab ) e->zQual = (char*)b.aTab[k].zQual;
          a[n++].e = e;
        }
      }
      s->aRes = a;
      s->nRes = n;
      s->star = 0;
    }
  }
  for(i=0; i<s->nRes && !qpStopped(&b); i++) if( q_has_agg(s->aRes[i].e) ) pl->grouped = 1;
  if( s->nGroup || (s->pHaving) ) pl->grouped = 1;
  for(i=0; i<nOrder; i++) if( q_has_agg(s->aOrder[i].e) ) pl->grouped = 1;
  if( s->nGroup>Q_MAXKEY ) qpWhy(&b, "GROUP BY of more than %d terms", Q_MAXKEY);
  /* WHERE, over rows; then the table's constraints (vtab.c) */
  if( b.nTab ){
    if( !qpStopped(&b) ) qpBindJoinConj(&b, &js, aLocal, nLocal);
  }else if( s->pWhere && !qpStopped(&b) && qpBindTop(&b, &s->pWhere, CTX_ROW) ){
    qpConjuncts(pl, s->pWhere, &b);
  }
  ga_free(js.a);
  js.a = 0;
  for(i=0; i<nPush && !qpStopped(&b); i++){
    static const int aOp[] = { SQLITE_INDEX_CONSTRAINT_EQ, E_EQ, SQLITE_INDEX_CONSTRAINT_LT, E_LT,
                               SQLITE_INDEX_CONSTRAINT_LE, E_LE, SQLITE_INDEX_CONSTRAINT_GT, E_GT,
                               SQLITE_INDEX_CONSTRAINT_GE, E_GE };
    qexpr *c = q_alloc(s, sizeof(qexpr)), *v = q_alloc(s, sizeof(qexpr));
    int k;
    if( c==0 || v==0 || (c->a = qpCopyTree(&b, s->aRes[aPush[i].iRes].e))==0 ){ b.rc = SQLITE_NOMEM; break; }
    for(k=0; k<10 && aOp[k]!=aPush[i].op; k+=2){}
    c->op = k<10 ? aOp[k+1] : E_EQ;
    c->aff = c->coll = c->cmpAff = v->aff = v->coll = v->cmpAff = -1;
    c->slot = v->slot = -1;
    v->op = E_LIT;
    if( !qpTakeValue(&b, v, aPush[i].v) ) break;
    c->b = v;
    if( qpBindTop(&b, &c, CTX_ROW) ) qpConjuncts(pl, c, &b);
  }
  if( !qpStopped(&b) ) qpSetGroup(&b, nOrder);   /* IN's rows, a set: grouped by the result (3b) */
  /* GROUP BY keys, over rows: a result's number or alias stands for it */
  for(i=0; i<s->nGroup && !qpStopped(&b); i++){
    qexpr *e = s->aGroup[i].e;
    int cTerm, k = resultRef(&b, e, 0, &cTerm);
    if( k==-2 ) break;
    if( k>=0 && cTerm>=0 ){ qpWhy(&b, "GROUP BY a result's number with COLLATE"); break; }
    if( k<0 && e->op==E_COL && e->zQual==0 && !qpIsTabCol(&b, e) ){
      k = qpAliasIndex(s, e->zName);      /* a name that is no column of the table but a result's alias */
    }
    if( k>=0 ) s->aGroup[i].e = e = s->aRes[k].e;
    if( q_has_agg(e) ){ qpWhy(&b, "an aggregate in GROUP BY"); break; }
    /* key i is a copy, bound over rows; results compare with the parse */
    {
      qexpr *c = qpCopyTree(&b, e);   /* binding leaves aGroup's tree as parsed */
      if( qpStopped(&b) ) break;
      pl->aKey[i] = c;
      if( !qpBindTop(&b, &pl->aKey[i], CTX_ROW) ) break;
      pl->aKeyColl[i] = qpCollWalk(pl->aKey[i]);
      if( pl->aKeyColl[i]<0 ) pl->aKeyColl[i] = pl->bin;
    }
  }
  pl->nKey = s->nGroup;
  /* results */
  if( !qpStopped(&b) && (pl->aOut = q_alloc(s, (int)sizeof(qexpr*)*(s->nRes + 1)))==0 ) b.rc = SQLITE_NOMEM;
  for(i=0; i<s->nRes && !qpStopped(&b); i++){
    pl->aOut[i] = s->aRes[i].e;
    qpBindTop(&b, &pl->aOut[i], pl->grouped ? CTX_GROUP : CTX_ROW);
  }
  pl->nOut = s->nRes;
  if( !qpStopped(&b) && (pl->aOutColl = q_alloc(s, (int)sizeof(int)*(s->nRes + 1)))==0 ) b.rc = SQLITE_NOMEM;
  for(i=0; i<s->nRes && !qpStopped(&b); i++){
    int c = qpCollWalk(pl->aOut[i]);
    pl->aOutColl[i] = c<0 ? pl->bin : c;
  }
  /* ORDER BY: a result's alias or number, else an expression */
  if( !qpStopped(&b) && nOrder && !qpSortTerms(&b, nOrder) ) b.rc = SQLITE_NOMEM;
  for(i=0; i<nOrder && !qpStopped(&b); i++){
    qexpr *e = s->aOrder[i].e;
    int cTerm, k = resultRef(&b, e, 1, &cTerm), c;
    if( k==-2 ) break;
    if( k>=0 ){
      pl->aSort[i] = pl->aOut[k];
      c = cTerm>=0 ? cTerm : qpCollWalk(pl->aOut[k]);
    }else{
      pl->aSort[i] = e;
      if( !qpBindTop(&b, &pl->aSort[i], pl->grouped ? CTX_GROUP : CTX_ROW) ) break;
      c = qpCollWalk(pl->aSort[i]);
    }
    pl->aSortColl[i] = c<0 ? pl->bin : c;
    pl->aSortDesc[i] = s->aOrder[i].desc;
    pl->aSortNulls[i] = s->aOrder[i].nulls;
  }
  pl->nSort = nOrder;
  if( !qpStopped(&b) && pl->nKey && nOrder==pl->nKey ) qpKeyOrder(&b, pl->aSortDesc);
  /* HAVING after ORDER BY: SQLite's AggInfo takes aggregates from the
  ** results, then ORDER BY, then HAVING (the last min() or max() decides
  ** the keys shown) */
  if( s->pHaving && !qpStopped(&b) ){
    pl->pHaving = s->pHaving;
    qpBindTop(&b, &pl->pHaving, CTX_GROUP);
  }
  if( !isArm ) qpLimits(&b);
  if( !qpStopped(&b) && !pl->grouped && !pl->distinct && pl->nSort==0 && b.nFrom<=1 && s->zFrom && !pl->pSub && !s->asSet
     && qpIsOwnPlan(s, isArm) ){
    qpPlanOrderTerms(&b, aLocal, nLocal, isArm - 1);   /* (9f: one table's rows in the order of an index SQLite reads) */
  }
  if( b.nTab && !qpStopped(&b) ){
    /* a join's rows come in SQLite's join order: where the answer would
    ** depend on it, SQLite's path (requirement 9) */
    if( !pl->grouped && b.nFrom>1 && !s->asSet && !qpOrderedByKey(&b) ){
      if( pl->distinct ) qpWhy(&b, "DISTINCT rows of a join (which of equal rows SQLite keeps is its join order's)");
      else if( pl->nSort==0 && qpIsOwnPlan(s, isArm) ) qpPlanOrderTerms(&b, aLocal, nLocal, isArm - 1);   /* (9f) */
      else if( pl->nSort==0 ) qpWhy(&b, "rows of a join without aggregates or ORDER BY (their order is SQLite's join order)");
      else pl->tieBail = 1;          /* (9d: finish.c) */
    }
    /* (one table and its correlated subqueries' semi and anti joins: each
    ** row stays once or not at all, in the scan's order, as a table's rows;
    ** qpSqlitePlan sends it to SQLite where SQLite's plan reads the table in
    ** an index's order) */
    for(i=0; i<pl->nAgg && !qpStopped(&b); i++){
      if( pl->aAgg[i].fn==A_ARGMIN || pl->aAgg[i].fn==A_ARGMAX ){
        qpWhy(&b, "gpu_argmin or gpu_argmax over a join (which row of a tie is SQLite's join order's)");
      }
    }
    for(i=0; i<pl->nJoin; i++){
      /* (a cross product's build reads a column of its table, its rows the pairs' count) */
      if( pl->aJoin[i].nEq==0 && pl->aJoin[i].nCol==0 ) pl->aJoin[i].aTabCol[pl->aJoin[i].nCol++] = 0;
    }
    if( !qpStopped(&b) ) qpPlanBuilds(&b, aLocal, nLocal, apParam, nParam);
  }
  if( b.rc ){
    *pzWhy = b.zErr ? b.zErr : sqlite3_mprintf("%s", sqlite3_errstr(b.rc));
    ga_free(b.zWhy);
    return b.rc;
  }
  if( b.zWhy ){
    *pzWhy = b.zWhy;
    return SQLITE_OK;
  }
  /* SQLite shows a group's keys as the row the last min() or max() took
  ** them from (its bare-column rule), else as its first row */
  pl->iHit = -1;
  for(i=0; i<pl->nAgg; i++){
    if( (pl->aAgg[i].fn==A_MIN || pl->aAgg[i].fn==A_MAX) && !pl->aAgg[i].gpu ) pl->iHit = i;
  }
  for(i=0; pl->iHit>=0 && pl->nKey + pl->nBare && i<pl->nAgg; i++){
    /* SQLite never takes an aggregate over a subquery for another (sqlite3ExprCompare): named
    ** again (ORDER BY 2, HAVING), it is one more accumulator, after the others, and may be the
    ** last min() or max(), whose row shows the keys */
    if( (pl->aAgg[i].fn==A_MIN || pl->aAgg[i].fn==A_MAX) && !pl->aAgg[i].gpu && pl->aAgg[i].subq ){
      *pzWhy = sqlite3_mprintf("keys shown as the row of a min() or max() over a subquery (SQLite keeps one for each "
                               "place it is named)");
      return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
    }
  }
  if( pl->iHit>=0 && pl->nKey && pl->aAgg[pl->iHit].distinct ){
    /* its rows are DISTINCT's: which of equal rows shows the keys is not known */
    *pzWhy = sqlite3_mprintf("keys shown as a row of a min() or max() over DISTINCT values shows them");
    return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
  }
  /* evaluation buffers and memos */
  for(i=0; i<pl->nConj; i++) slots(pl, pl->aConj[i]);
  for(i=0; i<pl->nJoin; i++){
    int k;
    for(k=0; k<pl->aJoin[i].nEq; k++){
      slots(pl, pl->aJoin[i].aEq[k]->a);
      slots(pl, pl->aJoin[i].aEq[k]->b);
    }
    for(k=0; k<pl->aJoin[i].nOn; k++) slots(pl, pl->aJoin[i].aOn[k]);
  }
  for(i=0; i<pl->nPost; i++) slots(pl, pl->aPost[i]);
  if( pl->nConj ){
    unsigned char aRead[GA_COLS_MAX];
    memset(aRead, 0, sizeof(aRead));
    for(i=0; i<pl->nConj; i++) readsCols(pl->aConj[i], aRead);
    for(i=0; i<pl->nCol; i++) pl->nLate += (pl->aLate[i] = !aRead[i]);
  }
  for(i=0; i<pl->nKey; i++) slots(pl, pl->aKey[i]);
  for(i=0; i<pl->nBare; i++) slots(pl, pl->aBare[i]);
  for(i=0; i<pl->nAgg; i++){
    slots(pl, pl->aAgg[i].x);
    slots(pl, pl->aAgg[i].y);
  }
  for(i=0; i<pl->nOut; i++) slots(pl, pl->aOut[i]);
  slots(pl, pl->pHaving);
  for(i=0; i<pl->nSort; i++) slots(pl, pl->aSort[i]);
  return SQLITE_OK;
}

/* A SELECT (a compound or a core) planned. */
int qpPlanAny(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
              const qpush *aPush, int nPush, qplan *pl, char **pzWhy){
  if( s->pNext && s->zWhy==0 ) return qpPlanCompound(vt, db, s, apParam, nParam, pl, pzWhy);
  return qpPlanCore(vt, db, keep, s, apParam, nParam, aPush, nPush, pl, pzWhy, 0);
}

int q_plan(sqlite3_vtab *vt, sqlite3 *db, qselect *s, sqlite3_value **apParam, int nParam,
           const qpush *aPush, int nPush, qsqlkeep *pKeep, int tryEngine, qplan *pl, char **pzWhy){
  int rc;
  if( pKeep ){
    q_sqlkeep_fn_forget(pKeep);                /* (each read asks its functions' flags once) */
    pKeep->conn = vt ? ((ga_vtab*)vt)->conn : 0;
  }
  rc = qpPlanAny(vt, db, pKeep, s, apParam, nParam, aPush, nPush, pl, pzWhy);
  if( rc==SQLITE_OK && *pzWhy==0 && (s->zFrom || s->pSub || s->pNext) ){
    rc = qpSqlitePlan(db, vt ? ((ga_vtab*)vt)->conn : 0, pl, apParam, nParam, pKeep, tryEngine, pzWhy);
  }
  return rc;
}

void q_pushable(sqlite3 *db, const char *zSql, int nParam, int nOut, unsigned char *aPush){
  qselect s;
  ga_source src;
  char *zErr = 0;
  int i, k, grouped = 0;
  memset(aPush, 0, (size_t)nOut);
  memset(&src, 0, sizeof(src));
  if( q_parse(zSql, nParam, &s)!=SQLITE_OK ) return;
  if( s.zWhy || s.pNext || s.pSub || s.zFrom==0 || s.nJoin || s.distinct || s.pLimit || s.pOffset || s.star || s.nRes!=nOut
   || ga_source_resolve(db, "gpu_query", s.zFrom, &src, &zErr)!=SQLITE_OK ){
    ga_free(zErr);
    goto done;
  }
  grouped = s.nGroup>0 || s.pHaving!=0;
  for(i=0; i<s.nRes; i++) if( q_has_agg(s.aRes[i].e) ) grouped = 1;
  for(i=0; i<s.nOrder; i++) if( q_has_agg(s.aOrder[i].e) ) grouped = 1;
  for(i=0; i<nOut; i++){
    const qexpr *e = s.aRes[i].e;
    const ga_table *t = &src.tab;
    int c;
    if( e->op!=E_COL || e->quoted ) continue;
    if( e->zQual && !qpQualifies(&s, t, e->zQual) ) continue;
    for(c=0; c<t->nCol && sqlite3_stricmp(t->aCol[c].zName, e->zName); c++){}
    if( c==t->nCol || t->aCol[c].zColl==0 || qpCollOf(C_BINARY, t->aCol[c].zColl)<0 ) continue;
    for(k=0; grouped && k<s.nGroup; k++){
      const qexpr *g = s.aGroup[k].e;
      int n = g->end - g->at;
      if( g->op==E_COL && qpSame(&s, g, e) ) break;
      if( g->op==E_COL && g->zQual==0 && s.aRes[i].zAlias && sqlite3_stricmp(g->zName, s.aRes[i].zAlias)==0 ) break;
      if( g->op==E_LIT && g->t==0 && n>0 && n<9 && strspn(zSql + g->at, "0123456789")>=(size_t)n && atoi(zSql + g->at)==i + 1 ) break;
    }
    if( grouped && k==s.nGroup ) continue;
    aPush[i] = qpCollOf(C_BINARY, t->aCol[c].zColl)==C_BINARY ? 2 : 1;
  }
done:
  ga_source_free(&src);
  q_select_free(&s);
}

void q_plan_free(qplan *pl){
  int i;
  for(i=0; i<pl->nArm; i++) q_plan_free(&pl->aArm[i]);
  ga_free(pl->aArm);
  qpPlanFree(pl->pSub);
  for(i=0; pl->aJoin && i<=pl->nJoin; i++){     /* (room for one more: qpPlanJoin's) */
    qpPlanFree(pl->aJoin[i].pDerived);
    qpPlanFree(pl->aJoin[i].pBuild);
    ga_source_free(&pl->aJoin[i].src);
  }
  ga_free(pl->aJoin);
  ga_source_free(&pl->src);
  ga_free(pl->zCostWhy);
  memset(pl, 0, sizeof(*pl));
}
