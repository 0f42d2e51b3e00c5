/*
** gpu_summary(SOURCE [, COLUMN]): statistics of every column of a table or
** view (or just COLUMN), as DuckDB's SUMMARIZE gives them, as a
** table-valued function, for people reading a summary.
**
**   SELECT * FROM gpu_summary('t');
**
**   1. An eponymous-only virtual table (tvf.h). One row per column, in
**      declared order: name, rows (count(*)), nulls, integers, reals, texts,
**      blobs (values by storage class), distinct, min, max, sum, total, avg,
**      var_samp, var_pop, stddev_samp, stddev_pop, q25, median, q75.
**   2. The numeric statistics (sum .. q75) are over the values stored as
**      INTEGER or REAL only: TEXT and BLOB are not read as numbers. With no
**      such value every one of them is NULL, total too (a reader expects
**      NULL for a TEXT column, not total()'s 0.0). sum, total and avg are
**      gpu_sum, gpu_total and gpu_avg over those numbers: exact, rounded
**      once; a column whose integers' exact sum leaves int64 gives a NULL
**      sum (the other columns' rows must not fail), total and avg stay.
**      Variances come from the exact sums of x and x^2 in big integers,
**      rounded once (exactvar.h), and so do the standard deviations, their
**      exact square roots; NULL below 2 (sample) or 1 (population) values,
**      or with ±Inf among them. q25, median, q75: gpu_percentile_cont's
**      0.25, 0.5 and 0.75 over the numbers as doubles, ±Inf included; NULL
**      where the interpolation has no value, between -Inf and +Inf.
**   3. distinct is SELECT count(DISTINCT col): the non-NULL values that
**      differ as SQL compares them. Numbers by value (1 and 1.0 are one,
**      0.0 and -0.0 one, integers exact beyond 2^53: 2^53 and 2^53+1 are
**      two); TEXT by the column's collating sequence, as count(DISTINCT)
**      takes it (tvf.h's ga_table: a table's declared one, a view's from
**      its plan): BINARY (bytes), NOCASE (ASCII case folded, and, as
**      SQLite's, nothing past a NUL byte compared but the length), RTRIM
**      (trailing spaces ignored); BLOB by bytes; TEXT never equals a
**      number or a BLOB. A hash set of each column's canonical keys (host
**      memory: the distinct keys' bytes and ~40 bytes each), built only
**      when the query reads distinct (the plan's colUsed).
**   4. min and max are min(col) and max(col): NULL < numbers (INTEGER and
**      REAL compared exactly) < TEXT (by the collating sequence of 3) <
**      BLOB (bytes); the first of equal values in scan order is kept, as
**      SQLite's min() and max() keep it.
**   5. A collating sequence other than BINARY, NOCASE and RTRIM (a user's
**      own), or one the view's plan does not name alone, cannot be applied
**      here: where the answer depends on comparing two TEXT values (the
**      column holds two or more, and for min and max TEXT decides: min
**      with no number, max with no BLOB) distinct, min or max is NULL, and
**      gpuagg_info()'s summary.why says why (the last query's first such
**      column; null if none).
**   6. All columns are read in one scan through a column source (at most
**      GA_COLS_MAX columns a scan: wider sources take more scans). Each
**      column's INTEGER and REAL values go through the chunk pipeline
**      (GA_OP_STATS: a segment of the chunk per column), reduced on the
**      device past the first chunks (sum, squares, min and max kernels) or
**      on the CPU; counts, TEXT and BLOB values, and the distinct sets are
**      handled here.
**   7. SOURCE and COLUMN are names (tvf.h: checked, quoted, never pasted);
**      errors name the problem. It runs SQL of its own, so it is
**      SQLITE_VTAB_DIRECTONLY; it sees the current transaction's rows;
**      sqlite3_interrupt() stops it with SQLITE_INTERRUPT; every path frees
**      what the query held; out of memory is SQLITE_NOMEM.
**   8. A CUDA error: in 'auto' mode the chunk is redone on the CPU (the
**      pipeline's fallback), in 'cuda' mode it is an SQL error.
**   9. The quartiles need every number: where the query reads them (the
**      plan's colUsed), the scan keeps each column's as order keys in host
**      memory (8 bytes a number), ranked after the scan (ranks.h: on the
**      device past `threshold` numbers); a column kept on the device (the
**      column cache) is ranked there with no copy. Queries that read none
**      of the three pay nothing for them.
**  10. Columns the cache keeps on the device are answered with no scan:
**      the numbers' statistics, quartiles and distinct count by kernels
**      (xColStats, xColRanks, xColDistinct), TEXT and BLOB from the
**      column's dictionary (min, max and distinct once per distinct value,
**      the first row of equals from each value's first row), with the same
**      answers as the scan.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "pipe.h"
#include "tvf.h"
#include "text.h"
#include "exactvar.h"
#include "ranks.h"

enum { COL_NAME, COL_ROWS, COL_NULLS, COL_INTS, COL_REALS, COL_TEXTS, COL_BLOBS, COL_DISTINCT, COL_MIN, COL_MAX,
       COL_SUM, COL_TOTAL, COL_AVG, COL_VSAMP, COL_VPOP, COL_SSAMP, COL_SPOP, COL_Q25, COL_MEDIAN, COL_Q75,
       COL_SOURCE, COL_COLUMN };
#define NARG 2

typedef ga_vtab SumVtab;

/* How a column's TEXT values compare: its collating sequence, where it is
** one of SQLite's own (requirement 5: else COLL_OTHER). */
enum { COLL_BINARY, COLL_NOCASE, COLL_RTRIM, COLL_OTHER };

/* Kinds of canonical keys: equal keys, equal values (requirement 3). */
enum { DK_INT = 1, DK_REAL, DK_TEXT, DK_BLOB };

/* A distinct value's canonical key. */
typedef struct DistEnt {
  uint64_t h;               /* its hash */
  int64_t v;                /* DK_INT: the integer; DK_REAL: the double's bits; else its
                            ** bytes' offset in the set's arena */
  int32_t n;                /* DK_TEXT, DK_BLOB: bytes of the key */
  int32_t nOrig;            /* ... and the value's length (NOCASE compares it past a NUL) */
  int32_t kind;             /* DK_* */
} DistEnt;

/* A column's distinct values: open addressing over canonical keys. */
typedef struct DistSet {
  uint32_t *aSlot;          /* 0: empty, else 1 + an index in aEnt */
  uint32_t nSlot;           /* slots, a power of two (0: none yet) */
  DistEnt *aEnt;            /* the keys, in order of arrival */
  int64_t nEnt, capEnt;     /* keys, and room in aEnt */
  unsigned char *arena;     /* TEXT and BLOB keys' bytes */
  int64_t nArena, capArena; /* bytes used there, and room */
  unsigned char *fold;      /* a NOCASE key being folded */
  int64_t capFold;          /* room there */
} DistSet;

/* One column's statistics. */
typedef struct ColStat {
  char *zName;              /* its declared name */
  int coll;                 /* COLL_*: how its TEXT compares */
  int enc;                  /* ... BINARY by the database's encoding (text.h) */
  char *zWhyColl;           /* COLL_OTHER: why (requirement 5), sqlite3_malloc'd */
  int64_t nNull, nInt, nReal, nText, nBlob;   /* values by storage class */
  ga_stat num;              /* its INTEGER and REAL values, chunk after chunk */
  int64_t nNum;             /* how many went to num (the next chunk's base) */
  ga_other omn, omx;        /* least and greatest TEXT or BLOB value (by coll) */
  DistSet dist;             /* its distinct values, where the query reads them */
  int64_t nDistinct;        /* ... those counted elsewhere (a kept column: the device, the
                            ** dictionary), added to dist's */
  uint64_t *key;            /* order keys of its numbers (ranks.h), until ranked */
  int64_t nKey, capKey;     /* keys at key, room there */
  double q[3];              /* q25, median, q75 (NaN: NULL) */
} ColStat;

typedef struct SumCursor {
  sqlite3_vtab_cursor base; /* base class */
  ColStat *a;               /* the columns */
  int nCol;                 /* how many */
  int iRow;                 /* the current one */
  int64_t nRows;            /* rows of the source */
  int wantD;                /* the distinct sets were built */
} SumCursor;

/* ---- comparing and hashing values ------------------------------------------ */

/* SQLite's ASCII case folding (sqlite3UpperToLower): bytes past 0x7f
** stay. */
static unsigned char foldByte(unsigned char c){
  return c>='A' && c<='Z' ? (unsigned char)(c + 32) : c;
}

/* Sign of TEXT a - b under coll, as SQLite's own: binCollFunc (bytes of
** the database's encoding enc, then length), nocaseCollatingFunc (sqlite3StrNICmp over the shorter
** length, which stops at a NUL byte of a, then length), rtrimCollFunc
** (trailing spaces dropped, then BINARY). */
static int textCmp(int coll, int enc, const unsigned char *a, int na, const unsigned char *b, int nb){
  if( coll==COLL_NOCASE ){
    int i, n = na<nb ? na : nb, r;
    for(i=0; i<n && a[i]!=0 && foldByte(a[i])==foldByte(b[i]); i++){}
    if( i<n && (r = foldByte(a[i]) - foldByte(b[i]))!=0 ) return r;
    return (na>nb) - (na<nb);
  }
  if( coll==COLL_RTRIM ){
    while( na>0 && a[na-1]==' ' ) na--;
    while( nb>0 && b[nb-1]==' ' ) nb--;
    return ga_bytes_cmp(a, na, b, nb);     /* (RTRIM, like NOCASE, compares UTF-8) */
  }
  return ga_text_order(a, na, b, nb, enc);
}

/* Sign of (type, z, n) - k among TEXT and BLOB: TEXT < BLOB; TEXT by coll
** (BINARY for COLL_OTHER: such a result is not given), BLOB by bytes. */
static int otherCmp(int coll, int enc, int type, const void *z, int n, const ga_other *k){
  if( type!=k->type ) return type==SQLITE_TEXT ? -1 : 1;
  if( type==SQLITE_BLOB || coll==COLL_OTHER ) return ga_bytes_cmp(z, n, k->z, k->n);
  return textCmp(coll, enc, z, n, (const unsigned char*)k->z, k->n);
}

/* A TEXT or BLOB value offered to a column's least and greatest: kept
** where strictly less / greater, so the first of equals stays (SQLite's
** minmaxStep replaces its best only on a strict comparison). */
static int otherOffer(ColStat *a, int type, const void *z, int n){
  int rc = SQLITE_OK;
  if( a->omn.type==0 || otherCmp(a->coll, a->enc, type, z, n, &a->omn)<0 ) rc = ga_other_set(&a->omn, type, z, n);
  if( rc==SQLITE_OK && (a->omx.type==0 || otherCmp(a->coll, a->enc, type, z, n, &a->omx)>0) ) rc = ga_other_set(&a->omx, type, z, n);
  return rc;
}

/* 64-bit mixing (splitmix64's finalizer). */
static uint64_t mix64(uint64_t x){
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* The hash of a key: kind, value or bytes, and length. */
static uint64_t keyHash(int kind, int64_t v, const unsigned char *z, int n, int nOrig){
  uint64_t h = mix64((uint64_t)kind*0x9e3779b97f4a7c15ULL ^ (uint64_t)v);
  int i = 0;
  if( z==0 ) return h;
  h = mix64(h ^ ((uint64_t)(uint32_t)n<<32 | (uint32_t)nOrig));
  for(; i+8<=n; i+=8){
    uint64_t w;
    memcpy(&w, z + i, 8);
    h = mix64(h ^ w) + (uint64_t)i;
  }
  if( i<n ){
    uint64_t w = 0;
    memcpy(&w, z + i, (size_t)(n - i));
    h = mix64(h ^ w ^ 0x5555);
  }
  return h;
}

static void distFree(DistSet *d){
  free(d->aSlot);
  free(d->aEnt);
  free(d->arena);
  free(d->fold);
  memset(d, 0, sizeof(*d));
}

/* Twice the slots, every key placed again. */
static int distGrow(DistSet *d){
  uint32_t n = d->nSlot ? 2*d->nSlot : 1024, i;
  uint32_t *a;
  int64_t e;
  if( d->nSlot>=0x80000000u ) return SQLITE_NOMEM;    /* 2^31 slots: more keys than slots hold */
  if( (a = calloc(n, sizeof(uint32_t)))==0 ) return SQLITE_NOMEM;
  for(e=0; e<d->nEnt; e++){
    for(i=(uint32_t)d->aEnt[e].h & (n - 1); a[i]; i=(i + 1) & (n - 1)){}
    a[i] = (uint32_t)(e + 1);
  }
  free(d->aSlot);
  d->aSlot = a;
  d->nSlot = n;
  return SQLITE_OK;
}

/* Add the key (kind, v) or (kind, z, n, nOrig) to d if it is not there. */
static int distAdd(DistSet *d, int kind, int64_t v, const unsigned char *z, int n, int nOrig){
  uint64_t h = keyHash(kind, v, z, n, nOrig);
  uint32_t i;
  DistEnt *e;
  int rc;
  if( (d->nEnt + 1)*2 > (int64_t)d->nSlot && (rc = distGrow(d))!=SQLITE_OK ) return rc;
  for(i=(uint32_t)h & (d->nSlot - 1); d->aSlot[i]; i=(i + 1) & (d->nSlot - 1)){
    e = &d->aEnt[d->aSlot[i] - 1];
    if( e->h!=h || e->kind!=kind ) continue;
    if( z==0 ? e->v==v : (e->n==n && e->nOrig==nOrig && (n==0 || memcmp(d->arena + e->v, z, (size_t)n)==0)) ){
      return SQLITE_OK;
    }
  }
  if( d->nEnt==d->capEnt ){
    int64_t cap = d->capEnt ? 2*d->capEnt : 1024;
    DistEnt *a = realloc(d->aEnt, sizeof(DistEnt)*(size_t)cap);
    if( a==0 ) return SQLITE_NOMEM;
    d->aEnt = a;
    d->capEnt = cap;
  }
  e = &d->aEnt[d->nEnt];
  e->h = h;
  e->kind = kind;
  e->n = n;
  e->nOrig = nOrig;
  e->v = v;
  if( z ){
    if( d->nArena + n > d->capArena ){
      int64_t cap = d->capArena ? 2*d->capArena : 65536;
      unsigned char *a;
      while( cap < d->nArena + n ) cap *= 2;
      if( (a = realloc(d->arena, (size_t)cap))==0 ) return SQLITE_NOMEM;
      d->arena = a;
      d->capArena = cap;
    }
    if( n ) memcpy(d->arena + d->nArena, z, (size_t)n);
    e->v = d->nArena;
    d->nArena += n;
  }
  d->aSlot[i] = (uint32_t)(++d->nEnt);
  return SQLITE_OK;
}

/* Number x (a REAL's bits if isReal) into d: a REAL with an integral value
** in int64's range is that integer (SQL compares INTEGER and REAL
** exactly, so 1.0 is 1 and -0.0 is 0); any other REAL is its bits (one
** value, one pattern: NaN is never stored). */
static int distNum(DistSet *d, int64_t x, int isReal){
  double r;
  if( !isReal ) return distAdd(d, DK_INT, x, 0, 0, 0);
  memcpy(&r, &x, sizeof(r));
  if( r>=-9223372036854775808.0 && r<9223372036854775808.0 && (double)(int64_t)r==r ){
    return distAdd(d, DK_INT, (int64_t)r, 0, 0, 0);
  }
  return distAdd(d, DK_REAL, x, 0, 0, 0);
}

/* TEXT or BLOB (z, n) into d: BLOB's bytes; TEXT's under coll: BINARY the
** bytes, RTRIM without trailing spaces, NOCASE folded up to its first NUL
** byte, with its length (textCmp's equality: the same length, and the
** same folded bytes up to a NUL byte both have there). COLL_OTHER: the
** bytes (the count is not given where TEXT could collide). */
static int distOther(DistSet *d, int coll, int type, const unsigned char *z, int n){
  if( type==SQLITE_BLOB ) return distAdd(d, DK_BLOB, 0, z ? z : (const unsigned char*)"", n, n);
  if( z==0 ) z = (const unsigned char*)"";
  if( coll==COLL_RTRIM ){
    while( n>0 && z[n-1]==' ' ) n--;
  }else if( coll==COLL_NOCASE ){
    const unsigned char *zNul = memchr(z, 0, (size_t)n);
    int k = zNul ? (int)(zNul - z) : n, i;
    if( k>d->capFold ){
      unsigned char *f = realloc(d->fold, (size_t)k);
      if( f==0 ) return SQLITE_NOMEM;
      d->fold = f;
      d->capFold = k;
    }
    for(i=0; i<k; i++) d->fold[i] = foldByte(z[i]);
    return distAdd(d, DK_TEXT, 0, k ? d->fold : (const unsigned char*)"", k, n);
  }
  return distAdd(d, DK_TEXT, 0, z, n, n);
}

static void cursorReset(SumCursor *c){
  int i;
  for(i=0; i<c->nCol; i++){
    ga_free(c->a[i].zName);
    ga_free(c->a[i].zWhyColl);
    distFree(&c->a[i].dist);
    ga_other_free(&c->a[i].omn);
    ga_other_free(&c->a[i].omx);
    free(c->a[i].key);
  }
  free(c->a);
  c->a = 0;
  c->nCol = c->iRow = 0;
  c->nRows = 0;
}

/* ---- the scan ------------------------------------------------------------- */

/* One scan of up to GA_COLS_MAX columns, a[0..n): a sink. */
typedef struct SumScan {
  ga_colsink sink;          /* the source delivers here (sumBatch) */
  SumVtab *v;               /* connection, settings, errors */
  ColStat *a;               /* the columns this scan reads */
  int n;                    /* how many */
  ga_pipe *q;               /* the pipeline, once opened */
  int cpu;                  /* no pipeline: reduce each batch here */
  int64_t nRows;            /* rows read */
  int failed;               /* sumBatch stopped the scan (message set) */
  int wantQ;                /* keep the numbers' keys for the quartiles */
  int wantD;                /* build each column's distinct set */
} SumScan;

/* A chunk's (or batch's) statistics, column by column, in order. */
static void foldStats(ColStat *a, int n, const ga_stat *st, const int32_t *segN, const int32_t *segReal){
  int c;
  for(c=0; c<n; c++){
    ga_stat x;
    if( segN[c]==0 ) continue;
    x = st[c];
    x.nReal = segReal[c];
    x.nInt = segN[c] - segReal[c];
    ga_stat_merge(&a[c].num, &x, a[c].nNum);
    a[c].nNum += segN[c];
  }
}

static void sumFold(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  SumScan *sc = (SumScan*)pArg;
  (void)base;
  foldStats(sc->a, j->nSeg, s->stat, j->segN, j->segReal);
}

/* A TEXT or BLOB cell of column a: counted, compared with the column's
** other ones, and, if wantD, kept among its distinct values. Not a number
** (requirement 2). */
static int foldOther(ColStat *a, int type, const ga_cell *x, int wantD){
  int rc;
  if( type==SQLITE_TEXT ) a->nText++; else a->nBlob++;
  rc = otherOffer(a, type, x->z, x->n);
  if( rc==SQLITE_OK && wantD ) rc = distOther(&a->dist, a->coll, type, x->z, x->n);
  return rc;
}

/* Without a pipeline: a batch's numbers reduced here, column by column. */
static int batchHere(SumScan *sc, const ga_colbatch *b){
  uint64_t bits[GA_BATCH/64];
  int64_t v[GA_BATCH];
  int32_t segN[1], segReal[1];
  ga_stat st;
  int c, i;
  for(c=0; c<b->nCol; c++){
    const ga_colvec *x = &b->col[c];
    memset(bits, 0, sizeof(bits));
    segN[0] = segReal[0] = 0;
    for(i=0; i<b->n; i++){
      if( x->type[i]!=SQLITE_INTEGER && x->type[i]!=SQLITE_FLOAT ) continue;
      if( x->type[i]==SQLITE_FLOAT ){
        bits[segN[0]>>6] |= (uint64_t)1 << (segN[0] & 63);
        segReal[0]++;
      }
      v[segN[0]++] = x->v[i];
    }
    ga_cpu_stats(v, bits, segN[0], &st);
    foldStats(&sc->a[c], 1, &st, segN, segReal);
  }
  return SQLITE_OK;
}

/* Keep the order key of number x (a REAL's bits if isReal) of column a. */
static int keepKey(ColStat *a, int64_t x, int isReal){
  double d;
  if( a->nKey==a->capKey ){
    int64_t cap = a->capKey ? 2*a->capKey : 1024;
    uint64_t *k = realloc(a->key, sizeof(uint64_t)*(size_t)cap);
    if( k==0 ) return SQLITE_NOMEM;
    a->key = k;
    a->capKey = cap;
  }
  if( isReal ) memcpy(&d, &x, sizeof(d)); else d = (double)x;
  a->key[a->nKey++] = ga_key(d);
  return SQLITE_OK;
}

/* Column a's quartiles from its numbers' keys (then freed), or from the
** device form d of a kept column. Non-zero: an error, the message in zErr. */
static int quartiles(SumVtab *v, ColStat *a, const ga_resident *d, char *zErr){
  static const double aFrac[3] = { 0.25, 0.5, 0.75 };
  int64_t r[6], n = d ? a->nNum : a->nKey;
  uint64_t k[6];
  double ix[3];
  int nr[3], j, m = 0, rc;
  a->q[0] = a->q[1] = a->q[2] = NAN;
  if( n==0 ) return SQLITE_OK;
  for(j=0; j<3; j++){
    nr[j] = ga_pct_ranks(aFrac[j], n, 0, &r[m], &ix[j]);
    m += nr[j];
  }
  if( d ) rc = d->be->xColRanks(d->pRes, &v->conn->stats, d->d, r, m, k, zErr);
  else rc = ga_ranks(v->conn, a->key, n, r, m, k, zErr);
  free(a->key);
  a->key = 0;
  a->nKey = a->capKey = 0;
  if( rc ) return rc;
  for(j=m=0; j<3; m+=nr[j], j++) a->q[j] = ga_pct_value(ix[j], &r[m], nr[j], &k[m], 0);
  return SQLITE_OK;
}

static int sumBatch(ga_colsink *sink, const ga_colbatch *b){
  SumScan *sc = (SumScan*)sink;
  char zErr[GA_ERRLEN];
  int c, i, rc = SQLITE_OK;
  if( sc->q==0 && !sc->cpu ){
    sc->q = ga_pipe_open(sc->v->conn, GA_OP_STATS, sumFold, sc, zErr);
    if( sc->q==0 && zErr[0] ){
      rc = ga_vtab_error(&sc->v->base, "%s", zErr);
    }else if( sc->q==0 || ga_pipe_columns(sc->q, sc->n) ){
      sc->cpu = 1;                        /* no buffer, or too small a one: all of it here */
      if( sc->q && ga_pipe_close(sc->q, zErr) ) rc = ga_vtab_error(&sc->v->base, "%s", zErr);
      sc->q = 0;
    }
  }
  for(c=0; c<b->nCol && rc==SQLITE_OK; c++){
    const ga_colvec *x = &b->col[c];
    ColStat *a = &sc->a[c];
    for(i=0; i<b->n && rc==SQLITE_OK; i++){
      switch( x->type[i] ){
        case SQLITE_INTEGER:
        case SQLITE_FLOAT: {
          int isReal = x->type[i]==SQLITE_FLOAT;
          if( isReal ) a->nReal++; else a->nInt++;
          if( sc->q && ga_pipe_num(sc->q, c, x->v[i], isReal) ) rc = ga_vtab_error(&sc->v->base, "%s", sc->q->zErr);
          else if( sc->wantQ ) rc = keepKey(a, x->v[i], isReal);
          if( rc==SQLITE_OK && sc->wantD ) rc = distNum(&a->dist, x->v[i], isReal);
          break;
        }
        case SQLITE_NULL:
          a->nNull++;
          break;
        default:
          rc = foldOther(a, x->type[i], &x->cell[x->v[i]], sc->wantD);
          break;
      }
    }
  }
  if( rc==SQLITE_OK && sc->cpu ) rc = batchHere(sc, b);
  sc->nRows += b->n;
  sc->failed = rc!=SQLITE_OK;
  return rc;
}

/* Column a's TEXT and BLOB values, from kept column r's dictionary (each
** value once, TEXT in UTF-8's BINARY order, then BLOB: colsrc.h): the least and
** greatest by a's collating sequence, the first row's of equals (each
** entry's first row), and, if wantD, the distinct ones: under BINARY the
** entries themselves, else their keys (distOther), once per entry. */
static int dictOthers(ColStat *a, const ga_resident *r, int wantD){
  int64_t i, iMin = -1, iMax = -1, nText = r->nDictText;
  int rc = SQLITE_OK;
  int inOrder = a->coll==COLL_BINARY && a->enc==SQLITE_UTF8;   /* the entries' own order (a UTF-16
                                                              ** database's BINARY is not it) */
  for(i=0; i<nText; i++){
    const ga_cell *e = &r->dict[i];
    int cMin = iMin<0 ? -1 : inOrder ? 1
             : textCmp(a->coll==COLL_OTHER ? COLL_BINARY : a->coll, a->enc, e->z, e->n, r->dict[iMin].z, r->dict[iMin].n);
    int cMax = iMax<0 ? 1 : inOrder ? 1
             : textCmp(a->coll==COLL_OTHER ? COLL_BINARY : a->coll, a->enc, e->z, e->n, r->dict[iMax].z, r->dict[iMax].n);
    if( cMin<0 || (cMin==0 && r->dictRow[i]<r->dictRow[iMin]) ) iMin = i;
    if( cMax>0 || (cMax==0 && r->dictRow[i]<r->dictRow[iMax]) ) iMax = i;
    if( wantD && a->coll!=COLL_BINARY && rc==SQLITE_OK ) rc = distOther(&a->dist, a->coll, SQLITE_TEXT, e->z, e->n);
  }
  if( wantD && a->coll==COLL_BINARY ) a->nDistinct += nText;
  if( wantD ) a->nDistinct += r->nDict - nText;               /* BLOB: by bytes */
  if( r->nDict>nText ){                                       /* BLOB above TEXT */
    iMax = r->nDict - 1;
    if( iMin<0 ) iMin = nText;
  }
  if( rc==SQLITE_OK && iMin>=0 ){
    rc = ga_other_set(&a->omn, iMin<nText ? SQLITE_TEXT : SQLITE_BLOB, r->dict[iMin].z, r->dict[iMin].n);
  }
  if( rc==SQLITE_OK && iMax>=0 ){
    rc = ga_other_set(&a->omx, iMax<nText ? SQLITE_TEXT : SQLITE_BLOB, r->dict[iMax].z, r->dict[iMax].n);
  }
  return rc;
}

/* Columns a[0..n) kept on the device (colsrc.h): answered there, with no
** scan: the numbers' statistics, quartiles and distinct count by kernels,
** TEXT and BLOB from each column's dictionary. 0: not served, scan instead
** (a column not on the device, the mode is cpu, a distinct count the
** device does not serve, or a device error in 'auto' mode); 1: done; -1:
** an error, set. */
static int sumResident(SumVtab *v, ga_colsrc *src, ColStat *a, int n, int wantQ, int wantD, int64_t *pnRows){
  ga_dcol *d[GA_COLS_MAX];
  ga_resident *r[GA_COLS_MAX];
  char zErr[GA_ERRLEN];
  double t0 = ga_now_ms();
  ga_stat *st;
  int c, fail = 0;
  if( v->conn->mode==GA_CPU ) return 0;
  for(c=0; c<n; c++){
    if( (r[c] = ga_colsrc_resident(src, c))==0 || r[c]->be!=r[0]->be ) return 0;
    if( (r[c]->nText || r[c]->nBlob) && r[c]->dict==0 ) return 0;
    d[c] = r[c]->d;
  }
  if( (st = malloc(sizeof(ga_stat)*(size_t)n))==0 ) return SQLITE_NOMEM;
  if( (fail = r[0]->be->xColStats(r[0]->pRes, &v->conn->stats, d, n, st, zErr))!=0 ){
    free(st);
    if( !ga_device_failed(v->conn, zErr) ) return 0;
    ga_vtab_error(&v->base, "%s", zErr);
    return -1;
  }
  for(c=0; c<n && fail==0; c++){
    a[c].nNull = r[c]->nNull;
    a[c].nInt = r[c]->nInt;
    a[c].nReal = r[c]->nReal;
    a[c].nText = r[c]->nText;
    a[c].nBlob = r[c]->nBlob;
    a[c].nNum = r[c]->nInt + r[c]->nReal;
    if( a[c].nNum ){
      st[c].nInt = r[c]->nInt;
      st[c].nReal = r[c]->nReal;
      ga_stat_merge(&a[c].num, &st[c], 0);
    }
    if( r[c]->dict && (fail = dictOthers(&a[c], r[c], wantD))!=0 ){
      strcpy(zErr, "gpuagg: out of memory");
      break;
    }
    if( wantD && a[c].nNum ){
      int64_t k = 0;
      fail = r[c]->be->xColDistinct(r[c]->pRes, &v->conn->stats, d[c], &k, zErr);
      a[c].nDistinct += k;
      if( fail ) break;
    }
    if( wantQ && (fail = quartiles(v, &a[c], r[c], zErr))!=0 ) break;
  }
  free(st);
  if( fail ){                     /* not served: a device error (as above), or read the host copy */
    if( fail==SQLITE_NOMEM ) return SQLITE_NOMEM;
    if( fail!=GA_DEV_SCAN && ga_device_failed(v->conn, zErr) ){
      ga_vtab_error(&v->base, "%s", zErr);
      return -1;
    }
    for(c=0; c<n; c++){
      char *zName = a[c].zName, *zWhy = a[c].zWhyColl;
      int coll = a[c].coll;
      distFree(&a[c].dist);
      ga_other_free(&a[c].omn);
      ga_other_free(&a[c].omx);
      memset(&a[c], 0, sizeof(a[c]));
      a[c].zName = zName;
      a[c].zWhyColl = zWhy;
      a[c].coll = coll;
    }
    return 0;
  }
  *pnRows = r[0]->n;
  ga_cache_device_hit(v->conn->cache, ga_now_ms() - t0);
  return 1;
}

/* Scan columns a[0..n) (aiCol in from) once. */
static int sumRun(SumVtab *v, const ga_source *from, ColStat *a, const int *aiCol, int n, int wantQ, int wantD,
                  int64_t *pnRows){
  unsigned char aWant[GA_COLS_MAX];
  char zErr[GA_ERRLEN];
  ga_colsrc *src = 0;
  SumScan sc;
  int rc, c;
  memset(aWant, GA_COL_BYTES, sizeof(aWant));     /* TEXT and BLOB: their bytes, never a number */
  if( (rc = ga_tvf_open(&v->base, "gpu_summary", from, n, aiCol, aWant, &src))!=SQLITE_OK ) return rc;
  if( (rc = sumResident(v, src, a, n, wantQ, wantD, pnRows))!=0 ){
    src->xClose(src);
    return rc==SQLITE_NOMEM ? rc : rc>0 ? SQLITE_OK : SQLITE_ERROR;
  }
  memset(&sc, 0, sizeof(sc));
  sc.sink.xBatch = sumBatch;
  sc.sink.xPar = 0;
  sc.v = v;
  sc.a = a;
  sc.n = n;
  sc.wantQ = wantQ;
  sc.wantD = wantD;
  rc = src->xScan(src, &sc.sink);
  if( rc!=SQLITE_OK && !sc.failed && rc!=SQLITE_NOMEM ) ga_vtab_error(&v->base, "%s", src->xErrmsg(src));
  if( sc.q && ga_pipe_close(sc.q, zErr) && rc==SQLITE_OK ) rc = ga_vtab_error(&v->base, "%s", zErr);
  src->xClose(src);
  *pnRows = sc.nRows;
  for(c=0; c<n && rc==SQLITE_OK && wantQ; c++){
    if( quartiles(v, &a[c], 0, zErr) ) rc = ga_vtab_error(&v->base, "%s", zErr);
  }
  return rc;
}

/* ---- the virtual table ------------------------------------------------------ */

static int sumConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  /* "distinct" is a keyword: declared quoted, and read quoted. */
  return ga_tvf_connect(db, pAux, "CREATE TABLE x(name TEXT, rows INTEGER, nulls INTEGER, integers INTEGER,"
                                  " reals INTEGER, texts INTEGER, blobs INTEGER, \"distinct\" INTEGER, min, max, sum,"
                                  " total REAL, avg REAL,"
                                  " var_samp REAL, var_pop REAL, stddev_samp REAL, stddev_pop REAL,"
                                  " q25 REAL, median REAL, q75 REAL, source HIDDEN, column_name HIDDEN)", ppVtab);
}

static int sumOpen(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  SumCursor *c = calloc(1, sizeof(*c));
  (void)tab;
  if( c==0 ) return SQLITE_NOMEM;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static int sumClose(sqlite3_vtab_cursor *cur){
  cursorReset((SumCursor*)cur);
  free(cur);
  return SQLITE_OK;
}

#define WANT_QUARTILES 0x10000   /* idxNum: the query reads q25, median or q75 */
#define WANT_DISTINCT  0x20000   /* idxNum: the query reads distinct */

static int sumBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p){
  int rc = ga_tvf_best_index(tab, p, COL_SOURCE, NARG);
  if( p->colUsed & ((sqlite3_uint64)7 << COL_Q25) ) p->idxNum |= WANT_QUARTILES;
  if( p->colUsed & ((sqlite3_uint64)1 << COL_DISTINCT) ) p->idxNum |= WANT_DISTINCT;
  return rc;
}

/* Column a's collating sequence zColl (ga_table's; NULL: not known) as
** COLL_*, and for COLL_OTHER why, naming column zCol of from. */
static int collOf(ColStat *a, const ga_source *from, const char *zCol, const char *zColl){
  static const char *azName[] = { "BINARY", "NOCASE", "RTRIM" };
  int k;
  for(k=0; zColl && k<3 && sqlite3_stricmp(zColl, azName[k])!=0; k++){}
  a->coll = zColl && k<3 ? k : COLL_OTHER;
  if( a->coll!=COLL_OTHER ) return SQLITE_OK;
  a->zWhyColl = zColl
    ? sqlite3_mprintf("column \"%w\" of %s: its collating sequence %s is not BINARY, NOCASE or RTRIM, which are the"
                      " ones gpu_summary applies: distinct, and min or max where TEXT decides them, are NULL",
                      zCol, from->zName, zColl)
    : sqlite3_mprintf("column \"%w\" of %s: the collating sequence of its values is not known (the view's plan names"
                      " several): distinct, and min or max where TEXT decides them, are NULL", zCol, from->zName);
  return a->zWhyColl ? SQLITE_OK : SQLITE_NOMEM;
}

static int sumFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  static const char *zFn = "gpu_summary";
  SumCursor *c = (SumCursor*)cur;
  SumVtab *v = (SumVtab*)cur->pVtab;
  sqlite3_value *a[NARG];
  const char *zSource, *zCol = 0;
  ga_source from;
  int *ai = 0, i, rc;
  (void)idxStr;
  ga_tvf_args(idxNum, argc, argv, NARG, a);
  cursorReset(c);
  ga_tvf_summary_why(v->conn, 0);
  if( !(idxNum & 1) ) return ga_vtab_error(cur->pVtab, "%s: takes (source) or (source, column)", zFn);
  zSource = ga_tvf_name(a[0]);
  if( a[1] ) zCol = ga_tvf_name(a[1]);
  if( zSource==0 || (a[1] && zCol==0) ) return ga_vtab_error(cur->pVtab, "%s: source and column must be names (UTF-8 text without NUL bytes)", zFn);
  rc = ga_tvf_source(cur->pVtab, v->db, zFn, zSource, &from);
  if( rc==SQLITE_OK ){
    c->nCol = zCol ? 1 : from.tab.nCol;
    c->a = calloc((size_t)c->nCol, sizeof(ColStat));
    ai = malloc(sizeof(int)*(size_t)c->nCol);
    if( c->a==0 || ai==0 ) rc = SQLITE_NOMEM;
  }
  for(i=0; rc==SQLITE_OK && i<c->nCol; i++){
    ai[i] = zCol ? ga_tvf_column(cur->pVtab, zFn, &from, zCol) : i;
    if( ai[i]<0 ) rc = SQLITE_ERROR;
    else if( (c->a[i].zName = sqlite3_mprintf("%s", from.tab.aCol[ai[i]].zName))==0 ) rc = SQLITE_NOMEM;
    else rc = collOf(&c->a[i], &from, c->a[i].zName, from.tab.aCol[ai[i]].zColl);
    if( rc==SQLITE_OK ) c->a[i].enc = ga_db_encoding(v->db, v->conn);
  }
  /* A scan for each GA_COLS_MAX columns (one, but for the widest sources). */
  for(i=0; rc==SQLITE_OK && i<c->nCol; i+=GA_COLS_MAX){
    int n = c->nCol - i < GA_COLS_MAX ? c->nCol - i : GA_COLS_MAX;
    rc = sumRun(v, &from, &c->a[i], &ai[i], n, (idxNum & WANT_QUARTILES)!=0, (idxNum & WANT_DISTINCT)!=0, &c->nRows);
  }
  /* Requirement 5: the first column whose results the collation made NULL. */
  for(i=0; rc==SQLITE_OK && i<c->nCol; i++){
    if( c->a[i].coll==COLL_OTHER && c->a[i].nText>1 ){
      ga_tvf_summary_why(v->conn, c->a[i].zWhyColl);
      break;
    }
  }
  c->wantD = (idxNum & WANT_DISTINCT)!=0;
  ga_source_free(&from);
  free(ai);
  if( rc!=SQLITE_OK ) cursorReset(c);
  return rc;
}

static int sumNext(sqlite3_vtab_cursor *cur){
  ((SumCursor*)cur)->iRow++;
  return SQLITE_OK;
}

static int sumEof(sqlite3_vtab_cursor *cur){
  SumCursor *c = (SumCursor*)cur;
  return c->iRow >= c->nCol;
}

/* Does comparing two of a's TEXT values decide a result it cannot compare
** (requirement 5)? */
static int textUnknown(const ColStat *a){
  return a->coll==COLL_OTHER && a->nText>1;
}

/* min (isMax 0) or max: TEXT and BLOB above numbers. */
static void extremeResult(sqlite3_context *ctx, const ColStat *a, int isMax){
  const ga_ext *e = isMax ? &a->num.mx : &a->num.mn;
  const ga_other *k = isMax ? &a->omx : &a->omn;
  if( k->type && (isMax || e->type==GA_T_NONE) ){
    if( k->type==SQLITE_TEXT && textUnknown(a) ) sqlite3_result_null(ctx);
    else ga_other_result(ctx, k);
  }else if( e->type==GA_T_INT ){
    sqlite3_result_int64(ctx, (sqlite3_int64)e->bits);
  }else if( e->type==GA_T_REAL ){
    sqlite3_result_double(ctx, ga_bits_real(e->bits));
  }else{
    sqlite3_result_null(ctx);
  }
}

static int sumColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  SumCursor *c = (SumCursor*)cur;
  ColStat *a = &c->a[c->iRow];
  int64_t n = a->nInt + a->nReal;         /* the numbers (requirement 2) */
  const ga_sum *s = &a->num.sum;
  const ga_sq *q = &a->num.sq;
  switch( i ){
    case COL_NAME:  sqlite3_result_text(ctx, a->zName, -1, SQLITE_TRANSIENT); return SQLITE_OK;
    case COL_ROWS:  sqlite3_result_int64(ctx, c->nRows); return SQLITE_OK;
    case COL_NULLS: sqlite3_result_int64(ctx, a->nNull); return SQLITE_OK;
    case COL_INTS:  sqlite3_result_int64(ctx, a->nInt); return SQLITE_OK;
    case COL_REALS: sqlite3_result_int64(ctx, a->nReal); return SQLITE_OK;
    case COL_TEXTS: sqlite3_result_int64(ctx, a->nText); return SQLITE_OK;
    case COL_BLOBS: sqlite3_result_int64(ctx, a->nBlob); return SQLITE_OK;
    case COL_DISTINCT:
      if( c->wantD && !textUnknown(a) ) sqlite3_result_int64(ctx, a->dist.nEnt + a->nDistinct);
      return SQLITE_OK;
    case COL_MIN:   extremeResult(ctx, a, 0); return SQLITE_OK;
    case COL_MAX:   extremeResult(ctx, a, 1); return SQLITE_OK;
    case COL_SOURCE: case COL_COLUMN: return SQLITE_OK;   /* the arguments: consumed */
    case COL_Q25: case COL_MEDIAN: case COL_Q75:
      if( !isnan(a->q[i - COL_Q25]) ) sqlite3_result_double(ctx, a->q[i - COL_Q25]);
      return SQLITE_OK;
  }
  if( n==0 ) return SQLITE_OK;            /* no number: every statistic NULL, total too */
  switch( i ){
    case COL_SUM:
      if( a->nReal==0 ){
        __int128 t = ga_sum_int128(s);
        if( t<INT64_MIN || t>INT64_MAX ) sqlite3_result_null(ctx);   /* overflow: NULL, not an error */
        else sqlite3_result_int64(ctx, (sqlite3_int64)t);
      }else{
        sqlite3_result_double(ctx, ga_sum_value(s));
      }
      break;
    case COL_TOTAL: sqlite3_result_double(ctx, ga_sum_value(s)); break;
    case COL_AVG:   sqlite3_result_double(ctx, ga_sum_value(s)/(double)n); break;
    case COL_VSAMP: sqlite3_result_double(ctx, ga_variance(s, q, n, n - 1)); break;
    case COL_VPOP:  sqlite3_result_double(ctx, ga_variance(s, q, n, n)); break;
    case COL_SSAMP: sqlite3_result_double(ctx, ga_stddev(s, q, n, n - 1)); break;
    case COL_SPOP:  sqlite3_result_double(ctx, ga_stddev(s, q, n, n)); break;
  }
  return SQLITE_OK;
}

static int sumRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((SumCursor*)cur)->iRow;
  return SQLITE_OK;
}

const sqlite3_module ga_summary_module = {
  0,                        /* iVersion */
  0,                        /* xCreate: eponymous only */
  sumConnect,
  sumBestIndex,
  ga_tvf_disconnect,
  0,                        /* xDestroy */
  sumOpen,
  sumClose,
  sumFilter,
  sumNext,
  sumEof,
  sumColumn,
  sumRowid,
  0, 0, 0, 0, 0, 0, 0,      /* xUpdate .. xRename */
  0, 0, 0,                  /* xSavepoint, xRelease, xRollbackTo */
  0                         /* xShadowName */
};
