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
**      the table's columns (names, affinities, collations: fromSub).
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
**      those pairs where a condition over them decides: sqlitePlan). The
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
**      then the outer query's (qualify); its conjuncts over its table
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
**      plan (sqlitePlan), which may search an index instead.
*/
#include <string.h>
#include <stdarg.h>
#include <stdlib.h>
#include "query.h"
#include "table.h"
#include "vtab.h"
#include "text.h"
#include "cost.h"

typedef struct Bind {
  qplan *pl;
  qselect *s;
  sqlite3_vtab *vt;                /* the virtual table the plan reads for (its errors) */
  sqlite3 *db;
  qsqlkeep *keep;                  /* statements kept between the table's reads (NULL: none) */
  sqlite3_value **apParam; int nParam;
  int nSubq;                       /* subqueries' values numbered after the parameters */
  const qexpr *aSubq[8]; int nSubqDone; /* subqueries the engine computed (their text, value
                                   ** and affinity): the same text again is the same value */
  char *zWhy;                      /* not covered: why */
  int rc;                          /* an error */
  char *zErr;                      /* ... its message */
  /* a join (requirement 9): FROM's tables, in FROM's order */
  struct JTab {
    const ga_table *t;             /* the table */
    const char *zQual;             /* the name that qualifies its columns */
    int iJoin;                     /* its pl->aJoin, or -1: the scan's table */
    int left;                      /* LEFT JOIN */
    int derived;                   /* a subquery or WITH table (9b) */
    int semi;                      /* a correlated subquery's table (9a): Q_SEMI, Q_ANTI; its
                                   ** columns are named only qualified (qualify), never outside */
    const char *zFrom;             /* its FROM text ([schema.]name) */
    unsigned char aUsing[GA_COLS_MAX];  /* its columns a USING or NATURAL shares with a table
                                   ** before it (SELECT * shows them there, once) */
  } aTab[Q_MAXTAB];
  int nTab;                        /* 0: one table, or none */
  int nFrom;                       /* ... FROM's (the subqueries' tables follow: 9a) */
  struct Semi {
    qexpr *pTerm;                  /* the WHERE conjunct it is (left out of WHERE's) */
    qselect *sel;                  /* its SELECT, parsed with the statement's text positions */
    qexpr *pIn;                    /* IN: its left operand (NULL: EXISTS) */
    int anti;                      /* NOT EXISTS */
    int count;                     /* a correlated count(*) of the result list (9e): pTerm its node */
  } aSemi[Q_MAXTAB];               /* correlated EXISTS, NOT EXISTS, IN (SELECT) of WHERE (9a) */
  int nSemi;
} Bind;

static int whyf(Bind *b, const char *zFmt, ...){
  if( b->zWhy==0 && b->rc==SQLITE_OK ){
    va_list ap;
    va_start(ap, zFmt);
    b->zWhy = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
    if( b->zWhy==0 ) b->rc = SQLITE_NOMEM;
  }
  return 0;
}
static int stopped(Bind *b){ return b->zWhy!=0 || b->rc!=SQLITE_OK; }

/* BINARY's collation in db's plans: the UTF-16 order of TEXT where the
** database is UTF-16 (requirement 2). */
static int binaryOf(sqlite3 *db, sqlite3_vtab *vt){
  int enc = ga_db_encoding(db, vt ? ((ga_vtab*)vt)->conn : 0);
  return enc==SQLITE_UTF16LE ? C_BIN16LE : enc==SQLITE_UTF16BE ? C_BIN16BE : C_BINARY;
}

/* Collation z's C_*, BINARY's being bin (the database's: requirement 2);
** -1 one the engine does not cover. */
static int collOf(int bin, const char *z){
  if( sqlite3_stricmp(z, "BINARY")==0 ) return bin;
  if( sqlite3_stricmp(z, "NOCASE")==0 ) return C_NOCASE;
  if( sqlite3_stricmp(z, "RTRIM")==0 ) return C_RTRIM;
  return -1;
}

/* ---- structure ------------------------------------------------------------------- */

/* sqlite3ExprCompare's question, on the parse: the same expression? */
static int same(const qselect *s, const qexpr *a, const qexpr *b){
  int i;
  if( a==b ) return 1;
  if( a==0 || b==0 || a->op!=b->op || a->nArg!=b->nArg || a->distinct!=b->distinct || a->agg!=b->agg ) return 0;
  switch( a->op ){
    case E_COL:
      if( sqlite3_stricmp(a->zName, b->zName) ) return 0;
      if( (a->zQual==0)!=(b->zQual==0) || (a->zQual && sqlite3_stricmp(a->zQual, b->zQual)) ) return 0;
      return 1;
    case E_LIT:
      if( a->end - a->at != b->end - b->at ) return 0;
      if( a->end==a->at ) return a->t==b->t && a->i==b->i;   /* -x's 0 */
      return memcmp(s->zSql + a->at, s->zSql + b->at, (size_t)(a->end - a->at))==0;
    case E_PARAM:
      return a->iParam==b->iParam && ((a->zName==0 && b->zName==0) || (a->zName && b->zName && strcmp(a->zName, b->zName)==0));
    case E_SUBQ:                    /* (its text: its SELECT) */
      return a->end - a->at==b->end - b->at && memcmp(s->zSql + a->at, s->zSql + b->at, (size_t)(a->end - a->at))==0;
    default:
      if( (a->zName==0)!=(b->zName==0) || (a->zName && sqlite3_stricmp(a->zName, b->zName)) ) return 0;
      if( !same(s, a->a, b->a) || !same(s, a->b, b->b) ) return 0;
      for(i=0; i<a->nArg; i++) if( !same(s, a->arg[i], b->arg[i]) ) return 0;
      return a->nElse==b->nElse;
  }
}

/* Calls f on each child slot of e. */
#define EACH_CHILD(e, pp, body) do{ int i_; qexpr **pp; \
  pp = &(e)->a; if( *pp ){ body; } pp = &(e)->b; if( *pp ){ body; } \
  for(i_=0; i_<(e)->nArg; i_++){ pp = &(e)->arg[i_]; body; } }while(0)

/* ---- constants -------------------------------------------------------------------- */

/* Is e constant: no column, key or aggregate below? */
static int isConst(const qexpr *e){
  int c = 1;
  if( e==0 ) return 1;
  if( e->op==E_COL || Q_GROUP_LEAF(e->op) || e->op==E_AGG ) return 0;
  if( e->op==E_COLLATE && e->synth ) return 0;   /* (flatten.c's: its collation is no text's) */
  EACH_CHILD((qexpr*)e, pp, c = c && isConst(*pp));
  return c;
}

static int collWalk(const qexpr *e);

/* The parameters below e into a, in text order, each node once (BETWEEN's
** operand is below both of its comparisons); -1 if there are more than 64.
** With them the subqueries' values that the engine computed and that have
** no affinity, bound as parameters too (the others' texts stay, SQLite
** computes them again: a bound value has no affinity). */
static int paramsOf(qexpr *e, qexpr **a, int n){
  if( e==0 || n<0 ) return n;
  if( e->op==E_PARAM || (e->op==E_LIT && e->fromSubq==1 && e->aff==-1) ){
    int m = n, k;
    for(k=0; k<n; k++) if( a[k]==e ) return n;
    if( n==64 ) return -1;
    while( m>0 && a[m-1]->at>e->at ){ a[m] = a[m-1]; m--; }
    a[m] = e;
    return n + 1;
  }
  EACH_CHILD(e, pp, n = paramsOf(*pp, a, n));
  return n;
}

/* e's text onto x, each parameter among aP[0..nP) (in text order) written
** ?N with its number in the whole SELECT: alone, SQLite would number a
** named one by this text (in "@w BETWEEN ?1 AND 2", @w would be ?1). */
static void spanSql(Bind *b, sqlite3_str *x, const qexpr *e, qexpr **aP, int nP){
  int at = e->at, j;
  for(j=0; j<nP; j++){
    if( aP[j]->at<at || aP[j]->end>e->end ) continue;   /* outside, or a copy already written */
    sqlite3_str_appendf(x, "%.*s?%d", aP[j]->at - at, b->s->zSql + at, aP[j]->iParam);
    at = aP[j]->end;
  }
  sqlite3_str_appendf(x, "%.*s", e->end - at, b->s->zSql + at);
}

/* Read column 0 of st's row into the literal e. */
static int takeValue(Bind *b, qexpr *e, sqlite3_value *v){
  int t = sqlite3_value_type(v), n;
  e->t = t;
  if( t==SQLITE_INTEGER ) e->i = sqlite3_value_int64(v);
  else if( t==SQLITE_FLOAT ){ double d = sqlite3_value_double(v); memcpy(&e->i, &d, 8); }
  else if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
    const void *z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(v) : sqlite3_value_blob(v);
    n = sqlite3_value_bytes(v);
    if( (e->z = q_alloc(b->s, n + 1))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( n ) memcpy(e->z, z, (size_t)n);
    e->n = n;
  }
  return 1;
}

static int planAny(sqlite3_vtab*, sqlite3*, qsqlkeep*, qselect*, sqlite3_value**, int, const qpush*, int, qplan*, char**);
static int sqlitePlan(sqlite3*, ga_conn*, qplan*, sqlite3_value**, int, qsqlkeep*, char**);
static int keptPrepare(sqlite3*, ga_conn*, qsqlkeep*, const char*, sqlite3_stmt**);
static void keptDone(qsqlkeep*, sqlite3_stmt*);
static int explainPrepared(sqlite3*, ga_conn*, qsqlkeep*, const char*, sqlite3_value**, int, sqlite3_stmt**);
static int cmpAffinity(const qexpr *a, const qexpr *b);
static int cmpColl(int bin, const qexpr *a, const qexpr *b);

static int aliasIndex(const qselect*, const char*);
static char *exprText(const qselect*, const qexpr*);
static int colIndex(const ga_table*, const char*);

/* The statement's WITH clause (parse.c's nWith): its length, *pz its text. */
static int withText(const Bind *b, const char **pz){
  const qselect *root = b->s->pRoot ? b->s->pRoot : b->s;
  *pz = root->zSql;
  return root->nWith;
}

/* The text of the SELECT inside subquery node q (from its first '(' to
** its last ')'), after the statement's WITH clause (the tables it may
** name), sqlite3_malloc'd; NULL (b->rc set) where out of memory. */
static char *subText(Bind *b, const qexpr *q){
  const char *z = b->s->zSql + q->at, *zWith;
  int n = q->end - q->at, at, nWith = withText(b, &zWith);
  char *zSub;
  for(at=0; at<n && z[at]!='('; at++){}
  if( (zSub = sqlite3_mprintf("%.*s%.*s", nWith, zWith, n - at - 2, z + at + 1))==0 ) b->rc = SQLITE_NOMEM;
  return zSub;
}

/* Does a column of the query's own table(s), or a result's alias, answer
** to zName? */
static int outerHas(const Bind *b, const char *zName){
  int i, c;
  if( aliasIndex(b->s, zName)>=0 ) return 1;
  if( b->nTab ){
    for(i=0; i<b->nTab; i++) if( colIndex(b->aTab[i].t, zName)>=0 ) return 1;
    return 0;
  }
  if( b->s->zFrom==0 ) return 0;
  for(c=0; c<b->pl->src.tab.nCol; c++) if( sqlite3_stricmp(b->pl->src.tab.aCol[c].zName, zName)==0 ) return 1;
  return 0;
}

/* Does subquery q (E_SUBQ) use the outer query's row? SQLite says, the
** subquery prepared alone: "no such column: X" names what it takes from
** outside (X into *pzName where given: sqlite3_free it). So does a name
** that alone is a string ("x") or TRUE or FALSE, where a column or alias
** of the outer query answers to it (SQLite looks outward before falling
** back). 1 correlated, else 0 (b->rc set on an error). */
static int correlated(Bind *b, const qexpr *q, char **pzName){
  char *zSub = subText(b, q);
  sqlite3_stmt *st = 0;
  qtok *aTok = 0;
  int rc, r = 0, nTok = 0, i;
  if( zSub==0 ) return 0;
  rc = sqlite3_prepare_v2(b->db, zSub, -1, &st, 0);
  if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){
    b->rc = rc;
  }else if( rc ){
    const char *zMsg = sqlite3_errmsg(b->db);
    if( (r = sqlite3_strnicmp(zMsg, "no such column: ", 16)==0)!=0 && pzName ){
      if( (*pzName = sqlite3_mprintf("%s", zMsg + 16))==0 ) b->rc = SQLITE_NOMEM;
    }
  }else if( (rc = q_lex(zSub, &aTok, &nTok))!=SQLITE_OK ){
    b->rc = rc;
  }else{
    for(i=0; i<nTok && !r; i++){
      const qtok *t = &aTok[i];
      char *zName;
      if( t->type!=T_ID || (zSub[t->at]!='"' && !q_tok_is(zSub, t, "true") && !q_tok_is(zSub, t, "false")) ) continue;
      if( (zName = zSub[t->at]=='"' ? sqlite3_mprintf("%.*s", t->n - 2, zSub + t->at + 1)
                                    : sqlite3_mprintf("%.*s", t->n, zSub + t->at))==0 ){
        b->rc = SQLITE_NOMEM;
        break;
      }
      if( (r = outerHas(b, zName))!=0 && pzName ) *pzName = zName;
      else sqlite3_free(zName);
    }
  }
  sqlite3_free(aTok);
  sqlite3_finalize(st);
  sqlite3_free(zSub);
  return r && b->rc==SQLITE_OK;
}

/* A subquery run on the engine (subqueryValue, inSubquery): its text, parse,
** plan, and rows. */
typedef struct SubRun {
  char *zSub;                      /* its SELECT's text */
  qselect sel;                     /* ... parsed */
  qplan pl;                        /* ... planned */
  const qexpr *pFirst;             /* its first result (the first arm's), or NULL: none */
  int aff;                         /* ... its affinity; -1 none */
  int mixed;                       /* a compound's arms' first results differ in affinity (or one
                                   ** has none) */
  qresult res;                     /* its rows */
} SubRun;

/* The SELECT inside subquery node q (the text from its first '(' to its
** last ')') parsed and planned into r (asSet: its rows are IN's, a set).
** SQLITE_OK (*pzWhy set where the engine does not cover it), or an error
** (b->rc set). */
static int subPlan(Bind *b, const qexpr *q, int asSet, SubRun *r, char **pzWhy){
  int rc, k;
  memset(r, 0, sizeof(*r));
  r->aff = -1;
  *pzWhy = 0;
  if( (r->zSub = subText(b, q))==0 ) return b->rc;
  if( (rc = q_parse(r->zSub, 0, &r->sel))!=SQLITE_OK ) return b->rc = rc;
  r->sel.asSet = asSet;
  rc = planAny(b->vt, b->db, 0, &r->sel, 0, 0, 0, 0, &r->pl, pzWhy);
  if( rc==SQLITE_OK && *pzWhy==0 ){
    const qplan *first = r->pl.nArm ? &r->pl.aArm[0] : &r->pl;
    r->pFirst = first->nOut ? first->aOut[0] : 0;
    r->aff = r->pFirst ? r->pFirst->aff : -1;
    for(k=1; k<r->pl.nArm; k++) if( r->pl.aArm[k].nOut<1 || r->pl.aArm[k].aOut[0]->aff!=r->aff ) r->mixed = 1;
  }
  return rc;
}

/* r's rows, as q_plan (SQLite's own plan deciding too) and q_exec would
** give them. */
static int subRows(Bind *b, SubRun *r, char **pzWhy){
  int rc = SQLITE_OK;
  if( r->sel.zFrom || r->sel.pSub || r->sel.pNext ) rc = sqlitePlan(b->db, 0, &r->pl, 0, 0, 0, pzWhy);
  if( rc==SQLITE_OK && *pzWhy==0 ) rc = q_exec(b->vt, b->db, &r->pl, 0, 0, "", &r->res, pzWhy);
  return rc;
}

/* r freed; an error that is not a reason (rc, zWhy) into b: 0 then, else 1. */
static int subDone(Bind *b, SubRun *r, int rc, const char *zWhy){
  q_result_free(&r->res);
  q_plan_free(&r->pl);
  q_select_free(&r->sel);
  sqlite3_free(r->zSub);
  if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT || (rc!=SQLITE_OK && rc!=QE_BAIL && zWhy==0) ){
    if( b->rc==SQLITE_OK ) b->rc = rc;
    return 0;
  }
  return 1;
}

/* Scalar subquery or EXISTS e (that refers to no outer column: it is
** constant) run on the engine where it covers it, its value into e: its
** first row's first column (NULL: none), or EXISTS's 1 or 0, with the
** affinity SQLite gives the subquery (its first result's; a compound's
** arms must agree), when binding: the comparisons above it apply it. 1
** done, 0 stopped (b says why), -1 not the engine's (e stays E_SUBQ:
** SQLite computes it when folding; fromSubq 2 where its affinity is
** known, planned but faster by SQLite's plan). */
static int subqueryValue(Bind *b, qexpr *e){
  const char *z = b->s->zSql + e->at;
  int n = e->end - e->at, k;
  int isExists = sqlite3_strnicmp(z, "EXISTS", 6)==0, rc;
  char *zWhy = 0;
  SubRun r;
  if( correlated(b, e, &zWhy) ){
    whyf(b, "a subquery that uses the outer row's %s", zWhy);
    sqlite3_free(zWhy);
    return 0;
  }
  if( b->rc ) return 0;
  for(k=0; k<b->nSubqDone; k++){
    const qexpr *d = b->aSubq[k];
    if( d->end - d->at==n && memcmp(b->s->zSql + d->at, z, (size_t)n)==0 ){
      /* (LIMIT 2 - (SELECT count(x) FROM f) % 2 OFFSET ((SELECT count(x) FROM f) - 1) / 2: one read) */
      e->t = d->t; e->i = d->i; e->z = d->z; e->n = d->n;
      e->op = E_LIT;
      e->aff = d->aff;
      e->fromSubq = 1;
      e->iParam = b->nParam + 1 + b->nSubq++;
      return 1;
    }
  }
  rc = subPlan(b, e, 0, &r, &zWhy);
  if( rc==SQLITE_OK && zWhy==0 && !isExists ){
    if( r.mixed ){
      rc = QE_BAIL;
    }else{
      e->aff = r.aff;
      e->fromSubq = 2;
    }
  }
  if( rc==SQLITE_OK && zWhy==0 ){
    rc = subRows(b, &r, &zWhy);
    if( rc==SQLITE_OK && (r.res.nCol!=1 && !isExists) ) rc = QE_BAIL;
  }
  if( rc==SQLITE_OK && zWhy==0 ){
    qval v;
    memset(&v, 0, sizeof(v));
    if( isExists ){ v.t = SQLITE_INTEGER; v.v = r.res.nRow>0; }
    else if( r.res.nRow==0 ) v.t = SQLITE_NULL;
    else v = r.res.a[0];
    e->t = v.t;
    e->i = v.v;
    if( v.t==SQLITE_TEXT || v.t==SQLITE_BLOB ){
      if( (e->z = q_alloc(b->s, v.n + 1))==0 ) rc = SQLITE_NOMEM;
      else if( v.n ) memcpy(e->z, v.z, (size_t)v.n);
      e->n = v.n;
    }
    e->op = E_LIT;
    e->aff = isExists ? -1 : r.aff;
    e->fromSubq = 1;
    e->iParam = b->nParam + 1 + b->nSubq++;
    if( rc==SQLITE_OK && b->nSubqDone<(int)(sizeof(b->aSubq)/sizeof(b->aSubq[0])) ) b->aSubq[b->nSubqDone++] = e;
  }
  k = subDone(b, &r, rc, zWhy);
  sqlite3_free(zWhy);
  if( !k ) return 0;
  return rc==SQLITE_OK && e->op==E_LIT ? 1 : -1;
}

/* a IN (SELECT ...) (requirement 3a): the SELECT (which refers to no
** outer column) run on the engine where it covers it, as q_plan and q_exec
** run it, its values into e, an E_IN of them: a's and its result's
** comparison affinity and collation (exprINAffinity, the key of
** sqlite3CodeRhsOfIN), NULL kept aside (hasNull); of no row, FALSE even for
** a NULL a. 1 done, 0 stopped (b says why). */
static int inSubquery(Bind *b, qexpr *e){
  char *zWhy = 0;
  SubRun r;
  int rc;
  if( correlated(b, e->b, &zWhy) ){
    whyf(b, "IN (a subquery that uses the outer row's %s)", zWhy);
    sqlite3_free(zWhy);
    return 0;
  }
  if( b->rc ) return 0;
  rc = subPlan(b, e->b, 1, &r, &zWhy);
  if( rc==SQLITE_OK && zWhy==0 ){
    const qplan *first = r.pl.nArm ? &r.pl.aArm[0] : &r.pl;
    if( first->nOut!=1 || r.mixed ) rc = QE_BAIL;
    else{
      e->cmpAff = cmpAffinity(e->a, r.pFirst);
      e->cmpColl = cmpColl(b->pl->bin, e->a, r.pFirst);
      if( r.pFirst->explicitColl && !e->a->explicitColl ) rc = QE_BAIL;   /* (a COLLATE inside: its arms') */
    }
  }
  if( rc==SQLITE_OK && zWhy==0 ) rc = subRows(b, &r, &zWhy);
  if( rc==SQLITE_OK && zWhy==0 && r.res.nCol!=1 ) rc = QE_BAIL;
  if( rc==SQLITE_OK && zWhy==0 ){
    int64_t i;
    if( r.res.nRow==0 ){
      e->op = E_LIT;                /* x IN (no rows): FALSE, even for NULL */
      e->t = SQLITE_INTEGER;
      e->i = 0;
      e->a = e->b = 0;
      /* (not bound as a value where a constant above it is folded: the
      ** parser's NOT IN shares this node's text, NOT included; fold
      ** computes that NOT itself) */
    }else if( r.res.nRow>Q_MAXIN ){
      zWhy = sqlite3_mprintf("IN (a subquery of more than %d rows)", Q_MAXIN);
    }else if( (e->aIn = q_alloc(b->s, (int)(sizeof(qval)*r.res.nRow)))==0 ){
      rc = SQLITE_NOMEM;
    }else{
      for(i=0; i<r.res.nRow && rc==SQLITE_OK; i++){
        qval v = r.res.a[i];
        if( v.t==SQLITE_NULL ){ e->hasNull = 1; continue; }
        if( v.t==SQLITE_TEXT || v.t==SQLITE_BLOB ){
          char *c = q_alloc(b->s, v.n + 1);
          if( c==0 ){ rc = SQLITE_NOMEM; break; }
          if( v.n ) memcpy(c, v.z, (size_t)v.n);
          v.z = c;
        }
        e->aIn[e->nIn++] = v;
      }
      e->op = E_IN;
      e->b = 0;
    }
  }
  if( !subDone(b, &r, rc, zWhy) ){
    sqlite3_free(zWhy);
    return 0;
  }
  if( rc==QE_BAIL || zWhy ){
    whyf(b, "IN (a subquery the engine does not cover%s%s)", zWhy ? ": " : "", zWhy ? zWhy : "");
    sqlite3_free(zWhy);
    return 0;
  }
  return 1;
}

/* Constant e (a literal, a parameter, a constant expression: requirement
** 3) becomes an E_LIT holding the value SQLite gives it; its affinity and
** collation stay. */
static int fold(Bind *b, qexpr *e){
  char *zSql;
  sqlite3_stmt *st = 0;
  qexpr *aP[64];
  int rc, nP, j;
  if( e->op==E_LIT && e->t ) return 1;
  e->coll = collWalk(e);
  if( e->op==E_NOT && e->a->op==E_LIT && (e->a->t==SQLITE_INTEGER || e->a->t==SQLITE_NULL) ){
    /* NOT of a value known already: x NOT IN (a subquery of no rows) is
    ** NOT FALSE, though its text names the column x */
    e->t = e->a->t;
    e->i = e->a->t==SQLITE_INTEGER ? e->a->i==0 : 0;
    e->op = E_LIT;
    e->a = 0;
    return 1;
  }
  if( e->op==E_PARAM ){
    sqlite3_value *v = e->iParam>=1 && e->iParam<=b->nParam ? b->apParam[e->iParam - 1] : 0;
    if( v ){
      if( !takeValue(b, e, v) ) return 0;
    }else{
      e->t = SQLITE_NULL;
    }
    e->op = E_LIT;
    return 1;
  }
  if( (nP = paramsOf(e, aP, 0))<0 ) return whyf(b, "a constant with more than 64 parameters");
  {
    sqlite3_str *x = sqlite3_str_new(0);
    const char *zWith;
    int nWith = withText(b, &zWith);
    if( q_has_subq(e) ) sqlite3_str_appendf(x, "%.*s", nWith, zWith);   /* (the tables it may name) */
    sqlite3_str_appendall(x, "SELECT ");
    if( e->synth ){                 /* BETWEEN's or CASE's comparison, flatten.c's AND: its operands' texts */
      sqlite3_str_appendchar(x, 1, '(');
      spanSql(b, x, e->a, aP, nP);
      sqlite3_str_appendf(x, ") %s (", e->op==E_GE ? ">=" : e->op==E_LE ? "<=" : e->op==E_AND ? "AND" : "==");
      spanSql(b, x, e->b, aP, nP);
      sqlite3_str_appendchar(x, 1, ')');
    }else{
      spanSql(b, x, e, aP, nP);
    }
    if( (zSql = sqlite3_str_finish(x))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( q_has_subq(e) ){               /* (its sums rounded as the engine's are) */
      char *z = q_sql_exact_sums(zSql);
      sqlite3_free(zSql);
      if( (zSql = z)==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    }
  }
  rc = sqlite3_prepare_v2(b->db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ){
    sqlite3_finalize(st);
    b->rc = rc;
    return 0;
  }
  if( rc ){
    sqlite3_finalize(st);
    if( q_has_subq(e) ) return whyf(b, "a subquery that refers to the outer query (%s)", sqlite3_errmsg(b->db));
    return whyf(b, "a constant SQLite cannot compute alone (%s)", sqlite3_errmsg(b->db));
  }
  if( e->op==E_SUBQ && e->fromSubq!=2 && sqlite3_strnicmp(b->s->zSql + e->at, "EXISTS", 6)!=0 ){
    /* its value alone would lose the affinity SQLite gives it where it
    ** meets a column (its first result's) */
    sqlite3_finalize(st);
    return whyf(b, "a scalar subquery the engine does not cover (SQLite applies its result's affinity)");
  }
  for(j=0; j<nP && rc==SQLITE_OK; j++){
    const qexpr *x = aP[j];
    if( x->op==E_LIT ){
      switch( x->t ){
        case SQLITE_INTEGER: rc = sqlite3_bind_int64(st, x->iParam, x->i); break;
        case SQLITE_FLOAT: { double d; memcpy(&d, &x->i, 8); rc = sqlite3_bind_double(st, x->iParam, d); break; }
        case SQLITE_TEXT: rc = ga_bind_text(st, x->iParam, x->z, x->n, q_enc_of(b->pl->bin)); break;
        case SQLITE_BLOB: rc = sqlite3_bind_blob(st, x->iParam, x->z, x->n, SQLITE_STATIC); break;
        default: break;
      }
    }else if( x->iParam>=1 && x->iParam<=b->nParam && b->apParam[x->iParam - 1] ){
      rc = sqlite3_bind_value(st, x->iParam, b->apParam[x->iParam - 1]);
    }
  }
  if( rc!=SQLITE_OK || (rc = sqlite3_step(st))!=SQLITE_ROW ){
    if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ) b->rc = rc;
    else whyf(b, "a constant SQLite cannot compute alone (%s)", sqlite3_errmsg(b->db));
    sqlite3_finalize(st);
    return 0;
  }
  if( !takeValue(b, e, sqlite3_column_value(st, 0)) ){
    sqlite3_finalize(st);
    return 0;
  }
  sqlite3_finalize(st);
  e->op = E_LIT;
  e->a = e->b = 0;
  e->nArg = 0;
  return 1;
}

/* Fold every greatest constant subtree of *pe (their texts are whole
** operands, so SQLite reads each alone). */
static int foldAll(Bind *b, qexpr *e){
  int ok = 1;
  if( e==0 || stopped(b) ) return !stopped(b);
  if( isConst(e) ) return fold(b, e);
  if( e->op==E_SQL ){
    int i;
    for(i=0; i<e->nArg && ok; i++) ok = foldAll(b, e->arg[i]);
    return ok;
  }
  EACH_CHILD(e, pp, ok = ok && foldAll(b, *pp));
  return ok;
}

/* ---- affinity and collation ---------------------------------------------------------- */

/* sqlite3ExprCollSeq: the collation e carries (C_*), or -1 for none. */
static int collWalk(const qexpr *e){
  while( e ){
    if( e->op==E_LIT ) return e->explicitColl ? e->coll : -1;
    if( e->op==E_SQL ) return e->coll;
    if( e->op==E_AGGREF ) return e->explicitColl ? e->coll : -1;
    if( e->op==E_COLLATE ) return e->coll;
    if( e->op==E_COL || e->op==E_KEY || e->op==E_BARE ) return e->coll;
    if( e->op==E_CAST || e->op==E_UPLUS ){ e = e->a; continue; }
    if( e->explicitColl ){
      if( e->a && e->a->explicitColl ){ e = e->a; continue; }
      if( e->b ){ e = e->b; continue; }
      {
        int i;
        const qexpr *n = 0;
        for(i=0; i<e->nArg; i++) if( e->arg[i]->explicitColl ){ n = e->arg[i]; break; }
        e = n;
        continue;
      }
    }
    break;
  }
  return -1;
}

/* comparisonAffinity: what a comparison of a and b applies (-1: none). */
static int cmpAffinity(const qexpr *a, const qexpr *b){
  int a1 = a->aff, a2 = b ? b->aff : -1;
  if( a1>=0 && a2>=0 ){
    return (a1>=GA_AFF_NUMERIC || a2>=GA_AFF_NUMERIC) ? GA_AFF_NUMERIC : GA_AFF_BLOB;
  }
  return a1>=0 ? a1 : a2;
}

/* sqlite3BinaryCompareCollSeq(a, b), BINARY (bin) where none. */
static int cmpColl(int bin, const qexpr *a, const qexpr *b){
  int c;
  if( a->explicitColl ) c = collWalk(a);
  else if( b && b->explicitColl ) c = collWalk(b);
  else if( (c = collWalk(a))<0 && b ) c = collWalk(b);
  return c<0 ? bin : c;
}

/* ---- binding ---------------------------------------------------------------------- */

enum { CTX_ROW, CTX_GROUP };

static int aliasIndex(const qselect *s, const char *z){
  int i;
  for(i=0; i<s->nRes; i++) if( s->aRes[i].zAlias && sqlite3_stricmp(s->aRes[i].zAlias, z)==0 ) return i;
  return -1;
}

/* The scan's column for table column c (added if new). */
static int scanCol(Bind *b, int c){
  qplan *pl = b->pl;
  int i;
  for(i=0; i<pl->nCol; i++) if( pl->aiCol[i]==c ) return i;
  if( pl->nCol==GA_COLS_MAX ){ whyf(b, "more than %d columns", GA_COLS_MAX); return -1; }
  pl->aiCol[pl->nCol] = c;
  pl->aWant[pl->nCol] = GA_COL_BYTES;
  return pl->nCol++;
}

/* Does zQual name the table s reads (t)? An alias hides the table's name,
** as in SQLite: FROM t AS u answers to u alone; a subquery in FROM, to its
** alias alone. */
static int qualifies(const qselect *s, const ga_table *t, const char *zQual){
  if( s->zAlias ) return sqlite3_stricmp(zQual, s->zAlias)==0;
  return s->pSub==0 && sqlite3_stricmp(zQual, t->zTab)==0;
}

/* ---- a join's tables (requirement 9) ------------------------------------------------ */

/* The index of column zName in t (ignoring ASCII case), or -1. */
static int colIndex(const ga_table *t, const char *zName){
  int c;
  for(c=0; c<t->nCol && sqlite3_stricmp(t->aCol[c].zName, zName); c++){}
  return c<t->nCol ? c : -1;
}

/* A join's table that column e (unbound) names, by its qualifier, else the
** first in FROM that has it (a USING or NATURAL column: the left one's, as
** SQLite reads it); -1 where none does (an alias, TRUE, a rowid). */
static int tabOfCol(const Bind *b, const qexpr *e){
  int i;
  for(i=0; i<b->nTab; i++){
    if( e->zQual ? sqlite3_stricmp(e->zQual, b->aTab[i].zQual)!=0 : b->aTab[i].semi ) continue;
    if( colIndex(b->aTab[i].t, e->zName)>=0 ) return i;
    if( e->zQual ) return -1;
  }
  return -1;
}

/* Is e (E_COL, unbound) a column of the table, or of a join's tables? */
static int isTabCol(const Bind *b, const qexpr *e){
  return b->nTab ? tabOfCol(b, e)>=0 : colIndex(&b->pl->src.tab, e->zName)>=0;
}

/* Table place i's bit in a mask of tables (Q_MAXTAB of them at most: the
** sign bit stays clear, -1 says "not known"). */
#define TAB_BIT(i) ((int64_t)1<<(i))

/* The tables e reads (unbound), as bits of FROM's places; -1 where a name
** is no table's column (bound later as what it is: an alias, TRUE). A
** subquery's columns are its own (it is a constant). */
static int64_t tabsOf(const Bind *b, const qexpr *e){
  int64_t m = 0;
  int i;
  if( e==0 || e->op==E_SUBQ ) return 0;
  if( e->op==E_COL ){
    if( (i = tabOfCol(b, e))<0 ) return -1;
    return TAB_BIT(i);
  }
  EACH_CHILD((qexpr*)e, pp, { int64_t x = tabsOf(b, *pp); if( x<0 ) return -1; m |= x; });
  return m;
}

/* A join's column e: the scan's, or a joined table's (its place in the
** joined row: Q_JCOL0 + the join's block + its index among the table's
** columns the query reads). 1 bound, 0 stopped, -1 no column. */
static int bindJoinCol(Bind *b, qexpr *e){
  qplan *pl = b->pl;
  int i = tabOfCol(b, e), c, j;
  const ga_table *t;
  if( i<0 ){
    if( e->zQual ){
      for(j=0; j<b->nTab && sqlite3_stricmp(e->zQual, b->aTab[j].zQual); j++){}
      if( j==b->nTab ) return whyf(b, "the column %s.%s", e->zQual, e->zName);
    }
    return -1;
  }
  t = b->aTab[i].t;
  c = colIndex(t, e->zName);
  if( b->aTab[i].iJoin<0 ){
    if( (e->iCol = scanCol(b, c))<0 ) return 0;
  }else{
    qjoin *J = &pl->aJoin[b->aTab[i].iJoin];
    for(j=0; j<J->nCol && J->aTabCol[j]!=c; j++){}
    if( j==J->nCol ){
      if( J->nCol==GA_COLS_MAX ) return whyf(b, "more than %d columns of %s", GA_COLS_MAX, J->zQual);
      J->aTabCol[J->nCol++] = c;
    }
    e->iCol = Q_JCOL0 + J->iCol0 + j;
  }
  e->aff = t->aCol[c].aff;
  if( t->aCol[c].zColl==0 || (e->coll = collOf(b->pl->bin, t->aCol[c].zColl))<0 ){
    return whyf(b, "column %s's collation %s", e->zName, t->aCol[c].zColl ? t->aCol[c].zColl : "(unknown)");
  }
  return 1;
}

/* Is scalar function zFn deterministic on this connection, and is every
** definition of it SQLite's own (*pBuiltin)? */
static int isDeterministic(Bind *b, const char *zFn, int *pBuiltin){
  sqlite3_stmt *st = 0;
  int ok = 0, any = 0;
  *pBuiltin = 1;
  if( sqlite3_prepare_v2(b->db, "SELECT flags, builtin, type='s' FROM pragma_function_list WHERE name=?1 COLLATE NOCASE",
                         -1, &st, 0) ) return 0;
  sqlite3_bind_text(st, 1, zFn, -1, SQLITE_STATIC);
  ok = 1;
  while( sqlite3_step(st)==SQLITE_ROW ){
    if( sqlite3_column_int(st, 1)==0 ) *pBuiltin = 0;
    if( !sqlite3_column_int(st, 2) ) continue;       /* an aggregate or window of that name */
    any = 1;
    if( (sqlite3_column_int(st, 0) & SQLITE_DETERMINISTIC)==0 ) ok = 0;
  }
  sqlite3_finalize(st);
  return ok && any;
}

static int bindExpr(Bind *b, qexpr **pe, int ctx, int inAgg);

/* A copy of tree e, no node shared with it or within it: binding rewrites
** nodes in place, and an evaluation buffer belongs to one node (a result's
** alias used elsewhere, a GROUP BY term). NULL when out of memory. */
static qexpr *copyTree(Bind *b, const qexpr *e){
  qexpr *y = q_expr_copy(b->s, e);
  if( y==0 && e ) b->rc = SQLITE_NOMEM;
  return y;
}

/* e, which SQLite computes, as E_SQL of its inputs (requirement 4): a
** template of its operator or function with ?1..?k for its operands that
** are not constant (its inputs, in arg[]) and ?k+1... for its constant
** ones (folded, bound as values). */
static int toSql(Bind *b, qexpr *e, const char *zWhat){
  qexpr **aOp, **aIn, **aLit;
  int n = 0, nIn = 0, nLit = 0, j;
  const char *z = b->s->zSql;
  sqlite3_str *t;
  char *zT;
  if( (aOp = q_alloc(b->s, (int)sizeof(qexpr*)*3*(e->nArg + 3)))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
  aIn = aOp + e->nArg + 3;
  aLit = aIn + e->nArg + 3;
  EACH_CHILD(e, pp, aOp[n++] = *pp);
  for(j=0; j<n; j++){
    if( isConst(aOp[j]) ){
      /* a COLLATE would be lost on a value bound */
      if( aOp[j]->explicitColl ) return whyf(b, "%s with a COLLATE among its operands", zWhat);
      aLit[nLit++] = aOp[j];
    }else{
      aIn[nIn++] = aOp[j];
    }
  }
  for(j=0; j<nLit; j++) if( !fold(b, aLit[j]) ) return 0;
  /* the template, each operand its place */
  t = sqlite3_str_new(b->db);
  sqlite3_str_appendall(t, "SELECT ");
#define PLACE(x) do{ int k_; for(k_=0; k_<nIn && aIn[k_]!=(x); k_++){} \
    if( k_<nIn ) sqlite3_str_appendf(t, "?%d", k_ + 1); \
    else { for(k_=0; aLit[k_]!=(x); k_++){} sqlite3_str_appendf(t, "?%d", nIn + k_ + 1); } }while(0)
  switch( e->op ){
    case E_FUNC: {
      qtok *aTok = 0;
      int nTok = 0;
      if( q_lex(z + e->at, &aTok, &nTok)!=SQLITE_OK ){ sqlite3_free(sqlite3_str_finish(t)); b->rc = SQLITE_NOMEM; return 0; }
      for(j=0; aTok[j].type!=T_ID && aTok[j].type!=T_EOF; j++){}   /* past its parentheses */
      sqlite3_str_appendf(t, "%.*s(", aTok[j].n, z + e->at + aTok[j].at);
      sqlite3_free(aTok);
      for(j=0; j<e->nArg; j++){
        if( j ) sqlite3_str_appendchar(t, 1, ',');
        PLACE(e->arg[j]);
      }
      sqlite3_str_appendchar(t, 1, ')');
      break;
    }
    case E_CAST:
      sqlite3_str_appendall(t, "CAST(");
      PLACE(e->a);
      sqlite3_str_appendf(t, " AS %s)", e->zName);
      break;
    case E_LIKE:
      PLACE(e->a);
      sqlite3_str_appendf(t, " %s ", e->zName);
      PLACE(e->b);
      if( e->nArg ){
        sqlite3_str_appendall(t, " ESCAPE ");
        PLACE(e->arg[0]);
      }
      break;
    default:                        /* ||, & | << >> -> ->>, and ~ */
      if( e->b==0 ){
        sqlite3_str_appendall(t, e->zName);
        PLACE(e->a);
      }else{
        PLACE(e->a);
        sqlite3_str_appendf(t, " %s ", e->op==E_CONCAT ? "||" : e->zName);
        PLACE(e->b);
      }
      break;
  }
#undef PLACE
  if( (zT = sqlite3_str_finish(t))==0 || (e->zTpl = q_alloc(b->s, (int)strlen(zT) + 1))==0 ){
    sqlite3_free(zT);
    b->rc = SQLITE_NOMEM;
    return 0;
  }
  memcpy(e->zTpl, zT, strlen(zT) + 1);
  sqlite3_free(zT);
  e->aTplLit = aLit;
  e->nTplLit = nLit;
  e->coll = collWalk(e);            /* what it carries (CAST passes its operand's on) */
  /* substr(x, P, N) of positive constants: cut TEXT and BLOB here (eval.c) */
  if( e->op==E_FUNC && e->nArg==3 && nIn==1 && e->arg[0]==aIn[0] && nLit==2
   && (sqlite3_stricmp(e->zName, "substr")==0 || sqlite3_stricmp(e->zName, "substring")==0)
   && aLit[0]->t==SQLITE_INTEGER && aLit[1]->t==SQLITE_INTEGER
   && aLit[0]->i>=1 && aLit[0]->i<=0x7fffffff && aLit[1]->i>=0 && aLit[1]->i<=0x7fffffff ){
    e->substr = 1;
    e->subP = (int)aLit[0]->i;
    e->subN = (int)aLit[1]->i;
  }
  if( e->op==E_CONCAT ){             /* its operands' places (eval.c concatenates TEXT and BLOB) */
    qexpr *aSide[2];
    int k, j2;
    aSide[0] = e->a;
    aSide[1] = e->b;
    for(k=0; k<2; k++){
      for(j2=0; j2<nIn && aIn[j2]!=aSide[k]; j2++){}
      if( j2<nIn ){ e->cat[k] = j2; continue; }
      for(j2=0; aLit[j2]!=aSide[k]; j2++){}
      e->cat[k] = -1 - j2;
    }
  }
  e->sqlOp = e->op;
  e->op = E_SQL;
  e->a = e->b = 0;
  e->arg = aIn;
  e->nArg = nIn;
  /* its memo: the run keeps one per E_SQL node (eval.c) */
  if( b->pl->nMemo % 16==0 ){
    qexpr **a = q_alloc(b->s, (int)sizeof(qexpr*)*(b->pl->nMemo + 16));
    if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( b->pl->nMemo ) memcpy(a, b->pl->aMemoNode, sizeof(qexpr*)*(size_t)b->pl->nMemo);
    b->pl->aMemoNode = a;
  }
  b->pl->aMemoNode[b->pl->nMemo] = e;
  e->memo = b->pl->nMemo++;
  return 1;
}

static int bindJoinCol(Bind *b, qexpr *e);

static int bindCol(Bind *b, qexpr *e){
  qplan *pl = b->pl;
  const ga_table *t = &pl->src.tab;
  int c;
  if( b->nTab ) return bindJoinCol(b, e);
  if( e->zQual && !qualifies(b->s, t, e->zQual) ) return whyf(b, "the column %s.%s", e->zQual, e->zName);
  for(c=0; c<t->nCol && sqlite3_stricmp(t->aCol[c].zName, e->zName); c++){}
  if( c==t->nCol ) return -1;
  if( (e->iCol = scanCol(b, c))<0 ) return 0;
  e->aff = t->aCol[c].aff;
  if( t->aCol[c].zColl==0 || (e->coll = collOf(b->pl->bin, t->aCol[c].zColl))<0 ){
    return whyf(b, "column %s's collation %s", e->zName, t->aCol[c].zColl ? t->aCol[c].zColl : "(unknown)");
  }
  return 1;
}

/* A grouped query's bare column e (requirement 5): E_BARE of the plan's
** bare column reading it (one per column). */
static int bindBare(Bind *b, qexpr *e){
  qplan *pl = b->pl;
  qexpr *c;
  int r, j;
  if( (c = copyTree(b, e))==0 || (r = bindCol(b, c))<=0 ) return 0;   /* (e is a column) */
  for(j=0; j<pl->nBare && pl->aBare[j]->iCol!=c->iCol; j++){}
  if( j==pl->nBare ){
    if( pl->nBare%16==0 ){
      qexpr **a = q_alloc(b->s, (int)sizeof(qexpr*)*(pl->nBare + 16));
      if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
      if( pl->nBare ) memcpy(a, pl->aBare, sizeof(qexpr*)*(size_t)pl->nBare);
      pl->aBare = a;
    }
    pl->aBare[pl->nBare++] = c;
  }
  *e = *c;
  e->op = E_BARE;
  e->iCol = j;
  e->slot = -1;
  return 1;
}

/* A grouped query's expression: a key, if it is one. */
static int asKey(Bind *b, qexpr **pe){
  qplan *pl = b->pl;
  int k;
  for(k=0; k<pl->nKey; k++){
    if( same(b->s, *pe, b->s->aGroup[k].e) ){
      qexpr *e = q_alloc(b->s, sizeof(qexpr));
      if( e==0 ){ b->rc = SQLITE_NOMEM; return 0; }
      *e = *pl->aKey[k];
      e->op = E_KEY;
      e->iCol = k;
      e->a = e->b = 0; e->arg = 0; e->nArg = 0;
      e->coll = collWalk(pl->aKey[k]);
      e->explicitColl = pl->aKey[k]->explicitColl;
      e->slot = -1;
      *pe = e;
      return 1;
    }
  }
  return 0;
}

/* Are zSql[a0..a1) and zSql[b0..b1) the same tokens (identifiers and
** keywords ignoring ASCII case; a bare ? never the same)? */
static int sameTokens(const char *zSql, int a0, int a1, int b0, int b1){
  char *za = sqlite3_mprintf("%.*s", a1 - a0, zSql + a0), *zb = sqlite3_mprintf("%.*s", b1 - b0, zSql + b0);
  qtok *ta = 0, *tb = 0;
  int na = 0, nb = 0, i, r = 0;
  if( za && zb && q_lex(za, &ta, &na)==SQLITE_OK && q_lex(zb, &tb, &nb)==SQLITE_OK && na==nb ){
    for(r=1, i=0; r && i<na; i++){
      const qtok *x = &ta[i], *y = &tb[i];
      if( x->type!=y->type || x->n!=y->n || (x->type==T_PARAM && x->n==1) ) r = 0;
      else if( x->type==T_ID ) r = sqlite3_strnicmp(za + x->at, zb + y->at, x->n)==0;
      else r = memcmp(za + x->at, zb + y->at, (size_t)x->n)==0;
    }
  }
  sqlite3_free(ta); sqlite3_free(tb); sqlite3_free(za); sqlite3_free(zb);
  return r;
}

static int bindAgg(Bind *b, qexpr **pe){
  qplan *pl = b->pl;
  qexpr *e = *pe;
  qagg *g;
  int fn = e->agg, k;
  for(k=0; k<pl->nAgg; k++){
    if( sameTokens(b->s->zSql, pl->aAgg[k].at, pl->aAgg[k].end, e->at, e->end) ){
      e->op = E_AGGREF;
      e->iCol = k;
      e->explicitColl = pl->aAgg[k].explicitColl;
      e->coll = pl->aAgg[k].exprColl;
      e->a = e->b = 0;
      e->nArg = 0;
      e->aff = -1;
      return 1;
    }
  }
  if( pl->nAgg==64 ) return whyf(b, "more than 64 aggregates");
  if( pl->nAgg % 16==0 ){
    qagg *n = q_alloc(b->s, (int)sizeof(qagg)*(pl->nAgg + 16));
    if( n==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( pl->nAgg ) memcpy(n, pl->aAgg, sizeof(qagg)*(size_t)pl->nAgg);
    pl->aAgg = n;
  }
  g = &pl->aAgg[pl->nAgg];
  memset(g, 0, sizeof(*g));
  g->fn = fn;
  g->at = e->at;
  g->end = e->end;
  g->distinct = e->distinct;
  g->gpu = sqlite3_strnicmp(e->zName, "gpu_", 4)==0;
  g->subq = q_has_subq(e->a) || q_has_subq(e->b);   /* (as written: binding folds a constant one) */
  if( e->a ){
    if( !bindExpr(b, &e->a, CTX_ROW, 1) || !foldAll(b, e->a) ) return 0;
    g->x = e->a;
    g->coll = collWalk(e->a);
    if( g->coll<0 ) g->coll = pl->bin;
    g->dcoll = g->coll;
    /* gpu_min and gpu_max are functions of the extension: SQLite hands
    ** them no collation, so TEXT compares as BINARY. */
    if( (fn==A_MIN || fn==A_MAX || fn==A_ARGMIN || fn==A_ARGMAX) && g->gpu ) g->coll = pl->bin;
  }
  if( e->b ){
    if( !bindExpr(b, &e->b, CTX_ROW, 1) || !foldAll(b, e->b) ) return 0;
    g->y = e->b;
  }
  g->frac = 0.5;
  if( fn==A_PCT || fn==A_PCTCONT || fn==A_PCTDISC ){
    /* the fraction: a constant number in range (percentile.c checks it on
    ** every row, and its errors are SQLite's to report) */
    double mx = fn==A_PCT ? 100.0 : 1.0, d;
    if( g->y->op!=E_LIT || (g->y->t!=SQLITE_INTEGER && g->y->t!=SQLITE_FLOAT) ){
      return whyf(b, "%s() of a fraction that is not a constant number", e->zName);
    }
    if( g->y->t==SQLITE_INTEGER ) d = (double)g->y->i; else memcpy(&d, &g->y->i, 8);
    g->frac = d/mx;
    if( !(g->frac>=0.0 && g->frac<=1.0) ) return whyf(b, "%s() of a fraction out of range (an error in SQLite)", e->zName);
  }
  e->op = E_AGGREF;
  e->iCol = pl->nAgg++;
  /* a COLLATE in an argument marks it, as EP_Collate does (the first such
  ** argument's collation is its own: sqlite3ExprCollSeq) */
  {
    const qexpr *c = g->x && g->x->explicitColl ? g->x : g->y && g->y->explicitColl ? g->y : 0;
    e->explicitColl = g->explicitColl = c!=0;
    e->coll = g->exprColl = c ? collWalk(c) : -1;
  }
  e->a = e->b = 0;
  e->nArg = 0;
  e->aff = -1;
  return 1;
}

/* Bind *pe in context ctx (rows or groups). inAgg: inside an aggregate's
** argument. 1, or 0 when stopped (b says why). */
static int bindExpr(Bind *b, qexpr **pe, int ctx, int inAgg){
  qexpr *e = *pe;
  int i, r;
  if( stopped(b) ) return 0;
  if( ctx==CTX_GROUP && !inAgg && e->op!=E_AGG ){
    if( (r = asKey(b, pe))!=0 ) return stopped(b) ? 0 : 1;
    if( stopped(b) ) return 0;
  }
  switch( e->op ){
    case E_SUBQ: {
      int k;
      for(k=0; k<b->nSemi; k++){       /* (by its text: ORDER BY 1 binds a copy) */
        if( b->aSemi[k].count && b->aSemi[k].pTerm->at==e->at && b->aSemi[k].pTerm->end==e->end ) break;
      }
      if( k<b->nSemi ){
        /* a correlated count(*) (9e): its join's count, a value without affinity */
        const qjoin *q = &b->pl->aJoin[b->aTab[b->nFrom + k].iJoin];
        e->op = E_COL;
        e->iCol = Q_JCOL0 + q->iCol0 + Q_COUNT_COL;
        e->aff = -1;
        e->coll = 0;
        return 1;
      }
      return subqueryValue(b, e)!=0;   /* its value and affinity, or SQLite's when folding */
    }
    case E_LIT: case E_PARAM:
      return 1;                     /* folded with its greatest constant subtree (bindTop) */
    case E_COL:
      if( ctx==CTX_GROUP && !inAgg ) {
        /* an alias of a result that is itself grouped, else a bare column */
        int k = e->zQual ? -1 : aliasIndex(b->s, e->zName), isCol = isTabCol(b, e);
        if( !isCol && k>=0 && b->s->aRes[k].e!=e ){
          if( (*pe = copyTree(b, b->s->aRes[k].e))==0 ) return 0;
          return bindExpr(b, pe, ctx, inAgg);
        }
        if( isCol && b->nTab ) return whyf(b, "the column %s outside GROUP BY and aggregates in a join (its row is "
                                              "SQLite's join order's)", e->zName);
        if( isCol ) return bindBare(b, e);
        /* else TRUE, FALSE, or what names no column: as over rows */
      }
      if( (r = bindCol(b, e))<0 ){
        int k = e->zQual ? -1 : aliasIndex(b->s, e->zName);
        if( k>=0 && b->s->aRes[k].e!=e ){
          if( (*pe = copyTree(b, b->s->aRes[k].e))==0 ) return 0;
          return bindExpr(b, pe, ctx, inAgg);
        }
        if( e->quoted ) return whyf(b, "\"%s\", a quoted name that is no column (SQLite reads it as a string)", e->zName);
        if( sqlite3_stricmp(e->zName, "true")==0 || sqlite3_stricmp(e->zName, "false")==0 ){
          e->op = E_LIT;
          e->t = SQLITE_INTEGER;
          e->i = sqlite3_stricmp(e->zName, "true")==0;
          return 1;
        }
        if( b->s->zFrom==0 ) return whyf(b, "%s, which names no column (there is no FROM)", e->zName);
        if( sqlite3_stricmp(e->zName, "rowid")==0 || sqlite3_stricmp(e->zName, "oid")==0
         || sqlite3_stricmp(e->zName, "_rowid_")==0 ){
          return whyf(b, "the rowid (the engine reads no rowids)");
        }
        if( b->nTab ) return whyf(b, "%s, which is not a column of the join's tables", e->zName);
        return whyf(b, "%s, which is not a column of %s", e->zName, b->pl->src.tab.zTab);
      }
      return r;
    case E_INSEL:
      if( !bindExpr(b, &e->a, ctx, inAgg) ) return 0;
      return inSubquery(b, e);
    case E_AGG:
      if( inAgg ) return whyf(b, "an aggregate inside an aggregate");
      if( !b->pl->grouped ) return whyf(b, "an aggregate where rows are read");
      return bindAgg(b, pe);
    default: break;
  }
  EACH_CHILD(e, pp, if( !bindExpr(b, pp, ctx, inAgg) ) return 0);
  /* explicit collation marks every node above it */
  EACH_CHILD(e, pp, if( (*pp)->explicitColl ) e->explicitColl = 1);
  switch( e->op ){
    case E_COLLATE:
      if( e->synth ){
        /* flatten.c's: a subquery column's collation, kept as SQLite's
        ** flattener keeps it (its expression's, else BINARY), not explicit */
        e->coll = collWalk(e->a);
        if( e->coll<0 ) e->coll = b->pl->bin;
        e->explicitColl = 0;
        e->aff = e->a->aff;
        break;
      }
      if( (e->coll = collOf(b->pl->bin, e->zName))<0 ) return whyf(b, "COLLATE %s", e->zName);
      e->explicitColl = 1;
      e->aff = e->a->aff;
      break;
    case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE: case E_IS: case E_ISNOT:
      e->cmpAff = cmpAffinity(e->a, e->b);
      e->cmpColl = cmpColl(b->pl->bin, e->a, e->b);
      break;
    case E_IN:
      /* x's affinity and collation (sqlite3ExprCodeIN, exprINAffinity): the
      ** items' own do not count */
      e->cmpAff = e->a->aff;
      e->cmpColl = collWalk(e->a);
      if( e->cmpColl<0 ) e->cmpColl = b->pl->bin;
      break;
    case E_FUNC: {
      const char *z = e->zName;
      if( sqlite3_stricmp(z, "abs")==0 && e->nArg==1 ){
        e->op = E_ABS; e->a = e->arg[0]; e->nArg = 0;
      }else if( (sqlite3_stricmp(z, "coalesce")==0 && e->nArg>=2) || (sqlite3_stricmp(z, "ifnull")==0 && e->nArg==2) ){
        e->op = E_COALESCE;
      }else if( sqlite3_stricmp(z, "nullif")==0 && e->nArg==2 ){
        int c = -1;
        e->op = E_NULLIF;
        for(i=0; i<2 && c<0; i++) c = collWalk(e->arg[i]);
        e->cmpColl = c<0 ? b->pl->bin : c;
      }else if( (sqlite3_stricmp(z, "iif")==0) && e->nArg==3 ){
        e->op = E_CASE;
        e->nElse = 1;
      }else if( (sqlite3_stricmp(z, "min")==0 || sqlite3_stricmp(z, "max")==0) && e->nArg>=2 ){
        /* func.c's minmaxFunc, by the first argument's collation that has one */
        int c = -1;
        e->op = E_MINMAX;
        e->agg = sqlite3_stricmp(z, "min")==0 ? A_MIN : A_MAX;
        for(i=0; i<e->nArg && c<0; i++) c = collWalk(e->arg[i]);
        e->cmpColl = c<0 ? b->pl->bin : c;
      }else{
        int builtin;
        if( !isDeterministic(b, z, &builtin) ) return whyf(b, "%s(), which is not deterministic", z);
        if( !isConst(e) && !toSql(b, e, z) ) return 0;
        e->mainOnly = !builtin;
      }
      break;
    }
    case E_CAST:
      e->aff = ga_affinity(e->zName);
      if( !isConst(e) && !toSql(b, e, "CAST") ) return 0;
      break;
    case E_LIKE: {
      /* like(), glob() ... may be redefined per connection (PRAGMA
      ** case_sensitive_like does): a worker's own connection computes
      ** SQLite's own alone */
      int builtin = 0;
      if( !isConst(e) && !toSql(b, e, e->zName) ) return 0;
      e->mainOnly = !isDeterministic(b, e->zName, &builtin) || !builtin;
      break;
    }
    case E_CONCAT: case E_OTHER:
      if( !isConst(e) && !toSql(b, e, e->op==E_CONCAT ? "||" : e->zName) ) return 0;
      break;
    default: break;
  }
  return 1;
}

/* A whole expression: bound, then its constants folded. */
static int bindTop(Bind *b, qexpr **pe, int ctx){
  return bindExpr(b, pe, ctx, 0) && foldAll(b, *pe);
}

/* ---- planning ----------------------------------------------------------------------- */

static void conjuncts(qplan *pl, qexpr *e, Bind *b){
  if( e==0 ) return;
  if( e->op==E_AND ){
    conjuncts(pl, e->a, b);
    conjuncts(pl, e->b, b);
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
static int sortTerms(Bind *b, int n){
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
static void keyOrder(Bind *b, const int *aDesc){
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

static void limits(Bind *b){
  qselect *s = b->s;
  if( s->pLimit && !stopped(b) ){
    if( !isConst(s->pLimit) ) whyf(b, "a LIMIT that is not constant");
    else if( bindTop(b, &s->pLimit, CTX_ROW) ) mustBeInt(s->pLimit);
  }
  if( s->pOffset && s->pOffset!=s->pLimit && !stopped(b) ){
    if( !isConst(s->pOffset) ) whyf(b, "an OFFSET that is not constant");
    else if( bindTop(b, &s->pOffset, CTX_ROW) ) mustBeInt(s->pOffset);
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
    if( *pColl<0 && (*pColl = collOf(b->pl->bin, e->zName))<0 ){ whyf(b, "COLLATE %s", e->zName); return -2; }
    e = e->a;
  }
  if( isOrder && e->op==E_COL && e->zQual==0 && (k = aliasIndex(s, e->zName))>=0 ) return k;
  if( e->op==E_LIT && e->t==0 && e->end>e->at ){
    /* an integer literal term is a result's number */
    const char *z = s->zSql + e->at;
    int n = e->end - e->at, i;
    while( n>0 && (*z=='(' || *z==' ') ){ z++; n--; }
    while( n>0 && (z[n-1]==')' || z[n-1]==' ') ) n--;
    for(i=0; i<n && z[i]>='0' && z[i]<='9'; i++){}
    if( i==n && n>0 && n<9 ){
      k = atoi(z);
      if( k<1 || k>s->nRes ){ whyf(b, "a term number out of range"); return -2; }
      return k - 1;
    }
  }
  return -1;
}

static int planAny(sqlite3_vtab*, sqlite3*, qsqlkeep*, qselect*, sqlite3_value**, int, const qpush*, int, qplan*, char**);

/* A plan of its own (a subquery's, a build's) freed (NULL: none). */
static void planFree(qplan *sp){
  if( sp ) q_plan_free(sp);
  sqlite3_free(sp);
}

/* Subquery sub planned into *pp (sqlite3_malloc'd, the caller's; also
** where *pzWhy says why it is not covered, prefixed "zWhat: "). */
static int fromPlan(sqlite3_vtab *vt, sqlite3 *db, qselect *sub, sqlite3_value **apParam, int nParam, const char *zWhat,
                   qplan **pp, char **pzWhy){
  int rc;
  if( (*pp = sqlite3_malloc(sizeof(qplan)))==0 ) return SQLITE_NOMEM;
  memset(*pp, 0, sizeof(qplan));
  if( (rc = planAny(vt, db, 0, sub, apParam, nParam, 0, 0, *pp, pzWhy))!=SQLITE_OK ) return rc;
  if( *pzWhy ){
    char *z = sqlite3_mprintf("%s: %s", zWhat, *pzWhy);
    sqlite3_free(*pzWhy);
    *pzWhy = z;
    return z ? SQLITE_OK : SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* Planned subquery sp (of SELECT sub, named zAlias) described as a table
** *t: each column's name (a WITH table's as listed, else its alias, its
** column's name, or its text), affinity and collation (its expression's:
** sqlite3SubqueryColumnTypes); or *pzWhy where that is not known. */
static int subTable(const qplan *sp, const qselect *sub, const char *zAlias, ga_table *t, char **pzWhy){
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
   || (t->aCol = sqlite3_malloc64(sizeof(ga_tabcol)*(uint64_t)(t->nCol + 1)))==0 ){
    return SQLITE_NOMEM;
  }
  memset(t->aCol, 0, sizeof(ga_tabcol)*(size_t)(t->nCol + 1));
  for(i=0; i<t->nCol; i++){
    ga_tabcol *c = &t->aCol[i];
    const qterm *r = &first->s->aRes[i];
    const qexpr *x = first->aOut[i];
    int coll = collWalk(x), aff = x->aff;
    for(k=1; k<sp->nArm; k++){
      /* a compound's arms must agree (their leftmost arm's or all arms':
      ** SQLite versions differ) */
      int c2 = collWalk(sp->aArm[k].aOut[i]);
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

/* s's FROM subquery planned (pl->pSub; a joined subquery's plan made by
** planJoin taken as it is), and described as the table s reads
** (pl->src.tab). */
static int fromSub(sqlite3_vtab *vt, sqlite3 *db, qselect *s, sqlite3_value **apParam, int nParam, qplan *pl,
                   char **pzWhy){
  int rc;
  if( s->pSub->pPlanned ){
    pl->pSub = s->pSub->pPlanned;
    s->pSub->pPlanned = 0;
  }else if( (rc = fromPlan(vt, db, s->pSub, apParam, nParam, "FROM a subquery", &pl->pSub, pzWhy))!=SQLITE_OK
            || *pzWhy ){
    return rc;
  }
  return subTable(pl->pSub, s->pSub, s->zAlias, &pl->src.tab, pzWhy);
}

/* ---- joins (requirement 9) ----------------------------------------------------------- */

static int planCore(sqlite3_vtab*, sqlite3*, qsqlkeep*, qselect*, sqlite3_value**, int, const qpush*, int, qplan*, char**,
                    int);

/* A conjunct of a join's WHERE or ON, and where it goes. */
typedef struct JConj {
  qexpr *e;                        /* the conjunct (unbound) */
  int from;                        /* -1: WHERE; else the FROM place of the table whose ON or
                                   ** USING it is */
  int64_t m;                       /* the tables it reads (tabsOf) */
} JConj;

/* A join's conjuncts, sorted out (planJoin) before they are bound. */
typedef struct JSort {
  JConj *a; int n, nAlloc;         /* every conjunct */
  int aOrder[Q_MAXTAB];            /* FROM places in join order: the scan's table first */
  int aPos[Q_MAXTAB];              /* ... each place's position in it */
} JSort;

static int jconjAdd(Bind *b, JSort *js, qexpr *e, int from){
  int64_t m;
  int k;
  if( e==0 ) return 1;
  for(k=0; from<0 && k<b->nSemi; k++) if( e==b->aSemi[k].pTerm ) return 1;   /* (its own table: 9a) */
  if( e->op==E_AND ) return jconjAdd(b, js, e->a, from) && jconjAdd(b, js, e->b, from);
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
        for(k=0; k<nT && k<32 && !same(b->s, aC[i], aT[k]); k++){}
        if( k>=nT || k>=32 ) break;
      }
      if( j==nBr && !jconjAdd(b, js, copyTree(b, aC[i]), from) ) return 0;
    }
  }
  if( js->n==js->nAlloc ){
    int n = js->nAlloc ? 2*js->nAlloc : 32;
    JConj *a = sqlite3_realloc64(js->a, sizeof(JConj)*(uint64_t)n);
    if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    js->a = a;
    js->nAlloc = n;
  }
  m = tabsOf(b, e);
  if( from>=0 && b->aTab[from].semi && m>0 && !(m & TAB_BIT(from)) ){
    /* a condition on the outer query's tables alone: where EXISTS or IN
    ** holds it holds, a WHERE conjunct; NOT EXISTS's is no conjunct */
    if( b->aTab[from].semi==Q_ANTI ) return whyf(b, "NOT EXISTS (a correlated subquery with a condition on the outer query alone)");
    if( b->aTab[from].semi==Q_COUNT ) return whyf(b, "count(*) (a correlated subquery with a condition on the outer query alone)");
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
  if( (c = colIndex(b->aTab[i].t, zName))<0 ) return whyf(b, "USING a column %s does not have", b->aTab[i].zQual);
  for(l=0; l<i && colIndex(b->aTab[l].t, zName)<0; l++){}
  if( l==i ) return whyf(b, "USING a column no table before %s has", b->aTab[i].zQual);
  b->aTab[i].aUsing[c] = 1;
  if( (eq = jnode(b, E_EQ))==0 || (x = jnode(b, E_COL))==0 || (y = jnode(b, E_COL))==0 ) return 0;
  x->zName = y->zName = b->aTab[i].t->aCol[c].zName;
  x->zQual = (char*)b->aTab[l].zQual;
  y->zQual = (char*)b->aTab[i].zQual;
  eq->a = x;
  eq->b = y;
  return jconjAdd(b, js, eq, i);
}

/* Does FROM place i join by its own conditions alone: a LEFT JOIN's ON, a
** correlated subquery's WHERE (9a)? */
#define ONLY_ON(b, i) ((b)->aTab[i].left || (b)->aTab[i].semi)

/* Is conjunct c an equality that joins FROM's table i to the tables in
** mask J (bits of FROM places) before it? Its side over i alone into
** *pSide (0 a, 1 b). A LEFT JOIN's table joins by its own ON alone, a
** subquery's by its WHERE. */
static int isEdge(const Bind *b, const JConj *c, int i, int64_t J, int *pSide){
  int64_t ma, mb;
  if( c->e->op!=E_EQ || c->m<0 ) return 0;
  if( ONLY_ON(b, i) ? c->from!=i : (c->from>=0 && ONLY_ON(b, c->from)) ) return 0;
  ma = tabsOf(b, c->e->a);
  mb = tabsOf(b, c->e->b);
  if( ma==TAB_BIT(i) && mb>0 && (mb & ~J)==0 ){ *pSide = 0; return 1; }
  if( mb==TAB_BIT(i) && ma>0 && (ma & ~J)==0 ){ *pSide = 1; return 1; }
  return 0;
}

/* ---- correlated subqueries as joins (requirement 9a) --------------------------------- */

/* What subquery place i is, as the SQL says it. */
static const char *semiWord(const Bind *b, int i){
  const struct Semi *m = &b->aSemi[i - b->nFrom];
  return m->count ? "count(*)" : m->anti ? "NOT EXISTS" : m->pIn ? "IN" : "EXISTS";
}

/* Is e (unbound) a positive integer literal? */
static int positiveInt(const Bind *b, const qexpr *e){
  const char *z = b->s->zSql + e->at;
  int i, n = e->end - e->at;
  if( e->op!=E_LIT || n<1 || n>18 ) return 0;
  for(i=0; i<n; i++) if( z[i]<'0' || z[i]>'9' ) return 0;
  return atoll(z)>0;
}

/* Subquery q's SELECT parsed from the statement's text with all else
** blanked, so that its nodes' text positions are the statement's; its nodes
** in the statement's arena. NULL (b->rc set) where out of memory. */
static qselect *subParsed(Bind *b, const qexpr *q){
  const char *zSql = b->s->zSql;
  int n = (int)strlen(zSql), at = q->at, end = q->end - 1, rc;
  qselect *sel = q_alloc(b->s, sizeof(qselect));
  char *z;
  while( at<end && zSql[at]!='(' ) at++;
  if( sel==0 || (z = sqlite3_malloc(n + 1))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
  memset(z, ' ', (size_t)n);
  z[n] = 0;
  memcpy(z + at + 1, zSql + at + 1, (size_t)(end - at - 1));
  rc = q_parse(z, 0, sel);
  sqlite3_free(z);
  if( rc ){ b->rc = rc; return 0; }
  sel->zSql = zSql;
  q_select_adopt(b->s, sel);
  return sel;
}

/* WHERE's conjunct t, subquery q (its EXISTS, NOT EXISTS when anti, or
** pIn IN it) that refers to the outer query, into b->aSemi where it is a
** join the engine covers: one rowid table, no aggregate, GROUP BY or
** LIMIT (EXISTS's LIMIT of a positive integer decides nothing). */
static void semiOf(Bind *b, qexpr *t, const qexpr *q, int anti, qexpr *pIn){
  const char *zW = anti ? "NOT EXISTS" : pIn ? "IN" : "EXISTS";
  int i;
  qselect *sel = subParsed(b, q);
  struct Semi *m;
  if( sel==0 ) return;
  if( sel->zWhy ){
    whyf(b, "%s (a correlated subquery the engine does not cover: %s)", zW, sel->zWhy);
    sqlite3_free(sel->zWhy);
    sel->zWhy = 0;
    return;
  }
  if( sel->pNext || sel->pSub || sel->nJoin || sel->zFrom==0 ){
    whyf(b, "%s (a correlated subquery of a compound, a join or a subquery)", zW);
    return;
  }
  for(i=0; i<sel->nRes && !q_has_agg(sel->aRes[i].e); i++){}
  if( sel->nGroup || sel->pHaving || i<sel->nRes ){
    whyf(b, "%s (a correlated subquery with aggregates or GROUP BY)", zW);
    return;
  }
  if( sel->pOffset || (sel->pLimit && (pIn || !positiveInt(b, sel->pLimit))) ){
    whyf(b, "%s (a correlated subquery with LIMIT)", zW);
    return;
  }
  if( pIn && (sel->star || sel->nRes!=1) ){
    whyf(b, "IN (a correlated subquery whose result is not one column)");
    return;
  }
  if( b->s->nJoin + 1 + b->nSemi>=Q_MAXTAB ){
    whyf(b, "more than %d tables, correlated subqueries' included", Q_MAXTAB);
    return;
  }
  m = &b->aSemi[b->nSemi++];
  m->pTerm = t;
  m->sel = sel;
  m->pIn = pIn;
  m->anti = anti;
}

/* WHERE's conjuncts that are subqueries referring to the outer query: a
** correlated EXISTS, NOT EXISTS or IN (SELECT ...), each a join of its
** table (9a) where the engine covers it. */
/* Each scalar subquery of the result list (any depth) that is a
** correlated SELECT count(*) FROM one table [WHERE ...], of a query without
** aggregates, into b->aSemi: a count join (9e). Others are left as they
** are (binding gives their reason). */
static void countIn(Bind *b, qexpr *e){
  qselect *sel;
  if( e==0 || stopped(b) ) return;
  if( e->op!=E_SUBQ || sqlite3_strnicmp(b->s->zSql + e->at, "EXISTS", 6)==0 ){
    EACH_CHILD(e, pp, countIn(b, *pp));
    return;
  }
  if( !correlated(b, e, 0) || (sel = subParsed(b, e))==0 ) return;
  if( sel->zWhy ){
    sqlite3_free(sel->zWhy);
    sel->zWhy = 0;
    return;
  }
  if( sel->pNext || sel->pSub || sel->nJoin || sel->zFrom==0 || sel->nGroup || sel->pHaving || sel->pLimit
   || sel->pOffset || sel->distinct || sel->nRes!=1 || sel->aRes[0].e->op!=E_AGG || sel->aRes[0].e->agg!=A_COUNTSTAR
   || b->s->nJoin + 1 + b->nSemi>=Q_MAXTAB ){
    return;
  }
  memset(&b->aSemi[b->nSemi], 0, sizeof(b->aSemi[0]));
  b->aSemi[b->nSemi].pTerm = e;
  b->aSemi[b->nSemi].sel = sel;
  b->aSemi[b->nSemi++].count = 1;
}

static void countJoins(Bind *b){
  int i;
  if( b->s->zFrom==0 || b->s->pSub || b->s->nJoin || b->s->nGroup || b->s->pHaving || b->s->distinct ) return;
  for(i=0; i<b->s->nRes; i++) if( q_has_agg(b->s->aRes[i].e) ) return;
  for(i=0; i<b->s->nRes && !stopped(b); i++) countIn(b, b->s->aRes[i].e);
}

static void semiJoins(Bind *b){
  qexpr *aT[64];
  int nT, i;
  if( b->s->pWhere==0 || b->s->zFrom==0 || b->s->pSub ) return;
  nT = q_terms(b->s->pWhere, E_AND, aT, 64, 0);
  for(i=0; i<nT && i<64 && !stopped(b); i++){
    qexpr *t = aT[i], *q = t->op==E_NOT ? t->a : t->op==E_INSEL ? t->b : t;
    if( q && q->op==E_INSEL && q->b && correlated(b, q->b, 0) ){
      whyf(b, "NOT IN (a subquery that refers to the outer query: its NULL rule is not a join's)");
      break;
    }
    if( q==0 || q->op!=E_SUBQ ) continue;
    if( t->op!=E_INSEL && sqlite3_strnicmp(b->s->zSql + q->at, "EXISTS", 6)!=0 ) continue;
    if( correlated(b, q, 0) ) semiOf(b, t, q, t->op==E_NOT, t->op==E_INSEL ? t->a : 0);
  }
}

/* A correlated subquery's tables (aggJoins): its FROM's, resolved. */
typedef struct Inner {
  ga_source aSrc[Q_MAXTAB];        /* each table */
  const char *azQual[Q_MAXTAB];    /* ... the name that qualifies its columns */
  int n;
} Inner;

/* decorrelate.c's xInner: does column node e name one of the subquery's
** tables' columns (an alias hides its table's name; an unqualified name is
** the innermost table's that has it)? */
static int innerHas(void *p, const qexpr *e){
  const Inner *x = (const Inner*)p;
  int i;
  for(i=0; i<x->n; i++){
    if( e->zQual ? sqlite3_stricmp(e->zQual, x->azQual[i])==0 : colIndex(&x->aSrc[i].tab, e->zName)>=0 ) return 1;
  }
  return 0;
}

/* WHERE's conjuncts that compare with a correlated aggregate, each made a
** comparison with a join of that aggregate grouped by the correlation
** (decorrelate.c; plan.c, 9c) where it can be. */
static void aggJoins(Bind *b){
  qexpr *aT[64];
  int nT, i;
  if( b->s->pWhere==0 || b->s->zFrom==0 || b->s->pSub ) return;
  nT = q_terms(b->s->pWhere, E_AND, aT, 64, 0);
  for(i=0; i<nT && i<64 && !stopped(b); i++){
    qexpr *t = aT[i], *q = t->op<E_EQ || t->op>E_GE ? 0 : t->a->op==E_SUBQ ? t->a : t->b->op==E_SUBQ ? t->b : 0;
    qselect *sel;
    Inner in;
    int k, ok = 1, rc;
    if( q==0 || sqlite3_strnicmp(b->s->zSql + q->at, "EXISTS", 6)==0 || !correlated(b, q, 0) ) continue;
    if( (sel = subParsed(b, q))==0 ) return;
    memset(&in, 0, sizeof(in));
    for(k=0; k<=sel->nJoin && ok && sel->zWhy==0 && sel->zFrom && !sel->pSub && !sel->pNext; k++){
      const char *zFrom = k ? sel->aJoin[k - 1].zFrom : sel->zFrom, *zAlias = k ? sel->aJoin[k - 1].zAlias : sel->zAlias;
      char *zErr = 0;
      if( k && sel->aJoin[k - 1].pSub ){ ok = 0; break; }
      rc = ga_source_resolve_on(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, "gpu_query", zFrom, &in.aSrc[k], &zErr);
      sqlite3_free(zErr);
      if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){ b->rc = rc; ok = 0; }
      if( rc ){ ok = 0; break; }
      in.azQual[k] = zAlias ? zAlias : in.aSrc[k].tab.zTab;
      in.n = k + 1;
    }
    if( ok && sel->zWhy==0 && (rc = q_decorrelate(b->s, t, sel, i + 1, innerHas, &in))<0 ) b->rc = SQLITE_NOMEM;
    for(k=0; k<in.n; k++) ga_source_free(&in.aSrc[k]);
    sqlite3_free(sel->zWhy);
    sel->zWhy = 0;
  }
}

/* e's unqualified column names (unbound) qualified by the table that has
** them: place self first (a subquery's own table, as SQLite resolves its
** names), else the outer query's (tabOfCol). A name no table has (TRUE
** aside) is not covered. */
static int qualify(Bind *b, qexpr *e, int self){
  if( e==0 || e->op==E_SUBQ ) return 1;
  if( e->op==E_COL && e->zQual==0 ){
    int i = self>=0 && colIndex(b->aTab[self].t, e->zName)>=0 ? self : tabOfCol(b, e);
    if( i>=0 ) e->zQual = (char*)b->aTab[i].zQual;
    else if( sqlite3_stricmp(e->zName, "true") && sqlite3_stricmp(e->zName, "false") ){
      return whyf(b, "%s in a correlated subquery, which is no column of its table or the outer query's", e->zName);
    }
    return 1;
  }
  EACH_CHILD(e, pp, if( !qualify(b, *pp, self) ) return 0);
  return 1;
}

/* An integer of zSql's first row (0 where there is none). */
static int64_t intOf(sqlite3 *db, char *zSql){
  sqlite3_stmt *st = 0;
  int64_t n = 0;
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  return n;
}

/* Table zDb.zTab's rowids' span (nTab bytes of zTab; -1: to its end): its
** rows at most; 0 where empty or no such table. */
static int64_t spanOf(sqlite3 *db, const char *zDb, const char *zTab, int nTab){
  if( nTab<0 ) nTab = (int)strlen(zTab);       /* (printf's negative precision is no "all") */
  return intOf(db, sqlite3_mprintf("SELECT (SELECT max(rowid) FROM \"%w\".\"%.*w\") - (SELECT min(rowid) FROM"
                                   " \"%w\".\"%.*w\") + 1", zDb, nTab, zTab, zDb, nTab, zTab));
}

/* Whether t's rowids are an INTEGER PRIMARY KEY's: one key column, declared
** INTEGER (its description's). */
static int rowidKeyed(const ga_table *t){
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
    aKeyed[i] = !b->aTab[i].derived && rowidKeyed(t);
    aEst[i] = 0;
    if( b->aTab[i].derived ){            /* (its rows are not known before it runs: never the scan's) */
      sqlite3_str_appendf(s, "%s0", i ? ", " : "SELECT ");
      continue;
    }
    sqlite3_str_appendf(s, "%s(SELECT max(rowid) FROM \"%w\".\"%w\") - (SELECT min(rowid) FROM \"%w\".\"%w\") + 1",
                        i ? ", " : "SELECT ", t->zDb, t->zTab, t->zDb, t->zTab);
  }
  zSql = sqlite3_str_finish(s);
  ok = zSql && keptPrepare(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, b->keep, zSql, &st)==SQLITE_OK
       && sqlite3_step(st)==SQLITE_ROW;
  for(i=0; ok && i<n; i++) aEst[i] = sqlite3_column_int64(st, i);
  if( st ) keptDone(b->keep, st);
  sqlite3_free(zSql);
  for(i=0; !ok && i<n; i++){
    const ga_table *t = b->aTab[i].t;
    if( !b->aTab[i].derived ) aEst[i] = spanOf(b->db, t->zDb, t->zTab, -1);
  }
}

/* Table t's rows (SQLite's count(*): each leaf page's header; TPC-H SF
** 10's orders took ~0.5 s). Kept in b->keep for the next read, in main
** only, while main's data version (any commit, this connection's or
** another's) and this connection's changes (its own, uncommitted too) are
** the same: an attached schema's pager counts from 0 again at each ATTACH.
** Only the scan's choice and the joins' estimates rest on it, never an
** answer. */
static int64_t rowsOf(Bind *b, const ga_table *t){
  qsqlkeep *k = b->keep;
  unsigned int dv = 0;
  int nChg = sqlite3_total_changes(b->db), i = 0;
  int memo = k && strcmp(t->zDb, "main")==0 && sqlite3_file_control(b->db, "main", SQLITE_FCNTL_DATA_VERSION, &dv)==SQLITE_OK;
  int64_t n;
  for(i=0; memo && i<k->nCount && sqlite3_stricmp(k->azCount[i], t->zTab)!=0; i++){}
  if( memo && i<k->nCount && k->aCountDv[i]==dv && k->aCountChg[i]==nChg ) return k->aCount[i];
  n = intOf(b->db, sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w\"", t->zDb, t->zTab));
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
** rows are counted (rowsOf) and the choice made again, until the largest
** is known (one table: no choice, no count: TPC-H Q4's orders took 44 ms a
** read). */
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
** JOIN) and the conjuncts gathered into js. Stops (whyf) where the join is
** not covered. */
static int planJoin(Bind *b, JSort *js){
  qplan *pl = b->pl;
  qselect *s = b->s;
  ga_source aSrc[Q_MAXTAB];
  qplan *aDerived[Q_MAXTAB];       /* a subquery or WITH table joined: its plan (9b) */
  int64_t aEst[Q_MAXTAB] = { 0 };
  int nFrom = s->nJoin + 1, n = nFrom + b->nSemi, i, k, hasLeft = 0, probe = 0, rc;
  int64_t J;
  memset(aSrc, 0, sizeof(aSrc));
  memset(aDerived, 0, sizeof(aDerived));
  if( s->pSub ) return whyf(b, "a join whose first table is a subquery");
  b->nFrom = nFrom;
  aSrc[0] = pl->src;
  memset(&pl->src, 0, sizeof(pl->src));
  for(i=1; i<n && !stopped(b); i++){
    const char *zFrom = i<nFrom ? s->aJoin[i - 1].zFrom : b->aSemi[i - nFrom].sel->zFrom;
    char *zErr = 0;
    if( i<nFrom && s->aJoin[i - 1].jt==Q_JT_LEFT ) hasLeft = 1;
    if( i<nFrom && s->aJoin[i - 1].pSub ){
      const qfrom *f = &s->aJoin[i - 1];
      char *zWhy = 0;
      rc = fromPlan(b->vt, b->db, f->pSub, b->apParam, b->nParam,
                    f->unique ? "a correlated aggregate" : "a join with a subquery", &aDerived[i], &zWhy);
      if( rc==SQLITE_OK && zWhy==0 ) rc = subTable(aDerived[i], f->pSub, f->zAlias, &aSrc[i].tab, &zWhy);
      if( rc==SQLITE_OK && zWhy==0 && f->unique ){
        /* (9c) its groups' rows alike, or SQLite's; its value compared as the subquery's */
        aDerived[i]->strict = 1;
        if( collWalk(aDerived[i]->aOut[aDerived[i]->nOut - 1])>=0 ){
          zWhy = sqlite3_mprintf("a correlated aggregate whose value has a collation");
          if( zWhy==0 ) rc = SQLITE_NOMEM;
        }
      }
      if( rc ){ sqlite3_free(zWhy); b->rc = rc; break; }
      if( zWhy ){ whyf(b, "%s", zWhy); sqlite3_free(zWhy); break; }
      continue;
    }
    rc = ga_source_resolve_on(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, "gpu_query", zFrom, &aSrc[i], &zErr);
    if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){ sqlite3_free(zErr); b->rc = rc; break; }
    if( rc ){
      whyf(b, "its FROM (%s)", zErr ? zErr : sqlite3_errstr(rc));
      sqlite3_free(zErr);
      break;
    }
    if( aSrc[i].tab.zKind==0 || strcmp(aSrc[i].tab.zKind, "table") || aSrc[i].tab.withoutRowid ){
      whyf(b, "%s%s %s, which is %s", i<nFrom ? "a join with" : semiWord(b, i), i<nFrom ? "" : " over", zFrom,
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
  for(i=0; i<n && !stopped(b); i++){
    for(k=0; k<i; k++){
      if( sqlite3_stricmp(b->aTab[i].zQual, b->aTab[k].zQual) ) continue;
      if( i<nFrom ) whyf(b, "two tables of a join named %s", b->aTab[i].zQual);
      else whyf(b, "%s (a correlated subquery's table named as one of the outer query's: %s)", semiWord(b, i),
                b->aTab[i].zQual);
    }
  }
  /* the conjuncts: WHERE's, each ON's, each USING's and NATURAL's equalities */
  if( !stopped(b) ) jconjAdd(b, js, s->pWhere, -1);
  for(i=1; i<nFrom && !stopped(b); i++){
    const qfrom *f = &s->aJoin[i - 1];
    if( f->natural && (f->pOn || f->nUsing) ) whyf(b, "NATURAL JOIN with ON or USING");
    for(k=0; k<f->nUsing && !stopped(b); k++) usingEq(b, js, i, f->azUsing[k]);
    for(k=0; f->natural && k<b->aTab[i].t->nCol && !stopped(b); k++){
      const char *z = b->aTab[i].t->aCol[k].zName;
      int l;
      for(l=0; l<i && colIndex(b->aTab[l].t, z)<0; l++){}
      if( l<i ) usingEq(b, js, i, z);
    }
    if( !stopped(b) ) jconjAdd(b, js, f->pOn, i);
  }
  /* each correlated subquery's WHERE (and IN's equality), its names
  ** qualified: its own table's first (9a) */
  for(i=nFrom; i<n && !stopped(b); i++){
    struct Semi *m = &b->aSemi[i - nFrom];
    if( !qualify(b, m->sel->pWhere, i) ) break;
    if( m->pIn ){
      qexpr *eq = jnode(b, E_EQ);
      if( eq==0 || !qualify(b, m->pIn, -1) || !qualify(b, m->sel->aRes[0].e, i) ) break;
      eq->a = m->pIn;
      eq->b = m->sel->aRes[0].e;
      if( !jconjAdd(b, js, eq, i) ) break;
    }
    jconjAdd(b, js, m->sel->pWhere, i);
  }
  /* the order */
  if( !stopped(b) && !hasLeft ) probe = largest(b, nFrom, aEst);
  js->aOrder[0] = probe;
  J = TAB_BIT(probe);
  for(k=1; k<n && !stopped(b); k++){
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
        if( i>=nFrom ) whyf(b, "%s (a correlated subquery by no equality with the outer query)", semiWord(b, i));
        else whyf(b, "a LEFT JOIN without an equality that joins %s to the tables before it", b->aTab[i].zQual);
        break;
      }
    }
    js->aOrder[k] = next;
    J |= TAB_BIT(next);
  }
  if( stopped(b) ){
    for(i=0; i<n; i++){
      ga_source_free(&aSrc[i]);
      planFree(aDerived[i]);
    }
    b->nTab = 0;
    return 0;
  }
  /* the scan's table and the joined ones, in order */
  if( (pl->aJoin = sqlite3_malloc64(sizeof(qjoin)*(uint64_t)n))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
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
  if( e->op==E_ABS && !isConst(e->a) ) return "abs()";
  if( e->op==E_SQL && e->sqlOp==E_FUNC && !isConst(e) ){
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
  if( zF ) whyf(b, "a join's equality with %s, which can fail: which rows SQLite meets it on is its plan's", zF);
  return zF==0;
}

/* The conjuncts of js bound where they go: the scan's own (pl->aConj,
** before the joins), a joined table's own (aLocal: its build's WHERE,
** unbound), its equalities (its aEq), a LEFT JOIN's other ON conjuncts (its
** aOn), the rest over the joined rows (pl->aPost). */
static int bindJoinConj(Bind *b, JSort *js, qexpr ***aLocal, int *nLocal){
  qplan *pl = b->pl;
  int c;
  for(c=0; c<js->n && !stopped(b); c++){
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
        if( !bindTop(b, &e, CTX_ROW) || !infallibleEq(b, e) ) return 0;
        q->aBuildSide[q->nEq] = side;
        q->aEq[q->nEq++] = e;
      }else{
        if( !bindTop(b, &e, CTX_ROW) || !listPush(b, &q->aOn, &q->nOn, e) ) return 0;
      }
      continue;
    }
    if( x->m==0 || (x->m>0 && T==js->aOrder[0]) ){
      if( bindTop(b, &e, CTX_ROW) ) conjuncts(pl, e, b);
    }else if( x->m>0 && x->m==TAB_BIT(T) && !b->aTab[T].left ){
      qjoin *q = &pl->aJoin[b->aTab[T].iJoin];
      if( !listPush(b, &aLocal[q - pl->aJoin], &nLocal[q - pl->aJoin], e) ) return 0;
    }else if( x->m>0 && pl->aJoin[b->aTab[T].iJoin].nEq<Q_MAXKEY && isEdge(b, x, T, Jb, &side)
              && (pl->aJoin[b->aTab[T].iJoin].unique!=Q_ONE_GROUP || x->from==T) ){
      /* (a correlated aggregate's groups are joined by the correlation alone:
      ** 9c's one group a key is of those keys) */
      qjoin *q = &pl->aJoin[b->aTab[T].iJoin];
      if( !bindTop(b, &e, CTX_ROW) || !infallibleEq(b, e) ) return 0;
      q->aBuildSide[q->nEq] = side;
      q->aEq[q->nEq++] = e;
    }else{
      const char *zF;
      if( !bindTop(b, &e, CTX_ROW) || !listPush(b, &pl->aPost, &pl->nPost, e) ) return 0;
      if( (zF = fallible(e))!=0 ){
        return whyf(b, "a condition over joined rows with %s, which can fail: which rows SQLite meets it on is "
                       "its join order's", zF);
      }
    }
  }
  for(c=0; c<pl->nJoin && !stopped(b); c++){
    if( pl->aJoin[c].semi==Q_COUNT && pl->aJoin[c].nCol>=Q_COUNT_COL ){
      whyf(b, "count(*) (a correlated subquery over more than %d columns)", Q_COUNT_COL - 1);
    }
    if( pl->aJoin[c].nEq==0 && pl->aJoin[c].semi && !(pl->aJoin[c].nOn && pl->aJoin[c].nCol) ){
      /* (a subquery's pairs need a condition that reads its table) */
      whyf(b, "a join of %s by no equality it can use", pl->aJoin[c].zQual);
    }
    if( pl->aJoin[c].nOn && pl->aJoin[c].semi ){
      const char *zF = 0;
      int k;
      for(k=0; k<pl->aJoin[c].nOn && zF==0; k++) zF = fallible(pl->aJoin[c].aOn[k]);
      if( zF ){
        whyf(b, "%s (a correlated subquery's condition with %s, which can fail: which rows SQLite meets it on is "
                "its plan's)", semiWord(b, pl->aJoin[c].iFrom), zF);
      }
    }else if( pl->aJoin[c].nOn ){
      whyf(b, "a LEFT JOIN whose ON has more than equalities and conditions on %s alone", pl->aJoin[c].zQual);
    }
  }
  return !stopped(b);
}

/* Rows of a join without aggregates whose order ORDER BY decides alone
** (9d): a term is the scanned table's INTEGER PRIMARY KEY, and each table
** joined to it finds at most one row for a row (its build's keys one a row,
** else the run is SQLite's: join.c, 1d). */
static int orderedByKey(Bind *b){
  qplan *pl = b->pl;
  int i, k;
  if( !rowidKeyed(&pl->src.tab) ) return 0;
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
    int c = colIndex(t, e->zName);
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
    if( rowidKeyed(t) ){
      /* (an INTEGER PRIMARY KEY DESC is no rowid alias: SQLite keeps an index for it) */
      sqlite3_stmt *st = 0;
      int alias = sqlite3_prepare_v2(b->db, "SELECT count(*) FROM pragma_index_list(?1, ?2) WHERE origin='pk'", -1,
                                     &st, 0)==SQLITE_OK;
      if( alias ){
        sqlite3_bind_text(st, 1, t->zTab, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, t->zDb ? t->zDb : "main", -1, SQLITE_STATIC);
        alias = sqlite3_step(st)==SQLITE_ROW && sqlite3_column_int(st, 0)==0;
      }
      sqlite3_finalize(st);
      if( !alias ) return 0;
      for(c=0; c<t->nCol; c++) if( t->aCol[c].pk==1 ) aUsed[i] &= ~((uint64_t)1<<c);
    }
  }
  return 1;
}

/* Do the loops of SQLite's plan of the statement that are s's show where
** joinorder.c looks (the top level, or the isArm-th arm's of the top
** level's compound, one without ORDER BY)? */
static int isOwnPlan(const qselect *s, int isArm){
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
** were (sqlitePlan decides on an index it reads). */
static void planOrderTerms(Bind *b, qexpr ***aLocal, const int *nLocal, int iArm){
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
        whyf(b, "rows of a join with a subquery in FROM, without aggregates or ORDER BY (their order is SQLite's join "
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
    if( join ) whyf(b, "rows of a join without aggregates or ORDER BY under PRAGMA reverse_unordered_selects");
    return;
  }
  if( (a = sqlite3_malloc(sizeof(qordterm)*Q_JOIN_ORDER_MAX))==0 ){
    b->rc = SQLITE_NOMEM;
    return;
  }
  rc = explainPrepared(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, b->keep, (b->s->pRoot ? b->s->pRoot : b->s)->zSql,
                       b->apParam, b->nParam, &st);
  if( rc==SQLITE_OK ){
    rc = q_join_order(b->db, st, iArm, b->s, nTab, azQual, apTab, known ? aUsed : 0, a, &n, Q_JOIN_ORDER_MAX, &zOrder,
                      &zWhy);
    keptDone(b->keep, st);
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
    whyf(b, "rows of a join without aggregates or ORDER BY (their order is SQLite's join order: %s)", sqlite3_errstr(rc));
  }else if( zWhy ){
    whyf(b, "rows of a join without aggregates or ORDER BY, in the order of a plan the engine does not follow: %s", zWhy);
  }else if( !sortTerms(b, n) || (pl->zJoinOrd = q_alloc(b->s, (int)strlen(zOrder) + 24))==0 ){
    b->rc = SQLITE_NOMEM;
  }else{
    sqlite3_snprintf((int)strlen(zOrder) + 24, pl->zJoinOrd, "SQLite's %s order: %s", join ? "join" : "index", zOrder);
    if( join ) pl->nPos = 1 + pl->nJoin;
    for(i=0; i<n && !stopped(b); i++){
      qexpr *e = q_node(b->s, E_COL);
      if( e==0 ){ b->rc = SQLITE_NOMEM; break; }
      pl->aSort[i] = e;
      pl->aSortDesc[i] = a[i].desc;
      pl->aSortNulls[i] = 0;
      if( a[i].zCol ){
        e->zName = a[i].zCol;
        e->zQual = join ? (char*)b->aTab[a[i].iTab].zQual : 0;
        e->synth = 0;
        if( !bindTop(b, &pl->aSort[i], CTX_ROW) ) break;
        if( (pl->aSortColl[i] = collOf(pl->bin, a[i].zColl))<0 ){
          whyf(b, "rows without ORDER BY, in the order of an index by the collation %s", a[i].zColl);
        }
      }else{
        e->iCol = Q_JCOL0 + pl->nJCol + b->aTab[a[i].iTab].iJoin + 1;
        pl->aSortColl[i] = pl->bin;
      }
    }
    pl->nSort = pl->nJoinOrd = i;
  }
  sqlite3_free(zWhy);
  sqlite3_free(zOrder);
  sqlite3_free(a);
}

/* Each joined table's rows as a plan of their own: SELECT the columns the
** query reads of it FROM it WHERE its own conjuncts (aLocal). */
static int planBuilds(Bind *b, qexpr ***aLocal, int *nLocal, sqlite3_value **apParam, int nParam){
  qplan *pl = b->pl;
  int k, j;
  for(k=0; k<pl->nJoin && !stopped(b); k++){
    qjoin *q = &pl->aJoin[k];
    qselect *sub = q_alloc(b->s, sizeof(qselect));
    char *zWhy = 0;
    int rc;
    if( sub==0 || (q->pBuild = sqlite3_malloc(sizeof(qplan)))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
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
    rc = planCore(b->vt, b->db, 0, sub, apParam, nParam, 0, 0, q->pBuild, &zWhy, 0);
    if( sub->pSub && sub->pSub->pPlanned ){       /* (not taken: planCore stopped first) */
      planFree(sub->pSub->pPlanned);
      sub->pSub->pPlanned = 0;
    }
    if( rc ){
      b->rc = rc;
      b->zErr = zWhy;
      return 0;
    }
    if( zWhy ){
      whyf(b, "the join's table %s: %s", q->zQual, zWhy);
      sqlite3_free(zWhy);
      return 0;
    }
  }
  return 1;
}

/* q_plan of one SELECT core (isArm: a compound's arm, 1 + its place, whose
** ORDER BY and LIMIT are not its own). */
static int planCore(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
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
  pl->bin = binaryOf(db, vt);
  pl->isArm = isArm;
  pl->distinct = s->distinct;
  if( s->zWhy ){
    *pzWhy = sqlite3_mprintf("%s", s->zWhy);
    return *pzWhy ? SQLITE_OK : SQLITE_NOMEM;
  }
  if( s->pSub && !s->pSub->pPlanned && (rc = q_flatten(s))<0 ) return -rc;   /* merged where it selects rows
                                                                               ** (flatten.c) */
  if( s->pSub ){                    /* FROM a subquery: its rows (requirement 7) */
    if( (rc = fromSub(vt, db, s, apParam, nParam, pl, pzWhy))!=SQLITE_OK || *pzWhy ) return rc;
    goto bind;
  }
  if( s->zFrom==0 ) goto bind;      /* no table: one row of no columns */
  rc = ga_source_resolve_on(db, vt ? ((ga_vtab*)vt)->conn : 0, "gpu_query", s->zFrom, &pl->src, &zErr);
  if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ){
    sqlite3_free(zErr);
    *pzWhy = sqlite3_mprintf("%s", sqlite3_errstr(rc));
    return rc;
  }
  if( rc ){
    /* SQLite prepared the SELECT, so the table is there: something the
    ** resolver does not take (a temp shadowing, say) — SQLite serves. */
    *pzWhy = sqlite3_mprintf("its FROM (%s)", zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_free(zErr);
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
  aggJoins(&b);                         /* comparisons with correlated aggregates as joins (9c) */
  semiJoins(&b);                        /* correlated subqueries as joins (9a) */
  countJoins(&b);                       /* ... and correlated count(*)s (9e) */
  if( s->nJoin || b.nSemi ) planJoin(&b, &js);   /* a join (requirement 9) */
  /* SELECT *: the table's columns (a join's: each table's in FROM's order,
  ** a USING or NATURAL column once) */
  if( s->star && !stopped(&b) ){
    int nT = b.nTab ? b.nFrom : 1, n = 0, k;
    for(k=0; k<nT; k++){
      const ga_table *t = b.nTab ? b.aTab[k].t : &pl->src.tab;
      for(i=0; i<t->nCol; i++) n += !(b.nTab && b.aTab[k].aUsing[i]);
    }
    if( s->nRes!=1 ) whyf(&b, "* beside other results");
    else{
      qterm *a = q_alloc(s, (int)sizeof(qterm)*(n + 1));
      if( a==0 ){ sqlite3_free(js.a); return SQLITE_NOMEM; }
      for(k=0, n=0; k<nT; k++){
        const ga_table *t = b.nTab ? b.aTab[k].t : &pl->src.tab;
        for(i=0; i<t->nCol; i++){
          qexpr *e;
          if( b.nTab && b.aTab[k].aUsing[i] ) continue;
          if( (e = q_alloc(s, sizeof(qexpr)))==0 ){ sqlite3_free(js.a); return SQLITE_NOMEM; }
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
  for(i=0; i<s->nRes && !stopped(&b); i++) if( q_has_agg(s->aRes[i].e) ) pl->grouped = 1;
  if( s->nGroup || (s->pHaving) ) pl->grouped = 1;
  for(i=0; i<nOrder; i++) if( q_has_agg(s->aOrder[i].e) ) pl->grouped = 1;
  if( s->nGroup>Q_MAXKEY ) whyf(&b, "GROUP BY of more than %d terms", Q_MAXKEY);
  /* WHERE, over rows; then the table's constraints (vtab.c) */
  if( b.nTab ){
    if( !stopped(&b) ) bindJoinConj(&b, &js, aLocal, nLocal);
  }else if( s->pWhere && !stopped(&b) && bindTop(&b, &s->pWhere, CTX_ROW) ){
    conjuncts(pl, s->pWhere, &b);
  }
  sqlite3_free(js.a);
  js.a = 0;
  for(i=0; i<nPush && !stopped(&b); i++){
    static const int aOp[] = { SQLITE_INDEX_CONSTRAINT_EQ, E_EQ, SQLITE_INDEX_CONSTRAINT_LT, E_LT,
                               SQLITE_INDEX_CONSTRAINT_LE, E_LE, SQLITE_INDEX_CONSTRAINT_GT, E_GT,
                               SQLITE_INDEX_CONSTRAINT_GE, E_GE };
    qexpr *c = q_alloc(s, sizeof(qexpr)), *v = q_alloc(s, sizeof(qexpr));
    int k;
    if( c==0 || v==0 || (c->a = copyTree(&b, s->aRes[aPush[i].iRes].e))==0 ){ b.rc = SQLITE_NOMEM; break; }
    for(k=0; k<10 && aOp[k]!=aPush[i].op; k+=2){}
    c->op = k<10 ? aOp[k+1] : E_EQ;
    c->aff = c->coll = c->cmpAff = v->aff = v->coll = v->cmpAff = -1;
    c->slot = v->slot = -1;
    v->op = E_LIT;
    if( !takeValue(&b, v, aPush[i].v) ) break;
    c->b = v;
    if( bindTop(&b, &c, CTX_ROW) ) conjuncts(pl, c, &b);
  }
  /* GROUP BY keys, over rows: a result's number or alias stands for it */
  for(i=0; i<s->nGroup && !stopped(&b); i++){
    qexpr *e = s->aGroup[i].e;
    int cTerm, k = resultRef(&b, e, 0, &cTerm);
    if( k==-2 ) break;
    if( k>=0 && cTerm>=0 ){ whyf(&b, "GROUP BY a result's number with COLLATE"); break; }
    if( k<0 && e->op==E_COL && e->zQual==0 && !isTabCol(&b, e) ){
      k = aliasIndex(s, e->zName);      /* a name that is no column of the table but a result's alias */
    }
    if( k>=0 ) s->aGroup[i].e = e = s->aRes[k].e;
    if( q_has_agg(e) ){ whyf(&b, "an aggregate in GROUP BY"); break; }
    /* key i is a copy, bound over rows; results compare with the parse */
    {
      qexpr *c = copyTree(&b, e);   /* binding leaves aGroup's tree as parsed */
      if( stopped(&b) ) break;
      pl->aKey[i] = c;
      if( !bindTop(&b, &pl->aKey[i], CTX_ROW) ) break;
      pl->aKeyColl[i] = collWalk(pl->aKey[i]);
      if( pl->aKeyColl[i]<0 ) pl->aKeyColl[i] = pl->bin;
    }
  }
  pl->nKey = s->nGroup;
  /* results */
  if( !stopped(&b) && (pl->aOut = q_alloc(s, (int)sizeof(qexpr*)*(s->nRes + 1)))==0 ) b.rc = SQLITE_NOMEM;
  for(i=0; i<s->nRes && !stopped(&b); i++){
    pl->aOut[i] = s->aRes[i].e;
    bindTop(&b, &pl->aOut[i], pl->grouped ? CTX_GROUP : CTX_ROW);
  }
  pl->nOut = s->nRes;
  if( !stopped(&b) && (pl->aOutColl = q_alloc(s, (int)sizeof(int)*(s->nRes + 1)))==0 ) b.rc = SQLITE_NOMEM;
  for(i=0; i<s->nRes && !stopped(&b); i++){
    int c = collWalk(pl->aOut[i]);
    pl->aOutColl[i] = c<0 ? pl->bin : c;
  }
  /* ORDER BY: a result's alias or number, else an expression */
  if( !stopped(&b) && nOrder && !sortTerms(&b, nOrder) ) b.rc = SQLITE_NOMEM;
  for(i=0; i<nOrder && !stopped(&b); i++){
    qexpr *e = s->aOrder[i].e;
    int cTerm, k = resultRef(&b, e, 1, &cTerm), c;
    if( k==-2 ) break;
    if( k>=0 ){
      pl->aSort[i] = pl->aOut[k];
      c = cTerm>=0 ? cTerm : collWalk(pl->aOut[k]);
    }else{
      pl->aSort[i] = e;
      if( !bindTop(&b, &pl->aSort[i], pl->grouped ? CTX_GROUP : CTX_ROW) ) break;
      c = collWalk(pl->aSort[i]);
    }
    pl->aSortColl[i] = c<0 ? pl->bin : c;
    pl->aSortDesc[i] = s->aOrder[i].desc;
    pl->aSortNulls[i] = s->aOrder[i].nulls;
  }
  pl->nSort = nOrder;
  if( !stopped(&b) && pl->nKey && nOrder==pl->nKey ) keyOrder(&b, pl->aSortDesc);
  /* HAVING after ORDER BY: SQLite's AggInfo takes aggregates from the
  ** results, then ORDER BY, then HAVING (the last min() or max() decides
  ** the keys shown) */
  if( s->pHaving && !stopped(&b) ){
    pl->pHaving = s->pHaving;
    bindTop(&b, &pl->pHaving, CTX_GROUP);
  }
  if( !isArm ) limits(&b);
  if( !stopped(&b) && !pl->grouped && !pl->distinct && pl->nSort==0 && b.nFrom<=1 && s->zFrom && !pl->pSub && !s->asSet
   && isOwnPlan(s, isArm) ){
    planOrderTerms(&b, aLocal, nLocal, isArm - 1);   /* (9f: one table's rows in the order of an index SQLite reads) */
  }
  if( b.nTab && !stopped(&b) ){
    /* a join's rows come in SQLite's join order: where the answer would
    ** depend on it, SQLite's path (requirement 9) */
    if( !pl->grouped && b.nFrom>1 && !s->asSet && !orderedByKey(&b) ){
      if( pl->distinct ) whyf(&b, "DISTINCT rows of a join (which of equal rows SQLite keeps is its join order's)");
      else if( pl->nSort==0 && isOwnPlan(s, isArm) ) planOrderTerms(&b, aLocal, nLocal, isArm - 1);   /* (9f) */
      else if( pl->nSort==0 ) whyf(&b, "rows of a join without aggregates or ORDER BY (their order is SQLite's join order)");
      else pl->tieBail = 1;          /* (9d: finish.c) */
    }
    /* (one table and its correlated subqueries' semi and anti joins: each
    ** row stays once or not at all, in the scan's order, as a table's rows;
    ** sqlitePlan sends it to SQLite where SQLite's plan reads the table in
    ** an index's order) */
    for(i=0; i<pl->nAgg && !stopped(&b); i++){
      if( pl->aAgg[i].fn==A_ARGMIN || pl->aAgg[i].fn==A_ARGMAX ){
        whyf(&b, "gpu_argmin or gpu_argmax over a join (which row of a tie is SQLite's join order's)");
      }
    }
    for(i=0; i<pl->nJoin; i++){
      /* (a cross product's build reads a column of its table, its rows the pairs' count) */
      if( pl->aJoin[i].nEq==0 && pl->aJoin[i].nCol==0 ) pl->aJoin[i].aTabCol[pl->aJoin[i].nCol++] = 0;
    }
    if( !stopped(&b) ) planBuilds(&b, aLocal, nLocal, apParam, nParam);
  }
  if( b.rc ){
    *pzWhy = b.zErr ? b.zErr : sqlite3_mprintf("%s", sqlite3_errstr(b.rc));
    sqlite3_free(b.zWhy);
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

/* ---- compounds (requirement 6) --------------------------------------------------- */

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
    if( e->op==E_COL && e->zQual==0 && aliasIndex(a, e->zName)>=0 ) return aliasIndex(a, e->zName);
    for(i=0; i<a->nRes; i++) if( same(s, e, a->aRes[i].e) ) return i;
  }
  return -1;
}

static int planCompound(sqlite3_vtab *vt, sqlite3 *db, qselect *s, sqlite3_value **apParam, int nParam,
                        qplan *pl, char **pzWhy){
  static const char *azOp[] = { "", "UNION ALL", "UNION", "INTERSECT", "EXCEPT" };
  Bind b;
  qselect *a;
  int n = 0, i, rc;
  memset(pl, 0, sizeof(*pl));
  memset(&b, 0, sizeof(b));
  *pzWhy = 0;
  pl->s = s;
  pl->bin = binaryOf(db, vt);
  b.pl = pl; b.s = s; b.db = db; b.vt = vt;
  b.apParam = apParam; b.nParam = nParam;
  for(a=s; a; a=a->pNext) n++;
  if( (pl->aArm = sqlite3_malloc64(sizeof(qplan)*(uint64_t)n))==0 ) return SQLITE_NOMEM;
  memset(pl->aArm, 0, sizeof(qplan)*(size_t)n);
  pl->nArm = n;
  /* ORDER BY: result columns, resolved on the arms as written (room for
  ** every column: a merge that dedups orders by all of them) */
  if( s->nOrder && ((pl->aSortCol = q_alloc(s, (int)sizeof(int)*(s->nOrder + s->nRes)))==0
                    || !sortTerms(&b, s->nOrder + s->nRes)) ){
    return SQLITE_NOMEM;
  }
  for(i=0; i<s->nOrder && !stopped(&b); i++){
    qexpr *e = s->aOrder[i].e;
    int c = -1;
    while( e->op==E_COLLATE && !e->synth ){
      if( c<0 && (c = collOf(pl->bin, e->zName))<0 ) whyf(&b, "COLLATE %s", e->zName);
      e = e->a;
    }
    pl->aSortColl[i] = c;
    if( (pl->aSortCol[i] = compoundTerm(s, e))<0 ) whyf(&b, "a compound's ORDER BY term that is no result's number or name");
    pl->aSortDesc[i] = s->aOrder[i].desc;
    pl->aSortNulls[i] = s->aOrder[i].nulls;
  }
  pl->nSort = s->nOrder;
  for(i=0, a=s; a && !stopped(&b); a=a->pNext, i++){
    if( (rc = planCore(vt, db, 0, a, apParam, nParam, 0, 0, &pl->aArm[i], pzWhy, 1 + i))!=SQLITE_OK ) return rc;
    if( *pzWhy ){
      char *z = sqlite3_mprintf("%s's arm %d: %s", azOp[s->pNext->op], i + 1, *pzWhy);
      sqlite3_free(*pzWhy);
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
  if( !stopped(&b) && (pl->aOutColl = q_alloc(s, (int)sizeof(int)*(pl->nOut + 1)))==0 ) b.rc = SQLITE_NOMEM;
  for(i=0; i<pl->nOut && !stopped(&b); i++){
    int k, c = -1;
    for(k=0; k<n && c<0; k++) c = collWalk(pl->aArm[k].aOut[i]);
    pl->aOutColl[i] = c<0 ? pl->bin : c;
  }
  for(i=0; i<pl->nSort && !stopped(&b); i++){
    /* (SQLite gives each term the compound's collation explicitly, so that
    ** each arm orders its rows by it too: multiSelectOrderByKeyInfo) */
    if( pl->aSortColl[i]<0 ) pl->aSortColl[i] = pl->aOutColl[pl->aSortCol[i]];
  }
  for(a=s->pNext; a && a->op==Q_UNION_ALL; a=a->pNext){}
  if( pl->nSort && a && !stopped(&b) ){
    /* multiSelectOrderBy: a merge that dedups (the last operator's) orders
    ** by every column, the ORDER BY's first; equal rows are equal by the
    ** columns' collations, which the ORDER BY must not change */
    int c;
    for(a=s->pNext; a->pNext; a=a->pNext){}
    if( a->op==Q_UNION_ALL ) whyf(&b, "ORDER BY over a compound whose last operator is UNION ALL after UNION, INTERSECT or EXCEPT");
    for(i=0; i<pl->nSort && !stopped(&b); i++){
      if( pl->aSortColl[i]!=pl->aOutColl[pl->aSortCol[i]] ) whyf(&b, "a compound's ORDER BY term with a collation not its column's");
    }
    for(c=0; c<pl->nOut && !stopped(&b); c++){
      for(i=0; i<pl->nSort && pl->aSortCol[i]!=c; i++){}
      if( i<pl->nSort ) continue;
      pl->aSortCol[pl->nSort] = c;
      pl->aSortColl[pl->nSort] = pl->aOutColl[c];
      pl->aSortDesc[pl->nSort] = pl->aSortNulls[pl->nSort] = 0;
      pl->nSort++;
    }
  }
  /* each arm gets the compound's ORDER BY, and so its groups' order */
  for(i=0; i<n && pl->nSort && !stopped(&b); i++){
    qplan *arm = &pl->aArm[i];
    if( arm->nKey && arm->nKey==pl->nSort ){
      b.pl = arm;
      keyOrder(&b, pl->aSortDesc);
      b.pl = pl;
    }
  }
  if( !stopped(&b) ) limits(&b);
  if( b.rc ){
    *pzWhy = b.zErr ? b.zErr : sqlite3_mprintf("%s", sqlite3_errstr(b.rc));
    sqlite3_free(b.zWhy);
    return b.rc;
  }
  *pzWhy = b.zWhy;
  return SQLITE_OK;
}

/* ---- SQLite's own plan (requirement 8) ------------------------------------------------ */

/* Is pl's answer the same when its rows are read in index ix's order? With
** GROUP BY keys that are ix's first columns (plain columns, the same
** collations), ix gives a group's rows in rowid order, as the engine reads
** them: every choice of a row is the same. Without keys, where nothing
** depends on the order: no DISTINCT, LIMIT, OFFSET, bare column, min(),
** max(), argmin, argmax or DISTINCT aggregate. */
static int orderFree(sqlite3 *db, const qplan *pl, const char *zIndex){
  sqlite3_stmt *st = 0;
  int i, k, ok = 1;
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
  if( sqlite3_prepare_v2(db, "SELECT name, coll FROM pragma_index_xinfo(?1, ?2) WHERE key ORDER BY seqno", -1, &st, 0) ){
    sqlite3_finalize(st);
    return 0;
  }
  sqlite3_bind_text(st, 1, zIndex, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, pl->src.tab.zDb, -1, SQLITE_STATIC);
  for(i=0; i<pl->nKey && ok; i++){
    const char *zCol, *zColl;
    ok = sqlite3_step(st)==SQLITE_ROW && (zCol = (const char*)sqlite3_column_text(st, 0))!=0
         && (zColl = (const char*)sqlite3_column_text(st, 1))!=0 && collOf(pl->bin, zColl)>=0;
    for(k=0; ok && k<pl->nKey; k++){
      const qexpr *e = pl->aKey[k];
      while( e->op==E_COLLATE ) e = e->a;     /* (its collation is the key's: aKeyColl) */
      if( e->op==E_COL && sqlite3_stricmp(pl->src.tab.aCol[pl->aiCol[e->iCol]].zName, zCol)==0 ) break;
    }
    ok = ok && k<pl->nKey && pl->aKeyColl[k]==collOf(pl->bin, zColl);
  }
  sqlite3_finalize(st);
  return ok;
}

void q_sqlkeep_free(qsqlkeep *k){
  int i;
  for(i=0; i<k->n; i++){
    sqlite3_finalize(k->aSt[i]);
    sqlite3_free(k->azSql[i]);
  }
  for(i=0; i<k->nCount; i++) sqlite3_free(k->azCount[i]);
  sqlite3_free(k->zShareKey);
  memset(k, 0, sizeof(*k));
}

/* zSql prepared (SQLITE_OK) into *pSt: k's statement of that text where
** main's and temp's cookies are still the ones it was prepared under
** (reset, its bindings cleared), else prepared now, and kept in k where
** there is room, outside a transaction; keptDone ends its use. */
static int keptPrepare(sqlite3 *db, ga_conn *conn, qsqlkeep *k, const char *zSql, sqlite3_stmt **pSt){
  int vMain, vTemp, i, rc;
  *pSt = 0;
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
  if( k && k->n<Q_SQLKEEP && (k->azSql[k->n] = sqlite3_mprintf("%s", zSql))!=0 ) k->aSt[k->n++] = *pSt;
  return SQLITE_OK;
}

/* EXPLAIN QUERY PLAN of zSql, its parameters bound, into *pSt
** (keptPrepare's: keptDone ends its use). */
static int explainPrepared(sqlite3 *db, ga_conn *conn, qsqlkeep *k, const char *zSql, sqlite3_value **apParam,
                           int nParam, sqlite3_stmt **pSt){
  char *z = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", zSql);
  int rc, i;
  *pSt = 0;
  if( z==0 ) return SQLITE_NOMEM;
  rc = keptPrepare(db, conn, k, z, pSt);
  sqlite3_free(z);
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

/* The end of a use of st (keptPrepare's): reset where k keeps it, else
** finalized. */
static void keptDone(qsqlkeep *k, sqlite3_stmt *st){
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
  if( keptPrepare(db, conn, keep, "SELECT tbl, CAST(stat AS INTEGER) FROM main.sqlite_stat1", &st)!=SQLITE_OK ){
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
  keptDone(keep, st);
}

static void statRowsFree(StatRows *p){
  int k;
  for(k=0; k<p->n; k++) sqlite3_free(p->a[k].zTab);
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
static int64_t joinRows(sqlite3 *db, const qjoin *q, const StatRows *pStat){
  int64_t n = q->nEst;
  if( n<=0 && q->src.tab.zTab ) n = spanOf(db, q->src.tab.zDb, q->src.tab.zTab, -1);
  return statMin(pStat, &q->src, n);
}

/* Rows of table zName as SQLite's plan names it (its alias, where it has
** one), at most: a join's estimates (rowid spans), else the one table's
** span, either ANALYZE's count where that is fewer; -1 not one of the
** query's. */
static int64_t loopRows(sqlite3 *db, const qplan *pl, const qloop *lp, const StatRows *pStat){
  int i;
  if( pl->nJoin ){
    if( (int)strlen(pl->zScanQual)==lp->nName && sqlite3_strnicmp(pl->zScanQual, lp->zName, lp->nName)==0 ){
      return statMin(pStat, &pl->src, pl->nScanEst);
    }
    for(i=0; i<pl->nJoin; i++){
      const qjoin *q = &pl->aJoin[i];
      if( (int)strlen(q->zQual)==lp->nName && sqlite3_strnicmp(q->zQual, lp->zName, lp->nName)==0 ){
        return joinRows(db, q, pStat);
      }
    }
    return -1;
  }
  if( pl->pSub || pl->nArm || pl->src.tab.zTab==0 ) return -1;
  if( !((int)strlen(pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab)==lp->nName
        && sqlite3_strnicmp(pl->s->zAlias ? pl->s->zAlias : pl->src.tab.zTab, lp->zName, lp->nName)==0) ){
    return -1;                               /* (a subquery's table) */
  }
  return statMin(pStat, &pl->src, spanOf(db, pl->src.tab.zDb, pl->src.tab.zTab, -1));
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

/* Rows a search of loop lp visits (cost.c, 1): its index's columns and
** uniqueness (pragma_index_list, pragma_index_info) and sqlite_stat1's
** figures where ANALYZE wrote them. */
static double loopPer(sqlite3 *db, const qplan *pl, const qloop *lp, int64_t nRows){
  sqlite3_stmt *st = 0;
  int64_t aStat[8];
  int nStat = 0, nKey = 0, isUnique = 0;
  char *zIx, *zSql;
  const char *zDb = loopDb(pl, lp);
  if( !lp->search || lp->zIndex==0 || lp->automatic ) return q_loop_rows(lp, nRows, 0, 0, 0, 0);
  if( (zIx = sqlite3_mprintf("%.*s", lp->nIndex, lp->zIndex))==0 ) return q_loop_rows(lp, nRows, 0, 0, 0, 0);
  zSql = sqlite3_mprintf("SELECT (SELECT count(*) FROM pragma_index_info(%Q, %Q)), (SELECT \"unique\" FROM"
                         " pragma_index_list((SELECT tbl_name FROM \"%w\".sqlite_schema WHERE name=%Q), %Q) WHERE name=%Q)",
                         zIx, zDb, zDb, zIx, zDb, zIx);
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    nKey = sqlite3_column_int(st, 0);
    isUnique = sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  st = 0;
  zSql = sqlite3_mprintf("SELECT stat FROM \"%w\".sqlite_stat1 WHERE idx=%Q", zDb, zIx);
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 0);
    while( z && *z && nStat<8 ){
      aStat[nStat++] = atoll(z);
      z += strcspn(z, " ");
      z += strspn(z, " ");
      if( *z<'0' || *z>'9' ) break;          /* ("unordered", "sz=": not figures) */
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  sqlite3_free(zIx);
  return q_loop_rows(lp, nRows, nKey, isUnique, nStat ? aStat : 0, nStat);
}

/* Rows of the table a loop of a correlated subquery names (a table of
** main by that name; -1: an alias, a view, or empty). */
static int64_t tableRows(sqlite3 *db, const qloop *lp){
  int64_t n = spanOf(db, "main", lp->zName, lp->nName);
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

/* A subtree of SQLite's plan costed as a nest of its own (sqlitePlan). */
typedef struct PlanNest {
  int iFirst;                      /* its ids' start in sqlitePlan's aId */
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

/* One walk of SQLite's plan (sqlitePlan): its loops costed, and what it
** searches and reads in an index's order. */
typedef struct PlanWalk {
  qcost c;                         /* the loops' costs */
  int known;                       /* every loop costed */
  char *zSearch;                   /* a search that decides (sqlite3_malloc'd), or NULL */
  char *zOrdered;                  /* an index whose order the rows come in, or NULL */
  const ga_table *pFirst;          /* the first loop's table, where it SCANs one of the plan's */
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
    char *z = exprText(s, aConj[i]);
    ok = z && sqlite3_strlike("%select%", z, 0)!=0;
    sqlite3_str_appendf(x, "%s(%s)", i ? " AND " : "", z ? z : "");
    sqlite3_free(z);
  }
  zSql = sqlite3_str_finish(x);
  if( !ok || zSql==0 ){
    sqlite3_free(zSql);
    return 1.0;
  }
  /* run ?1 of 8 starts at the span's ?1/8 */
  x = sqlite3_str_new(db);
  sqlite3_str_appendf(x, "SELECT count(*), total(CASE WHEN %s THEN 1 ELSE 0 END) FROM \"%w\".\"%w\" AS \"%w\" WHERE "
                      "\"%w\".rowid IN (SELECT rowid FROM \"%w\".\"%w\" WHERE rowid>=(SELECT min(rowid) FROM \"%w\".\"%w\")"
                      " + ?1*((SELECT max(rowid) FROM \"%w\".\"%w\") - (SELECT min(rowid) FROM \"%w\".\"%w\"))/8 LIMIT 128)",
                      zSql, zDb, t->zTab, zQual, zQual, zDb, t->zTab, zDb, t->zTab, zDb, t->zTab, zDb, t->zTab);
  sqlite3_free(zSql);
  if( (zSql = sqlite3_str_finish(x))==0 ) return 1.0;
  if( keep && keep->zShareKey && strcmp(keep->zShareKey, zSql)==0 ){
    sqlite3_free(zSql);
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
    sqlite3_free(keep->zShareKey);
    keep->zShareKey = zSql;
    keep->share = share;
  }else{
    sqlite3_free(zSql);
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
** conjuncts keep: 1 where not counted). See sqlitePlan. */
static void planWalk(sqlite3 *db, qplan *pl, sqlite3_stmt *st, const StatRows *pStat, double share0, PlanWalk *w,
                     char **pzWhy){
  const char *zSubName = pl->pSub && !pl->nJoin ? (pl->s->zAlias ? pl->s->zAlias : pl->s->zFrom) : 0;
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
      if( (nRows = loopRows(db, pl, &lp, pStat))<0 ) nRows = tableRows(db, &lp);
    }else if( own==pl && zSubName && (int)strlen(zSubName)==lp.nName && sqlite3_strnicmp(zSubName, lp.zName, lp.nName)==0 ){
      continue;                              /* (the FROM subquery's rows, read alike by both; SQLite's
                                             ** SEARCH of them is max()'s or min()'s, no index) */
    }else{
      nRows = loopRows(db, own, &lp, pStat);
    }
    if( nRows>=0 ) q_cost_add(&c, &lp, loopPer(db, own, &lp, nRows), nRows);
    else if( parent==0 || own!=pl ) w->known = 0;   /* (an uncosted subquery's table: not the query's loops) */
    if( nNest==0 && nLoop++==0 ){
      /* (the first loop: where it SCANs a table of the plan, the share its conjuncts keep) */
      if( !lp.search && own==pl ) w->pFirst = loopTable(pl, &lp);
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
** or where the plan sorts them so (9f), else SQLite's path. */
static int sqlitePlan(sqlite3 *db, ga_conn *conn, qplan *pl, sqlite3_value **apParam, int nParam, qsqlkeep *keep,
                      char **pzWhy){
  sqlite3_stmt *st = 0;
  int rc, i, pairs = 0;            /* pairs: a join by no equality, its pairs costed */
  StatRows stat;
  PlanWalk w;
  double share;
  statRowsRead(db, conn, keep, &stat);
  if( (rc = explainPrepared(db, conn, keep, pl->s->zSql, apParam, nParam, &st))!=SQLITE_OK ){
    statRowsFree(&stat);
    return rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ? rc : SQLITE_OK;
  }
  planWalk(db, pl, st, &stat, 1.0, &w, pzWhy);
  if( *pzWhy==0 && w.zSearch && w.known && w.c.sqlite>=w.c.engine && w.pFirst && neverKept(pl)
   && (share = firstShare(db, keep, pl, &w))<1.0 ){
    sqlite3_free(w.zSearch);
    sqlite3_free(w.zOrdered);
    planWalk(db, pl, st, &stat, share, &w, pzWhy);
  }
  keptDone(keep, st);
  for(i=0; i<pl->nJoin; i++){
    const qjoin *q = &pl->aJoin[i];
    int64_t nIn;
    /* a correlated subquery by no equality, or a cross product with a condition over its
    ** pairs: the engine pairs each row with every row of its table (join.c, 2c), SQLite's
    ** plan may search an index (a range by the rows before it). (A cross product whose
    ** conditions are each table's own: its pairs are its rows, SQLite's too.) */
    if( q->nEq || (!q->semi && !postReads(pl, q)) ) continue;
    nIn = joinRows(db, q, &stat);
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
    *pzWhy = w.known ? sqlite3_mprintf("SQLite's plan searches (%s): about %.0f rows in %.0f searches, cost %.3g, "
                                       "against %.3g for the engine's read of every table whole", w.zSearch, w.c.nVisit,
                                       w.c.nSearch, w.c.sqlite, w.c.engine)
                     : sqlite3_mprintf("SQLite's plan searches (%s): faster than reading the whole table", w.zSearch);
  }else if( *pzWhy==0 && w.zOrdered && (!pl->nJoin || isSemiRows(pl)) && (pl->nArm || pl->pSub
                                                                            || !orderFree(db, pl, w.zOrdered)) ){
    *pzWhy = sqlite3_mprintf("SQLite's plan reads the index %s, in its order, which this answer depends on", w.zOrdered);
  }else if( *pzWhy==0 && (w.zSearch || pairs) ){
    pl->costSqlite = w.c.sqlite;
    pl->costEngine = w.c.engine;
  }
  sqlite3_free(w.zSearch);
  sqlite3_free(w.zOrdered);
  statRowsFree(&stat);
  return SQLITE_OK;
}

/* A SELECT (a compound or a core) planned. */
static int planAny(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
                   const qpush *aPush, int nPush, qplan *pl, char **pzWhy){
  if( s->pNext && s->zWhy==0 ) return planCompound(vt, db, s, apParam, nParam, pl, pzWhy);
  return planCore(vt, db, keep, s, apParam, nParam, aPush, nPush, pl, pzWhy, 0);
}

int q_plan(sqlite3_vtab *vt, sqlite3 *db, qselect *s, sqlite3_value **apParam, int nParam,
           const qpush *aPush, int nPush, qsqlkeep *pKeep, qplan *pl, char **pzWhy){
  int rc = planAny(vt, db, pKeep, s, apParam, nParam, aPush, nPush, pl, pzWhy);
  if( rc==SQLITE_OK && *pzWhy==0 && (s->zFrom || s->pSub || s->pNext) ){
    rc = sqlitePlan(db, vt ? ((ga_vtab*)vt)->conn : 0, pl, apParam, nParam, pKeep, pzWhy);
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
    sqlite3_free(zErr);
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
    if( e->zQual && !qualifies(&s, t, e->zQual) ) continue;
    for(c=0; c<t->nCol && sqlite3_stricmp(t->aCol[c].zName, e->zName); c++){}
    if( c==t->nCol || t->aCol[c].zColl==0 || collOf(C_BINARY, t->aCol[c].zColl)<0 ) continue;
    for(k=0; grouped && k<s.nGroup; k++){
      const qexpr *g = s.aGroup[k].e;
      int n = g->end - g->at;
      if( g->op==E_COL && same(&s, g, e) ) break;
      if( g->op==E_COL && g->zQual==0 && s.aRes[i].zAlias && sqlite3_stricmp(g->zName, s.aRes[i].zAlias)==0 ) break;
      if( g->op==E_LIT && g->t==0 && n>0 && n<9 && strspn(zSql + g->at, "0123456789")>=(size_t)n && atoi(zSql + g->at)==i + 1 ) break;
    }
    if( grouped && k==s.nGroup ) continue;
    aPush[i] = collOf(C_BINARY, t->aCol[c].zColl)==C_BINARY ? 2 : 1;
  }
done:
  ga_source_free(&src);
  q_select_free(&s);
}

void q_plan_free(qplan *pl){
  int i;
  for(i=0; i<pl->nArm; i++) q_plan_free(&pl->aArm[i]);
  sqlite3_free(pl->aArm);
  planFree(pl->pSub);
  for(i=0; pl->aJoin && i<=pl->nJoin; i++){     /* (room for one more: planJoin's) */
    planFree(pl->aJoin[i].pDerived);
    planFree(pl->aJoin[i].pBuild);
    ga_source_free(&pl->aJoin[i].src);
  }
  sqlite3_free(pl->aJoin);
  ga_source_free(&pl->src);
  memset(pl, 0, sizeof(*pl));
}

/* ---- explaining --------------------------------------------------------------------- */

/* e's text: its own, or, for a comparison the parser or planner made
** (BETWEEN's two, USING's, IN's with its subquery's result), its operands'
** with the operator between them (NULL: out of memory). */
static char *exprText(const qselect *s, const qexpr *e){
  static const char *azOp[] = { "=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT", "AND" };   /* E_EQ ... E_AND */
  if( e->synth && e->op>=E_EQ && e->op<=E_AND && e->a && e->b ){
    char *a = exprText(s, e->a), *b = exprText(s, e->b), *z = 0;
    if( a && b ) z = sqlite3_mprintf(e->op==E_AND ? "(%s) %s (%s)" : "%s %s %s", a, azOp[e->op - E_EQ], b);
    sqlite3_free(a);
    sqlite3_free(b);
    return z;
  }
  if( e->end==e->at && e->op==E_COL && e->zName ){
    return e->zQual ? sqlite3_mprintf("%s.%s", e->zQual, e->zName) : sqlite3_mprintf("%s", e->zName);
  }
  return sqlite3_mprintf("%.*s", e->end - e->at, s->zSql + e->at);
}

static void exprJson(sqlite3_str *out, const qselect *s, const qexpr *e){
  char *z;
  if( e==0 ){ sqlite3_str_appendall(out, "null"); return; }
  z = exprText(s, e);
  ga_json_str(out, z ? z : "");
  sqlite3_free(z);
}

/* Expressions as a JSON array of their texts. */
static void exprsJson(sqlite3_str *out, const qselect *s, qexpr *const *a, int n){
  int i;
  sqlite3_str_appendchar(out, 1, '[');
  for(i=0; i<n; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    exprJson(out, s, a[i]);
  }
  sqlite3_str_appendchar(out, 1, ']');
}

void q_plan_describe(sqlite3_str *out, const qplan *pl){
  static const char *azOp[] = { "", "UNION ALL", "UNION", "INTERSECT", "EXCEPT" };
  const qselect *s = pl->s;
  if( pl->nArm ){
    int k;
    sqlite3_str_appendall(out, ",\"compound\":[");
    for(k=0; k<pl->nArm; k++){
      sqlite3_str_appendf(out, "%s{\"op\":%s%s%s", k ? "," : "", k ? "\"" : "", k ? azOp[pl->aArm[k].s->op] : "null",
                          k ? "\"" : "");
      q_plan_describe(out, &pl->aArm[k]);
      sqlite3_str_appendchar(out, 1, '}');
    }
    sqlite3_str_appendf(out, "],\"order_by\":%d,\"limit\":%s", pl->nSort, s->pLimit ? "true" : "false");
    return;
  }
  static const char *azAgg[] = { "count", "count(*)", "sum", "total", "avg", "min", "max", "gpu_var_samp",
    "gpu_var_pop", "gpu_stddev_samp", "gpu_stddev_pop", "gpu_median", "gpu_percentile", "gpu_percentile_cont",
    "gpu_percentile_disc", "gpu_argmin", "gpu_argmax" };
  static const char *azColl[] = { "BINARY", "NOCASE", "RTRIM", "BINARY", "BINARY" };
  int i;
  sqlite3_str_appendall(out, ",\"table\":");
  if( pl->pSub ){
    sqlite3_str_appendall(out, "{\"subquery\":{\"path\":\"engine\"");
    q_plan_describe(out, pl->pSub);
    sqlite3_str_appendall(out, "}}");
  }else if( s->zFrom ) ga_json_str(out, pl->src.tab.zTab ? pl->src.tab.zTab : s->zFrom);
  else sqlite3_str_appendall(out, "null");
  sqlite3_str_appendall(out, ",\"columns\":[");
  for(i=0; i<pl->nCol; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    ga_json_str(out, pl->src.tab.aCol[pl->aiCol[i]].zName);
  }
  sqlite3_str_appendf(out, "],\"distinct\":%s,\"filter\":", s->distinct ? "true" : "false");
  if( pl->nJoin ){
    /* a join: the scan's own conjuncts, each table's, what joins it, and
    ** what is left over the joined rows */
    int k;
    exprsJson(out, s, pl->aConj, pl->nConj);
    sqlite3_str_appendall(out, ",\"joins\":[");
    for(k=0; k<pl->nJoin; k++){
      const qjoin *q = &pl->aJoin[k];
      sqlite3_str_appendf(out, "%s{\"table\":", k ? "," : "");
      ga_json_str(out, q->src.tab.zTab);
      sqlite3_str_appendf(out, ",\"as\":");
      ga_json_str(out, q->zQual);
      sqlite3_str_appendf(out, ",\"left\":%s,\"kind\":\"%s\",\"on\":", q->left ? "true" : "false",
                          q->left ? "left" : q->semi==Q_SEMI ? "semi" : q->semi==Q_ANTI ? "anti"
                          : q->semi==Q_COUNT ? "count" : "inner");
      exprsJson(out, s, q->aEq, q->nEq);
      sqlite3_str_appendall(out, ",\"filter\":");
      exprsJson(out, s, q->pBuild ? q->pBuild->aConj : 0, q->pBuild ? q->pBuild->nConj : 0);
      sqlite3_str_appendf(out, ",\"columns\":%d}", q->nCol);
    }
    sqlite3_str_appendall(out, "],\"after_joins\":");
    exprsJson(out, s, pl->aPost, pl->nPost);
  }else{
    exprJson(out, s, s->pWhere);
  }
  sqlite3_str_appendall(out, ",\"keys\":[");
  for(i=0; i<pl->nKey; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    sqlite3_str_appendall(out, "{\"expr\":");
    exprJson(out, s, s->aGroup[i].e);
    sqlite3_str_appendf(out, ",\"collation\":\"%s\"}", azColl[pl->aKeyColl[i]]);
  }
  sqlite3_str_appendall(out, "],\"aggregates\":[");
  for(i=0; i<pl->nAgg; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    sqlite3_str_appendf(out, "{\"fn\":\"%s%s\",\"arg\":", azAgg[pl->aAgg[i].fn], pl->aAgg[i].distinct ? " DISTINCT" : "");
    exprJson(out, s, pl->aAgg[i].x);
    sqlite3_str_appendchar(out, 1, '}');
  }
  sqlite3_str_appendall(out, "],\"sqlite_per_value\":[");
  for(i=0; i<pl->nMemo; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    ga_json_str(out, pl->aMemoNode[i]->zTpl + 7);
  }
  sqlite3_str_appendf(out, "],\"having\":%s,\"order_by\":%d,\"limit\":%s", s->pHaving ? "true" : "false",
                      pl->nSort - pl->nJoinOrd, s->pLimit ? "true" : "false");
  if( pl->zJoinOrd ){
    sqlite3_str_appendall(out, ",\"rows_in\":");
    ga_json_str(out, pl->zJoinOrd);
  }
}
