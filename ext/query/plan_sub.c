/*
** gpu_query's planner: constants and subqueries, computed once a read
** (plan.c's requirements 3 and 3a). SQLite computes a constant, its
** parameters bound; a subquery that refers to no outer column runs once,
** on the engine where it covers it; one that refers to the outer query is
** never a constant (qpCorrelated), and plan_semi.c plans it as a join.
*/
#include <ctype.h>
#include "planint.h"

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
int qpTakeValue(Bind *b, qexpr *e, sqlite3_value *v){
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

/* The statement's WITH clause (parse.c's nWith): its length, *pz its text. */
static int withText(const Bind *b, const char **pz){
  const qselect *root = b->s->pRoot ? b->s->pRoot : b->s;
  *pz = root->zSql;
  return root->nWith;
}

/* Is z[0..n) one parenthesized whole: its first '(' closed by its last
** character (quotes and strings skipped)? */
static int wrapped(const char *z, int n){
  int i, depth = 0;
  if( n<2 || z[0]!='(' || z[n-1]!=')' ) return 0;
  for(i=0; i<n; i++){
    char c = z[i], e = c=='[' ? ']' : c;
    if( c=='\'' || c=='"' || c=='`' || c=='[' ){
      for(i++; i<n && z[i]!=e; i++){}
      continue;
    }
    if( c=='(' ) depth++;
    else if( c==')' && --depth==0 ) return i==n - 1;
  }
  return 0;
}

/* The text of the SELECT inside subquery node q (from its first '(' to
** its last ')', and inside any more parentheses around the whole: -((SELECT
** ...)) is one subquery), after the statement's WITH clause (the tables it
** may name), sqlite3_malloc'd; NULL (b->rc set) where out of memory. */
static char *subText(Bind *b, const qexpr *q){
  const char *z = b->s->zSql + q->at, *zWith;
  int n = q->end - q->at, at, nWith = withText(b, &zWith);
  char *zSub;
  for(at=0; at<n && z[at]!='('; at++){}
  z += at;
  n -= at;
  while( wrapped(z, n) ){
    z++;
    n -= 2;
    while( n>0 && isspace((unsigned char)z[0]) ){ z++; n--; }
    while( n>0 && isspace((unsigned char)z[n-1]) ) n--;
  }
  if( (zSub = sqlite3_mprintf("%.*s%.*s", nWith, zWith, n, z))==0 ) b->rc = SQLITE_NOMEM;
  return zSub;
}

/* Does a column of the query's own table(s), or a result's alias, answer
** to zName? */
static int outerHas(const Bind *b, const char *zName){
  int i, c;
  if( qpAliasIndex(b->s, zName)>=0 ) return 1;
  if( b->nTab ){
    for(i=0; i<b->nTab; i++) if( qpColIndex(b->aTab[i].t, zName)>=0 ) return 1;
    return 0;
  }
  if( b->s->zFrom==0 ) return 0;
  for(c=0; c<b->pl->src.tab.nCol; c++) if( sqlite3_stricmp(b->pl->src.tab.aCol[c].zName, zName)==0 ) return 1;
  return 0;
}

/* Does subquery q (E_SUBQ) use the outer query's row? SQLite says, the
** subquery prepared alone: "no such column: X" names what it takes from
** outside (X into *pzName where given: ga_free it). So does a name
** that alone is a string ("x") or TRUE or FALSE, where a column or alias
** of the outer query answers to it (SQLite looks outward before falling
** back). 1 correlated, else 0 (b->rc set on an error). Prepared alone, it
** is kept with the table's statements where main and temp are the only
** schemas: the cookies it was prepared under say what it names (an attached
** schema's would not). Prepared each read, TPC-H Q20's took 0.1-0.2 ms a
** read on the build machine. */
int qpCorrelated(Bind *b, const qexpr *q, char **pzName){
  char *zSub = subText(b, q);
  sqlite3_stmt *st = 0;
  qtok *aTok = 0;
  qsqlkeep *keep = sqlite3_libversion_number()>=3039000 && sqlite3_db_name(b->db, 2)==0 ? b->keep : 0;
  int rc, r = 0, nTok = 0, i;
  if( zSub==0 ) return 0;
  rc = qpKeptPrepare(b->db, 0, keep, zSub, &st);
  if( rc==SQLITE_NOMEM || rc==SQLITE_INTERRUPT ){
    b->rc = rc;
  }else if( rc ){
    /* any other error: what it names is not known to be its own (it is not a constant) */
    const char *zMsg = sqlite3_errmsg(b->db);
    int col = sqlite3_strnicmp(zMsg, "no such column: ", 16)==0;
    r = 1;
    if( pzName && (*pzName = col ? sqlite3_mprintf("%s", zMsg + 16)
                                 : sqlite3_mprintf("names (SQLite does not prepare it alone: %s)", zMsg))==0 ){
      b->rc = SQLITE_NOMEM;
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
      else ga_free(zName);
    }
  }
  ga_free(aTok);
  qpKeptDone(keep, st);
  ga_free(zSub);
  return r && b->rc==SQLITE_OK;
}

/* A subquery run on the engine (qpSubqueryValue, qpInSubquery): its text, parse,
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
  const qresult *pRows;            /* ... res, or IN's of the same text that this read of the
                                   ** table has read already (subRows) */
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
  /* (b's kept statements and columns its own subqueries' too: TPC-H Q20's part, read for partsupp's
  ** IN, itself supplier's) */
  rc = qpPlanAny(b->vt, b->db, b->keep, &r->sel, 0, 0, 0, 0, &r->pl, pzWhy);
  if( rc==SQLITE_OK && *pzWhy==0 ){
    r->pl.orderFree = asSet && r->sel.pLimit==0 && r->sel.pOffset==0 && !r->pl.distinct && r->pl.nSort==0;
    const qplan *first = r->pl.nArm ? &r->pl.aArm[0] : &r->pl;
    r->pFirst = first->nOut ? first->aOut[0] : 0;
    r->aff = r->pFirst ? r->pFirst->aff : -1;
    for(k=1; k<r->pl.nArm; k++) if( r->pl.aArm[k].nOut<1 || r->pl.aArm[k].aOut[0]->aff!=r->aff ) r->mixed = 1;
  }
  return rc;
}

/* r's rows (r->pRows), as q_plan (SQLite's own plan deciding too) and
** q_exec would give them; where a gpu_query table's read runs it (not
** gpu_explain's: b->keep NULL) and keeps its subqueries' columns
** (q_table_keeps_sub), its columns kept too, and its compiled plan with the
** table's, by its text. There IN's rows of one text are read once a read
** (q_table_subrows, named "IN " and the text: a set, not a FROM
** subquery's rows): TPC-H Q20's parts named forest%, for partsupp's IN and
** for the IN that restricts its decorrelated sums (decorrelate.c, 4). */
static int subRows(Bind *b, SubRun *r, char **pzWhy){
  int rc = SQLITE_OK, keep = b->keep && q_table_keeps_sub(b->vt);
  double t0 = ga_now_ms();
  char *zSet = 0;
  r->pRows = &r->res;
  if( b->keep && r->sel.asSet && strpbrk(r->zSub, "?:@$")==0 && !q_with_twice(r->zSub) ){
    const qresult *pr;
    if( (zSet = sqlite3_mprintf("IN %s", r->zSub))==0 ) return SQLITE_NOMEM;
    if( (pr = q_table_subrows(b->vt, zSet))!=0 ){
      ga_free(zSet);
      r->pRows = pr;
      return SQLITE_OK;
    }
  }
  if( r->sel.zFrom || r->sel.pSub || r->sel.pNext ){      /* (its statements kept with the table's) */
    rc = qpSqlitePlan(b->db, b->vt ? ((ga_vtab*)b->vt)->conn : 0, &r->pl, 0, 0, b->keep, 0, pzWhy);
  }
  if( rc==SQLITE_OK && *pzWhy==0 ){
    rc = q_exec(b->vt, b->db, &r->pl, keep, keep ? q_table_subkept(b->vt, r->zSub) : 0, keep ? r->zSub : "", &r->res,
                pzWhy);
    if( rc==SQLITE_OK && b->keep ){
      q_table_scanned(b->vt, r->res.nScan);
      q_table_sub_ran(b->vt, &r->res, ga_now_ms() - t0);
    }
    if( rc==SQLITE_OK && *pzWhy==0 && zSet && (r->pRows = q_table_subrows_keep(b->vt, zSet, &r->res))==0 ){
      r->pRows = &r->res;
    }
  }
  ga_free(zSet);
  return rc;
}

/* r freed; an error that is not a reason (rc, zWhy) into b: 0 then, else 1. */
static int subDone(Bind *b, SubRun *r, int rc, const char *zWhy){
  q_result_free(&r->res);
  q_plan_free(&r->pl);
  q_select_free(&r->sel);
  ga_free(r->zSub);
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
int qpSubqueryValue(Bind *b, qexpr *e){
  const char *z = b->s->zSql + e->at;
  int n = e->end - e->at, k;
  int isExists = sqlite3_strnicmp(z, "EXISTS", 6)==0, rc;
  char *zWhy = 0;
  SubRun r;
  if( qpCorrelated(b, e, &zWhy) ){
    qpWhy(b, "a subquery that uses the outer row's %s", zWhy);
    ga_free(zWhy);
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
  ga_free(zWhy);
  if( !k ) return 0;
  return rc==SQLITE_OK && e->op==E_LIT ? 1 : -1;
}

/* qsort's order of IN's values: by class, then value (bytes), so that a set's
** list is one whatever order its subquery's rows came in (a kept plan's key:
** kept.c's litKey). */
static int inValueCmp(const void *pa, const void *pb){
  const qval *a = (const qval*)pa, *b = (const qval*)pb;
  int c;
  if( a->t!=b->t ) return a->t - b->t;
  if( a->t!=SQLITE_TEXT && a->t!=SQLITE_BLOB ) return (a->v>b->v) - (a->v<b->v);
  c = a->n && b->n ? memcmp(a->z, b->z, (size_t)(a->n<b->n ? a->n : b->n)) : 0;
  return c ? c : a->n - b->n;
}

/* IN's n values a[] in inValueCmp's order, then each once (a set: a value
** that repeats decides nothing more), *pn their count after. INTEGERs alone
** (most sets: TPC-H Q20's 54,000 supplier keys at scale factor 10) are put
** in order by a radix sort of their 64 bits, 8 at a time, where qsort's
** calls to inValueCmp took about 3.5 ms here; else qsort. Non-zero: out of
** memory (a[] in order, every value kept). */
static int inValuesSort(qval *a, int n, int *pn){
  uint64_t *k = 0, *t;
  int i, j, m, allInt = n>=64, pass;
  *pn = n;
  for(i=0; i<n && allInt; i++) allInt = a[i].t==SQLITE_INTEGER;
  if( allInt && (k = ga_malloc64(16*(uint64_t)n))!=0 ){
    t = k + n;
    for(i=0; i<n; i++) k[i] = (uint64_t)a[i].v ^ 0x8000000000000000ull;   /* (signed order, unsigned) */
    for(pass=0; pass<64; pass+=8){
      int at[256];
      uint64_t *x;
      memset(at, 0, sizeof(at));
      for(i=0; i<n; i++) at[(k[i]>>pass) & 255]++;
      for(i=0, m=0; i<256; i++){ int c = at[i]; at[i] = m; m += c; }
      for(i=0; i<n; i++) t[at[(k[i]>>pass) & 255]++] = k[i];
      x = k; k = t; t = x;                   /* (eight passes: k is the first buffer again) */
    }
    for(i=0; i<n; i++){
      a[i].v = (int64_t)(k[i] ^ 0x8000000000000000ull);
      a[i].z = 0;
      a[i].n = 0;
    }
    ga_free(k);
  }else{
    if( allInt ) return 1;
    qsort(a, (size_t)n, sizeof(qval), inValueCmp);
  }
  for(i=j=0; i<n; i++){
    if( j>0 && inValueCmp(&a[j-1], &a[i])==0 ) continue;
    a[j++] = a[i];
  }
  *pn = j;
  return 0;
}

/* a IN (SELECT ...) (requirement 3a): the SELECT (which refers to no
** outer column) run on the engine where it covers it, as q_plan and q_exec
** run it, its values into e, an E_IN of them: a's and its result's
** comparison affinity and collation (exprINAffinity, the key of
** sqlite3CodeRhsOfIN), NULL kept aside (hasNull); of no row, FALSE even for
** a NULL a. 1 done, 0 stopped (b says why). */
int qpInSubquery(Bind *b, qexpr *e){
  char *zWhy = 0;
  SubRun r;
  int rc;
  if( qpCorrelated(b, e->b, &zWhy) ){
    qpWhy(b, "IN (a subquery that uses the outer row's %s)", zWhy);
    ga_free(zWhy);
    return 0;
  }
  if( b->rc ) return 0;
  rc = subPlan(b, e->b, 1, &r, &zWhy);
  if( rc==SQLITE_OK && zWhy==0 ){
    const qplan *first = r.pl.nArm ? &r.pl.aArm[0] : &r.pl;
    if( first->nOut!=1 || r.mixed ) rc = QE_BAIL;
    else{
      e->cmpAff = qpCmpAffinity(e->a, r.pFirst);
      e->cmpColl = qpCmpColl(b->pl->bin, e->a, r.pFirst);
      if( r.pFirst->explicitColl && !e->a->explicitColl ) rc = QE_BAIL;   /* (a COLLATE inside: its arms') */
    }
  }
  if( rc==SQLITE_OK && zWhy==0 ) rc = subRows(b, &r, &zWhy);
  if( rc==SQLITE_OK && zWhy==0 && r.pRows->nCol!=1 ) rc = QE_BAIL;
  if( rc==SQLITE_OK && zWhy==0 ){
    const qresult *pr = r.pRows;
    int64_t i;
    if( pr->nRow==0 ){
      e->op = E_LIT;                /* x IN (no rows): FALSE, even for NULL */
      e->t = SQLITE_INTEGER;
      e->i = 0;
      e->a = e->b = 0;
      /* (not bound as a value where a constant above it is folded: the
      ** parser's NOT IN shares this node's text, NOT included; fold
      ** computes that NOT itself) */
    }else if( pr->nRow>Q_MAXIN ){
      zWhy = sqlite3_mprintf("IN (a subquery of more than %d rows)", Q_MAXIN);
    }else if( (e->aIn = q_alloc(b->s, (int)(sizeof(qval)*pr->nRow)))==0 ){
      rc = SQLITE_NOMEM;
    }else{
      for(i=0; i<pr->nRow && rc==SQLITE_OK; i++){
        qval v = pr->a[i];
        if( v.t==SQLITE_NULL ){ e->hasNull = 1; continue; }
        if( v.t==SQLITE_TEXT || v.t==SQLITE_BLOB ){
          char *c = q_alloc(b->s, v.n + 1);
          if( c==0 ){ rc = SQLITE_NOMEM; break; }
          if( v.n ) memcpy(c, v.z, (size_t)v.n);
          v.z = c;
        }
        e->aIn[e->nIn++] = v;
      }
      if( rc==SQLITE_OK && inValuesSort(e->aIn, e->nIn, &e->nIn) ) rc = SQLITE_NOMEM;
      e->op = E_IN;
      e->b = 0;
    }
  }
  if( !subDone(b, &r, rc, zWhy) ){
    ga_free(zWhy);
    return 0;
  }
  if( rc==QE_BAIL || zWhy ){
    qpWhy(b, "IN (a subquery the engine does not cover%s%s)", zWhy ? ": " : "", zWhy ? zWhy : "");
    ga_free(zWhy);
    return 0;
  }
  return 1;
}

/* Literal e's value where its text alone says it as SQLite reads it: a
** string ('' a quote), or an integer of at most 18 decimal digits. 0 for
** any other (SQLite reads it: a real, hex, a blob, NULL, CURRENT_TIME):
** a read of TPC-H Q16 asked SQLite for 11 of its literals' values. */
static int litPlain(Bind *b, qexpr *e){
  const char *z = b->s->zSql + e->at;
  int n = e->end - e->at, i, m = 0;
  int64_t v = 0;
  if( n>=2 && z[0]=='\'' && z[n-1]=='\'' ){
    char *out = q_alloc(b->s, n);
    if( out==0 ){ b->rc = SQLITE_NOMEM; return 1; }
    for(i=1; i<n-1; i++){
      out[m++] = z[i];
      if( z[i]=='\'' ) i++;                   /* ('' inside) */
    }
    out[m] = 0;
    e->t = SQLITE_TEXT;
    e->z = out;
    e->n = m;
    return 1;
  }
  if( n<1 || n>18 ) return 0;
  for(i=0; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
    v = v*10 + (z[i] - '0');
  }
  e->t = SQLITE_INTEGER;
  e->i = v;
  return 1;
}

/* Constant e (a literal, a parameter, a constant expression: requirement
** 3) becomes an E_LIT holding the value SQLite gives it; its affinity and
** collation stay. */
int qpFold(Bind *b, qexpr *e){
  char *zSql;
  sqlite3_stmt *st = 0;
  qexpr *aP[64];
  int rc, nP, j;
  if( e->op==E_LIT && e->t ) return 1;
  e->coll = qpCollWalk(e);
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
      if( !qpTakeValue(b, e, v) ) return 0;
    }else{
      e->t = SQLITE_NULL;
    }
    e->op = E_LIT;
    return 1;
  }
  if( e->op==E_LIT && litPlain(b, e) ) return !qpStopped(b);
  if( (nP = paramsOf(e, aP, 0))<0 ) return qpWhy(b, "a constant with more than 64 parameters");
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
      ga_free(zSql);
      if( (zSql = z)==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    }
  }
  rc = sqlite3_prepare_v2(b->db, zSql, -1, &st, 0);
  ga_free(zSql);
  if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ){
    sqlite3_finalize(st);
    b->rc = rc;
    return 0;
  }
  if( rc ){
    sqlite3_finalize(st);
    if( q_has_subq(e) ){
      /* (prepared alone, a subquery that names the outer row meets "no such column") */
      const char *zMsg = sqlite3_errmsg(b->db);
      if( strncmp(zMsg, "no such column: ", 16)==0 ) return qpWhy(b, "a subquery that uses the outer row's %s", zMsg + 16);
      return qpWhy(b, "a subquery SQLite cannot compute alone (%s)", zMsg);
    }
    return qpWhy(b, "a constant SQLite cannot compute alone (%s)", sqlite3_errmsg(b->db));
  }
  if( e->op==E_SUBQ && e->fromSubq!=2 && sqlite3_strnicmp(b->s->zSql + e->at, "EXISTS", 6)!=0 ){
    /* its value alone would lose the affinity SQLite gives it where it
    ** meets a column (its first result's) */
    sqlite3_finalize(st);
    return qpWhy(b, "a scalar subquery the engine does not cover (SQLite applies its result's affinity)");
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
    else qpWhy(b, "a constant SQLite cannot compute alone (%s)", sqlite3_errmsg(b->db));
    sqlite3_finalize(st);
    return 0;
  }
  if( !qpTakeValue(b, e, sqlite3_column_value(st, 0)) ){
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
int qpFoldAll(Bind *b, qexpr *e){
  int ok = 1;
  if( e==0 || qpStopped(b) ) return !qpStopped(b);
  if( qpIsConst(e) ) return qpFold(b, e);
  if( e->op==E_SQL ){
    int i;
    for(i=0; i<e->nArg && ok; i++) ok = qpFoldAll(b, e->arg[i]);
    return ok;
  }
  EACH_CHILD(e, pp, ok = ok && qpFoldAll(b, *pp));
  return ok;
}
