/*
** gpu_query and gpu_explain: the engine's SQL face.
**
**   1. CREATE VIRTUAL TABLE temp.NAME USING gpu_query((SELECT ...)), or
**      gpu_query('SELECT ...'). SQLite prepares the SELECT (its errors are
**      its own); anything but one statement that is a query is refused with
**      a clear error, and nothing is made. The table's columns are the
**      SELECT's result names (a repeated name gets :1, :2 as SQLite's views
**      do) with their declared types; the SELECT's parameters follow as
**      HIDDEN columns, so SELECT * FROM NAME(1000, 'SFO') binds them in
**      order and SELECT * FROM NAME WHERE cat = 'Toys' by name; a parameter
**      not given is NULL. A named one's column is named as a WHERE writes
**      it, without its prefix (cat for :cat, @cat, $cat); where a result or
**      another parameter has that name (ASCII case ignored) it keeps its
**      prefix (:cat), and a name taken even so gets :param (columnNames).
**      A numbered one's is ?N (?1 for the first ?). The table lives in temp
**      (it holds a query, not data), is DIRECTONLY, and DROP TABLE removes
**      it. The module is eponymous only to say so: gpu_query used as a
**      table-valued function (SELECT * FROM gpu_query('SELECT ...')) is an
**      error that shows the CREATE form (SQLite makes a module eponymous
**      only where xCreate is xConnect, and calls it with three arguments).
**   2. Every read runs the SELECT again, in the caller's transaction: on the
**      engine (query.h) where it covers the SELECT, else through SQLite with
**      gpu_sum, gpu_total and gpu_avg in place of sum, total and avg (the
**      one documented difference: correctly rounded), so that an answer does
**      not depend on the path.
**   3. gpu_explain(SQL) returns JSON: "path" ("engine" or "sqlite"), "why"
**      (null, or what the engine does not cover), then the plan in brief:
**      table, columns read, filter, keys, aggregates, what SQLite computes
**      per value, the source and the backend.
**   4. gpuagg_info()'s "query": runs by path, and the last reasons a run
**      went through SQLite. Nothing falls back silently.
**   5. A read that reaches the same table again (gpu_query tables reading
**      each other) is an error, as is a SELECT whose columns are no longer
**      those the table was made with (SELECT * of a table that changed).
**   6. Where SQLite's plan wins by cost alone, closely (cost.c, 3), the
**      table measures both paths: each read's time from xFilter to its last
**      row, a read of one query only (no parameters, no constraints on its
**      results) and not in 'cuda' mode (where a trial could turn an answer
**      into the mode's error). After Q_SQLITE_READS whole reads by SQLite's
**      plan the next Q_TRY_READS go to the engine (its first read, the one
**      that keeps columns, one over them); then each read takes the path whose
**      fastest whole read was faster, SQLite's reason then starting with both;
**      gpuagg_info()'s query.measured: the last choice so made and its times.
**      A read the engine gives back to SQLite (QE_BAIL) measures nothing.
*/
#include <stdlib.h>
#include <string.h>
#include "query.h"
#include "text.h"
#include "table.h"
#include "vtab.h"
#include "snap.h"

#define N_WHY 8                    /* reasons kept */
#define Q_SQLITE_READS 2           /* requirement 6: whole reads by SQLite's plan measured first ... */
#define Q_TRY_READS 3              /* ... then reads the engine is tried for */

/* gpuagg_info()'s part (conn->qnotes: this file owns it). */
struct ga_querynotes {
  int64_t nEngine, nSqlite;        /* runs by path */
  char azWhy[N_WHY][GA_ERRLEN];    /* the last reasons, newest at iWhy-1 */
  int iWhy, nWhy;
  int64_t nDevice, nKeptCpu;       /* engine runs over kept columns, by the device's operators
                                   ** and the CPU's */
  int64_t nPlanKept;               /* ... those whose compiled plan an earlier run kept */
  int64_t aSized[2];               /* tables' rows found for a join's scan: estimated, counted */
  char azKept[N_WHY][GA_ERRLEN];   /* the last reasons kept columns did not serve */
  int iKept, nKept;
  int lastKept;                    /* the last engine run: Q_KEPT_*, or 0 */
  int lastPlanKept;                /* ... by the plan an earlier read compiled */
  double lastPlanMs;               /* ... its parse and plan, ms (before qresult.aMs) */
  double aLastMs[4];               /* ... where its time went (qresult.aMs) */
  char zLastTab[GA_ERRLEN];        /* ... the table it scanned (a join's: the others probed) */
  int nLastSub;                    /* ... the subqueries it ran, in the order they ended */
  qsubtime aLastSub[Q_SUBTIMES];   /* ... the first Q_SUBTIMES of them */
  int measured;                    /* the last path chosen by measured times (requirement 6):
                                   ** 1 SQLite's, 2 the engine's; 0 none yet ... */
  double aMeasuredMs[2];           /* ... the times it compared: SQLite's plan's, the engine's */
};

static void notesForget(ga_conn *c){
  ga_free(c->qnotes);
  c->qnotes = 0;
}

static struct ga_querynotes *notesOf(ga_conn *c){
  if( c->qnotes==0 && (c->qnotes = ga_malloc64(sizeof(struct ga_querynotes)))!=0 ){
    memset(c->qnotes, 0, sizeof(struct ga_querynotes));
    ga_conn_on_free(c, notesForget);
  }
  return c->qnotes;
}

static void noteRun(ga_conn *c, const char *zWhy){
  struct ga_querynotes *p = notesOf(c);
  if( p==0 ) return;
  if( zWhy==0 ){
    p->nEngine++;
    return;
  }
  p->nSqlite++;
  sqlite3_snprintf(GA_ERRLEN, p->azWhy[p->iWhy], "%s", zWhy);
  p->iWhy = (p->iWhy + 1) % N_WHY;
  if( p->nWhy<N_WHY ) p->nWhy++;
}

/* A read's parameters rendered (class and exact value each), so that a
** plan compiled for them is known again; NULL when out of memory. */
static char *paramKey(sqlite3_value **ap, int n){
  sqlite3_str *s = sqlite3_str_new(0);
  int i, j;
  for(i=0; i<n; i++){
    sqlite3_value *v = ap ? ap[i] : 0;
    int t = v ? sqlite3_value_type(v) : SQLITE_NULL;
    sqlite3_str_appendf(s, "%d:", t);
    if( t==SQLITE_INTEGER ) sqlite3_str_appendf(s, "%lld", (long long)sqlite3_value_int64(v));
    else if( t==SQLITE_FLOAT ){
      double d = sqlite3_value_double(v);
      uint64_t b;
      memcpy(&b, &d, 8);
      sqlite3_str_appendf(s, "%llx", (unsigned long long)b);
    }else if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
      const unsigned char *z = t==SQLITE_TEXT ? sqlite3_value_text(v) : sqlite3_value_blob(v);
      int m = sqlite3_value_bytes(v);
      for(j=0; j<m; j++) sqlite3_str_appendf(s, "%02x", z[j]);
    }
    sqlite3_str_appendchar(s, 1, ';');
  }
  return sqlite3_str_finish(s);
}

/* How an engine run read (exec.c, 8). */
static void noteKept(ga_conn *c, const qresult *r, double planMs, const char *zTab, int nSub,
                     const qsubtime *aSub){
  struct ga_querynotes *p = notesOf(c);
  if( p==0 ) return;
  sqlite3_snprintf(GA_ERRLEN, p->zLastTab, "%s", zTab);
  p->nLastSub = nSub;
  memcpy(p->aLastSub, aSub, sizeof(p->aLastSub));
  p->lastKept = r->kept;
  p->lastPlanKept = r->kept && r->planKept;
  p->lastPlanMs = planMs;
  memcpy(p->aLastMs, r->aMs, sizeof(p->aLastMs));
  if( r->kept==Q_KEPT_DEVICE ) p->nDevice++;
  if( r->kept==Q_KEPT_CPU ) p->nKeptCpu++;
  if( r->kept && r->planKept ) p->nPlanKept++;
  if( r->zKeptWhy==0 ) return;
  sqlite3_snprintf(GA_ERRLEN, p->azKept[p->iKept], "%s", r->zKeptWhy);
  p->iKept = (p->iKept + 1) % N_WHY;
  if( p->nKept<N_WHY ) p->nKept++;
}

void ga_query_describe(sqlite3_str *out, const ga_conn *c){
  const struct ga_querynotes *p = c->qnotes;
  int i;
  sqlite3_str_appendf(out, "\"query\":{\"engine\":%lld,\"sqlite\":%lld,\"why\":[",
                      p ? (long long)p->nEngine : 0LL, p ? (long long)p->nSqlite : 0LL);
  for(i=0; p && i<p->nWhy; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    ga_json_str(out, p->azWhy[(p->iWhy - 1 - i + N_WHY) % N_WHY]);
  }
  sqlite3_str_appendf(out, "],\"device\":%lld,\"kept_cpu\":%lld,\"plans_kept\":%lld,\"not_kept\":[",
                      p ? (long long)p->nDevice : 0LL, p ? (long long)p->nKeptCpu : 0LL, p ? (long long)p->nPlanKept : 0LL);
  for(i=0; p && i<p->nKept; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    ga_json_str(out, p->azKept[(p->iKept - 1 - i + N_WHY) % N_WHY]);
  }
  sqlite3_str_appendf(out, "],\"last\":{\"on\":\"%s\",\"plan_kept\":%d,\"plan_ms\":%.3f,\"columns_ms\":%.3f,"
                      "\"compile_ms\":%.3f,\"operators_ms\":%.3f,\"finish_ms\":%.3f,\"table\":",
                      !p || p->lastKept==0 ? "table" : p->lastKept==Q_KEPT_DEVICE ? "device" : "kept, cpu",
                      p ? p->lastPlanKept : 0, p ? p->lastPlanMs : 0.0, p ? p->aLastMs[0] : 0.0, p ? p->aLastMs[1] : 0.0,
                      p ? p->aLastMs[2] : 0.0, p ? p->aLastMs[3] : 0.0);
  ga_json_str(out, p ? p->zLastTab : "");
  sqlite3_str_appendf(out, ",\"subqueries\":%d,\"subquery_ms\":[", p ? p->nLastSub : 0);
  for(i=0; p && i<p->nLastSub && i<Q_SUBTIMES; i++){
    const qsubtime *x = &p->aLastSub[i];
    sqlite3_str_appendf(out, "%s{\"on\":\"%s\",\"plan_kept\":%d,\"ms\":%.3f,\"columns_ms\":%.3f,"
                        "\"compile_ms\":%.3f,\"operators_ms\":%.3f,\"finish_ms\":%.3f}", i ? "," : "",
                        x->kept==0 ? "table" : x->kept==Q_KEPT_DEVICE ? "device" : "kept, cpu", x->planKept, x->ms,
                        x->aMs[0], x->aMs[1], x->aMs[2], x->aMs[3]);
  }
  sqlite3_str_appendf(out, "]},\"table_rows\":{\"estimated\":%lld,\"counted\":%lld},\"measured\":",
                      p ? (long long)p->aSized[0] : 0LL, p ? (long long)p->aSized[1] : 0LL);
  if( p && p->measured ){
    sqlite3_str_appendf(out, "{\"path\":\"%s\",\"sqlite_ms\":%.3f,\"engine_ms\":%.3f}",
                        p->measured==1 ? "sqlite" : "engine", p->aMeasuredMs[0], p->aMeasuredMs[1]);
  }else{
    sqlite3_str_appendf(out, "null");
  }
  sqlite3_str_appendchar(out, 1, '}');
}

/* ---- the SELECT's text ---------------------------------------------------------------- */

/* The SELECT inside argument z: (SELECT ...) or 'SELECT ...'; "" if z is
** neither. */
static char *selectOf(const char *z){
  int n = (int)strlen(z);
  while( n>0 && (z[n-1]==' ' || z[n-1]=='\n' || z[n-1]=='\t' || z[n-1]=='\r') ) n--;
  while( n>0 && (z[0]==' ' || z[0]=='\n' || z[0]=='\t' || z[0]=='\r') ){ z++; n--; }
  if( n>=2 && z[0]=='(' && z[n-1]==')' ) return sqlite3_mprintf("%.*s", n - 2, z + 1);
  if( n>=2 && z[0]=='\'' && z[n-1]=='\'' ){
    char *r = ga_malloc64(n);
    int i, j = 0;
    if( r==0 ) return 0;
    for(i=1; i<n-1; i++){
      r[j++] = z[i];
      if( z[i]=='\'' && z[i+1]=='\'' ) i++;
    }
    r[j] = 0;
    return r;
  }
  return sqlite3_mprintf("");
}

/* Prepare zSql as gpu_query takes it: one statement that is a query.
** SQLITE_OK with *pSt, or an error with *pzErr. */
static int prepareSelect(sqlite3 *db, const char *zFn, const char *zSql, sqlite3_stmt **pSt, char **pzErr){
  const char *zTail = 0;
  qtok *a = 0;
  int n = 0, rc, isQuery = 0;
  *pSt = 0;
  rc = sqlite3_prepare_v2(db, zSql, -1, pSt, &zTail);
  if( rc ){
    *pzErr = ga_utf8_clean(sqlite3_mprintf("%s", sqlite3_errmsg(db)));
    return rc;
  }
  if( *pSt==0 ){
    *pzErr = sqlite3_mprintf("%s: no SQL given: it takes one SELECT", zFn);
    return SQLITE_ERROR;
  }
  if( zTail && q_lex(zTail, &a, &n)==SQLITE_OK ){
    int i;
    for(i=0; i<n && (a[i].type==T_EOF || q_tok_is(zTail, &a[i], ";")); i++){}
    if( i<n ){
      *pzErr = sqlite3_mprintf("%s: more than one statement: it takes one SELECT", zFn);
      rc = SQLITE_ERROR;
    }
  }
  ga_free(a);
  a = 0;
  /* its first token (after comments and parentheses) says it is a query */
  if( rc==SQLITE_OK && q_lex(zSql, &a, &n)==SQLITE_OK ){
    int i;
    for(i=0; i<n && q_tok_is(zSql, &a[i], "("); i++){}
    isQuery = i<n && (q_tok_is(zSql, &a[i], "SELECT") || q_tok_is(zSql, &a[i], "WITH") || q_tok_is(zSql, &a[i], "VALUES"));
  }
  ga_free(a);
  if( rc==SQLITE_OK && (!sqlite3_stmt_readonly(*pSt) || sqlite3_column_count(*pSt)==0 || sqlite3_stmt_isexplain(*pSt)
       || !isQuery) ){
    *pzErr = sqlite3_mprintf("%s: not a SELECT: it takes one SELECT statement", zFn);
    rc = SQLITE_ERROR;
  }
  if( rc ){
    sqlite3_finalize(*pSt);
    *pSt = 0;
  }
  return rc;
}

/* ---- the virtual table ------------------------------------------------------------------ */

/* A FROM subquery's rows, for its read again in the same read of the
** table (q_table_subrows). */
typedef struct SubRows {
  struct SubRows *next;
  char *zText;                     /* its text */
  qresult res;                     /* its rows */
} SubRows;

typedef struct QTab {
  ga_vtab base;                    /* db, conn (vtab.h) */
  char *zSql;                      /* the SELECT */
  char *zSqlite;                   /* ... as SQLite runs it (requirement 2) */
  int nOut;                        /* result columns */
  int nParam;                      /* parameters: HIDDEN columns after the results */
  int running;                     /* in its xFilter or xNext: a read that reaches it again
                                   ** (through another gpu_query table) is refused */
  SubRows *pSubRows;               /* FROM subqueries' rows read so far in its xFilter */
  int big;                         /* a read of it read gpuagg_config('threshold') rows or more:
                                   ** its columns are worth keeping (exec.c, 8) */
  int bigSub;                      /* ... a subquery of a read of it did: theirs are */
  qkeptcache kept;                 /* its plan compiled for kept columns, for the next read */
  qkeptcache aSubKept[Q_SUBKEPT];  /* ... and its subqueries' (q_table_subkept) */
  qsqlkeep sql;                    /* statements its plan prepares, for the next read */
  qselect sel;                     /* the SELECT parsed, at its first read (if parsed): each read
                                   ** plans a copy */
  int parsed;                      /* ... it is */
  unsigned char *aPush;            /* each result: a WHERE on it the engine applies too (1
                                   ** equality, 2 ranges too: q_pushable), or 0 */
  int nSub;                        /* the subqueries its read (xFilter) ran so far */
  qsubtime aSub[Q_SUBTIMES];       /* ... the first Q_SUBTIMES of them (q_table_sub_ran) */
  double msSqlite;                 /* requirement 6: the fastest whole read by SQLite's plan, ms
                                   ** (0: none yet) ... */
  int nSqlite;                     /* ... of how many */
  double msEngine;                 /* ... and by the engine (0: none yet) */
  int nTried;                      /* ... the engine's reads tried (up to Q_TRY_READS) */
} QTab;

typedef struct QCur {
  sqlite3_vtab_cursor base;
  sqlite3_value **apParam;         /* this read's parameters (copies; NULL: not given) */
  int engine;                      /* rows from res (1) or st (0) */
  qresult res;                     /* the engine's rows */
  sqlite3_stmt *st;                /* SQLite's */
  int64_t iRow;                    /* the current row */
  int eof;
  double t0;                       /* the read began (ga_now_ms) */
  int timed;                       /* requirement 6: its time measures SQLite's plan (1) or the
                                   ** engine (2) at its last row; 0: nothing */
} QCur;

static int qDisconnect(sqlite3_vtab *pVtab){
  QTab *t = (QTab*)pVtab;
  int i;
  q_keptcache_clear(&t->kept);
  for(i=0; i<Q_SUBKEPT; i++) q_keptcache_clear(&t->aSubKept[i]);
  q_sqlkeep_free(&t->sql);
  if( t->parsed ) q_select_free(&t->sel);
  ga_free(t->aPush);
  ga_free(t->zSql);
  ga_free(t->zSqlite);
  ga_free(t);
  return SQLITE_OK;
}

/* Whether one of the n names az[] is z, ignoring ASCII case as SQLite
** compares column names. */
static int nameTaken(char **az, int n, const char *z){
  int i;
  for(i=0; i<n; i++) if( sqlite3_stricmp(az[i], z)==0 ) return 1;
  return 0;
}

/* Parameter i's name without its prefix (cat for :cat, @cat, $cat); NULL
** for a numbered one (?, ?N). */
static const char *paramBare(sqlite3_stmt *st, int i){
  const char *z = sqlite3_bind_parameter_name(st, i);
  return z && (z[0]==':' || z[0]=='@' || z[0]=='$') && z[1] ? z + 1 : 0;
}

/* The names of the table's columns into az[nOut + nParam] (each
** sqlite3_mprintf'd): the results' (a repeated name gets :1, :2), then the
** parameters' (requirement 1). A named parameter is named as a WHERE on
** the table writes it, without its prefix; where a result or another
** parameter has that name it keeps its prefix (:cat), so that neither is
** hidden by the other and the name does not depend on the parameters'
** order. A numbered one is ?N. A name still taken (a result called ":cat")
** gets :param, then :param2 and on. SQLITE_OK or SQLITE_NOMEM (az's names
** made so far, the rest NULL). */
static int columnNames(sqlite3_stmt *st, int nOut, int nParam, char **az){
  int i, j, k;
  memset(az, 0, sizeof(char*)*(nOut + nParam));
  for(i=0; i<nOut; i++){
    const char *zName = sqlite3_column_name(st, i);
    int dup = 0;
    if( zName==0 ) return SQLITE_NOMEM;
    for(j=0; j<i; j++) if( sqlite3_stricmp(sqlite3_column_name(st, j), zName)==0 ) dup++;
    az[i] = dup ? sqlite3_mprintf("%s:%d", zName, dup) : sqlite3_mprintf("%s", zName);
    if( az[i]==0 ) return SQLITE_NOMEM;
  }
  for(i=1; i<=nParam; i++){
    const char *zBare = paramBare(st, i), *zAs = sqlite3_bind_parameter_name(st, i);
    char zQ[24], *z;
    if( zAs==0 ){
      sqlite3_snprintf(sizeof(zQ), zQ, "?%d", i);
      zAs = zQ;
    }
    if( zBare && !nameTaken(az, nOut, zBare) ){
      for(j=1; j<=nParam && (j==i || paramBare(st, j)==0 || sqlite3_stricmp(paramBare(st, j), zBare)); j++){}
      if( j>nParam ) zAs = zBare;
    }
    z = sqlite3_mprintf("%s", zAs);
    for(k=1; z && nameTaken(az, nOut + i - 1, z); k++){
      ga_free(z);
      z = k==1 ? sqlite3_mprintf("%s:param", zAs) : sqlite3_mprintf("%s:param%d", zAs, k);
    }
    if( (az[nOut + i - 1] = z)==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* xCreate and xConnect both: one function, so that the module is eponymous
** and a read of gpu_query itself comes here to be refused (requirement 1). */
static int qInit(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr){
  QTab *t;
  sqlite3_stmt *st = 0;
  sqlite3_str *decl;
  char *zSql, *zDecl, **azCol;
  int rc, i;
  /* the eponymous table (argv: the module, "main", the module): gpu_query
  ** read as a table-valued function, whose arguments SQLite does not pass
  ** here; SQLite reports this message as it is */
  if( argc==3 && sqlite3_stricmp(argv[1], "main")==0 && sqlite3_stricmp(argv[2], argv[0])==0 ){
    *pzErr = sqlite3_mprintf("%s: not a table-valued function: make a table of the SELECT first, then read it:"
                             " CREATE VIRTUAL TABLE temp.q USING %s((SELECT ...)); SELECT * FROM q", argv[0], argv[0]);
    return SQLITE_ERROR;
  }
  if( argc!=4 ){
    *pzErr = sqlite3_mprintf("gpu_query: takes one argument, (SELECT ...) or 'SELECT ...'");
    return SQLITE_ERROR;
  }
  if( sqlite3_stricmp(argv[1], "temp") ){
    *pzErr = sqlite3_mprintf("gpu_query: make it in temp (CREATE VIRTUAL TABLE temp.%s ...): it holds a query, not data",
                             argv[2]);
    return SQLITE_ERROR;
  }
  if( (zSql = selectOf(argv[3]))==0 ) return SQLITE_NOMEM;
  if( zSql[0]==0 && argv[3][strspn(argv[3], " \t\r\n")]!='(' && argv[3][strspn(argv[3], " \t\r\n")]!='\'' ){
    ga_free(zSql);
    *pzErr = sqlite3_mprintf("gpu_query: write the SELECT in parentheses or quotes: gpu_query((SELECT ...))"
                             " or gpu_query('SELECT ...')");
    return SQLITE_ERROR;
  }
  if( (rc = prepareSelect(db, "gpu_query", zSql, &st, pzErr))!=SQLITE_OK ){
    ga_free(zSql);
    return rc;
  }
  if( (t = ga_malloc64(sizeof(*t)))==0 ){
    sqlite3_finalize(st);
    ga_free(zSql);
    return SQLITE_NOMEM;
  }
  memset(t, 0, sizeof(*t));
  t->base.db = db;
  t->base.conn = (ga_conn*)pAux;
  t->zSql = zSql;
  t->nOut = sqlite3_column_count(st);
  t->nParam = sqlite3_bind_parameter_count(st);
  t->zSqlite = q_sql_exact_sums(zSql);          /* (requirement 2) */
  if( (azCol = ga_malloc64(sizeof(char*)*(t->nOut + t->nParam + 1)))==0
   || columnNames(st, t->nOut, t->nParam, azCol)!=SQLITE_OK ){
    if( azCol ) for(i=0; i<t->nOut + t->nParam; i++) ga_free(azCol[i]);
    ga_free(azCol);
    sqlite3_finalize(st);
    qDisconnect(&t->base.base);
    return SQLITE_NOMEM;
  }
  decl = sqlite3_str_new(db);
  sqlite3_str_appendall(decl, "CREATE TABLE x(");
  for(i=0; i<t->nOut + t->nParam; i++){
    const char *zType = i<t->nOut ? sqlite3_column_decltype(st, i) : "HIDDEN";
    sqlite3_str_appendf(decl, "%s\"%w\"", i ? "," : "", azCol[i]);
    if( zType ) sqlite3_str_appendf(decl, " %s", zType);
    ga_free(azCol[i]);
  }
  ga_free(azCol);
  sqlite3_str_appendall(decl, ")");
  zDecl = sqlite3_str_finish(decl);
  sqlite3_finalize(st);
  if( zDecl==0 || t->zSqlite==0 ){
    ga_free(zDecl);
    qDisconnect(&t->base.base);
    return SQLITE_NOMEM;
  }
  rc = sqlite3_declare_vtab(db, zDecl);
  ga_free(zDecl);
  if( rc ){
    *pzErr = ga_utf8_clean(sqlite3_mprintf("gpu_query: %s", sqlite3_errmsg(db)));
    qDisconnect(&t->base.base);
    return rc;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  if( (t->aPush = ga_malloc64(t->nOut + 1))==0 ){
    qDisconnect(&t->base.base);
    return SQLITE_NOMEM;
  }
  q_pushable(db, t->zSql, t->nParam, t->nOut, t->aPush);
  *ppVtab = &t->base.base;
  return SQLITE_OK;
}

/* Parameters are equality constraints on the HIDDEN columns; each one given
** is an argument (idxNum's bit i: parameter i). A constraint on a result
** that q_pushable allows (equality, or a range where it says so; BINARY)
** is an argument after them, listed in idxStr ("column op;" each), and
** checked again by SQLite (requirement 6). */
static int qBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *p){
  QTab *t = (QTab*)pVtab;
  int i, n = 0, aIdx[32];
  unsigned have = 0, unusable = 0;
  sqlite3_str *push = 0;
  if( t->nParam>32 ) return ga_vtab_error(pVtab, "gpu_query: more than 32 parameters");
  for(i=0; i<t->nParam; i++) aIdx[i] = -1;
  for(i=0; i<p->nConstraint; i++){
    int a = p->aConstraint[i].iColumn - t->nOut;
    if( a<0 || a>=t->nParam ) continue;
    if( !p->aConstraint[i].usable ) unusable |= 1u<<a;
    else if( p->aConstraint[i].op==SQLITE_INDEX_CONSTRAINT_EQ ){ have |= 1u<<a; aIdx[a] = i; }
  }
  if( unusable & ~have ) return SQLITE_CONSTRAINT;
  for(i=0; i<t->nParam; i++){
    if( aIdx[i]<0 ) continue;
    p->aConstraintUsage[aIdx[i]].argvIndex = ++n;
    p->aConstraintUsage[aIdx[i]].omit = 1;
  }
  for(i=0; i<p->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &p->aConstraint[i];
    const char *zColl;
    int op = c->op;
    if( c->iColumn<0 || c->iColumn>=t->nOut || !c->usable || t->aPush[c->iColumn]==0 ) continue;
    if( !(op==SQLITE_INDEX_CONSTRAINT_EQ || (t->aPush[c->iColumn]==2 && (op==SQLITE_INDEX_CONSTRAINT_LT
          || op==SQLITE_INDEX_CONSTRAINT_LE || op==SQLITE_INDEX_CONSTRAINT_GT || op==SQLITE_INDEX_CONSTRAINT_GE))) ){
      continue;
    }
    if( (zColl = sqlite3_vtab_collation(p, i))!=0 && sqlite3_stricmp(zColl, "BINARY") ) continue;
    if( push==0 ) push = sqlite3_str_new(0);
    sqlite3_str_appendf(push, "%d %d;", c->iColumn, op);
    p->aConstraintUsage[i].argvIndex = ++n;
  }
  if( push ){
    if( (p->idxStr = sqlite3_str_finish(push))==0 ) return SQLITE_NOMEM;
    p->needToFreeIdxStr = 1;
  }
  ga_snap_observe(t->base.db, t->base.conn);
  p->idxNum = (int)have;
  p->estimatedCost = push ? 1e5 : 1e6;
  return SQLITE_OK;
}

static int qOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  QTab *t = (QTab*)pVtab;
  QCur *c = ga_malloc64(sizeof(*c));
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  if( t->nParam && (c->apParam = ga_malloc64(sizeof(sqlite3_value*)*t->nParam))==0 ){
    ga_free(c);
    return SQLITE_NOMEM;
  }
  if( c->apParam ) memset(c->apParam, 0, sizeof(sqlite3_value*)*t->nParam);
  *ppCur = &c->base;
  return SQLITE_OK;
}

static void curReset(QCur *c, int nParam){
  int i;
  q_result_free(&c->res);
  sqlite3_finalize(c->st);
  c->st = 0;
  for(i=0; i<nParam; i++){
    sqlite3_value_free(c->apParam[i]);
    c->apParam[i] = 0;
  }
  c->iRow = 0;
  c->eof = 1;
  c->timed = 0;
}

/* c's read reached its last row: its time, where it measures a path
** (requirement 6), kept where it is that path's fastest. */
static void readEnd(QTab *t, QCur *c){
  double ms = ga_now_ms() - c->t0, *p = c->timed==1 ? &t->msSqlite : c->timed==2 ? &t->msEngine : 0;
  if( p && (*p==0.0 || ms<*p) ) *p = ms;
  if( c->timed==1 ) t->nSqlite++;
  c->timed = 0;
}

/* Plan pl, whose close choice of SQLite's plan by cost (pl->zCostWhy) its
** read may measure against the engine (requirement 6): SQLite's reason
** (sqlite3_malloc'd; taken from pl), or NULL where this read is the
** engine's; what the read measures into c->timed. */
static char *tryOrNot(QTab *t, QCur *c, qplan *pl){
  struct ga_querynotes *p = notesOf(t->base.conn);
  char *z = pl->zCostWhy;
  int sqlite = t->nSqlite<Q_SQLITE_READS || (t->nTried>=Q_TRY_READS && (t->msEngine==0.0 || t->msEngine>=t->msSqlite));
  if( p && t->nSqlite>=Q_SQLITE_READS && t->nTried>=Q_TRY_READS ){
    p->measured = sqlite ? 1 : 2;
    p->aMeasuredMs[0] = t->msSqlite;
    p->aMeasuredMs[1] = t->msEngine;
  }
  if( sqlite ){
    if( t->nTried>=Q_TRY_READS ){
      z = sqlite3_mprintf("measured, the fastest whole read: SQLite's plan %.3g ms, the engine's %.3g ms; %s",
                          t->msSqlite, t->msEngine, z);
    }else{
      pl->zCostWhy = 0;
    }
    c->timed = 1;
    return z ? z : sqlite3_mprintf("out of memory");
  }
  if( t->nTried<Q_TRY_READS ) t->nTried++;
  c->timed = 2;
  return 0;
}

static int qClose(sqlite3_vtab_cursor *cur){
  QCur *c = (QCur*)cur;
  curReset(c, ((QTab*)cur->pVtab)->nParam);
  ga_free(c->apParam);
  ga_free(c);
  return SQLITE_OK;
}

/* The SELECT gives n columns now (its table changed under SELECT *). */
static int columnsChanged(QTab *t, int n){
  return ga_vtab_error(&t->base.base, "gpu_query: the SELECT now gives %d columns, %d when the table was made"
                      " (a table it reads changed): make it again", n, t->nOut);
}

/* The read through SQLite (requirement 2). */
static int runSqlite(QTab *t, QCur *c, const char *zWhy){
  int rc, i;
  noteRun(t->base.conn, zWhy);
  if( (rc = sqlite3_prepare_v2(t->base.db, t->zSqlite, -1, &c->st, 0))!=SQLITE_OK ){
    ga_vtab_error(&t->base.base, "%s", sqlite3_errmsg(t->base.db));
    return rc;
  }
  if( sqlite3_column_count(c->st)!=t->nOut ) return columnsChanged(t, sqlite3_column_count(c->st));
  for(i=0; i<t->nParam; i++){
    if( c->apParam[i] ) sqlite3_bind_value(c->st, i + 1, c->apParam[i]);
  }
  c->engine = 0;
  rc = sqlite3_step(c->st);
  if( rc==SQLITE_ROW ){
    c->eof = 0;
    return SQLITE_OK;
  }
  c->eof = 1;
  if( rc==SQLITE_DONE ){
    readEnd(t, c);
    return SQLITE_OK;
  }
  rc = sqlite3_reset(c->st);
  ga_vtab_error(&t->base.base, "%s", sqlite3_errmsg(t->base.db));
  return rc;
}

static int filter(QCur *c, QTab *t, int idxNum, const char *idxStr, int argc, sqlite3_value **argv);

static int qFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  QTab *t = (QTab*)cur->pVtab;
  int rc;
  if( t->running ) return ga_vtab_error(&t->base.base, "gpu_query: a SELECT that reads itself (through another gpu_query table)");
  t->running = 1;
  rc = filter((QCur*)cur, t, idxNum, idxStr, argc, argv);
  t->running = 0;
  ga_cache_read_done(t->base.conn->cache);     /* (its rows are made) */
  while( t->pSubRows ){
    SubRows *x = t->pSubRows;
    t->pSubRows = x->next;
    q_result_free(&x->res);
    ga_free(x->zText);
    ga_free(x);
  }
  return rc;
}

static int filter(QCur *c, QTab *t, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  qselect sel;
  qplan pl;
  qpush *aPush = 0;
  char *zWhy = 0, *zPush = 0;
  int i, j = 0, rc, nPush = 0;
  double t0 = ga_now_ms(), tPlan;
  curReset(c, t->nParam);
  c->t0 = t0;
  t->nSub = 0;
  for(i=0; i<t->nParam; i++){
    if( ((unsigned)idxNum & (1u<<i)) && j<argc ){
      if( (c->apParam[i] = sqlite3_value_dup(argv[j++]))==0 ) return SQLITE_NOMEM;
    }
  }
  /* the constraints on results (qBestIndex's idxStr), the arguments after */
  if( idxStr && j<argc ){
    const char *z = idxStr;
    if( (aPush = ga_malloc64(sizeof(qpush)*(uint64_t)(argc - j)))==0 ) return SQLITE_NOMEM;
    while( *z && j<argc ){
      aPush[nPush].iRes = atoi(z);
      z = strchr(z, ' ') + 1;
      aPush[nPush].op = atoi(z);
      z = strchr(z, ';') + 1;
      aPush[nPush++].v = argv[j++];
    }
  }
  /* parsed once; a copy planned for this read: the table, its schema and
  ** the parameters are this read's */
  if( !t->parsed && (rc = q_parse(t->zSql, t->nParam, &t->sel))==SQLITE_OK ) t->parsed = 1;
  if( !t->parsed || (rc = q_select_copy(&sel, &t->sel))!=SQLITE_OK ){
    ga_free(aPush);
    return rc;
  }
  ga_source_read_begin(t->base.db, t->base.conn);     /* (its names resolved as of now: table.h, 4a) */
  rc = q_plan(&t->base.base, t->base.db, &sel, c->apParam, t->nParam, aPush, nPush, &t->sql,
              t->nParam==0 && nPush==0 && t->base.conn->mode!=GA_CUDA, &pl, &zWhy);
  ga_source_read_end(t->base.conn);
  ga_free(aPush);
  if( rc==SQLITE_OK && zWhy==0 && pl.zCostWhy ) zWhy = tryOrNot(t, c, &pl);
  if( rc ){
    q_plan_free(&pl);
    q_select_free(&sel);
    ga_vtab_error(&t->base.base, "gpu_query: %s", zWhy ? zWhy : sqlite3_errstr(rc));
    ga_free(zWhy);
    return rc;
  }
  if( zWhy ){
    q_plan_free(&pl);
    q_select_free(&sel);
    rc = runSqlite(t, c, zWhy);
    ga_free(zWhy);
    return rc;
  }
  if( pl.nOut!=t->nOut ){
    rc = columnsChanged(t, pl.nOut);
    q_plan_free(&pl);
    q_select_free(&sel);
    return rc;
  }
  {
    /* what a compiled plan depends on: the parameters, and the constraints
    ** on results (which columns, which operators; their values are among the
    ** plan's constants) */
    char *zParams = t->nParam ? paramKey(c->apParam, t->nParam) : 0;
    int keyed = zParams || !t->nParam;          /* (else out of memory: nothing kept) */
    if( keyed && idxStr ) keyed = (zPush = sqlite3_mprintf("%s|%s", zParams ? zParams : "", idxStr))!=0;
    tPlan = ga_now_ms() - t0;
    rc = q_exec(&t->base.base, t->base.db, &pl, q_table_keeps(&t->base.base), keyed ? &t->kept : 0,
                zPush ? zPush : zParams ? zParams : "", &c->res, &zWhy);
    ga_free(zParams);
    ga_free(zPush);
  }
  if( c->res.nScan>=t->base.conn->threshold ) t->big = 1;
  noteKept(t->base.conn, &c->res, tPlan, pl.src.zTab ? pl.src.zTab : "", t->nSub, t->aSub);
  q_plan_free(&pl);
  q_select_free(&sel);
  if( rc==QE_BAIL ){
    q_result_free(&c->res);
    c->timed = 0;
    rc = runSqlite(t, c, zWhy);
    ga_free(zWhy);
    return rc;
  }
  if( rc ){
    q_result_free(&c->res);
    ga_vtab_error(&t->base.base, "%s", zWhy ? zWhy : sqlite3_errstr(rc));
    ga_free(zWhy);
    return rc;
  }
  ga_free(zWhy);
  noteRun(t->base.conn, 0);
  c->engine = 1;
  c->eof = c->res.nRow==0;
  if( c->eof ) readEnd(t, c);
  return SQLITE_OK;
}

static int qNext(sqlite3_vtab_cursor *cur){
  QCur *c = (QCur*)cur;
  c->iRow++;
  if( c->engine ){
    c->eof = c->iRow>=c->res.nRow;
    if( c->eof && c->timed ) readEnd((QTab*)cur->pVtab, c);
    return SQLITE_OK;
  }else{
    QTab *t = (QTab*)cur->pVtab;
    int rc;
    if( t->running ) return ga_vtab_error(&t->base.base, "gpu_query: a SELECT that reads itself (through another gpu_query table)");
    t->running = 1;
    rc = sqlite3_step(c->st);
    t->running = 0;
    if( rc==SQLITE_ROW ) return SQLITE_OK;
    c->eof = 1;
    if( rc==SQLITE_DONE ){
      readEnd(t, c);
      return SQLITE_OK;
    }
    rc = sqlite3_reset(c->st);
    ga_vtab_error(cur->pVtab, "%s", sqlite3_errmsg(((QTab*)cur->pVtab)->base.db));
    return rc;
  }
}

static int qEof(sqlite3_vtab_cursor *cur){ return ((QCur*)cur)->eof; }

static int qColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  QCur *c = (QCur*)cur;
  QTab *t = (QTab*)cur->pVtab;
  if( i>=t->nOut ){
    if( i - t->nOut<t->nParam && c->apParam[i - t->nOut] ) sqlite3_result_value(ctx, c->apParam[i - t->nOut]);
    return SQLITE_OK;
  }
  if( !c->engine ){
    sqlite3_result_value(ctx, sqlite3_column_value(c->st, i));
    return SQLITE_OK;
  }
  {
    const qval *x = &c->res.a[c->iRow*c->res.nCol + i];
    switch( x->t ){
      case SQLITE_INTEGER: sqlite3_result_int64(ctx, x->v); break;
      case SQLITE_FLOAT: { double d; memcpy(&d, &x->v, 8); sqlite3_result_double(ctx, d); break; }
      case SQLITE_TEXT: sqlite3_result_text(ctx, x->z ? x->z : "", x->n, SQLITE_TRANSIENT); break;
      case SQLITE_BLOB: sqlite3_result_blob(ctx, x->z ? x->z : "", x->n, SQLITE_TRANSIENT); break;
      default: break;
    }
  }
  return SQLITE_OK;
}

static int qRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((QCur*)cur)->iRow + 1;
  return SQLITE_OK;
}

const sqlite3_module ga_query_module = {
  0,                               /* iVersion */
  qInit, qInit,                    /* xCreate is xConnect: eponymous, so that qInit refuses
                                   ** gpu_query read as a table-valued function */
  qBestIndex, qDisconnect, qDisconnect,
  qOpen, qClose, qFilter, qNext, qEof, qColumn, qRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int q_table_keeps(sqlite3_vtab *vt){
  const QTab *t = (const QTab*)vt;
  return t->big || t->base.conn->qkept==1;
}

int q_table_keeps_sub(sqlite3_vtab *vt){
  return q_table_keeps(vt) || ((const QTab*)vt)->bigSub;
}

void q_table_scanned(sqlite3_vtab *vt, int64_t nScan){
  QTab *t = (QTab*)vt;
  if( nScan>=t->base.conn->threshold ) t->bigSub = 1;
}

void q_table_sized(sqlite3_vtab *vt, int counted){
  struct ga_querynotes *p = notesOf(((QTab*)vt)->base.conn);
  if( p ) p->aSized[counted!=0]++;
}

const qresult *q_table_subrows(sqlite3_vtab *vt, const char *zSub){
  const SubRows *x;
  for(x=((const QTab*)vt)->pSubRows; x && strcmp(x->zText, zSub)!=0; x=x->next){}
  return x ? &x->res : 0;
}

const qresult *q_table_subrows_keep(sqlite3_vtab *vt, const char *zSub, qresult *r){
  QTab *t = (QTab*)vt;
  SubRows *x;
  if( !t->running || (x = ga_malloc64(sizeof(*x)))==0 ) return 0;
  if( (x->zText = sqlite3_mprintf("%s", zSub))==0 ){
    ga_free(x);
    return 0;
  }
  x->res = *r;
  memset(r, 0, sizeof(*r));
  x->next = t->pSubRows;
  t->pSubRows = x;
  return &x->res;
}

void q_table_sub_ran(sqlite3_vtab *vt, const qresult *r, double ms){
  QTab *t = (QTab*)vt;
  if( t->nSub<Q_SUBTIMES ){
    t->aSub[t->nSub].kept = r->kept;
    t->aSub[t->nSub].planKept = r->kept && r->planKept;
    t->aSub[t->nSub].ms = ms;
    memcpy(t->aSub[t->nSub].aMs, r->aMs, sizeof(r->aMs));
  }
  t->nSub++;
}

qkeptcache *q_table_subkept(sqlite3_vtab *vt, const char *zSub){
  QTab *t = (QTab*)vt;
  return &t->aSubKept[q_hash(0, zSub, (int)strlen(zSub)) % Q_SUBKEPT];
}

/* ---- gpu_explain ------------------------------------------------------------------------------ */

void ga_explainFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  ga_conn *conn = (ga_conn*)sqlite3_user_data(ctx);
  const char *zSql = (const char*)sqlite3_value_text(argv[0]);
  const char *zForm = argc>1 ? (const char*)sqlite3_value_text(argv[1]) : "json";
  sqlite3_stmt *st = 0;
  char *zErr = 0, *zWhy = 0;
  qselect sel;
  qplan pl;
  QTab fake;
  sqlite3_str *out;
  int rc, text;
  if( zSql==0 ){
    sqlite3_result_error(ctx, "gpu_explain: takes a SELECT, not NULL", -1);
    return;
  }
  if( zForm==0 || (sqlite3_stricmp(zForm, "json") && sqlite3_stricmp(zForm, "text")) ){
    sqlite3_result_error(ctx, "gpu_explain: the second argument is 'json' or 'text'", -1);
    return;
  }
  text = sqlite3_stricmp(zForm, "text")==0;
  if( prepareSelect(db, "gpu_explain", zSql, &st, &zErr) ){
    sqlite3_result_error(ctx, zErr ? zErr : "out of memory", -1);
    ga_free(zErr);
    return;
  }
  memset(&fake, 0, sizeof(fake));
  fake.base.db = db;
  fake.base.conn = conn;
  if( (rc = q_parse(zSql, sqlite3_bind_parameter_count(st), &sel))!=SQLITE_OK ){
    sqlite3_finalize(st);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_finalize(st);
  rc = q_plan(&fake.base.base, db, &sel, 0, 0, 0, 0, 0, 0, &pl, &zWhy);
  zWhy = ga_utf8_clean(zWhy);
  if( rc ){
    sqlite3_result_error(ctx, zWhy ? zWhy : sqlite3_errstr(rc), -1);
  }else{
    int aKept1, *aKept = pl.nArm ? ga_malloc64(sizeof(int)*(uint64_t)pl.nArm) : &aKept1;
    char *zKept = 0;
    const char *zSource = conn->pages ? "pages where they can serve, else statement" : "statement";
    out = sqlite3_str_new(db);
    if( !zWhy && aKept ) zKept = q_kept_explain(&fake.base.base, db, &pl, aKept);
    if( text ){
      /* the path's line, then the tree (as EXPLAIN QUERY PLAN draws one) */
      if( zWhy ) sqlite3_str_appendf(out, "sqlite: %s\n", zWhy);
      else sqlite3_str_appendf(out, "engine (source: %s; backend: cpu; kept: %s)\n", zSource, zKept ? zKept : "?");
      if( !zWhy && pl.costSqlite>0.0 ){
        sqlite3_str_appendf(out, "cost: SQLite's plan %.4g, the engine's %.4g\n", pl.costSqlite, pl.costEngine);
      }
    }else{
      sqlite3_str_appendf(out, "{\"path\":\"%s\",\"why\":", zWhy ? "sqlite" : "engine");
      if( zWhy ) ga_json_str(out, zWhy);
      else sqlite3_str_appendall(out, "null");
    }
    if( !text ) sqlite3_str_appendall(out, ",\"plan\":");
    if( zWhy ){
      /* SQLite's own plan, of the SELECT it runs (with gpu_sum and the like: 2) */
      char *zRun = q_sql_exact_sums(zSql);
      int rcPlan = zRun ? q_sqlite_explain(out, db, zRun, text) : SQLITE_NOMEM;
      if( rcPlan==SQLITE_NOMEM ) rc = rcPlan;
      else if( rcPlan && !text ) sqlite3_str_appendall(out, "null");   /* (SQLite's own error, at the read) */
      ga_free(zRun);
    }else{
      if( aKept==0 || q_plan_explain(out, &pl, aKept, text)!=SQLITE_OK ) rc = SQLITE_NOMEM;
      if( !text ){
        sqlite3_str_appendall(out, ",\"source\":");
        ga_json_str(out, zSource);
        if( pl.costSqlite>0.0 ){                /* SQLite's plan searched an index: it cost more */
          sqlite3_str_appendf(out, ",\"cost\":{\"sqlite\":%.4g,\"engine\":%.4g}", pl.costSqlite, pl.costEngine);
        }
        sqlite3_str_appendall(out, ",\"backend\":\"cpu\",\"kept\":");
        if( zKept ) ga_json_str(out, zKept); else sqlite3_str_appendall(out, "null");
      }
    }
    if( !text ) sqlite3_str_appendchar(out, 1, '}');
    if( aKept!=&aKept1 ) ga_free(aKept);
    ga_free(zKept);
    if( rc ){
      ga_free(sqlite3_str_finish(out));
      sqlite3_result_error_nomem(ctx);
    }else{
      sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, ga_free);
    }
  }
  ga_free(fake.base.base.zErrMsg);
  ga_free(zWhy);
  q_plan_free(&pl);
  q_select_free(&sel);
}
