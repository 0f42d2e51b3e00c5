/*
** gpu_query's planner: the plan gpu_explain prints, as the tree of
** operators that runs it: JSON, or lines drawn as SQLite's EXPLAIN QUERY
** PLAN draws its tree.
**
**   1. A plan reads bottom up: its input (a table's scan with its own
**      conditions, a subquery's rows, or one row where there is no FROM);
**      each joined table in the plan's order, the rows so far probing its
**      build; the conditions over the joined rows; the groups and their
**      aggregates; HAVING; DISTINCT; ORDER BY (or the order SQLite's plan
**      would give the rows); LIMIT; the result columns. A compound's arms
**      are its inputs, its ORDER BY and LIMIT above them. Each operator the
**      plan has is a node whose input is the one below it; a join has two,
**      the rows so far and its build (the joined table's own plan).
**   2. Each node says what runs it: "cpu", the CPU operators; "device" or
**      "kept, cpu", the program over kept columns (q_kept_explain's answer
**      for the plan now): the scan, the joins' probes, the conditions and
**      the groups where the plan groups, the scan and the window of its
**      order where it does not. Builds, subqueries and the finish (HAVING,
**      DISTINCT, ORDER BY, LIMIT, the results) are the CPU operators'.
**   3. Expressions are shown as written (qpExprText).
**   4. Where the read is SQLite's, the plan is SQLite's own (EXPLAIN QUERY
**      PLAN of the SELECT SQLite runs: gpu_sum for sum and the like, vtab.c,
**      2), drawn as the sqlite3 shell draws it.
*/
#include "planint.h"

/* e's text: its own, or, for a comparison the parser or planner made
** (BETWEEN's two, USING's, IN's with its subquery's result), its operands'
** with the operator between them (NULL: out of memory). */
char *qpExprText(const qselect *s, const qexpr *e){
  static const char *azOp[] = { "=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT", "AND" };   /* E_EQ ... E_AND */
  if( e->synth && e->op>=E_EQ && e->op<=E_AND && e->a && e->b ){
    char *a = qpExprText(s, e->a), *b = qpExprText(s, e->b), *z = 0;
    if( a && b ) z = sqlite3_mprintf(e->op==E_AND ? "(%s) %s (%s)" : "%s %s %s", a, azOp[e->op - E_EQ], b);
    ga_free(a);
    ga_free(b);
    return z;
  }
  if( e->synth && (e->op==E_IN || e->op==E_INSEL) && e->a ){   /* (decorrelate.c's 4: its IN's text after x) */
    char *a = qpExprText(s, e->a), *z = a ? sqlite3_mprintf("%s%.*s", a, e->end - e->at, s->zSql + e->at) : 0;
    ga_free(a);
    return z;
  }
  if( e->end==e->at && e->op==E_COL && e->zName ){
    return e->zQual ? sqlite3_mprintf("%s.%s", e->zQual, e->zName) : sqlite3_mprintf("%s", e->zName);
  }
  return sqlite3_mprintf("%.*s", e->end - e->at, s->zSql + e->at);
}

/* A plan's operators (1.), from the bottom up; a compound's arms below
** everything a core has. */
enum { S_COMPOUND, S_SCAN, S_JOIN, S_POST, S_AGG, S_HAVING, S_DISTINCT, S_SORT, S_LIMIT, S_RESULT };

/* One node: an operator of a plan. */
typedef struct Part {
  const qplan *pl;                 /* the plan */
  int stage;                       /* S_*: which of its operators */
  int k;                           /* S_JOIN: which join (pl->aJoin[k]) */
  const int *aKept;                /* the plan's kept columns' operators (q_kept_explain's: a
                                   ** compound's, each arm's), NULL none */
} Part;

/* What a node shows, in JSON and as text. */
typedef struct Node {
  const char *zOp;                 /* its operator's name */
  sqlite3_str *json;               /* its fields: ,"name":value ... */
  sqlite3_str *text;               /* its line after the operator's name */
} Node;

static int present(const qplan *pl, int stage){
  if( pl->nArm ) return stage==S_COMPOUND || (stage==S_SORT && pl->nSort) || (stage==S_LIMIT && pl->s->pLimit);
  switch( stage ){
    case S_SCAN: case S_RESULT: return 1;
    case S_JOIN:     return pl->nJoin>0;
    case S_POST:     return pl->nPost>0;
    case S_AGG:      return pl->grouped;
    case S_HAVING:   return pl->pHaving!=0;
    case S_DISTINCT: return pl->distinct;
    case S_SORT:     return pl->nSort>0;
    case S_LIMIT:    return pl->s->pLimit && !pl->isArm;
  }
  return 0;
}

/* The node p reads: the operator below it. */
static Part below(Part p){
  if( p.stage==S_JOIN && p.k>0 ){
    p.k--;
    return p;
  }
  do p.stage--; while( p.stage>S_COMPOUND && !present(p.pl, p.stage) );
  if( p.stage==S_JOIN ) p.k = p.pl->nJoin - 1;
  return p;
}

static Part top(const qplan *pl, const int *aKept){
  Part p = { pl, S_RESULT + 1, 0, aKept };
  return below(p);
}

static int nKid(Part p){
  switch( p.stage ){
    case S_COMPOUND: return p.pl->nArm;
    case S_SCAN:     return p.pl->pSub!=0;
    case S_JOIN:     return p.pl->aJoin[p.k].pBuild ? 2 : 1;   /* (a planned join has its build) */
    default:         return 1;
  }
}

static Part kid(Part p, int i){
  Part b = { 0, S_SCAN, 0, 0 };
  switch( p.stage ){
    case S_COMPOUND: return top(&p.pl->aArm[i], p.aKept ? &p.aKept[i] : 0);
    case S_SCAN:     return top(p.pl->pSub, 0);
    case S_JOIN:
      if( i==0 ) break;
      b.pl = p.pl->aJoin[p.k].pBuild;
      return b;
  }
  return below(p);
}

/* What runs node p (2.). */
static const char *pathOf(Part p){
  int kept = p.aKept && !p.pl->nArm ? p.aKept[0] : 0;
  int s = p.stage;
  if( kept && (p.pl->grouped ? s==S_SCAN || s==S_JOIN || s==S_POST || s==S_AGG : s==S_SCAN || s==S_SORT) ){
    return kept==Q_KEPT_DEVICE ? "device" : "kept, cpu";
  }
  return "cpu";
}

/* z on a node's line: a run of white space that holds a line break (SQL
** written on several lines) as one space. */
static void appendLine(sqlite3_str *out, const char *z){
  while( *z ){
    int n = 0, brk = 0;
    while( z[n]==' ' || z[n]=='\t' || z[n]=='\n' || z[n]=='\r' ){
      brk |= z[n]=='\n' || z[n]=='\r';
      n++;
    }
    if( brk ){
      sqlite3_str_appendchar(out, 1, ' ');
      z += n;
    }else{
      if( n==0 ) while( z[n] && z[n]!='\n' && z[n]!='\r' ) n++;
      sqlite3_str_append(out, z, n);
      z += n;
    }
  }
}

/* Field zKey, text z: JSON "zKey":"z"; on the line, zPre then z. */
static void fieldText(Node *n, const char *zKey, const char *zPre, const char *z){
  if( z==0 ) return;
  sqlite3_str_appendf(n->json, ",\"%s\":", zKey);
  ga_json_str(n->json, z);
  sqlite3_str_appendall(n->text, zPre);
  appendLine(n->text, z);
}

/* Field zKey, expressions a[0..m) (a term's too: DESC): a JSON array of
** their texts; on the line, zPre then them with zSep between (nothing where
** m is 0). */
static void fieldExprs(Node *n, const char *zKey, const char *zPre, const char *zSep, const qselect *s,
                       qexpr *const *a, const qterm *aTerm, int m){
  int i;
  sqlite3_str_appendf(n->json, ",\"%s\":[", zKey);
  for(i=0; i<m; i++){
    const qexpr *e = a ? a[i] : aTerm[i].e;
    char *z = qpExprText(s, e), *zAs = 0;
    if( aTerm && (aTerm[i].desc || aTerm[i].zAlias) ){
      zAs = aTerm[i].zAlias ? sqlite3_mprintf("%s AS %s", z ? z : "", aTerm[i].zAlias)
                            : sqlite3_mprintf("%s DESC", z ? z : "");
      ga_free(z);
      z = zAs;
    }
    if( i ) sqlite3_str_appendchar(n->json, 1, ',');
    ga_json_str(n->json, z ? z : "");
    sqlite3_str_appendall(n->text, i ? zSep : zPre);
    appendLine(n->text, z ? z : "");
    ga_free(z);
  }
  sqlite3_str_appendchar(n->json, 1, ']');
}

static void describe(Part p, Node *n){
  static const char *azSet[] = { "", "UNION ALL", "UNION", "INTERSECT", "EXCEPT" };
  static const char *azAgg[] = { "count", "count", "sum", "total", "avg", "min", "max", "gpu_var_samp",
    "gpu_var_pop", "gpu_stddev_samp", "gpu_stddev_pop", "gpu_median", "gpu_percentile", "gpu_percentile_cont",
    "gpu_percentile_disc", "gpu_argmin", "gpu_argmax" };
  static const char *azColl[] = { "BINARY", "NOCASE", "RTRIM", "BINARY", "BINARY" };
  const qplan *pl = p.pl;
  const qselect *s = pl->s;
  int i;
  switch( p.stage ){
    case S_COMPOUND:
      n->zOp = "compound";
      sqlite3_str_appendall(n->json, ",\"ops\":[");
      for(i=1; i<pl->nArm; i++){
        sqlite3_str_appendf(n->json, "%s\"%s\"", i>1 ? "," : "", azSet[pl->aArm[i].s->op]);
        sqlite3_str_appendf(n->text, "%s%s", i>1 ? ", " : " ", azSet[pl->aArm[i].s->op]);
      }
      sqlite3_str_appendchar(n->json, 1, ']');
      break;
    case S_SCAN:
      if( pl->pSub ){
        n->zOp = "subquery";
        fieldText(n, "as", " ", s->zAlias ? s->zAlias : s->zFrom);
      }else if( s->zFrom==0 ){
        n->zOp = "one row";
      }else{
        const char *zAs = pl->nJoin ? pl->zScanQual : s->zAlias;   /* (a build's: its join's name) */
        n->zOp = "scan";
        fieldText(n, "table", " ", pl->src.tab.zTab ? pl->src.tab.zTab : s->zFrom);
        if( zAs && pl->src.tab.zTab && sqlite3_stricmp(zAs, pl->src.tab.zTab) ) fieldText(n, "as", " AS ", zAs);
        sqlite3_str_appendall(n->json, ",\"columns\":[");
        for(i=0; i<pl->nCol; i++){
          const char *z = pl->src.tab.aCol[pl->aiCol[i]].zName;
          if( i ) sqlite3_str_appendchar(n->json, 1, ',');
          ga_json_str(n->json, z);
          sqlite3_str_appendall(n->text, i ? ", " : " (");
          appendLine(n->text, z);
        }
        sqlite3_str_appendall(n->json, "]");
        if( pl->nCol ) sqlite3_str_appendchar(n->text, 1, ')');
      }
      fieldExprs(n, "filter", " WHERE ", " AND ", s, pl->aConj, 0, pl->nConj);
      break;
    case S_JOIN: {
      const qjoin *q = &pl->aJoin[p.k];
      const char *zKind = q->left ? "left" : q->semi==Q_SEMI ? "semi" : q->semi==Q_ANTI ? "anti"
                        : q->semi==Q_COUNT ? "count" : "inner";
      n->zOp = "join";
      sqlite3_str_appendf(n->json, ",\"kind\":\"%s\"", zKind);
      sqlite3_str_appendf(n->text, " %s", zKind);
      fieldText(n, "table", " ", q->zQual);
      fieldExprs(n, "on", " ON ", " AND ", s, q->aEq, 0, q->nEq);
      if( q->nEq==0 ) sqlite3_str_appendall(n->text, " (every pair)");
      fieldExprs(n, "conditions", q->nEq ? " AND " : " WHERE ", " AND ", s, q->aOn, 0, q->nOn);
      break;
    }
    case S_POST:
      n->zOp = "filter";
      fieldExprs(n, "conditions", " ", " AND ", s, pl->aPost, 0, pl->nPost);
      break;
    case S_AGG:
      n->zOp = "aggregate";
      sqlite3_str_appendall(n->json, ",\"aggregates\":[");
      for(i=0; i<pl->nAgg; i++){
        const qagg *g = &pl->aAgg[i];
        char *z = g->x ? qpExprText(s, g->x) : 0;
        sqlite3_str_appendf(n->json, "%s{\"fn\":\"%s%s\",\"arg\":", i ? "," : "", azAgg[g->fn],
                            g->distinct ? " DISTINCT" : "");
        if( g->x ) ga_json_str(n->json, z ? z : ""); else sqlite3_str_appendall(n->json, "null");
        sqlite3_str_appendchar(n->json, 1, '}');
        sqlite3_str_appendf(n->text, "%s%s(%s", i ? ", " : " ", azAgg[g->fn], g->distinct ? "DISTINCT " : "");
        appendLine(n->text, g->x ? z ? z : "" : "*");
        sqlite3_str_appendchar(n->text, 1, ')');
        ga_free(z);
      }
      sqlite3_str_appendall(n->json, "],\"keys\":[");
      for(i=0; i<pl->nKey; i++){
        char *z = qpExprText(s, s->aGroup[i].e);
        sqlite3_str_appendf(n->json, "%s{\"expr\":", i ? "," : "");
        ga_json_str(n->json, z ? z : "");
        sqlite3_str_appendf(n->json, ",\"collation\":\"%s\"}", azColl[pl->aKeyColl[i]]);
        sqlite3_str_appendall(n->text, i ? ", " : " GROUP BY ");
        appendLine(n->text, z ? z : "");
        ga_free(z);
      }
      sqlite3_str_appendchar(n->json, 1, ']');
      break;
    case S_HAVING: {
      n->zOp = "having";
      fieldExprs(n, "condition", " ", "", s, &s->pHaving, 0, 1);
      break;
    }
    case S_DISTINCT:
      n->zOp = "distinct";
      break;
    case S_SORT:
      n->zOp = "sort";
      fieldExprs(n, "order_by", " ", ", ", s, 0, s->aOrder,
                 pl->nArm || pl->nSort - pl->nJoinOrd>s->nOrder ? s->nOrder : pl->nSort - pl->nJoinOrd);
      if( !pl->nArm ) fieldText(n, "rows_in", pl->nSort>pl->nJoinOrd ? ", then " : " ", pl->zJoinOrd);
      break;
    case S_LIMIT:
      n->zOp = "limit";
      fieldExprs(n, "limit", " ", "", s, &s->pLimit, 0, 1);
      if( s->pOffset ) fieldExprs(n, "offset", " OFFSET ", "", s, &s->pOffset, 0, 1);
      break;
    case S_RESULT:
      n->zOp = "result";
      fieldExprs(n, "columns", " ", ", ", s, 0, s->aRes, s->nRes);
      if( pl->nMemo ){
        sqlite3_str_appendall(n->json, ",\"sqlite_per_value\":[");
        for(i=0; i<pl->nMemo; i++){
          if( i ) sqlite3_str_appendchar(n->json, 1, ',');
          ga_json_str(n->json, pl->aMemoNode[i]->zTpl + 7);
          sqlite3_str_appendall(n->text, i ? ", " : " (SQLite computes per value: ");
          appendLine(n->text, pl->aMemoNode[i]->zTpl + 7);
        }
        sqlite3_str_appendchar(n->json, 1, ']');
        sqlite3_str_appendchar(n->text, 1, ')');
      }
      break;
  }
}

/* Node p and those below it: JSON, or text lines, each zPre then the
** branch to it (none at the top). SQLITE_OK or SQLITE_NOMEM. */
static int emit(sqlite3_str *out, int text, Part p, const char *zPre, int top, int last){
  Node n;
  int i, m = nKid(p), rc;
  char *zKidPre = 0;
  n.zOp = "";
  n.json = sqlite3_str_new(0);
  n.text = sqlite3_str_new(0);
  describe(p, &n);
  if( (rc = sqlite3_str_errcode(n.json) | sqlite3_str_errcode(n.text))==SQLITE_OK ){
    if( text ){
      const char *z;
      sqlite3_str_appendf(out, "%s%s", zPre, top ? "" : last ? "`--" : "|--");
      for(z=n.zOp; *z; z++) sqlite3_str_appendchar(out, 1, (char)(*z>='a' && *z<='z' ? *z - 'a' + 'A' : *z));
      sqlite3_str_appendf(out, "%s  [%s]\n", sqlite3_str_value(n.text) ? sqlite3_str_value(n.text) : "", pathOf(p));
      zKidPre = sqlite3_mprintf("%s%s", zPre, top ? "" : last ? "   " : "|  ");
      if( zKidPre==0 ) rc = SQLITE_NOMEM;
    }else{
      sqlite3_str_appendf(out, "{\"op\":\"%s\",\"path\":\"%s\"%s", n.zOp, pathOf(p),
                          sqlite3_str_value(n.json) ? sqlite3_str_value(n.json) : "");
      if( m ) sqlite3_str_appendall(out, ",\"children\":[");
    }
  }
  ga_free(sqlite3_str_finish(n.json));
  ga_free(sqlite3_str_finish(n.text));
  for(i=0; i<m && rc==SQLITE_OK; i++){
    if( !text && i ) sqlite3_str_appendchar(out, 1, ',');
    rc = emit(out, text, kid(p, i), zKidPre, 0, i==m - 1);
  }
  if( !text && rc==SQLITE_OK ) sqlite3_str_appendall(out, m ? "]}" : "}");
  ga_free(zKidPre);
  return rc;
}

int q_plan_explain(sqlite3_str *out, const qplan *pl, const int *aKept, int text){
  return emit(out, text, top(pl, aKept), "", 1, 1);
}

/* A row of SQLite's plan (EXPLAIN QUERY PLAN). */
typedef struct EqpRow { int id, parent; char *zDetail; } EqpRow;

/* The rows of a[0..n) whose parent is iParent, and theirs below them, as
** q_plan_explain draws its nodes (4.). */
static void sqliteRows(sqlite3_str *out, int text, const EqpRow *a, int n, int iParent, const char *zPre){
  int i, k, m = 0, j = 0;
  for(i=0; i<n; i++) m += a[i].parent==iParent;
  for(i=0; i<n; i++){
    char *zKid;
    int nKid = 0;
    if( a[i].parent!=iParent ) continue;
    j++;
    for(k=0; k<n; k++) nKid += a[k].parent==a[i].id;
    if( text ){
      sqlite3_str_appendf(out, "%s%s", zPre, j==m ? "`--" : "|--");
      appendLine(out, a[i].zDetail);
      sqlite3_str_appendchar(out, 1, '\n');
    }else{
      sqlite3_str_appendf(out, "%s{\"op\":\"sqlite\",\"path\":\"sqlite\",\"detail\":", j>1 ? "," : "");
      ga_json_str(out, a[i].zDetail);
      if( nKid ) sqlite3_str_appendall(out, ",\"children\":[");
    }
    if( (zKid = sqlite3_mprintf("%s%s", zPre, j==m ? "   " : "|  "))==0 ) return;   /* (NOMEM: the caller's) */
    sqliteRows(out, text, a, n, a[i].id, zKid);
    ga_free(zKid);
    if( !text ) sqlite3_str_appendall(out, nKid ? "]}" : "}");
  }
}

int q_sqlite_explain(sqlite3_str *out, sqlite3 *db, const char *zSql, int text){
  char *zPlan = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", zSql);
  sqlite3_stmt *st = 0;
  EqpRow *a = 0;
  int n = 0, nAlloc = 0, rc, i;
  if( zPlan==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zPlan, -1, &st, 0);
  ga_free(zPlan);
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    if( n==nAlloc ){
      EqpRow *x = ga_realloc64(a, sizeof(EqpRow)*(uint64_t)(nAlloc ? 2*nAlloc : 16));
      if( x==0 ){ rc = SQLITE_NOMEM; break; }
      a = x;
      nAlloc = nAlloc ? 2*nAlloc : 16;
    }
    a[n].id = sqlite3_column_int(st, 0);
    a[n].parent = sqlite3_column_int(st, 1);
    if( (a[n].zDetail = sqlite3_mprintf("%s", (const char*)sqlite3_column_text(st, 3)))==0 ){ rc = SQLITE_NOMEM; break; }
    n++;
  }
  if( rc==SQLITE_OK ) rc = sqlite3_finalize(st);
  else sqlite3_finalize(st);
  if( rc==SQLITE_OK ){
    if( text ){
      sqlite3_str_appendall(out, "QUERY PLAN\n");
    }else{
      sqlite3_str_appendall(out, "{\"op\":\"sqlite\",\"path\":\"sqlite\",\"detail\":\"QUERY PLAN\"");
      if( n ) sqlite3_str_appendall(out, ",\"children\":[");
    }
    sqliteRows(out, text, a, n, 0, "");
    if( !text ) sqlite3_str_appendall(out, n ? "]}" : "}");
    rc = sqlite3_str_errcode(out);
  }
  for(i=0; i<n; i++) ga_free(a[i].zDetail);
  ga_free(a);
  return rc;
}
