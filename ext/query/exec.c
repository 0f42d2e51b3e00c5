/*
** gpu_query's operators on the CPU: scan, filter, group, aggregate, finish.
**
**   1. Scan: the plan's columns from a column source (colsrc.h: the pages,
**      or the statement; kept columns are read by 8's programs instead), in
**      rowid order, a batch at a time.
**   2. Filter: WHERE's conjuncts in order, each over the rows the ones
**      before it kept; a row stays where the conjunct is true.
**   3. Group: the keys' values, each made canonical as GROUP BY compares
**      them (an integral REAL is its integer; TEXT by its collation's key),
**      find the row's group; a new group keeps its first row's key values,
**      which are what SQLite shows for them. Without GROUP BY, one group.
**   4. Aggregate, per group: count; sum, total and avg exactly, rounded once
**      (as gpu_sum, gpu_total, gpu_avg), TEXT and BLOB read as sum() reads
**      them; min and max by the aggregate's collation, the first of equal
**      values staying; the extension's own as agg/ computes them: exact
**      variances (variance.c: exact sum and sum of squares, exactvar.h),
**      percentiles (percentile.c: the numbers kept, sorted at the end,
**      ranks.h; a value that is not a number, or infinite, is SQLite's error
**      to report), argmin and argmax (the first row of the least or greatest
**      V, BINARY). fn(DISTINCT x) keeps the set of (x, group) by x's
**      collation: count counts it as it grows; the others keep each
**      value's first row (by position) and fold the set when the scan ends,
**      each distinct value once. SQLite's min and max are the same with
**      DISTINCT or without.
**   5. Finish: groups in GROUP BY's order (ascending keys, NULL first; a
**      key descending where ORDER BY has as many terms and its term in that
**      place is DESC: SQLite sorts the groups so, hoping to spare ORDER BY's
**      sort, and ORDER BY's stable sort keeps that order on ties), then
**      HAVING, the results, ORDER BY (stable), OFFSET and LIMIT; rows of a
**      query without aggregates in scan order, then the same. SELECT
**      DISTINCT keeps a row only if its results (canonical keys, each by
**      its collation) are new: the first of equal rows, as SQLite's
**      ephemeral index keeps it, before ORDER BY.
**   6. A sum whose integers overflow, a LIMIT that is not an integer, group
**      keys of more than 1 GiB in one batch of rows: the run is left to
**      SQLite (QE_BAIL), which reports what it reports. So is
**      a query without aggregates that would return more than Q_MAXVALUES
**      values: the engine keeps its rows, SQLite streams them.
**   7. Grouping in parallel: where the page source decodes in worker
**      threads, each worker groups and aggregates the batches it decoded
**      into its own part (xPar), and the parts are merged when the scan
**      ends (pairwise, on threads of their own). Every row's position in
**      the scan goes with it, so that the merge keeps SQLite's choices: a
**      group's keys as its first row shows them, the first of equal min or
**      max values; count(DISTINCT)'s (value, group) pairs are merged as
**      sets. A batch that needs SQLite (a value only it converts) goes
**      back to the scan's thread. Not in parallel: rows without aggregates,
**      and keys shown as a min() or max() row shows them.
**   8. Kept columns: where the plan's columns are in the column cache (or
**      the table is known to be large and they can be kept now: read once
**      into the cache, to the device) and compile.c makes a program of the
**      plan, the backend runs it there (xQuery: the device's operators, or
**      the CPU's with gpuagg_config('query_kept') 1) into one grouping per
**      aggregate argument, and 5 finishes the groups as above. What it does
**      not serve (the plan, a value's range, a column not on the device)
**      is said in qresult.zKeptWhy and read as 1-7 say; in 'cuda' mode
**      that is an error. Rows without aggregates ordered by one term with
**      a LIMIT of at most Q_ORDER_MAX (a top ten, a median's middle rows):
**      the backend's xOrder picks the window's rows over the kept columns
**      (compile.c, 5), and only those rows are read as 1-6 say, OFFSET
**      spent (keptOrder); where it does not serve, 1-6 read the table, and
**      never an error.
**   9. A compound (plan.c, 6): each arm run as its own plan, the arms'
**      rows joined left to right (UNION ALL appends; UNION, INTERSECT and
**      EXCEPT keep one of equal rows, by the compound's collations: which
**      one as SQLite keeps it, execCompound), then ORDER BY, OFFSET and
**      LIMIT.
**  10. FROM a subquery: its plan run first, its rows then scanned as a
**      table's (in its order, its row numbers their positions).
**  11. Rows ordered by one term with a LIMIT of at most Q_ORDER_MAX, read
**      from the table: the scan holds each row the filter keeps as its
**      term's value and its columns' (9 bytes each, TEXT and BLOB bytes
**      kept), not as result rows; then the window's rows are picked by the
**      term (order.c; ties in scan order) and only they are made result
**      rows, in scan order, OFFSET spent. A term that is not a number or
**      NULL: every held row is made one, and 5 orders them. Workers hold
**      rows too, each in its own part; the parts' batches are put in scan
**      order by their places, nothing copied (heldView). A top (OFFSET +
**      LIMIT at most Q_TOP) holds only rows that can still be in it.
*/
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include "query.h"
#include "tvf.h"
#include "kmap.h"
#include "exactvar.h"
#include "ranks.h"

/* An exact sum (gpu_sum's): integers in 128 bits, reals in an expansion
** that spills into a full accumulator only when it must. */
typedef struct QSum {
  uint64_t lo; int64_t hi;         /* the integers' total (two words: arrays of these are
                                   ** not 16-byte aligned) */
  ga_fpe f;
  ga_sum *w;                       /* NULL until the expansion spills */
  int64_t nInt, nReal, nInf[2];
} QSum;

/* A set of byte strings (canonical keys), each given the next id as it
** is added: DISTINCT's (value, group) pairs, and rows. */
typedef struct KeySet {
  uint64_t *aH; int64_t *aId;      /* open addressing: a key's hash (0: empty) and id */
  int64_t nSlot;                   /* ... slots */
  const char **az; int *an;        /* the keys by id (their bytes kept by a run) */
  int64_t n, nAlloc;               /* ... how many, and room */
} KeySet;

/* A variance's numbers (agg/variance.c's): their exact sum and sum of
** squares. */
typedef struct QVar {
  ga_sum sum; ga_fpe fpe;          /* the sum (its reals' leading part in fpe) */
  ga_sq sq;                        /* the sum of squares */
  int64_t n, nInf;                 /* numbers, and the infinite ones among them */
} QVar;

/* A percentile's numbers, as ranks.h's keys. */
typedef struct QKeys { uint64_t *a; int64_t n, cap; } QKeys;

/* An aggregate's state, by group (arrays of gAlloc). */
typedef struct Agg {
  const qagg *g;
  int64_t *cnt;                    /* count, count(*), count(DISTINCT) */
  QSum *sum;                       /* sum, total, avg */
  qval *ext;                       /* min, max; argmin's and argmax's V */
  int64_t *extPos;                 /* ... the position of the row it came from */
  qval *argA;                      /* argmin, argmax: that row's A */
  QVar **var;                      /* variances (NULL: no number yet) */
  QKeys *keys;                     /* median, percentiles */
  qval *res;                       /* final values, by group */
  /* DISTINCT (Q_DEDUP): the (value key, group) pairs seen; but for count,
  ** each one's value and position, by id, the first in scan order being
  ** the one folded (aggFinal) */
  KeySet dset;
  qval *dv; int64_t *dp; int64_t dvAlloc;
} Agg;

/* A slot of a part's hash table: a canonical key's hash (0: empty), its
** group, and the key itself where it has at most 16 bytes (zero-padded:
** a row's lookup then reads no other memory), else KEY_LONG. Padding is
** exact: a plan's canonical keys are prefix-free (each value says its
** length), and none begins with 8 bytes of 0xff (its first is a class). */
typedef struct HSlot { uint64_t h; int64_t g; uint64_t k[2]; } HSlot;
#define KEY_LONG (~(uint64_t)0)

/* A group's canonical key: its bytes and their number, side by side. */
typedef struct GKey { const char *z; int n; } GKey;

/* Groups and their aggregates, as one thread folds them. */
typedef struct Part {
  qrun *r;                         /* its evaluation state */
  int64_t nGroup, gAlloc;
  qval *gKey;                      /* [g*nShow + k]: the key values shown, then the bare
                                   ** columns' (SHOWN) */
  int64_t *gPos;                   /* each group's shown row's position: its first (INT64_MAX:
                                   ** none yet) */
  HSlot *hs; int64_t hAlloc;      /* hash -> group */
  GKey *gk;                        /* each group's canonical key */
  char *kbuf; int kAlloc;          /* a batch's canonical keys being made */
  int64_t nRow;                    /* rows it read */
  struct Held *held;               /* rows without aggregates held (requirement 11), or NULL */
  qvec **aB;                       /* a batch's bare columns (nBare) */
  Agg *aAgg;
  int rc;                          /* a worker's error */
} Part;

/* Rows a scan holds for a window of an order (requirement 11): each one's
** term and its columns, copied; result rows are made at the end, for the
** window's rows alone. */
typedef struct Held {
  int64_t n, alloc;                /* rows, and room */
  int64_t *bAt; int64_t nB, bAlloc;/* where each batch's rows start (in scan order within a part;
                                   ** batches of parts interleave: heldView) */
  int64_t keep;                    /* a top: the rows before the window's end (OFFSET + LIMIT),
                                   ** few; 0: every row is held */
  int desc, nullsFirst;            /* ... the order's */
  int cls;                         /* ... the class of the numbers held (0 none yet; -1 more than
                                   ** one, or TEXT or BLOB: no more rows are left out) */
  int pruned;                      /* ... rows were left out (bAt no longer holds) */
  int cutG; uint64_t cutK; int64_t cutPos; int hasCut;   /* ... the keep-th best row held: a row
                                   ** not better is not held */
  int nCol;                        /* columns a row */
  unsigned char *kt; int64_t *kv;  /* each row's term: class and value */
  unsigned char *ct; int64_t *cv;  /* its columns' classes and values (a TEXT or BLOB value: its
                                   ** cell's index) */
  int64_t *pos;                    /* its place in the scan */
  ga_cell *cell; int64_t nCell, cellAlloc;   /* TEXT and BLOB cells (bytes the run's) */
} Held;

static void heldFree(Held *h);

typedef struct Exec {
  ga_colsink base;
  qrun *r;                         /* the scan's thread's evaluation state (main.r) */
  qplan *pl;
  int rc;
  Part main;                       /* the scan's thread's part: every part merges here */
  Part *aPart; int nPart;          /* workers' parts */
  /* rows (no aggregates) */
  qresult *out;
  int nW;                          /* values per row kept: results, then sort terms */
  int64_t rAlloc;
  int kept;                        /* the groups' aggregates came final from kept columns (8) */
  uint64_t *gRank;                 /* ... and each group's place in GROUP BY's order, or NULL */
  uint64_t nRank;                  /* ... the places there are (0: too many to count) */
  KeySet rows;                     /* SELECT DISTINCT: the rows kept, by their results' keys */
  int offDone;                     /* the rows are the window of the order alone (keptOrder,
                                   ** heldRows): OFFSET is spent */
  int64_t nHeldVals;               /* values the parts hold (atomic: requirement 11) */
} Exec;

static double dbl(int64_t v){ double d; memcpy(&d, &v, 8); return d; }

/* The values a group shows from a row: its keys, then its bare columns. */
#define SHOWN(pl) ((pl)->nKey + (pl)->nBare)

/* ---- canonical keys -------------------------------------------------------------- */

/* Room for n bytes (at most 1 GiB) in p->kbuf. */
static int kbufRoom(Part *p, int n){
  if( n>p->kAlloc ){
    char *b = sqlite3_realloc(p->kbuf, n + n/2 + 64);
    if( b==0 ) return SQLITE_NOMEM;
    p->kbuf = b;
    p->kAlloc = n + n/2 + 64;
  }
  return SQLITE_OK;
}

/* Append x's key under coll to p->kbuf at *pn (requirement 3): a batch's
** keys, at most 1 GiB of them (more is left to SQLite). */
static int keyOf(Part *p, const qval *x, int coll, int *pn){
  int64_t need = (int64_t)*pn + 13 + (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ? (int64_t)x->n + 4 : 0);
  int rc;
  if( need>((int64_t)1<<30) ) return q_run_error(p->r, QE_BAIL, "group keys of more than 1 GiB in a batch of rows");
  if( (rc = kbufRoom(p, (int)need))!=SQLITE_OK ) return rc;
  *pn += q_key_bytes(x, coll, p->kbuf + *pn);
  return SQLITE_OK;
}

static uint64_t hashKey(const char *z, int n){
  return q_hash(0xcbf29ce484222325ull, z, n) | 1;
}

/* ---- groups and aggregates ---------------------------------------------------------- */

/* p with room for nNew items of sz bytes, those past nOld zeroed (zero)
** or left as they are (a group's key, position and bytes are set as it is
** made: zeroing them would only touch fresh pages). */
static void *grow(void *p, int64_t nOld, int64_t nNew, int sz, int zero){
  char *q = sqlite3_realloc64(p, (uint64_t)sz*(uint64_t)nNew);
  if( q && zero ) memset(q + (size_t)sz*(size_t)nOld, 0, (size_t)sz*(size_t)(nNew - nOld));
  return q;
}

static int growGroups(Part *p, const qplan *pl, int64_t need){
  int64_t n = p->gAlloc ? 2*p->gAlloc : 64, a, j;
  while( n<need ) n *= 2;
  int nk = SHOWN(pl) ? SHOWN(pl) : 1;
  void *x;
  if( (x = grow(p->gKey, p->gAlloc*nk, n*nk, sizeof(qval), 0))==0 ) return SQLITE_NOMEM;
  p->gKey = x;
  if( (x = grow(p->gPos, p->gAlloc, n, 8, 0))==0 ) return SQLITE_NOMEM;
  p->gPos = x;
  if( (x = grow(p->gk, p->gAlloc, n, sizeof(GKey), 0))==0 ) return SQLITE_NOMEM;
  p->gk = x;
  for(a=0; a<pl->nAgg; a++){
    Agg *g = &p->aAgg[a];
    switch( g->g->fn ){
      case A_COUNT: case A_COUNTSTAR:
        if( (x = grow(g->cnt, p->gAlloc, n, 8, 1))==0 ) return SQLITE_NOMEM;
        g->cnt = x;
        break;
      case A_SUM: case A_TOTAL: case A_AVG:
        if( (x = grow(g->sum, p->gAlloc, n, sizeof(QSum), 1))==0 ) return SQLITE_NOMEM;
        g->sum = x;
        break;
      case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP:
        if( (x = grow(g->var, p->gAlloc, n, sizeof(QVar*), 1))==0 ) return SQLITE_NOMEM;
        g->var = x;
        break;
      case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
        if( (x = grow(g->keys, p->gAlloc, n, sizeof(QKeys), 1))==0 ) return SQLITE_NOMEM;
        g->keys = x;
        break;
      default:                      /* min, max, argmin, argmax */
        if( (x = grow(g->ext, p->gAlloc, n, sizeof(qval), 1))==0 ) return SQLITE_NOMEM;
        g->ext = x;
        for(j=p->gAlloc; j<n; j++) g->ext[j].t = SQLITE_NULL;
        if( (x = grow(g->extPos, p->gAlloc, n, 8, 1))==0 ) return SQLITE_NOMEM;
        g->extPos = x;
        if( g->g->fn==A_ARGMIN || g->g->fn==A_ARGMAX ){
          if( (x = grow(g->argA, p->gAlloc, n, sizeof(qval), 1))==0 ) return SQLITE_NOMEM;
          g->argA = x;
        }
        break;
    }
  }
  p->gAlloc = n;
  /* the hash table: twice the groups */
  {
    int64_t m = 2*n;
    HSlot *hs = sqlite3_malloc64(sizeof(HSlot)*(uint64_t)m);
    if( hs==0 ) return SQLITE_NOMEM;
    memset(hs, 0, sizeof(HSlot)*(size_t)m);
    for(j=0; j<p->hAlloc; j++){
      if( p->hs[j].h ){
        int64_t t = (int64_t)(p->hs[j].h & (uint64_t)(m - 1));
        while( hs[t].h ) t = (t + 1) & (m - 1);
        hs[t] = p->hs[j];
      }
    }
    sqlite3_free(p->hs);
    p->hs = hs;
    p->hAlloc = m;
  }
  return SQLITE_OK;
}

/* Are a[0..n) and b[0..n) the same bytes? (Keys are short: no call.) */
static inline int sameKey(const char *a, const char *b, int n){
  uint64_t x, y;
  for(; n>=8; n-=8, a+=8, b+=8){
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if( x!=y ) return 0;
  }
  for(; n>0; n--) if( *a++!=*b++ ) return 0;
  return 1;
}

/* The group of the canonical key z[0..n) (hashKey: h) into *pg; *pNew set
** if it was made (its key values and position are the caller's to set). */
static int groupOf(Part *p, const qplan *pl, const char *z, int n, uint64_t h, int64_t *pg, int *pNew){
  uint64_t k[2] = { KEY_LONG, 0 };
  int64_t s;
  int rc;
  if( n<=16 ){
    k[0] = 0;
    memcpy(k, z, (size_t)n);
  }
  if( p->nGroup>=p->gAlloc && (rc = growGroups(p, pl, 0))!=SQLITE_OK ) return rc;
  for(s = (int64_t)(h & (uint64_t)(p->hAlloc - 1)); p->hs[s].h; s = (s + 1) & (p->hAlloc - 1)){
    const HSlot *e = &p->hs[s];
    if( e->h==h && e->k[0]==k[0] && e->k[1]==k[1]
     && (n<=16 || (p->gk[e->g].n==n && sameKey(p->gk[e->g].z, z, n))) ){
      *pg = e->g;
      *pNew = 0;
      return SQLITE_OK;
    }
  }
  {
    int64_t g = p->nGroup++;
    if( (p->gk[g].z = q_keep(p->r, z, n))==0 ) return SQLITE_NOMEM;
    p->gk[g].n = n;
    p->hs[s].h = h;
    p->hs[s].g = g;
    p->hs[s].k[0] = k[0];
    p->hs[s].k[1] = k[1];
    *pg = g;
    *pNew = 1;
  }
  return SQLITE_OK;
}

/* Set group g's shown keys from values a (bytes kept by p's run). */
/* Group g shows the n values a (keys, then bare columns), their bytes kept. */
static int setKeys(Part *p, int n, int64_t g, const qval *a){
  int k;
  for(k=0; k<n; k++){
    qval *x = &p->gKey[g*n + k];
    *x = a[k];
    if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (x->z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* Group g shows row i of a batch: its keys' values aK, its bare columns' aB. */
static int setShown(Part *p, const qplan *pl, int64_t g, qvec **aK, qvec **aB, int i){
  int n = SHOWN(pl), k;
  for(k=0; k<n; k++){
    qval *x = &p->gKey[g*n + k];
    q_get(k<pl->nKey ? aK[k] : aB[k - pl->nKey], i, x);
    if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (x->z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static void sumReal(QSum *s, double d){
  double rest = ga_fpe_add(&s->f, d);
  if( rest!=0.0 ){
    if( s->w==0 ){
      if( (s->w = sqlite3_malloc(sizeof(ga_sum)))==0 ){ s->nInf[0] = -1; return; }
      memset(s->w, 0, sizeof(ga_sum));
    }
    ga_sum_word(s->w, rest);
  }
}

static void sumAdd(QSum *s, int t, int64_t v){
  if( t==SQLITE_INTEGER ){
    ga_i128_add(&s->lo, &s->hi, v);
    s->nInt++;
  }else{
    double d = dbl(v);
    s->nReal++;
    if( !ga_is_finite(d) ){ s->nInf[d>0]++; return; }
    sumReal(s, d);
  }
}

/* a += b, exactly. */
static void sumMerge(QSum *a, QSum *b){
  {
    uint64_t lo = a->lo + b->lo;
    a->hi += b->hi + (lo<a->lo);
    a->lo = lo;
  }
  a->nInt += b->nInt;
  a->nReal += b->nReal;
  if( a->nInf[0]<0 || b->nInf[0]<0 ) a->nInf[0] = -1;
  else a->nInf[0] += b->nInf[0];
  a->nInf[1] += b->nInf[1];
  if( b->f.a0!=0.0 ) sumReal(a, b->f.a0);
  if( b->f.a1!=0.0 ) sumReal(a, b->f.a1);
  if( b->f.a2!=0.0 ) sumReal(a, b->f.a2);
  if( b->w ){
    if( a->w==0 ){
      a->w = b->w;
      b->w = 0;
    }else{
      ga_words_norm(a->w->w);
      a->w->nAdd = 0;
      ga_words_norm(b->w->w);
      b->w->nAdd = 0;
      ga_sum_merge(a->w, b->w);
    }
  }
}

/* The total, rounded once (gpu_sum's ga_sum_value). */
static double sumValue(const QSum *s){
  ga_sum a;
  ga_fpe f = s->f;
  if( s->nInf[0] && s->nInf[1] ) return NAN;
  if( s->nInf[0] || s->nInf[1] ) return s->nInf[1] ? INFINITY : -INFINITY;
  if( s->nReal==0 ){
    /* integers alone: their 128-bit total, converted with one rounding (to
    ** nearest, ties to even, as ga_sum_value rounds), without the words */
    return (double)(__int128)(((unsigned __int128)(uint64_t)s->hi << 64) | s->lo);
  }
  if( s->w ) a = *s->w;
  else memset(&a, 0, sizeof(a));
  a.lo = s->lo;
  a.hi = s->hi;
  ga_sum_settle(&a, &f);
  a.inf = 0;
  return ga_sum_value(&a);
}

/* Add key z[0..n) to set s (its bytes kept by run r): *pNew set if it was
** not there, its id in *pId. */
static int keySetAdd(qrun *r, KeySet *s, const char *z, int n, int *pNew, int64_t *pId){
  uint64_t h = hashKey(z, n);
  int64_t t;
  if( s->n*2>=s->nSlot ){
    int64_t m = s->nSlot ? 2*s->nSlot : 1024, j;
    uint64_t *aH = sqlite3_malloc64(8*(uint64_t)m);
    int64_t *aId = sqlite3_malloc64(8*(uint64_t)m);
    if( aH==0 || aId==0 ){ sqlite3_free(aH); sqlite3_free(aId); return SQLITE_NOMEM; }
    memset(aH, 0, 8*(size_t)m);
    for(j=0; j<s->nSlot; j++){
      if( s->aH[j] ){
        t = (int64_t)(s->aH[j] & (uint64_t)(m - 1));
        while( aH[t] ) t = (t + 1) & (m - 1);
        aH[t] = s->aH[j];
        aId[t] = s->aId[j];
      }
    }
    sqlite3_free(s->aH); sqlite3_free(s->aId);
    s->aH = aH; s->aId = aId;
    s->nSlot = m;
  }
  for(t = (int64_t)(h & (uint64_t)(s->nSlot - 1)); s->aH[t]; t = (t + 1) & (s->nSlot - 1)){
    int64_t id = s->aId[t];
    if( s->aH[t]==h && s->an[id]==n && memcmp(s->az[id], z, (size_t)n)==0 ){
      *pNew = 0;
      *pId = id;
      return SQLITE_OK;
    }
  }
  if( s->n==s->nAlloc ){
    int64_t m = s->nAlloc ? 2*s->nAlloc : 512;
    const char **az = sqlite3_realloc64(s->az, sizeof(char*)*(uint64_t)m);
    int *an;
    if( az==0 ) return SQLITE_NOMEM;
    s->az = az;
    if( (an = sqlite3_realloc64(s->an, sizeof(int)*(uint64_t)m))==0 ) return SQLITE_NOMEM;
    s->an = an;
    s->nAlloc = m;
  }
  if( (s->az[s->n] = q_keep(r, z, n))==0 ) return SQLITE_NOMEM;
  s->an[s->n] = n;
  s->aH[t] = h;
  s->aId[t] = s->n;
  *pId = s->n++;
  *pNew = 1;
  return SQLITE_OK;
}

static void keySetFree(KeySet *s){
  sqlite3_free(s->aH); sqlite3_free(s->aId); sqlite3_free(s->az); sqlite3_free(s->an);
  memset(s, 0, sizeof(*s));
}

/* Add (value key, group: key z[0..n)) to DISTINCT aggregate a's set, with
** its value x at position pos where a keeps values (all but count), the
** first position's staying. */
static int distinctAdd(Part *p, Agg *a, const char *z, int n, const qval *x, int64_t pos, int *pNew){
  int64_t id;
  int rc;
  if( (rc = keySetAdd(p->r, &a->dset, z, n, pNew, &id))!=SQLITE_OK || a->g->fn==A_COUNT ) return rc;
  if( a->dset.nAlloc>a->dvAlloc ){  /* values and positions grow with the set's keys */
    qval *v = sqlite3_realloc64(a->dv, sizeof(qval)*(uint64_t)a->dset.nAlloc);
    int64_t *q;
    if( v==0 ) return SQLITE_NOMEM;
    a->dv = v;
    if( (q = sqlite3_realloc64(a->dp, 8*(uint64_t)a->dset.nAlloc))==0 ) return SQLITE_NOMEM;
    a->dp = q;
    a->dvAlloc = a->dset.nAlloc;
  }
  if( *pNew || pos<a->dp[id] ){
    a->dv[id] = *x;
    a->dp[id] = pos;
    if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (a->dv[id].z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* DISTINCT: is (g, x) new? (distinctAdd keeps x at pos.) */
static int distinctNew(Part *p, Agg *a, int64_t g, const qval *x, int64_t pos, int *pNew){
  int n = 0, rc;
  if( (rc = keyOf(p, x, a->g->dcoll, &n))!=SQLITE_OK || (rc = kbufRoom(p, n + 8))!=SQLITE_OK ) return rc;
  memcpy(p->kbuf + n, &g, 8);
  return distinctAdd(p, a, p->kbuf, n + 8, x, pos, pNew);
}

/* A variance's number (t, v: sum()'s reading of a value) into *pp. */
static int varAdd(QVar **pp, int t, int64_t v){
  QVar *q = *pp;
  if( q==0 ){
    if( (q = *pp = sqlite3_malloc(sizeof(QVar)))==0 ) return SQLITE_NOMEM;
    memset(q, 0, sizeof(*q));
  }
  q->n++;
  if( t==SQLITE_INTEGER ){
    ga_i128_add(&q->sum.lo, &q->sum.hi, v);
    ga_sq_int_sign(&q->sq, v, 0);
  }else if( !ga_is_finite(dbl(v)) ){
    q->nInf++;
  }else{
    ga_sum_real(&q->sum, &q->fpe, dbl(v));
    ga_sq_real_sign(&q->sq, dbl(v), 0);
  }
  return SQLITE_OK;
}

/* A percentile's number x into *k; QE_BAIL where percentile.c reports an
** error (not a number, or infinite). */
static int keysAdd(Part *p, const qagg *g, QKeys *k, const qval *x){
  static const char *azFn[] = { "gpu_median", "gpu_percentile", "gpu_percentile_cont", "gpu_percentile_disc" };
  double d;
  if( x->t!=SQLITE_INTEGER && x->t!=SQLITE_FLOAT ){
    return q_run_error(p->r, QE_BAIL, "input to %s() that is not numeric (an error in SQLite)", azFn[g->fn - A_MEDIAN]);
  }
  d = x->t==SQLITE_INTEGER ? (double)x->v : dbl(x->v);
  if( !ga_is_finite(d) ) return q_run_error(p->r, QE_BAIL, "Inf input to %s() (an error in SQLite)", azFn[g->fn - A_MEDIAN]);
  if( k->n==k->cap ){
    int64_t cap = k->cap ? 2*k->cap : 16;
    uint64_t *a = sqlite3_realloc64(k->a, 8*(uint64_t)cap);
    if( a==0 ) return SQLITE_NOMEM;
    k->a = a;
    k->cap = cap;
  }
  k->a[k->n++] = ga_key(d);
  return SQLITE_OK;
}

/* Fold value x into group g's sum, variance or percentile: each row's
** value, or each distinct value once (aggFinal; also gpu_min's and
** gpu_max's, whose distinct values never compare equal: no ties). */
static int foldValue(Part *p, Agg *a, int64_t g, const qval *x){
  int t = x->t, rc;
  int64_t v = x->v;
  switch( a->g->fn ){
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC:
      return keysAdd(p, a->g, &a->keys[g], x);
    case A_MIN: case A_MAX:
      rc = a->ext[g].t==SQLITE_NULL ? 1 : q_cmp(x, &a->ext[g], a->g->coll);
      if( a->ext[g].t==SQLITE_NULL || (a->g->fn==A_MIN ? rc<0 : rc>0) ) a->ext[g] = *x;
      return SQLITE_OK;
    default: break;
  }
  if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
    if( (rc = q_sumnum(p->r, x, &t, &v))!=SQLITE_OK ) return rc;
  }
  if( a->sum ){
    sumAdd(&a->sum[g], t, v);
    return SQLITE_OK;
  }
  return varAdd(&a->var[g], t, v);
}

/* Fold the rows of a batch (their groups in aG, their positions from pos,
** the argument's values in x, the second argument's in y) into aggregate a.
** hit, for the min() or max() whose rows show the keys: set for each row
** SQLite's minmaxStep does not skip (a new least or greatest value, or a
** NULL before any value). one: every row's group is aG[0] (no GROUP BY). */
static int aggApply(Part *p, Agg *a, int n, const qvec *x, const qvec *y, const int64_t *aG, const int *sel,
                    int64_t pos, unsigned char *hit, int one){
  const qagg *g = a->g;
  int i, rc, intsDone = 0;
  if( g->fn==A_COUNTSTAR ){
    for(i=0; i<n; i++) a->cnt[aG[i]]++;
    return SQLITE_OK;
  }
  if( Q_DEDUP(g) ){
    /* the set: counted as it grows; other values folded at the end */
    for(i=0; i<n; i++){
      qval v;
      int isNew;
      if( x->t[i]==SQLITE_NULL ) continue;
      q_get(x, i, &v);
      if( (rc = distinctNew(p, a, aG[i], &v, pos + (sel ? sel[i] : i), &isNew))!=SQLITE_OK ) return rc;
      if( g->fn==A_COUNT ) a->cnt[aG[i]] += isNew;
    }
    return SQLITE_OK;
  }
  if( one && n>0 && (g->fn==A_SUM || g->fn==A_TOTAL || g->fn==A_AVG) ){
    /* One group's integers summed in registers, the other values below: the
    ** sums are exact, so the order they are added in does not matter. */
    QSum *s = &a->sum[aG[0]];
    uint64_t lo = s->lo;
    int64_t hi = s->hi, nInt = 0;
    int other = 0;
    for(i=0; i<n; i++){
      if( x->t[i]==SQLITE_INTEGER ){
        ga_i128_add(&lo, &hi, x->v[i]);
        nInt++;
      }else{
        other |= x->t[i]!=SQLITE_NULL;
      }
    }
    s->lo = lo;
    s->hi = hi;
    s->nInt += nInt;
    if( !other ) return SQLITE_OK;
    intsDone = 1;
  }
  for(i=0; i<n; i++){
    const qvec *w = g->fn==A_ARGMIN || g->fn==A_ARGMAX ? y : x;   /* the value compared */
    int t = w->t[i];
    if( hit ) hit[i] = 0;
    if( t==SQLITE_INTEGER && intsDone ) continue;
    if( t==SQLITE_NULL ){
      if( hit && a->ext[aG[i]].t==SQLITE_NULL ) hit[i] = 1;
      continue;
    }
    switch( g->fn ){
      case A_COUNT:
        a->cnt[aG[i]]++;
        break;
      case A_MIN: case A_MAX: case A_ARGMIN: case A_ARGMAX: {
        qval v, *cur = &a->ext[aG[i]];
        int c, isMin = g->fn==A_MIN || g->fn==A_ARGMIN;
        q_get(w, i, &v);
        if( cur->t!=SQLITE_NULL ){
          c = q_cmp(&v, cur, g->coll);
          if( isMin ? c>=0 : c<=0 ) break;
        }
        if( (v.t==SQLITE_TEXT || v.t==SQLITE_BLOB) && (v.z = q_keep(p->r, v.z, v.n))==0 ) return SQLITE_NOMEM;
        *cur = v;
        a->extPos[aG[i]] = pos + (sel ? sel[i] : i);
        if( a->argA ){
          qval *A = &a->argA[aG[i]];
          q_get(x, i, A);
          if( (A->t==SQLITE_TEXT || A->t==SQLITE_BLOB) && (A->z = q_keep(p->r, A->z, A->n))==0 ) return SQLITE_NOMEM;
        }
        if( hit ) hit[i] = 1;
        break;
      }
      default: {
        qval v;
        q_get(x, i, &v);
        if( (rc = foldValue(p, a, aG[i], &v))!=SQLITE_OK ) return rc;
        break;
      }
    }
  }
  return SQLITE_OK;
}

/* ---- a batch ---------------------------------------------------------------------------- */

static int rowsAppend(Exec *e, const qctx *ctx);
static int holdRows(Exec *e, Part *p, const qctx *ctx);
static void groupLeaf(void *pArg, int kind, int idx, int g, qval *out);

/* WHERE's conjuncts in order over ctx's rows, each over the rows the ones
** before it kept: ctx's rows become those where all are true, in sel. */
static int filter(Part *p, const qplan *pl, qctx *ctx, int *sel){
  int sel2[GA_BATCH], i, k, rc;
  for(k=0; k<pl->nConj && ctx->n; k++){
    qvec *v;
    int m = 0;
    if( (rc = q_eval(p->r, pl->aConj[k], ctx, &v))!=SQLITE_OK ) return rc;
    for(i=0; i<ctx->n; i++){
      int t = v->t[i], yes;
      if( t==SQLITE_INTEGER ) yes = v->v[i]!=0;
      else if( t==SQLITE_NULL ) yes = 0;
      else if( (rc = q_true(p->r, v, i, &yes))!=SQLITE_OK ) return rc;
      if( yes ) sel2[m++] = ctx->sel ? ctx->sel[i] : i;
    }
    memcpy(sel, sel2, sizeof(int)*(size_t)m);
    ctx->sel = sel;
    ctx->n = m;
  }
  return SQLITE_OK;
}

/* Filter, group and aggregate batch b into part p. A worker's part
** (worker set) evaluates everything before it changes anything, so that a
** batch that needs the scan's thread (GA_SINK_LATER) leaves no trace. */
static int batchInto(Exec *e, Part *p, const ga_colbatch *b, int worker){
  qplan *pl = e->pl;
  int sel[GA_BATCH], i, k, rc = SQLITE_OK;
  int64_t aG[GA_BATCH];
  unsigned char aHit[GA_BATCH];
  qvec *aK[Q_MAXKEY], *aX[64], *aY[64], **aB = 0;
  qctx ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.b = b;
  ctx.n = b->n;
  p->nRow += b->n;
  if( b->sel ){                        /* filtered already (sinkFilter) */
    ctx.sel = b->sel;
    ctx.n = b->nSel;
  }else if( (rc = filter(p, pl, &ctx, sel))!=SQLITE_OK ){
    return rc;
  }
  if( ctx.n==0 ) return SQLITE_OK;
  if( !pl->grouped ) return p->held ? holdRows(e, p, &ctx) : rowsAppend(e, &ctx);
  /* evaluate keys, bare columns and arguments */
  for(k=0; k<pl->nKey; k++){
    if( (rc = q_eval(p->r, pl->aKey[k], &ctx, &aK[k]))!=SQLITE_OK ) return rc;
  }
  if( pl->nBare ){
    if( p->aB==0 && (p->aB = sqlite3_malloc64(sizeof(qvec*)*(uint64_t)pl->nBare))==0 ) return SQLITE_NOMEM;
    aB = p->aB;
    for(k=0; k<pl->nBare; k++){
      if( (rc = q_eval(p->r, pl->aBare[k], &ctx, &aB[k]))!=SQLITE_OK ) return rc;
    }
  }
  for(k=0; k<pl->nAgg; k++){
    aX[k] = aY[k] = 0;
    if( pl->aAgg[k].x && (rc = q_eval(p->r, pl->aAgg[k].x, &ctx, &aX[k]))!=SQLITE_OK ) return rc;
    if( pl->aAgg[k].y && (rc = q_eval(p->r, pl->aAgg[k].y, &ctx, &aY[k]))!=SQLITE_OK ) return rc;
  }
  if( worker ){
    /* what sum() reads from TEXT and BLOB, asked now, and a percentile's
    ** inputs checked: nothing below fails */
    for(k=0; k<pl->nAgg; k++){
      int fn = pl->aAgg[k].fn, pct = fn>=A_MEDIAN && fn<=A_PCTDISC;
      if( Q_DEDUP(&pl->aAgg[k]) || !(fn==A_SUM || fn==A_TOTAL || fn==A_AVG || (fn>=A_VARSAMP && fn<=A_SDPOP) || pct) ){
        continue;
      }
      for(i=0; i<ctx.n; i++){
        int t = aX[k]->t[i];
        if( pct && (t==SQLITE_TEXT || t==SQLITE_BLOB || (t==SQLITE_FLOAT && !ga_is_finite(dbl(aX[k]->v[i])))) ){
          return QE_BAIL;           /* the scan's thread says why */
        }
        if( !pct && (t==SQLITE_TEXT || t==SQLITE_BLOB) ){
          qval v; int64_t n;
          q_get(aX[k], i, &v);
          if( (rc = q_sumnum(p->r, &v, &t, &n))!=SQLITE_OK ) return rc;
        }
      }
    }
  }
  /* group */
  if( pl->nKey==0 ){
    int64_t pos0 = b->pos + (ctx.sel ? ctx.sel[0] : 0);
    for(i=0; i<ctx.n; i++) aG[i] = 0;
    if( pl->nBare && pos0<p->gPos[0] ){       /* the first row shows the bare columns */
      p->gPos[0] = pos0;
      if( (rc = setShown(p, pl, 0, aK, aB, 0))!=SQLITE_OK ) return rc;
    }
  }else{
    /* Every row's canonical key and its hash first, its slot asked into
    ** the cache: the batch's lookups then wait on memory together. */
    int kOff[GA_BATCH + 1], m = 0;
    uint64_t aH[GA_BATCH];
    for(i=0; i<ctx.n; i++){
      kOff[i] = m;
      for(k=0; k<pl->nKey; k++){
        qval kv;
        q_get(aK[k], i, &kv);
        if( (rc = keyOf(p, &kv, pl->aKeyColl[k], &m))!=SQLITE_OK ) return rc;
      }
    }
    kOff[ctx.n] = m;
    for(i=0; i<ctx.n; i++){
      aH[i] = hashKey(p->kbuf + kOff[i], kOff[i + 1] - kOff[i]);
      if( p->hAlloc ) __builtin_prefetch(&p->hs[aH[i] & (uint64_t)(p->hAlloc - 1)], 0, 3);
    }
    for(i=0; i<ctx.n; i++){
      int isNew;
      if( (rc = groupOf(p, pl, p->kbuf + kOff[i], kOff[i + 1] - kOff[i], aH[i], &aG[i], &isNew))!=SQLITE_OK ) return rc;
      if( isNew ){
        p->gPos[aG[i]] = b->pos + (ctx.sel ? ctx.sel[i] : i);
        if( (rc = setShown(p, pl, aG[i], aK, aB, i))!=SQLITE_OK ) return rc;
      }
    }
  }
  for(k=0; k<pl->nAgg; k++){
    rc = aggApply(p, &p->aAgg[k], ctx.n, aX[k], aY[k], aG, ctx.sel, b->pos, k==pl->iHit ? aHit : 0, pl->nKey==0);
    if( rc ) return rc;
  }
  if( pl->iHit>=0 && SHOWN(pl) ){
    /* the keys and bare columns, as the rows min() or max() took show them */
    for(i=0; i<ctx.n; i++){
      if( aHit[i] && (rc = setShown(p, pl, aG[i], aK, aB, i))!=SQLITE_OK ) return rc;
    }
  }
  return SQLITE_OK;
}

/* The scan's thread. */
static int sinkBatch(ga_colsink *pSink, const ga_colbatch *b){
  Exec *e = (Exec*)pSink;
  return e->rc = batchInto(e, &e->main, b, 0);
}

/* Batch b's rows the filter keeps, into sel (colsrc.h, 8: the source then
** decodes the other columns for them alone); on worker w or (-1) the
** scan's thread. */
static int sinkFilter(ga_colsink *pSink, int w, const ga_colbatch *b, int *sel, int *pnSel){
  Exec *e = (Exec*)pSink;
  Part *p = w>=0 ? &e->aPart[w] : &e->main;
  qctx ctx;
  int rc;
  memset(&ctx, 0, sizeof(ctx));
  ctx.b = b;
  ctx.n = b->n;
  rc = filter(p, e->pl, &ctx, sel);
  *pnSel = ctx.n;
  if( ctx.sel==0 ){                    /* no conjunct ran (an empty batch) */
    int i;
    for(i=0; i<ctx.n; i++) sel[i] = i;
  }
  if( w<0 ) return e->rc = rc;
  if( rc==SQLITE_NOMEM ) p->rc = rc;
  return rc==SQLITE_OK || rc==SQLITE_NOMEM ? rc : GA_SINK_LATER;
}

/* A worker w (requirement 7). */
static int sinkPar(ga_colsink *pSink, int w, const ga_colbatch *b){
  Exec *e = (Exec*)pSink;
  Part *p = &e->aPart[w];
  int rc = batchInto(e, p, b, 1);
  if( rc==SQLITE_NOMEM ) p->rc = rc;
  return rc==SQLITE_OK || rc==SQLITE_NOMEM ? rc : GA_SINK_LATER;
}

/* Group gq of part q's aggregate b into group g of part p's a (p's run
** keeps what it takes): counts and sums add, a min's or max's first of
** equal values by position stays, numbers of variances and percentiles
** join. */
static int aggMerge(Part *p, Agg *a, int64_t g, Agg *b, int64_t gq){
  switch( a->g->fn ){
    case A_COUNT: case A_COUNTSTAR: a->cnt[g] += b->cnt[gq]; return SQLITE_OK;
    case A_SUM: case A_TOTAL: case A_AVG: sumMerge(&a->sum[g], &b->sum[gq]); return SQLITE_OK;
    case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP: {
      QVar *x = a->var[g], *y = b->var[gq];
      if( y==0 ) return SQLITE_OK;
      if( x==0 ){                   /* q's, taken */
        a->var[g] = y;
        b->var[gq] = 0;
        return SQLITE_OK;
      }
      ga_sum_settle(&x->sum, &x->fpe);
      ga_sum_settle(&y->sum, &y->fpe);
      ga_sum_merge(&x->sum, &y->sum);
      ga_sq_merge(&x->sq, &y->sq);
      x->n += y->n;
      x->nInf += y->nInf;
      return SQLITE_OK;
    }
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC: {
      QKeys *x = &a->keys[g], *y = &b->keys[gq];
      if( x->n + y->n>x->cap ){
        uint64_t *k = sqlite3_realloc64(x->a, 8*(uint64_t)(x->n + y->n));
        if( k==0 ) return SQLITE_NOMEM;
        x->a = k;
        x->cap = x->n + y->n;
      }
      if( y->n ) memcpy(x->a + x->n, y->a, 8*(size_t)y->n);
      x->n += y->n;
      return SQLITE_OK;
    }
    default: {                      /* min, max, argmin, argmax */
      qval *x = &b->ext[gq];
      int c;
      if( x->t==SQLITE_NULL ) return SQLITE_OK;
      if( a->ext[g].t!=SQLITE_NULL ){
        c = q_cmp(x, &a->ext[g], a->g->coll);
        if( a->g->fn==A_MAX || a->g->fn==A_ARGMAX ) c = -c;
        if( c>0 || (c==0 && b->extPos[gq]>a->extPos[g]) ) return SQLITE_OK;
      }
      a->ext[g] = *x;
      if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (a->ext[g].z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
      a->extPos[g] = b->extPos[gq];
      if( a->argA ){
        x = &b->argA[gq];
        a->argA[g] = *x;
        if( (x->t==SQLITE_TEXT || x->t==SQLITE_BLOB) && (a->argA[g].z = q_keep(p->r, x->z, x->n))==0 ) return SQLITE_NOMEM;
      }
      return SQLITE_OK;
    }
  }
}

/* Merge part q into p (requirement 7): groups by their canonical keys,
** positions deciding the first row and ties. */
static int partMerge(Exec *e, Part *p, Part *q){
  const qplan *pl = e->pl;
  int64_t g, h, *gh = 0;
  int k, rc, isNew;
  for(k=0; k<pl->nAgg && gh==0; k++){
    if( Q_DEDUP(&pl->aAgg[k]) && (gh = sqlite3_malloc64(8*(uint64_t)(q->nGroup + 1)))==0 ) return SQLITE_NOMEM;
  }
  for(g=0; g<q->nGroup; g++){
    if( pl->nKey==0 ){
      h = 0;
      isNew = 0;
    }else if( (rc = groupOf(p, pl, q->gk[g].z, q->gk[g].n, hashKey(q->gk[g].z, q->gk[g].n), &h, &isNew))!=SQLITE_OK ){
      sqlite3_free(gh);
      return rc;
    }
    if( gh ) gh[g] = h;
    if( SHOWN(pl) && (isNew || q->gPos[g]<p->gPos[h]) ){
      p->gPos[h] = q->gPos[g];
      if( (rc = setKeys(p, SHOWN(pl), h, &q->gKey[g*SHOWN(pl)]))!=SQLITE_OK ){ sqlite3_free(gh); return rc; }
    }
    for(k=0; k<pl->nAgg; k++){
      if( Q_DEDUP(&pl->aAgg[k]) ) continue;   /* its set, below */
      if( (rc = aggMerge(p, &p->aAgg[k], h, &q->aAgg[k], g))!=SQLITE_OK ){ sqlite3_free(gh); return rc; }
    }
  }
  /* DISTINCT: q's (value, group) pairs into p's set, its group p's, the
  ** first position's value staying */
  for(k=0, rc=SQLITE_OK; gh && k<pl->nAgg && rc==SQLITE_OK; k++){
    Agg *a = &p->aAgg[k], *b = &q->aAgg[k];
    int64_t j;
    if( !Q_DEDUP(a->g) ) continue;
    for(j=0; j<b->dset.n && rc==SQLITE_OK; j++){
      int n = b->dset.an[j];
      memcpy(&g, b->dset.az[j] + n - 8, 8);
      if( (rc = kbufRoom(p, n))!=SQLITE_OK ) break;
      memcpy(p->kbuf, b->dset.az[j], (size_t)(n - 8));
      memcpy(p->kbuf + n - 8, &gh[g], 8);
      rc = distinctAdd(p, a, p->kbuf, n, b->dv ? &b->dv[j] : 0, b->dp ? b->dp[j] : 0, &isNew);
      if( rc==SQLITE_OK && a->g->fn==A_COUNT ) a->cnt[gh[g]] += isNew;
    }
  }
  sqlite3_free(gh);
  return rc;
}

/* Part q into p on a thread of its own (partsMerge). */
typedef struct MergeJob {
  Exec *e;
  Part *p, *q;
  int rc;
  int started;                          /* t runs it */
  pthread_t t;
} MergeJob;

static void *mergeJob(void *pArg){
  MergeJob *j = (MergeJob*)pArg;
  j->rc = partMerge(j->e, j->p, j->q);
  return 0;
}

/* The workers' parts into the main one: pairwise, each round's merges on
** threads of their own (part w takes part w + s), then the first into the
** main part. The order of merging decides nothing: positions decide first
** rows and ties, sums are exact, DISTINCT's pairs are sets. */
static int partsMerge(Exec *e){
  MergeJob *a;
  int s, w, rc = SQLITE_OK;
  if( e->nPart==0 ) return SQLITE_OK;
  if( (a = sqlite3_malloc64(sizeof(MergeJob)*(uint64_t)e->nPart))==0 ) return SQLITE_NOMEM;
  for(s=1; s<e->nPart && rc==SQLITE_OK; s*=2){
    int n = 0, j;
    for(w=0; w + s<e->nPart; w+=2*s){
      a[n].e = e;
      a[n].p = &e->aPart[w];
      a[n].q = &e->aPart[w + s];
      a[n].rc = SQLITE_OK;
      a[n].started = 0;
      n++;
    }
    for(j=1; j<n; j++){
      a[j].started = pthread_create(&a[j].t, 0, mergeJob, &a[j])==0;
    }
    mergeJob(&a[0]);
    for(j=1; j<n; j++){
      if( a[j].started ) pthread_join(a[j].t, 0);
      else mergeJob(&a[j]);              /* no thread: here */
    }
    for(j=0; j<n; j++) if( rc==SQLITE_OK ) rc = a[j].rc;
  }
  sqlite3_free(a);
  return rc==SQLITE_OK ? partMerge(e, &e->main, &e->aPart[0]) : rc;
}

/* ---- rows of a query without aggregates ----------------------------------------------------- */

/* Room for need rows (exact: at least need, or, growing, twice as many). */
static int rowsGrow(Exec *e, int64_t need, int exact){
  qresult *o = e->out;
  if( need>e->rAlloc ){
    int64_t n = exact ? need : e->rAlloc ? 2*e->rAlloc : 1024;
    qval *a;
    while( n<need ) n *= 2;
    if( (a = sqlite3_realloc64(o->a, sizeof(qval)*(uint64_t)(n*e->nW)))==0 ) return SQLITE_NOMEM;
    o->a = a;
    e->rAlloc = n;
  }
  return SQLITE_OK;
}

/* Keep the results and sort terms of ctx's rows; with SELECT DISTINCT,
** only each row whose results are new (by their collations: requirement
** 5), the first of equal rows staying. */
static int rowsAppend(Exec *e, const qctx *ctx){
  qplan *pl = e->pl;
  qresult *o = e->out;
  int j, i, rc, m = 0;
  if( (o->nRow + ctx->n)*e->nW>Q_MAXVALUES ){
    return q_run_error(e->r, QE_BAIL, "a result of more than %lld values (SQLite streams it)", (long long)Q_MAXVALUES);
  }
  if( (rc = rowsGrow(e, o->nRow + ctx->n, 0))!=SQLITE_OK ) return rc;
  for(j=0; j<e->nW; j++){
    qexpr *x = j<pl->nOut ? pl->aOut[j] : pl->aSort[j - pl->nOut];
    qvec *v;
    if( ctx->grp && Q_GROUP_LEAF(x->op) ){
      /* a group's key, bare column or aggregate: its bytes are the run's already */
      for(i=0; i<ctx->n; i++) groupLeaf(e, x->op, x->iCol, ctx->grp[i], &o->a[(o->nRow + i)*e->nW + j]);
      continue;
    }
    if( (rc = q_eval(e->r, x, ctx, &v))!=SQLITE_OK ) return rc;
    for(i=0; i<ctx->n; i++) q_get(v, i, &o->a[(o->nRow + i)*e->nW + j]);
  }
  /* the rows kept (their bytes the run's) */
  for(i=0; i<ctx->n; i++){
    qval *row = &o->a[(o->nRow + i)*e->nW];
    if( pl->distinct ){
      int n = 0, isNew;
      int64_t id;
      for(j=0; j<pl->nOut; j++){
        if( (rc = keyOf(&e->main, &row[j], pl->aOutColl[j], &n))!=SQLITE_OK ) return rc;
      }
      if( (rc = keySetAdd(e->r, &e->rows, e->main.kbuf, n, &isNew, &id))!=SQLITE_OK ) return rc;
      if( !isNew ) continue;
    }
    for(j=0; j<e->nW; j++){
      qval *d = &row[j];
      const qexpr *x = j<pl->nOut ? pl->aOut[j] : pl->aSort[j - pl->nOut];
      if( (d->t==SQLITE_TEXT || d->t==SQLITE_BLOB) && !(ctx->grp && Q_GROUP_LEAF(x->op))
       && (d->z = q_keep(e->r, d->z, d->n))==0 ){
        return SQLITE_NOMEM;
      }
    }
    if( m<i ) memmove(&o->a[(o->nRow + m)*e->nW], row, sizeof(qval)*(size_t)e->nW);
    m++;
  }
  o->nRow += m;
  return SQLITE_OK;
}

/* ---- finishing ------------------------------------------------------------------------------ */

static void groupLeaf(void *pArg, int kind, int idx, int g, qval *out){
  Exec *e = (Exec*)pArg;
  const qplan *pl = e->pl;
  if( kind==E_AGGREF ) *out = e->main.aAgg[idx].res[g];
  else *out = e->main.gKey[(int64_t)g*SHOWN(pl) + (kind==E_BARE ? pl->nKey : 0) + idx];
}

static int cmpU64(const void *x, const void *y){
  uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return (a>b) - (a<b);
}

/* Group g's final value of aggregate a into *r. SQLITE_OK or QE_BAIL (a
** sum's integer overflow: SQLite reports it). */
static int aggValue(Exec *e, Agg *a, int64_t g, qval *r){
  memset(r, 0, sizeof(*r));
  r->t = SQLITE_NULL;
  switch( a->g->fn ){
    case A_COUNT: case A_COUNTSTAR:
      r->t = SQLITE_INTEGER; r->v = a->cnt[g];
      return SQLITE_OK;
    case A_MIN: case A_MAX:
      *r = a->ext[g];
      return SQLITE_OK;
    case A_ARGMIN: case A_ARGMAX:
      if( a->ext[g].t!=SQLITE_NULL ) *r = a->argA[g];
      return SQLITE_OK;
    case A_VARSAMP: case A_VARPOP: case A_SDSAMP: case A_SDPOP: {
      /* agg/variance.c's varSettle and varResult */
      QVar *q = a->var[g];
      int pop = a->g->fn==A_VARPOP || a->g->fn==A_SDPOP;
      double d;
      if( q==0 ) return SQLITE_OK;
      ga_sum_settle(&q->sum, &q->fpe);
      ga_carry(q->sq.w, GA_SQWORDS);
      q->sq.nAdd = 0;
      q->sum.inf = q->sq.inf = q->nInf>0;
      d = a->g->fn<=A_VARPOP ? ga_variance(&q->sum, &q->sq, q->n, pop ? q->n : q->n - 1)
                             : ga_stddev(&q->sum, &q->sq, q->n, pop ? q->n : q->n - 1);
      if( d==d ){ r->t = SQLITE_FLOAT; memcpy(&r->v, &d, 8); }
      return SQLITE_OK;
    }
    case A_MEDIAN: case A_PCT: case A_PCTCONT: case A_PCTDISC: {
      /* agg/percentile.c's pctResult, the keys sorted here */
      QKeys *q = &a->keys[g];
      int64_t rk[2];
      uint64_t k[2];
      double ix, d;
      int nr, disc = a->g->fn==A_PCTDISC;
      if( q->n==0 ) return SQLITE_OK;
      qsort(q->a, (size_t)q->n, 8, cmpU64);
      nr = ga_pct_ranks(a->g->frac, q->n, disc, rk, &ix);
      k[0] = q->a[rk[0]];
      k[1] = q->a[rk[nr-1]];
      d = ga_pct_value(ix, rk, nr, k, disc);
      r->t = SQLITE_FLOAT;
      memcpy(&r->v, &d, 8);
      return SQLITE_OK;
    }
    default: {
      const QSum *s = &a->sum[g];
      int64_t n = s->nInt + s->nReal;
      double d;
      if( s->nInf[0]<0 ) return SQLITE_NOMEM;
      if( a->g->fn!=A_TOTAL && n==0 ) return SQLITE_OK;
      if( a->g->fn==A_SUM && s->nReal==0 ){
        __int128 i = (__int128)(((unsigned __int128)(uint64_t)s->hi << 64) | s->lo);
        if( i<INT64_MIN || i>INT64_MAX ) return q_run_error(e->r, QE_BAIL, "a sum whose integers overflow (an error in SQLite)");
        r->t = SQLITE_INTEGER; r->v = (int64_t)i;
        return SQLITE_OK;
      }
      d = n ? sumValue(s) : 0.0;
      if( a->g->fn==A_AVG ) d = d/(double)n;
      if( d==d ){ r->t = SQLITE_FLOAT; memcpy(&r->v, &d, 8); }
      return SQLITE_OK;
    }
  }
}

/* Final aggregate values, by group: DISTINCT's values folded first (each
** distinct value of a group once, as its first row had it). SQLITE_OK or
** QE_BAIL (a sum's integer overflow, a percentile's input: SQLite reports
** it). */
static int aggFinal(Exec *e){
  int k, rc;
  int64_t g, j;
  for(k=0; k<e->pl->nAgg; k++){
    Agg *a = &e->main.aAgg[k];
    if( Q_DEDUP(a->g) && a->g->fn!=A_COUNT ){
      for(j=0; j<a->dset.n; j++){
        memcpy(&g, a->dset.az[j] + a->dset.an[j] - 8, 8);
        if( (rc = foldValue(&e->main, a, g, &a->dv[j]))!=SQLITE_OK ) return rc;
      }
    }
    if( (a->res = sqlite3_malloc64(sizeof(qval)*(uint64_t)(e->main.nGroup + 1)))==0 ) return SQLITE_NOMEM;
    for(g=0; g<e->main.nGroup; g++){
      if( (rc = aggValue(e, a, g, &a->res[g]))!=SQLITE_OK ) return rc;
    }
  }
  return SQLITE_OK;
}

/* Stable merge sort of idx[0..n) by cmp. */
typedef int (*Cmp)(void*, int64_t, int64_t);
static void msort(int64_t *a, int64_t *tmp, int64_t n, Cmp cmp, void *arg){
  int64_t h = n/2, i = 0, j = h, k = 0;
  if( n<2 ) return;
  msort(a, tmp, h, cmp, arg);
  msort(a + h, tmp, n - h, cmp, arg);
  while( i<h && j<n ) tmp[k++] = cmp(arg, a[j], a[i])<0 ? a[j++] : a[i++];
  while( i<h ) tmp[k++] = a[i++];
  while( j<n ) tmp[k++] = a[j++];
  memcpy(a, tmp, sizeof(int64_t)*(size_t)n);
}

static int rankCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  return (e->gRank[x]>e->gRank[y]) - (e->gRank[x]<e->gRank[y]);
}

static int groupCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  int k, c;
  for(k=0; k<e->pl->nKey; k++){
    c = q_cmp(&e->main.gKey[x*SHOWN(e->pl) + k], &e->main.gKey[y*SHOWN(e->pl) + k], e->pl->aKeyColl[k]);
    if( c ) return e->pl->aKeyDesc && e->pl->aKeyDesc[k] ? -c : c;
  }
  return 0;
}

/* ORDER BY term k puts NULLs first: NULLS FIRST, or ascending without NULLS. */
static int nullsFirst(const qplan *pl, int k){
  return pl->aSortNulls[k] ? pl->aSortNulls[k]==1 : !pl->aSortDesc[k];
}

static int sortCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  qplan *pl = e->pl;
  int k;
  for(k=0; k<pl->nSort; k++){
    const qval *a = &e->out->a[x*e->nW + pl->nOut + k], *b = &e->out->a[y*e->nW + pl->nOut + k];
    int an = a->t==SQLITE_NULL, bn = b->t==SQLITE_NULL, c;
    if( an || bn ){
      if( an && bn ) continue;
      return (an ? -1 : 1)*(nullsFirst(pl, k) ? 1 : -1);
    }
    c = q_cmp(a, b, pl->aSortColl[k]);
    if( c ) return pl->aSortDesc[k] ? -c : c;
  }
  return 0;
}

/* order[] = the groups by gRank, stably: a counting sort over the
** e->nRank places (tmp is nGroup + 1 long; the counts are its own). */
static int rankSort(Exec *e, int64_t *order, int64_t *tmp){
  int64_t *at = sqlite3_malloc64(8*(e->nRank + 1)), g, n = e->main.nGroup;
  uint64_t r, sum = 0;
  if( at==0 ) return SQLITE_NOMEM;
  memset(at, 0, 8*(size_t)(e->nRank + 1));
  for(g=0; g<n; g++){ assert( e->gRank[g]<e->nRank ); at[e->gRank[g]]++; }
  for(r=0; r<e->nRank; r++){
    uint64_t c = (uint64_t)at[r];
    at[r] = (int64_t)sum;
    sum += c;
  }
  for(g=0; g<n; g++) tmp[at[e->gRank[g]]++] = g;
  memcpy(order, tmp, 8*(size_t)n);
  sqlite3_free(at);
  return SQLITE_OK;
}

/* The groups as rows: HAVING, then results and sort terms. */
static int groupsToRows(Exec *e){
  qplan *pl = e->pl;
  int64_t *order = 0, *tmp = 0, g0;
  int rc = SQLITE_OK, aGrp[GA_BATCH];
  if( !e->kept && (rc = aggFinal(e))!=SQLITE_OK ) return rc;
  order = sqlite3_malloc64(8*(uint64_t)(e->main.nGroup + 1));
  tmp = sqlite3_malloc64(8*(uint64_t)(e->main.nGroup + 1));
  if( order==0 || tmp==0 ){ rc = SQLITE_NOMEM; goto done; }
  for(g0=0; g0<e->main.nGroup; g0++) order[g0] = g0;
  if( pl->nKey && e->gRank && e->nRank && e->nRank<=4*(uint64_t)e->main.nGroup + 65536 ){
    if( (rc = rankSort(e, order, tmp))!=SQLITE_OK ) goto done;
  }else if( pl->nKey ){
    msort(order, tmp, e->main.nGroup, e->gRank ? rankCmp : groupCmp, e);
  }
  if( (rc = rowsGrow(e, e->main.nGroup, 1))!=SQLITE_OK ) goto done;
  q_run_groups(e->r, groupLeaf, e);
  for(g0=0; g0<e->main.nGroup && rc==SQLITE_OK; g0+=GA_BATCH){
    qctx ctx;
    int i, m = 0;
    memset(&ctx, 0, sizeof(ctx));
    ctx.n = (int)(e->main.nGroup - g0<GA_BATCH ? e->main.nGroup - g0 : GA_BATCH);
    for(i=0; i<ctx.n; i++) aGrp[i] = (int)order[g0 + i];
    ctx.grp = aGrp;
    if( pl->pHaving ){
      qvec *v;
      if( (rc = q_eval(e->r, pl->pHaving, &ctx, &v))!=SQLITE_OK ) break;
      for(i=0; i<ctx.n; i++){
        int yes;
        if( (rc = q_true(e->r, v, i, &yes))!=SQLITE_OK ) break;
        if( yes ) aGrp[m++] = aGrp[i];
      }
      ctx.n = m;
    }
    if( rc==SQLITE_OK && ctx.n ) rc = rowsAppend(e, &ctx);
  }
done:
  sqlite3_free(order);
  sqlite3_free(tmp);
  return rc;
}

/* sortCmp, ties by scan order (a row's number): the stable sort's order. */
static int totalCmp(void *e, int64_t x, int64_t y){
  int c = sortCmp(e, x, y);
  return c ? c : (x>y) - (x<y);
}

/* Reorder idx[0..n) so that idx[k] is the k-th row of totalCmp's order,
** those before it no later, those after it no earlier (Hoare's selection,
** the middle of three as the pivot). */
static void selectNth(Exec *e, int64_t *idx, int64_t n, int64_t k){
  int64_t lo = 0, hi = n - 1;
  while( hi>lo ){
    int64_t m = lo + (hi - lo)/2, i = lo, j = hi, t, p;
    if( totalCmp(e, idx[m], idx[lo])<0 ){ t = idx[m]; idx[m] = idx[lo]; idx[lo] = t; }
    if( totalCmp(e, idx[hi], idx[lo])<0 ){ t = idx[hi]; idx[hi] = idx[lo]; idx[lo] = t; }
    if( totalCmp(e, idx[hi], idx[m])<0 ){ t = idx[hi]; idx[hi] = idx[m]; idx[m] = t; }
    p = idx[m];
    while( i<=j ){
      while( totalCmp(e, idx[i], p)<0 ) i++;
      while( totalCmp(e, p, idx[j])<0 ) j--;
      if( i<=j ){ t = idx[i]; idx[i] = idx[j]; idx[j] = t; i++; j--; }
    }
    if( k<=j ) hi = j;
    else if( k>=i ) lo = i;
    else break;
  }
}

/* ORDER BY, OFFSET, LIMIT over e->out's rows; the sort terms dropped. */
static int finish(Exec *e){
  qplan *pl = e->pl;
  qresult *o = e->out;
  qselect *s = pl->s;
  int64_t lim = -1, off = 0, i, *idx = 0, *tmp = 0, n;
  qval *a;
  int rc;
  if( s->pLimit && !pl->isArm ){
    if( s->pLimit->op!=E_LIT || s->pLimit->t!=SQLITE_INTEGER ) return q_run_error(e->r, QE_BAIL, "a LIMIT that is not an integer");
    lim = s->pLimit->i;
  }
  if( s->pOffset && s->pOffset!=s->pLimit && !pl->isArm && !e->offDone ){
    if( s->pOffset->op!=E_LIT || s->pOffset->t!=SQLITE_INTEGER ) return q_run_error(e->r, QE_BAIL, "an OFFSET that is not an integer");
    off = s->pOffset->i<0 ? 0 : s->pOffset->i;
  }
  n = o->nRow - off;
  if( n<0 ) n = 0;
  if( lim>=0 && n>lim ) n = lim;
  if( pl->nSort==0 && off==0 && n==o->nRow ){    /* the rows as they are */
    o->nCol = pl->nOut;
    return SQLITE_OK;
  }
  if( (idx = sqlite3_malloc64(8*(uint64_t)(o->nRow + 1)))==0 || (tmp = sqlite3_malloc64(8*(uint64_t)(o->nRow + 1)))==0 ){
    sqlite3_free(idx);
    return SQLITE_NOMEM;
  }
  for(i=0; i<o->nRow; i++) idx[i] = i;
  rc = SQLITE_DONE;
  if( pl->nSort==1 && n>0 ){               /* one term: by typed keys where numbers */
    rc = q_order_numeric(&o->a[pl->nOut], o->nRow, e->nW, pl->aSortDesc[0], nullsFirst(pl, 0), off, n, idx + off);
  }
  if( rc==SQLITE_DONE && pl->nSort && n>0 && n<o->nRow/2 ){
    /* only rows off..off+n of the order are wanted (OFFSET n/2 LIMIT 2: a
    ** median): the first off picked, then the n, by selection (ties by
    ** scan order, as the stable sort), and only the n sorted (selection
    ** moved them: ties by scan order again) */
    selectNth(e, idx, o->nRow, off);
    selectNth(e, idx + off, o->nRow - off, n - 1);
    msort(idx + off, tmp, n, totalCmp, e);
  }else if( rc==SQLITE_DONE && pl->nSort ){
    msort(idx, tmp, o->nRow, sortCmp, e);
  }
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  if( rc==SQLITE_OK && (a = sqlite3_malloc64(sizeof(qval)*(uint64_t)(n*pl->nOut + 1)))==0 ) rc = SQLITE_NOMEM;
  if( rc!=SQLITE_OK ){
    sqlite3_free(idx);
    sqlite3_free(tmp);
    return rc;
  }
  for(i=0; i<n; i++) memcpy(&a[i*pl->nOut], &o->a[idx[off + i]*e->nW], sizeof(qval)*(size_t)pl->nOut);
  sqlite3_free(o->a);
  o->a = a;
  o->nRow = n;
  o->nCol = pl->nOut;
  sqlite3_free(idx);
  sqlite3_free(tmp);
  return SQLITE_OK;
}

/* A part's state for plan pl, on run r (owned by the part). */
static int partInit(Part *p, const qplan *pl, qrun *r){
  int k;
  memset(p, 0, sizeof(*p));
  p->r = r;
  if( r==0 ) return SQLITE_NOMEM;
  if( pl->nAgg && (p->aAgg = sqlite3_malloc64(sizeof(Agg)*(uint64_t)pl->nAgg))==0 ) return SQLITE_NOMEM;
  if( p->aAgg ) memset(p->aAgg, 0, sizeof(Agg)*(size_t)pl->nAgg);
  for(k=0; k<pl->nAgg; k++) p->aAgg[k].g = &pl->aAgg[k];
  if( pl->grouped && pl->nKey==0 ){
    int rc = growGroups(p, pl, 0);  /* one group, rows or none */
    if( rc ) return rc;
    p->nGroup = 1;
    p->gPos[0] = INT64_MAX;         /* no row shows it yet: its bare columns NULL */
    for(k=0; k<pl->nBare; k++){
      memset(&p->gKey[k], 0, sizeof(qval));
      p->gKey[k].t = SQLITE_NULL;
    }
  }
  return SQLITE_OK;
}

static void partFree(Part *p, const qplan *pl, int freeRun){
  int k;
  heldFree(p->held);
  p->held = 0;
  for(k=0; p->aAgg && k<pl->nAgg; k++){
    Agg *a = &p->aAgg[k];
    if( a->sum ){
      int64_t g;
      for(g=0; g<p->nGroup; g++) sqlite3_free(a->sum[g].w);
    }
    if( a->var || a->keys ){
      int64_t g;
      for(g=0; g<p->nGroup; g++){
        if( a->var ) sqlite3_free(a->var[g]);
        if( a->keys ) sqlite3_free(a->keys[g].a);
      }
    }
    sqlite3_free(a->cnt); sqlite3_free(a->sum); sqlite3_free(a->ext); sqlite3_free(a->extPos); sqlite3_free(a->res);
    sqlite3_free(a->argA); sqlite3_free(a->var); sqlite3_free(a->keys);
    keySetFree(&a->dset); sqlite3_free(a->dv); sqlite3_free(a->dp);
  }
  sqlite3_free(p->aAgg);
  sqlite3_free(p->gKey);
  sqlite3_free(p->gPos);
  sqlite3_free(p->hs);
  sqlite3_free(p->gk);
  sqlite3_free(p->kbuf);
  sqlite3_free(p->aB);
  if( freeRun ) q_run_free(p->r);
  memset(p, 0, sizeof(*p));
}

/* Work in parallel (requirement 7)? */
static int parallel(const qplan *pl, int nThread){
  if( !pl->grouped || nThread<2 ) return 0;
  if( pl->iHit>=0 && SHOWN(pl) ) return 0;
  return 1;
}

/* ---- kept columns (requirement 8) ------------------------------------------------------ */

static int nullBatch(ga_colsink *pSink, const ga_colbatch *b){
  (void)pSink; (void)b;
  return SQLITE_OK;
}

/* The keys fold row x shows (compile.c, 3) into out: a dictionary key's
** value as aShown[kk] has it, made there (its bytes kept by run r) the
** first time its id is shown. Non-zero: out of memory. */
static int keptKeys(const qkept *k, qrun *r, qval **aShown, const ga_grow *x, qval *out){
  int kk;
  if( k->p.keyNum ){
    double d;
    memset(out, 0, sizeof(*out));
    switch( x->kclass ){
      case GA_K_NULL: out->t = SQLITE_NULL; break;
      case GA_K_INT: out->t = SQLITE_INTEGER; out->v = (int64_t)x->key; break;
      case GA_K_REAL: out->t = SQLITE_FLOAT; out->v = (int64_t)x->key; break;
      default:
        d = x->kclass==GA_K_INTZ ? -0.0 : (double)(int64_t)x->key;
        out->t = SQLITE_FLOAT;
        memcpy(&out->v, &d, 8);
        break;
    }
    return 0;
  }
  for(kk=0; kk<k->p.nKey; kk++){
    uint64_t id = (x->key/(uint64_t)k->p.keyMul[kk]) % (uint64_t)k->aKeyN[kk];
    qval *v = &aShown[kk][id];
    if( v->t==0 ){
      *v = k->aKeyVal[kk][id];
      if( (v->t==SQLITE_TEXT || v->t==SQLITE_BLOB) && v->z && (v->z = q_keep(r, v->z, v->n))==0 ){
        v->t = 0;
        return 1;
      }
    }
    out[kk] = *v;
  }
  return 0;
}

/* Aggregate a's final value from its fold's row x (NULL: the group has no
** row there: no rows) into *out; QE_BAIL where SQLite would raise an error. */
static int keptValue(Exec *e, const qagg *a, const ga_grow *x, qval *out){
  int64_t n = x ? x->nInt + x->nReal : 0;
  double d;
  memset(out, 0, sizeof(*out));
  out->t = SQLITE_NULL;
  switch( a->fn ){
    case A_COUNTSTAR: out->t = SQLITE_INTEGER; out->v = x ? x->rows : 0; return SQLITE_OK;
    case A_COUNT: out->t = SQLITE_INTEGER; out->v = n; return SQLITE_OK;
    case A_MIN: case A_MAX: {
      uint64_t bits, pos;
      int t = x ? ga_gext_value(a->fn==A_MAX ? x->mx : x->mn, a->fn==A_MAX, &bits, &pos) : GA_T_NONE;
      if( t!=GA_T_NONE ){
        out->t = t==GA_T_INT ? SQLITE_INTEGER : SQLITE_FLOAT;
        out->v = (int64_t)bits;
      }
      return SQLITE_OK;
    }
    default:
      if( a->fn!=A_TOTAL && n==0 ) return SQLITE_OK;
      if( a->fn==A_SUM && x->sumType==GA_SUM_OVERFLOW ){
        return q_run_error(e->r, QE_BAIL, "a sum whose integers overflow (an error in SQLite)");
      }
      if( a->fn==A_SUM && x->sumType==GA_SUM_INT ){
        out->t = SQLITE_INTEGER;
        out->v = x->isum;
        return SQLITE_OK;
      }
      d = n ? x->total : 0.0;
      if( a->fn==A_AVG ) d = d/(double)n;
      if( d==d ){
        out->t = SQLITE_FLOAT;
        memcpy(&out->v, &d, 8);
      }
      return SQLITE_OK;
  }
}

/* count(DISTINCT x) over kept columns: each group's count, by its code
** (compile.c, 3: 0 without keys). */
typedef struct Dist {
  ga_kmap map;                     /* code -> index in n */
  int64_t *n;                      /* the counts */
  int64_t nAlloc;
} Dist;

/* Aggregate a, count(DISTINCT x), into d: pl compiled again with x as one
** more key (its collation the aggregate's), run, and the groups each
** original group has counted (x NULL: none). SQLITE_OK, with *pFail set
** where the backend failed or declined (zErr, GA_DEV_SCAN); QE_BAIL with
** *pzWhy; or SQLITE_NOMEM. */
static int keptDistinct(Exec *e, const qplan *pl, ga_resident *const *aRes, const ga_qcol *aCol,
                        const ga_backend *be, ga_conn *conn, int a, Dist *d, char **pzWhy, int *pFail, char *zErr){
  qplan aux = *pl;
  qagg cnt;
  qkept k;
  ga_group g, *pg = &g;
  int64_t i;
  int rc, fail, last = pl->nKey;
  if( pl->nKey>=Q_MAXKEY ){
    *pzWhy = sqlite3_mprintf("count(DISTINCT) with %d keys", Q_MAXKEY);
    return QE_BAIL;
  }
  memset(&cnt, 0, sizeof(cnt));
  cnt.fn = A_COUNTSTAR;
  aux.aKey[last] = pl->aAgg[a].x;
  aux.aKeyColl[last] = pl->aAgg[a].dcoll;
  aux.nKey = last + 1;
  aux.aAgg = &cnt;
  aux.nAgg = 1;
  aux.iHit = -1;
  aux.lastCounted = 1;
  if( (rc = q_compile(e->r, &aux, aRes, &k, pzWhy))!=SQLITE_OK ) return rc;
  memset(&g, 0, sizeof(g));
  g.jb = -1;
  fail = be->xQuery(be==ga_device_backend() ? aRes[0]->pRes : 0, &conn->stats, &k.p, aCol, aRes[0]->n, k.tabC, k.tabV,
                    k.nTab, &pg, zErr);
  if( (g.dev || g.cpu) && be->xGroupDone(&g, !fail, zErr) && !fail ) fail = 1;
  for(i=0; !fail && rc==SQLITE_OK && i<g.nRes; i++){
    const ga_grow *x = &g.res[i];
    uint64_t code = 0;
    int isNew;
    int64_t j;
    if( x->kclass==GA_Q_DROPPED_META ) continue;
    if( k.p.keyNum ){
      if( x->kclass==GA_K_NULL ) continue;
    }else{
      uint64_t id = (x->key/(uint64_t)k.p.keyMul[last]) % (uint64_t)k.aKeyN[last];
      if( k.aKeyVal[last][id].t==SQLITE_NULL ) continue;
      code = x->key % (uint64_t)k.p.keyMul[last];
    }
    if( (j = ga_kmap_add(&d->map, GA_K_INT + 1, code, &isNew))<0 ){ rc = SQLITE_NOMEM; break; }
    if( j>=d->nAlloc ){
      int64_t m = 2*j + 16;
      int64_t *p = sqlite3_realloc64(d->n, 8*(uint64_t)m);
      if( p==0 ){ rc = SQLITE_NOMEM; break; }
      memset(p + d->nAlloc, 0, 8*(size_t)(m - d->nAlloc));
      d->n = p;
      d->nAlloc = m;
    }
    d->n[j]++;
  }
  ga_group_clear(&g);
  q_kept_free(&k);
  *pFail = fail;
  return rc;
}

/* The folds' groups as e->main's, their aggregates final. Fold 0's rows
** (the dropped rows' none) are the groups, in its order; every fold has
** the same (class, key) rows in the same order when every row reaches it,
** so another fold's row is looked up only where its rows differ. Only the
** shown keys and final values are made: nothing per group is allocated
** that the finish does not read (fresh pages are most of a big grouping's
** host time). */
static int keptGroups(Exec *e, const qkept *k, ga_group *aG, Dist *aDist){
  const qplan *pl = e->pl;
  Part *m = &e->main;
  ga_kmap map;
  int64_t i, g, nG = 0, *at0 = 0, **aAt = 0;
  qval *aShown[Q_MAXKEY];
  int f, a, kk, rc = SQLITE_OK, nk = pl->nKey ? pl->nKey : 1;
  memset(&map, 0, sizeof(map));
  memset(aShown, 0, sizeof(aShown));
  if( (at0 = sqlite3_malloc64(8*(uint64_t)(aG[0].nRes + 1)))==0 ) return SQLITE_NOMEM;
  for(i=0; i<aG[0].nRes; i++){
    if( aG[0].res[i].kclass!=GA_Q_DROPPED_META ) at0[nG++] = i;
  }
  if( pl->nKey==0 ){
    if( nG==0 ) at0[0] = -1;
    nG = 1;
  }else if( (m->gKey = sqlite3_malloc64(sizeof(qval)*(uint64_t)(nG*nk + 1)))==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  m->nGroup = nG;
  /* each fold's row of each group */
  if( (aAt = sqlite3_malloc64(sizeof(int64_t*)*(uint64_t)k->p.nFold))==0 ){ rc = SQLITE_NOMEM; goto done; }
  memset(aAt, 0, sizeof(int64_t*)*(size_t)k->p.nFold);
  aAt[0] = at0;
  for(f=1; f<k->p.nFold; f++){
    int same = aG[f].nRes==aG[0].nRes;
    for(i=0; same && i<aG[0].nRes; i++){
      same = aG[f].res[i].key==aG[0].res[i].key
          && ga_kgroup(aG[f].res[i].kclass)==ga_kgroup(aG[0].res[i].kclass);
    }
    if( same ){
      aAt[f] = at0;
      continue;
    }
    if( map.n==0 ){                           /* groups by (class, key), as fold 0 has them */
      for(g=0; g<nG && at0[g]>=0; g++){
        int isNew;
        const ga_grow *x = &aG[0].res[at0[g]];
        if( ga_kmap_add(&map, (uint32_t)ga_kgroup(x->kclass) + 1, x->key, &isNew)<0 ){ rc = SQLITE_NOMEM; goto done; }
      }
    }
    if( (aAt[f] = sqlite3_malloc64(8*(uint64_t)(nG + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
    for(g=0; g<nG; g++) aAt[f][g] = -1;
    for(i=0; i<aG[f].nRes; i++){
      const ga_grow *x = &aG[f].res[i];
      if( x->kclass==GA_Q_DROPPED_META ) continue;
      g = pl->nKey ? ga_kmap_find(&map, (uint32_t)ga_kgroup(x->kclass) + 1, x->key) : 0;
      if( g>=0 && g<nG ) aAt[f][g] = i;
    }
  }
  if( pl->nKey && !k->p.keyNum ){
    if( (e->gRank = sqlite3_malloc64(8*(uint64_t)(nG + 1)))==0 ){ rc = SQLITE_NOMEM; goto done; }
    for(kk=0, e->nRank=1; kk<pl->nKey && e->nRank; kk++){
      e->nRank = e->nRank<=((uint64_t)1<<40)/(uint64_t)k->aKeyN[kk] ? e->nRank*(uint64_t)k->aKeyN[kk] : 0;
    }
  }
  for(kk=0; kk<pl->nKey && !k->p.keyNum; kk++){
    if( (aShown[kk] = sqlite3_malloc64(sizeof(qval)*(uint64_t)k->aKeyN[kk]))==0 ){ rc = SQLITE_NOMEM; goto done; }
    memset(aShown[kk], 0, sizeof(qval)*(size_t)k->aKeyN[kk]);
  }
  for(g=0; pl->nKey && g<nG; g++){
    if( keptKeys(k, e->r, aShown, &aG[0].res[at0[g]], &m->gKey[g*nk]) ){ rc = SQLITE_NOMEM; goto done; }
    if( e->gRank ){
      /* the keys' places, the first key the most significant */
      uint64_t code = aG[0].res[at0[g]].key, rank = 0;
      for(kk=0; kk<pl->nKey; kk++){
        uint64_t id = (code/(uint64_t)k->p.keyMul[kk]) % (uint64_t)k->aKeyN[kk];
        uint64_t r = (uint64_t)k->aKeyRank[kk][id];
        if( pl->aKeyDesc && pl->aKeyDesc[kk] ) r = (uint64_t)k->aKeyN[kk] - 1 - r;
        rank = rank*(uint64_t)k->aKeyN[kk] + r;
      }
      e->gRank[g] = rank;
    }
  }
  for(a=0; a<pl->nAgg && rc==SQLITE_OK; a++){
    Agg *x = &m->aAgg[a];
    f = k->aFold[a]<0 ? 0 : k->aFold[a];
    if( (x->res = sqlite3_malloc64(sizeof(qval)*(uint64_t)(nG + 1)))==0 ){ rc = SQLITE_NOMEM; break; }
    if( k->aFold[a]==-2 ){                      /* count(DISTINCT): the counts by code */
      for(g=0; g<nG; g++){
        uint64_t code = pl->nKey ? aG[0].res[at0[g]].key : 0;
        int64_t j = ga_kmap_find(&aDist[a].map, GA_K_INT + 1, code);
        memset(&x->res[g], 0, sizeof(qval));
        x->res[g].t = SQLITE_INTEGER;
        x->res[g].v = j>=0 ? aDist[a].n[j] : 0;
      }
      continue;
    }
    for(g=0; g<nG && rc==SQLITE_OK; g++){
      rc = keptValue(e, &pl->aAgg[a], aAt[f][g]>=0 ? &aG[f].res[aAt[f][g]] : 0, &x->res[g]);
    }
  }
  e->kept = 1;
done:
  for(f=1; aAt && f<k->p.nFold; f++) if( aAt[f]!=at0 ) sqlite3_free(aAt[f]);
  sqlite3_free(aAt);
  sqlite3_free(at0);
  for(kk=0; kk<Q_MAXKEY; kk++) sqlite3_free(aShown[kk]);
  ga_kmap_free(&map);
  return rc;
}

/* Requirement 8: SQLITE_OK with *pDone set where the groups are e->main's,
** else why in r->zKeptWhy (where it was wanted); an error (*pzErr). */
/* Keep compiled plan k (made from columns aRes) in kc: its keys' shown
** bytes copied there. Non-zero: out of memory (kc stays empty). */
static int keptSave(qkeptcache *kc, const qplan *pl, ga_resident *const *aRes, const char *zParams, qkept *k){
  int64_t n = 0, i;
  int kk, c;
  char *z;
  q_keptcache_clear(kc);
  for(kk=0; kk<k->p.nKey; kk++){
    for(i=0; k->aKeyVal[kk] && i<k->aKeyN[kk]; i++){
      if( k->aKeyVal[kk][i].t==SQLITE_TEXT || k->aKeyVal[kk][i].t==SQLITE_BLOB ) n += k->aKeyVal[kk][i].n;
    }
  }
  if( (kc->aBytes = z = sqlite3_malloc64((uint64_t)n + 1))==0 || (kc->zKey = sqlite3_mprintf("%s", zParams))==0 ){
    q_keptcache_clear(kc);
    return 1;
  }
  for(kk=0; kk<k->p.nKey; kk++){
    for(i=0; k->aKeyVal[kk] && i<k->aKeyN[kk]; i++){
      qval *x = &k->aKeyVal[kk][i];
      if( x->t!=SQLITE_TEXT && x->t!=SQLITE_BLOB ) continue;
      if( x->n ) memcpy(z, x->z, (size_t)x->n);
      x->z = z;
      z += x->n;
    }
  }
  kc->k = *k;
  memset(k, 0, sizeof(*k));
  kc->nCol = pl->nCol;
  for(c=0; c<pl->nCol; c++) kc->aGen[c] = aRes[c]->gen;
  kc->valid = 1;
  return 0;
}

void q_keptcache_clear(qkeptcache *kc){
  if( kc->valid ) q_kept_free(&kc->k);
  sqlite3_free(kc->zKey);
  sqlite3_free(kc->aBytes);
  memset(kc, 0, sizeof(*kc));
}

/* The constants e folds to (its literals, as this read's plan has them:
** parameters and what SQLite folded, 'now' too) onto s; 0 where e asks a
** connection's own function per value (LIKE, a function not built in: it
** may change between reads), so that nothing compiled from it is kept. */
static int litKey(sqlite3_str *s, const qexpr *e){
  int i;
  if( e==0 ) return 1;
  if( e->op==E_SQL && e->mainOnly ) return 0;
  if( e->op==E_LIT ){
    sqlite3_str_appendf(s, "%d:%lld:", e->t, (long long)e->i);
    for(i=0; (e->t==SQLITE_TEXT || e->t==SQLITE_BLOB) && i<e->n; i++) sqlite3_str_appendf(s, "%02x", (unsigned char)e->z[i]);
    sqlite3_str_appendchar(s, 1, ';');
  }
  for(i=0; i<e->nTplLit; i++) if( !litKey(s, e->aTplLit[i]) ) return 0;
  for(i=0; i<e->nArg; i++) if( !litKey(s, e->arg[i]) ) return 0;
  return litKey(s, e->a) && litKey(s, e->b);
}

/* What a compiled plan of pl depends on besides its columns: its constants
** (sqlite3_malloc'd); NULL where it must not be kept (or out of memory). */
static char *planKey(const qplan *pl){
  sqlite3_str *s = sqlite3_str_new(0);
  int i, ok = 1;
  for(i=0; ok && i<pl->nConj; i++) ok = litKey(s, pl->aConj[i]);
  for(i=0; ok && i<pl->nKey; i++) ok = litKey(s, pl->aKey[i]);
  for(i=0; ok && i<pl->nAgg; i++) ok = litKey(s, pl->aAgg[i].x);
  sqlite3_str_appendchar(s, 1, '.');
  if( !ok ){
    sqlite3_free(sqlite3_str_finish(s));
    return 0;
  }
  return sqlite3_str_finish(s);
}

/* kc holds the plan compiled for columns aRes and these parameters. */
static int keptSame(const qkeptcache *kc, const qplan *pl, ga_resident *const *aRes, const char *zParams){
  int c;
  if( kc==0 || zParams==0 || !kc->valid || kc->nCol!=pl->nCol || strcmp(kc->zKey, zParams)!=0 ) return 0;
  for(c=0; c<pl->nCol; c++) if( kc->aGen[c]!=aRes[c]->gen ) return 0;
  return 1;
}

/* The plan's columns as the cache keeps them (read into it first where keep
** says the table is large), into aRes and aCol, the source that holds them
** into *pSrc (the caller closes it), and the backend that will serve into
** *pBe: the device where useDev and every column is there, the CPU's where
** gpuagg_config('query_kept') is 1, else none (why, if any, in *pzWhy; in
** 'cuda' mode, where strict, an error). SQLITE_OK or an error (*pzErr). */
static int keptCols(sqlite3_vtab *vt, qplan *pl, int keep, int useDev, int strict, ga_colsrc **pSrc,
                    ga_resident **aRes, ga_qcol *aCol, const ga_backend **pBe, char **pzWhy, char **pzErr){
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend();
  ga_colsrc *src = 0;
  char zErr[GA_ERRLEN];
  int c, rc = SQLITE_OK;
  *pBe = 0;
  if( ga_tvf_open(vt, "gpu_query", &pl->src, pl->nCol, pl->aiCol, pl->aWant, pSrc)!=SQLITE_OK ){
    *pzWhy = sqlite3_mprintf("%s", vt->zErrMsg ? vt->zErrMsg : "the table could not be read");
    return SQLITE_OK;
  }
  src = *pSrc;
  if( !ga_cache_source(src) ){
    *pzWhy = sqlite3_mprintf("the columns cannot be kept here (the column cache is off, or the table is a view, "
                             "in a temp, in-memory or attached database, or this connection writes it)");
    return SQLITE_OK;
  }
  if( ga_cache_kept(src, 0)==0 ){
    ga_colsink none;
    if( !keep ) return SQLITE_OK;               /* the table's size is not known yet */
    if( useDev && !dev->xWarm() && dev->xWake(conn->devices, zErr) ){
      *pzWhy = sqlite3_mprintf("%s", zErr);
      return SQLITE_OK;
    }
    memset(&none, 0, sizeof(none));
    none.xBatch = nullBatch;
    if( (rc = src->xScan(src, &none))!=SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : src->xErrmsg(src));
      return rc;
    }
    if( ga_cache_kept(src, 0)==0 ){
      *pzWhy = sqlite3_mprintf("the columns were not kept (gpuagg_config('cache') too small, or none)");
      return SQLITE_OK;
    }
  }
  for(c=0; useDev && c<pl->nCol; c++){
    if( ga_cache_kept(src, c)->d==0 ){       /* kept in host memory only: the device again */
      ga_cache_device_again(src);
      break;
    }
  }
  for(c=0; c<pl->nCol; c++){
    aRes[c] = ga_cache_kept(src, c);
    aCol[c].type = aRes[c]->type;
    aCol[c].v = aRes[c]->v;
    aCol[c].d = aRes[c]->d;
    if( aRes[c]->d==0 ) useDev = 0;
  }
  /* no rows: nothing for a device to do (the CPU's program gives the empty groups) */
  *pBe = aRes[0]->n==0 ? &ga_cpu_backend : useDev ? dev : conn->qkept==1 ? &ga_cpu_backend : 0;
  if( *pBe==0 && strict && conn->mode==GA_CUDA ){
    *pzErr = sqlite3_mprintf("gpu_query: not on the device in 'cuda' mode: the columns are not on the device%s%s%s",
                             conn->stats.zLastErr[0] ? " (the last device error: " : "", conn->stats.zLastErr,
                             conn->stats.zLastErr[0] ? ")" : "");
    return SQLITE_ERROR;
  }
  if( *pBe==0 ) *pzWhy = sqlite3_mprintf("the columns are not on the device");
  return SQLITE_OK;
}

static int keptRun(Exec *e, sqlite3_vtab *vt, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
                   int *pDone, char **pzErr){
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend(), *be = 0;
  ga_resident *aRes[GA_COLS_MAX];
  ga_qcol aCol[GA_COLS_MAX];
  ga_group aG[GA_QFOLD], *apG[GA_QFOLD];
  Dist *aDist = 0;
  ga_colsrc *src = 0;
  qkept k, *pk = &k;
  char zErr[GA_ERRLEN], *zWhy = 0, *zKey = 0;
  int c, f, rc = SQLITE_OK, fail = 0;
  int useDev = conn->qkept!=0 && conn->mode!=GA_CPU && dev && dev->xQuery && ga_device_usable(zErr);
  double t0 = ga_now_ms();
  *pDone = 0;
  memset(&k, 0, sizeof(k));
  memset(aG, 0, sizeof(aG));
  if( (!useDev && conn->qkept!=1) || !pl->grouped ) return SQLITE_OK;
  rc = keptCols(vt, pl, keep, useDev, 1, &src, aRes, aCol, &be, &zWhy, pzErr);
  r->aMs[0] = ga_now_ms() - t0;
  if( rc!=SQLITE_OK || be==0 ) goto done;
  if( kc ){                                 /* the parameters, and the constants they fold into */
    char *zPlan = planKey(pl);
    zKey = zPlan ? sqlite3_mprintf("%s|%s", zParams ? zParams : "", zPlan) : 0;
    sqlite3_free(zPlan);
  }
  if( keptSame(kc, pl, aRes, zKey) ){
    pk = &kc->k;
  }else if( (rc = q_compile(e->r, pl, aRes, &k, &zWhy))!=SQLITE_OK ){
    if( rc==QE_BAIL ) rc = SQLITE_OK;
    else *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : q_run_errmsg(e->r));
    goto done;
  }else if( zKey && keptSave(kc, pl, aRes, zKey, &k)==0 ){
    pk = &kc->k;
  }
  r->aMs[1] = ga_now_ms() - t0 - r->aMs[0];
  for(f=0; f<pk->p.nFold; f++){
    aG[f].jb = pk->jbSure ? pk->aJb[f] : -1;
    aG[f].jbSure = pk->jbSure;
    apG[f] = &aG[f];
  }
  fail = be->xQuery(be==dev ? aRes[0]->pRes : 0, &conn->stats, &pk->p, aCol, aRes[0]->n, pk->tabC, pk->tabV, pk->nTab,
                    apG, zErr);
  for(f=0; f<pk->p.nFold; f++){
    if( (aG[f].dev || aG[f].cpu) && be->xGroupDone(&aG[f], !fail, zErr) && !fail ) fail = 1;
  }
  if( fail==0 && be==dev && kc && pk==&kc->k ){   /* the device found the windows: the next read need not */
    for(f=0; f<pk->p.nFold; f++) pk->aJb[f] = aG[f].jb;
    pk->jbSure = 1;
  }
  for(c=0; !fail && rc==SQLITE_OK && c<pl->nAgg; c++){
    if( pk->aFold[c]!=-2 ) continue;
    if( aDist==0 ){
      if( (aDist = sqlite3_malloc64(sizeof(Dist)*(uint64_t)pl->nAgg))==0 ){ rc = SQLITE_NOMEM; break; }
      memset(aDist, 0, sizeof(Dist)*(size_t)pl->nAgg);
    }
    rc = keptDistinct(e, pl, aRes, aCol, be, conn, c, &aDist[c], &zWhy, &fail, zErr);
  }
  if( rc==QE_BAIL ) rc = SQLITE_OK;
  else if( rc ){
    *pzErr = sqlite3_mprintf("out of memory");
    goto done;
  }
  if( fail==GA_DEV_SCAN ){
    zWhy = sqlite3_mprintf("reals whose range the device's sums do not hold, or infinite, or a column split "
                           "across devices");
  }else if( fail && be==dev ){
    if( ga_device_failed(conn, zErr) ){
      rc = SQLITE_ERROR;
      *pzErr = sqlite3_mprintf("%s", zErr);
    }else{
      zWhy = sqlite3_mprintf("%s", zErr);
    }
  }else if( fail ){
    rc = SQLITE_NOMEM;
    *pzErr = sqlite3_mprintf("out of memory");
  }else if( zWhy ){
    /* a count(DISTINCT) the kept columns do not serve */
  }else if( (rc = keptGroups(e, pk, aG, aDist))==SQLITE_OK ){
    *pDone = 1;
    r->kept = be==dev ? Q_KEPT_DEVICE : Q_KEPT_CPU;
    r->aMs[2] = ga_now_ms() - t0 - r->aMs[0] - r->aMs[1];
    if( be==dev ) ga_cache_device_hit(conn->cache, ga_now_ms() - t0);
  }else if( rc!=QE_BAIL ){
    *pzErr = sqlite3_mprintf("out of memory");
  }
done:
  for(f=0; f<GA_QFOLD; f++) ga_group_clear(&aG[f]);
  for(c=0; aDist && c<pl->nAgg; c++){
    ga_kmap_free(&aDist[c].map);
    sqlite3_free(aDist[c].n);
  }
  sqlite3_free(aDist);
  sqlite3_free(zKey);
  q_kept_free(&k);
  if( src ) src->xClose(src);
  if( zWhy && rc==SQLITE_OK && conn->mode==GA_CUDA && be==dev && dev ){
    rc = SQLITE_ERROR;
    *pzErr = sqlite3_mprintf("gpu_query: not on the device in 'cuda' mode: %s", zWhy);
  }
  r->zKeptWhy = zWhy;
  return rc;
}

/* ---- a window of an order, from the table (requirement 11) --------------------------- */

#define Q_ORDER_MAX 65536          /* the rows of a window keptOrder makes, at most (LIMIT) */
#define Q_TOP 4096                 /* OFFSET + LIMIT at most this: held rows are cut to the best
                                   ** as they come (a top ten holds little more than ten rows) */

/* pl is rows ordered by one term with a LIMIT keptOrder serves: its limit
** and offset into *pLim and *pOff. */
static int orderable(const qplan *pl, int64_t *pLim, int64_t *pOff){
  const qselect *s = pl->s;
  if( pl->grouped || pl->distinct || pl->nSort!=1 || pl->isArm || pl->pSub || s->zFrom==0 || s->pLimit==0 ) return 0;
  if( s->pLimit->op!=E_LIT || s->pLimit->t!=SQLITE_INTEGER || s->pLimit->i<1 || s->pLimit->i>Q_ORDER_MAX ) return 0;
  *pLim = s->pLimit->i;
  *pOff = 0;
  if( s->pOffset && s->pOffset!=s->pLimit ){
    if( s->pOffset->op!=E_LIT || s->pOffset->t!=SQLITE_INTEGER ) return 0;
    *pOff = s->pOffset->i<0 ? 0 : s->pOffset->i;
  }
  return 1;
}

static void heldFree(Held *h){
  if( h==0 ) return;
  sqlite3_free(h->kt); sqlite3_free(h->kv);
  sqlite3_free(h->ct); sqlite3_free(h->cv);
  sqlite3_free(h->pos); sqlite3_free(h->cell);
  sqlite3_free(h->bAt);
  sqlite3_free(h);
}

/* Room in h for need rows. */
static int heldGrow(Held *h, int64_t need){
  int64_t n = h->alloc ? 2*h->alloc : 4096;
  void *a[5];
  int k;
  if( need<=h->alloc ) return SQLITE_OK;
  while( n<need ) n *= 2;
  a[0] = sqlite3_realloc64(h->kt, (uint64_t)n);
  if( a[0] ) h->kt = a[0];
  a[1] = sqlite3_realloc64(h->kv, 8*(uint64_t)n);
  if( a[1] ) h->kv = a[1];
  a[2] = sqlite3_realloc64(h->ct, (uint64_t)n*(uint64_t)(h->nCol + 1));
  if( a[2] ) h->ct = a[2];
  a[3] = sqlite3_realloc64(h->cv, 8*(uint64_t)n*(uint64_t)(h->nCol + 1));
  if( a[3] ) h->cv = a[3];
  a[4] = sqlite3_realloc64(h->pos, 8*(uint64_t)n);
  if( a[4] ) h->pos = a[4];
  for(k=0; k<5; k++) if( a[k]==0 ) return SQLITE_NOMEM;
  h->alloc = n;
  return SQLITE_OK;
}

/* A held row's place in the order: its group (NULLs first 0, numbers 1,
** NULLs last 2), then its key. */
static void heldRank(const Held *h, int t, int64_t v, int *pg, uint64_t *pk){
  if( t==SQLITE_NULL ){
    *pg = h->nullsFirst ? 0 : 2;
    *pk = 0;
  }else{
    *pg = 1;
    *pk = q_order_key(t, v, t==SQLITE_FLOAT) ^ (h->desc ? ~0ull : 0);
  }
}

static int rankLess(int g1, uint64_t k1, int64_t p1, int g2, uint64_t k2, int64_t p2){
  return g1!=g2 ? g1<g2 : k1!=k2 ? k1<k2 : p1<p2;
}

/* Sorting held rows by their places (heldPrune). */
typedef struct HeldRank { int g; uint64_t k; int64_t pos, i; } HeldRank;
static int heldRankCmp(const void *x, const void *y){
  const HeldRank *a = (const HeldRank*)x, *b = (const HeldRank*)y;
  return rankLess(a->g, a->k, a->pos, b->g, b->k, b->pos) ? -1 : rankLess(b->g, b->k, b->pos, a->g, a->k, a->pos);
}

/* A top's rows cut to its keep best (scan order kept among them); the
** keep-th becomes the bar a row must pass to be held. Every comparison is
** between numbers of one class or NULLs: SQLite's order, exactly, so no
** row left out can be in the window (keep rows of its part come first). */
static int heldPrune(Held *h){
  HeldRank *r = sqlite3_malloc64(sizeof(HeldRank)*(uint64_t)(h->n + 1));
  int64_t *keepI = sqlite3_malloc64(8*(uint64_t)(h->keep + 1)), i, j;
  int c;
  if( r==0 || keepI==0 ){
    sqlite3_free(r);
    sqlite3_free(keepI);
    return SQLITE_NOMEM;
  }
  for(i=0; i<h->n; i++){
    heldRank(h, h->kt[i], h->kv[i], &r[i].g, &r[i].k);
    r[i].pos = h->pos[i];
    r[i].i = i;
  }
  qsort(r, (size_t)h->n, sizeof(HeldRank), heldRankCmp);
  h->cutG = r[h->keep - 1].g;
  h->cutK = r[h->keep - 1].k;
  h->cutPos = r[h->keep - 1].pos;
  h->hasCut = 1;
  for(i=0; i<h->keep; i++) keepI[i] = r[i].i;
  qsort(keepI, (size_t)h->keep, sizeof(int64_t), cmpU64);   /* (indexes are not negative) */
  for(j=0; j<h->keep; j++){
    i = keepI[j];
    h->kt[j] = h->kt[i];
    h->kv[j] = h->kv[i];
    h->pos[j] = h->pos[i];
    for(c=0; c<h->nCol; c++){
      h->ct[j*h->nCol + c] = h->ct[i*h->nCol + c];
      h->cv[j*h->nCol + c] = h->cv[i*h->nCol + c];
    }
  }
  h->n = h->keep;
  h->pruned = 1;
  sqlite3_free(r);
  sqlite3_free(keepI);
  return SQLITE_OK;
}

/* ctx's rows (the filter's) held by part p: the term's value, the columns
** copied (TEXT and BLOB bytes kept by p's run). On a worker, nothing is
** changed before the term is evaluated (a value that needs SQLite hands
** the batch to the scan's thread). */
static int holdRows(Exec *e, Part *p, const qctx *ctx){
  qplan *pl = e->pl;
  Held *h = p->held;
  const ga_colbatch *b = ctx->b;
  qvec *v;
  int i, c, rc, m = 0;
  if( ctx->n==0 ) return SQLITE_OK;
  if( (rc = q_eval(p->r, pl->aSort[0], ctx, &v))!=SQLITE_OK ) return rc;
  if( __atomic_add_fetch(&e->nHeldVals, (int64_t)ctx->n*(h->nCol + 1), __ATOMIC_RELAXED)>Q_MAXVALUES ){
    return q_run_error(p->r, QE_BAIL, "a result of more than %lld values (SQLite streams it)", (long long)Q_MAXVALUES);
  }
  if( (rc = heldGrow(h, h->n + ctx->n))!=SQLITE_OK ) return rc;
  if( h->nB>=h->bAlloc ){
    int64_t n = h->bAlloc ? 2*h->bAlloc : 256;
    int64_t *a = sqlite3_realloc64(h->bAt, 8*(uint64_t)n);
    if( a==0 ) return SQLITE_NOMEM;
    h->bAt = a;
    h->bAlloc = n;
  }
  h->bAt[h->nB++] = h->n;
  for(i=0; i<ctx->n; i++){
    int row = ctx->sel ? ctx->sel[i] : i;
    int64_t at = h->n + m;
    if( h->keep && h->cls>=0 ){
      int t = v->t[i];
      if( t==SQLITE_TEXT || t==SQLITE_BLOB || (t!=SQLITE_NULL && h->cls && t!=h->cls) ) h->cls = -1;
      else if( t!=SQLITE_NULL ) h->cls = t;
      if( h->cls>0 && h->hasCut ){            /* a top: below the bar, not held */
        int g;
        uint64_t k;
        heldRank(h, t, v->v[i], &g, &k);
        if( !rankLess(g, k, b->pos + row, h->cutG, h->cutK, h->cutPos) ) continue;
      }
    }
    m++;
    h->kt[at] = v->t[i];
    h->kv[at] = v->t[i]==SQLITE_INTEGER || v->t[i]==SQLITE_FLOAT ? v->v[i] : 0;
    h->pos[at] = b->pos + row;
    for(c=0; c<h->nCol; c++){
      int t = b->col[c].type[row];
      int64_t x = b->col[c].v[row];
      if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
        const ga_cell *src = &b->col[c].cell[x];
        ga_cell *d;
        if( h->nCell>=h->cellAlloc ){
          int64_t n = h->cellAlloc ? 2*h->cellAlloc : 1024;
          ga_cell *a = sqlite3_realloc64(h->cell, sizeof(ga_cell)*(uint64_t)n);
          if( a==0 ) return SQLITE_NOMEM;
          h->cell = a;
          h->cellAlloc = n;
        }
        d = &h->cell[h->nCell];
        *d = *src;
        if( src->z && (d->z = q_keep(p->r, src->z, src->n))==0 ) return SQLITE_NOMEM;
        x = h->nCell++;
      }
      h->ct[at*h->nCol + c] = (unsigned char)t;
      h->cv[at*h->nCol + c] = x;
    }
  }
  h->n += m;
  if( h->keep && h->cls>0 && h->n>=2*h->keep ) return heldPrune(h);
  return SQLITE_OK;
}

/* A held batch of part iPart: where its rows start, and its first row's
** place in the scan (parts' batches are disjoint ranges of places). */
typedef struct HeldRun { int64_t pos, at, n; int iPart; } HeldRun;

static int runCmp(const void *x, const void *y){
  const HeldRun *a = (const HeldRun*)x, *b = (const HeldRun*)y;
  return a->pos<b->pos ? -1 : a->pos>b->pos;
}

/* The held rows in scan order, as the parts hold them (nothing copied):
** every part's batches (a top's rows each its own) sorted by place. */
typedef struct HeldView {
  Held *aH[1 + 64]; int nH;        /* the parts' rows: the scan thread's, then the workers' */
  HeldRun *aRun; int64_t nRun;     /* the runs in scan order */
  int64_t *aStart;                 /* each run's first row in the order of all (nRun + 1) */
} HeldView;

static int heldView(Exec *e, HeldView *x){
  int64_t i, k, nRun = 0;
  memset(x, 0, sizeof(*x));
  assert( e->nPart<=64 );
  x->aH[x->nH++] = e->main.held;
  for(k=0; k<e->nPart; k++) x->aH[x->nH++] = e->aPart[k].held;
  for(k=0; k<x->nH; k++) nRun += x->aH[k]->pruned ? x->aH[k]->n : x->aH[k]->nB;
  if( (x->aRun = sqlite3_malloc64(sizeof(HeldRun)*(uint64_t)(nRun + 1)))==0
   || (x->aStart = sqlite3_malloc64(8*(uint64_t)(nRun + 1)))==0 ){
    return SQLITE_NOMEM;
  }
  for(k=0; k<x->nH; k++){
    const Held *h = x->aH[k];
    for(i=0; i<(h->pruned ? h->n : h->nB); i++){
      HeldRun *u = &x->aRun[x->nRun++];
      u->at = h->pruned ? i : h->bAt[i];
      u->n = h->pruned ? 1 : (i + 1<h->nB ? h->bAt[i + 1] : h->n) - h->bAt[i];
      u->pos = u->n ? h->pos[u->at] : 0;
      u->iPart = (int)k;
      if( u->n==0 ) x->nRun--;
    }
  }
  qsort(x->aRun, (size_t)x->nRun, sizeof(HeldRun), runCmp);
  x->aStart[0] = 0;
  for(i=0; i<x->nRun; i++) x->aStart[i + 1] = x->aStart[i] + x->aRun[i].n;
  return SQLITE_OK;
}

static void heldViewFree(HeldView *x){
  sqlite3_free(x->aRun);
  sqlite3_free(x->aStart);
}

/* The held row at place q of the scan order: its part and index there. */
static Held *heldAt(const HeldView *x, int64_t q, int64_t *pI){
  int64_t lo = 0, hi = x->nRun - 1;
  while( lo<hi ){                          /* the last run starting at or before q */
    int64_t m = (lo + hi + 1)/2;
    if( x->aStart[m]<=q ) lo = m; else hi = m - 1;
  }
  *pI = x->aRun[lo].at + (q - x->aStart[lo]);
  return x->aH[x->aRun[lo].iPart];
}

/* The result rows of the held rows at places idx[0..n) of the scan order
** (ascending; NULL: every place), a batch at a time, as the scan would
** have made them (each batch's TEXT and BLOB cells gathered from their
** parts). */
static int heldReplay(Exec *e, const HeldView *x, const int64_t *idx, int64_t n){
  int nCol = e->pl->nCol;
  ga_colvec aVec[GA_COLS_MAX];
  unsigned char *aT = sqlite3_malloc64((uint64_t)(nCol + 1)*GA_BATCH);
  int64_t *aV = sqlite3_malloc64(8*(uint64_t)(nCol + 1)*GA_BATCH), i;
  ga_cell *aCell = sqlite3_malloc64(sizeof(ga_cell)*(uint64_t)(nCol + 1)*GA_BATCH);
  int rc = aT && aV && aCell ? SQLITE_OK : SQLITE_NOMEM, c, j;
  for(i=0; i<n && rc==SQLITE_OK; i+=GA_BATCH){
    ga_colbatch b;
    int m = n - i<GA_BATCH ? (int)(n - i) : GA_BATCH, nCell = 0;
    memset(&b, 0, sizeof(b));
    for(j=0; j<m; j++){
      int64_t r;
      const Held *h = heldAt(x, idx ? idx[i + j] : i + j, &r);
      if( j==0 ) b.pos = h->pos[r];
      for(c=0; c<nCol; c++){
        int t = h->ct[r*nCol + c];
        int64_t v = h->cv[r*nCol + c];
        if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
          aCell[nCell] = h->cell[v];
          v = nCell++;
        }
        aT[c*GA_BATCH + j] = (unsigned char)t;
        aV[c*GA_BATCH + j] = v;
      }
    }
    for(c=0; c<nCol; c++){
      aVec[c].type = aT + c*GA_BATCH;
      aVec[c].v = aV + c*GA_BATCH;
      aVec[c].cell = aCell;
    }
    b.n = m;
    b.nCol = nCol;
    b.col = aVec;
    rc = batchInto(e, &e->main, &b, 0);
  }
  sqlite3_free(aT);
  sqlite3_free(aV);
  sqlite3_free(aCell);
  return rc;
}

/* After the scan: the window's rows (OFFSET spent), or, where a term is
** not a number or NULL, every held row (finish orders them all). The
** parts keep their rows until the result rows are made. */
static int heldRows(Exec *e){
  HeldView x;
  qseg *aSeg = 0;
  int64_t lim, off, *idx = 0, n, i;
  int rc, k;
  Part *aP[1 + 64];
  if( (rc = heldView(e, &x))!=SQLITE_OK ) goto done;
  orderable(e->pl, &lim, &off);
  n = x.aStart[x.nRun] - off<lim ? x.aStart[x.nRun] - off : lim;
  if( n<=0 ){
    e->offDone = 1;
    goto done;
  }
  if( (aSeg = sqlite3_malloc64(sizeof(qseg)*(uint64_t)(x.nRun + 1)))==0
   || (idx = sqlite3_malloc64(8*(uint64_t)n))==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  for(i=0; i<x.nRun; i++){
    const Held *h = x.aH[x.aRun[i].iPart];
    aSeg[i].t = h->kt + x.aRun[i].at;
    aSeg[i].v = h->kv + x.aRun[i].at;
    aSeg[i].n = x.aRun[i].n;
  }
  /* (batchInto makes result rows once the parts hold nothing more) */
  for(k=0; k<x.nH; k++) aP[k] = k ? &e->aPart[k - 1] : &e->main;
  for(k=0; k<x.nH; k++) aP[k]->held = 0;
  rc = q_order_segs(aSeg, (int)x.nRun, e->pl->aSortDesc[0], nullsFirst(e->pl, 0), off, n, idx);
  if( rc==SQLITE_OK ){
    qsort(idx, (size_t)n, sizeof(int64_t), cmpU64);   /* in scan order (finish orders them) */
    rc = heldReplay(e, &x, idx, n);
    e->offDone = 1;
  }else if( rc==SQLITE_DONE ){
    rc = heldReplay(e, &x, 0, x.aStart[x.nRun]);
  }
  for(k=0; k<x.nH; k++) aP[k]->held = x.aH[k];   /* (freed with the parts) */
done:
  heldViewFree(&x);
  sqlite3_free(aSeg);
  sqlite3_free(idx);
  return rc;
}

/* ---- ORDER BY one term over kept columns (requirement 8) ---------------------------- */

/* The window's rows (xOrder over the kept columns), in scan order, into
** e's part as batches from the columns' host copies; *pDone set. Where it
** does not serve, nothing, the reason in r->zKeptWhy. */
static int keptOrder(Exec *e, sqlite3_vtab *vt, qplan *pl, int keep, qresult *r, int *pDone, char **pzErr){
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend(), *be = 0;
  ga_resident *aRes[GA_COLS_MAX];
  ga_qcol aCol[GA_COLS_MAX];
  ga_colvec aVec[GA_COLS_MAX];
  ga_colsrc *src = 0;
  qkept k;
  char zErr[GA_ERRLEN], *zWhy = 0;
  int64_t lim, off, *aRow = 0, nRow = 0, i;
  unsigned char *aT = 0;
  int64_t *aV = 0;
  int c, rc = SQLITE_OK, fail;
  int useDev = conn->qkept!=0 && conn->mode!=GA_CPU && dev && dev->xOrder && ga_device_usable(zErr);
  double t0 = ga_now_ms();
  *pDone = 0;
  memset(&k, 0, sizeof(k));
  if( (!useDev && conn->qkept!=1) || !orderable(pl, &lim, &off) ) return SQLITE_OK;
  rc = keptCols(vt, pl, keep, useDev, 0, &src, aRes, aCol, &be, &zWhy, pzErr);
  r->aMs[0] = ga_now_ms() - t0;
  if( rc!=SQLITE_OK || be==0 ) goto done;
  if( (rc = q_compile_order(e->r, pl, aRes, &k, &zWhy))!=SQLITE_OK ){
    if( rc==QE_BAIL ) rc = SQLITE_OK;
    else *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : q_run_errmsg(e->r));
    goto done;
  }
  r->aMs[1] = ga_now_ms() - t0 - r->aMs[0];
  if( (aRow = sqlite3_malloc64(8*(uint64_t)(lim + 1)))==0
   || (aT = sqlite3_malloc64((uint64_t)pl->nCol*GA_BATCH))==0
   || (aV = sqlite3_malloc64(8*(uint64_t)pl->nCol*GA_BATCH))==0 ){
    rc = SQLITE_NOMEM;
    *pzErr = sqlite3_mprintf("out of memory");
    goto done;
  }
  fail = be->xOrder(be==dev ? aRes[0]->pRes : 0, &conn->stats, &k.p, aCol, aRes[0]->n, k.tabC, k.tabV, k.nTab,
                    pl->aSortDesc[0], nullsFirst(pl, 0), off, lim, aRow, &nRow, zErr);
  if( fail==GA_DEV_SCAN ){
    zWhy = sqlite3_mprintf("an ORDER BY term with INTEGER and REAL values both");
    goto done;
  }else if( fail && be==dev && ga_device_failed(conn, zErr) ){
    rc = SQLITE_ERROR;
    *pzErr = sqlite3_mprintf("%s", zErr);
    goto done;
  }else if( fail ){
    zWhy = sqlite3_mprintf("%s", zErr);
    goto done;
  }
  /* the rows in scan order (finish orders them again, ties by that order) */
  qsort(aRow, (size_t)nRow, sizeof(int64_t), cmpU64);   /* (rows are not negative) */
  for(i=0; i<nRow && rc==SQLITE_OK; i+=GA_BATCH){
    ga_colbatch b;
    int m = nRow - i<GA_BATCH ? (int)(nRow - i) : GA_BATCH, j;
    memset(&b, 0, sizeof(b));
    for(c=0; c<pl->nCol; c++){
      for(j=0; j<m; j++){
        aT[c*GA_BATCH + j] = aRes[c]->type[aRow[i + j]];
        aV[c*GA_BATCH + j] = aRes[c]->v[aRow[i + j]];
      }
      aVec[c].type = aT + c*GA_BATCH;
      aVec[c].v = aV + c*GA_BATCH;
      aVec[c].cell = aRes[c]->dict;
    }
    b.pos = aRow[i];
    b.n = m;
    b.nCol = pl->nCol;
    b.col = aVec;
    rc = batchInto(e, &e->main, &b, 0);
  }
  if( rc==SQLITE_OK ){
    e->offDone = 1;
    *pDone = 1;
    r->nScan = nRow;
    r->kept = be==dev ? Q_KEPT_DEVICE : Q_KEPT_CPU;
    r->aMs[2] = ga_now_ms() - t0 - r->aMs[0] - r->aMs[1];
    if( be==dev ) ga_cache_device_hit(conn->cache, ga_now_ms() - t0);
  }
done:
  sqlite3_free(aRow);
  sqlite3_free(aT);
  sqlite3_free(aV);
  q_kept_free(&k);
  if( src ) src->xClose(src);
  r->zKeptWhy = zWhy;
  return rc;
}

/* ---- FROM a subquery (requirement 10) --------------------------------------------- */

/* The subquery's rows (its own run, pl->pSub) into e's part, a batch at a
** time, its row numbers their positions. SQLITE_OK, QE_BAIL or an error
** (*pzErr set where it is the subquery's). */
static int subScan(sqlite3_vtab *vt, sqlite3 *db, Exec *e, int keep, char **pzErr){
  const qplan *pl = e->pl;
  qresult sr;
  ga_colvec aCol[GA_COLS_MAX];
  unsigned char *aT = 0;
  int64_t *aV = 0, g;
  ga_cell *aCell = 0;
  int c, i, rc;
  memset(&sr, 0, sizeof(sr));
  if( (rc = q_exec(vt, db, pl->pSub, keep, 0, "", &sr, pzErr))!=SQLITE_OK ) goto done;
  e->out->nScan = sr.nScan;
  aT = sqlite3_malloc64((uint64_t)(pl->nCol + 1)*GA_BATCH);   /* (count(*) alone reads none) */
  aV = sqlite3_malloc64(8*(uint64_t)(pl->nCol + 1)*GA_BATCH);
  aCell = sqlite3_malloc64(sizeof(ga_cell)*(uint64_t)(pl->nCol + 1)*GA_BATCH);
  if( aT==0 || aV==0 || aCell==0 ){ rc = SQLITE_NOMEM; goto done; }
  memset(aCell, 0, sizeof(ga_cell)*(size_t)pl->nCol*GA_BATCH);
  for(g=0; g<sr.nRow && rc==SQLITE_OK; g+=GA_BATCH){
    ga_colbatch b;
    memset(&b, 0, sizeof(b));
    b.pos = g;
    b.n = (int)(sr.nRow - g<GA_BATCH ? sr.nRow - g : GA_BATCH);
    b.nCol = pl->nCol;
    b.col = aCol;
    for(c=0; c<pl->nCol; c++){
      unsigned char *t = aT + (size_t)c*GA_BATCH;
      int64_t *v = aV + (size_t)c*GA_BATCH;
      ga_cell *cl = aCell + (size_t)c*GA_BATCH;
      for(i=0; i<b.n; i++){
        const qval *x = &sr.a[(g + i)*sr.nCol + pl->aiCol[c]];
        t[i] = (unsigned char)x->t;
        v[i] = x->v;
        if( x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ){
          cl[i].z = x->z;
          cl[i].n = x->n;
          v[i] = i;
        }
      }
      aCol[c].type = t;
      aCol[c].v = v;
      aCol[c].cell = cl;
    }
    rc = batchInto(e, &e->main, &b, 0);
  }
done:
  sqlite3_free(aT);
  sqlite3_free(aV);
  sqlite3_free(aCell);
  q_result_free(&sr);
  return rc;
}

/* ---- compounds (requirement 9) ------------------------------------------------ */

/* Row x of o (nW values each): its results' canonical key (each by its
** collation) in e->main.kbuf, its length in *pn. */
static int rowKey(Exec *e, const qval *x, int *pn){
  int j, rc;
  *pn = 0;
  for(j=0; j<e->pl->nOut; j++){
    if( (rc = keyOf(&e->main, &x[j], e->pl->aOutColl[j], pn))!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}

/* The ascending order of all results (SQLite's index of a compound's rows,
** where no ORDER BY orders them). */
static int allCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  const qval *a = &e->out->a[x*e->nW], *b = &e->out->a[y*e->nW];
  int j, c;
  for(j=0; j<e->pl->nOut; j++){
    if( (c = q_cmp(&a[j], &b[j], e->pl->aOutColl[j]))!=0 ) return c;
  }
  return 0;
}

/* e->out's rows, each kept where its key's being in set (if any) is keepIn;
** dedup: one of equal rows only, the first (last: the last). Without ORDER
** BY, a dedup's rows then sorted as SQLite's index of them holds them. */
static int compoundKeep(Exec *e, KeySet *set, int keepIn, int dedup, int last){
  qresult *o = e->out;
  KeySet seen;
  int64_t i, m = 0, id, *idx = 0, *tmp = 0, n0 = o->nRow;
  int rc = SQLITE_OK, n, isNew;
  qval *a = 0;
  memset(&seen, 0, sizeof(seen));
  if( n0==0 ) return SQLITE_OK;
  if( (idx = sqlite3_malloc64(8*(uint64_t)n0))==0 || (tmp = sqlite3_malloc64(8*(uint64_t)n0))==0
   || (a = sqlite3_malloc64(sizeof(qval)*(uint64_t)(n0*e->nW)))==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  for(i=0; i<n0 && rc==SQLITE_OK; i++){
    int64_t r = last ? n0 - 1 - i : i;
    qval *x = &o->a[r*e->nW];
    if( (rc = rowKey(e, x, &n))!=SQLITE_OK ) break;
    if( set ){
      uint64_t h = hashKey(e->main.kbuf, n);
      int64_t t;
      int in = 0;
      for(t = (int64_t)(h & (uint64_t)(set->nSlot - 1)); set->nSlot && set->aH[t] && !in; t = (t + 1) & (set->nSlot - 1)){
        int64_t k = set->aId[t];
        in = set->aH[t]==h && set->an[k]==n && memcmp(set->az[k], e->main.kbuf, (size_t)n)==0;
      }
      if( in!=keepIn ) continue;
    }
    if( dedup && ((rc = keySetAdd(e->r, &seen, e->main.kbuf, n, &isNew, &id))!=SQLITE_OK || !isNew) ) continue;
    idx[m++] = r;
  }
  if( rc ) goto done;
  if( last ) for(i=0; i<m/2; i++){ id = idx[i]; idx[i] = idx[m-1-i]; idx[m-1-i] = id; }
  if( dedup && e->pl->nSort==0 ) msort(idx, tmp, m, allCmp, e);
  for(i=0; i<m; i++) memcpy(&a[i*e->nW], &o->a[idx[i]*e->nW], sizeof(qval)*(size_t)e->nW);
  if( m ) memcpy(o->a, a, sizeof(qval)*(size_t)(m*e->nW));
  o->nRow = m;
done:
  keySetFree(&seen);
  sqlite3_free(idx);
  sqlite3_free(tmp);
  sqlite3_free(a);
  return rc;
}

/* A compound (requirement 9): each arm run as a plan of its own, then the
** arms' rows joined left to right: UNION ALL appends; UNION keeps one of
** equal rows of both sides; INTERSECT and EXCEPT one of the left's equal
** rows that the right has, or lacks. Which one, where equal rows differ (1
** and 1.0, 'a' and 'A' under NOCASE), is SQLite's: with ORDER BY, its merge
** (multiSelectOrderBy) passes over the left's where the right has one and
** keeps the first of a run, so UNION keeps the right's first, else the
** left's first, and INTERSECT and EXCEPT the left's first; without, its
** index keeps the last inserted, and its rows come in its order (all
** columns ascending). Then ORDER BY over the result columns (stably, the
** left's rows first on ties, as the merge; plan.c extends it with every
** other column where a merge dedups), OFFSET and LIMIT. */
static int execCompound(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int keep, qresult *r, char **pzErr){
  Exec e;
  qresult arm;
  int i, j, k, rc = SQLITE_OK;
  int64_t g;
  double t0 = ga_now_ms();
  memset(&e, 0, sizeof(e));
  memset(r, 0, sizeof(*r));
  memset(&arm, 0, sizeof(arm));
  e.pl = pl;
  e.out = r;
  e.nW = pl->nOut + pl->nSort;
  if( (rc = partInit(&e.main, pl, q_run_new(db, pl)))!=SQLITE_OK ) goto fail;
  r->run = e.r = e.main.r;
  for(i=0; i<pl->nArm && rc==SQLITE_OK; i++){
    int op = pl->aArm[i].s->op;
    KeySet right;
    memset(&right, 0, sizeof(right));
    if( (rc = q_exec(vt, db, &pl->aArm[i], keep, 0, "", &arm, pzErr))!=SQLITE_OK ) break;
    r->nScan += arm.nScan;
    if( op==Q_INTERSECT || op==Q_EXCEPT ){
      /* the right's rows as a set; the left's kept by it */
      for(g=0; g<arm.nRow && rc==SQLITE_OK; g++){
        int n, isNew;
        int64_t id;
        if( (rc = rowKey(&e, &arm.a[g*arm.nCol], &n))==SQLITE_OK ) rc = keySetAdd(e.r, &right, e.main.kbuf, n, &isNew, &id);
      }
      if( rc==SQLITE_OK ) rc = compoundKeep(&e, &right, op==Q_INTERSECT, 1, pl->nSort==0);
    }else if( (rc = rowsGrow(&e, r->nRow + arm.nRow, 0))==SQLITE_OK ){
      /* the arm's rows after the others, their bytes this run's, the sort
      ** terms their columns */
      for(g=0; g<arm.nRow; g++){
        qval *d = &r->a[(r->nRow + g)*e.nW];
        for(j=0; j<pl->nOut && rc==SQLITE_OK; j++){
          d[j] = arm.a[g*arm.nCol + j];
          if( (d[j].t==SQLITE_TEXT || d[j].t==SQLITE_BLOB) && (d[j].z = q_keep(e.r, d[j].z, d[j].n))==0 ) rc = SQLITE_NOMEM;
        }
        for(k=0; k<pl->nSort; k++) d[pl->nOut + k] = d[pl->aSortCol[k]];
      }
      if( rc==SQLITE_OK && op==Q_UNION && pl->nSort ){
        /* the right's rows first: where it has one of equal rows, the
        ** merge's choice is its first */
        qval *t = sqlite3_malloc64(sizeof(qval)*(uint64_t)(r->nRow*e.nW + 1));
        if( t==0 ){
          rc = SQLITE_NOMEM;
        }else{
          memcpy(t, r->a, sizeof(qval)*(size_t)(r->nRow*e.nW));
          memmove(r->a, &r->a[r->nRow*e.nW], sizeof(qval)*(size_t)(arm.nRow*e.nW));
          memcpy(&r->a[arm.nRow*e.nW], t, sizeof(qval)*(size_t)(r->nRow*e.nW));
          sqlite3_free(t);
        }
      }
      r->nRow += arm.nRow;
      if( rc==SQLITE_OK && op==Q_UNION ) rc = compoundKeep(&e, 0, 0, 1, pl->nSort==0);
    }
    keySetFree(&right);
    q_result_free(&arm);
  }
  if( rc==SQLITE_OK ) rc = finish(&e);
  r->aMs[2] = ga_now_ms() - t0;
  if( rc==SQLITE_OK || *pzErr ) goto done;
fail:
  *pzErr = sqlite3_mprintf("%s", e.r ? q_run_errmsg(e.r) : "out of memory");
done:
  keySetFree(&e.rows);
  partFree(&e.main, pl, 0);
  return rc;
}

int q_exec(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
           char **pzErr){
  Exec e;
  ga_colsrc *src = 0;
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  int rc, w, done = 0, hold = 0;
  int64_t lim = 0, off = 0;
  double t0 = ga_now_ms(), t1;
  if( pl->nArm ){
    *pzErr = 0;
    return execCompound(vt, db, pl, keep, r, pzErr);
  }
  memset(&e, 0, sizeof(e));
  memset(r, 0, sizeof(*r));
  *pzErr = 0;
  e.base.xBatch = sinkBatch;
  if( pl->nLate ){
    e.base.xFilter = sinkFilter;
    e.base.aLate = pl->aLate;
  }
  e.pl = pl;
  e.out = r;
  e.nW = pl->nOut + pl->nSort;
  rc = partInit(&e.main, pl, q_run_new(db, pl));
  r->run = e.r = e.main.r;
  if( rc ) goto fail;
  if( pl->pSub ){
    /* FROM a subquery: its rows, as batches */
    t1 = ga_now_ms();
    if( (rc = subScan(vt, db, &e, keep, pzErr))!=SQLITE_OK ){
      if( *pzErr ) goto done;
      goto fail;
    }
    r->aMs[2] = ga_now_ms() - t1;
    goto finish;
  }
  if( pl->s->zFrom==0 ){
    /* no FROM: one row of no columns */
    ga_colbatch one;
    memset(&one, 0, sizeof(one));
    one.n = 1;
    t1 = ga_now_ms();
    if( (rc = batchInto(&e, &e.main, &one, 0))!=SQLITE_OK ) goto fail;
    r->nScan = 1;
    r->aMs[2] = ga_now_ms() - t1;
    goto finish;
  }
  if( pl->nCol==0 ){
    pl->aiCol[0] = 0;               /* count(*) alone: a column to count rows by */
    pl->aWant[0] = 0;
    pl->nCol = 1;
  }
  if( (rc = keptRun(&e, vt, pl, keep, kc, zParams, r, &done, pzErr))!=SQLITE_OK ){
    if( rc==QE_BAIL || *pzErr==0 ) goto fail;
    goto done;
  }
  if( !done && (rc = keptOrder(&e, vt, pl, keep, r, &done, pzErr))!=SQLITE_OK ){
    if( rc==QE_BAIL || *pzErr==0 ) goto fail;
    goto done;
  }
  if( done ) goto finish;
  t1 = ga_now_ms();
  hold = orderable(pl, &lim, &off) && !pl->distinct;
  if( parallel(pl, conn->threads) || (hold && conn->threads>1) ){
    int n = conn->threads;
    if( (e.aPart = sqlite3_malloc64(sizeof(Part)*(uint64_t)n))==0 ){ rc = SQLITE_NOMEM; goto fail; }
    memset(e.aPart, 0, sizeof(Part)*(size_t)n);
    for(w=0; w<n; w++){
      qrun *wr = q_run_new(db, pl);
      e.nPart = w + 1;
      if( (rc = partInit(&e.aPart[w], pl, wr))!=SQLITE_OK ) goto fail;
      q_run_worker(wr);
    }
    e.base.xPar = sinkPar;
    e.base.nPar = n;
  }
  for(w=-1; hold && w<e.nPart; w++){
    Part *p = w<0 ? &e.main : &e.aPart[w];
    if( (p->held = sqlite3_malloc(sizeof(Held)))==0 ){ rc = SQLITE_NOMEM; goto fail; }
    memset(p->held, 0, sizeof(Held));
    p->held->nCol = pl->nCol;
    if( lim + off<=Q_TOP ){                  /* a top: rows not among the first held are left out */
      p->held->keep = lim + off;
      p->held->desc = pl->aSortDesc[0];
      p->held->nullsFirst = nullsFirst(pl, 0);
    }
  }
  /* The table's pages (else a statement): kept columns were 8's to read, and
  ** the cache's replay is one thread's where the pages are many workers'. */
  if( (rc = ga_tvf_open_reader(vt, "gpu_query", &pl->src, pl->nCol, pl->aiCol, pl->aWant, &src))!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", vt->zErrMsg ? vt->zErrMsg : sqlite3_errstr(rc));
    goto done;
  }
  rc = src->xScan(src, &e.base);
  for(w=0; w<e.nPart && rc==SQLITE_OK; w++) rc = e.aPart[w].rc;
  if( rc!=SQLITE_OK ){
    if( e.rc==rc ) goto fail;       /* the sink's own */
    *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : src->xErrmsg(src));
    goto done;
  }
  r->nScan = e.main.nRow;
  for(w=0; w<e.nPart; w++) r->nScan += e.aPart[w].nRow;
  if( hold ) rc = heldRows(&e);
  else rc = partsMerge(&e);
  if( rc!=SQLITE_OK ) goto fail;
  r->aMs[2] = ga_now_ms() - t1;
finish:
  t1 = ga_now_ms();
  if( pl->grouped && (rc = groupsToRows(&e))!=SQLITE_OK ) goto fail;
  if( (rc = finish(&e))!=SQLITE_OK ) goto fail;
  r->aMs[3] = ga_now_ms() - t1;
  (void)t0;
  goto done;
fail:
  *pzErr = sqlite3_mprintf("%s", e.r ? q_run_errmsg(e.r) : "out of memory");
done:
  if( src ) src->xClose(src);
  for(w=0; w<e.nPart; w++) partFree(&e.aPart[w], pl, 1);
  sqlite3_free(e.aPart);
  sqlite3_free(e.gRank);
  keySetFree(&e.rows);
  partFree(&e.main, pl, 0);
  return rc;
}

void q_result_free(qresult *r){
  sqlite3_free(r->a);
  sqlite3_free(r->zKeptWhy);
  q_run_free(r->run);
  memset(r, 0, sizeof(*r));
}

char *q_kept_explain(sqlite3_vtab *vt, sqlite3 *db, qplan *pl){
  /* (what keptRun decides, without reading or keeping anything) */
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  const ga_backend *dev = ga_device_backend();
  const char *azCol[GA_COLS_MAX];
  ga_resident *aRes[GA_COLS_MAX];
  char zErr[GA_ERRLEN] = "", *zWhy = 0, *z;
  int useDev = conn->qkept!=0 && conn->mode!=GA_CPU && dev && dev->xQuery && ga_device_usable(zErr);
  int c, hit = 0, rc;
  int64_t lim, off;
  ga_colsrc *src;
  qrun *r;
  qkept k;
  if( pl->nArm ){                  /* each arm's */
    sqlite3_str *x = sqlite3_str_new(0);
    int k;
    for(k=0; k<pl->nArm; k++){
      char *z = q_kept_explain(vt, db, &pl->aArm[k]);
      sqlite3_str_appendf(x, "%sarm %d: %s", k ? "; " : "", k + 1, z ? z : "out of memory");
      sqlite3_free(z);
    }
    return sqlite3_str_finish(x);
  }
  if( pl->s->zFrom==0 || pl->pSub ) return sqlite3_mprintf("no: %s", pl->pSub ? "FROM a subquery" : "there is no table");
  if( !useDev && conn->qkept!=1 ){
    return sqlite3_mprintf("no: %s", conn->qkept==0 ? "gpuagg_config('query_kept') is 0"
                                     : conn->mode==GA_CPU ? "the backend is cpu" : zErr);
  }
  if( !pl->grouped && !orderable(pl, &lim, &off) ){
    return sqlite3_mprintf("no: rows without aggregates (other than ordered by one term with a LIMIT of 1 to %d)",
                           Q_ORDER_MAX);
  }
  if( pl->nCol==0 ){
    pl->aiCol[0] = 0;
    pl->aWant[0] = 0;
    pl->nCol = 1;
  }
  for(c=0; c<pl->nCol; c++) azCol[c] = pl->src.tab.aCol[pl->aiCol[c]].zName;
  src = ga_colsrc_cache(db, conn, &pl->src.tab, pl->nCol, azCol, pl->aWant, &hit);
  if( src==0 ) return sqlite3_mprintf("no: the columns cannot be kept here");
  if( !hit ){
    if( src ) src->xClose(src);
    return sqlite3_mprintf("not yet: a read keeps the columns once the table has shown gpuagg_config('threshold')"
                           " rows or more");
  }
  for(c=0; c<pl->nCol; c++){
    aRes[c] = ga_cache_kept(src, c);
    if( aRes[c]->d==0 ) useDev = 0;
  }
  if( (r = q_run_new(db, pl))==0 ){
    src->xClose(src);
    return 0;
  }
  rc = pl->grouped ? q_compile(r, pl, aRes, &k, &zWhy) : q_compile_order(r, pl, aRes, &k, &zWhy);
  if( rc==SQLITE_OK ){
    q_kept_free(&k);
    z = sqlite3_mprintf(useDev ? "yes: the device's operators%s" : conn->qkept==1 ? "yes: the CPU's operators%s"
                                                                                : "no: the columns are not on the device",
                        pl->grouped ? "" : " (the window of the order)");
  }else{
    z = sqlite3_mprintf("no: %s", zWhy ? zWhy : q_run_errmsg(r));
  }
  sqlite3_free(zWhy);
  q_run_free(r);
  src->xClose(src);
  return z;
}
