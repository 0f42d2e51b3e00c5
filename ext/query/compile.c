/*
** gpu_query's compiler for kept columns: a plan (plan.c) as a program of
** qprog.h, which the backend's xQuery runs over the columns the cache keeps
** (the CPU's copy, or a device's).
**
**   1. A column whose rows are numbers or NULL is loaded (GA_Q_COL). A
**      column whose rows are TEXT, BLOB or NULL is never read as such: the
**      largest expression of it alone (a comparison with a constant, a
**      LIKE, a CASE, a substr() key) is evaluated by the engine's own
**      evaluator (eval.c, so SQLite's rules and functions) once per entry
**      of the column's dictionary and once for NULL, and becomes a lookup
**      (GA_Q_MAP). Where such an expression is used as a number its values
**      must be numbers or NULL.
**   2. Arithmetic, comparisons (of numbers: no TEXT affinity), AND, OR,
**      NOT, IS NULL: one instruction each; a CASE (iif() too) one GA_Q_IF
**      a WHEN, every branch computed. Anything else, and a column holding
**      numbers and TEXT or BLOB both, is not compiled (QE_BAIL, with why):
**      the engine's CPU operators serve. Each value takes a register of its
**      own (up to GA_QVREG); ga_q_finish gives them back once read, and a
**      program that needs more than GA_QREG at once is not compiled.
**   3. Keys: each an expression of one TEXT column, whose values are given
**      ids by GROUP BY's comparison (the key's collation) and combined into
**      one code; an id's shown value is its values' own, so equal values
**      must show alike (they do under BINARY; 'a' and 'A' under NOCASE do
**      not: not compiled). Or one key that is a number, grouped as
**      group_acc.h (2) says, shown in its first row's form.
**   4. Aggregates: count(*), and count, sum, total, avg, min and max of a
**      number; arguments with the same text share one fold. count(DISTINCT
**      x) is left out of the program (aFold -2): exec.c compiles the same
**      plan with x as one more key, and counts each group's keys.
**   5. Or rows ordered by one term (q_compile_order): the filter, and the
**      term as a number key (qprog.h, 5); the engine makes the result rows
**      of the window's rows alone (exec.c's keptOrder).
**   5a. Or a join's rows (q_compile_join_rows): the filter with 6's probes,
**      and one key for every row, so that the order's rows are the scanned
**      rows the join keeps, in scan order (exec.c, 8a). Each probe finds
**      one row a key, so a scanned row the filter keeps is one joined row
**      (a LEFT JOIN's, one row or its NULLs).
**   6. A join (q_compile_join) whose joined tables each meet the rows before them
**      by equalities, one of which indexes the table's rows as built (join.c, 1:
**      its own conjuncts applied): its keys integers (after the equality's
**      affinity), one row a key: a direct index where they span at most 16 times
**      the table's rows plus 65,536 (an INTEGER PRIMARY KEY, however few rows its
**      conditions keep; 2^28 entries at most), else an open-addressing table (GA_Q_HASH: up to 2^24
**      keys, twice as many slots, so a search is short and ends; not where
**      the keys, placed, took more than 32 steps a key), its
**      other side an expression of the tables before it whose values are integers
**      or NULL (which matches nothing). After the scanned table's conjuncts each
**      row probes each table's index with that value (GA_Q_LOOK: the joined row,
**      or NULL, which drops the row: an inner join's row without a match), as
**      SQLite compares an integer with the keys whatever the affinity (join.c,
**      1a); the table whose build kept the least part of its rows first, each
**      after those its key reads (nextProbe). A table's other equalities are
**      conjuncts after every probe (SQLite's `=` is the join's match: join.c, 1).
**      A subquery's table (EXISTS, IN, NOT EXISTS: plan.c, 9a) by one equality is
**      an index of the keys its rows have, rows of one key alike: a row stays
**      where it finds its key (NOT EXISTS: where not). A LEFT JOIN's row is the
**      one found where its other equalities are true too, else its row of NULLs,
**      whose place n follows its rows in each of its tables (rowEval): no row is
**      dropped (leftRow). An expression of one joined table's columns alone is
**      evaluated once per row of its build and becomes a lookup of the joined row
**      (numbers, or ids as keys of 3); the conjuncts over the joined rows are the
**      filter's last. The keys of one joined table share one id, each distinct
**      tuple of their values; the scanned column a table is probed by is one of
**      its keys too (the row it meets has that integer as its key: TPC-H Q3's
**      l_orderkey). Left out, as values SQLite shows in its own join order: a
**      number key that may be a REAL, min and max but of integers,
**      count(DISTINCT).
**   6a. A subquery's one condition beside its equality, a comparison (<>,
**      <, <=, >, >=) of an expression of its own columns with one of the
**      tables before it (TPC-H Q21's l2.l_suppkey <> l1.l_suppkey), is met by
**      some row of the key where it is met by the least or the greatest of
**      the key's values that are not NULL (numbers: SQLite's order of them
**      is total): <> by either, < and <= by the least, > and >= by the
**      greatest; none where they or the outer value are NULL. The index then
**      gives each key's group, whose least and greatest are lookups
**      (residualTest).
**   6b. An inner join none of whose ready equalities is one row a key may
**      be by a pair of them whose integers are: the code (k - lo) * span2 +
**      k2 - lo2 (spans' product at most 2^62), which the probe computes of
**      its two sides, NULL where k2 is outside the build's span (TPC-H Q9's
**      partsupp by ps_partkey and ps_suppkey).
**   7. A program with tables has a number no other program of the process
**      has (ga_qprog.tabId): a device keeps the tables of the last program
**      it ran by it, so that a read of a kept compiled plan copies none.
*/
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <pthread.h>
#include "query.h"

typedef struct Comp {
  qrun *r;                         /* evaluates the dictionaries */
  const qplan *pl;
  ga_resident *const *aCol;        /* the plan's columns, as kept */
  qkept *k;                        /* what is made */
  char *zWhy;                      /* not compiled: why */
  unsigned char mask[GA_QVREG];    /* each register's classes (GA_QM_*) */
  unsigned char nulT[GA_BATCH];    /* a column of NULLs, for the columns an evaluation ignores */
  int64_t nulV[GA_BATCH];
  const qjoinrows *aJr;            /* a join (6): each joined table's rows; NULL: one table */
  int aRow[Q_MAXTAB];              /* ... the register of each one's row (probed) */
  int aEqAt[Q_MAXTAB];             /* ... the equality its index is by (probed) */
  int aEqAt2[Q_MAXTAB];            /* ... and a second one (a pair's code: 6b), or -1 */
  unsigned probed;                 /* ... those probed so far: bit k for joined table k */
} Comp;

static int why(Comp *c, const char *zFmt, ...){
  va_list ap;
  if( c->zWhy==0 ){
    va_start(ap, zFmt);
    c->zWhy = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
  }
  return QE_BAIL;
}

/* The one value fn gives every column e reads (-2: e reads none, -1: not
** one): the column itself (colsOf), or its table (tabOf). */
static int oneOf(const qexpr *e, int (*fn)(int)){
  int c = -2, i, x;
  const qexpr *aSub[2];
  if( e==0 ) return -2;
  if( e->op==E_COL ) return fn(e->iCol);
  aSub[0] = e->a;
  aSub[1] = e->b;
  for(i=0; i<2 + e->nArg; i++){
    x = oneOf(i<2 ? aSub[i] : e->arg[i - 2], fn);
    if( x==-2 ) continue;
    if( x==-1 || (c>=0 && c!=x) ) return -1;
    c = x;
  }
  return c;
}

static int colId(int iCol){ return iCol; }
/* Column iCol's table (6): 0 the scanned one, k + 1 joined table k. */
static int tabId(int iCol){ return iCol<Q_JCOL0 ? 0 : 1 + (iCol - Q_JCOL0)/GA_COLS_MAX; }
static int colsOf(const qexpr *e){ return oneOf(e, colId); }
static int tabOf(const qexpr *e){ return oneOf(e, tabId); }

static const char *colName(Comp *c, int col){
  return c->pl->src.tab.aCol[c->pl->aiCol[col]].zName;
}

/* Rows all numbers or NULL; rows all TEXT, BLOB or NULL (none, or their
** bytes kept: NULL alone is looked up too). */
static int isNum(const ga_resident *x){ return x->nText + x->nBlob==0; }
static int isDict(const ga_resident *x){
  return x->nInt + x->nReal==0 && (x->nText + x->nBlob==0 || (x->dict && (x->want & GA_COL_BYTES)));
}

static int newReg(Comp *c, int *pr){
  if( c->k->p.nReg>=GA_QVREG ) return why(c, "more than %d values a row", GA_QVREG);
  *pr = c->k->p.nReg++;
  return SQLITE_OK;
}

/* The classes instruction (op, a, b, x) gives dst (qprog.h's rules), and
** its hint in *pHint (0: none). */
static int classesOf(Comp *c, int op, int a, int b, int x, int *pHint){
  const ga_qprog *p = &c->k->p;
  int ma = 0, mb = 0, m = 0;
  int64_t j;
  *pHint = 0;
  switch( op ){
    case GA_Q_COL: {
      const ga_resident *r = c->aCol[x];
      return (r->nInt ? GA_QM_INT : 0) | (r->nReal ? GA_QM_REAL : 0) | (r->nNull ? GA_QM_NULL : 0);
    }
    case GA_Q_LIT:
      return p->litT[x]==SQLITE_INTEGER ? GA_QM_INT : p->litT[x]==SQLITE_FLOAT ? GA_QM_REAL : GA_QM_NULL;
    case GA_Q_MAP:                                 /* NULL's entry is the last */
      for(j=0; j<p->tabN[x] - (c->aCol[a]->nNull ? 0 : 1); j++){
        int t = c->k->tabC[p->tabOff[x] + j];
        m |= t==SQLITE_INTEGER ? GA_QM_INT : t==SQLITE_FLOAT ? GA_QM_REAL : GA_QM_NULL;
      }
      return m;
    case GA_Q_LOOK: case GA_Q_HASH:                /* a miss reads NULL; GA_Q_HASH's entries are the odd */
      for(j=op==GA_Q_HASH; j<p->tabN[x]; j+=1 + (op==GA_Q_HASH)){
        int t = c->k->tabC[p->tabOff[x] + j];
        m |= t==SQLITE_INTEGER ? GA_QM_INT : t==SQLITE_FLOAT ? GA_QM_REAL : GA_QM_NULL;
      }
      return m | GA_QM_NULL;
    default: break;
  }
  ma = c->mask[a];
  if( op!=GA_Q_NOT && op!=GA_Q_ISNULL && op!=GA_Q_NOTNULL && op!=GA_Q_CASTINT && op!=GA_Q_CASTREAL ) mb = c->mask[b];
  else mb = ma;
  if( ma==GA_QM_INT && mb==GA_QM_INT ) *pHint = GA_QT_II;
  if( ma==GA_QM_REAL && mb==GA_QM_REAL ) *pHint = GA_QT_RR;
  switch( op ){
    case GA_Q_REM:                                 /* (of two integers an integer: ga_q_arith) */
      return GA_QM_NULL | ((ma & mb & GA_QM_INT) ? GA_QM_INT : 0) | (((ma | mb) & GA_QM_REAL) ? GA_QM_REAL : 0);
    case GA_Q_ADD: case GA_Q_SUB: case GA_Q_MUL: case GA_Q_DIV:
      m = (ma | mb) & GA_QM_NULL;
      if( (ma & GA_QM_INT) && (mb & GA_QM_INT) ) m |= GA_QM_INT | GA_QM_REAL;     /* an overflow is REAL */
      if( (ma | mb) & GA_QM_REAL ) m |= GA_QM_REAL | GA_QM_NULL;                  /* NaN is NULL */
      if( op==GA_Q_DIV ) m |= GA_QM_NULL;                                          /* by zero */
      return m;
    case GA_Q_IS: case GA_Q_ISNOT: case GA_Q_ISNULL: case GA_Q_NOTNULL:
      return GA_QM_INT;
    case GA_Q_CASTINT: case GA_Q_CASTREAL:
      *pHint = 0;
      return (ma & GA_QM_NULL) | ((ma & (GA_QM_INT|GA_QM_REAL)) ? (op==GA_Q_CASTINT ? GA_QM_INT : GA_QM_REAL) : 0);
    case GA_Q_MIN: case GA_Q_MAX:
      return ma | mb;
    case GA_Q_IF:
      *pHint = 0;
      return ma | mb;
    default:                                       /* comparisons, AND, OR, NOT */
      return GA_QM_INT | ((ma | mb) & GA_QM_NULL);
  }
}

static int emit(Comp *c, int op, int dst, int a, int b, int x){
  ga_qprog *p = &c->k->p;
  int hint;
  if( p->nIns>=GA_QINS ) return why(c, "more than %d operations", GA_QINS);
  c->mask[dst] = (unsigned char)classesOf(c, op, a, b, x, &hint);
  if( op!=GA_Q_COL && op!=GA_Q_LIT && op!=GA_Q_MAP && op!=GA_Q_LOOK && op!=GA_Q_HASH && op!=GA_Q_IF ) x = hint;
  p->ins[p->nIns].op = (unsigned char)op;
  p->ins[p->nIns].dst = (unsigned char)dst;
  p->ins[p->nIns].a = (unsigned char)a;
  p->ins[p->nIns].b = (unsigned char)b;
  p->ins[p->nIns].x = x;
  p->nIns++;
  return SQLITE_OK;
}

/* e over column col's dictionary, then NULL, into *paOut (ga_free
** it), *pn values; keep: their bytes kept in the run's memory. */
static int dictEval(Comp *c, qexpr *e, int col, int keep, qval **paOut, int64_t *pn){
  const ga_resident *x = c->aCol[col];
  int64_t nD = x->nDict, n = nD + 1, i0;
  qval *out = ga_malloc64(sizeof(qval)*(uint64_t)n);
  unsigned char t[GA_BATCH];
  int64_t v[GA_BATCH];
  ga_colvec cols[GA_COLS_MAX];
  ga_colbatch b;
  int j, rc;
  if( out==0 ) return SQLITE_NOMEM;
  for(j=0; j<c->pl->nCol; j++){
    cols[j].type = c->nulT;
    cols[j].v = c->nulV;
    cols[j].cell = 0;
  }
  memset(&b, 0, sizeof(b));
  b.nCol = c->pl->nCol;
  b.col = cols;
  cols[col].type = t;
  cols[col].v = v;
  cols[col].cell = x->dict;
  for(i0=0; i0<n; i0+=GA_BATCH){
    int m = n - i0<GA_BATCH ? (int)(n - i0) : GA_BATCH, i;
    qctx ctx;
    qvec *o;
    for(i=0; i<m; i++){
      int64_t p = i0 + i;
      t[i] = p<nD ? (p<x->nDictText ? SQLITE_TEXT : SQLITE_BLOB) : SQLITE_NULL;
      v[i] = p<nD ? p : 0;
    }
    b.n = m;
    memset(&ctx, 0, sizeof(ctx));
    ctx.b = &b;
    ctx.n = m;
    if( (rc = q_eval(c->r, e, &ctx, &o))!=SQLITE_OK ){
      ga_free(out);
      return rc==QE_BAIL ? why(c, "%s", q_run_errmsg(c->r)) : rc;
    }
    for(i=0; i<m; i++){
      qval *y = &out[i0 + i];
      q_get(o, i, y);
      if( keep && (y->t==SQLITE_TEXT || y->t==SQLITE_BLOB) && (y->z = q_keep(c->r, y->z, y->n))==0 ){
        ga_free(out);
        return SQLITE_NOMEM;
      }
    }
  }
  *paOut = out;
  *pn = n;
  return SQLITE_OK;
}

/* Room for the next table, of n entries, after the tables made so far:
** its classes and values into *paT and *paV, for the caller to fill before
** tableAdd makes it a table (a large one is made in place: no copy, no
** second set of fresh pages). */
static int tableRoom(Comp *c, int64_t n, unsigned char **paT, int64_t **paV){
  qkept *k = c->k;
  if( k->p.nTab>=GA_QTAB ) return why(c, "more than %d expressions of TEXT columns", GA_QTAB);
  if( k->nTab + n>k->tabAlloc ){
    int64_t m = k->nTab + n;
    m += m<((int64_t)1<<20) ? m : (int64_t)1<<20;   /* (room for more, at most 1M entries: a 2^28 one counts) */
    unsigned char *tc = ga_realloc64(k->tabC, (uint64_t)m);
    int64_t *tv;
    if( tc==0 ) return SQLITE_NOMEM;
    k->tabC = tc;
    if( (tv = ga_realloc64(k->tabV, 8*(uint64_t)m))==0 ) return SQLITE_NOMEM;
    k->tabV = tv;
    k->tabAlloc = m;
  }
  *paT = k->tabC + k->nTab;
  *paV = k->tabV + k->nTab;
  return SQLITE_OK;
}

/* The room tableRoom gave, n entries filled, as the next table: its index
** in *pt. */
static void tableAdd(Comp *c, int64_t n, int *pt){
  qkept *k = c->k;
  assert( k->p.nTab<GA_QTAB && k->nTab + n<=k->tabAlloc );
  k->p.tabOff[k->p.nTab] = k->nTab;
  k->p.tabN[k->p.nTab] = n;
  k->nTab += n;
  *pt = k->p.nTab++;
}

/* A table of n entries (classes and values from a), its index in *pt. */
static int addTable(Comp *c, const unsigned char *aT, const int64_t *aV, int64_t n, int *pt){
  unsigned char *dT;
  int64_t *dV;
  int rc = tableRoom(c, n, &dT, &dV);
  if( rc ) return rc;
  if( n ){
    memcpy(dT, aT, (size_t)n);
    memcpy(dV, aV, 8*(size_t)n);
  }
  tableAdd(c, n, pt);
  return SQLITE_OK;
}

/* The parts a compile's work over n items is cut into: its threads' where
** n is nMin or more, else one. A large table's entries are cleared in parts
** (the first touch of fresh pages is most of the cost of making one, and
** the kernel serves page faults on several cores at once), and a joined
** table's keys read and placed in parts (indexBy). */
#define CLEAR_PAR_MIN ((int64_t)1 << 22)
#define INDEX_PAR_MIN ((int64_t)1 << 18)
static int compParts(Comp *c, int64_t n, int64_t nMin){
  int nTh = n>=nMin ? q_run_threads(c->r) : 1;
  return nTh<1 ? 1 : nTh>GA_THREADS_MAX ? GA_THREADS_MAX : nTh;
}

/* n entries of NULL from aT and aV, in parts (compParts). */
typedef struct Clear {
  unsigned char *aT; int64_t *aV;   /* the entries */
  int64_t n; int nPart, iPart;      /* ... how many; this part's share of nPart */
} Clear;

static void *clearPart(void *pArg){
  Clear *p = (Clear*)pArg;
  int64_t i0 = p->n*p->iPart/p->nPart, i1 = p->n*(p->iPart + 1)/p->nPart;
  memset(p->aT + i0, SQLITE_NULL, (size_t)(i1 - i0));
  memset(p->aV + i0, 0, 8*(size_t)(i1 - i0));
  return 0;
}

static void clearEntries(Comp *c, unsigned char *aT, int64_t *aV, int64_t n){
  Clear a[GA_THREADS_MAX];
  int nTh = compParts(c, n, CLEAR_PAR_MIN), w;
  for(w=0; w<nTh; w++){
    a[w].aT = aT; a[w].aV = aV; a[w].n = n;
    a[w].nPart = nTh; a[w].iPart = w;
  }
  q_fan(nTh, clearPart, a, sizeof(a[0]));
}

/* Lookup of table t by column col into a new register. */
static int emitMap(Comp *c, int col, int t, int *pr){
  int rc = newReg(c, pr);
  return rc ? rc : emit(c, GA_Q_MAP, *pr, col, c->aCol[col]->nNull==0, t);
}


/* A lookup of table t (tabLo lo; hashed: GA_Q_HASH's) by register a into a new register. */
static int emitLook(Comp *c, int a, int t, int64_t lo, int hashed, int *pr){
  int rc = newReg(c, pr);
  c->k->p.tabLo[t] = lo;
  return rc ? rc : emit(c, hashed ? GA_Q_HASH : GA_Q_LOOK, *pr, a, c->mask[a]==GA_QM_INT, t);
}

/* Rows [i0, i1) of joined table jk (a LEFT JOIN's row of NULLs at its place
** n) through e on run r, a batch at a time, into out; cols: room for the
** plan's places. *pAt: where it stopped (i1 when done). keep: TEXT and BLOB
** bytes kept in r's memory, else not shown (z NULL: the callers that do not
** keep read classes and numbers alone). */
static int evalRows(Comp *c, qrun *r, qexpr *e, int jk, int keep, int64_t i0, int64_t i1, qval *out,
                    ga_colvec *cols, int64_t *pAt){
  const qjoinrows *jr = &c->aJr[jk];
  const qjoin *q = &c->pl->aJoin[jk];
  int nPlace = Q_JCOL0 + c->pl->nJCol, j, m, rc = SQLITE_OK;
  ga_colbatch b;
  for(j=0; j<nPlace; j++){
    cols[j].type = c->nulT;
    cols[j].v = c->nulV;
    cols[j].cell = 0;
  }
  memset(&b, 0, sizeof(b));
  b.nCol = nPlace;
  b.col = cols;
  for(*pAt=i0; *pAt<i1 && rc==SQLITE_OK; *pAt+=m){
    int64_t at = *pAt;
    int i;
    qctx ctx;
    qvec *o;
    m = i1 - at<GA_BATCH ? (int)(i1 - at) : GA_BATCH;
    if( at<jr->n && at + m>jr->n ) m = (int)(jr->n - at);
    for(j=0; j<q->nCol; j++){                  /* (a TEXT value is its cell's index: the same from at) */
      ga_colvec *x = &cols[Q_JCOL0 + q->iCol0 + j];
      x->type = at<jr->n ? jr->aT[j] + at : c->nulT;
      x->v = at<jr->n ? jr->aV[j] + at : c->nulV;
      x->cell = at<jr->n ? jr->aCell[j] : 0;
    }
    b.n = m;
    memset(&ctx, 0, sizeof(ctx));
    ctx.b = &b;
    ctx.n = m;
    if( (rc = q_eval(r, e, &ctx, &o))!=SQLITE_OK ) break;
    for(i=0; i<m; i++){
      qval *y = &out[at + i];
      q_get(o, i, y);
      if( (y->t==SQLITE_TEXT || y->t==SQLITE_BLOB) && (keep ? (y->z = q_keep(r, y->z, y->n))==0 : (y->z = 0, 0)) ){
        rc = SQLITE_NOMEM;
        break;
      }
    }
  }
  return rc;
}

/* rowEval's share of one worker thread: its rows on a run of its own. */
#define ROW_PAR_MIN 64             /* batches a joined table needs for rowEval's threads */
typedef struct RowPart {
  Comp *c; qexpr *e; int jk;
  int keep;                         /* TEXT and BLOB bytes kept (in r's memory, then the compile's) */
  qrun *r;                          /* its run (a worker's: what needs SQLite stops it) */
  int64_t i0, i1, at;               /* its rows; where it stopped */
  qval *out;
  ga_colvec *cols;
} RowPart;

static void *rowWorker(void *pArg){
  RowPart *w = (RowPart*)pArg;
  (void)evalRows(w->c, w->r, w->e, w->jk, w->keep, w->i0, w->i1, w->out, w->cols, &w->at);
  return 0;
}

/* e, an expression of joined table jk's columns alone, over each of its
** build's rows (a LEFT JOIN's: then over a row of NULLs, its place n) into
** *paOut (ga_free it), *pn values; keep: their bytes kept in the run's
** memory (6). Where the rows are many, on the run's threads (q_run_threads),
** each with a run of its own, whose kept bytes then pass to the compile's
** run; rows a worker did not finish (an error, or what needs SQLite) then
** on the compile's run, in order. */
static int rowEval(Comp *c, qexpr *e, int jk, int keep, qval **paOut, int64_t *pn){
  const qjoinrows *jr = &c->aJr[jk];
  int64_t nAll = jr->n + (c->pl->aJoin[jk].left!=0), at = 0;
  int nPlace = Q_JCOL0 + c->pl->nJCol, nTh = q_run_threads(c->r), w, rc = SQLITE_OK;
  ga_colvec *cols = ga_malloc64(sizeof(ga_colvec)*(uint64_t)nPlace*(uint64_t)(nTh + 1));
  qval *out = ga_malloc64(sizeof(qval)*(uint64_t)(nAll + 1));
  RowPart aW[GA_THREADS_MAX];
  pthread_t aTh[GA_THREADS_MAX];
  if( cols==0 || out==0 ){
    ga_free(cols);
    ga_free(out);
    return SQLITE_NOMEM;
  }
  if( nTh<2 || jr->n<(int64_t)GA_BATCH*ROW_PAR_MIN ) nTh = 0;
  if( nTh>GA_THREADS_MAX ) nTh = GA_THREADS_MAX;
  for(w=0; w<nTh; w++){
    int64_t nB = (nAll + GA_BATCH - 1)/GA_BATCH;
    RowPart *p = &aW[w];
    p->c = c; p->e = e; p->jk = jk; p->keep = keep; p->out = out;
    p->cols = cols + (size_t)nPlace*(size_t)(w + 1);
    p->i0 = p->at = (nB*w/nTh)*GA_BATCH;
    p->i1 = w==nTh - 1 ? nAll : (nB*(w + 1)/nTh)*GA_BATCH;
    if( (p->r = q_run_new(q_run_db(c->r), c->pl))!=0 ){
      q_run_worker(p->r);
      if( pthread_create(&aTh[w], 0, rowWorker, p)!=0 ){
        q_run_free(p->r);
        p->r = 0;
      }
    }
  }
  for(w=0; w<nTh; w++) if( aW[w].r ) pthread_join(aTh[w], 0);
  for(w=0; w<(nTh ? nTh : 1) && rc==SQLITE_OK; w++){
    /* what a worker left (all of its rows where it did not start), or every row */
    int64_t i0 = nTh ? aW[w].at : 0, i1 = nTh ? aW[w].i1 : nAll;
    if( i0<i1 && (rc = evalRows(c, c->r, e, jk, keep, i0, i1, out, cols, &at))==QE_BAIL ){
      rc = why(c, "%s", q_run_errmsg(c->r));
    }
  }
  for(w=0; w<nTh; w++){
    if( aW[w].r==0 ) continue;
    q_keep_move(c->r, aW[w].r);     /* (its rows' bytes) */
    q_run_free(aW[w].r);
  }
  ga_free(cols);
  if( rc!=SQLITE_OK ){
    ga_free(out);
    return rc;
  }
  *paOut = out;
  *pn = nAll;
  return SQLITE_OK;
}

/* e, an expression of TEXT column col alone (requirement 1), or of joined
** table jk's columns (jk >= 0: 6), as a lookup of numbers: its values over
** the column's dictionary, or the table's rows. */
static int numNode(Comp *c, qexpr *e, int col, int jk, int *pr){
  qval *a = 0;
  int64_t n, i;
  unsigned char *aT;
  int64_t *aV;
  int rc, t;
  rc = jk<0 ? dictEval(c, e, col, 0, &a, &n) : rowEval(c, e, jk, 0, &a, &n);
  if( rc!=SQLITE_OK ) return rc;
  aT = ga_malloc64((uint64_t)n + 1);          /* (a joined table may have no row) */
  aV = ga_malloc64(8*(uint64_t)n + 8);
  if( aT==0 || aV==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  for(i=0; i<n; i++){
    if( a[i].t==SQLITE_TEXT || a[i].t==SQLITE_BLOB ){
      rc = jk<0 ? why(c, "a TEXT or BLOB value of %s where a number is needed", colName(c, col))
                : why(c, "a TEXT or BLOB value of %.*s where a number is needed", e->end - e->at, c->pl->s->zSql + e->at);
      goto done;
    }
    aT[i] = (unsigned char)a[i].t;
    aV[i] = a[i].t==SQLITE_NULL ? 0 : a[i].v;
  }
  if( (rc = addTable(c, aT, aV, n, &t))==SQLITE_OK ){
    rc = jk<0 ? emitMap(c, col, t, pr) : emitLook(c, c->aRow[jk], t, 0, 0, pr);
  }
done:
  ga_free(a);
  ga_free(aT);
  ga_free(aV);
  return rc;
}

/* The instruction of each operator (qprog.h). */
static const int aOpOf[] = {
  [E_ADD] = GA_Q_ADD, [E_SUB] = GA_Q_SUB, [E_MUL] = GA_Q_MUL, [E_DIV] = GA_Q_DIV, [E_REM] = GA_Q_REM,
  [E_EQ] = GA_Q_EQ, [E_NE] = GA_Q_NE, [E_LT] = GA_Q_LT, [E_LE] = GA_Q_LE, [E_GT] = GA_Q_GT, [E_GE] = GA_Q_GE,
  [E_IS] = GA_Q_IS, [E_ISNOT] = GA_Q_ISNOT, [E_AND] = GA_Q_AND, [E_OR] = GA_Q_OR, [E_NOT] = GA_Q_NOT,
  [E_ISNULL] = GA_Q_ISNULL, [E_NOTNULL] = GA_Q_NOTNULL
};

/* qsort's orders of values (by gRankColl): of indexes into gRankVal, and
** of pointers. */
static __thread const qval *gRankVal;
static __thread int gRankColl;
static int rankCmp(const void *a, const void *b){
  return q_cmp(&gRankVal[*(const int64_t*)a], &gRankVal[*(const int64_t*)b], gRankColl);
}
static int rankPtrCmp(const void *a, const void *b){
  return q_cmp(*(const qval *const*)a, *(const qval *const*)b, gRankColl);
}

/* A comparison of two expressions, each of one TEXT column (different
** ones), as a comparison of their values' places in one order: every
** value either side can take, with the comparison's affinity applied
** (where it converts nothing but TEXT, as eval.c's compare would), sorted by
** its collation, equal ones sharing a place; each side a lookup of its
** places (NULL stays NULL). */
static int rankCompare(Comp *c, qexpr *e, int colA, int colB, int *pr){
  qval *aSide[2] = { 0, 0 }, **aAll = 0;
  int64_t anSide[2], n = 0, i, j, rank, *aRank = 0;
  unsigned char *aT = 0;
  int64_t *aV = 0;
  int rc, k, aReg[2], t;
  qexpr *aE[2];
  aE[0] = e->a;
  aE[1] = e->b;
  for(k=0; k<2; k++){
    if( (rc = dictEval(c, aE[k], k ? colB : colA, 1, &aSide[k], &anSide[k]))!=SQLITE_OK ) goto done;
  }
  if( (aAll = ga_malloc64(sizeof(qval*)*(uint64_t)(anSide[0] + anSide[1] + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(k=0; k<2; k++){
    for(i=0; i<anSide[k]; i++){
      qval *x = &aSide[k][i];
      if( x->t!=SQLITE_NULL && x->t!=SQLITE_TEXT && x->t!=SQLITE_BLOB && e->cmpAff>=GA_AFF_TEXT ){
        rc = why(c, "a comparison of TEXT columns' expressions whose numbers an affinity converts");
        goto done;
      }
      if( (rc = q_apply_aff(c->r, e->cmpAff, x))!=SQLITE_OK ){
        if( rc==QE_BAIL ) rc = why(c, "%s", q_run_errmsg(c->r));
        goto done;
      }
      if( x->t!=SQLITE_NULL ) aAll[n++] = x;
    }
  }
  gRankColl = e->cmpColl;
  qsort(aAll, (size_t)n, sizeof(qval*), rankPtrCmp);
  /* each value's place (equal values share one), then written in its slot */
  if( (aRank = ga_malloc64(8*(uint64_t)(n + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(i=0, rank=0; i<n; i=j, rank++){
    for(j=i; j<n && q_cmp(aAll[i], aAll[j], e->cmpColl)==0; j++) aRank[j] = rank;
  }
  for(i=0; i<n; i++){
    aAll[i]->t = SQLITE_INTEGER;
    aAll[i]->v = aRank[i];
  }
  for(k=0; k<2; k++){
    if( (aT = ga_malloc64((uint64_t)anSide[k]))==0 || (aV = ga_malloc64(8*(uint64_t)anSide[k]))==0 ){
      rc = SQLITE_NOMEM;
      goto done;
    }
    for(i=0; i<anSide[k]; i++){
      aT[i] = (unsigned char)aSide[k][i].t;
      aV[i] = aSide[k][i].t==SQLITE_NULL ? 0 : aSide[k][i].v;
    }
    if( (rc = addTable(c, aT, aV, anSide[k], &t))!=SQLITE_OK || (rc = emitMap(c, k ? colB : colA, t, &aReg[k]))!=SQLITE_OK ){
      goto done;
    }
    ga_free(aT); aT = 0;
    ga_free(aV); aV = 0;
  }
  if( (rc = newReg(c, pr))==SQLITE_OK ) rc = emit(c, aOpOf[e->op], *pr, aReg[0], aReg[1], 0);
done:
  ga_free(aRank);
  ga_free(aSide[0]);
  ga_free(aSide[1]);
  ga_free(aAll);
  ga_free(aT);
  ga_free(aV);
  return rc;
}

/* Constant (t, v), a number or NULL, into a new register. */
static int emitLit(Comp *c, int t, int64_t v, int *pr){
  ga_qprog *p = &c->k->p;
  int rc;
  if( p->nLit>=GA_QLIT ) return why(c, "more than %d constants", GA_QLIT);
  p->litT[p->nLit] = (unsigned char)t;
  p->litV[p->nLit] = t==SQLITE_NULL ? 0 : v;
  if( (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
  return emit(c, GA_Q_LIT, *pr, 0, 0, p->nLit++);
}

static int inNode(Comp *c, qexpr *e, int *pr);

static int node(Comp *c, qexpr *e, int *pr){
  int col, rc, ra, rb, op;
  if( e->op==E_COLLATE || e->op==E_UPLUS ) return node(c, e->a, pr);
  if( (col = tabOf(e))>=1 ){
    if( c->aJr==0 ) return why(c, "a join");
    return numNode(c, e, -1, col - 1, pr);
  }
  if( (col = colsOf(e))>=0 && (isDict(c->aCol[col]) || !isNum(c->aCol[col])) ){
    if( !isDict(c->aCol[col]) ) return why(c, "column %s holds numbers and TEXT or BLOB both", colName(c, col));
    return numNode(c, e, col, -1, pr);
  }
  if( col==-1 && e->op>=E_EQ && e->op<=E_ISNOT ){
    int ca = colsOf(e->a), cb = colsOf(e->b);
    if( ca>=0 && cb>=0 && ca<Q_JCOL0 && cb<Q_JCOL0 && ca!=cb && isDict(c->aCol[ca]) && isDict(c->aCol[cb]) ){
      return rankCompare(c, e, ca, cb, pr);
    }
  }
  switch( e->op ){
    case E_COL:
      if( (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
      return emit(c, GA_Q_COL, *pr, 0, 0, e->iCol);
    case E_LIT:
      if( e->t!=SQLITE_INTEGER && e->t!=SQLITE_FLOAT && e->t!=SQLITE_NULL ) return why(c, "a TEXT or BLOB constant");
      return emitLit(c, e->t, e->i, pr);
    case E_CASE: {
      /* the ELSE (NULL without one), then each WHEN from the last: IF(when,
      ** then, what follows it); every branch computed, as none raises an error */
      int k, rw, rt, nW = (e->nArg - e->nElse)/2;
      rc = e->nElse ? node(c, e->arg[e->nArg - 1], &rb) : emitLit(c, SQLITE_NULL, 0, &rb);
      for(k=nW - 1; rc==SQLITE_OK && k>=0; k--){
        if( (rc = node(c, e->arg[2*k], &rw))!=SQLITE_OK || (rc = node(c, e->arg[2*k + 1], &rt))!=SQLITE_OK
         || (rc = newReg(c, pr))!=SQLITE_OK || (rc = emit(c, GA_Q_IF, *pr, rt, rb, rw))!=SQLITE_OK ) break;
        rb = *pr;
      }
      *pr = rb;
      return rc;
    }
    case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE: case E_IS: case E_ISNOT:
      if( e->cmpAff==GA_AFF_TEXT ) return why(c, "numbers compared as TEXT");
      /* fall through */
    case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_REM: case E_AND: case E_OR:
      op = aOpOf[e->op];
      if( (rc = node(c, e->a, &ra))!=SQLITE_OK || (rc = node(c, e->b, &rb))!=SQLITE_OK ) return rc;
      if( (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
      return emit(c, op, *pr, ra, rb, 0);
    case E_NOT: case E_ISNULL: case E_NOTNULL:
      op = aOpOf[e->op];
      if( (rc = node(c, e->a, &ra))!=SQLITE_OK ) return rc;
      if( (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
      return emit(c, op, *pr, ra, 0, 0);
    case E_MINMAX: {
      /* min(a, b, c) is min(min(a, b), c): minmaxFunc's loop */
      int k;
      if( (rc = node(c, e->arg[0], &ra))!=SQLITE_OK ) return rc;
      for(k=1; k<e->nArg; k++){
        if( (rc = node(c, e->arg[k], &rb))!=SQLITE_OK || (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
        if( (rc = emit(c, e->agg==A_MIN ? GA_Q_MIN : GA_Q_MAX, *pr, ra, rb, 0))!=SQLITE_OK ) return rc;
        ra = *pr;
      }
      return SQLITE_OK;
    }
    case E_IN:
      return inNode(c, e, pr);
    case E_SQL:
      if( e->sqlOp==E_CAST && e->nArg==1 && (e->aff==GA_AFF_INTEGER || e->aff==GA_AFF_REAL) ){
        /* a number's CAST (a TEXT column's went through its dictionary above) */
        if( (rc = node(c, e->arg[0], &ra))!=SQLITE_OK ) return rc;
        if( (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
        return emit(c, e->aff==GA_AFF_INTEGER ? GA_Q_CASTINT : GA_Q_CASTREAL, *pr, ra, 0, 0);
      }
      /* fall through */
    default:
      return why(c, "%.*s is not computed on kept columns", e->end - e->at, c->pl->s->zSql + e->at);
  }
}

/* e's values are INTEGER or NULL, never REAL (an integer never groups with
** a REAL that shows otherwise). */
static int intOnly(Comp *c, const qexpr *e){
  switch( e->op ){
    case E_COL: return e->iCol<Q_JCOL0 && isNum(c->aCol[e->iCol]) && c->aCol[e->iCol]->nReal==0;
    case E_LIT: return e->t==SQLITE_INTEGER || e->t==SQLITE_NULL;
    case E_COLLATE: case E_UPLUS: return intOnly(c, e->a);
    case E_SQL: return e->sqlOp==E_CAST && e->aff==GA_AFF_INTEGER && e->nArg==1;
    case E_MINMAX: {
      int k;
      for(k=0; k<e->nArg; k++) if( !intOnly(c, e->arg[k]) ) return 0;
      return 1;
    }
    case E_REM: return intOnly(c, e->a) && intOnly(c, e->b);
    case E_CASE: {
      int k;
      for(k=1; k<e->nArg; k+=2) if( !intOnly(c, e->arg[k]) ) return 0;
      return !e->nElse || intOnly(c, e->arg[e->nArg - 1]);
    }
    case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE: case E_IS: case E_ISNOT:
    case E_AND: case E_OR: case E_NOT: case E_ISNULL: case E_NOTNULL: return 1;
    default: return 0;
  }
}

/* Whether e is a column (the scan's) of REALs alone (or NULLs): its equal
** values show alike, but for 0.0 and -0.0 (kept.c's keptValue refuses a
** min() or max() over joined rows that comes out 0). */
static int realOnly(Comp *c, const qexpr *e){
  while( e->op==E_COLLATE || e->op==E_UPLUS ) e = e->a;
  return e->op==E_COL && e->iCol<Q_JCOL0 && isNum(c->aCol[e->iCol]) && c->aCol[e->iCol]->nInt==0;
}

/* Register r may hold a REAL: its classes say so (classesOf: a column with
** REAL values, a REAL constant or table entry, arithmetic, which an
** integer overflow takes to REAL, a CAST to REAL, min or max of one). */
static int mayReal(Comp *c, int r){
  return (c->mask[r] & GA_QM_REAL)!=0;
}

/* Values a and b are the same value shown the same way. */
static int sameShown(const qval *a, const qval *b){
  if( a->t!=b->t ) return 0;
  if( a->t==SQLITE_TEXT || a->t==SQLITE_BLOB ) return a->n==b->n && (a->n==0 || memcmp(a->z, b->z, (size_t)a->n)==0);
  return a->t==SQLITE_NULL || a->v==b->v;
}

static const qexpr *probeSide(const qjoin *q, int j);
static int keyInt(const char *z, int n, int j, int64_t *pv);

static __thread const qval *gTextVal;     /* textCmp's values ... */
static __thread const int64_t *gTextFirst; /* ... and each distinct one's first row */
static int textCmp(const void *a, const void *b){
  const qval *x = &gTextVal[gTextFirst[*(const int64_t*)a]], *y = &gTextVal[gTextFirst[*(const int64_t*)b]];
  int k = x->n<y->n ? x->n : y->n, c = k ? memcmp(x->z, y->z, (size_t)k) : 0;
  return c ? c : (x->n>y->n) - (x->n<y->n);
}

/* rankOrder's for TEXT and NULL values by BINARY: each distinct value once
** (a hash of the bytes), those sorted, then the rows counted into their
** places, NULL's first. */
static int rankText(const qval *v, int64_t n, int64_t *ord){
  int64_t nSlot = 1024, *slot, *first, *place, *cnt, nD = 0, i, j;
  while( nSlot<2*n ) nSlot *= 2;
  slot = ga_malloc64(8*(uint64_t)nSlot);
  first = ga_malloc64(8*(uint64_t)n);         /* each distinct value's first row */
  place = ga_malloc64(8*(uint64_t)n);         /* each row's distinct value, then its place */
  cnt = ga_malloc64(8*(uint64_t)(n + 2));
  if( slot==0 || first==0 || place==0 || cnt==0 ){
    ga_free(slot); ga_free(first); ga_free(place); ga_free(cnt);
    return SQLITE_NOMEM;
  }
  memset(slot, 0xff, 8*(size_t)nSlot);
  for(i=0; i<n; i++){
    uint64_t h;
    int64_t s;
    if( v[i].t==SQLITE_NULL ){ place[i] = -1; continue; }
    h = q_hash(0x9e3779b97f4a7c15ull, v[i].z, v[i].n);
    for(s=(int64_t)(h & (uint64_t)(nSlot - 1)); slot[s]>=0; s=(s + 1) & (nSlot - 1)){
      const qval *d = &v[first[slot[s]]];
      if( d->n==v[i].n && (d->n==0 || memcmp(d->z, v[i].z, (size_t)d->n)==0) ) break;
    }
    if( slot[s]<0 ){
      first[nD] = i;
      slot[s] = nD++;
    }
    place[i] = slot[s];
  }
  /* the distinct values in order: each one's place into slot (free again) */
  gTextVal = v;
  gTextFirst = first;
  for(j=0; j<nD; j++) cnt[j] = j;
  qsort(cnt, (size_t)nD, sizeof(int64_t), textCmp);
  for(j=0; j<nD; j++) slot[cnt[j]] = j;
  /* counting sort by place, NULLs first */
  memset(cnt, 0, 8*(size_t)(nD + 2));
  for(i=0; i<n; i++) cnt[place[i]<0 ? 0 : 1 + slot[place[i]]]++;
  {
    int64_t tot = 0;
    for(j=0; j<nD + 1; j++){ int64_t c = cnt[j]; cnt[j] = tot; tot += c; }
  }
  for(i=0; i<n; i++) ord[cnt[place[i]<0 ? 0 : 1 + slot[place[i]]]++] = i;
  ga_free(slot); ga_free(first); ga_free(place); ga_free(cnt);
  return SQLITE_OK;
}

/* The indexes of v[0..n) in the values' order by collation coll into ord
** (equal values adjacent): where every value is an INTEGER or NULL, the
** NULLs then the integers by a radix sort of their values; every one TEXT
** or NULL by BINARY, rankText; else qsort (TPC-H Q3's key of 727,000 ids
** at SF 1: qsort's comparisons took 1.3 s of its compiling). Integers
** already ascending are not sorted (a pass that checks).
** SQLITE_OK or SQLITE_NOMEM. */
static int rankOrder(const qval *v, int64_t n, int coll, int64_t *ord){
  uint64_t *key, *key2;
  int64_t *ord2, i, nNull = 0, cnt[256];
  int pass;
  if( coll==C_BINARY ){
    for(i=0; i<n && (v[i].t==SQLITE_TEXT || v[i].t==SQLITE_NULL); i++){}
    if( i==n ) return rankText(v, n, ord);
  }
  for(i=0; i<n && (v[i].t==SQLITE_INTEGER || v[i].t==SQLITE_NULL); i++){}
  if( i<n ){
    for(i=0; i<n; i++) ord[i] = i;
    gRankVal = v;
    gRankColl = coll;
    qsort(ord, (size_t)n, sizeof(int64_t), rankCmp);
    return SQLITE_OK;
  }
  {
    /* integers already ascending (a key in the table's order: ids, TPC-H Q3's orderkeys): the NULLs,
    ** then the rest as they are, which is the radix sort's (stable) order */
    int64_t last = INT64_MIN, j;
    for(i=0; i<n && (v[i].t==SQLITE_NULL || v[i].v>=last); i++) if( v[i].t!=SQLITE_NULL ) last = v[i].v;
    if( i==n ){
      for(i=0; i<n; i++) if( v[i].t==SQLITE_NULL ) ord[nNull++] = i;
      for(i=0, j=nNull; i<n; i++) if( v[i].t!=SQLITE_NULL ) ord[j++] = i;
      return SQLITE_OK;
    }
  }
  key = ga_malloc64(16*(uint64_t)n);
  ord2 = ga_malloc64(8*(uint64_t)n);
  if( key==0 || ord2==0 ){
    ga_free(key);
    ga_free(ord2);
    return SQLITE_NOMEM;
  }
  key2 = key + n;
  for(i=0; i<n; i++) if( v[i].t==SQLITE_NULL ) ord[nNull++] = i;
  {
    int64_t j = 0;
    for(i=0; i<n; i++){
      if( v[i].t==SQLITE_NULL ) continue;
      key[j] = (uint64_t)v[i].v ^ ((uint64_t)1 << 63);       /* signed order as unsigned */
      ord2[j++] = i;
    }
  }
  /* LSD by bytes (a byte every key shares: no pass), the integers' order in
  ** ord2 with key, then after the NULLs in ord */
  for(pass=0; pass<8; pass++){
    int sh = 8*pass;
    int64_t j, tot = 0, m = n - nNull;
    memset(cnt, 0, sizeof(cnt));
    for(j=0; j<m; j++) cnt[(key[j] >> sh) & 0xff]++;
    if( m==0 || cnt[(key[0] >> sh) & 0xff]==m ) continue;
    for(j=0; j<256; j++){ int64_t c = cnt[j]; cnt[j] = tot; tot += c; }
    for(j=0; j<m; j++){
      int64_t at = cnt[(key[j] >> sh) & 0xff]++;
      key2[at] = key[j];
      ord[nNull + at] = ord2[j];
    }
    memcpy(key, key2, 8*(size_t)m);
    memcpy(ord2, ord + nNull, 8*(size_t)m);
  }
  memcpy(ord + nNull, ord2, 8*(size_t)(n - nNull));
  ga_free(key);
  ga_free(ord2);
  return SQLITE_OK;
}

/* Key kk's values: over column col's dictionary then NULL (jk < 0), or
** over joined table jk's rows: its expression's, or, where probe is set,
** the integer of the row's key by the probed equality (6: the scanned
** row's probe side, which meets that row alone), into *paOut
** (ga_free it), *pn values. */
static int keyValues(Comp *c, int kk, int col, int jk, int probe, qval **paOut, int64_t *pn){
  const qjoinrows *jr;
  int64_t i;
  qval *a;
  if( jk<0 ) return dictEval(c, c->pl->aKey[kk], col, 1, paOut, pn);
  if( !probe ) return rowEval(c, c->pl->aKey[kk], jk, 1, paOut, pn);
  jr = &c->aJr[jk];
  if( (a = ga_malloc64(sizeof(qval)*(uint64_t)(jr->n + 1)))==0 ) return SQLITE_NOMEM;
  memset(a, 0, sizeof(qval)*(size_t)(jr->n + 1));
  for(i=0; i<jr->n; i++){                   /* (a row keyed by no integer is never met) */
    a[i].t = jr->azKey[i] && keyInt(jr->azKey[i], jr->anKey[i], c->aEqAt[jk], &a[i].v) ? SQLITE_INTEGER : SQLITE_NULL;
  }
  *paOut = a;
  *pn = jr->n;
  return SQLITE_OK;
}

/* Keys aKk[0..nKk) (requirement 3): one an expression of TEXT column col
** alone (jk < 0), or each of joined table jk's columns or its probe's side
** (aProbe[m] set; 6), as one id each distinct tuple of their values takes
** (a lookup into *pr): each key's shown value and place in GROUP BY's
** order of it by id into c->k (equal values of one key share a place). */
static int idKey(Comp *c, const int *aKk, const int *aProbe, int nKk, int col, int jk, int *pr){
  const qplan *pl = c->pl;
  qkept *k = c->k;
  qval *a[Q_MAXKEY], *shown[Q_MAXKEY];
  int64_t n = 0, i, nId = 0, nSlot = 64, *slot = 0, *aV = 0;
  unsigned char *aT = 0;
  char *buf = 0, **keyOf = 0;
  int *keyLen = 0, rc = SQLITE_OK, t, nBuf = 0, m, rowIds, apart = 0;
  memset(a, 0, sizeof(a));
  memset(shown, 0, sizeof(shown));
  for(m=0; m<nKk && rc==SQLITE_OK; m++) rc = keyValues(c, aKk[m], col, jk, aProbe[m], &a[m], &n);
  if( rc!=SQLITE_OK ) goto done;
  /* a key that is the joined table's by the equality it is indexed by, one
  ** row a key (indexBy): each row is its own id, no tuple looked up */
  for(m=0; jk>=0 && m<nKk && !(aProbe[m] && c->aEqAt2[jk]<0 && !pl->aJoin[jk].semi); m++){}
  rowIds = jk>=0 && m<nKk && n>0;
  while( nSlot<2*n ) nSlot *= 2;
  slot = ga_malloc64(8*(uint64_t)(rowIds ? n : nSlot));
  keyOf = rowIds ? 0 : ga_malloc64(sizeof(char*)*(uint64_t)(n + 1));
  keyLen = rowIds ? 0 : ga_malloc64(sizeof(int)*(uint64_t)(n + 1));
  aT = ga_malloc64((uint64_t)n + 1);
  aV = ga_malloc64(8*(uint64_t)n + 8);
  if( slot==0 || (!rowIds && (keyOf==0 || keyLen==0)) || aT==0 || aV==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  for(m=0; m<nKk; m++){                      /* (a joined table may have no row) */
    if( rowIds ){ shown[m] = a[m]; a[m] = 0; continue; }
    if( (shown[m] = ga_malloc64(sizeof(qval)*(uint64_t)(n + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
  }
  if( rowIds ){
    memset(aT, GA_QC_INT, (size_t)n);
    for(i=0; i<n; i++) aV[i] = i;
    nId = n;
  }else{
    memset(slot, 0xff, 8*(size_t)nSlot);
  }
  for(i=0; i<n && !rowIds; i++){
    int nb = 0, need = 0;
    uint64_t h;
    int64_t s;
    for(m=0; m<nKk; m++) need += a[m][i].n + 16;
    if( need>nBuf ){
      ga_free(buf);
      nBuf = 2*need + 64;
      if( (buf = ga_malloc64(nBuf))==0 ){ rc = SQLITE_NOMEM; goto done; }
    }
    for(m=0; m<nKk; m++) nb += q_key_bytes(&a[m][i], pl->aKeyColl[aKk[m]], buf + nb);
    h = q_hash(0xcbf29ce484222325ull, buf, nb);
    for(s=(int64_t)(h & (uint64_t)(nSlot - 1)); slot[s]>=0; s=(s + 1) & (nSlot - 1)){
      int64_t id = slot[s];
      if( keyLen[id]==nb && memcmp(keyOf[id], buf, (size_t)nb)==0 ) break;
    }
    if( slot[s]<0 ){
      if( (keyOf[nId] = (char*)q_keep(c->r, buf, nb))==0 ){ rc = SQLITE_NOMEM; goto done; }
      keyLen[nId] = nb;
      for(m=0; m<nKk; m++) shown[m][nId] = a[m][i];
      slot[s] = nId++;
    }else{
      for(m=0; m<nKk; m++){
        const qexpr *x = pl->aKey[aKk[m]];
        if( sameShown(&shown[m][slot[s]], &a[m][i]) || (pl->lastCounted && aKk[m]==pl->nKey - 1) ) continue;
        rc = jk<0 ? why(c, "a key whose equal values show differently (%s)", colName(c, col))
                  : why(c, "a key whose equal values show differently (%.*s)", x->end - x->at, pl->s->zSql + x->at);
        goto done;
      }
    }
    aT[i] = GA_QC_INT;
    aV[i] = slot[s];
  }
  if( nId==0 ){                              /* no row: one id, never met */
    for(m=0; m<nKk; m++){
      memset(&shown[m][0], 0, sizeof(qval));
      shown[m][0].t = SQLITE_NULL;
    }
    nId = 1;
  }
  if( (rc = addTable(c, aT, aV, n, &t))!=SQLITE_OK ) goto done;
  if( (rc = jk<0 ? emitMap(c, col, t, pr) : emitLook(c, c->aRow[jk], t, 0, 0, pr))!=SQLITE_OK ) goto done;
  /* each id's place in each key's order (slot is free again: the ids sorted);
  ** after a key with a place for each id, none (kept.c's keptGroups orders by
  ** that one alone: TPC-H Q3's o_orderdate after l_orderkey, Q10's TEXT keys
  ** after c_custkey), one place */
  for(m=0; m<nKk; m++){
    int kk = aKk[m];
    int64_t place = 0;
    if( (k->aKeyRank[kk] = ga_malloc64(8*(uint64_t)(nId + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
    if( apart ){
      memset(k->aKeyRank[kk], 0, 8*(size_t)nId);
    }else{
      if( (rc = rankOrder(shown[m], nId, pl->aKeyColl[kk], slot))!=SQLITE_OK ) goto done;
      for(i=0; i<nId; i++){
        if( i && q_cmp(&shown[m][slot[i - 1]], &shown[m][slot[i]], pl->aKeyColl[kk])!=0 ) place++;
        k->aKeyRank[kk][slot[i]] = place;
      }
      apart = place + 1==nId;
    }
    k->aKeyVal[kk] = shown[m];
    k->aKeyN[kk] = nId;
    k->aKeyPlaces[kk] = place + 1;
    shown[m] = 0;
  }
done:
  for(m=0; m<nKk; m++){
    ga_free(a[m]);
    ga_free(shown[m]);
  }
  ga_free(buf);
  ga_free(slot);
  ga_free(keyOf);
  ga_free(keyLen);
  ga_free(aT);
  ga_free(aV);
  return rc;
}

#define Q_RANGE_KEY (1<<20)        /* a range key's values, at most (rangeKey) */

/* Has the plan a count(DISTINCT) (kept.c's distProgram, whose program has
** x as one more key: a key's ids there are its ids here)? */
static int countsDistinct(const qplan *pl){
  int i;
  for(i=0; i<pl->nAgg; i++) if( Q_DEDUP(&pl->aAgg[i]) && pl->aAgg[i].fn==A_COUNT ) return 1;
  return 0;
}

/* Is key kk the scan's column of integers (or NULL) alone, beside other
** keys or a count(DISTINCT) (alone, it is a number key, whose codes are its
** values, not the ids count(DISTINCT)'s program has)? Its column then. */
static int rangeCol(Comp *c, int kk){
  const qexpr *x = c->pl->aKey[kk];
  while( x->op==E_COLLATE || x->op==E_UPLUS ) x = x->a;
  if( (c->pl->nKey<2 && !countsDistinct(c->pl)) || x->op!=E_COL || x->iCol>=Q_JCOL0 ) return -1;
  return c->aCol[x->iCol]->nInt && c->aCol[x->iCol]->nInt + c->aCol[x->iCol]->nNull==c->aCol[x->iCol]->n ? x->iCol : -1;
}

/* Key kk, integer column col (rangeCol), as ids: x - lo for its values from
** lo to hi (at most Q_RANGE_KEY of them), hi - lo + 1 for NULL; shown as
** those integers, NULL first in its order. Into a new register. */
static int rangeKey(Comp *c, int kk, int col, int *pr){
  const ga_resident *x = c->aCol[col];
  qkept *k = c->k;
  int64_t i, lo = 0, hi = 0, n = 0, span;
  int rc, rx = 0, rLo = 0, rD = 0, rSpan = 0, rNull = 0;
  for(i=0; i<x->n; i++){
    if( x->type[i]!=SQLITE_INTEGER ) continue;
    if( n++==0 || x->v[i]<lo ) lo = x->v[i];
    if( n==1 || x->v[i]>hi ) hi = x->v[i];
  }
  if( (uint64_t)hi - (uint64_t)lo>=Q_RANGE_KEY ){
    return why(c, "a key of integers spanning more than %d (%s) beside other keys or count(DISTINCT)", Q_RANGE_KEY,
               colName(c, col));
  }
  span = hi - lo + 1;
  if( (k->aKeyVal[kk] = ga_malloc64(sizeof(qval)*(uint64_t)(span + 1)))==0
   || (k->aKeyRank[kk] = ga_malloc64(8*(uint64_t)(span + 1)))==0 ) return SQLITE_NOMEM;
  memset(k->aKeyVal[kk], 0, sizeof(qval)*(size_t)(span + 1));
  for(i=0; i<span; i++){
    k->aKeyVal[kk][i].t = SQLITE_INTEGER;
    k->aKeyVal[kk][i].v = lo + i;
    k->aKeyRank[kk][i] = i + 1;
  }
  k->aKeyVal[kk][span].t = SQLITE_NULL;
  k->aKeyRank[kk][span] = 0;
  k->aKeyN[kk] = span + 1;
  k->aKeyPlaces[kk] = span + 1;
  if( (rc = node(c, c->pl->aKey[kk], &rx))!=SQLITE_OK || (rc = emitLit(c, SQLITE_INTEGER, lo, &rLo))!=SQLITE_OK
   || (rc = newReg(c, &rD))!=SQLITE_OK || (rc = emit(c, GA_Q_SUB, rD, rx, rLo, 0))!=SQLITE_OK
   || (rc = emitLit(c, SQLITE_INTEGER, span, &rSpan))!=SQLITE_OK
   || (rc = newReg(c, &rNull))!=SQLITE_OK || (rc = emit(c, GA_Q_ISNULL, rNull, rx, 0, 0))!=SQLITE_OK
   || (rc = newReg(c, pr))!=SQLITE_OK ){
    return rc;
  }
  return emit(c, GA_Q_IF, *pr, rSpan, rD, rNull);
}

/* Key kk's table for ids (requirement 3, 6): *pJk the joined table whose
** row decides it (the key an expression of its columns, or the scanned
** column the row was probed by: *pProbe), or -1 with its TEXT column in
** *pCol; 0 where it is neither. */
static int keyTable(Comp *c, int kk, int *pJk, int *pProbe, int *pCol){
  const qplan *pl = c->pl;
  const qexpr *x = pl->aKey[kk];
  int t = tabOf(x), jk;
  *pJk = -1;
  *pProbe = 0;
  *pCol = colsOf(x);
  if( t>=1 && c->aJr ){
    *pJk = t - 1;
    return 1;
  }
  for(jk=0; c->aJr && x->op==E_COL && jk<pl->nJoin; jk++){
    const qexpr *y = probeSide(&pl->aJoin[jk], c->aEqAt[jk]);
    if( !pl->aJoin[jk].semi && !pl->aJoin[jk].left && y->op==E_COL && y->iCol==x->iCol ){
      *pJk = jk;
      *pProbe = 1;
      return 1;
    }
  }
  return t==0 && *pCol>=0 && isDict(c->aCol[*pCol]);
}

static int keys(Comp *c){
  const qplan *pl = c->pl;
  ga_qprog *p = &c->k->p;
  int kk, rc, r, aJk[Q_MAXKEY], aPr[Q_MAXKEY], aCl[Q_MAXKEY], aRange[Q_MAXKEY], done = 0;
  uint64_t mul = 1;
  c->k->nKey = pl->nKey;
  p->nGroup = 2;
  for(kk=0; kk<pl->nKey; kk++){
    aRange[kk] = -1;
    if( !keyTable(c, kk, &aJk[kk], &aPr[kk], &aCl[kk]) && (aRange[kk] = rangeCol(c, kk))<0 ) break;
    if( aRange[kk]>=0 ) aJk[kk] = -1;
  }
  if( kk==pl->nKey ){
    /* one id a key, or one for the keys of one joined table; the first key's
    ** the most significant in the code (the groups' order by code then
    ** sweeps its shown values in order: kept.c's keptKeys) */
    int aDig[Q_MAXKEY], d;
    for(kk=0; kk<pl->nKey; kk++){
      int aKk[Q_MAXKEY], aProbe[Q_MAXKEY], n = 0, m;
      if( done & (1<<kk) ) continue;
      for(m=kk; m<pl->nKey; m++){
        /* (count(DISTINCT)'s x, counted, is a digit of its own: kept.c's distCode) */
        if( m>kk && (aJk[kk]<0 || aJk[m]!=aJk[kk] || (pl->lastCounted && m==pl->nKey - 1)) ) continue;
        aKk[n] = m;
        aProbe[n++] = aPr[m];
        aDig[m] = p->nKey;
        done |= 1<<m;
      }
      rc = aRange[kk]>=0 ? rangeKey(c, kk, aRange[kk], &r) : idKey(c, aKk, aProbe, n, aCl[kk], aJk[kk], &r);
      if( rc!=SQLITE_OK ) return rc;
      p->keyReg[p->nKey++] = (unsigned char)r;
    }
    for(d=p->nKey - 1; d>=0; d--){
      for(kk=0; aDig[kk]!=d; kk++){}
      p->keyMul[d] = (int64_t)mul;
      if( (uint64_t)c->k->aKeyN[kk]>((uint64_t)1 << 40)/mul ) return why(c, "more than 2^40 combinations of keys");
      mul *= (uint64_t)c->k->aKeyN[kk];
    }
    for(kk=0; kk<pl->nKey; kk++) c->k->aKeyDiv[kk] = p->keyMul[aDig[kk]];
    p->nGroup = (int64_t)mul + 1;
    if( p->nGroup>c->aCol[0]->n + 2 ) p->nGroup = c->aCol[0]->n + 2;   /* a group has a row, at least */
    return SQLITE_OK;
  }
  if( pl->nKey>1 ) return why(c, "several keys, not each an expression of one TEXT column%s nor a column of integers",
                              c->aJr ? " or of one joined table" : "");
  if( c->aJr && !intOnly(c, pl->aKey[0]) ){
    return why(c, "a key over joined rows that may be a REAL (its equal values may show differently)");
  }
  /* shown as a min() or max() row shows it: alike unless a REAL may group with an INTEGER */
  if( pl->iHit>=0 && !intOnly(c, pl->aKey[0]) ){
    return why(c, "a key shown as a min() or max() row shows it");
  }
  if( (rc = node(c, pl->aKey[0], &r))!=SQLITE_OK ) return rc;
  p->nKey = 1;
  p->keyNum = 1;
  p->keyReg[0] = (unsigned char)r;
  p->nGroup = 0;
  return SQLITE_OK;
}

static int sameText(const qplan *pl, const qexpr *a, const qexpr *b){
  return a->end - a->at==b->end - b->at && memcmp(pl->s->zSql + a->at, pl->s->zSql + b->at, (size_t)(a->end - a->at))==0;
}

/* Conjunct r ANDed into the filter (its first: iFirst, rFirst, where the
** first stage ends). */
static int andInto(Comp *c, int r, int *piFirst, int *prFirst){
  ga_qprog *p = &c->k->p;
  int a = p->filter, rc;
  if( r<0 ) return SQLITE_OK;                  /* (a LEFT JOIN's probe: none) */
  if( a<0 ){
    *piFirst = p->nIns;
    *prFirst = r;
    p->filter = r;
    return SQLITE_OK;
  }
  if( (rc = newReg(c, &p->filter))!=SQLITE_OK ) return rc;
  return emit(c, GA_Q_AND, p->filter, a, r, 0);
}

/* The joined tables e reads: bit k for joined table k. */
static unsigned joinedOf(const qexpr *e){
  unsigned m;
  int i;
  if( e==0 ) return 0;
  if( e->op==E_COL ) return tabId(e->iCol)>=1 ? 1u<<(tabId(e->iCol) - 1) : 0;
  m = joinedOf(e->a) | joinedOf(e->b);
  for(i=0; i<e->nArg; i++) m |= joinedOf(e->arg[i]);
  return m;
}

/* The side of join q's equality j that the probe computes. */
static const qexpr *probeSide(const qjoin *q, int j){
  return q->aBuildSide[j] ? q->aEq[j]->a : q->aEq[j]->b;
}

/* Join q's first equality whose probe side reads only the tables probed
** so far, from equality j0 on; -1: none. */
static int readyEq(Comp *c, const qjoin *q, int j0){
  int j;
  for(j=j0; j<q->nEq; j++) if( !(joinedOf(probeSide(q, j)) & ~c->probed) ) return j;
  return -1;
}

/* Every equality of join q reads only the tables probed so far. */
static int allReady(Comp *c, const qjoin *q){
  int j;
  for(j=0; j<q->nEq; j++) if( joinedOf(probeSide(q, j)) & ~c->probed ) return 0;
  return 1;
}

/* The join to probe next (6): of those ready (readyEq; a LEFT JOIN's
** every equality: they decide its match), the one whose
** build kept the least part of its table's rows (as join.c's 2a orders
** them), so that the first stage drops the most rows; a LEFT JOIN or NOT
** EXISTS after the others ready (neither drops rows by that share); one
** that probe() declines as soon as it comes. */
static int nextProbe(Comp *c){
  const qplan *pl = c->pl;
  int k, j, best = -1;
  double fBest = 1e300;                    /* (any ready one: an estimate may be stale) */
  for(k=0; k<pl->nJoin; k++){
    const qjoin *q = &pl->aJoin[k];
    double f;
    if( c->probed & (1u<<k) ) continue;
    if( q->nEq==0 || (q->semi && q->nEq!=1) ) return k;
    if( q->left ? !allReady(c, q) : readyEq(c, q, 0)<0 ) continue;
    for(j=0; j<q->nOn && !q->left; j++) if( joinedOf(q->aOn[j]) & ~(c->probed | 1u<<k) ) break;
    if( j<q->nOn && !q->left ) continue;   /* (a subquery's conditions: after the tables they read) */
    f = q->nEst>0 ? (double)c->aJr[k].n/(double)q->nEst : 1.0;
    if( q->left || q->semi==Q_ANTI ) f = 1e299;      /* (what it keeps is not its build's share) */
    if( f<fBest ){ fBest = f; best = k; }
  }
  for(k=0; best<0 && k<pl->nJoin; k++) if( !(c->probed & (1u<<k)) ) best = k;
  return best;
}

/* Equality j's part of a joined row's key z (n bytes: the equalities'
** q_key_bytes one after another, join.c's 1): 1 with its integer in *pv
** where it is one, else 0. */
static int keyInt(const char *z, int n, int j, int64_t *pv){
  int at = 0, m;
  for(;; j--){
    if( at>=n ) return 0;
    if( z[at]==0 ) m = 1;
    else if( z[at]==1 || z[at]==2 ) m = 9;
    else{
      memcpy(&m, z + at + 1, 4);
      m += 5;
    }
    if( j==0 ) break;
    at += m;
  }
  if( z[at]!=1 || at + 9>n ) return 0;
  memcpy(pv, z + at + 1, 8);
  return 1;
}

/* Build row i's key by equality j (6), or, where j2 >= 0, by the pair of
** j and j2 (6b): (its j integer - aPair[0]) * aPair[2] + its j2 integer -
** aPair[1]. 0 where it has none: NULL, or not integers. */
static int rowKey(const qjoinrows *jr, int64_t i, int j, int j2, const int64_t *aPair, int64_t *pv){
  int64_t v2;
  if( jr->azKey[i]==0 || !keyInt(jr->azKey[i], jr->anKey[i], j, pv) ) return 0;
  if( j2<0 ) return 1;
  if( !keyInt(jr->azKey[i], jr->anKey[i], j2, &v2) ) return 0;
  *pv = (int64_t)(((uint64_t)*pv - (uint64_t)aPair[0])*(uint64_t)aPair[2] + ((uint64_t)v2 - (uint64_t)aPair[1]));
  return 1;
}

/* Joined table jk's pair of equalities j and j2 as one code (6b): into
** aPair the least integers of each (0, 1) and the second's span (2);
** QE_BAIL where they are not integers, or their spans' product passes
** 2^62 (a code then fits an int64). */
static int pairOf(Comp *c, int jk, int j, int j2, int64_t *aPair){
  const qjoin *q = &c->pl->aJoin[jk];
  const qjoinrows *jr = &c->aJr[jk];
  int64_t i, v, v2, lo = 0, hi = 0, lo2 = 0, hi2 = 0, n = 0;
  for(i=0; i<jr->n; i++){
    if( jr->azKey[i]==0 ) continue;
    if( !keyInt(jr->azKey[i], jr->anKey[i], j, &v) || !keyInt(jr->azKey[i], jr->anKey[i], j2, &v2) ){
      return why(c, "a joined table whose keys are not all integers (%s)", q->zQual);
    }
    if( n++==0 ){ lo = hi = v; lo2 = hi2 = v2; }
    if( v<lo ) lo = v;
    if( v>hi ) hi = v;
    if( v2<lo2 ) lo2 = v2;
    if( v2>hi2 ) hi2 = v2;
  }
  if( ((__int128)hi - lo + 1)*((__int128)hi2 - lo2 + 1)>((__int128)1<<62) ){
    return why(c, "a joined table whose two keys together span more than 2^62 (%s)", q->zQual);
  }
  aPair[0] = lo;
  aPair[1] = lo2;
  aPair[2] = hi2 - lo2 + 1;
  return SQLITE_OK;
}

/* Do n entries, one for each key from the least to the greatest, spread too
** wide for a direct table of nRow rows' keys (an open-addressing one then)?
** Yes past 16 entries a row (and 65,536) or past 2^28 entries (2.25 GiB;
** the table counts against the column cache's budget, kept.c). TPC-H's
** orders at SF 30: 180M keys, 45M rows, 22M of them in Q3. */
static int spreadWide(int64_t n, int64_t nRow){
  return n<=0 || n>((int64_t)1<<28) || n>16*nRow + 65536;
}

/* An open-addressing table (qprog.h, 2b) for nKey keys: slots a power of two,
** at least twice the keys; its hash's shift and slot mask, and its entries. */
static int64_t hashShape(int64_t nKey, int *pShift, int64_t *pMask){
  int shift;
  for(shift=63; ((int64_t)1<<(64 - shift))<2*nKey; shift--){}
  *pShift = shift;
  *pMask = ((int64_t)1<<(64 - shift)) - 1;
  return 2*(*pMask + 1);
}

/* Key v's slot in that table: its own, or the empty one its search ends at;
** -1 once the searches have stepped more than nMax times in all (*pnStep:
** keys made to meet, a build of n^2 steps and long searches). */
static int64_t hashSlot(const unsigned char *aT, const int64_t *aV, int64_t mask, int shift, int64_t v,
                        int64_t *pnStep, int64_t nMax){
  uint64_t h = ga_q_hash(v, shift);
  while( aT[2*h]!=SQLITE_NULL && aV[2*h]!=v ){
    if( ++*pnStep>nMax ) return -1;
    h = (h + 1) & (uint64_t)mask;
  }
  return (int64_t)h;
}

static int i64Cmp(const void *a, const void *b){
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x>y) - (x<y);
}

/* x IN (constants: a list's, a subquery's values), x a number never REAL
** (7): its INTEGER items as the comparison's affinity makes them (a REAL
** one that is an integer equals it; TEXT and BLOB none), in a table whose
** entry is 1 (direct, else open-addressing: indexBy's shapes); a miss is
** 0, or NULL where an item is NULL, and a NULL x NULL (eval.c's evalIn). */
static int inNode(Comp *c, qexpr *e, int *pr){
  int64_t n = e->nArg + e->nIn, m = 0, i, *aK, *aV = 0, mask = 0, nStep = 0, span = 1;
  unsigned char *aT = 0;
  int k, rc, ra, rx, hasNull = e->hasNull, shift = 0, hashed = 0, t, rFound = 0, rIs = 0, rN = 0, rMiss = 0, rElse = 0;
  for(k=0; k<e->nArg; k++){
    if( e->arg[k]->op!=E_LIT ) return why(c, "IN of a list that is not constant");
  }
  if( e->cmpAff==GA_AFF_TEXT ) return why(c, "numbers compared as TEXT");
  if( (rc = node(c, e->a, &ra))!=SQLITE_OK ) return rc;
  rx = ra;
  if( (aK = ga_malloc64(8*(uint64_t)(n + 1)))==0 ) return SQLITE_NOMEM;
  for(i=0; i<n && rc==SQLITE_OK; i++){
    qval x;
    if( i<e->nArg ){ x.t = e->arg[i]->t; x.v = e->arg[i]->i; x.z = e->arg[i]->z; x.n = e->arg[i]->n; }
    else x = e->aIn[i - e->nArg];
    if( x.t==SQLITE_NULL ){ hasNull = 1; continue; }
    if( (rc = q_apply_aff(c->r, e->cmpAff, &x))!=SQLITE_OK ){
      if( rc==QE_BAIL ) rc = why(c, "%s", q_run_errmsg(c->r));
      goto done;
    }
    if( x.t==SQLITE_INTEGER ) aK[m++] = x.v;
    else if( x.t==SQLITE_FLOAT ){
      double d;
      memcpy(&d, &x.v, 8);
      if( d>=-9223372036854775808.0 && d<9223372036854775808.0 && d==(double)(int64_t)d ) aK[m++] = (int64_t)d;
      else if( c->mask[ra] & GA_QM_REAL ) rc = why(c, "IN of a REAL that is no integer, and values that may be REAL");
    }
  }
  if( rc==SQLITE_OK && (c->mask[ra] & GA_QM_REAL) ){
    /* a REAL x is looked up as the integer it equals (CAST's, where x = it), else as NULL: no item
    ** is another REAL */
    int rInt = 0, rSame = 0, rNo = 0, rKey = 0;
    if( (rc = newReg(c, &rInt))!=SQLITE_OK || (rc = emit(c, GA_Q_CASTINT, rInt, ra, 0, 0))!=SQLITE_OK
     || (rc = newReg(c, &rSame))!=SQLITE_OK || (rc = emit(c, GA_Q_EQ, rSame, ra, rInt, 0))!=SQLITE_OK
     || (rc = emitLit(c, SQLITE_NULL, 0, &rNo))!=SQLITE_OK
     || (rc = newReg(c, &rKey))!=SQLITE_OK || (rc = emit(c, GA_Q_IF, rKey, rInt, rNo, rSame))!=SQLITE_OK ){
      goto done;
    }
    rx = rKey;
  }
  if( rc ) goto done;
  qsort(aK, (size_t)m, 8, i64Cmp);
  for(i=0, k=0; i<m; i++) if( i==0 || aK[i]!=aK[k - 1] ) aK[k++] = aK[i];
  m = k;
  if( m ){
    span = (int64_t)((uint64_t)aK[m - 1] - (uint64_t)aK[0] + 1);
    if( (hashed = spreadWide(span, m))!=0 ) span = hashShape(m, &shift, &mask);
  }
  if( (aT = ga_malloc64((uint64_t)span))==0 || (aV = ga_malloc64(8*(uint64_t)span))==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  memset(aT, SQLITE_NULL, (size_t)span);
  memset(aV, 0, 8*(size_t)span);
  for(i=0; i<m; i++){
    int64_t at = aK[i] - aK[0];
    if( hashed ){
      if( (at = hashSlot(aT, aV, mask, shift, aK[i], &nStep, 32*m))<0 ){
        rc = why(c, "IN of values that crowd a hash table");
        goto done;
      }
      aT[2*at] = SQLITE_INTEGER;
      aV[2*at] = aK[i];
      at = 2*at + 1;
    }
    aT[at] = SQLITE_INTEGER;
    aV[at] = 1;
  }
  /* found ? 1 : x IS NULL ? NULL : (hasNull ? NULL : 0) */
  if( (rc = addTable(c, aT, aV, m ? span : 0, &t))!=SQLITE_OK
   || (rc = emitLook(c, rx, t, hashed ? shift : m ? aK[0] : 0, hashed, &rFound))!=SQLITE_OK
   || (rc = newReg(c, &rIs))!=SQLITE_OK || (rc = emit(c, GA_Q_ISNULL, rIs, ra, 0, 0))!=SQLITE_OK
   || (rc = emitLit(c, SQLITE_NULL, 0, &rN))!=SQLITE_OK
   || (rc = emitLit(c, hasNull ? SQLITE_NULL : SQLITE_INTEGER, 0, &rMiss))!=SQLITE_OK
   || (rc = newReg(c, &rElse))!=SQLITE_OK || (rc = emit(c, GA_Q_IF, rElse, rN, rMiss, rIs))!=SQLITE_OK
   || (rc = newReg(c, pr))!=SQLITE_OK ){
    goto done;
  }
  rc = emit(c, GA_Q_IF, *pr, rFound, rElse, rFound);
done:
  ga_free(aK);
  ga_free(aT);
  ga_free(aV);
  return rc;
}

/* A joined table's index (6), as indexBy makes it. */
typedef struct Index {
  int t;                           /* its table */
  int64_t lo;                      /* the key that reads its first entry, or the hash's shift */
  int hashed;                      /* an open-addressing table (qprog.h, 2b) */
  int64_t aPair[3];                /* by a pair of equalities (6b): their least integers, the
                                   ** second's span */
  int64_t *aGroupOf, nGroup;       /* a subquery's with a residual (6a): each row's group, -1
                                   ** none (the caller's array), and groups */
} Index;

/* A part of a joined table's rows whose keys indexBy reads: their range,
** then each row's entry in a direct index. */
typedef struct KeyPart {
  const qjoinrows *jr; int j, j2;  /* the rows, their equality (and the pair's second, or -1) */
  const int64_t *aPair;            /* ... the pair's code (6b) */
  int64_t i0, i1;                  /* this part's rows */
  int64_t lo, hi, nKeyed;          /* keyRange: the least and greatest keys, and the rows keyed */
  int notInt;                      /* ... a key not an integer met */
  unsigned char *aT; int64_t *aV;  /* keyPlace: the index's entries (every one NULL before) */
  int semi;                        /* ... a subquery's (an entry 1: some row has its key) */
  int dup;                         /* ... two rows of one key met (not a subquery's) */
  int64_t *aGroupOf;               /* keyGroupOf: each row's group (its entry's), -1 where no key */
  int64_t nMarked;                 /* keyNumber (a part of the entries, i0..i1): entries marked,
                                   ** then the first group number of the part's */
} KeyPart;

static void *keyRange(void *pArg){
  KeyPart *p = (KeyPart*)pArg;
  int64_t i, v;
  for(i=p->i0; i<p->i1; i++){
    if( p->jr->azKey[i]==0 ) continue;      /* (a NULL in the key: it matches nothing) */
    if( !rowKey(p->jr, i, p->j, p->j2, p->aPair, &v) ){
      p->notInt = 1;
      break;
    }
    if( p->nKeyed++==0 || v<p->lo ) p->lo = v;
    if( p->nKeyed==1 || v>p->hi ) p->hi = v;
  }
  return 0;
}

/* (rows of one key in two parts: the entry's class exchanged atomically,
** so that one of them sees the other's) */
static void *keyPlace(void *pArg){
  KeyPart *p = (KeyPart*)pArg;
  int64_t i, v;
  for(i=p->i0; i<p->i1; i++){
    if( !rowKey(p->jr, i, p->j, p->j2, p->aPair, &v) ) continue;
    if( __atomic_exchange_n(&p->aT[v - p->lo], (unsigned char)SQLITE_INTEGER, __ATOMIC_RELAXED)!=SQLITE_NULL
     && !p->semi ){
      p->dup = 1;
    }
    __atomic_store_n(&p->aV[v - p->lo], p->semi ? 1 : i, __ATOMIC_RELAXED);
  }
  return 0;
}

/* A subquery's with a residual (6a), in three passes over parts: each
** row's entry marked; the marked entries numbered in key order (the
** groups); each row's group read from its entry. */
static void *keyMark(void *pArg){
  KeyPart *p = (KeyPart*)pArg;
  int64_t i, v;
  for(i=p->i0; i<p->i1; i++){
    if( rowKey(p->jr, i, p->j, p->j2, p->aPair, &v) ){
      __atomic_store_n(&p->aT[v - p->lo], (unsigned char)SQLITE_INTEGER, __ATOMIC_RELAXED);
    }
  }
  return 0;
}

static void *keyCount(void *pArg){
  KeyPart *p = (KeyPart*)pArg;
  int64_t e;
  for(e=p->i0, p->nMarked=0; e<p->i1; e++) p->nMarked += p->aT[e]==SQLITE_INTEGER;
  return 0;
}

static void *keyNumber(void *pArg){
  KeyPart *p = (KeyPart*)pArg;
  int64_t e, g = p->nMarked;
  for(e=p->i0; e<p->i1; e++) if( p->aT[e]==SQLITE_INTEGER ) p->aV[e] = g++;
  return 0;
}

static void *keyGroupOf(void *pArg){
  KeyPart *p = (KeyPart*)pArg;
  int64_t i, v;
  for(i=p->i0; i<p->i1; i++){
    p->aGroupOf[i] = rowKey(p->jr, i, p->j, p->j2, p->aPair, &v) ? p->aV[v - p->lo] : -1;
  }
  return 0;
}

/* The groups of a subquery's direct index (n entries from aT, aV, the
** least key lo) into x (its aGroupOf, nGroup), numbered in key order, in
** nTh parts. */
static void groupsBy(KeyPart *a, int nTh, unsigned char *aT, int64_t *aV, int64_t n, int64_t lo, Index *x){
  const qjoinrows *jr = a[0].jr;
  int w;
  for(w=0; w<nTh; w++){ a[w].aT = aT; a[w].aV = aV; a[w].lo = lo; a[w].aGroupOf = x->aGroupOf; }
  q_fan(nTh, keyMark, a, sizeof(a[0]));
  for(w=0; w<nTh; w++){ a[w].i0 = n*w/nTh; a[w].i1 = n*(w + 1)/nTh; }      /* (the entries) */
  q_fan(nTh, keyCount, a, sizeof(a[0]));
  for(w=0, x->nGroup=0; w<nTh; w++){
    int64_t m = a[w].nMarked;
    a[w].nMarked = x->nGroup;
    x->nGroup += m;
  }
  q_fan(nTh, keyNumber, a, sizeof(a[0]));
  for(w=0; w<nTh; w++){ a[w].i0 = jr->n*w/nTh; a[w].i1 = jr->n*(w + 1)/nTh; }   /* (the rows again) */
  q_fan(nTh, keyGroupOf, a, sizeof(a[0]));
}

/* Joined table jk's index by its equality j (6), or by the pair j and j2
** where j2 >= 0 (6b: the code rowKey makes by x->aPair): each row's place
** at its key - x->lo in the n entries of table x->t (a subquery's: 1
** where a row has the key, rows of one key alike; where x->aGroupOf is
** given, the key's group, numbered from 0 in x->nGroup, and each row's
** group in aGroupOf), or, where the keys span more than that allows, at
** its key in an open-addressing table (x->hashed set, x->lo the hash's
** shift: qprog.h, 2b); QE_BAIL where the keys are not integers, or, but
** for a subquery's, each of one row. */
static int indexBy(Comp *c, int jk, int j, int j2, Index *x){
  const qjoin *q = &c->pl->aJoin[jk];
  const qjoinrows *jr = &c->aJr[jk];
  unsigned char *aT;
  int64_t *aV, i, n, v, lo = 0, hi = 0, nKeyed = 0, mask = 0, nStep = 0;
  int rc, shift = 64, w, nTh = compParts(c, jr->n, INDEX_PAR_MIN), dup = 0;
  KeyPart a[GA_THREADS_MAX];
  for(w=0; w<nTh; w++){
    memset(&a[w], 0, sizeof(a[w]));
    a[w].jr = jr; a[w].j = j; a[w].j2 = j2; a[w].aPair = x->aPair;
    a[w].i0 = jr->n*w/nTh; a[w].i1 = jr->n*(w + 1)/nTh;
  }
  q_fan(nTh, keyRange, a, sizeof(a[0]));
  for(w=0; w<nTh; w++){
    if( a[w].notInt ) return why(c, "a joined table whose keys are not all integers (%s)", q->zQual);
    if( a[w].nKeyed==0 ) continue;
    if( nKeyed==0 || a[w].lo<lo ) lo = a[w].lo;
    if( nKeyed==0 || a[w].hi>hi ) hi = a[w].hi;
    nKeyed += a[w].nKeyed;
  }
  n = nKeyed ? (int64_t)((uint64_t)hi - (uint64_t)lo + 1) : 1;
  x->hashed = nKeyed && spreadWide(n, jr->n>q->nEst ? jr->n : q->nEst);
  if( x->hashed ){
    if( nKeyed>((int64_t)1<<24) ) return why(c, "a joined table of more than 2^24 keys spread wide (%s)", q->zQual);
    n = hashShape(nKeyed, &shift, &mask);
  }
  if( (rc = tableRoom(c, n, &aT, &aV))!=SQLITE_OK ) return rc;   /* (made in place) */
  clearEntries(c, aT, aV, n);
  if( !x->hashed && !x->aGroupOf ){         /* each row's own entry: in parts */
    for(w=0; w<nTh; w++){
      a[w].aT = aT; a[w].aV = aV; a[w].lo = lo; a[w].semi = q->semi!=0;
    }
    q_fan(nTh, keyPlace, a, sizeof(a[0]));
    for(w=0; w<nTh; w++) dup |= a[w].dup;
    if( dup ) rc = why(c, "a joined table with rows of the same key (%s)", q->zQual);
    if( rc==SQLITE_OK ) tableAdd(c, n, &x->t);
    x->lo = lo;
    return rc;
  }
  if( !x->hashed ){                         /* a subquery's groups: in parts */
    assert( q->semi );
    groupsBy(a, nTh, aT, aV, n, lo, x);
    tableAdd(c, n, &x->t);
    x->lo = lo;
    return SQLITE_OK;
  }
  if( x->aGroupOf ) for(i=0; i<jr->n; i++) x->aGroupOf[i] = -1;
  for(i=0, rc=SQLITE_OK; i<jr->n && rc==SQLITE_OK; i++){
    int64_t at;
    if( !rowKey(jr, i, j, j2, x->aPair, &v) ) continue;
    if( x->hashed ){
      int64_t h = hashSlot(aT, aV, mask, shift, v, &nStep, 32*nKeyed);
      if( h<0 ){
        rc = why(c, "a joined table whose keys crowd its hash table (%s)", q->zQual);
        break;
      }
      aT[2*h] = SQLITE_INTEGER;
      aV[2*h] = v;
      at = 2*(int64_t)h + 1;
    }else{
      at = v - lo;
    }
    if( aT[at]!=SQLITE_NULL && !q->semi ) rc = why(c, "a joined table with rows of the same key (%s)", q->zQual);
    if( x->aGroupOf ){                       /* (its key's rows: one group) */
      if( aT[at]==SQLITE_NULL ) aV[at] = x->nGroup++;
      x->aGroupOf[i] = aV[at];
    }else{
      aV[at] = q->semi ? 1 : i;
    }
    aT[at] = SQLITE_INTEGER;
  }
  if( rc==SQLITE_OK ) tableAdd(c, n, &x->t);
  x->lo = x->hashed ? shift : lo;
  return rc;
}

/* Joined table jk indexed by equality j, or the pair j and j2 (j2 >= 0),
** into *x (indexBy), where it may be; which into c->aEqAt, aEqAt2. Where
** it may not, the reason the first try gave stays. */
static int tryIndex(Comp *c, int jk, int j, int j2, Index *x){
  char *zNot = c->zWhy;
  int rc;
  c->zWhy = 0;
  x->nGroup = 0;
  rc = j2>=0 ? pairOf(c, jk, j, j2, x->aPair) : SQLITE_OK;
  if( rc==SQLITE_OK ) rc = indexBy(c, jk, j, j2, x);
  if( rc==QE_BAIL && zNot ){
    ga_free(c->zWhy);
    c->zWhy = zNot;
  }else{
    ga_free(zNot);
  }
  c->aEqAt[jk] = j;
  c->aEqAt2[jk] = j2;
  return rc;
}

/* LEFT JOIN jk's row (6): the one its index found where its other
** equalities are true too, else its row of NULLs (place n of its tables:
** rowEval); no conjunct (*pr -1: a row without a match stays). */
static int leftRow(Comp *c, int jk, int *pr){
  const qjoin *q = &c->pl->aJoin[jk];
  int rc, j, r = 0, rHas = 0, rAnd = 0, rN = 0, rRow = 0;
  *pr = -1;
  if( (rc = newReg(c, &rHas))!=SQLITE_OK || (rc = emit(c, GA_Q_NOTNULL, rHas, c->aRow[jk], 0, 0))!=SQLITE_OK ) return rc;
  for(j=0; j<q->nEq; j++){
    if( j==c->aEqAt[jk] ) continue;
    if( (rc = node(c, q->aEq[j], &r))!=SQLITE_OK || (rc = newReg(c, &rAnd))!=SQLITE_OK
     || (rc = emit(c, GA_Q_AND, rAnd, rHas, r, 0))!=SQLITE_OK ) return rc;
    rHas = rAnd;
  }
  if( (rc = emitLit(c, SQLITE_INTEGER, c->aJr[jk].n, &rN))!=SQLITE_OK || (rc = newReg(c, &rRow))!=SQLITE_OK
   || (rc = emit(c, GA_Q_IF, rRow, c->aRow[jk], rN, rHas))!=SQLITE_OK ) return rc;
  c->aRow[jk] = rRow;
  return SQLITE_OK;
}

/* Subquery jk's condition beside its equality (6a), where it is one
** comparison (<>, <, <=, >, >=, not as TEXT) of an expression of jk's
** columns alone (*ppIn) with one that reads none of them (*ppOut): the
** operator as read from jk's side (E_*); 0: not that. */
static int residualOf(const qjoin *q, int jk, qexpr **ppIn, qexpr **ppOut){
  static const int aFlip[] = { [E_NE] = E_NE, [E_LT] = E_GT, [E_LE] = E_GE, [E_GT] = E_LT, [E_GE] = E_LE };
  qexpr *e = q->nOn==1 && (q->semi==Q_SEMI || q->semi==Q_ANTI) ? q->aOn[0] : 0;
  if( e==0 || (e->op!=E_NE && e->op!=E_LT && e->op!=E_LE && e->op!=E_GT && e->op!=E_GE) || e->cmpAff==GA_AFF_TEXT ){
    return 0;
  }
  if( tabOf(e->a)==jk + 1 && !(joinedOf(e->b) & (1u<<jk)) ){
    *ppIn = e->a;
    *ppOut = e->b;
    return e->op;
  }
  if( tabOf(e->b)==jk + 1 && !(joinedOf(e->a) & (1u<<jk)) ){
    *ppIn = e->b;
    *ppOut = e->a;
    return aFlip[e->op];
  }
  return 0;
}

/* The residual's test (6a) of subquery jk, whose rows aGroupOf puts in
** nGroup groups of one key, its register g the probed row's group (NULL:
** none): some row of the group meets "pIn op pOut" where the least or the
** greatest of the group's values of pIn that are not NULL (numbers) does:
** a row where none is NULL, nor pOut. Into *pr: 1 where one does, else 0
** or NULL. */
static int residualTest(Comp *c, int jk, qexpr *pIn, int op, qexpr *pOut, const int64_t *aGroupOf, int64_t nGroup,
                        int g, int *pr){
  const qjoin *q = &c->pl->aJoin[jk];
  const qjoinrows *jr = &c->aJr[jk];
  qval *a = 0;
  unsigned char *aT = 0;
  const unsigned char *colT = 0;
  const int64_t *colV = 0;
  int64_t *aV = 0, n, i, jc = pIn->op==E_COL ? (int64_t)pIn->iCol - Q_JCOL0 - q->iCol0 : -1;
  int rc, m, t[2], rExt[2], rx = 0, r1 = 0, r2 = 0;
  if( jc>=0 && jc<q->nCol ){               /* a column alone: its rows read where they are (Q21's
                                           ** lineitem: no copy of 32 bytes a row) */
    colT = jr->aT[jc];
    colV = jr->aV[jc];
    n = jr->n;
  }else if( (rc = rowEval(c, pIn, jk, 0, &a, &n))!=SQLITE_OK ){
    return rc;
  }
  /* each group's least, then greatest: two tables made in place (tableRoom), one after the other */
  if( c->k->p.nTab + 2>GA_QTAB ){
    rc = why(c, "more than %d expressions of TEXT columns", GA_QTAB);
    goto done;
  }
  if( (rc = tableRoom(c, 2*nGroup, &aT, &aV))!=SQLITE_OK ) goto done;
  clearEntries(c, aT, aV, 2*nGroup);
  for(i=0; i<n; i++){
    int yt = colT ? colT[i] : a[i].t;
    int64_t yv = colT ? colV[i] : a[i].v;
    if( aGroupOf[i]<0 || yt==SQLITE_NULL ) continue;
    if( yt==SQLITE_TEXT || yt==SQLITE_BLOB ){
      rc = why(c, "a TEXT or BLOB value of %.*s where a number is needed", pIn->end - pIn->at, c->pl->s->zSql + pIn->at);
      goto done;
    }
    for(m=0; m<2; m++){
      int64_t at = m*nGroup + aGroupOf[i];
      int cmp = aT[at]==SQLITE_NULL ? 0 : ga_num_cmp((uint64_t)yv, yt==SQLITE_INTEGER ? GA_T_INT : GA_T_REAL,
                                                     (uint64_t)aV[at], aT[at]==SQLITE_INTEGER ? GA_T_INT : GA_T_REAL);
      if( aT[at]==SQLITE_NULL || (m ? cmp>0 : cmp<0) ){
        aT[at] = (unsigned char)yt;
        aV[at] = yv;
      }
    }
  }
  for(m=0; m<2 && rc==SQLITE_OK; m++) tableAdd(c, nGroup, &t[m]);
  for(m=0; m<2 && rc==SQLITE_OK; m++) rc = emitLook(c, g, t[m], 0, 0, &rExt[m]);
  if( rc!=SQLITE_OK || (rc = node(c, pOut, &rx))!=SQLITE_OK ) goto done;
  if( op==E_NE ){                          /* some value differs: the least or the greatest */
    if( (rc = newReg(c, &r1))!=SQLITE_OK || (rc = emit(c, GA_Q_NE, r1, rExt[0], rx, 0))!=SQLITE_OK
     || (rc = newReg(c, &r2))!=SQLITE_OK || (rc = emit(c, GA_Q_NE, r2, rExt[1], rx, 0))!=SQLITE_OK
     || (rc = newReg(c, pr))!=SQLITE_OK ) goto done;
    rc = emit(c, GA_Q_OR, *pr, r1, r2, 0);
  }else if( (rc = newReg(c, pr))==SQLITE_OK ){  /* below: the least; above: the greatest */
    rc = emit(c, aOpOf[op], *pr, rExt[op==E_GT || op==E_GE], rx, 0);
  }
done:
  ga_free(a);
  return rc;
}

/* The probe side of join q's equality j into *pr, where its values are
** integers or NULL (6). */
static int probeKey(Comp *c, const qjoin *q, int j, int *pr){
  int rc = node(c, (qexpr*)probeSide(q, j), pr);
  if( rc==SQLITE_OK && (c->mask[*pr] & GA_QM_REAL) ){
    /* (an integer, after any affinity, meets the keys as join.c's 1a says; an integral REAL would too) */
    rc = why(c, "a join whose key (%s) may be a REAL", q->zQual);
  }
  return rc;
}

/* A pair's code (6b) of the probe's keys r and r2 into *pr: (r - lo) *
** span + r2 - lo2 where r2 is in the build's span, else NULL. An overflow
** makes a REAL, which meets no key: it comes only of a value outside the
** keys' spans. */
static int pairCode(Comp *c, int r, int r2, const int64_t *aPair, int *pr){
  int rc, rLo = 0, rLo2 = 0, rSpan = 0, rZero = 0, rNull = 0, d = 0, d2 = 0, m = 0, x = 0, ge = 0, lt = 0, in = 0;
  if( (rc = emitLit(c, SQLITE_INTEGER, aPair[0], &rLo))!=SQLITE_OK
   || (rc = emitLit(c, SQLITE_INTEGER, aPair[1], &rLo2))!=SQLITE_OK
   || (rc = emitLit(c, SQLITE_INTEGER, aPair[2], &rSpan))!=SQLITE_OK
   || (rc = emitLit(c, SQLITE_INTEGER, 0, &rZero))!=SQLITE_OK
   || (rc = emitLit(c, SQLITE_NULL, 0, &rNull))!=SQLITE_OK
   || (rc = newReg(c, &d))!=SQLITE_OK || (rc = emit(c, GA_Q_SUB, d, r, rLo, 0))!=SQLITE_OK
   || (rc = newReg(c, &d2))!=SQLITE_OK || (rc = emit(c, GA_Q_SUB, d2, r2, rLo2, 0))!=SQLITE_OK
   || (rc = newReg(c, &ge))!=SQLITE_OK || (rc = emit(c, GA_Q_GE, ge, d2, rZero, 0))!=SQLITE_OK
   || (rc = newReg(c, &lt))!=SQLITE_OK || (rc = emit(c, GA_Q_LT, lt, d2, rSpan, 0))!=SQLITE_OK
   || (rc = newReg(c, &in))!=SQLITE_OK || (rc = emit(c, GA_Q_AND, in, ge, lt, 0))!=SQLITE_OK
   || (rc = newReg(c, &m))!=SQLITE_OK || (rc = emit(c, GA_Q_MUL, m, d, rSpan, 0))!=SQLITE_OK
   || (rc = newReg(c, &x))!=SQLITE_OK || (rc = emit(c, GA_Q_ADD, x, m, d2, 0))!=SQLITE_OK
   || (rc = newReg(c, pr))!=SQLITE_OK ) return rc;
  return emit(c, GA_Q_IF, *pr, x, rNull, in);
}

/* Joined table jk's probe (6): by the first of its ready equalities whose
** keys index it (the others are conjuncts after every probe), its row
** into c->aRow[jk], and a conjunct that it has one into *pr; a subquery's
** (one equality): that it has one (EXISTS, IN), or has none (NOT EXISTS:
** a NULL key too, which meets no row). */
static int probe(Comp *c, int jk, int *pr){
  const qjoin *q = &c->pl->aJoin[jk];
  const qjoinrows *jr = &c->aJr[jk];
  qexpr *pIn = 0, *pOut = 0;
  Index x;
  int rc = QE_BAIL, rk = 0, j, j2, onOp = 0;
  if( q->nEq==0 ) return why(c, "a join by no equality (%s)", q->zQual);
  if( q->left && !allReady(c, q) ) return why(c, "a LEFT JOIN whose keys (%s) read a table not probed before it", q->zQual);
  if( q->semi && q->nEq!=1 ) return why(c, "a subquery's join by %d equalities (%s)", q->nEq, q->zQual);
  if( q->semi==Q_COUNT ) return why(c, "a correlated count(*) (%s)", q->zQual);
  if( q->nOn && (onOp = residualOf(q, jk, &pIn, &pOut))==0 ){
    return why(c, "a subquery's join with conditions beside its equalities other than one comparison of its own"
                  " values with the outer row's (%s)", q->zQual);
  }
  if( readyEq(c, q, 0)<0 ) return why(c, "a join whose keys (%s) read a table not probed before it", q->zQual);
  if( pOut && (joinedOf(pOut) & ~c->probed) ){
    return why(c, "a subquery's condition (%s) that reads a table not probed before it", q->zQual);
  }
  memset(&x, 0, sizeof(x));
  if( pIn ){
    if( (x.aGroupOf = ga_malloc64(8*(uint64_t)jr->n + 8))==0 ) return SQLITE_NOMEM;   /* (indexBy sets it) */
  }
  /* by one equality, else (an inner join's) by a pair of them (6b) */
  for(j=readyEq(c, q, 0); j>=0 && rc==QE_BAIL; j=readyEq(c, q, j + 1)) rc = tryIndex(c, jk, j, -1, &x);
  for(j=readyEq(c, q, 0); j>=0 && rc==QE_BAIL && !q->semi && !q->left; j=readyEq(c, q, j + 1)){
    for(j2=readyEq(c, q, j + 1); j2>=0 && rc==QE_BAIL; j2=readyEq(c, q, j2 + 1)) rc = tryIndex(c, jk, j, j2, &x);
  }
  if( rc==SQLITE_OK && (rc = probeKey(c, q, c->aEqAt[jk], &rk))==SQLITE_OK && c->aEqAt2[jk]>=0 ){
    int rk2 = 0;
    if( (rc = probeKey(c, q, c->aEqAt2[jk], &rk2))==SQLITE_OK ) rc = pairCode(c, rk, rk2, x.aPair, &rk);
  }
  if( rc==SQLITE_OK ) rc = emitLook(c, rk, x.t, x.lo, x.hashed, &c->aRow[jk]);
  c->probed |= 1u<<jk;
  if( rc==SQLITE_OK && q->left ) return leftRow(c, jk, pr);
  if( rc==SQLITE_OK && pIn ){              /* a row stays where some row of its key meets the residual (not: anti) */
    int rTest = 0, rOne = 0;
    if( (rc = residualTest(c, jk, pIn, onOp, pOut, x.aGroupOf, x.nGroup, c->aRow[jk], &rTest))==SQLITE_OK
     && (rc = emitLit(c, SQLITE_INTEGER, 1, &rOne))==SQLITE_OK && (rc = newReg(c, pr))==SQLITE_OK ){
      rc = emit(c, q->semi==Q_ANTI ? GA_Q_ISNOT : GA_Q_IS, *pr, rTest, rOne, 0);
    }
  }else if( rc==SQLITE_OK && (rc = newReg(c, pr))==SQLITE_OK ){
    rc = emit(c, q->semi==Q_ANTI ? GA_Q_ISNULL : GA_Q_NOTNULL, *pr, c->aRow[jk], 0, 0);
  }
  ga_free(x.aGroupOf);
  return rc;
}

/* q_compile, q_compile_order (order set) or q_compile_join (aJr set). */
static int compile(qrun *run, const qplan *pl, ga_resident *const *aCol, const qjoinrows *aJr, int order, qkept *k,
                   char **pzWhy){
  Comp *c = ga_malloc64(sizeof(Comp));
  ga_qprog *p = &k->p;
  int rc = SQLITE_OK, i, j, r = -1, iFirst = 0, rFirst = 0, nConj = 0;
  memset(k, 0, sizeof(*k));
  *pzWhy = 0;
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  for(i=0; i<GA_BATCH; i++) c->nulT[i] = SQLITE_NULL;
  c->r = run;
  c->pl = pl;
  c->aCol = aCol;
  c->k = k;
  c->aJr = aJr;
  for(i=0; i<Q_MAXTAB; i++) c->aEqAt2[i] = -1;
  p->filter = -1;
  p->nCol = pl->nCol;
  if( pl->nJoin && (aJr==0 || order==1) ) rc = why(c, "a join");
  else if( order==1 && (pl->grouped || pl->nSort!=1) ) rc = why(c, "not rows ordered by one term");
  else if( order==2 && (pl->grouped || pl->nJoin==0) ) rc = why(c, "not rows of a join");
  else if( !order && !pl->grouped ) rc = why(c, "rows without aggregates");
  else if( pl->nBare ) rc = why(c, "a bare column (%s)", colName(c, pl->aBare[0]->iCol));
  else if( pl->nCol>GA_QCOL ) rc = why(c, "more than %d columns", GA_QCOL);
  /* the filter: WHERE's conjuncts (the scanned table's), the joins' probes
  ** (in nextProbe's order; the first of them first of all where it keeps
  ** at most half the rows: the device's first stage), then the conjuncts
  ** over the joined rows, ANDed */
  if( rc==SQLITE_OK && aJr && pl->nJoin>0 && pl->nConj>0 ){
    int jk = nextProbe(c);
    const qjoin *q = &pl->aJoin[jk];
    if( q->nEst>0 && 2*aJr[jk].n<=q->nEst && q->semi!=Q_ANTI && !q->left ){   /* (those drop no row it finds) */
      if( (rc = probe(c, jk, &r))==SQLITE_OK ) rc = andInto(c, r, &iFirst, &rFirst);
      nConj++;
    }
  }
  for(i=0; rc==SQLITE_OK && i<pl->nConj; i++, nConj++){
    if( (rc = node(c, pl->aConj[i], &r))==SQLITE_OK ) rc = andInto(c, r, &iFirst, &rFirst);
  }
  while( rc==SQLITE_OK && aJr && (c->probed + 1u)!=(1u<<pl->nJoin) ){
    if( (rc = probe(c, nextProbe(c), &r))==SQLITE_OK ) rc = andInto(c, r, &iFirst, &rFirst);
    nConj += r>=0;                         /* (a LEFT JOIN's probe is no conjunct) */
  }
  for(i=0; rc==SQLITE_OK && aJr && i<pl->nJoin; i++){  /* the equalities no index is by (a LEFT JOIN's: its match) */
    for(j=0; rc==SQLITE_OK && j<pl->aJoin[i].nEq && !pl->aJoin[i].left; j++){
      if( j==c->aEqAt[i] || j==c->aEqAt2[i] ) continue;
      if( (rc = node(c, pl->aJoin[i].aEq[j], &r))==SQLITE_OK ) rc = andInto(c, r, &iFirst, &rFirst);
      nConj++;
    }
  }
  for(i=0; rc==SQLITE_OK && aJr && i<pl->nPost; i++, nConj++){
    if( (rc = node(c, pl->aPost[i], &r))==SQLITE_OK ) rc = andInto(c, r, &iFirst, &rFirst);
  }
  /* the device drops the rows the first conjunct is not true for, then
  ** those the whole filter drops (more stages cost more than they save) */
  if( rc==SQLITE_OK && p->filter>=0 ){
    p->stageEnd[0] = iFirst;
    p->stageReg[0] = (unsigned char)rFirst;
    p->stageEnd[1] = p->nIns;
    p->stageReg[1] = (unsigned char)p->filter;
    p->nStage = nConj>1 ? 2 : 1;
  }
  if( order==2 ){
    /* one key for every row: the order is the scan's (qprog.h, 5: ties in scan order) */
    if( rc==SQLITE_OK && (rc = emitLit(c, SQLITE_INTEGER, 0, &r))==SQLITE_OK ){
      p->nKey = 1;
      p->keyNum = 1;
      p->keyReg[0] = (unsigned char)r;
    }
  }else if( order ){
    /* the one term, as a number key (qprog.h, 5) */
    if( rc==SQLITE_OK && (rc = node(c, pl->aSort[0], &r))==SQLITE_OK ){
      p->nKey = 1;
      p->keyNum = 1;
      p->keyReg[0] = (unsigned char)r;
    }
  }else if( rc==SQLITE_OK ){
    rc = keys(c);
  }
  /* the aggregates' folds */
  for(i=0; rc==SQLITE_OK && !order && i<pl->nAgg; i++){
    const qagg *g = &pl->aAgg[i];
    k->aFold[i] = -1;
    if( g->fn>A_MAX || (Q_DEDUP(g) && g->fn!=A_COUNT) ){
      rc = why(c, "%.*s is not computed on kept columns", g->end - g->at, pl->s->zSql + g->at);
      break;
    }
    if( aJr && ((Q_DEDUP(g) && g->fn!=A_COUNT)
                || ((g->fn==A_MIN || g->fn==A_MAX) && !intOnly(c, g->x) && !realOnly(c, g->x))) ){
      /* (which of equal values SQLite shows, or which rows it counts once, is its join order's;
      ** how many values count(DISTINCT) counts is not; equal INTEGERs show alike, and so do
      ** equal REALs but for 0: TPC-H Q2's min(ps_supplycost)) */
      rc = why(c, "%.*s over joined rows", g->end - g->at, pl->s->zSql + g->at);
      break;
    }
    if( Q_DEDUP(g) ){                        /* count(DISTINCT): a program of its own (exec.c's keptDistinct) */
      k->aFold[i] = -2;
      continue;
    }
    if( g->x==0 ) continue;
    for(j=0; j<i && (pl->aAgg[j].x==0 || Q_DEDUP(&pl->aAgg[j]) || !sameText(pl, pl->aAgg[j].x, g->x)); j++){}
    if( j<i ){
      k->aFold[i] = k->aFold[j];
      continue;
    }
    if( p->nFold>=GA_QFOLD ){
      rc = why(c, "more than %d aggregate arguments", GA_QFOLD);
      break;
    }
    if( (rc = node(c, g->x, &r))!=SQLITE_OK ) break;
    k->aFold[i] = p->nFold;
    p->foldReal[p->nFold] = (unsigned char)mayReal(c, r);
    p->foldReg[p->nFold++] = (unsigned char)r;
  }
  for(i=0; rc==SQLITE_OK && i<pl->nAgg; i++){
    if( (pl->aAgg[i].fn==A_MIN || pl->aAgg[i].fn==A_MAX) && k->aFold[i]>=0 ) p->foldExt[k->aFold[i]] = 1;
  }
  if( rc==SQLITE_OK && !order && p->nFold==0 ){
    /* count(*) alone: one fold of no values, for its rows */
    if( p->nLit>=GA_QLIT ) rc = why(c, "more than %d constants", GA_QLIT);
    else if( (rc = newReg(c, &r))==SQLITE_OK ){
      p->litT[p->nLit] = SQLITE_NULL;
      rc = emit(c, GA_Q_LIT, r, 0, 0, p->nLit++);
      p->foldReg[p->nFold++] = (unsigned char)r;
    }
  }
  if( rc==SQLITE_OK ){
    static uint64_t nTabId = 0;              /* the process's programs' tables so far */
    if( ga_q_finish(p, 1)>GA_QREG ) rc = why(c, "more than %d values a row at once", GA_QREG);
    else if( k->nTab ) p->tabId = __atomic_add_fetch(&nTabId, 1, __ATOMIC_RELAXED);
  }
  if( rc==QE_BAIL ){
    *pzWhy = c->zWhy;
    c->zWhy = 0;
  }
  ga_free(c->zWhy);
  ga_free(c);
  if( rc!=SQLITE_OK ) q_kept_free(k);
  return rc;
}

int q_compile(qrun *run, const qplan *pl, ga_resident *const *aCol, qkept *k, char **pzWhy){
  return compile(run, pl, aCol, 0, 0, k, pzWhy);
}

int q_compile_order(qrun *run, const qplan *pl, ga_resident *const *aCol, qkept *k, char **pzWhy){
  return compile(run, pl, aCol, 0, 1, k, pzWhy);
}

int q_compile_join(qrun *run, const qplan *pl, ga_resident *const *aCol, const qjoinrows *aJr, qkept *k, char **pzWhy){
  return compile(run, pl, aCol, aJr, 0, k, pzWhy);
}

int q_compile_join_rows(qrun *run, const qplan *pl, ga_resident *const *aCol, const qjoinrows *aJr, qkept *k,
                        char **pzWhy){
  return compile(run, pl, aCol, aJr, 2, k, pzWhy);
}

int64_t q_kept_bytes(const qkept *k){
  int64_t n = (int64_t)sizeof(*k) + 9*k->tabAlloc;
  int i;
  for(i=0; i<Q_MAXKEY; i++){
    if( k->aKeyVal[i] ) n += (int64_t)sizeof(qval)*k->aKeyN[i];
    if( k->aKeyRank[i] ) n += 8*k->aKeyN[i];
  }
  for(i=0; i<64; i++) if( k->apDist[i] ) n += q_kept_bytes(k->apDist[i]);
  return n;
}

void q_kept_free(qkept *k){
  int i;
  for(i=0; i<64; i++){
    if( k->apDist[i] ) q_kept_free(k->apDist[i]);
    ga_free(k->apDist[i]);
  }
  for(i=0; i<Q_MAXKEY; i++){
    ga_free(k->aKeyVal[i]);
    ga_free(k->aKeyRank[i]);
  }
  ga_free(k->tabC);
  ga_free(k->tabV);
  memset(k, 0, sizeof(*k));
}
