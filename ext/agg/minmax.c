/*
** gpu_min(X), gpu_max(X), gpu_argmin(A, V), gpu_argmax(A, V).
**
**   1. gpu_min/gpu_max return what min()/max() return: NULLs skipped, NULL on
**      no rows, the value as it was (INTEGER stays INTEGER, REAL stays REAL,
**      TEXT and BLOB as stored). The order is SQLite's, by storage class with
**      no conversion: NULL < numbers < TEXT < BLOB; INTEGER against REAL
**      exactly; TEXT by BINARY collation (memcmp, then length, of the
**      database encoding's bytes: text.h) — a column's
**      declared collation (NOCASE, ...) is not visible to an extension
**      function, so TEXT always compares as BINARY; BLOB by memcmp, then
**      length. Ties keep the first value in scan order (max over 1, 1.0 is the
**      INTEGER 1). ±Inf are ordinary values.
**   2. gpu_argmax(A, V) / gpu_argmin(A, V): A from the row whose V is
**      greatest / least in that order; rows with NULL V skipped; NULL when no
**      row has a non-NULL V; ties to the first row in scan order; A of any
**      type, returned exactly (NULL included). The argument order is DuckDB's
**      arg_max and ClickHouse's argMax.
**   3. Numbers go through the chunk pipeline (GA_OP_MIN/MAX: values in scan
**      order with a type bitmap); the device returns each chunk's extreme and
**      its first position, and chunks fold in order, so ties across chunks go
**      to the earlier chunk. TEXT and BLOB values, rare in numeric columns, are
**      compared here on the CPU; they never tie with numbers, so their order
**      against numbers needs no positions. For max, once a TEXT or BLOB value
**      is seen numbers cannot win and are skipped; for min, the other way.
**   4. The argument functions keep each chunk's A values beside it (in the
**      slot's side data: a record per value, TEXT/BLOB bytes in one arena per
**      chunk, never a malloc per row) until the chunk's winner is known; then
**      only the winner's A is kept. Memory is O(chunk), not O(rows), and not
**      O(chunk x A's size): a chunk whose A bytes reach ARENA_MAX is handed
**      over early, and an arena that one huge A grew past twice that is cut
**      back once its chunk is folded, so a pooled slot never holds more.
**   5. As for sums, the first `threshold` numbers are folded here without a
**      buffer; small groups never touch the pool or CUDA.
**   6. As window functions (xValue, xInverse): the frame's least / greatest V
**      by the same order and ties (the frame's first), for any frame. SQLite
**      removes rows oldest first, so a window keeps its candidates in a
**      queue (Frame): the rows whose V no later row's V beats, oldest first,
**      each beating the ones after it; the front is the result. A row joins
**      at the back, after dropping the candidates it beats; xInverse drops
**      the front once its row has left. Each row is queued and dropped at
**      most once: O(1) a row, amortized.
**   7. SQLite gives a context no sign that it serves a window until it
**      first calls xValue or xInverse, which may come after the whole
**      partition (a frame to UNBOUNDED FOLLOWING), and most serve plain
**      aggregates. So a context first asks whether a running statement's
**      program may call an aggregate as a window function (winsense.c);
**      where none does, it keeps nothing for one. Else it logs its rows
**      until a window asks (Log: V and A as 16-byte records, TEXT and BLOB
**      bytes in one arena; a store a row, no comparison as it is stepped). A full log (LOG_ROWS rows or LOG_BYTES bytes) is compacted
**      into the queue: a pass from its newest row back keeps the rows that
**      no later row of the log beats (one comparison a row, in a tight loop
**      over the records), and they join the queue in order. The first
**      xValue or xInverse compacts what is logged, and from then on rows
**      join the queue as they are stepped. Memory: one log plus the queue,
**      all the rows only when every row is a candidate (an ascending
**      gpu_min): a frame of any size is served, as SQLite keeps the
**      partition for its own.
**   8. A failed allocation gives up what is kept for a window (the
**      aggregate's answer does not need it), and a window then gets "out of
**      memory". A context that kept nothing (7.) and is asked for a frame
**      (winsense.c was wrong) is an error naming that, never an answer.
*/
#include <string.h>
#include "pipe.h"
#include "winsense.h"
#include "text.h"

/* A value kept by the aggregate: a copy, with its own buffer. */
typedef struct Keep {
  int type;                 /* SQLITE_INTEGER .. SQLITE_NULL; 0: nothing kept */
  int n;                    /* bytes at z (TEXT, BLOB) */
  sqlite3_int64 i;          /* INTEGER value */
  double r;                 /* REAL value */
  char *z;                  /* TEXT or BLOB bytes (owned, grown, never shrunk) */
  int cap;                  /* bytes allocated at z */
} Keep;

/* A value in a flat record: a number's 8 bytes, or TEXT/BLOB bytes as an
** offset into an arena and a length. */
typedef struct ARec { uint64_t v; uint32_t n; int32_t type; } ARec;

/* The latest rows stepped before a window asked (7.), in step order. */
typedef struct Log {
  ARec *r;                  /* V of each row, then its A for argmin/argmax (TEXT,
                            ** BLOB: the record's v is an offset into z) */
  int w;                    /* records a row: 1, or 2 with A */
  uint32_t *sv;             /* LOG_ROWS entries of scratch for the compaction */
  int64_t n;                /* rows logged */
  int64_t cap;              /* rows allocated at r */
  int64_t lim;              /* rows this batch may hold (cap) */
  char *z;                  /* the TEXT and BLOB bytes of v and a */
  int64_t nz;               /* bytes in use at z */
  int64_t szz;              /* bytes allocated at z */
} Log;

/* One aggregate context of the family. */
typedef struct Ext {
  ga_ext num;               /* best number so far; pos: its rank among numbers */
  Keep other;               /* best TEXT or BLOB so far */
  Keep argNum;              /* argmin/argmax: A of num's row */
  Keep argOther;            /* argmin/argmax: A of other's row */
  int64_t nNum;             /* numbers folded here (before the pipeline) */
  int64_t left;             /* numbers still to fold here before pipelining */
  ga_pipe *pipe;            /* chunk pipeline, once past the threshold */
  int isMax;                /* max/argmax, else min/argmin */
  int isArg;                /* argmin/argmax */
  int oom;                  /* a copy failed: the result is "out of memory" */
  Log log;                  /* rows logged for a window yet to be seen (7.) */
  struct Frame *fr;         /* window candidates, once built from the log */
  int started;              /* a row was stepped */
  int lost;                 /* nothing kept for a window: LOST_PLAIN or LOST_NOMEM */
  int win;                  /* used as a window function: fr alone answers */
  int enc;                  /* the database's text encoding: TEXT's order (text.h) */
} Ext;
#define LOST_PLAIN 1        /* no statement running may use a window (7.) */
#define LOST_NOMEM 2        /* an allocation failed */

/* Side data of a slot for the argument functions: A of each value of the
** chunk, TEXT/BLOB bytes in an arena after the records. One allocation,
** grown by doubling, freed with the slot. */
typedef struct ArgAux {
  int64_t cap;              /* records */
  int64_t nArena;           /* arena bytes in use */
  int64_t szArena;          /* arena bytes allocated */
  ARec rec[1];              /* cap records, then the arena */
} ArgAux;
#define AUX_ARENA(x) ((char*)&(x)->rec[(x)->cap])
#define ARENA_MAX ((int64_t)16 << 20)  /* A bytes that end a chunk early */

/* ---- kept values -------------------------------------------------------- */

static int keepBytes(Keep *k, int type, const void *z, int n){
  if( n>k->cap ){
    char *zNew = sqlite3_realloc(k->z, n);
    if( zNew==0 ) return SQLITE_NOMEM;
    k->z = zNew;
    k->cap = n;
  }
  if( n ) memcpy(k->z, z, n);
  k->type = type;
  k->n = n;
  return SQLITE_OK;
}

static int keepValue(Keep *k, sqlite3_value *v){
  int t = sqlite3_value_type(v);
  switch( t ){
    case SQLITE_INTEGER: k->i = sqlite3_value_int64(v); break;
    case SQLITE_FLOAT:   k->r = sqlite3_value_double(v); break;
    case SQLITE_TEXT:    return keepBytes(k, t, sqlite3_value_text(v), sqlite3_value_bytes(v));
    case SQLITE_BLOB:    return keepBytes(k, t, sqlite3_value_blob(v), sqlite3_value_bytes(v));
  }
  k->type = t;
  return SQLITE_OK;
}

static void keepResult(sqlite3_context *ctx, const Keep *k){
  switch( k->type ){
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, k->i); break;
    case SQLITE_FLOAT:   sqlite3_result_double(ctx, k->r); break;
    case SQLITE_TEXT:    sqlite3_result_text(ctx, k->z ? k->z : "", k->n, SQLITE_TRANSIENT); break;
    case SQLITE_BLOB:    sqlite3_result_blob(ctx, k->z ? k->z : "", k->n, SQLITE_TRANSIENT); break;
    default:             sqlite3_result_null(ctx); break;
  }
}

/* Sign of a - b for two TEXT/BLOB values (TEXT < BLOB; then bytes, then
** length: TEXT's in the database's encoding enc, text.h). */
static int otherCmp(int enc, int ta, const void *za, int na, int tb, const void *zb, int nb){
  if( ta!=tb ) return ta==SQLITE_TEXT ? -1 : 1;
  return ga_text_order(za, na, zb, nb, ta==SQLITE_TEXT ? enc : SQLITE_UTF8);
}

/* ---- the argument functions' side data ----------------------------------- */

/* Record A for the value about to be appended at position q->ni. */
static int argRecord(ga_pipe *q, sqlite3_value *a){
  ga_slot *s = q->fill;
  ArgAux *x = (ArgAux*)s->aux;
  int i = q->ni, t = sqlite3_value_type(a);
  ARec *r;
  if( x==0 || x->cap<q->cap ){
    int64_t sz = (int64_t)sizeof(ArgAux) + (int64_t)sizeof(ARec)*q->cap;
    ga_free(s->aux);
    s->aux = x = (ArgAux*)sqlite3_malloc64(sz);
    if( x==0 ) return SQLITE_NOMEM;
    s->nAux = sz;
    x->cap = q->cap;
    x->szArena = 0;
  }
  if( i==0 ) x->nArena = 0;         /* a new chunk */
  r = &x->rec[i];
  r->type = t;
  if( t==SQLITE_INTEGER ){
    r->v = (uint64_t)sqlite3_value_int64(a);
  }else if( t==SQLITE_FLOAT ){
    double d = sqlite3_value_double(a);
    memcpy(&r->v, &d, sizeof(d));
  }else if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
    const void *z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(a) : sqlite3_value_blob(a);
    int n = sqlite3_value_bytes(a);
    if( x->nArena+n > x->szArena ){
      int64_t want = (x->szArena ? x->szArena : 4096);
      while( want < x->nArena+n ) want *= 2;
      x = (ArgAux*)sqlite3_realloc64(x, s->nAux - x->szArena + want);
      if( x==0 ) return SQLITE_NOMEM;
      s->nAux += want - x->szArena;
      s->aux = x;
      x->szArena = want;
      r = &x->rec[i];
    }
    if( n ) memcpy(AUX_ARENA(x) + x->nArena, z, n);
    r->v = (uint64_t)x->nArena;
    r->n = (uint32_t)n;
    x->nArena += n;
  }
  return SQLITE_OK;
}

/* Keep A of value i of slot s's chunk. */
static int argTake(Keep *k, const ga_slot *s, int64_t i){
  const ArgAux *x = (const ArgAux*)s->aux;
  const ARec *r = &x->rec[i];
  switch( r->type ){
    case SQLITE_INTEGER: k->i = (sqlite3_int64)r->v; break;
    case SQLITE_FLOAT:   memcpy(&k->r, &r->v, sizeof(k->r)); break;
    case SQLITE_TEXT: case SQLITE_BLOB:
      return keepBytes(k, r->type, AUX_ARENA(x) + r->v, (int)r->n);
  }
  k->type = r->type;
  return SQLITE_OK;
}

/* After slot s's chunk was folded: an arena that one huge A grew past
** twice ARENA_MAX goes back to ARENA_MAX (if realloc cannot shrink it, it
** stays). */
static void argTrim(ga_slot *s){
  ArgAux *x = (ArgAux*)s->aux;
  int64_t cut;
  if( x==0 || x->szArena <= 2*ARENA_MAX ) return;
  cut = x->szArena - ARENA_MAX;
  x = (ArgAux*)sqlite3_realloc64(x, s->nAux - cut);
  if( x==0 ) return;
  s->aux = x;
  s->nAux -= cut;
  x->szArena = ARENA_MAX;
  x->nArena = 0;
}

/* ---- window frames -------------------------------------------------------- */

#define LOG_ROWS 4096                    /* rows a log holds before it is compacted */
#define LOG_BYTES ((int64_t)1 << 20)     /* TEXT/BLOB bytes likewise (past one value) */

/* The number's 8 bytes and type. */
static inline uint64_t numBits(sqlite3_value *v, int t){
  if( t==SQLITE_INTEGER ) return (uint64_t)sqlite3_value_int64(v);
  {
    double d = sqlite3_value_double(v);
    uint64_t b;
    memcpy(&b, &d, sizeof(b));
    return b;
  }
}

/* A value of a frame: numbers inline, TEXT and BLOB bytes owned (or, for a
** value being queued, borrowed from SQLite or the log). */
typedef struct FVal {
  int type;                 /* SQLITE_INTEGER .. SQLITE_NULL */
  int n;                    /* bytes at z */
  uint64_t bits;            /* an INTEGER's or a REAL's 8 bytes */
  char *z;                  /* TEXT or BLOB bytes */
} FVal;

/* A candidate: a row whose V may still be a frame's result. */
typedef struct FEnt {
  int64_t row;              /* its step number in the partition */
  FVal v;                   /* V */
  FVal a;                   /* A (argmin/argmax) */
} FEnt;

/* The candidates, oldest first, in a ring of a power-of-two size. */
typedef struct Frame {
  FEnt *e;                  /* cap entries */
  int64_t cap;              /* entries allocated: 0 or a power of two */
  int64_t head;             /* index of the oldest */
  int64_t n;                /* candidates */
  int64_t nIn;              /* rows stepped */
  int64_t nOut;             /* rows removed (xInverse) */
} Frame;

static const FVal fvalNull = { SQLITE_NULL, 0, 0, 0 };

static FVal fvalOf(sqlite3_value *v){
  FVal x = { sqlite3_value_type(v), 0, 0, 0 };
  if( x.type==SQLITE_INTEGER || x.type==SQLITE_FLOAT ){
    x.bits = numBits(v, x.type);
  }else if( x.type==SQLITE_TEXT || x.type==SQLITE_BLOB ){
    x.z = x.type==SQLITE_TEXT ? (char*)sqlite3_value_text(v) : (char*)sqlite3_value_blob(v);
    x.n = sqlite3_value_bytes(v);
  }
  return x;
}

/* A logged value, its bytes borrowed from the log. */
static FVal fvalRec(const Log *g, const ARec *r){
  FVal x = { r->type, 0, 0, 0 };
  if( r->type==SQLITE_TEXT || r->type==SQLITE_BLOB ){
    x.z = g->z + r->v;
    x.n = (int)r->n;
  }else{
    x.bits = r->v;
  }
  return x;
}

/* Own a copy of x's bytes. */
static int fvalOwn(FVal *x){
  char *z;
  if( x->type!=SQLITE_TEXT && x->type!=SQLITE_BLOB ){
    x->z = 0;
    return SQLITE_OK;
  }
  z = sqlite3_malloc(x->n ? x->n : 1);
  if( z==0 ) return SQLITE_NOMEM;
  if( x->n ) memcpy(z, x->z, x->n);
  x->z = z;
  return SQLITE_OK;
}

/* Sign of a - b in SQLite's order (neither NULL), TEXT's by encoding enc. */
static int fvalCmp(int enc, const FVal *a, const FVal *b){
  int na = a->type==SQLITE_INTEGER || a->type==SQLITE_FLOAT;
  int nb = b->type==SQLITE_INTEGER || b->type==SQLITE_FLOAT;
  if( na && nb ){
    return ga_num_cmp(a->bits, a->type==SQLITE_INTEGER ? GA_T_INT : GA_T_REAL,
                      b->bits, b->type==SQLITE_INTEGER ? GA_T_INT : GA_T_REAL);
  }
  if( na || nb ) return na ? -1 : 1;
  return otherCmp(enc, a->type, a->z, a->n, b->type, b->z, b->n);
}

static void fvalResult(sqlite3_context *ctx, const FVal *x){
  switch( x->type ){
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, (sqlite3_int64)x->bits); break;
    case SQLITE_FLOAT:   sqlite3_result_double(ctx, ga_bits_real(x->bits)); break;
    case SQLITE_TEXT:    sqlite3_result_text(ctx, x->z ? x->z : "", x->n, SQLITE_TRANSIENT); break;
    case SQLITE_BLOB:    sqlite3_result_blob(ctx, x->z ? x->z : "", x->n, SQLITE_TRANSIENT); break;
    default:             sqlite3_result_null(ctx); break;
  }
}

#define FRAME_AT(f, i) (&(f)->e[((f)->head + (i)) & ((f)->cap - 1)])

static void fentFree(FEnt *x){
  ga_free(x->v.z);
  ga_free(x->a.z);
}

static void frameFree(Frame *f){
  int64_t i;
  if( f==0 ) return;
  for(i=0; i<f->n; i++) fentFree(FRAME_AT(f, i));
  ga_free(f->e);
  ga_free(f);
}

/* Queue x (V not NULL, bytes borrowed) behind the candidates it does not
** beat, dropping the rest; its bytes are copied. */
static int frameAdd(Frame *f, int isMax, int enc, FEnt *x){
  while( f->n>0 ){
    FEnt *b = FRAME_AT(f, f->n-1);
    int c = fvalCmp(enc, &b->v, &x->v);
    if( isMax ? c>=0 : c<=0 ) break;         /* ties: the older stays ahead */
    fentFree(b);
    f->n--;
  }
  if( f->n==f->cap ){
    int64_t cap = f->cap ? 2*f->cap : 8, i;
    FEnt *e = (FEnt*)sqlite3_malloc64(sizeof(FEnt)*(size_t)cap);
    if( e==0 ) return SQLITE_NOMEM;
    for(i=0; i<f->n; i++) e[i] = *FRAME_AT(f, i);
    ga_free(f->e);
    f->e = e;
    f->cap = cap;
    f->head = 0;
  }
  if( fvalOwn(&x->v) ) return SQLITE_NOMEM;
  if( fvalOwn(&x->a) ){
    ga_free(x->v.z);
    return SQLITE_NOMEM;
  }
  *FRAME_AT(f, f->n) = *x;
  f->n++;
  return SQLITE_OK;
}

/* A row is stepped into the queue. */
static int frameStep(Ext *p, sqlite3_value *a, sqlite3_value *v){
  Frame *f = p->fr;
  FEnt x;
  x.row = f->nIn++;
  if( sqlite3_value_type(v)==SQLITE_NULL ) return SQLITE_OK;
  x.v = fvalOf(v);
  x.a = a ? fvalOf(a) : fvalNull;
  return frameAdd(f, p->isMax, p->enc, &x);
}

static void logFree(Log *g){
  ga_free(g->r);
  ga_free(g->sv);
  ga_free(g->z);
  memset(g, 0, sizeof(*g));
}

/* Free what is kept for a window. */
static void keepFree(Ext *p){
  frameFree(p->fr);
  p->fr = 0;
  logFree(&p->log);
}

/* Nothing more is kept for a window: why is LOST_PLAIN or LOST_NOMEM. */
static void keepLost(Ext *p, int why){
  keepFree(p);
  p->lost = why;
}

/* Compact the log into the queue (made if there is none yet) and empty it.
** A row of the log can be a frame's result only if no later row beats it;
** those rows, found newest first with one comparison each, join the queue
** oldest first. */
static int logFlush(Ext *p){
  Log *g = &p->log;
  Frame *f = p->fr;
  FVal best = fvalNull;
  int64_t i, k = 0;
  int rc = SQLITE_OK;
  if( f==0 ){
    if( (f = (Frame*)sqlite3_malloc(sizeof(Frame)))==0 ) return SQLITE_NOMEM;
    memset(f, 0, sizeof(*f));
    p->fr = f;
  }
  if( g->n && g->sv==0 && (g->sv = (uint32_t*)sqlite3_malloc(sizeof(uint32_t)*LOG_ROWS))==0 ) return SQLITE_NOMEM;
  for(i=g->n-1; i>=0; i--){
    const ARec *r = &g->r[i*g->w];
    FVal x;
    if( r->type==SQLITE_NULL ) continue;
    x = fvalRec(g, r);
    if( k ){
      int c = fvalCmp(p->enc, &x, &best);
      if( p->isMax ? c<0 : c>0 ) continue;   /* beaten later; ties: the older stays */
    }
    g->sv[k++] = (uint32_t)i;
    best = x;
  }
  while( k>0 && rc==SQLITE_OK ){
    FEnt e;
    i = g->sv[--k];
    e.row = f->nIn + i;
    e.v = fvalRec(g, &g->r[i*g->w]);
    e.a = g->w==2 ? fvalRec(g, &g->r[i*2+1]) : fvalNull;
    rc = frameAdd(f, p->isMax, p->enc, &e);
  }
  f->nIn += g->n;
  g->n = 0;
  g->nz = 0;
  if( g->szz>2*LOG_BYTES ){                  /* one huge value grew it */
    ga_free(g->z);
    g->z = 0;
    g->szz = 0;
  }
  return rc;
}

static int growTo(void *pp, int64_t n, size_t sz){
  void *p = sqlite3_realloc64(*(void**)pp, (sqlite3_uint64)n*sz);
  if( p==0 ) return SQLITE_NOMEM;
  *(void**)pp = p;
  return SQLITE_OK;
}

/* The log is at its batch's end: grow it, or compact it. Non-zero: it was
** given up (out of memory). */
static int logRoom(Ext *p){
  Log *g = &p->log;
  if( g->nz>LOG_BYTES || (g->n==g->cap && g->cap==LOG_ROWS) ){
    if( logFlush(p) ){
      keepLost(p, LOST_NOMEM);
      return 1;
    }
  }else if( g->n==g->cap ){
    int64_t cap = g->cap ? 4*g->cap : LOG_ROWS/16;   /* few copies: 256, 1024, 4096 */
    if( cap>LOG_ROWS ) cap = LOG_ROWS;
    g->w = 1 + p->isArg;
    if( growTo(&g->r, cap*g->w, sizeof(ARec)) ){
      keepLost(p, LOST_NOMEM);
      return 1;
    }
    g->cap = cap;
  }
  g->lim = g->cap;
  return 0;
}

/* Log TEXT or BLOB value x (of type t) into r: its bytes go to the arena. */
static int logBytes(Log *g, ARec *r, sqlite3_value *x, int t){
  const void *z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(x) : sqlite3_value_blob(x);
  int n = sqlite3_value_bytes(x);
  if( g->nz+n > g->szz ){
    int64_t want = g->szz ? g->szz : 4096;
    while( want < g->nz+n ) want *= 2;
    if( growTo(&g->z, want, 1) ) return SQLITE_NOMEM;
    g->szz = want;
  }
  if( n ) memcpy(g->z + g->nz, z, (size_t)n);
  r->type = t;
  r->v = (uint64_t)g->nz;
  r->n = (uint32_t)n;
  g->nz += n;
  return SQLITE_OK;
}

/* Log value x of type t (a number's bits: b) into r. */
static inline int logValue(Log *g, ARec *r, sqlite3_value *x, int t, uint64_t b){
  if( t==SQLITE_TEXT || t==SQLITE_BLOB ) return logBytes(g, r, x, t);
  r->type = t;
  r->v = b;
  return SQLITE_OK;
}

/* Log a row: its V (of type t; a number's bits: b) and A. */
static inline void logRow(Ext *p, sqlite3_value *a, sqlite3_value *v, int t, uint64_t b){
  Log *g = &p->log;
  ARec *r;
  if( g->n==g->lim && logRoom(p) ) return;
  r = &g->r[g->n*g->w];
  if( logValue(g, r, v, t, b) ) goto nomem;
  if( a && t!=SQLITE_NULL ){                 /* a NULL V's row is never a result */
    int ta = sqlite3_value_type(a);
    if( logValue(g, r+1, a, ta, ta==SQLITE_INTEGER || ta==SQLITE_FLOAT ? numBits(a, ta) : 0) ) goto nomem;
  }
  g->n++;
  if( g->nz>LOG_BYTES ) g->lim = g->n;       /* compact at the next row */
  return;
nomem:
  keepLost(p, LOST_NOMEM);
}

/* The context serves a window from now on. Non-zero: it cannot (an SQL error
** was set). */
static int frameWindow(sqlite3_context *ctx, Ext *p){
  static const char *azName[] = { "gpu_min", "gpu_max", "gpu_argmin", "gpu_argmax" };
  p->win = 1;
  if( !p->lost && logFlush(p) ) keepLost(p, LOST_NOMEM);
  logFree(&p->log);
  if( p->lost==LOST_PLAIN ){
    char *z = sqlite3_mprintf("%s(): asked for a window frame where no statement's program showed one "
                              "(it kept no rows for it)", azName[p->isArg*2 + p->isMax]);
    sqlite3_result_error(ctx, z ? z : "gpuagg: a window frame not kept", -1);
    ga_free(z);
    return 1;
  }
  if( p->oom || p->lost ){
    sqlite3_result_error_nomem(ctx);
    return 1;
  }
  return 0;
}

/* ---- folding -------------------------------------------------------------- */

/* A chunk's extreme, in chunk order: positions after the directly folded. */
static void extFoldChunk(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  Ext *p = (Ext*)pArg;
  ga_ext c = s->ext;
  (void)j;
  if( c.type!=GA_T_NONE ){
    c.pos += p->nNum + base;
    if( ga_ext_better(&c, &p->num, p->isMax) ){
      if( p->isArg && argTake(&p->argNum, s, s->ext.pos) ) p->oom = 1;
      p->num = c;
    }
  }
  if( p->isArg ) argTrim(s);
}

/* A TEXT or BLOB V (and its A). */
static void extOther(Ext *p, sqlite3_value *a, sqlite3_value *v, int t){
  const void *z;
  int n, c;
  if( !p->isMax && (p->nNum || p->pipe) ) return;     /* min: a number wins */
  z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(v) : sqlite3_value_blob(v);
  n = sqlite3_value_bytes(v);
  if( p->other.type ){
    c = otherCmp(p->enc, t, z, n, p->other.type, p->other.z, p->other.n);
    if( p->isMax ? c<=0 : c>=0 ) return;              /* ties keep the first */
  }
  if( keepBytes(&p->other, t, z, n) || (a && keepValue(&p->argOther, a)) ) p->oom = 1;
}

/* The per-row work once pipelined: record A, append V; a chunk whose A
** bytes reached ARENA_MAX is handed over as it is. */
static inline void extAppend(sqlite3_context *ctx, Ext *p, sqlite3_value *a, int t, uint64_t b){
  ga_pipe *q = p->pipe;
  if( a && argRecord(q, a) ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( ga_pipe_ordered(q, (int64_t)b, t==SQLITE_FLOAT)
   || (a && q->ni>0 && ((ArgAux*)q->fill->aux)->nArena>=ARENA_MAX && ga_pipe_flush(q)) ){
    sqlite3_result_error(ctx, q->zErr, -1);
  }
}

/* A number before the pipeline, or without one: compare it here. */
static inline void extKeep(Ext *p, sqlite3_value *a, int t, uint64_t b){
  ga_ext c;
  p->left--;
  c.bits = b;
  c.pos = p->nNum++;
  c.type = t==SQLITE_INTEGER ? GA_T_INT : GA_T_REAL;
  c.pad = 0;
  if( ga_ext_better(&c, &p->num, p->isMax) ){
    p->num = c;
    if( a && keepValue(&p->argNum, a) ) p->oom = 1;
  }
}

/* The first number, and the one where the threshold is reached: start
** counting, or start the pipeline. */
static __attribute__((noinline)) void extFold(sqlite3_context *ctx, Ext *p, sqlite3_value *a,
                                              int t, uint64_t b){
  if( p->nNum==0 ) p->left = ((ga_conn*)sqlite3_user_data(ctx))->threshold;
  if( p->left==0 ){
    int rc = ga_pipe_attach(ctx, p->isMax ? GA_OP_MAX : GA_OP_MIN, extFoldChunk, p, &p->pipe);
    if( rc==0 ) p->left = INT64_MAX;     /* no buffer: fold here to the end */
    if( rc>0 ) extAppend(ctx, p, a, t, b);
    if( rc ) return;
  }
  extKeep(p, a, t, b);
}

static void extStep(sqlite3_context *ctx, sqlite3_value *a, sqlite3_value *v, int isMax){
  Ext *p = (Ext*)sqlite3_aggregate_context(ctx, sizeof(*p));
  int t = sqlite3_value_type(v);
  uint64_t b;
  if( p==0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if( !p->started ){                     /* the first row */
    p->started = 1;
    p->isMax = isMax;
    p->isArg = a!=0;
    p->enc = ga_db_encoding(sqlite3_context_db_handle(ctx), (ga_conn*)sqlite3_user_data(ctx));
    if( !ga_window_maybe(ctx) ) p->lost = LOST_PLAIN;   /* (7.) */
  }
  if( p->win ){
    if( p->fr && frameStep(p, a, v) ) p->oom = 1;
    return;
  }
  b = t==SQLITE_INTEGER || t==SQLITE_FLOAT ? numBits(v, t) : 0;
  if( !p->lost ) logRow(p, a, v, t, b);
  if( t==SQLITE_NULL ) return;
  if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
    extOther(p, a, v, t);
  }else if( isMax && p->other.type ){
    /* max: a TEXT or BLOB was seen, no number can win */
  }else if( p->pipe ){
    extAppend(ctx, p, a, t, b);
  }else if( p->left>0 ){
    extKeep(p, a, t, b);
  }else{
    extFold(ctx, p, a, t, b);
  }
}

void ga_minStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  extStep(ctx, 0, argv[0], 0);
}
void ga_maxStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  extStep(ctx, 0, argv[0], 1);
}
void ga_argminStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  extStep(ctx, argv[0], argv[1], 0);
}
void ga_argmaxStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  extStep(ctx, argv[0], argv[1], 1);
}

/* The oldest row leaves the frame. */
void ga_extInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Ext *p = (Ext*)sqlite3_aggregate_context(ctx, 0);
  Frame *f;
  (void)argc; (void)argv;
  if( p==0 || ((!p->win || p->fr==0) && frameWindow(ctx, p)) ) return;
  f = p->fr;
  f->nOut++;
  while( f->n>0 && FRAME_AT(f, 0)->row < f->nOut ){
    fentFree(FRAME_AT(f, 0));
    f->head = (f->head + 1) & (f->cap - 1);
    f->n--;
  }
}

/* The frame's result: its first candidate. */
void ga_extValue(sqlite3_context *ctx){
  Ext *p = (Ext*)sqlite3_aggregate_context(ctx, 0);
  if( p==0 || ((!p->win || p->fr==0) && frameWindow(ctx, p)) ) return;
  if( p->oom ){
    sqlite3_result_error_nomem(ctx);
  }else if( p->fr && p->fr->n ){
    FEnt *x = FRAME_AT(p->fr, 0);
    fvalResult(ctx, p->isArg ? &x->a : &x->v);
  }
}

/* Fold what is pending, set the result (or the error), free the copies. */
void ga_extFinal(sqlite3_context *ctx){
  Ext *p = (Ext*)sqlite3_aggregate_context(ctx, 0);
  char zErr[GA_ERRLEN];
  if( p==0 ) return;                      /* no rows: NULL */
  if( p->pipe ){
    ga_pipe *q = p->pipe;
    p->pipe = 0;
    if( ga_pipe_close(q, zErr) && !p->win ){
      sqlite3_result_error(ctx, zErr, -1);
      goto done;
    }
  }
  if( p->win ){
    ga_extValue(ctx);
    goto done;
  }
  if( p->oom ){
    sqlite3_result_error_nomem(ctx);
  }else if( p->other.type && (p->isMax || p->num.type==GA_T_NONE) ){
    keepResult(ctx, p->isArg ? &p->argOther : &p->other);
  }else if( p->num.type!=GA_T_NONE ){
    if( p->isArg ){
      keepResult(ctx, &p->argNum);
    }else if( p->num.type==GA_T_INT ){
      sqlite3_result_int64(ctx, (sqlite3_int64)p->num.bits);
    }else{
      sqlite3_result_double(ctx, ga_bits_real(p->num.bits));
    }
  }
done:
  keepFree(p);
  ga_free(p->other.z);
  ga_free(p->argNum.z);
  ga_free(p->argOther.z);
}
