/*
** gpu_query's planner: a join (plan.c's requirement 9). FROM's tables put
** in join order, WHERE's and ON's conjuncts sorted into the scan's filters,
** each joined table's build, the equalities that join it and the
** conditions over joined rows; then each build planned as a query of its
** own.
*/
#include "planint.h"

static int jconjAdd(Bind *b, JSort *js, qexpr *e, int from){
  int64_t m;
  int k;
  if( e==0 ) return 1;
  for(k=0; from<0 && k<b->nSemi; k++) if( e==b->aSemi[k].pTerm ) return 1;   /* (its own table: 9a) */
  if( e->op==E_AND ){
    /* BETWEEN's two comparisons share its operand (parse.c), and each may
    ** go to another operator, planned apart: a node's evaluation buffer is
    ** numbered by the plan that binds it first, so the second gets a copy */
    qexpr *r = e->a && e->b && e->a->synth && e->b->synth && e->a->a==e->b->a ? qpCopyTree(b, e->b) : e->b;
    return jconjAdd(b, js, e->a, from) && jconjAdd(b, js, r, from);
  }
  if( e->op==E_OR ){
    /* a conjunct every branch has holds where the OR does: added as one of
    ** its own (a copy), so that an equality in each branch still joins
    ** (TPC-H Q19); the OR stays as it is */
    qexpr *aBr[32], *aC[32];
    int nBr = q_terms(e, E_OR, aBr, 32, 0), nC = q_terms(aBr[0], E_AND, aC, 32, 0), i, j, k;
    for(i=0; nBr<=32 && nC<=32 && i<nC; i++){
      for(j=1; j<nBr; j++){
        qexpr *aT[32];
        int nT = q_terms(aBr[j], E_AND, aT, 32, 0);
        for(k=0; k<nT && k<32 && !qpSame(b->s, aC[i], aT[k]); k++){}
        if( k>=nT || k>=32 ) break;
      }
      if( j==nBr && !jconjAdd(b, js, qpCopyTree(b, aC[i]), from) ) return 0;
    }
  }
  if( js->n==js->nAlloc ){
    int n = js->nAlloc ? 2*js->nAlloc : 32;
    JConj *a = ga_realloc64(js->a, sizeof(JConj)*(uint64_t)n);
    if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    js->a = a;
    js->nAlloc = n;
  }
  m = qpTabsOf(b, e);
  if( from>=0 && b->aTab[from].semi && m>0 && !(m & TAB_BIT(from)) ){
    /* a condition on the outer query's tables alone: where EXISTS or IN
    ** holds it holds, a WHERE conjunct; NOT EXISTS's is no conjunct */
    if( b->aTab[from].semi==Q_ANTI ) return qpWhy(b, "NOT EXISTS (a correlated subquery with a condition on the outer query alone)");
    if( b->aTab[from].semi==Q_COUNT ) return qpWhy(b, "count(*) (a correlated subquery with a condition on the outer query alone)");
    from = -1;
  }
  js->a[js->n].e = e;
  js->a[js->n].from = from;
  js->a[js->n].m = m;
  js->n++;
  return 1;
}

/* An unbound node (the parse's arena). */
static qexpr *jnode(Bind *b, int op){
  qexpr *e = q_node(b->s, op);
  if( e==0 ) b->rc = SQLITE_NOMEM;
  return e;
}

/* USING's (or NATURAL's) column zName of FROM's table i: the equality of
** it with the same column of the first table before i that has it. */
static int usingEq(Bind *b, JSort *js, int i, const char *zName){
  int l, c;
  qexpr *eq, *x, *y;
  if( (c = qpColIndex(b->aTab[i].t, zName))<0 ) return qpWhy(b, "USING a column %s does not have", b->aTab[i].zQual);
  for(l=0; l<i && qpColIndex(b->aTab[l].t, zName)<0; l++){}
  if( l==i ) return qpWhy(b, "USING a column no table before %s has", b->aTab[i].zQual);
  b->aTab[i].aUsing[c] = 1;
  if( (eq = jnode(b, E_EQ))==0 || (x = jnode(b, E_COL))==0 || (y = jnode(b, E_COL))==0 ) return 0;
  x->zName = y->zName = b->aTab[i].t->aCol[c].zName;
  x->zQual = (char*)b->aTab[l].zQual;
  y->zQual = (char*)b->aTab[i].zQual;
  eq->a = x;
  eq->b = y;
  return jconjAdd(b, js, eq, i);
}

/* Is conjunct c an equality that joins FROM's table i to the tables in
** mask J (bits of FROM places) before it? Its side over i alone into
** *pSide (0 a, 1 b). A LEFT JOIN's table joins by its own ON alone, a
** subquery's by its WHERE. */
static int isEdge(const Bind *b, const JConj *c, int i, int64_t J, int *pSide){
  int64_t ma, mb;
  if( c->e->op!=E_EQ || c->m<0 ) return 0;
  if( ONLY_ON(b, i) ? c->from!=i : (c->from>=0 && ONLY_ON(b, c->from)) ) return 0;
  ma = qpTabsOf(b, c->e->a);
  mb = qpTabsOf(b, c->e->b);
  if( ma==TAB_BIT(i) && mb>0 && (mb & ~J)==0 ){ *pSide = 0; return 1; }
  if( mb==TAB_BIT(i) && ma>0 && (ma & ~J)==0 ){ *pSide = 1; return 1; }
  return 0;
}

/* An integer of zSql's first row (0 where there is none). */
static int64_t intOf(sqlite3 *db, char *zSql){
  sqlite3_stmt *st = 0;
  int64_t n = 0;
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  ga_free(zSql);
  return n;
}

/* Table zDb.zTab's rowids' span (nTab bytes of zTab; -1: to its end): its
** rows at most; 0 where empty or no such table. Its statement is kept in
** keep (where not NULL) for the next read. */
int64_t qpSpanOf(sqlite3 *db, qsqlkeep *keep, const char *zDb, const char *zTab, int nTab){
  sqlite3_stmt *st = 0;
  char *zSql;
  int64_t n = 0;
  if( nTab<0 ) nTab = (int)strlen(zTab);       /* (printf's negative precision is no "all") */
  zSql = sqlite3_mprintf("SELECT (SELECT max(rowid) FROM \"%w\".\"%.*w\") - (SELECT min(rowid) FROM \"%w\".\"%.*w\") + 1",
                         zDb, nTab, zTab, zDb, nTab, zTab);
  if( zSql && qpKeptPrepare(db, 0, keep, zSql, &st)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    n = sqlite3_column_int64(st, 0);
  }
  qpKeptDone(keep, st);
  ga_free(zSql);
  return n;
}

/* Whether t's rowids are an INTEGER PRIMARY KEY's: one key column, declared
** INTEGER (its description's). */
int qpRowidKeyed(const ga_table *t){
  int i, n = 0, keyed = 0;
  for(i=0; i<t->nCol; i++){
    if( t->aCol[i].pk==0 ) continue;
    n++;
    keyed = t->aCol[i].pk==1 && t->aCol[i].zType && sqlite3_stricmp(t->aCol[i].zType, "INTEGER")==0;
  }
  return n==1 && keyed;
}

/* The rows each of the n tables holds, at most, into aEst: the span of its
** rowids (a search at each end of its b-tree), all in one statement (else
** one a table, 0 where a table has none). Where they are an INTEGER PRIMARY
** KEY's (aKeyed), such as dates as yyyymmdd, the span may be far more than
** the rows. */
static void rowSpans(Bind *b, int n, int64_t *aEst, int *aKeyed){
  sqlite3_str *s = sqlite3_str_new(0);
  sqlite3_stmt *st = 0;
  char *zSql;
  int i, ok;
  for(i=0; i<n; i++){
    const ga_table *t = b->aTab[i].t;
    aKeyed[i] = !b->aTab[i].derived && qpRowidKeyed(t);
    aEst[i] = 0;
    if( b->aTab[i].derived ){            /* (its rows are not known before it runs: never the scan's) */
      sqlite3_str_appendf(s, "%s0", i ? ", " : "SELECT ");
      continue;
    }
    sqlite3_str_appendf(s, "%s(SELECT max(rowid) FROM \"%w\".\"%w\") - (SELECT min(rowid) FROM \"%w\".\"%w\") + 1",
                        i ? ", " : "SELECT ", t->zDb, t->zTab, t->zDb, t->zTab);
  }
  zSql = sqlite3_str_finish(s);
  ok = zSql && qpKeptPrepare(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, b->keep, zSql, &st)==SQLITE_OK
       && sqlite3_step(st)==SQLITE_ROW;
  for(i=0; ok && i<n; i++) aEst[i] = sqlite3_column_int64(st, i);
  if( st ) qpKeptDone(b->keep, st);
  ga_free(zSql);
  for(i=0; !ok && i<n; i++){
    const ga_table *t = b->aTab[i].t;
    if( !b->aTab[i].derived ) aEst[i] = qpSpanOf(b->db, b->keep, t->zDb, t->zTab, -1);
  }
}

/* Table t's rows: estimated from its b-tree where the page source reads it
** (ga_pages_rows: its leaves, from its interior pages, times a sample's
** cells; a few of its pages, the estimate off by the sampled leaves' spread
** in cells), else counted (SQLite's count(*) reads every leaf: TPC-H SF
** 10's orders took ~0.5 s). Kept in b->keep for the next read, in main
** only, while main's data version (any commit, this connection's or
** another's) and this connection's changes (its own, uncommitted too) are
** the same: an attached schema's pager counts from 0 again at each ATTACH.
** Only the scan's choice and the joins' estimates rest on it, never an
** answer. */
static int64_t rowsOf(Bind *b, const ga_table *t){
  qsqlkeep *k = b->keep;
  ga_conn *conn = b->vt ? ((ga_vtab*)b->vt)->conn : 0;
  unsigned int dv = 0;
  int nChg = sqlite3_total_changes(b->db), i = 0, counted = 0;
  int memo = k && strcmp(t->zDb, "main")==0 && sqlite3_file_control(b->db, "main", SQLITE_FCNTL_DATA_VERSION, &dv)==SQLITE_OK;
  int64_t n = 0;
  char *zWhy = 0;
  for(i=0; memo && i<k->nCount && sqlite3_stricmp(k->azCount[i], t->zTab)!=0; i++){}
  if( memo && i<k->nCount && k->aCountDv[i]==dv && k->aCountChg[i]==nChg ) return k->aCount[i];
  if( conn==0 || ga_pages_rows(b->db, conn, t, &n, &zWhy)!=SQLITE_OK || n<=0 ){
    n = intOf(b->db, sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w\"", t->zDb, t->zTab));
    counted = 1;
  }
  ga_free(zWhy);
  if( b->vt ) q_table_sized(b->vt, counted);
  memo = memo && n>0;                      /* (0: also a count that failed, interrupted) */
  if( memo && i==k->nCount && i<Q_MAXTAB && (k->azCount[i] = sqlite3_mprintf("%s", t->zTab))!=0 ) k->nCount++;
  if( memo && i<k->nCount ){
    k->aCount[i] = n;
    k->aCountDv[i] = dv;
    k->aCountChg[i] = nChg;
  }
  return n;
}

/* The table the scan reads: the one with the most rows. Each table's rows
** at most are its rowids' span; where the largest span is a key's, its
** rows are found (rowsOf) and the choice made again, until the largest is
** known (one table: no choice, nothing found: TPC-H Q4's orders took 44 ms
** a read counted). */
static int largest(Bind *b, int n, int64_t *aEst){
  int aKeyed[Q_MAXTAB], i, best = 0, k;
  rowSpans(b, n, aEst, aKeyed);
  for(k=0; k<n && n>1; k++){
    for(i=1, best=0; i<n; i++) if( aEst[i]>aEst[best] ) best = i;
    if( !aKeyed[best] ) break;
    aKeyed[best] = 0;
    aEst[best] = rowsOf(b, b->aTab[best].t);
  }
  return best;
}

/* FROM's tables resolved (the first is pl->src already), the join order
** chosen (the scan's table the largest; each next the first in FROM that an
** equality joins to those before it; FROM's order where there is a LEFT
** JOIN) and the conjuncts gathered into js. Stops (qpWhy) where the join is
** not covered. */
int qpPlanJoin(Bind *b, JSort *js){
  qplan *pl = b->pl;
  qselect *s = b->s;
  ga_source aSrc[Q_MAXTAB];
  qplan *aDerived[Q_MAXTAB];       /* a subquery or WITH table joined: its plan (9b) */
  int64_t aEst[Q_MAXTAB] = { 0 };
  int nFrom = s->nJoin + 1, n = nFrom + b->nSemi, i, k, hasLeft = 0, probe = 0, rc;
  int64_t J;
  memset(aSrc, 0, sizeof(aSrc));
  memset(aDerived, 0, sizeof(aDerived));
  if( s->pSub ) return qpWhy(b, "a join whose first table is a subquery");
  b->nFrom = nFrom;
  aSrc[0] = pl->src;
  memset(&pl->src, 0, sizeof(pl->src));
  for(i=1; i<n && !qpStopped(b); i++){
    const char *zFrom = i<nFrom ? s->aJoin[i - 1].zFrom : b->aSemi[i - nFrom].sel->zFrom;
    char *zErr = 0;
    if( i<nFrom && s->aJoin[i - 1].jt==Q_JT_LEFT ) hasLeft = 1;
    if( i<nFrom && s->aJoin[i - 1].pSub ){
      const qfrom *f = &s->aJoin[i - 1];
      char *zWhy = 0;
      rc = qpFromPlan(b->vt, b->db, b->keep, f->pSub, b->apParam, b->nParam,
                      f->unique ? "a correlated aggregate" : "a join with a subquery", &aDerived[i], &zWhy);
      if( rc==SQLITE_OK && zWhy==0 ) rc = qpSubTable(aDerived[i], f->pSub, f->zAlias, &aSrc[i].tab, &zWhy);
      if( rc==SQLITE_OK && zWhy==0 && f->unique ){
        /* (9c) its groups' rows alike, or SQLite's; its value compared as the subquery's */
        aDerived[i]->strict = 1;
        aDerived[i]->orderFree = f->pSub->pLimit==0 && f->pSub->pOffset==0 && !aDerived[i]->distinct
                                 && aDerived[i]->nSort==0;
        if( qpCollWalk(aDerived[i]->aOut[aDerived[i]->nOut - 1])>=0 ){
          zWhy = sqlite3_mprintf("a correlated aggregate whose value has a collation");
          if( zWhy==0 ) rc = SQLITE_NOMEM;
        }
      }
      if( rc ){ ga_free(zWhy); b->rc = rc; break; }
      if( zWhy ){ qpWhy(b, "%s", zWhy); ga_free(zWhy); break; }
      continue;
    }
    rc = ga_source_resolve_on(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, "gpu_query", zFrom, &aSrc[i], &zErr);
    if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){ ga_free(zErr); b->rc = rc; break; }
    if( rc ){
      qpWhy(b, "its FROM (%s)", zErr ? zErr : sqlite3_errstr(rc));
      ga_free(zErr);
      break;
    }
    if( aSrc[i].tab.zKind==0 || strcmp(aSrc[i].tab.zKind, "table") || aSrc[i].tab.withoutRowid ){
      qpWhy(b, "%s%s %s, which is %s", i<nFrom ? "a join with" : qpSemiWord(b, i), i<nFrom ? "" : " over", zFrom,
              aSrc[i].tab.withoutRowid ? "a WITHOUT ROWID table"
              : aSrc[i].tab.zKind && strcmp(aSrc[i].tab.zKind, "view")==0 ? "a view" : "not a table");
    }
  }
  for(i=0; i<n; i++){
    const char *zAlias = i==0 ? s->zAlias : i<nFrom ? s->aJoin[i - 1].zAlias : b->aSemi[i - nFrom].sel->zAlias;
    b->aTab[i].t = &aSrc[i].tab;
    b->aTab[i].derived = aDerived[i]!=0;
    b->aTab[i].zQual = zAlias ? zAlias : aSrc[i].tab.zTab;
    b->aTab[i].zFrom = i==0 ? s->zFrom : i<nFrom ? s->aJoin[i - 1].zFrom : b->aSemi[i - nFrom].sel->zFrom;
    b->aTab[i].left = i>0 && i<nFrom && s->aJoin[i - 1].jt==Q_JT_LEFT;
    b->aTab[i].semi = i<nFrom ? 0 : b->aSemi[i - nFrom].count ? Q_COUNT : b->aSemi[i - nFrom].anti ? Q_ANTI : Q_SEMI;
  }
  b->nTab = n;
  for(i=0; i<n && !qpStopped(b); i++){
    for(k=0; k<i; k++){
      if( sqlite3_stricmp(b->aTab[i].zQual, b->aTab[k].zQual) ) continue;
      if( i<nFrom ) qpWhy(b, "two tables of a join named %s", b->aTab[i].zQual);
      else qpWhy(b, "%s (a correlated subquery's table named as one of the outer query's: %s)", qpSemiWord(b, i),
                   b->aTab[i].zQual);
    }
  }
  /* the conjuncts: WHERE's, each ON's, each USING's and NATURAL's equalities */
  if( !qpStopped(b) ) jconjAdd(b, js, s->pWhere, -1);
  for(i=1; i<nFrom && !qpStopped(b); i++){
    const qfrom *f = &s->aJoin[i - 1];
    if( f->natural && (f->pOn || f->nUsing) ) qpWhy(b, "NATURAL JOIN with ON or USING");
    for(k=0; k<f->nUsing && !qpStopped(b); k++) usingEq(b, js, i, f->azUsing[k]);
    for(k=0; f->natural && k<b->aTab[i].t->nCol && !qpStopped(b); k++){
      const char *z = b->aTab[i].t->aCol[k].zName;
      int l;
      for(l=0; l<i && qpColIndex(b->aTab[l].t, z)<0; l++){}
      if( l<i ) usingEq(b, js, i, z);
    }
    if( !qpStopped(b) ) jconjAdd(b, js, f->pOn, i);
  }
  /* each correlated subquery's WHERE (and IN's equality), its names
  ** qualified: its own table's first (9a) */
  for(i=nFrom; i<n && !qpStopped(b); i++){
    struct Semi *m = &b->aSemi[i - nFrom];
    if( !qpQualify(b, m->sel->pWhere, i) ) break;
    if( m->pIn ){
      qexpr *eq = jnode(b, E_EQ);
      if( eq==0 || !qpQualify(b, m->pIn, -1) || !qpQualify(b, m->sel->aRes[0].e, i) ) break;
      eq->a = m->pIn;
      eq->b = m->sel->aRes[0].e;
      if( !jconjAdd(b, js, eq, i) ) break;
    }
    jconjAdd(b, js, m->sel->pWhere, i);
  }
  /* the order */
  if( !qpStopped(b) && !hasLeft ) probe = largest(b, nFrom, aEst);
  js->aOrder[0] = probe;
  J = TAB_BIT(probe);
  for(k=1; k<n && !qpStopped(b); k++){
    int next = -1, c, side;
    for(i=0; i<n && next<0; i++){
      if( J & TAB_BIT(i) ) continue;
      for(c=0; c<js->n && !isEdge(b, &js->a[c], i, J, &side); c++){}
      if( c<js->n ) next = i;
      else if( hasLeft ) break;            /* FROM's order: i must be next */
    }
    if( next<0 && (J & (TAB_BIT(nFrom) - 1))==TAB_BIT(nFrom) - 1 ){
      /* a correlated subquery by no equality, after all FROM's tables: each
      ** row's matches are all its rows, its conditions deciding (join.c, 2c) */
      for(i=nFrom; i<n && (J & TAB_BIT(i)); i++){}
      next = i<n ? i : -1;
    }
    if( next<0 ){
      for(i=0; i<n && (J & TAB_BIT(i)); i++){}
      if( i<nFrom && !b->aTab[i].left ){
        next = i;                  /* (a cross product: each row meets every row of i, conditions
                                   ** over both deciding after the joins) */
      }else{
        if( i>=nFrom ) qpWhy(b, "%s (a correlated subquery by no equality with the outer query)", qpSemiWord(b, i));
        else qpWhy(b, "a LEFT JOIN without an equality that joins %s to the tables before it", b->aTab[i].zQual);
        break;
      }
    }
    js->aOrder[k] = next;
    J |= TAB_BIT(next);
  }
  if( qpStopped(b) ){
    for(i=0; i<n; i++){
      ga_source_free(&aSrc[i]);
      qpPlanFree(aDerived[i]);
    }
    b->nTab = 0;
    return 0;
  }
  /* the scan's table and the joined ones, in order */
  if( (pl->aJoin = ga_malloc64(sizeof(qjoin)*(uint64_t)n))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
  memset(pl->aJoin, 0, sizeof(qjoin)*(size_t)n);
  pl->src = aSrc[probe];
  pl->zScanQual = b->aTab[probe].zQual;
  pl->nScanEst = aEst[probe];
  b->aTab[probe].t = &pl->src.tab;
  b->aTab[probe].iJoin = -1;
  js->aPos[probe] = 0;
  for(k=1; k<n; k++){
    qjoin *q = &pl->aJoin[k - 1];
    i = js->aOrder[k];
    q->src = aSrc[i];
    q->pDerived = aDerived[i];
    q->unique = i<nFrom && i>0 && s->aJoin[i - 1].unique ? Q_ONE_GROUP : 0;
    q->iFrom = i;
    q->left = b->aTab[i].left;
    q->semi = b->aTab[i].semi;
    q->zQual = b->aTab[i].zQual;
    q->iCol0 = (k - 1)*GA_COLS_MAX;
    q->nEst = aEst[i];
    b->aTab[i].t = &q->src.tab;
    b->aTab[i].iJoin = k - 1;
    js->aPos[i] = k;
  }
  pl->nJoin = n - 1;
  pl->nJCol = (n - 1)*GA_COLS_MAX;
  pl->strict = 1;
  return 1;
}

/* Append e to the list *pa of *pn (the plan's arena). */
static int listPush(Bind *b, qexpr ***pa, int *pn, qexpr *e){
  if( *pn%16==0 ){
    qexpr **a = q_alloc(b->s, (int)sizeof(qexpr*)*(*pn + 16));
    if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( *pn ) memcpy(a, *pa, sizeof(qexpr*)*(size_t)*pn);
    *pa = a;
  }
  (*pa)[(*pn)++] = e;
  return 1;
}

/* What in bound e can raise an error for some row (abs() of the least
** integer; a function SQLite computes other than builtins that raise none
** for any value), or NULL. A join evaluates a condition over its joined
** rows on the pairs its equalities keep; SQLite may meet it first (a
** WHERE's terms come before an ON's): where it can fail, which rows meet
** it is SQLite's join order's. */
static const char *fallible(const qexpr *e){
  static const char *azTotal[] = {
    "lower", "upper", "length", "octet_length", "substr", "substring", "trim", "ltrim", "rtrim", "replace",
    "instr", "hex", "quote", "typeof", "round", "sign", "unicode", "date", "time", "datetime", "julianday",
    "strftime", "unixepoch", "iif", "coalesce", "ifnull", "nullif", "min", "max", "printf", "format", "char",
    "concat", "concat_ws",
  };
  const char *z = 0;
  size_t k;
  if( e->op==E_ABS && !qpIsConst(e->a) ) return "abs()";
  if( e->op==E_SQL && e->sqlOp==E_FUNC && !qpIsConst(e) ){
    for(k=0; k<sizeof(azTotal)/sizeof(azTotal[0]) && sqlite3_stricmp(e->zName, azTotal[k]); k++){}
    if( k==sizeof(azTotal)/sizeof(azTotal[0]) ) return e->zName;
  }
  EACH_CHILD((qexpr*)e, pp, { if( z==0 ) z = fallible(*pp); });
  return z;
}

/* A join's equality e (bound) whose sides cannot fail: 1, else 0 (b says
** why). The engine makes each side's keys over the rows its table's own
** conjuncts keep; SQLite meets the equality on the rows its plan visits,
** in an order of conditions of its own, so an error there (abs() of the
** least integer) may be its and not the engine's. */
static int infallibleEq(Bind *b, const qexpr *e){
  const char *zF = fallible(e);
  if( zF ) qpWhy(b, "a join's equality with %s, which can fail: which rows SQLite meets it on is its plan's", zF);
  return zF==0;
}

/* The conjuncts of js bound where they go: the scan's own (pl->aConj,
** before the joins), a joined table's own (aLocal: its build's WHERE,
** unbound), its equalities (its aEq), a LEFT JOIN's other ON conjuncts (its
** aOn), the rest over the joined rows (pl->aPost). */
/* Conjunct e's operand x with COLLATE stripped, into *pColl the collation
** it carries as SQLite's comparison sees it (explicit: *pExplicit), NULL
** where none; the column it is, if it is one: *pTab its table, -1 if not. */
static const qexpr *collOperand(const Bind *b, const qexpr *x, const char **pColl, int *pExplicit, int *pTab,
                                int *pCol){
  *pColl = 0;
  *pExplicit = 0;
  *pTab = *pCol = -1;
  if( x->op==E_COLLATE ){
    *pColl = x->zName;
    *pExplicit = 1;
    while( x->op==E_COLLATE ) x = x->a;
  }
  if( x->op==E_COL && (*pTab = qpTabOfCol(b, x))>=0 ){
    *pCol = qpColIndex(b->aTab[*pTab].t, x->zName);
    if( *pColl==0 ) *pColl = b->aTab[*pTab].t->aCol[*pCol].zColl ? b->aTab[*pTab].t->aCol[*pCol].zColl : "?";
  }
  return x;
}

/* The collation SQLite compares l with r by (its rules: an explicit
** COLLATE, the left operand's first; then a column's, the left's first). */
static const char *cmpCollOf(const Bind *b, const qexpr *l, const qexpr *r){
  const char *zL, *zR;
  int eL, eR, t, c;
  collOperand(b, l, &zL, &eL, &t, &c);
  collOperand(b, r, &zR, &eR, &t, &c);
  if( eL ) return zL;
  if( eR ) return zR;
  return zL ? zL : zR ? zR : "BINARY";
}

/* Does SQLite test a conjunct by a collation other than its own? Given
** X = Y, two tables' columns, and Z = constant (=, IS, IN) where Z is one of
** them, SQLite 3.40.1 codes the other's loop with W = constant in its
** place (wherecode.c's transitive constraint: W's collation, not Z's; the
** original left untested): with Z a NOCASE column, W a BINARY one, fewer
** rows than the SQL's meaning. Where the collations differ, SQLite's answer
** is its join order's; the read is SQLite's. The conjunct's text, or NULL. */
static const qexpr *transitiveColl(const Bind *b, const JSort *js){
  int i, j, k;
  for(i=0; i<js->n; i++){
    const qexpr *e = js->a[i].e;
    int aT[2], aC[2], ex;
    const char *z;
    if( (js->a[i].from>=0 && ONLY_ON(b, js->a[i].from)) || (e->op!=E_EQ && e->op!=E_IS) ) continue;
    collOperand(b, e->a, &z, &ex, &aT[0], &aC[0]);
    collOperand(b, e->b, &z, &ex, &aT[1], &aC[1]);
    if( aT[0]<0 || aT[1]<0 || aT[0]==aT[1] ) continue;
    for(j=0; j<js->n; j++){
      const qexpr *f = js->a[j].e, *zSide, *rhs;
      int t, c;
      if( j==i || (js->a[j].from>=0 && ONLY_ON(b, js->a[j].from)) ) continue;
      if( f->op!=E_EQ && f->op!=E_IS && f->op!=E_IN ) continue;
      for(k=0; k<2; k++){
        zSide = k ? f->b : f->a;
        rhs = k ? f->a : f->b;
        if( zSide==0 || (f->op==E_IN && k) ) continue;
        collOperand(b, zSide, &z, &ex, &t, &c);
        if( t<0 || (rhs && qpTabsOf(b, rhs)!=0) ) continue;
        if( f->op==E_IN ){
          int a;
          for(a=0; a<f->nArg && qpTabsOf(b, f->arg[a])==0; a++){}
          if( a<f->nArg ) continue;
        }
        if( (t==aT[0] && c==aC[0]) || (t==aT[1] && c==aC[1]) ){
          const qexpr *w = t==aT[0] && c==aC[0] ? e->b : e->a;     /* the other column */
          const char *zOwn = f->op==E_IN ? cmpCollOf(b, zSide, zSide) : k ? cmpCollOf(b, rhs, zSide)
                                                                          : cmpCollOf(b, zSide, rhs);
          const char *zThere = f->op==E_IN ? cmpCollOf(b, w, w) : cmpCollOf(b, w, rhs);
          if( sqlite3_stricmp(zOwn, zThere)!=0 ) return f;
        }
      }
    }
  }
  return 0;
}

int qpBindJoinConj(Bind *b, JSort *js, qexpr ***aLocal, int *nLocal){
  qplan *pl = b->pl;
  const qexpr *t;
  int c;
  if( (t = transitiveColl(b, js))!=0 ){
    return qpWhy(b, "%.*s beside an equality of its column with another table's by another collation (SQLite "
                    "3.40.1 tests it by that one where its join order has it: its transitive constraint)",
                 t->end - t->at, b->s->zSql + t->at);
  }
  for(c=0; c<js->n && !qpStopped(b); c++){
    JConj *x = &js->a[c];
    qexpr *e = x->e;
    int T = -1, side = 0, i, last = -1;
    int64_t Jb = 0;
    if( x->m>0 ){
      for(i=0; i<b->nTab; i++){
        if( (x->m & TAB_BIT(i)) && js->aPos[i]>last ){ last = js->aPos[i]; T = i; }
      }
      for(i=0; i<b->nTab; i++) if( js->aPos[i]<last ) Jb |= TAB_BIT(i);
    }
    if( x->from>=0 && ONLY_ON(b, x->from) ){
      /* a LEFT JOIN's ON, a subquery's WHERE: what matches, never what is
      ** kept (a subquery's constant conditions: its build's too) */
      qjoin *q = &pl->aJoin[b->aTab[x->from].iJoin];
      int f = x->from;
      int64_t jb = 0;
      for(i=0; i<b->nTab; i++) if( js->aPos[i]<js->aPos[f] ) jb |= TAB_BIT(i);
      if( x->m==TAB_BIT(f) || (x->m==0 && q->semi) ){
        if( !listPush(b, &aLocal[q - pl->aJoin], &nLocal[q - pl->aJoin], e) ) return 0;
      }else if( q->nEq<Q_MAXKEY && isEdge(b, x, f, jb, &side) ){
        if( !qpBindTop(b, &e, CTX_ROW) || !infallibleEq(b, e) ) return 0;
        q->aBuildSide[q->nEq] = side;
        q->aEq[q->nEq++] = e;
      }else{
        if( !qpBindTop(b, &e, CTX_ROW) || !listPush(b, &q->aOn, &q->nOn, e) ) return 0;
      }
      continue;
    }
    if( x->m==0 || (x->m>0 && T==js->aOrder[0]) ){
      if( qpBindTop(b, &e, CTX_ROW) ) qpConjuncts(pl, e, b);
    }else if( x->m>0 && x->m==TAB_BIT(T) && !b->aTab[T].left ){
      qjoin *q = &pl->aJoin[b->aTab[T].iJoin];
      if( !listPush(b, &aLocal[q - pl->aJoin], &nLocal[q - pl->aJoin], e) ) return 0;
    }else if( x->m>0 && pl->aJoin[b->aTab[T].iJoin].nEq<Q_MAXKEY && isEdge(b, x, T, Jb, &side)
              && (pl->aJoin[b->aTab[T].iJoin].unique!=Q_ONE_GROUP || x->from==T) ){
      /* (a correlated aggregate's groups are joined by the correlation alone:
      ** 9c's one group a key is of those keys) */
      qjoin *q = &pl->aJoin[b->aTab[T].iJoin];
      if( !qpBindTop(b, &e, CTX_ROW) || !infallibleEq(b, e) ) return 0;
      q->aBuildSide[q->nEq] = side;
      q->aEq[q->nEq++] = e;
    }else{
      const char *zF;
      if( !qpBindTop(b, &e, CTX_ROW) || !listPush(b, &pl->aPost, &pl->nPost, e) ) return 0;
      if( (zF = fallible(e))!=0 ){
        return qpWhy(b, "a condition over joined rows with %s, which can fail: which rows SQLite meets it on is "
                        "its join order's", zF);
      }
    }
  }
  for(c=0; c<pl->nJoin && !qpStopped(b); c++){
    if( pl->aJoin[c].semi==Q_COUNT && pl->aJoin[c].nCol>=Q_COUNT_COL ){
      qpWhy(b, "count(*) (a correlated subquery over more than %d columns)", Q_COUNT_COL - 1);
    }
    if( pl->aJoin[c].nEq==0 && pl->aJoin[c].semi && !(pl->aJoin[c].nOn && pl->aJoin[c].nCol) ){
      /* (a subquery's pairs need a condition that reads its table) */
      qpWhy(b, "a join of %s by no equality it can use", pl->aJoin[c].zQual);
    }
    if( pl->aJoin[c].nOn && pl->aJoin[c].semi ){
      const char *zF = 0;
      int k;
      for(k=0; k<pl->aJoin[c].nOn && zF==0; k++) zF = fallible(pl->aJoin[c].aOn[k]);
      if( zF ){
        qpWhy(b, "%s (a correlated subquery's condition with %s, which can fail: which rows SQLite meets it on is "
                 "its plan's)", qpSemiWord(b, pl->aJoin[c].iFrom), zF);
      }
    }else if( pl->aJoin[c].nOn ){
      qpWhy(b, "a LEFT JOIN whose ON has more than equalities and conditions on %s alone", pl->aJoin[c].zQual);
    }
  }
  return !qpStopped(b);
}

/* Each joined table's rows as a plan of their own: SELECT the columns the
** query reads of it FROM it WHERE its own conjuncts (aLocal). */
int qpPlanBuilds(Bind *b, qexpr ***aLocal, int *nLocal, sqlite3_value **apParam, int nParam){
  qplan *pl = b->pl;
  int k, j;
  for(k=0; k<pl->nJoin && !qpStopped(b); k++){
    qjoin *q = &pl->aJoin[k];
    qselect *sub = q_alloc(b->s, sizeof(qselect));
    char *zWhy = 0;
    int rc;
    if( sub==0 || (q->pBuild = ga_malloc64(sizeof(qplan)))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    memset(q->pBuild, 0, sizeof(qplan));
    sub->pRoot = b->s->pRoot ? b->s->pRoot : b->s;
    sub->zSql = b->s->zSql;
    sub->nParam = b->s->nParam;
    sub->zAlias = (char*)q->zQual;
    if( q->pDerived ){
      /* a subquery's rows (9b): FROM it, its plan made already */
      sub->pSub = b->s->aJoin[q->iFrom - 1].pSub;
      sub->pSub->pPlanned = q->pDerived;
      q->pDerived = 0;
    }else{
      sub->zFrom = (char*)b->aTab[q->iFrom].zFrom;
    }
    if( (sub->aRes = q_alloc(b->s, (int)sizeof(qterm)*(q->nCol + 1)))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    for(j=0; j<q->nCol; j++){
      qexpr *x = jnode(b, E_COL);
      if( x==0 ) return 0;
      x->zName = q->src.tab.aCol[q->aTabCol[j]].zName;
      sub->aRes[j].e = x;
    }
    sub->nRes = q->nCol;
    for(j=0; j<nLocal[k]; j++){
      qexpr *a;
      if( sub->pWhere==0 ){ sub->pWhere = aLocal[k][j]; continue; }
      if( (a = jnode(b, E_AND))==0 ) return 0;
      a->a = sub->pWhere;
      a->b = aLocal[k][j];
      sub->pWhere = a;
    }
    rc = qpPlanCore(b->vt, b->db, b->keep, sub, apParam, nParam, 0, 0, q->pBuild, &zWhy, 0);
    if( sub->pSub && sub->pSub->pPlanned ){       /* (not taken: qpPlanCore stopped first) */
      qpPlanFree(sub->pSub->pPlanned);
      sub->pSub->pPlanned = 0;
    }
    if( rc ){
      b->rc = rc;
      b->zErr = zWhy;
      return 0;
    }
    if( zWhy ){
      qpWhy(b, "the join's table %s: %s", q->zQual, zWhy);
      ga_free(zWhy);
      return 0;
    }
  }
  return 1;
}
