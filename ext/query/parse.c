/*
** gpu_query's parser: a SELECT SQLite has already prepared, into a tree
** (query.h), by SQLite's grammar and operator precedence (parse.y):
** OR < AND < NOT < (= == != <> IS IN LIKE GLOB BETWEEN ISNULL NOTNULL)
** < (< <= > >=) < (& | << >>) < (+ -) < (* / %) < (|| -> ->>) < COLLATE
** < unary (- + ~).
**
**   1. The shape the engine covers: SELECT [DISTINCT | ALL] results
**      [FROM a table or a join] [WHERE] [GROUP BY [HAVING]] [ORDER BY] [LIMIT
**      [OFFSET]]; without FROM, one row with no columns. Anything else (a
**      subquery, WITH, a window, an aggregate's FILTER) is parsed
**      no further: p->zWhy names it, and SQLite runs the statement. Lists
**      (results, terms, arguments, CASE, IN) are of any length.
**   1b. A compound: SELECT cores joined by UNION [ALL], INTERSECT, EXCEPT
**      (s, then its pNext arms, each with its op), the ORDER BY and LIMIT
**      after them the compound's (s's).
**   1c. FROM (SELECT ...) [AS name], or FROM a common table expression of
**      WITH (not RECURSIVE): the SELECT parsed into pSub (a CTE's text read
**      again at each FROM that names it, so that each has a tree of its
**      own), its column names the CTE's where listed.
**   1d. FROM a join: tables (each [schema.]name [[AS] alias]) after the
**      first joined by a comma, [INNER] JOIN, CROSS JOIN, LEFT [OUTER] JOIN
**      or NATURAL ones, each with its ON or USING (s->aJoin, in order).
**      A table after the first may be a subquery or a WITH table, parsed
**      as 1c into its qfrom's pSub. RIGHT and FULL joins are parsed no
**      further.
**   2. BETWEEN becomes x >= a AND x <= b, as SQLite codes it; NOT IN, NOT
**      LIKE, NOT BETWEEN, IS NOT NULL become NOT of the positive form;
**      CASE x WHEN a becomes CASE WHEN x = a. Those comparisons are marked
**      synth: their text is not one span (plan.c writes it from their
**      operands when SQLite computes them). Unary + is E_UPLUS (its
**      operand's value without its affinity).
**   3. Every node keeps its span of the text, so that what SQLite alone
**      computes can be handed back to it as SQL (plan.c's E_SQL).
*/
#include <string.h>
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include "query.h"

/* A common table expression (WITH). */
typedef struct QCte {
  char *zName;                     /* its name */
  char **azCol; int nCol;          /* its column names, if listed */
  int iSelect;                     /* the token after its SELECT */
} QCte;

typedef struct Parse {
  qselect *s;                      /* being filled: its arena, its reason */
  qselect *cur;                    /* the SELECT core being read (s, or a compound's arm) */
  const char *z;                   /* the SQL */
  qtok *a; int n, i;               /* tokens, how many, the next */
  int depth;                       /* expressions being read, nested */
  int *aParamNo;                   /* each parameter token's number (by token) */
  QCte aCte[16]; int nCte;         /* WITH's tables */
  int oom;
} Parse;

/* An arena block: its bytes follow it; allocations are cut from the first
** block of the list, a new one (at least BLOCK_BYTES) put first when it is
** full. Under AddressSanitizer every allocation is a block of its own, so
** that an overrun meets a redzone. */
typedef struct Block {
  struct Block *next;              /* the block after it in the list */
  size_t used, cap;                /* bytes handed out, and its room (multiples of 8) */
} Block;
#ifdef __SANITIZE_ADDRESS__
# define BLOCK_BYTES 1
#else
# define BLOCK_BYTES 4096
#endif

void *q_alloc(qselect *s, int n){
  size_t need = BLOCK_BYTES==1 ? (size_t)(n>0 ? n : 1)             /* (its own block: exact) */
                                : ((size_t)(n>0 ? n : 1) + 7) & ~(size_t)7;   /* sqlite3_malloc's alignment, 8 */
  Block *b;
  char *r;
  if( s->pRoot ) s = s->pRoot;     /* an arm's or a subquery's: the statement's arena */
  b = (Block*)s->arena;
  if( b==0 || b->cap - b->used<need || BLOCK_BYTES==1 ){
    size_t cap = need>BLOCK_BYTES ? need : BLOCK_BYTES;
    if( (b = ga_malloc64(sizeof(Block) + cap))==0 ) return 0;
    b->used = 0;
    b->cap = cap;
    b->next = (Block*)s->arena;
    s->arena = b;
  }
  r = (char*)(b + 1) + b->used;
  b->used += need;
  memset(r, 0, need);
  return r;
}

void q_select_adopt(qselect *into, qselect *from){
  Block *b = (Block*)from->arena;
  if( into->pRoot ) into = into->pRoot;
  while( b ){
    Block *n = b->next;
    b->next = (Block*)into->arena;
    into->arena = b;
    b = n;
  }
  from->arena = 0;
  from->pRoot = into;
}

void q_select_free(qselect *s){
  Block *b = (Block*)s->arena;
  while( b ){
    Block *n = b->next;
    ga_free(b);
    b = n;
  }
  ga_free(s->zWhy);
  memset(s, 0, sizeof(*s));
}

static const qtok *peek(Parse *p){ return &p->a[p->i]; }
static int is(Parse *p, const char *z){ return q_tok_is(p->z, peek(p), z); }
static int isAt(Parse *p, int k, const char *z){ return p->i + k<p->n && q_tok_is(p->z, &p->a[p->i + k], z); }
static int accept(Parse *p, const char *z){
  if( is(p, z) ){ p->i++; return 1; }
  return 0;
}

/* The engine does not cover the statement: say why (the first reason stays). */
static qexpr *why(Parse *p, const char *zFmt, ...){
  if( p->s->zWhy==0 ){
    va_list ap;
    va_start(ap, zFmt);
    p->s->zWhy = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
    if( p->s->zWhy==0 ) p->oom = 1;
  }
  return 0;
}

/* Token t's text as a name: quotes removed ("" `` inside made single). */
static char *nameOf(Parse *p, const qtok *t){
  const char *z = p->z + t->at;
  int n = t->n, i, j = 0;
  char *r = q_alloc(p->s, n + 1), q = z[0];
  if( r==0 ){ p->oom = 1; return 0; }
  if( q=='"' || q=='`' || q=='[' ){
    char close = q=='[' ? ']' : q;
    for(i=1; i<n-1; i++){
      r[j++] = z[i];
      if( z[i]==close && q!='[' ) i++;
    }
  }else{
    memcpy(r, z, (size_t)n);
    j = n;
  }
  r[j] = 0;
  return r;
}

static qexpr *node(Parse *p, int op, int at){
  qexpr *e = q_alloc(p->s, sizeof(qexpr));
  if( e==0 ){ p->oom = 1; return 0; }
  e->op = op;
  e->at = at;
  e->aff = e->coll = e->cmpAff = -1;
  e->slot = -1;
  return e;
}
static qexpr *binary(Parse *p, int op, qexpr *a, qexpr *b){
  qexpr *e;
  if( a==0 || b==0 || (e = node(p, op, a->at))==0 ) return 0;
  e->a = a;
  e->b = b;
  e->end = b->end;
  return e;
}
static qexpr *unary(Parse *p, int op, qexpr *a, int at){
  qexpr *e;
  if( a==0 || (e = node(p, op, at))==0 ) return 0;
  e->a = a;
  e->end = a->end;
  return e;
}
static int endOfPrev(Parse *p){ return p->a[p->i - 1].at + p->a[p->i - 1].n; }

static qexpr *expr(Parse *p);
static int selectStmt(Parse *p, qselect *s);

/* A list being read (any length): items of sz bytes, grown as they come,
** then copied into the arena (listDone). */
typedef struct List { char *a; int n, nAlloc, sz; } List;

static int listAdd(Parse *p, List *l, const void *x){
  if( l->n==l->nAlloc ){
    int m = l->nAlloc ? 2*l->nAlloc : 16;
    char *a = ga_realloc64(l->a, (uint64_t)m*(uint64_t)l->sz);
    if( a==0 ){ p->oom = 1; return 0; }
    l->a = a;
    l->nAlloc = m;
  }
  memcpy(l->a + (size_t)l->n*(size_t)l->sz, x, (size_t)l->sz);
  l->n++;
  return 1;
}

/* l's items in the arena (NULL for none, or out of memory: p->oom); l is
** freed. */
static void *listDone(Parse *p, List *l){
  void *r = 0;
  if( l->n && (r = q_alloc(p->s, l->n*l->sz))==0 ) p->oom = 1;
  if( r ) memcpy(r, l->a, (size_t)l->n*(size_t)l->sz);
  ga_free(l->a);
  l->a = 0;
  return r;
}

/* (expr, ...) after the '(' into e->arg. */
static int exprList(Parse *p, qexpr *e){
  List l = { 0, 0, 0, sizeof(qexpr*) };
  qexpr *x;
  if( !is(p, ")") ){
    do{
      if( (x = expr(p))==0 || !listAdd(p, &l, &x) ){ ga_free(l.a); return 0; }
    }while( accept(p, ",") );
  }
  if( !accept(p, ")") ){ ga_free(l.a); why(p, "an expression the engine does not parse"); return 0; }
  e->nArg = l.n;
  e->arg = listDone(p, &l);
  return !p->oom;
}

/* The aggregates the engine computes, and their arguments. */
static const struct { const char *z; int agg, nArg; } aAgg[] = {
  { "count", A_COUNT, 1 }, { "gpu_count", A_COUNT, 1 }, { "sum", A_SUM, 1 }, { "gpu_sum", A_SUM, 1 },
  { "total", A_TOTAL, 1 }, { "gpu_total", A_TOTAL, 1 }, { "avg", A_AVG, 1 }, { "gpu_avg", A_AVG, 1 },
  { "min", A_MIN, 1 }, { "gpu_min", A_MIN, 1 }, { "max", A_MAX, 1 }, { "gpu_max", A_MAX, 1 },
  { "gpu_var_samp", A_VARSAMP, 1 }, { "gpu_variance", A_VARSAMP, 1 }, { "gpu_var_pop", A_VARPOP, 1 },
  { "gpu_stddev_samp", A_SDSAMP, 1 }, { "gpu_stddev", A_SDSAMP, 1 }, { "gpu_stddev_pop", A_SDPOP, 1 },
  { "gpu_median", A_MEDIAN, 1 }, { "gpu_percentile", A_PCT, 2 }, { "gpu_percentile_cont", A_PCTCONT, 2 },
  { "gpu_percentile_disc", A_PCTDISC, 2 }, { "gpu_argmin", A_ARGMIN, 2 }, { "gpu_argmax", A_ARGMAX, 2 },
};

/* A function call: the name was read, '(' is next. */
static qexpr *call(Parse *p, const qtok *tName){
  qexpr *e = node(p, E_FUNC, tName->at);
  size_t k;
  if( e==0 ) return 0;
  e->zName = nameOf(p, tName);
  p->i += 2;                        /* the name and ( */
  if( accept(p, "DISTINCT") ) e->distinct = 1;
  else accept(p, "ALL");
  if( is(p, "*") && isAt(p, 1, ")") ){
    p->i += 2;
    e->agg = A_COUNTSTAR;
    e->nArg = -1;
  }else if( !exprList(p, e) ){
    return 0;
  }
  e->end = endOfPrev(p);
  if( is(p, "FILTER") || is(p, "OVER") ) return why(p, "%s(...) %s", e->zName, is(p, "OVER") ? "OVER (a window function)" : "FILTER");
  for(k=0; k<sizeof(aAgg)/sizeof(aAgg[0]); k++){
    if( sqlite3_stricmp(e->zName, aAgg[k].z)==0 ) break;
  }
  if( e->nArg<0 ){
    if( k>=sizeof(aAgg)/sizeof(aAgg[0]) || aAgg[k].agg!=A_COUNT ) return why(p, "%s(*)", e->zName);
    e->nArg = 0;
    e->op = E_AGG;
    return e;
  }
  /* min and max of several arguments are scalar functions. */
  if( k<sizeof(aAgg)/sizeof(aAgg[0]) && (e->nArg==aAgg[k].nArg || (e->nArg==0 && aAgg[k].agg==A_COUNT)) ){
    e->op = E_AGG;
    e->agg = e->nArg==0 ? A_COUNTSTAR : aAgg[k].agg;
    e->a = e->nArg ? e->arg[0] : 0;
    e->b = e->nArg>1 ? e->arg[1] : 0;
    e->arg = 0;
    e->nArg = 0;
    return e;
  }
  if( e->distinct ) return why(p, "DISTINCT in %s(...)", e->zName);
  return e;
}

/* A scalar subquery or EXISTS, its '(' read (the node's text from at):
** E_SUBQ, its text SQLite's to compute (plan.c folds it as a constant; one
** that refers to the outer query's columns is not covered). */
static qexpr *subquery(Parse *p, int at){
  qexpr *e;
  int depth = 1;
  for(; depth>0 && peek(p)->type!=T_EOF; p->i++){
    if( peek(p)->type==T_PARAM ) return why(p, "a subquery with parameters");
    if( peek(p)->type==T_ID && p->nCte ){
      /* computed alone, after the WITH clause (plan.c), which is not put there where it has parameters */
      char *zName = nameOf(p, peek(p));
      int k;
      for(k=0; zName && k<p->nCte && p->s->nWith==0; k++){
        if( sqlite3_stricmp(zName, p->aCte[k].zName)==0 ) return why(p, "a subquery that reads a WITH table with parameters");
      }
    }
    if( is(p, "(") ) depth++;
    else if( is(p, ")") ) depth--;
  }
  if( depth ) return why(p, "a subquery the engine does not parse");
  if( (e = node(p, E_SUBQ, at))==0 ) return 0;
  e->end = endOfPrev(p);
  return e;
}

static qexpr *primary(Parse *p){
  const qtok *t = peek(p);
  qexpr *e;
  switch( t->type ){
    case T_INT: case T_FLOAT: case T_STRING: case T_BLOB:
      if( (e = node(p, E_LIT, t->at))==0 ) return 0;
      p->i++;
      e->end = t->at + t->n;
      return e;                     /* its value: plan.c asks SQLite */
    case T_PARAM: {
      const char *z = p->z + t->at;
      if( (e = node(p, E_PARAM, t->at))==0 ) return 0;
      p->i++;
      e->end = t->at + t->n;
      e->z = nameOf(p, t);          /* its token (the span may grow to parentheses) */
      if( z[0]!='?' ) e->zName = nameOf(p, t);
      e->iParam = p->aParamNo[p->i - 1];
      return e;
    }
    case T_ID: break;
    default:
      if( q_tok_is(p->z, t, "(") ){
        p->i++;
        if( is(p, "SELECT") || is(p, "VALUES") || is(p, "WITH") ) return subquery(p, t->at);
        if( (e = expr(p))==0 ) return 0;
        if( accept(p, ",") ) return why(p, "a row value");
        if( !accept(p, ")") ) return why(p, "an expression the engine does not parse");
        e->at = t->at;              /* the parentheses are part of its text */
        e->end = endOfPrev(p);
        return e;
      }
      return why(p, "the token %.*s", t->n, p->z + t->at);
  }
  if( q_tok_is(p->z, t, "CASE") ){
    qexpr *base = 0, *x;
    List l = { 0, 0, 0, sizeof(qexpr*) };
    int nElse = 0;
    p->i++;
    if( !is(p, "WHEN") && (base = expr(p))==0 ) return 0;
    while( accept(p, "WHEN") ){
      qexpr *w = expr(p), *th;
      if( w && base && (w = binary(p, E_EQ, base, w))!=0 ) w->synth = 1;
      if( w==0 ) goto case_fail;
      if( !accept(p, "THEN") || (th = expr(p))==0 ){ why(p, "a CASE the engine does not parse"); goto case_fail; }
      if( !listAdd(p, &l, &w) || !listAdd(p, &l, &th) ) goto case_fail;
    }
    if( accept(p, "ELSE") ){
      if( (x = expr(p))==0 || !listAdd(p, &l, &x) ) goto case_fail;
      nElse = 1;
    }
    if( !accept(p, "END") || l.n<2 ){ why(p, "a CASE the engine does not parse"); goto case_fail; }
    if( (e = node(p, E_CASE, t->at))==0 ) goto case_fail;
    e->nElse = nElse;
    e->nArg = l.n;
    e->arg = listDone(p, &l);
    e->end = endOfPrev(p);
    return p->oom ? 0 : e;
  case_fail:
    ga_free(l.a);
    return 0;
  }
  if( q_tok_is(p->z, t, "CAST") && isAt(p, 1, "(") ){
    int at;
    p->i += 2;
    if( (e = node(p, E_CAST, t->at))==0 || (e->a = expr(p))==0 ) return 0;
    if( !accept(p, "AS") ) return why(p, "a CAST the engine does not parse");
    at = p->i;
    while( peek(p)->type==T_ID || (peek(p)->type==T_PUNCT && !is(p, ")")) || peek(p)->type==T_INT ) p->i++;
    if( !is(p, ")") ) return why(p, "a CAST the engine does not parse");
    {
      int from = p->a[at].at, to = p->i>at ? endOfPrev(p) : from;
      if( (e->zName = q_alloc(p->s, to - from + 1))==0 ){ p->oom = 1; return 0; }
      memcpy(e->zName, p->z + from, (size_t)(to - from));
    }
    p->i++;
    e->end = endOfPrev(p);
    return e;
  }
  if( q_tok_is(p->z, t, "EXISTS") && isAt(p, 1, "(") ){
    p->i += 2;
    return subquery(p, t->at);
  }
  if( q_tok_is(p->z, t, "EXISTS") || q_tok_is(p->z, t, "RAISE") ) return why(p, "%.*s", t->n, p->z + t->at);
  if( q_tok_is(p->z, t, "NULL") || q_tok_is(p->z, t, "CURRENT_TIME") || q_tok_is(p->z, t, "CURRENT_DATE")
   || q_tok_is(p->z, t, "CURRENT_TIMESTAMP") ){
    if( (e = node(p, E_LIT, t->at))==0 ) return 0;
    p->i++;
    e->end = t->at + t->n;
    return e;
  }
  if( isAt(p, 1, "(") ) return call(p, t);
  /* A column: [[schema.]table.]name. TRUE and FALSE are 1 and 0 unless a
  ** column is so named (plan.c decides). */
  if( (e = node(p, E_COL, t->at))==0 ) return 0;
  e->zName = nameOf(p, t);
  e->quoted = p->z[t->at]=='"';
  p->i++;
  if( is(p, ".") ){
    p->i++;
    if( peek(p)->type!=T_ID ) return why(p, "a column name the engine does not parse");
    e->zQual = e->zName;
    e->zName = nameOf(p, peek(p));
    p->i++;
    if( is(p, ".") ) return why(p, "a schema-qualified column");
  }
  e->end = endOfPrev(p);
  return e;
}

static qexpr *unaryExpr(Parse *p){
  const qtok *t = peek(p);
  if( p->depth>Q_MAXDEPTH ) return why(p, "an expression nested more than %d deep", Q_MAXDEPTH);
  if( is(p, "-") || is(p, "+") || is(p, "~") ){
    int op = is(p, "-") ? E_SUB : is(p, "+") ? E_UPLUS : E_OTHER;
    qexpr *a, *e;
    p->i++;
    p->depth++;
    a = unaryExpr(p);
    p->depth--;
    if( a==0 ) return 0;
    if( op==E_UPLUS ) return unary(p, E_UPLUS, a, t->at);
    if( op==E_SUB && a->op==E_LIT && a->t==0 ){
      /* -5, -(0.5): SQLite folds the sign into the literal (its value is
      ** asked of SQLite with the sign: -9223372036854775808 is an INTEGER) */
      const char *z = p->z + a->at;
      while( *z=='(' ) z++;
      if( (*z>='0' && *z<='9') || *z=='.' ){
        a->at = t->at;
        return a;
      }
    }
    /* -x is 0 - x, as SQLite codes it (a literal's sign is folded: plan.c). */
    if( (e = node(p, op, t->at))==0 ) return 0;
    e->end = a->end;
    if( op==E_OTHER ){
      e->a = a;
      e->zName = "~";
      return e;
    }
    if( (e->a = node(p, E_LIT, t->at))==0 ) return 0;
    e->a->t = SQLITE_INTEGER;       /* known: 0 */
    e->a->end = t->at;
    e->b = a;
    return e;
  }
  return primary(p);
}

static qexpr *collateExpr(Parse *p){
  qexpr *e = unaryExpr(p);
  while( e && accept(p, "COLLATE") ){
    qexpr *c;
    if( peek(p)->type!=T_ID && peek(p)->type!=T_STRING ) return why(p, "a COLLATE the engine does not parse");
    if( (c = unary(p, E_COLLATE, e, e->at))==0 ) return 0;
    c->zName = nameOf(p, peek(p));
    if( c->zName && c->zName[0]=='\'' ){
      /* COLLATE 'nocase': the string's text */
      int n = (int)strlen(c->zName);
      memmove(c->zName, c->zName + 1, (size_t)n - 2);
      c->zName[n - 2] = 0;
    }
    p->i++;
    c->end = endOfPrev(p);
    e = c;
  }
  return e;
}

/* One level of left-associative binary operators. */
typedef qexpr *(*Level)(Parse*);
static qexpr *leftAssoc(Parse *p, Level next, const char *const *azOp, const int *aOp, int nOp){
  qexpr *e = next(p);
  while( e ){
    int k;
    for(k=0; k<nOp && !is(p, azOp[k]); k++){}
    if( k==nOp ) break;
    p->i++;
    e = binary(p, aOp[k], e, next(p));
    if( e && aOp[k]==E_OTHER ) e->zName = (char*)azOp[k];
  }
  return e;
}
static qexpr *concatExpr(Parse *p){
  static const char *az[] = { "||", "->>", "->" };
  static const int a[] = { E_CONCAT, E_OTHER, E_OTHER };
  return leftAssoc(p, collateExpr, az, a, 3);
}
static qexpr *mulExpr(Parse *p){
  static const char *az[] = { "*", "/", "%" };
  static const int a[] = { E_MUL, E_DIV, E_REM };
  return leftAssoc(p, concatExpr, az, a, 3);
}
static qexpr *addExpr(Parse *p){
  static const char *az[] = { "+", "-" };
  static const int a[] = { E_ADD, E_SUB };
  return leftAssoc(p, mulExpr, az, a, 2);
}
static qexpr *bitExpr(Parse *p){
  static const char *az[] = { "&", "|", "<<", ">>" };
  static const int a[] = { E_OTHER, E_OTHER, E_OTHER, E_OTHER };
  return leftAssoc(p, addExpr, az, a, 4);
}
static qexpr *cmpExpr(Parse *p){
  static const char *az[] = { "<=", ">=", "<", ">" };
  static const int a[] = { E_LE, E_GE, E_LT, E_GT };
  return leftAssoc(p, bitExpr, az, a, 4);
}

/* Is e constant as sqlite3ExprIsConstant sees it before names are resolved
** (exprNodeIsConstant): no column (TRUE and FALSE are constants), and no
** function call (LIKE, GLOB, -> and ->> are calls)? */
static int parseConst(const qexpr *e){
  int i;
  if( e==0 ) return 1;
  switch( e->op ){
    case E_COL:
      return e->zQual==0 && !e->quoted && (sqlite3_stricmp(e->zName, "true")==0 || sqlite3_stricmp(e->zName, "false")==0);
    case E_FUNC: case E_AGG: case E_LIKE: return 0;
    case E_OTHER: if( e->zName[0]=='-' ) return 0; break;
    default: break;
  }
  for(i=0; i<e->nArg; i++) if( !parseConst(e->arg[i]) ) return 0;
  return parseConst(e->a) && parseConst(e->b);
}

static qexpr *notOf(Parse *p, qexpr *e, int neg){
  qexpr *n;
  if( !neg || e==0 ) return e;
  if( (n = unary(p, E_NOT, e, e->at))==0 ) return 0;
  return n;
}

/* = == != <> IS [NOT] IN LIKE GLOB BETWEEN ISNULL NOTNULL [NOT] NULL */
static qexpr *eqExpr(Parse *p){
  qexpr *e = cmpExpr(p);
  while( e ){
    int neg = 0, at = e->at;
    if( is(p, "=") || is(p, "==") ){ p->i++; e = binary(p, E_EQ, e, cmpExpr(p)); continue; }
    if( is(p, "!=") || is(p, "<>") ){ p->i++; e = binary(p, E_NE, e, cmpExpr(p)); continue; }
    if( accept(p, "IS") ){
      int isNot = accept(p, "NOT");
      if( accept(p, "DISTINCT") ){
        if( !accept(p, "FROM") ) return why(p, "an IS the engine does not parse");
        isNot = !isNot;
      }
      e = binary(p, isNot ? E_ISNOT : E_IS, e, cmpExpr(p));
      continue;
    }
    if( accept(p, "ISNULL") ){ e = unary(p, E_ISNULL, e, at); if( e ) e->end = endOfPrev(p); continue; }
    if( accept(p, "NOTNULL") ){ e = unary(p, E_NOTNULL, e, at); if( e ) e->end = endOfPrev(p); continue; }
    if( is(p, "NOT") && isAt(p, 1, "NULL") ){
      p->i += 2;
      e = unary(p, E_NOTNULL, e, at);
      if( e ) e->end = endOfPrev(p);
      continue;
    }
    if( is(p, "NOT") && (isAt(p, 1, "IN") || isAt(p, 1, "LIKE") || isAt(p, 1, "GLOB") || isAt(p, 1, "BETWEEN")
                         || isAt(p, 1, "REGEXP") || isAt(p, 1, "MATCH")) ){
      p->i++;
      neg = 1;
    }
    if( accept(p, "IN") ){
      qexpr *in = unary(p, E_IN, e, at);
      if( in==0 ) return 0;
      if( !is(p, "(") ) return why(p, "IN of a table");
      p->i++;
      if( is(p, "VALUES") ) return why(p, "IN (VALUES ...)");
      if( is(p, "SELECT") || is(p, "WITH") ){
        /* IN (SELECT ...): the subquery's text, planned as a constant set
        ** (plan.c, 3a) */
        if( (in->b = subquery(p, p->a[p->i - 1].at))==0 ) return 0;
        in->op = E_INSEL;
        in->end = endOfPrev(p);
        e = notOf(p, in, neg);
        continue;
      }
      if( !exprList(p, in) ) return 0;
      in->end = endOfPrev(p);
      if( in->nArg==0 ){
        /* x IN (): false, even for NULL (parse.y) */
        in->op = E_LIT;
        in->t = SQLITE_INTEGER;
        in->i = 0;
        in->a = 0;
      }else if( in->nArg==1 && parseConst(in->arg[0]) ){
        /* x IN (c) is x = +c (parse.y): c's collation counts, its affinity not */
        qexpr *c = unary(p, E_UPLUS, in->arg[0], in->arg[0]->at);
        if( c==0 ) return 0;
        in->op = E_EQ;
        in->b = c;
        in->nArg = 0;
        in->arg = 0;
      }
      e = notOf(p, in, neg);
      continue;
    }
    if( is(p, "LIKE") || is(p, "GLOB") || is(p, "REGEXP") || is(p, "MATCH") ){
      qexpr *l;
      const qtok *op = peek(p);
      p->i++;
      if( (l = binary(p, E_LIKE, e, cmpExpr(p)))==0 ) return 0;
      l->zName = nameOf(p, op);
      if( accept(p, "ESCAPE") ){
        if( (l->arg = q_alloc(p->s, sizeof(qexpr*)))==0 ){ p->oom = 1; return 0; }
        if( (l->arg[0] = cmpExpr(p))==0 ) return 0;
        l->nArg = 1;
        l->end = l->arg[0]->end;
      }
      e = notOf(p, l, neg);         /* NOT LIKE is NOT of the LIKE (parse.y) */
      continue;
    }
    if( accept(p, "BETWEEN") ){
      qexpr *lo = cmpExpr(p), *hi, *b;
      if( lo==0 ) return 0;
      if( !accept(p, "AND") ) return why(p, "a BETWEEN the engine does not parse");
      if( (hi = cmpExpr(p))==0 ) return 0;
      {
        qexpr *ge = binary(p, E_GE, e, lo), *le = binary(p, E_LE, e, hi);
        if( ge ) ge->synth = 1;
        if( le ) le->synth = 1;
        b = binary(p, E_AND, ge, le);
      }
      e = notOf(p, b, neg);
      continue;
    }
    if( neg ) return why(p, "a NOT the engine does not parse");
    break;
  }
  return e;
}

static qexpr *notExpr(Parse *p){
  const qtok *t = peek(p);
  if( accept(p, "NOT") ){
    qexpr *a = notExpr(p);
    return a ? unary(p, E_NOT, a, t->at) : 0;
  }
  return eqExpr(p);
}
static qexpr *andExpr(Parse *p){
  static const char *az[] = { "AND" };
  static const int a[] = { E_AND };
  return leftAssoc(p, notExpr, az, a, 1);
}
static qexpr *expr(Parse *p){
  static const char *az[] = { "OR" };
  static const int a[] = { E_OR };
  qexpr *e;
  /* every recursion passes here (or unaryExpr): the planner and evaluator
  ** recurse as deep as the tree, so keep it shallow */
  if( ++p->depth>Q_MAXDEPTH ) return why(p, "an expression nested more than %d deep", Q_MAXDEPTH);
  e = leftAssoc(p, andExpr, az, a, 1);
  p->depth--;
  return e;
}

/* Token k begins a clause that can follow a result (so it is no alias). */
static int clauseWord(Parse *p, const qtok *k){
  static const char *az[] = { "FROM", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER", "LIMIT", "UNION", "EXCEPT",
                              "INTERSECT" };
  size_t i;
  for(i=0; i<sizeof(az)/sizeof(az[0]); i++) if( q_tok_is(p->z, k, az[i]) ) return 1;
  return 0;
}

/* A list of terms (results, GROUP BY, ORDER BY) into *pa, *pn. */
static int terms(Parse *p, qterm **pa, int *pn, int isOrder, int isResult){
  List l = { 0, 0, 0, sizeof(qterm) };
  qterm x, *t = &x;
  do{
    memset(t, 0, sizeof(*t));
    if( isResult && is(p, "*") ){
      p->i++;
      p->cur->star = 1;
      if( !listAdd(p, &l, t) ) goto fail;
      continue;
    }
    if( isResult && peek(p)->type==T_ID && isAt(p, 1, ".") && isAt(p, 2, "*") ){
      why(p, "table.*");
      goto fail;
    }
    if( (t->e = expr(p))==0 ) goto fail;
    if( isResult ){
      int as = accept(p, "AS");
      const qtok *k = peek(p);
      if( (k->type==T_ID && !clauseWord(p, k)) || k->type==T_STRING ){
        if( (t->zAlias = nameOf(p, k))!=0 && t->zAlias[0]=='\'' ){
          int m = (int)strlen(t->zAlias);
          memmove(t->zAlias, t->zAlias + 1, (size_t)m - 2);
          t->zAlias[m - 2] = 0;
        }
        p->i++;
      }else if( as ){
        why(p, "a result name the engine does not parse");
        goto fail;
      }
    }
    if( isOrder ){
      if( accept(p, "DESC") ) t->desc = 1;
      else accept(p, "ASC");
      if( accept(p, "NULLS") ){
        if( accept(p, "FIRST") ) t->nulls = 1;
        else if( accept(p, "LAST") ) t->nulls = 2;
        else { why(p, "an ORDER BY the engine does not parse"); goto fail; }
      }
    }
    if( !listAdd(p, &l, t) ) goto fail;
  }while( accept(p, ",") );
  *pn = l.n;
  *pa = listDone(p, &l);
  return !p->oom;
fail:
  ga_free(l.a);
  return 0;
}

/* A FROM table's [AS] alias, if one follows, into *pz. 0 where it stops. */
static int alias(Parse *p, char **pz){
  if( accept(p, "AS") || (peek(p)->type==T_ID && !is(p, "WHERE") && !is(p, "GROUP") && !is(p, "ORDER")
      && !is(p, "LIMIT") && !is(p, "JOIN") && !is(p, "NATURAL") && !is(p, "LEFT") && !is(p, "INNER")
      && !is(p, "CROSS") && !is(p, "INDEXED") && !is(p, "NOT") && !is(p, "WINDOW") && !is(p, "UNION")
      && !is(p, "EXCEPT") && !is(p, "INTERSECT") && !is(p, "RIGHT") && !is(p, "FULL") && !is(p, "HAVING")
      && !is(p, "ON") && !is(p, "USING") && !is(p, "OUTER")) ){
    if( peek(p)->type!=T_ID ){ why(p, "a FROM the engine does not parse"); return 0; }
    *pz = nameOf(p, peek(p));
    p->i++;
  }
  return 1;
}

/* Does a join's operator come next? */
static int isJoin(Parse *p){
  return is(p, ",") || is(p, "JOIN") || is(p, "NATURAL") || is(p, "LEFT") || is(p, "INNER") || is(p, "CROSS")
      || is(p, "RIGHT") || is(p, "FULL");
}

/* A subquery's SELECT, its SELECT read, parsed (1c) for s, which reads it;
** NULL where it stops. */
static qselect *subSelect(Parse *p, qselect *s){
  qselect *sub = q_alloc(p->s, sizeof(qselect));
  if( sub==0 ){ p->oom = 1; return 0; }
  sub->pRoot = p->s;
  sub->at = peek(p)->at;
  if( !selectStmt(p, sub) ) return 0;
  sub->end = p->i>0 ? p->a[p->i - 1].at + p->a[p->i - 1].n : sub->at;
  p->cur = s;
  return sub;
}

/* The WITH table token t names (p->aCte's), or -1. */
static int cteAt(Parse *p, const qtok *t){
  char *zName = nameOf(p, t);
  int k;
  for(k=0; zName && k<p->nCte; k++){
    if( sqlite3_stricmp(zName, p->aCte[k].zName)==0 ) return k;
  }
  return -1;
}

/* WITH table k's SELECT read again for s (1c: each FROM that names it has
** a tree of its own), its columns named as its WITH lists them; NULL where
** it stops. */
static qselect *cteSelect(Parse *p, qselect *s, int k){
  int iSave = p->i;
  qselect *sub;
  p->i = p->aCte[k].iSelect;
  if( (sub = subSelect(p, s))==0 ) return 0;
  p->i = iSave;
  sub->azName = p->aCte[k].azCol;
  sub->nName = p->aCte[k].nCol;
  return sub;
}

/* The tables FROM joins to its first (requirement 1d) into s->aJoin. 0
** where it stops. */
static int joins(Parse *p, qselect *s){
  List l = { 0, 0, 0, sizeof(qfrom) };
  while( isJoin(p) ){
    qfrom f;
    const qtok *t;
    int at, k;
    memset(&f, 0, sizeof(f));
    f.jt = Q_JT_INNER;
    if( !accept(p, ",") ){
      f.natural = accept(p, "NATURAL");
      if( is(p, "RIGHT") || is(p, "FULL") ){ why(p, "a RIGHT or FULL JOIN"); goto fail; }
      if( accept(p, "LEFT") ){
        accept(p, "OUTER");
        f.jt = Q_JT_LEFT;
      }else if( accept(p, "CROSS") ){
        f.jt = Q_JT_CROSS;
      }else{
        accept(p, "INNER");
      }
      if( !accept(p, "JOIN") ){ why(p, "a join the engine does not parse"); goto fail; }
    }
    if( l.n==Q_MAXTAB - 1 ){ why(p, "a join of more than %d tables", Q_MAXTAB); goto fail; }
    t = peek(p);
    if( q_tok_is(p->z, t, "(") ){
      /* a subquery (1c) */
      p->i++;
      if( !accept(p, "SELECT") ){ why(p, "a join with parentheses or VALUES"); goto fail; }
      if( (f.pSub = subSelect(p, s))==0 ) goto fail;
      if( !accept(p, ")") ){ why(p, "a join the engine does not parse"); goto fail; }
      if( (f.zFrom = q_alloc(p->s, 11))==0 ){ p->oom = 1; goto fail; }
      memcpy(f.zFrom, "(subquery)", 10);
      goto named;
    }
    if( t->type!=T_ID ){ why(p, "a join the engine does not parse"); goto fail; }
    at = t->at;
    p->i++;
    if( accept(p, ".") ){
      if( peek(p)->type!=T_ID ){ why(p, "a join the engine does not parse"); goto fail; }
      p->i++;
    }
    if( is(p, "(") ){ why(p, "a join with a table-valued function"); goto fail; }
    if( (f.zFrom = q_alloc(p->s, endOfPrev(p) - at + 1))==0 ){ p->oom = 1; goto fail; }
    memcpy(f.zFrom, p->z + at, (size_t)(endOfPrev(p) - at));
    if( p->nCte && endOfPrev(p)==t->at + t->n && (k = cteAt(p, t))>=0 ){
      /* a WITH table: its SELECT read again here (1c), its name its alias */
      if( (f.pSub = cteSelect(p, s, k))==0 ) goto fail;
      f.zAlias = p->aCte[k].zName;
    }
named:
    if( !alias(p, &f.zAlias) ) goto fail;
    if( is(p, "INDEXED") || (is(p, "NOT") && isAt(p, 1, "INDEXED")) ){ why(p, "INDEXED BY"); goto fail; }
    if( accept(p, "ON") ){
      if( (f.pOn = expr(p))==0 ) goto fail;
    }else if( accept(p, "USING") ){
      List u = { 0, 0, 0, sizeof(char*) };
      if( !accept(p, "(") ){ why(p, "a USING the engine does not parse"); goto fail; }
      do{
        char *z;
        if( peek(p)->type!=T_ID || (z = nameOf(p, peek(p)))==0 ){
          ga_free(u.a);
          if( !p->oom ) why(p, "a USING the engine does not parse");
          goto fail;
        }
        p->i++;
        if( !listAdd(p, &u, &z) ){ ga_free(u.a); goto fail; }
      }while( accept(p, ",") );
      f.nUsing = u.n;
      f.azUsing = listDone(p, &u);
      if( f.azUsing==0 || !accept(p, ")") ){ if( !p->oom ) why(p, "a USING the engine does not parse"); goto fail; }
    }
    if( !listAdd(p, &l, &f) ) goto fail;
  }
  s->nJoin = l.n;
  s->aJoin = listDone(p, &l);
  return !p->oom;
fail:
  ga_free(l.a);
  return 0;
}

/* One SELECT core after SELECT into s: [DISTINCT | ALL] results [FROM one
** table] [WHERE] [GROUP BY [HAVING]]. 0 where it stops (p->s->zWhy says why,
** or p->oom). */
static int core(Parse *p, qselect *s){
  const char *zSql = p->z;
  p->cur = s;
  if( accept(p, "DISTINCT") ) s->distinct = 1;
  else accept(p, "ALL");
  if( !terms(p, &s->aRes, &s->nRes, 0, 1) ) return 0;
  if( !accept(p, "FROM") ) goto where;        /* no table: one row (requirement 1) */
  if( is(p, "(") ){
    /* a subquery (requirement 1c) */
    p->i++;
    if( !accept(p, "SELECT") ){ why(p, "FROM a parenthesized join or VALUES"); return 0; }
    if( (s->pSub = subSelect(p, s))==0 ) return 0;
    if( !accept(p, ")") ){ why(p, "a FROM the engine does not parse"); return 0; }
  }else if( peek(p)->type!=T_ID ){
    why(p, "a FROM the engine does not parse");
    return 0;
  }else{
    const qtok *t = peek(p);
    int at = t->at, k;
    p->i++;
    if( accept(p, ".") ){
      if( peek(p)->type!=T_ID ){ why(p, "a FROM the engine does not parse"); return 0; }
      p->i++;
    }
    if( is(p, "(") ){ why(p, "FROM a table-valued function"); return 0; }
    if( (s->zFrom = q_alloc(p->s, endOfPrev(p) - at + 1))==0 ){ p->oom = 1; return 0; }
    memcpy(s->zFrom, zSql + at, (size_t)(endOfPrev(p) - at));
    /* a common table expression of that name: its SELECT read again here */
    if( p->nCte && endOfPrev(p)==t->at + t->n && (k = cteAt(p, t))>=0 ){
      if( (s->pSub = cteSelect(p, s, k))==0 ) return 0;
      s->zAlias = p->aCte[k].zName;  /* its name qualifies its columns */
    }
  }
  if( !alias(p, &s->zAlias) ) return 0;
  if( is(p, "INDEXED") || (is(p, "NOT") && isAt(p, 1, "INDEXED")) ){ why(p, "INDEXED BY"); return 0; }
  if( isJoin(p) && !joins(p, s) ) return 0;
where:
  if( accept(p, "WHERE") && (s->pWhere = expr(p))==0 ) return 0;
  if( accept(p, "GROUP") ){
    if( !accept(p, "BY") || !terms(p, &s->aGroup, &s->nGroup, 0, 0) ) return 0;
  }
  if( accept(p, "HAVING") && (s->pHaving = expr(p))==0 ) return 0;
  if( is(p, "WINDOW") ){ why(p, "WINDOW"); return 0; }
  return 1;
}

/* A SELECT after its SELECT into s: a core, a compound's other arms
** (requirement 1b), ORDER BY and LIMIT. 0 where it stops. */
static int selectStmt(Parse *p, qselect *s){
  qselect *last = s;
  s->zSql = p->z;
  s->nParam = p->s->nParam;
  if( !core(p, s) ) return 0;
  while( is(p, "UNION") || is(p, "EXCEPT") || is(p, "INTERSECT") ){
    int op = is(p, "UNION") ? (isAt(p, 1, "ALL") ? Q_UNION_ALL : Q_UNION) : is(p, "EXCEPT") ? Q_EXCEPT : Q_INTERSECT;
    qselect *a;
    p->i += op==Q_UNION_ALL ? 2 : 1;
    if( !accept(p, "SELECT") ){ why(p, "a compound SELECT with VALUES or a subquery as an arm"); return 0; }
    if( (a = q_alloc(p->s, sizeof(qselect)))==0 ){ p->oom = 1; return 0; }
    a->pRoot = p->s;
    a->zSql = p->z;
    a->nParam = s->nParam;
    a->op = op;
    if( !core(p, a) ) return 0;
    last->pNext = a;
    last = a;
  }
  p->cur = s;
  if( accept(p, "ORDER") ){
    if( !accept(p, "BY") || !terms(p, &s->aOrder, &s->nOrder, 1, 0) ) return 0;
  }
  if( accept(p, "LIMIT") ){
    if( (s->pLimit = expr(p))==0 ) return 0;
    if( accept(p, "OFFSET") ){
      if( (s->pOffset = expr(p))==0 ) return 0;
    }else if( accept(p, ",") ){
      s->pOffset = s->pLimit;       /* LIMIT offset, count */
      if( (s->pLimit = expr(p))==0 ) return 0;
    }
  }
  return 1;
}

/* WITH's common table expressions (after WITH) into p->aCte: each one's
** name, column names, and where its SELECT begins (read again where FROM
** names it: requirement 1c). 0 where it stops. */
static int withClause(Parse *p){
  if( is(p, "RECURSIVE") ){ why(p, "WITH RECURSIVE"); return 0; }
  do{
    QCte *c;
    int depth;
    if( p->nCte==(int)(sizeof(p->aCte)/sizeof(p->aCte[0])) ){ why(p, "WITH of more than 16 tables"); return 0; }
    c = &p->aCte[p->nCte];
    memset(c, 0, sizeof(*c));
    if( peek(p)->type!=T_ID ){ why(p, "a WITH the engine does not parse"); return 0; }
    c->zName = nameOf(p, peek(p));
    p->i++;
    if( accept(p, "(") ){
      List l = { 0, 0, 0, sizeof(char*) };
      do{
        char *z;
        if( peek(p)->type!=T_ID ){ ga_free(l.a); why(p, "a WITH the engine does not parse"); return 0; }
        if( (z = nameOf(p, peek(p)))==0 || !listAdd(p, &l, &z) ){ ga_free(l.a); return 0; }
        p->i++;
      }while( accept(p, ",") );
      c->nCol = l.n;
      c->azCol = listDone(p, &l);
      if( !accept(p, ")") ){ why(p, "a WITH the engine does not parse"); return 0; }
    }
    if( !accept(p, "AS") ){ why(p, "a WITH the engine does not parse"); return 0; }
    if( accept(p, "NOT") ){ if( !accept(p, "MATERIALIZED") ){ why(p, "a WITH the engine does not parse"); return 0; } }
    else accept(p, "MATERIALIZED");
    if( !accept(p, "(") || !accept(p, "SELECT") ){ why(p, "WITH of VALUES, or of a SELECT the engine does not parse"); return 0; }
    c->iSelect = p->i;
    for(depth=1; depth>0 && peek(p)->type!=T_EOF; p->i++){   /* past its SELECT */
      if( is(p, "(") ) depth++;
      else if( is(p, ")") ) depth--;
    }
    if( depth ){ why(p, "a WITH the engine does not parse"); return 0; }
    p->nCte++;
  }while( accept(p, ",") );
  return !p->oom;
}

/* Number each parameter token as SQLite does, in text order (a bare ? or a
** new name takes the next number after the largest so far; a name seen
** before, its number), into p->aParamNo: a WITH table's text read twice
** numbers its parameters once. */
static int paramNumbers(Parse *p){
  const char *azName[64];          /* named parameters' tokens, by number - 1 */
  int anName[64];                  /* ... their lengths */
  int i, n = 0;
  memset(azName, 0, sizeof(azName));
  if( (p->aParamNo = ga_malloc64(sizeof(int)*(uint64_t)(p->n + 1)))==0 ) return SQLITE_NOMEM;
  for(i=0; i<p->n; i++){
    const qtok *t = &p->a[i];
    const char *z = p->z + t->at;
    int k;
    if( t->type!=T_PARAM ) continue;
    if( t->n==1 ){
      p->aParamNo[i] = ++n;
    }else if( z[0]=='?' ){
      p->aParamNo[i] = atoi(z + 1);
      if( p->aParamNo[i]>n ) n = p->aParamNo[i];
    }else{
      for(k=0; k<n && k<64 && !(azName[k] && anName[k]==t->n && memcmp(azName[k], z, (size_t)t->n)==0); k++){}
      if( k<n && k<64 ){
        p->aParamNo[i] = k + 1;
      }else{
        p->aParamNo[i] = ++n;
        if( n<=64 ){ azName[n - 1] = z; anName[n - 1] = t->n; }
      }
    }
  }
  return SQLITE_OK;
}

/* ---- copies of a parsed statement ----------------------------------------------------- */

/* A copy being made: its statement, and the nodes copied so far (a node
** the parser shares, BETWEEN's operand or CASE's base, is copied once and
** shared in the copy too). */
typedef struct Copy {
  qselect *root;                   /* the copy: its arena */
  const qexpr **aOld;              /* nodes copied (open addressing; NULL: empty) */
  qexpr **aNew;                    /* ... their copies */
  int nSlot, n;                    /* slots (a power of 2), and nodes */
  int oom;                         /* out of memory */
} Copy;

static void *cpAlloc(Copy *c, int64_t n){
  void *r = n>0 && n<=0x7fffffff ? q_alloc(c->root, (int)n) : 0;
  if( r==0 && n>0 ) c->oom = 1;
  return r;
}

/* A string's copy (its n bytes, or to its NUL where n is 0), NUL-terminated. */
static char *cpStr(Copy *c, const char *z, int n){
  char *r;
  if( z==0 ) return 0;
  if( n==0 ) n = (int)strlen(z);
  if( (r = cpAlloc(c, (int64_t)n + 1))!=0 ) memcpy(r, z, (size_t)n);
  return r;
}

static char **cpNames(Copy *c, char *const *az, int n){
  char **r;
  int i;
  if( az==0 || n<=0 || (r = cpAlloc(c, (int64_t)sizeof(char*)*n))==0 ) return 0;
  for(i=0; i<n; i++) r[i] = cpStr(c, az[i], 0);
  return r;
}

/* The slot of node e in c's map (empty if not copied yet), the map grown
** as it fills; -1: out of memory. */
static int cpSlot(Copy *c, const qexpr *e){
  uint64_t h;
  if( 2*(c->n + 1)>c->nSlot ){
    int nNew = c->nSlot ? 2*c->nSlot : 64, i;
    const qexpr **aO = ga_malloc64(sizeof(qexpr*)*(uint64_t)nNew);
    qexpr **aN = ga_malloc64(sizeof(qexpr*)*(uint64_t)nNew);
    if( aO==0 || aN==0 ){
      ga_free(aO);
      ga_free(aN);
      c->oom = 1;
      return -1;
    }
    memset(aO, 0, sizeof(qexpr*)*(size_t)nNew);
    for(i=0; i<c->nSlot; i++){
      if( c->aOld[i] ){
        uint64_t k = ((uintptr_t)c->aOld[i] >> 4)*0x9E3779B97F4A7C15ull >> 20 & (uint64_t)(nNew - 1);
        while( aO[k] ) k = (k + 1) & (uint64_t)(nNew - 1);
        aO[k] = c->aOld[i];
        aN[k] = c->aNew[i];
      }
    }
    ga_free(c->aOld);
    ga_free(c->aNew);
    c->aOld = aO;
    c->aNew = aN;
    c->nSlot = nNew;
  }
  h = ((uintptr_t)e >> 4)*0x9E3779B97F4A7C15ull >> 20 & (uint64_t)(c->nSlot - 1);
  while( c->aOld[h] && c->aOld[h]!=e ) h = (h + 1) & (uint64_t)(c->nSlot - 1);
  return (int)h;
}

static qexpr *cpExpr(Copy *c, const qexpr *e){
  qexpr *x;
  int h, i;
  if( e==0 || c->oom || (h = cpSlot(c, e))<0 ) return 0;
  if( c->aOld[h] ) return c->aNew[h];
  assert( e->aIn==0 && e->zTpl==0 && e->aTplLit==0 );   /* parsed, not planned */
  if( (x = cpAlloc(c, sizeof(qexpr)))==0 ) return 0;
  *x = *e;
  c->aOld[h] = e;
  c->aNew[h] = x;
  c->n++;
  x->a = cpExpr(c, e->a);
  x->b = cpExpr(c, e->b);
  x->arg = 0;
  if( e->arg && e->nArg>0 && (x->arg = cpAlloc(c, (int64_t)sizeof(qexpr*)*e->nArg))!=0 ){
    for(i=0; i<e->nArg; i++) x->arg[i] = cpExpr(c, e->arg[i]);
  }
  x->zName = cpStr(c, e->zName, 0);
  x->zQual = cpStr(c, e->zQual, 0);
  x->z = cpStr(c, e->z, e->n);
  return x;
}

static qterm *cpTerms(Copy *c, const qterm *a, int n){
  qterm *r;
  int i;
  if( a==0 || n<=0 || (r = cpAlloc(c, (int64_t)sizeof(qterm)*n))==0 ) return 0;
  for(i=0; i<n; i++){
    r[i] = a[i];
    r[i].e = cpExpr(c, a[i].e);
    r[i].zAlias = cpStr(c, a[i].zAlias, 0);
  }
  return r;
}

/* s's copy into x (the root: c->root; an arm or a subquery: in its arena). */
static void cpSelect(Copy *c, const qselect *s, qselect *x){
  int i;
  *x = *s;
  x->zWhy = 0;
  x->arena = 0;                    /* (s's blocks are not the copy's) */
  x->pPlanned = 0;
  x->pRoot = x==c->root ? 0 : c->root;
  if( s->pNext && (x->pNext = cpAlloc(c, sizeof(qselect)))!=0 ) cpSelect(c, s->pNext, x->pNext);
  if( s->pSub && (x->pSub = cpAlloc(c, sizeof(qselect)))!=0 ) cpSelect(c, s->pSub, x->pSub);
  x->zFrom = cpStr(c, s->zFrom, 0);
  x->zExplain = cpStr(c, s->zExplain, 0);
  x->zRowsKey = cpStr(c, s->zRowsKey, 0);
  x->azName = cpNames(c, s->azName, s->nName);
  x->zAlias = cpStr(c, s->zAlias, 0);
  x->aJoin = 0;
  if( s->aJoin && s->nJoin>0 && (x->aJoin = cpAlloc(c, (int64_t)sizeof(qfrom)*s->nJoin))!=0 ){
    for(i=0; i<s->nJoin; i++){
      qfrom *f = &x->aJoin[i];
      *f = s->aJoin[i];
      f->zFrom = cpStr(c, s->aJoin[i].zFrom, 0);
      f->zAlias = cpStr(c, s->aJoin[i].zAlias, 0);
      f->pOn = cpExpr(c, s->aJoin[i].pOn);
      f->azUsing = cpNames(c, s->aJoin[i].azUsing, s->aJoin[i].nUsing);
      if( s->aJoin[i].pSub && (f->pSub = cpAlloc(c, sizeof(qselect)))!=0 ) cpSelect(c, s->aJoin[i].pSub, f->pSub);
    }
  }
  x->aRes = cpTerms(c, s->aRes, s->nRes);
  x->pWhere = cpExpr(c, s->pWhere);
  x->pHaving = cpExpr(c, s->pHaving);
  x->aGroup = cpTerms(c, s->aGroup, s->nGroup);
  x->aOrder = cpTerms(c, s->aOrder, s->nOrder);
  x->pLimit = cpExpr(c, s->pLimit);
  x->pOffset = cpExpr(c, s->pOffset);
}

int q_select_copy(qselect *x, const qselect *s){
  Copy c;
  assert( s->pRoot==0 );
  memset(&c, 0, sizeof(c));
  memset(x, 0, sizeof(*x));
  c.root = x;
  cpSelect(&c, s, x);
  ga_free(c.aOld);
  ga_free(c.aNew);
  if( !c.oom && s->zWhy && (x->zWhy = sqlite3_mprintf("%s", s->zWhy))==0 ) c.oom = 1;
  if( c.oom ){
    q_select_free(x);
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int q_parse(const char *zSql, int nParam, qselect *s){
  Parse p;
  int rc;
  memset(s, 0, sizeof(*s));
  memset(&p, 0, sizeof(p));
  s->zSql = zSql;
  s->nParam = nParam;
  p.s = s;
  p.z = zSql;
  if( (rc = q_lex(zSql, &p.a, &p.n))!=SQLITE_OK ) return rc;
  if( (rc = paramNumbers(&p))!=SQLITE_OK ){
    ga_free(p.a);
    q_select_free(s);
    return rc;
  }
  if( accept(&p, "WITH") ){
    int i;
    if( !withClause(&p) ) goto done;
    /* its text, for a subquery computed alone (one with parameters: not) */
    for(i=0; i<p.i && p.a[i].type!=T_PARAM; i++){}
    if( i==p.i ) s->nWith = peek(&p)->at;
  }
  if( !accept(&p, "SELECT") ){
    why(&p, is(&p, "VALUES") ? "VALUES" : "not a plain SELECT");
    goto done;
  }
  if( !selectStmt(&p, s) ) goto done;
  accept(&p, ";");
  if( peek(&p)->type!=T_EOF ) why(&p, "the text after the SELECT it reads (%.20s)", zSql + peek(&p)->at);
done:
  ga_free(p.a);
  ga_free(p.aParamNo);
  if( p.oom ){
    q_select_free(s);                /* the caller frees only what parsed */
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

qexpr *q_expr_copy(qselect *s, const qexpr *e){
  qexpr *y;
  int j;
  if( e==0 ) return 0;
  if( (y = q_alloc(s, sizeof(qexpr)))==0 ) return 0;
  *y = *e;
  y->slot = -1;
  if( e->a && (y->a = q_expr_copy(s, e->a))==0 ) return 0;
  if( e->b && (y->b = q_expr_copy(s, e->b))==0 ) return 0;
  if( e->nArg ){
    if( (y->arg = q_alloc(s, (int)sizeof(qexpr*)*e->nArg))==0 ) return 0;
    for(j=0; j<e->nArg; j++) if( (y->arg[j] = q_expr_copy(s, e->arg[j]))==0 ) return 0;
  }
  return y;
}

int q_has_subq(const qexpr *e){
  int i;
  if( e==0 ) return 0;
  if( e->op==E_SUBQ ) return 1;
  for(i=0; i<e->nArg; i++) if( q_has_subq(e->arg[i]) ) return 1;
  return q_has_subq(e->a) || q_has_subq(e->b);
}

int q_terms(qexpr *e, int op, qexpr **a, int n, int k){
  if( e==0 ) return k;
  if( e->op==op ){
    k = q_terms(e->a, op, a, n, k);
    return q_terms(e->b, op, a, n, k);
  }
  if( k<n ) a[k] = e;
  return k + 1;
}

qexpr *q_node(qselect *s, int op){
  qexpr *e = q_alloc(s, sizeof(qexpr));
  if( e ){
    e->op = op;
    e->aff = e->coll = e->cmpAff = -1;
    e->slot = -1;
    e->synth = 1;
  }
  return e;
}

char *q_str(qselect *s, const char *z){
  size_t n = strlen(z);
  char *r = q_alloc(s, (int)n + 1);
  if( r ) memcpy(r, z, n);
  return r;
}

qexpr *q_col_node(qselect *s, const char *zQual, const char *zName){
  qexpr *e = q_node(s, E_COL);
  if( e==0 || (e->zName = q_str(s, zName))==0 ) return 0;
  e->synth = 0;
  e->zQual = (char*)zQual;
  return e;
}

qexpr *q_and_node(qselect *s, qexpr *a, qexpr *b){
  qexpr *e;
  if( a==0 ) return b;
  if( (e = q_node(s, E_AND))==0 ) return 0;
  e->a = a;
  e->b = b;
  return e;
}

int q_has_agg(const qexpr *e){
  int i;
  if( e==0 ) return 0;
  if( e->op==E_AGG ) return 1;
  for(i=0; i<e->nArg; i++) if( q_has_agg(e->arg[i]) ) return 1;
  return q_has_agg(e->a) || q_has_agg(e->b);
}
