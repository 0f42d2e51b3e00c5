/*
** gpu_query's expressions, evaluated a batch at a time on the CPU: the
** reference every other backend's operators are tested against. Each
** operator is SQLite's, by its source (vdbe.c, vdbemem.c, func.c):
**
**   1. Arithmetic (OP_Add ... OP_Remainder): two integers stay integers
**      unless they overflow (then REAL); / and % truncate; by zero is NULL;
**      -1 as a divisor of the least integer goes REAL; REAL results that are
**      NaN are NULL. TEXT and BLOB operands are integers or not as
**      computeNumericType says, and as REAL operands they are what
**      sqlite3VdbeRealValue reads ('-0.0' is -0.0): both asked of SQLite,
**      once per value. A % with a TEXT or BLOB operand that is not an
**      integer is asked of SQLite whole, once per pair of operands: it
**      reads such operands by another rule (sqlite3VdbeIntValue).
**   2. Comparisons (OP_Eq ...): two integers directly; NULL makes NULL (IS:
**      equal only to NULL); else the comparison's affinity first (NUMERIC:
**      TEXT that is a well-formed number becomes it; TEXT: numbers become
**      their text, both asked of SQLite once per value), then
**      sqlite3MemCompare: NULL < numbers (compared exactly, INTEGER with
**      REAL too) < TEXT (by collation) < BLOB (bytes, then length).
**   3. Truth (sqlite3VdbeBooleanValue): a number is true when not zero, TEXT
**      and BLOB by their number; NULL is neither. AND, OR, NOT are
**      three-valued.
**   2b. x IN (list): x's affinity applied to x and each item, x's
**      collation (the items' own do not count: sqlite3ExprCodeIN); true
**      where one is equal, else NULL where x or an item is NULL, else
**      false. A constant list of more than 8 items is searched by its
**      items' canonical keys, sorted once per run.
**   4. CASE evaluates a branch only for the rows that take it; abs is
**      func.c's (an INTEGER stays one, the least integer is an error; any
**      other value is read as a REAL); coalesce and ifnull give the first
**      value not NULL; nullif compares with its collation and no affinity;
**      min and max of several arguments are minmaxFunc's (NULL if one is,
**      else the least or greatest by the first collation an argument
**      has; equal values: min takes the last, max the first).
**   5. E_SQL: SQLite computes the node from its inputs, once per distinct
**      combination of their values per run (a memo keyed by class and
**      bytes); a || b of TEXT, BLOB or NULL is OP_Concat's here (NULL, or
**      TEXT of the bytes one after the other). In a UTF-16 database a
**      BLOB it would make TEXT or a number of is not the engine's
**      (QE_BAIL): SQLite reads a stored one's bytes as UTF-16, a bound
**      one's as UTF-8.
**   5b. substr(x, P, N) with constant integers P >= 1 and N >= 0 cuts TEXT
**      and BLOB values here, by func.c's substrFunc: TEXT skips P-1
**      characters of UTF-8 then takes N, ending at a NUL byte; BLOB takes
**      bytes. Its other inputs (numbers) go to SQLite as 5 says.
**   5c. x LIKE or GLOB a TEXT constant (no ESCAPE), where like() or glob()
**      is SQLite's own on the caller's connection and the database is
**      UTF-8: TEXT x is matched here by sqlite3_strlike or sqlite3_strglob,
**      which are likeFunc's patternCompare with like()'s case folding
**      (ASCII only) and glob()'s sets; NULL gives NULL, other classes the
**      memo (SQLite's text of a number).
**   5a. A worker thread's run (q_run_worker) asks its own in-memory SQLite
**      connection (the same library, SQL's builtin functions, the database's
**      encoding: BLOB made TEXT reads it), keeping its
**      own memos; what that connection cannot compute the same way (a
**      function, LIKE or GLOB included, that the caller's connection
**      defines itself, as PRAGMA case_sensitive_like does: plan.c's
**      mainOnly) goes back to the scan's thread (GA_SINK_LATER).
**   6. An error SQLite would have to report (abs of the least integer, an
**      error from a memo's statement) is not reported by the engine: the
**      run goes through SQLite (QE_BAIL), which reports it if it arises.
*/
#include <assert.h>
#include <string.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include "query.h"
#include "text.h"
#include "kmap.h"

/* ---- memos: SQLite computes, once per distinct value ---------------------------------- */

enum { M_NUM, M_AFFNUM, M_STR, M_SUMNUM, M_DBL, M_REM, M_NCONV };
static const char *azConv[M_NCONV] = {
  "SELECT ?1*1",                                   /* the number arithmetic reads (its class) */
  "SELECT CASE WHEN CAST(?1 AS NUMERIC)=?1 THEN CAST(?1 AS NUMERIC) ELSE ?1 END",
                                                   /* NUMERIC affinity, as a comparison applies it */
  "SELECT CAST(?1 AS TEXT)",                       /* TEXT affinity */
  "SELECT ?1",                                     /* sum()'s number: sqlite3_value_numeric_type */
  "SELECT ?1",                                     /* sqlite3_value_double: REAL arithmetic's
                                                   ** operand, abs(), truth ('-0.0' is -0.0) */
  "SELECT ?1 % ?2",                                /* % of TEXT or BLOB that is no integer: its
                                                   ** operands read by sqlite3VdbeIntValue */
};

typedef struct MEnt {
  uint64_t h;                      /* hash; 0: empty */
  qval in;                         /* the input (the first, where there are several) */
  const qval *aMore;               /* ... the others (kept for the run) */
  qval r;                          /* SQLite's result */
} MEnt;

typedef struct Memo {
  sqlite3_stmt *st;                /* computes it: ?1.. the inputs */
  const char *zSql;                /* ... its text */
  const qexpr *node;               /* E_SQL: its node (constants to bind), else NULL */
  int kind;                        /* M_* for conversions; -1: E_SQL */
  int nIn;                         /* inputs */
  MEnt *a; int64_t nAlloc, n;      /* open addressing */
} Memo;

struct qinset;
static void inSetFree(struct qinset*);

typedef struct Blk { struct Blk *next; int64_t used, cap; char z[]; } Blk;

struct qrun {
  sqlite3 *db;
  qvec *aBuf;                      /* by slot */
  void *pBufMem;
  Memo *aMemo;                     /* by E_SQL memo number */
  struct qinset **aIn;             /* by slot: constant IN lists, as compared (E_IN) */
  int nSlot;                       /* ... how many */
  Memo aConv[M_NCONV];
  Blk *keep;                       /* bytes kept for the run */
  int nMemo;                       /* E_SQL memos */
  int worker;                      /* a worker thread's: db is its own connection (5a) */
  int nThread;                     /* threads work made with it may use (q_run_set_threads) */
  int enc;                         /* the database's encoding: in UTF-16, SQLite reads a BLOB's
                                   ** bytes as UTF-16 where it makes TEXT of it (a worker's own
                                   ** connection is made so too) */
  q_leaf_fn xLeaf; void *pLeafArg; /* group leaves */
  char *zErr;
};

/* Every bit of the result depends on every byte: a product's high bits do
** not reach its low ones, and tables index by the low bits (canonical keys
** put a TEXT's bytes in the high half of their words). */
uint64_t q_hash(uint64_t h, const void *p, int n){
  const unsigned char *z = (const unsigned char*)p;
  int i = 0;
  for(; i + 8<=n; i+=8){
    uint64_t w;
    memcpy(&w, z + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for(; i<n; i++) h = (h ^ z[i]) * 0x100000001B3ull;
  return ga_mix64(h);
}

/* Room for n bytes and a NUL for the run's lifetime; NULL when out of memory. */
static char *keepRoom(qrun *r, int n){
  Blk *b = r->keep;
  char *p;
  if( b==0 || b->used + n + 1>b->cap ){
    int64_t cap = n + 1>(1<<20) ? n + 1 : (1<<20);
    if( (b = ga_malloc64(sizeof(Blk) + (uint64_t)cap))==0 ) return 0;
    b->used = 0;
    b->cap = cap;
    b->next = r->keep;
    r->keep = b;
  }
  p = b->z + b->used;
  p[n] = 0;
  b->used += n + 1;
  return p;
}

const char *q_keep(qrun *r, const char *z, int n){
  char *p = keepRoom(r, n);
  if( p && n ) memcpy(p, z, (size_t)n);
  return p;
}

void q_keep_move(qrun *to, qrun *from){
  Blk **pp = &to->keep;
  if( to==from ) return;
  while( *pp ) pp = &(*pp)->next;  /* (to's newest block stays first: keepRoom fills it) */
  *pp = from->keep;
  from->keep = 0;
}

int q_run_error(qrun *r, int rc, const char *zFmt, ...){
  va_list ap;
  ga_free(r->zErr);
  va_start(ap, zFmt);
  r->zErr = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  return rc;
}
const char *q_run_errmsg(qrun *r){ return r->zErr ? r->zErr : "out of memory"; }

static int isBytes(int t){ return t==SQLITE_TEXT || t==SQLITE_BLOB; }

static uint64_t valHash(uint64_t h, const qval *x){
  int64_t v = x->t==SQLITE_NULL ? 0 : x->v;          /* a NULL's word is not set */
  return q_hash(h + 0x51ED27u + (uint64_t)x->t, isBytes(x->t) ? (const void*)x->z : (const void*)&v,
                isBytes(x->t) ? x->n : 8);
}
static int sameVal(const qval *a, const qval *b){
  if( a->t!=b->t ) return 0;
  if( isBytes(a->t) ) return a->n==b->n && (a->n==0 || memcmp(a->z, b->z, (size_t)a->n)==0);
  return a->t==SQLITE_NULL || a->v==b->v;
}

/* x bound to st's parameter i; TEXT in the database's encoding enc, as a
** stored value is (what makes a BLOB of it shows its bytes). SQLITE_OK or
** SQLITE_NOMEM. */
static int bindVal(sqlite3_stmt *st, int i, const qval *x, int enc){
  switch( x->t ){
    case SQLITE_INTEGER: sqlite3_bind_int64(st, i, x->v); break;
    case SQLITE_FLOAT: { double d; memcpy(&d, &x->v, 8); sqlite3_bind_double(st, i, d); break; }
    case SQLITE_TEXT: return ga_bind_text(st, i, x->z, x->n, enc);
    case SQLITE_BLOB: sqlite3_bind_blob(st, i, x->z ? x->z : "", x->n, SQLITE_STATIC); break;
    default: sqlite3_bind_null(st, i); break;
  }
  return SQLITE_OK;
}

/* a || b (node e) of inputs aIn where both are TEXT, BLOB or NULL, as
** OP_Concat gives it: NULL if either is, else TEXT of their bytes one after
** the other (bytes kept by run r). SQLITE_OK, SQLITE_NOMEM, or -1 where an
** operand is a number (SQLite's text of it: the memo asks). */
static int concatText(qrun *r, const qexpr *e, const qval *aIn, qval *out){
  const qval *x[2];
  qval lit[2];
  char *z;
  int k;
  for(k=0; k<2; k++){
    if( e->cat[k]>=0 ){
      x[k] = &aIn[e->cat[k]];
    }else{
      const qexpr *l = e->aTplLit[-1 - e->cat[k]];
      lit[k].t = l->t; lit[k].v = l->i; lit[k].z = l->z; lit[k].n = l->n;
      x[k] = &lit[k];
    }
    if( !isBytes(x[k]->t) && x[k]->t!=SQLITE_NULL ) return -1;
    if( x[k]->t==SQLITE_BLOB && r->enc!=SQLITE_UTF8 ) return -1;   /* (the memo declines it) */
  }
  memset(out, 0, sizeof(*out));
  if( x[0]->t==SQLITE_NULL || x[1]->t==SQLITE_NULL ){
    out->t = SQLITE_NULL;
    return SQLITE_OK;
  }
  if( (z = keepRoom(r, x[0]->n + x[1]->n))==0 ) return SQLITE_NOMEM;
  if( x[0]->n ) memcpy(z, x[0]->z, (size_t)x[0]->n);
  if( x[1]->n ) memcpy(z + x[0]->n, x[1]->z, (size_t)x[1]->n);
  out->t = SQLITE_TEXT;
  out->z = z;
  out->n = x[0]->n + x[1]->n;
  return SQLITE_OK;
}

/* SQLite's result for inputs aIn[0..m->nIn) through memo m, into *out. */
static int memoGet(qrun *r, Memo *m, const qval *aIn, qval *out){
  qval in0 = aIn[0];               /* (out may be aIn: a conversion in place) */
  uint64_t h = 0;
  int64_t i;
  MEnt *e;
  int rc, t, k;
  for(k=0; k<m->nIn; k++) h = valHash(h, &aIn[k]);
  h |= 1;
  if( m->n*2>=m->nAlloc ){
    int64_t nNew = m->nAlloc ? 2*m->nAlloc : 256, j;
    MEnt *a = ga_malloc64(sizeof(MEnt)*(uint64_t)nNew);
    if( a==0 ) return SQLITE_NOMEM;
    memset(a, 0, sizeof(MEnt)*(size_t)nNew);
    for(j=0; j<m->nAlloc; j++){
      if( m->a[j].h ){
        int64_t q = (int64_t)(m->a[j].h & (uint64_t)(nNew - 1));
        while( a[q].h ) q = (q + 1) & (nNew - 1);
        a[q] = m->a[j];
      }
    }
    ga_free(m->a);
    m->a = a;
    m->nAlloc = nNew;
  }
  for(i = (int64_t)(h & (uint64_t)(m->nAlloc - 1)); (e = &m->a[i])->h; i = (i + 1) & (m->nAlloc - 1)){
    if( e->h==h && sameVal(&e->in, &aIn[0]) ){
      for(k=1; k<m->nIn && sameVal(&e->aMore[k-1], &aIn[k]); k++){}
      if( k==m->nIn ){
        *out = e->r;
        return SQLITE_OK;
      }
    }
  }
  if( m->node && m->node->sqlOp==E_CONCAT && (rc = concatText(r, m->node, aIn, out))!=-1 ){
    if( rc ) return rc;
    goto remember;                  /* (its bytes are the run's) */
  }
  /* ask SQLite: a BLOB bound is UTF-8 to it, one stored in a UTF-16
  ** database the database's encoding, where SQLite makes TEXT or a number
  ** of it */
  for(k=0; r->enc!=SQLITE_UTF8 && k<m->nIn; k++){
    if( aIn[k].t==SQLITE_BLOB ){
      return q_run_error(r, QE_BAIL, "a BLOB read as TEXT or a number in a UTF-16 database (SQLite reads its bytes "
                         "as UTF-16)");
    }
  }
  if( m->st==0 ){
    int j;
    if( r->worker ){
      if( m->node && m->node->mainOnly ) return GA_SINK_LATER;
      if( r->db==0 && (sqlite3_open_v2(":memory:", &r->db, SQLITE_OPEN_READWRITE|SQLITE_OPEN_MEMORY, 0)
                       || sqlite3_exec(r->db, r->enc==SQLITE_UTF16LE ? "PRAGMA encoding='UTF-16le'" :
                                       r->enc==SQLITE_UTF16BE ? "PRAGMA encoding='UTF-16be'" : "", 0, 0, 0)) ){
        sqlite3_close(r->db);
        r->db = 0;
        return GA_SINK_LATER;
      }
      if( sqlite3_prepare_v2(r->db, m->zSql, -1, &m->st, 0)!=SQLITE_OK ) return GA_SINK_LATER;
    }else if( (rc = sqlite3_prepare_v2(r->db, m->zSql, -1, &m->st, 0))!=SQLITE_OK ){
      return q_run_error(r, QE_BAIL, "SQLite cannot compute %s (%s)", m->zSql + 7, sqlite3_errmsg(r->db));
    }
    for(j=0; m->node && j<m->node->nTplLit; j++){
      const qexpr *l = m->node->aTplLit[j];
      qval x;
      x.t = l->t; x.v = l->i; x.z = l->z; x.n = l->n;
      if( bindVal(m->st, m->nIn + j + 1, &x, r->enc) ) return SQLITE_NOMEM;
    }
  }
  for(k=0; k<m->nIn; k++) if( bindVal(m->st, k + 1, &aIn[k], r->enc) ) return SQLITE_NOMEM;
  rc = sqlite3_step(m->st);
  if( rc!=SQLITE_ROW ){
    rc = sqlite3_reset(m->st);
    if( r->worker ) return GA_SINK_LATER;
    if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ) return q_run_error(r, rc, "%s", sqlite3_errmsg(r->db));
    return q_run_error(r, QE_BAIL, "an error SQLite reports in %s (%s)", m->zSql + 7, sqlite3_errmsg(r->db));
  }
  memset(out, 0, sizeof(*out));
  {
    sqlite3_value *v = sqlite3_column_value(m->st, 0);
    t = sqlite3_value_type(v);
    if( m->kind==M_DBL ){
      double f = sqlite3_value_double(v);
      out->t = SQLITE_FLOAT;
      memcpy(&out->v, &f, 8);
    }else if( m->kind==M_SUMNUM && t!=SQLITE_NULL ){
      /* sum(): sqlite3_value_numeric_type, then the integer or the double */
      sqlite3_value *d = sqlite3_value_dup(v);
      if( d==0 ){ sqlite3_reset(m->st); return SQLITE_NOMEM; }
      if( sqlite3_value_numeric_type(d)==SQLITE_INTEGER ){
        out->t = SQLITE_INTEGER;
        out->v = sqlite3_value_int64(d);
      }else{
        double f = sqlite3_value_double(d);
        out->t = SQLITE_FLOAT;
        memcpy(&out->v, &f, 8);
      }
      sqlite3_value_free(d);
    }else{
      out->t = t;
      if( t==SQLITE_INTEGER ) out->v = sqlite3_value_int64(v);
      else if( t==SQLITE_FLOAT ){ double f = sqlite3_value_double(v); memcpy(&out->v, &f, 8); }
      else if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
        const void *z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(v) : sqlite3_value_blob(v);
        out->n = sqlite3_value_bytes(v);
        if( (out->z = q_keep(r, z, out->n))==0 ){ sqlite3_reset(m->st); return SQLITE_NOMEM; }
      }
    }
  }
  sqlite3_reset(m->st);
remember:
  /* remember it (the inputs' bytes kept too) */
  if( m->nIn>1 ){
    qval *a = (qval*)q_keep(r, (const char*)&aIn[1], (int)sizeof(qval)*(m->nIn - 1));
    if( a==0 ) return SQLITE_NOMEM;
    for(k=0; k<m->nIn - 1; k++){
      if( isBytes(a[k].t) && (a[k].z = q_keep(r, a[k].z, a[k].n))==0 ) return SQLITE_NOMEM;
    }
    e->aMore = a;
  }
  e->in = in0;
  if( isBytes(e->in.t) && (e->in.z = q_keep(r, e->in.z, e->in.n))==0 ) return SQLITE_NOMEM;
  e->r = *out;
  e->h = h;
  m->n++;
  return SQLITE_OK;
}

/* ---- run state ------------------------------------------------------------------------ */

qrun *q_run_new(sqlite3 *db, const qplan *pl){
  qrun *r = ga_malloc64(sizeof(*r));
  int i;
  size_t per = (size_t)GA_BATCH*(1 + 8 + sizeof(char*) + sizeof(int));
  if( r==0 ) return 0;
  memset(r, 0, sizeof(*r));
  r->db = db;
  r->enc = q_enc_of(pl->bin);
  r->nMemo = pl->nMemo;
  r->aBuf = ga_malloc64(sizeof(qvec)*(uint64_t)(pl->nSlot + 1));
  r->pBufMem = ga_malloc64((uint64_t)per*(uint64_t)(pl->nSlot + 1));
  r->aMemo = ga_malloc64(sizeof(Memo)*(uint64_t)(pl->nMemo + 1));
  r->aIn = ga_malloc64(sizeof(struct qinset*)*(uint64_t)(pl->nSlot + 1));
  r->nSlot = pl->nSlot;
  if( r->aIn ) memset(r->aIn, 0, sizeof(struct qinset*)*(size_t)(pl->nSlot + 1));
  if( r->aBuf==0 || r->pBufMem==0 || r->aMemo==0 || r->aIn==0 ){
    q_run_free(r);
    return 0;
  }
  for(i=0; i<pl->nSlot + 1; i++){
    char *p = (char*)r->pBufMem + per*(size_t)i;
    r->aBuf[i].v = (int64_t*)p;
    r->aBuf[i].z = (const char**)(p + 8*GA_BATCH);
    r->aBuf[i].n = (int*)(p + (8 + sizeof(char*))*GA_BATCH);
    r->aBuf[i].t = (unsigned char*)(p + (8 + sizeof(char*) + sizeof(int))*GA_BATCH);
  }
  memset(r->aMemo, 0, sizeof(Memo)*(size_t)(pl->nMemo + 1));
  for(i=0; i<pl->nMemo; i++){
    r->aMemo[i].zSql = pl->aMemoNode[i]->zTpl;
    r->aMemo[i].node = pl->aMemoNode[i];
    r->aMemo[i].kind = -1;
    r->aMemo[i].nIn = pl->aMemoNode[i]->nArg;
  }
  for(i=0; i<M_NCONV; i++){
    r->aConv[i].zSql = azConv[i];
    r->aConv[i].kind = i;
    r->aConv[i].nIn = i==M_REM ? 2 : 1;
  }
  return r;
}

static void memoFree(Memo *m){
  sqlite3_finalize(m->st);
  ga_free(m->a);
}

void q_run_free(qrun *r){
  int i;
  if( r==0 ) return;
  for(i=0; r->aMemo && i<r->nMemo; i++) memoFree(&r->aMemo[i]);
  for(i=0; i<M_NCONV; i++) memoFree(&r->aConv[i]);
  for(i=0; r->aIn && i<r->nSlot; i++) inSetFree(r->aIn[i]);
  ga_free(r->aIn);
  if( r->worker ) sqlite3_close(r->db);
  while( r->keep ){
    Blk *b = r->keep->next;
    ga_free(r->keep);
    r->keep = b;
  }
  ga_free(r->aBuf);
  ga_free(r->pBufMem);
  ga_free(r->aMemo);
  ga_free(r->zErr);
  ga_free(r);
}

void q_run_worker(qrun *r){
  r->worker = 1;
  r->db = 0;                       /* its own, opened when first needed */
}

void q_run_set_threads(qrun *r, int n){
  r->nThread = n;
}

int q_run_threads(const qrun *r){
  return r->nThread>1 ? r->nThread : 1;
}

sqlite3 *q_run_db(const qrun *r){
  return r->db;
}

void q_run_groups(qrun *r, q_leaf_fn x, void *pArg){
  r->xLeaf = x;
  r->pLeafArg = pArg;
}

/* ---- comparing --------------------------------------------------------------------------- */

/* ASCII's upper case folded, as SQLite's NOCASE folds (sqlite3UpperToLower). */
static inline int fold(unsigned char c){ return c>='A' && c<='Z' ? c + 32 : c; }

int q_text_cmp(const char *za, int na, const char *zb, int nb, int coll){
  const unsigned char *a = (const unsigned char*)za, *b = (const unsigned char*)zb;
  int n, c;
  if( coll==C_BIN16LE || coll==C_BIN16BE ) return ga_text_order(a, na, b, nb, coll==C_BIN16LE ? SQLITE_UTF16LE : SQLITE_UTF16BE);
  if( coll==C_RTRIM ){
    while( na>0 && a[na-1]==' ' ) na--;
    while( nb>0 && b[nb-1]==' ' ) nb--;
  }else if( coll==C_NOCASE ){
    /* sqlite3StrNICmp over the shorter length, stopping at a NUL of a */
    int k;
    n = na<nb ? na : nb;
    for(k=0; k<n && a[k]!=0 && fold(a[k])==fold(b[k]); k++){}
    if( k<n ){
      c = fold(a[k]) - fold(b[k]);
      if( c ) return c;
    }
    return na - nb;
  }
  n = na<nb ? na : nb;
  c = n ? memcmp(a, b, (size_t)n) : 0;
  return c ? c : na - nb;
}

int q_text_key(const char *z, int n, int coll, char *buf){
  if( coll==C_RTRIM ){
    while( n>0 && z[n-1]==' ' ) n--;
  }else if( coll==C_NOCASE ){
    int k;
    memcpy(buf, &n, 4);             /* the length counts, bytes past a NUL do not */
    for(k=0; k<n && z[k]!=0; k++) buf[4 + k] = (char)fold((unsigned char)z[k]);
    if( k<n ) buf[4 + k++] = 0;
    return 4 + k;
  }
  if( n ) memcpy(buf, z, (size_t)n);
  return n;
}

/* Sign of integer i - real r, exactly. */
static int intRealCmp(int64_t i, double r){
  int64_t ri;
  if( r< -9223372036854775808.0 ) return 1;
  if( r>=9223372036854775808.0 ) return -1;
  ri = (int64_t)r;                  /* truncated toward zero */
  if( i<ri ) return -1;
  if( i>ri ) return 1;
  /* same integer part: r's fraction decides */
  if( r>(double)ri ) return -1;
  if( r<(double)ri ) return 1;
  return 0;
}

static double dbl(int64_t v){ double d; memcpy(&d, &v, 8); return d; }
static int64_t bitsOf(double d){ int64_t v; memcpy(&v, &d, 8); return v; }

int q_key_bytes(const qval *x, int coll, char *z){
  switch( x->t ){
    case SQLITE_NULL: z[0] = 0; return 1;
    case SQLITE_INTEGER: z[0] = 1; memcpy(z + 1, &x->v, 8); return 9;
    case SQLITE_FLOAT: {
      double d = dbl(x->v);
      if( d>=-9223372036854775808.0 && d<9223372036854775808.0 && d==floor(d) ){
        int64_t i = (int64_t)d;
        z[0] = 1; memcpy(z + 1, &i, 8);
      }else{
        z[0] = 2; memcpy(z + 1, &x->v, 8);
      }
      return 9;
    }
    default: {
      int m = x->t==SQLITE_TEXT ? q_text_key(x->z, x->n, coll, z + 5) : (x->n ? (memcpy(z + 5, x->z, (size_t)x->n), x->n) : 0);
      z[0] = (char)(x->t==SQLITE_TEXT ? 3 : 4);
      memcpy(z + 1, &m, 4);
      return 5 + m;
    }
  }
}

int q_cmp(const qval *a, const qval *b, int coll){
  int ta = a->t, tb = b->t;
  if( ta==SQLITE_NULL || tb==SQLITE_NULL ) return (tb==SQLITE_NULL) - (ta==SQLITE_NULL);
  if( ta<=SQLITE_FLOAT || tb<=SQLITE_FLOAT ){
    if( ta>SQLITE_FLOAT ) return 1;
    if( tb>SQLITE_FLOAT ) return -1;
    if( ta==SQLITE_INTEGER && tb==SQLITE_INTEGER ) return (a->v>b->v) - (a->v<b->v);
    if( ta==SQLITE_FLOAT && tb==SQLITE_FLOAT ){
      double x = dbl(a->v), y = dbl(b->v);
      return (x>y) - (x<y);
    }
    if( ta==SQLITE_INTEGER ) return intRealCmp(a->v, dbl(b->v));
    return -intRealCmp(b->v, dbl(a->v));
  }
  if( ta!=tb ) return ta==SQLITE_BLOB ? 1 : -1;
  if( ta==SQLITE_TEXT ) return q_text_cmp(a->z, a->n, b->z, b->n, coll);
  return q_text_cmp(a->z, a->n, b->z, b->n, C_BINARY);
}

/* ---- evaluation --------------------------------------------------------------------------- */

static void setNull(qvec *o, int i){ o->t[i] = SQLITE_NULL; }
static void setInt(qvec *o, int i, int64_t v){ o->t[i] = SQLITE_INTEGER; o->v[i] = v; }
static void setReal(qvec *o, int i, double d){
  if( d!=d ){ o->t[i] = SQLITE_NULL; return; }
  o->t[i] = SQLITE_FLOAT;
  o->v[i] = bitsOf(d);
}
static void setVal(qvec *o, int i, const qval *x){
  o->t[i] = (unsigned char)x->t;
  o->v[i] = x->v;
  o->z[i] = x->z;
  o->n[i] = x->n;
}

/* The number memo kind reads from x (TEXT and BLOB asked of SQLite;
** numbers and NULL as they are): its class into *pt, its value into *pv. */
static int numberBy(qrun *r, int kind, const qval *x, int *pt, int64_t *pv){
  if( x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ){
    qval y;
    int rc = memoGet(r, &r->aConv[kind], x, &y);
    if( rc ) return rc;
    *pt = y.t;
    *pv = y.v;
    return SQLITE_OK;
  }
  *pt = x->t;
  *pv = x->v;
  return SQLITE_OK;
}

/* The number arithmetic reads from x (requirement 1): INTEGER or REAL. */
static int numOf(qrun *r, const qval *x, int *pt, int64_t *pv){
  return numberBy(r, M_NUM, x, pt, pv);
}

/* sqlite3_value_double of x (TEXT and BLOB asked of SQLite). */
static int realOf(qrun *r, const qval *x, double *pd){
  if( x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ){
    qval y;
    int rc = memoGet(r, &r->aConv[M_DBL], x, &y);
    if( rc ) return rc;
    *pd = dbl(y.v);
  }else{
    *pd = x->t==SQLITE_INTEGER ? (double)x->v : x->t==SQLITE_FLOAT ? dbl(x->v) : 0.0;
  }
  return SQLITE_OK;
}

int q_sumnum(qrun *r, const qval *x, int *pt, int64_t *pv){
  return numberBy(r, M_SUMNUM, x, pt, pv);
}

int q_true(qrun *r, const qvec *v, int i, int *pTrue){
  switch( v->t[i] ){
    case SQLITE_INTEGER: *pTrue = v->v[i]!=0; return SQLITE_OK;
    case SQLITE_FLOAT: *pTrue = dbl(v->v[i])!=0.0; return SQLITE_OK;
    case SQLITE_NULL: *pTrue = 0; return SQLITE_OK;
    default: {
      /* sqlite3VdbeBooleanValue: sqlite3VdbeRealValue(x)!=0.0 */
      qval x;
      double d;
      int rc;
      q_get(v, i, &x);
      if( (rc = realOf(r, &x, &d))!=SQLITE_OK ) return rc;
      *pTrue = d!=0.0;
      return SQLITE_OK;
    }
  }
}

/* 1 true, 0 false, -1 NULL */
static int truth(qrun *r, const qvec *v, int i, int *rc){
  int b = 0;
  if( v->t[i]==SQLITE_NULL ) return -1;
  *rc = q_true(r, v, i, &b);
  return b;
}

/* A context over rows idx[0..m) of ctx. */
static void subCtx(const qctx *c, const int *idx, int m, int *buf, qctx *out){
  int i;
  *out = *c;
  out->n = m;
  if( c->grp ){
    for(i=0; i<m; i++) buf[i] = c->grp[idx[i]];
    out->grp = buf;
  }else{
    for(i=0; i<m; i++) buf[i] = c->sel ? c->sel[idx[i]] : idx[i];
    out->sel = buf;
  }
}

static int arith(qrun *r, int op, const qvec *L, const qvec *R, qvec *o, int n){
  int i, rc;
  for(i=0; i<n; i++){
    int tb = L->t[i], ta = R->t[i];
    int64_t iA, iB;
    double rA, rB;
    if( tb==SQLITE_INTEGER && ta==SQLITE_INTEGER ){
      iB = L->v[i];
      iA = R->v[i];
    int_math:
      switch( op ){
        case E_ADD: if( __builtin_add_overflow(iB, iA, &iB) ) goto fp_math; break;
        case E_SUB: if( __builtin_sub_overflow(iB, iA, &iB) ) goto fp_math; break;
        case E_MUL: if( __builtin_mul_overflow(iB, iA, &iB) ) goto fp_math; break;
        case E_DIV:
          if( iA==0 ){ setNull(o, i); continue; }
          if( iA==-1 && iB==INT64_MIN ) goto fp_math;
          iB /= iA;
          break;
        default:
          if( iA==0 ){ setNull(o, i); continue; }
          if( iA==-1 ) iA = 1;
          iB %= iA;
          break;
      }
      setInt(o, i, iB);
      continue;
    }
    if( tb==SQLITE_NULL || ta==SQLITE_NULL ){ setNull(o, i); continue; }
    {
      qval x;
      int t1, t2;
      int64_t v1, v2;
      q_get(L, i, &x);
      if( (rc = numOf(r, &x, &t2, &v2))!=SQLITE_OK ) return rc;
      q_get(R, i, &x);
      if( (rc = numOf(r, &x, &t1, &v1))!=SQLITE_OK ) return rc;
      if( t1==SQLITE_INTEGER && t2==SQLITE_INTEGER ){
        iB = v2; iA = v1;
        goto int_math;
      }
      if( op==E_REM && (tb>SQLITE_FLOAT || ta>SQLITE_FLOAT) ){
        qval aIn[2], y;
        q_get(L, i, &aIn[0]);
        q_get(R, i, &aIn[1]);
        if( (rc = memoGet(r, &r->aConv[M_REM], aIn, &y))!=SQLITE_OK ) return rc;
        setVal(o, i, &y);
        continue;
      }
    }
  fp_math:
    /* the operands as doubles: sqlite3VdbeRealValue */
    {
      qval x;
      q_get(R, i, &x);
      if( (rc = realOf(r, &x, &rA))!=SQLITE_OK ) return rc;
      q_get(L, i, &x);
      if( (rc = realOf(r, &x, &rB))!=SQLITE_OK ) return rc;
    }
    switch( op ){
      case E_ADD: rB += rA; break;
      case E_SUB: rB -= rA; break;
      case E_MUL: rB *= rA; break;
      case E_DIV:
        if( rA==0.0 ){ setNull(o, i); continue; }
        rB /= rA;
        break;
      default: {
        /* sqlite3VdbeIntValue of each: doubleToInt64 for a REAL */
        int64_t a = ta==SQLITE_INTEGER ? R->v[i] : rA<=-9223372036854775808.0 ? INT64_MIN : rA>=9223372036854775807.0 ? INT64_MAX : (int64_t)rA;
        int64_t bb = tb==SQLITE_INTEGER ? L->v[i] : rB<=-9223372036854775808.0 ? INT64_MIN : rB>=9223372036854775807.0 ? INT64_MAX : (int64_t)rB;
        if( a==0 ){ setNull(o, i); continue; }
        if( a==-1 ) a = 1;
        rB = (double)(bb % a);
        break;
      }
    }
    setReal(o, i, rB);
  }
  return SQLITE_OK;
}

/* Apply a comparison's affinity to x (requirement 2). */
static int applyAff(qrun *r, int aff, qval *x){
  if( aff>=GA_AFF_NUMERIC && x->t==SQLITE_TEXT ) return memoGet(r, &r->aConv[M_AFFNUM], x, x);
  if( aff==GA_AFF_TEXT && (x->t==SQLITE_INTEGER || x->t==SQLITE_FLOAT) ) return memoGet(r, &r->aConv[M_STR], x, x);
  return SQLITE_OK;
}

int q_apply_aff(qrun *r, int aff, qval *x){
  return applyAff(r, aff, x);
}

static int compare(qrun *r, const qexpr *e, const qvec *L, const qvec *R, qvec *o, int n){
  int i, rc, op = e->op;
  /* numbers are not converted unless the affinity is TEXT; TEXT is not
  ** unless it is NUMERIC (or INTEGER, REAL) */
  int numPlain = e->cmpAff!=GA_AFF_TEXT;
  int textPlain = e->cmpColl==C_BINARY && e->cmpAff<GA_AFF_NUMERIC;
  for(i=0; i<n; i++){
    int c, tl = L->t[i], tr = R->t[i];
    if( tl==SQLITE_INTEGER && tr==SQLITE_INTEGER ){
      c = (L->v[i]>R->v[i]) - (L->v[i]<R->v[i]);
    }else if( numPlain && tl==SQLITE_FLOAT && tr==SQLITE_FLOAT ){
      double x = dbl(L->v[i]), y = dbl(R->v[i]);
      c = (x>y) - (x<y);
    }else if( numPlain && tl<=SQLITE_FLOAT && tr<=SQLITE_FLOAT ){
      c = tl==SQLITE_INTEGER ? intRealCmp(L->v[i], dbl(R->v[i])) : -intRealCmp(R->v[i], dbl(L->v[i]));
    }else if( textPlain && tl==SQLITE_TEXT && tr==SQLITE_TEXT ){
      int na = L->n[i], nb = R->n[i], m = na<nb ? na : nb;
      c = m ? memcmp(L->z[i], R->z[i], (size_t)m) : 0;
      if( c==0 ) c = na - nb;
    }else if( tl==SQLITE_NULL || tr==SQLITE_NULL ){
      if( op==E_IS || op==E_ISNOT ){
        int eq = L->t[i]==R->t[i];
        setInt(o, i, op==E_IS ? eq : !eq);
      }else{
        setNull(o, i);
      }
      continue;
    }else{
      qval a, b;
      q_get(L, i, &a);
      q_get(R, i, &b);
      if( e->cmpAff>=GA_AFF_TEXT && (a.t==SQLITE_TEXT || b.t==SQLITE_TEXT || e->cmpAff==GA_AFF_TEXT) ){
        if( (rc = applyAff(r, e->cmpAff, &a)) || (rc = applyAff(r, e->cmpAff, &b)) ) return rc;
      }
      c = q_cmp(&a, &b, e->cmpColl);
    }
    switch( op ){
      case E_EQ: case E_IS: c = c==0; break;
      case E_NE: case E_ISNOT: c = c!=0; break;
      case E_LT: c = c<0; break;
      case E_LE: c = c<=0; break;
      case E_GT: c = c>0; break;
      default: c = c>=0; break;
    }
    setInt(o, i, c);
  }
  return SQLITE_OK;
}

/* o's row i: substr(A's row i, P, N), P >= 1, N >= 0, A TEXT or BLOB (5b). */
static void cutSubstr(const qvec *A, int i, int P, int N, qvec *o){
  const unsigned char *z = (const unsigned char*)A->z[i], *end = z + A->n[i], *z2;
  int64_t p1 = P - 1, p2 = N;
  o->t[i] = A->t[i];
  o->v[i] = 0;
  if( A->t[i]==SQLITE_BLOB ){
    int64_t len = A->n[i];
    if( len==0 ){                   /* sqlite3_value_blob() of x'' is NULL: so is the result */
      o->t[i] = SQLITE_NULL;
      return;
    }
    if( p1 + p2>len ){ p2 = len - p1; if( p2<0 ) p2 = 0; }
    o->z[i] = (const char*)z + (p1<len ? p1 : len);
    o->n[i] = (int)p2;
    return;
  }
  /* SQLITE_SKIP_UTF8 over the text up to its NUL (or its end) */
  while( z<end && *z && p1 ){
    if( *(z++)>=0xc0 ) while( z<end && (*z & 0xc0)==0x80 ) z++;
    p1--;
  }
  for(z2=z; z2<end && *z2 && p2; p2--){
    if( *(z2++)>=0xc0 ) while( z2<end && (*z2 & 0xc0)==0x80 ) z2++;
  }
  o->z[i] = (const char*)z;
  o->n[i] = (int)(z2 - z);
}

static int evalCase(qrun *r, qexpr *e, const qctx *ctx, qvec *o){
  int *left = ga_malloc64(sizeof(int)*3*(uint64_t)(ctx->n + 1)), *take, *sub;
  int nLeft = ctx->n, k, i, rc = SQLITE_OK, nW = (e->nArg - e->nElse)/2;
  if( left==0 ) return SQLITE_NOMEM;
  take = left + ctx->n + 1;
  sub = take + ctx->n + 1;
  for(i=0; i<ctx->n; i++){ left[i] = i; setNull(o, i); }
  for(k=0; k<nW && nLeft && rc==SQLITE_OK; k++){
    qctx c;
    qvec *w, *th;
    int nTake = 0, nRest = 0;
    subCtx(ctx, left, nLeft, sub, &c);
    if( (rc = q_eval(r, e->arg[2*k], &c, &w))!=SQLITE_OK ) break;
    for(i=0; i<nLeft; i++){
      int b = truth(r, w, i, &rc);
      if( rc ) break;
      if( b==1 ) take[nTake++] = left[i];
      else left[nRest++] = left[i];
    }
    if( rc || nTake==0 ){ nLeft = nRest; continue; }
    nLeft = nRest;
    subCtx(ctx, take, nTake, sub, &c);
    if( (rc = q_eval(r, e->arg[2*k + 1], &c, &th))!=SQLITE_OK ) break;
    for(i=0; i<nTake; i++){
      qval x;
      q_get(th, i, &x);
      setVal(o, take[i], &x);
    }
  }
  if( rc==SQLITE_OK && e->nElse && nLeft ){
    qctx c;
    qvec *el;
    memcpy(take, left, sizeof(int)*(size_t)nLeft);
    subCtx(ctx, take, nLeft, sub, &c);
    if( (rc = q_eval(r, e->arg[e->nArg - 1], &c, &el))==SQLITE_OK ){
      for(i=0; i<nLeft; i++){
        qval x;
        q_get(el, i, &x);
        setVal(o, take[i], &x);
      }
    }
  }
  ga_free(left);
  return rc;
}

/* A constant IN list as a run compares with it (requirement 2b): its items
** (or a subquery's values, plan.c 3a) with the IN's affinity applied, and
** for a long list their canonical keys (under the IN's collation) sorted,
** to be searched. */
struct qinset {
  qval *a; int n;                  /* the items that are not NULL */
  int hasNull;                     /* ... and whether one is NULL */
  int64_t *aInt;                   /* long lists of INTEGERs alone: them, ascending (an INTEGER x
                                   ** is searched there, no key made: each worker's run makes its
                                   ** own list, TPC-H Q20's 4,363 on 16 threads) */
  char **az;                       /* other long lists (and x not an INTEGER): the items' keys,
                                   ** sorted (into zKeys), made at the first such x */
  char *zKeys;                     /* ... their bytes, each after its length (4 bytes) */
};
#define IN_LINEAR 8                /* items compared one by one, at most */

/* qsort's order of keys made by inSet (each one's length in the 4 bytes
** before it). */
static int keyCmp(const void *pa, const void *pb){
  char *const *a = (char *const*)pa, *const *b = (char *const*)pb;
  int na, nb, c;
  memcpy(&na, *a - 4, 4);
  memcpy(&nb, *b - 4, 4);
  c = memcmp(*a, *b, (size_t)(na<nb ? na : nb));
  return c ? c : na - nb;
}

static void inSetFree(struct qinset *p){
  if( p==0 ) return;
  ga_free(p->aInt);
  ga_free(p->zKeys);
  ga_free(p->az);
  ga_free(p->a);
  ga_free(p);
}

static int cmpI64(const void *a, const void *b){
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x>y) - (x<y);
}

/* Long list p's keys (inSet's az), made the first time an x needs them. */
static int inSetKeys(const qexpr *e, struct qinset *p){
  uint64_t nKeys = 0, at = 0;
  int k;
  if( p->az ) return SQLITE_OK;
  for(k=0; k<p->n; k++) nKeys += 4 + 13 + (uint64_t)p->a[k].n + 8;
  if( (p->zKeys = ga_malloc64(nKeys))==0 || (p->az = ga_malloc64(sizeof(char*)*(uint64_t)p->n))==0 ){
    ga_free(p->zKeys);
    p->zKeys = 0;
    return SQLITE_NOMEM;
  }
  for(k=0; k<p->n; k++){
    char *z = p->zKeys + at;
    int m = q_key_bytes(&p->a[k], e->cmpColl, z + 4);
    memcpy(z, &m, 4);
    p->az[k] = z + 4;
    at += 4 + (uint64_t)m;
    assert( at<=nKeys );
  }
  qsort(p->az, (size_t)p->n, sizeof(char*), keyCmp);
  return SQLITE_OK;
}

/* e's list as this run compares with it (made the first time). */
static int inSet(qrun *r, const qexpr *e, struct qinset **pp){
  struct qinset *p = r->aIn[e->slot];
  int k, rc;
  if( p ){ *pp = p; return SQLITE_OK; }
  if( (p = ga_malloc64(sizeof(*p)))==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  if( (p->a = ga_malloc64(sizeof(qval)*(uint64_t)(e->nArg + e->nIn + 1)))==0 ){ inSetFree(p); return SQLITE_NOMEM; }
  p->hasNull = e->hasNull;
  for(k=0; k<e->nArg + e->nIn; k++){
    qval x;
    if( k<e->nArg ){
      const qexpr *l = e->arg[k];
      x.t = l->t; x.v = l->i; x.z = l->z; x.n = l->n;
    }else{
      x = e->aIn[k - e->nArg];      /* (a subquery's: plan.c, 3a) */
    }
    if( x.t==SQLITE_NULL ){ p->hasNull = 1; continue; }
    if( (rc = applyAff(r, e->cmpAff, &x))!=SQLITE_OK ){ inSetFree(p); return rc; }
    p->a[p->n++] = x;
  }
  if( p->n>IN_LINEAR ){
    for(k=0; k<p->n && p->a[k].t==SQLITE_INTEGER; k++){}
    if( k==p->n ){
      if( (p->aInt = ga_malloc64(sizeof(int64_t)*(uint64_t)p->n))==0 ){ inSetFree(p); return SQLITE_NOMEM; }
      for(k=0; k<p->n; k++) p->aInt[k] = p->a[k].v;
      for(k=1; k<p->n && p->aInt[k-1]<=p->aInt[k]; k++){}
      if( k<p->n ) qsort(p->aInt, (size_t)p->n, sizeof(int64_t), cmpI64);
    }
  }
  r->aIn[e->slot] = p;
  *pp = p;
  return SQLITE_OK;
}

/* x IN (list) over ctx into o (requirement 2b): true where x equals an
** item (x's affinity applied to both, x's collation), else NULL where x
** or an item is NULL, else false. */
static int evalIn(qrun *r, qexpr *e, const qctx *ctx, qvec *o){
  qvec *A, **aV = 0;
  int i, k, rc, n = ctx->n, konst = 1;
  struct qinset *set = 0;
  if( (rc = q_eval(r, e->a, ctx, &A))!=SQLITE_OK ) return rc;
  for(k=0; k<e->nArg && konst; k++) konst = e->arg[k]->op==E_LIT;
  if( konst ){
    if( (rc = inSet(r, e, &set))!=SQLITE_OK ) return rc;
  }else{
    if( (aV = ga_malloc64(sizeof(qvec*)*(uint64_t)e->nArg))==0 ) return SQLITE_NOMEM;
    for(k=0; k<e->nArg; k++){
      if( (rc = q_eval(r, e->arg[k], ctx, &aV[k]))!=SQLITE_OK ){ ga_free(aV); return rc; }
    }
  }
  rc = SQLITE_OK;
  for(i=0; i<n && rc==SQLITE_OK; i++){
    qval x;
    int found = 0, null = 0;
    q_get(A, i, &x);
    if( x.t==SQLITE_NULL ){ setNull(o, i); continue; }
    if( (rc = applyAff(r, e->cmpAff, &x))!=SQLITE_OK ) break;
    if( set && set->aInt && x.t==SQLITE_INTEGER ){
      int lo = 0, hi = set->n - 1;
      while( lo<=hi && !found ){
        int mid = (lo + hi)/2;
        if( set->aInt[mid]==x.v ) found = 1;
        else if( set->aInt[mid]<x.v ) lo = mid + 1;
        else hi = mid - 1;
      }
      null = set->hasNull;
    }else if( set && set->n>IN_LINEAR ){
      char buf[64], *z = x.n + 13 + 8<=(int)sizeof(buf) ? buf : ga_malloc64((uint64_t)x.n + 13 + 8);
      int m, lo = 0, hi = set->n - 1;
      if( z==0 || (rc = inSetKeys(e, set))!=SQLITE_OK ){
        if( z!=buf ) ga_free(z);
        if( rc==SQLITE_OK ) rc = SQLITE_NOMEM;
        break;
      }
      m = q_key_bytes(&x, e->cmpColl, z);
      while( lo<=hi && !found ){
        int mid = (lo + hi)/2, nm, c;
        memcpy(&nm, set->az[mid] - 4, 4);
        c = memcmp(z, set->az[mid], (size_t)(m<nm ? m : nm));
        if( c==0 ) c = m - nm;
        if( c==0 ) found = 1;
        else if( c<0 ) hi = mid - 1;
        else lo = mid + 1;
      }
      if( z!=buf ) ga_free(z);
      null = set->hasNull;
    }else if( set ){
      for(k=0; k<set->n && !found; k++) found = q_cmp(&x, &set->a[k], e->cmpColl)==0;
      null = set->hasNull;
    }else{
      for(k=0; k<e->nArg && !found && rc==SQLITE_OK; k++){
        qval y;
        q_get(aV[k], i, &y);
        if( y.t==SQLITE_NULL ){ null = 1; continue; }
        if( (rc = applyAff(r, e->cmpAff, &y))==SQLITE_OK ) found = q_cmp(&x, &y, e->cmpColl)==0;
      }
    }
    if( found ) setInt(o, i, 1);
    else if( null ) setNull(o, i);
    else setInt(o, i, 0);
  }
  ga_free(aV);
  return rc;
}

/* TEXT z[0..n) LIKE or GLOB e's pattern (5c), into o's row i: 1 or 0, as
** likeFunc gives them (sqlite3_strlike and sqlite3_strglob are its
** patternCompare, with like()'s own case folding and no escape, and
** glob()'s '[' sets); value_text's bytes end at a NUL. *pzBuf, *pnBuf: the
** NUL-terminated copy's room, grown as values need (the caller frees it). */
static int matchLike(const qexpr *e, const char *z, int n, char **pzBuf, int *pnBuf, qvec *o, int i){
  qval y;
  if( n>=*pnBuf ){
    char *zNew = ga_realloc64(*pzBuf, n + 256);
    if( zNew==0 ) return SQLITE_NOMEM;
    *pzBuf = zNew;
    *pnBuf = n + 256;
  }
  if( n ) memcpy(*pzBuf, z, (size_t)n);
  (*pzBuf)[n] = 0;
  memset(&y, 0, sizeof(y));
  y.t = SQLITE_INTEGER;
  y.v = (e->like==Q_LIKE ? sqlite3_strlike(e->zLike, *pzBuf, 0) : sqlite3_strglob(e->zLike, *pzBuf))==0;
  setVal(o, i, &y);
  return SQLITE_OK;
}

/* E_SQL (requirement 5: SQLite's value, once per distinct combination of
** its inputs) and E_MINMAX (func.c's minmaxFunc: NULL if an argument is;
** min keeps the last of equal least values, max the first of equal
** greatest) over ctx into o. */
static int evalArgs(qrun *r, qexpr *e, const qctx *ctx, qvec *o){
  qvec *aBuf[4], **aV = e->nArg<=4 ? aBuf : ga_malloc64(sizeof(qvec*)*(uint64_t)e->nArg);
  qval aX[4], *ax = e->nArg<=4 ? aX : ga_malloc64(sizeof(qval)*(uint64_t)e->nArg);
  Memo *m = e->op==E_SQL ? &r->aMemo[e->memo] : 0;
  char *zLike = 0;                  /* matchLike's copies */
  int i, k, rc = SQLITE_OK, nLike = 0;
  if( aV==0 || ax==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(k=0; k<e->nArg && rc==SQLITE_OK; k++) rc = q_eval(r, e->arg[k], ctx, &aV[k]);
  for(i=0; i<ctx->n && rc==SQLITE_OK; i++){
    qval y;
    if( m==0 ){                     /* min() or max() */
      int best = 0;
      for(k=0; k<e->nArg && aV[k]->t[i]!=SQLITE_NULL; k++) q_get(aV[k], i, &ax[k]);
      if( k<e->nArg ){ setNull(o, i); continue; }
      for(k=1; k<e->nArg; k++){
        int c = q_cmp(&ax[best], &ax[k], e->cmpColl);
        if( e->agg==A_MIN ? c>=0 : c<0 ) best = k;
      }
      setVal(o, i, &ax[best]);
      continue;
    }
    if( e->substr && (aV[0]->t[i]==SQLITE_TEXT || aV[0]->t[i]==SQLITE_BLOB) ){
      cutSubstr(aV[0], i, e->subP, e->subN, o);
      continue;
    }
    if( e->like && aV[0]->t[i]==SQLITE_TEXT ){
      if( (rc = matchLike(e, aV[0]->z[i], aV[0]->n[i], &zLike, &nLike, o, i))!=SQLITE_OK ) break;
      continue;
    }
    for(k=0; k<e->nArg; k++) q_get(aV[k], i, &ax[k]);
    if( (rc = memoGet(r, m, ax, &y))==SQLITE_OK ) setVal(o, i, &y);
  }
done:
  ga_free(zLike);
  if( aV!=aBuf ) ga_free(aV);
  if( ax!=aX ) ga_free(ax);
  return rc;
}

int q_eval(qrun *r, qexpr *e, const qctx *ctx, qvec **pv){
  qvec *o = &r->aBuf[e->slot], *A = 0, *B = 0;
  int n = ctx->n, i, rc = SQLITE_OK;
  *pv = o;
  switch( e->op ){
    case E_COL: {
      const ga_colvec *c = &ctx->b->col[e->iCol];
      for(i=0; i<n; i++){
        int j = ctx->sel ? ctx->sel[i] : i, t = c->type[j];
        o->t[i] = (unsigned char)t;
        o->v[i] = c->v[j];
        if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
          const ga_cell *cl = &c->cell[c->v[j]];
          o->z[i] = cl->z;
          o->n[i] = cl->n;
        }
      }
      return SQLITE_OK;
    }
    case E_KEY: case E_BARE: case E_AGGREF:
      for(i=0; i<n; i++){
        qval x;
        r->xLeaf(r->pLeafArg, e->op, e->iCol, ctx->grp[i], &x);
        setVal(o, i, &x);
      }
      return SQLITE_OK;
    case E_LIT: {
      qval x;
      x.t = e->t; x.v = e->i; x.z = e->z; x.n = e->n;
      for(i=0; i<n; i++) setVal(o, i, &x);
      return SQLITE_OK;
    }
    case E_COLLATE: case E_UPLUS:
      if( (rc = q_eval(r, e->a, ctx, &A))==SQLITE_OK ) *pv = A;
      return rc;
    case E_IN:
      return evalIn(r, e, ctx, o);
    case E_SQL: case E_MINMAX:
      return evalArgs(r, e, ctx, o);
    case E_CASE:
      return evalCase(r, e, ctx, o);
    default: break;
  }
  if( e->a && (rc = q_eval(r, e->a, ctx, &A))!=SQLITE_OK ) return rc;
  if( e->b && (rc = q_eval(r, e->b, ctx, &B))!=SQLITE_OK ) return rc;
  switch( e->op ){
    case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_REM:
      return arith(r, e->op, A, B, o, n);
    case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE: case E_IS: case E_ISNOT:
      return compare(r, e, A, B, o, n);
    case E_AND: case E_OR:
      for(i=0; i<n && rc==SQLITE_OK; i++){
        int x = truth(r, A, i, &rc), y = truth(r, B, i, &rc);
        if( e->op==E_AND ){
          if( x==0 || y==0 ) setInt(o, i, 0);
          else if( x<0 || y<0 ) setNull(o, i);
          else setInt(o, i, 1);
        }else{
          if( x==1 || y==1 ) setInt(o, i, 1);
          else if( x<0 || y<0 ) setNull(o, i);
          else setInt(o, i, 0);
        }
      }
      return rc;
    case E_NOT:
      for(i=0; i<n && rc==SQLITE_OK; i++){
        int x = truth(r, A, i, &rc);
        if( x<0 ) setNull(o, i); else setInt(o, i, !x);
      }
      return rc;
    case E_ISNULL: case E_NOTNULL:
      for(i=0; i<n; i++) setInt(o, i, (A->t[i]==SQLITE_NULL)==(e->op==E_ISNULL));
      return SQLITE_OK;
    case E_ABS:
      for(i=0; i<n; i++){
        if( A->t[i]==SQLITE_NULL ){ setNull(o, i); continue; }
        if( A->t[i]==SQLITE_INTEGER ){
          int64_t v = A->v[i];
          if( v==INT64_MIN ) return q_run_error(r, QE_BAIL, "abs() of the least integer (an error in SQLite)");
          setInt(o, i, v<0 ? -v : v);
        }else{
          double d;
          if( A->t[i]==SQLITE_FLOAT ){
            d = dbl(A->v[i]);
          }else{
            qval x;                 /* sqlite3_value_double of TEXT or BLOB */
            q_get(A, i, &x);
            if( (rc = realOf(r, &x, &d))!=SQLITE_OK ) return rc;
          }
          if( d<0 ) d = -d;
          o->t[i] = SQLITE_FLOAT;
          o->v[i] = bitsOf(d);
        }
      }
      return SQLITE_OK;
    case E_COALESCE: {
      /* the first argument's values, then each next one's where still NULL */
      int k;
      for(k=0; k<e->nArg; k++){
        qvec *V;
        if( (rc = q_eval(r, e->arg[k], ctx, &V))!=SQLITE_OK ) return rc;
        for(i=0; i<n; i++){
          qval x;
          if( k>0 && o->t[i]!=SQLITE_NULL ) continue;
          q_get(V, i, &x);
          setVal(o, i, &x);
        }
      }
      return SQLITE_OK;
    }
    case E_NULLIF: {
      qvec *X, *Y;
      if( (rc = q_eval(r, e->arg[0], ctx, &X)) || (rc = q_eval(r, e->arg[1], ctx, &Y)) ) return rc;
      for(i=0; i<n; i++){
        qval x, y;
        q_get(X, i, &x);
        q_get(Y, i, &y);
        if( x.t!=SQLITE_NULL && y.t!=SQLITE_NULL && q_cmp(&x, &y, e->cmpColl)==0 ) setNull(o, i);
        else setVal(o, i, &x);
      }
      return SQLITE_OK;
    }
    default:
      return q_run_error(r, QE_BAIL, "an operator the engine does not evaluate");
  }
}
