/*
** gpu_query's CPU operators (exec.c and the files beside it): what they
** share. One read of a plan is a pipeline over the scan's batches:
**
**     scan (colsrc.h) -> filter -> join -> group -> aggregate
**                       (filter.c, join.c, hashgroup.c, aggregate.c)
**     ... combine the workers' parts -> finalize -> finish
**                       (hashgroup.c, aggregate.c, finish.c)
**
** with three other ways in: kept columns (kept.c: the backend's programs
** instead of the scan), held rows (held.c: rows ordered by one term with a
** LIMIT, only the window's made result rows) and compounds (compound.c:
** each arm a pipeline of its own). Each operator has its phases named:
** Sink (one batch into a part: a worker's or the scan thread's), Combine
** (parts into the main one), Finalize (the groups' values), and exec.c's
** q_exec puts them together. The files are layers: keys.c at the bottom
** (canonical keys), then aggregate.c, hashgroup.c, filter.c, finish.c,
** held.c, join.c, kept.c, and exec.c, the driver, on top (with
** compound.c, whose arms it runs). No file calls one above it: an
** operator hands its rows on through the stages the driver set in the
** Exec (xBatch, xRows, xSubRows).
**
** To add an operator: a file of its own here, its state in a struct of its
** own (owned by a Part where each worker needs one, else by the Exec), its
** phases declared below with the file that defines them, and the one place
** in q_exec (or qxBatchInto, for a step over each batch) where it runs.
*/
#ifndef GPUAGG_EXECINT_H
#define GPUAGG_EXECINT_H

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include "query.h"
#include "table.h"
#include "vtab.h"
#include "kmap.h"
#include "exactvar.h"
#include "ranks.h"

#define Q_ORDER_MAX 65536          /* the rows of a window keptOrder makes, at most (LIMIT) */
#define Q_JOIN_ROWS 65536          /* the scanned rows a join's rows over kept columns are read
                                   ** again from, at most (exec.c, 8a) */
#define Q_STR_(x) #x
#define Q_STR(x) Q_STR_(x)          /* a number's text, in a string constant */
#define Q_TOP 4096                 /* OFFSET + LIMIT at most this: held rows are cut to the best
                                   ** as they come (a top ten holds little more than ten rows) */

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
  ** the one folded (qxAggFinal) */
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
  struct Held *held;               /* rows without aggregates held (exec.c, 11), or NULL */
  qvec **aB;                       /* a batch's bare columns (nBare) */
  Agg *aAgg;
  int rc;                          /* a worker's error */
  int strict;                      /* the plan's strict (exec.c, 12) */
  const char *zNotSame;            /* ... what it met that compared equal but differed, or NULL:
                                   ** the run is SQLite's, even from a worker (what it changed
                                   ** stays, so the batch cannot go back to the scan's thread) */
  struct JoinScratch *js;          /* a join's rows being made (join.c), or NULL */
  qval *aRowV; int64_t nRowV, rowVAlloc;   /* rows without aggregates made in parallel (exec.c,
                                   ** 7a): e->nW values each, their bytes its run's */
  int64_t *aChunk; int64_t nChunk, chunkAlloc;   /* ... each batch's (position, first row), pairs */
} Part;

/* Rows a scan holds for a window of an order (exec.c, 11): each one's
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

typedef struct Exec {
  ga_colsink base;
  qrun *r;                         /* the scan's thread's evaluation state (main.r) */
  qplan *pl;
  int rc;
  Part main;                       /* the scan's thread's part: every part merges here */
  Part *aPart; int nPart;          /* workers' parts */
  /* rows (no aggregates) */
  qresult *out;
  int nW;                          /* values per row kept: results, then sort terms (less sortCut) */
  int64_t rAlloc;
  int kept;                        /* the groups' aggregates came final from kept columns (8) */
  uint64_t *gRank;                 /* ... and each group's place in GROUP BY's order, or NULL */
  uint64_t nRank;                  /* ... the places there are (0: too many to count) */
  KeySet rows;                     /* SELECT DISTINCT: the rows kept, by their results' keys */
  int sortCut;                     /* trailing ORDER BY terms the groups' order gives, which finish.c
                                   ** neither makes nor compares (qxGroupsToRows: nW without them) */
  int offDone;                     /* the rows are the window of the order alone (qxKeptOrder,
                                   ** qxHeldRows): OFFSET is spent */
  int64_t nHeldVals;               /* values the parts hold (atomic: exec.c, 11) */
  int rowsPar;                     /* rows without aggregates made by every part (exec.c, 7a) */
  int64_t nRowsPar;                /* ... rows the parts made (atomic) */
  /* the stages operators hand rows on to (exec.c sets them) */
  int (*xBatch)(struct Exec*, Part*, const ga_colbatch*, int worker);  /* a batch of the plan's
                                   ** columns: filtered, joined, grouped (qxBatchInto) */
  int (*xRows)(struct Exec*, Part*, const ga_colbatch*, qctx*, int worker);  /* rows filtered
                                   ** and joined: grouped or kept (qxRowsInto) */
  int (*xSubRows)(sqlite3_vtab*, sqlite3*, const qplan*, int, ga_colsink*, int64_t*, char**);
                                   /* a subquery's rows run and handed to a sink (qxSubRows) */
  struct JoinTab *aJt;             /* a join: each joined table's rows and keys (join.c) */
  int jtLent;                      /* ... kept by a compiled plan, lent to this read (kept.c) */
  int aJoinOrder[Q_MAXTAB];        /* ... the order they meet a batch in (join.c, 2a) */
} Exec;

/* Are a and b the same value: class and bytes (not only equal)? */
static inline int qxSameVal(const qval *a, const qval *b){
  if( a->t!=b->t ) return 0;
  if( a->t==SQLITE_TEXT || a->t==SQLITE_BLOB ) return a->n==b->n && (a->n==0 || memcmp(a->z, b->z, (size_t)a->n)==0);
  return a->t==SQLITE_NULL || a->v==b->v;
}

static inline double dbl(int64_t v){ double d; memcpy(&d, &v, 8); return d; }

/* The values a group shows from a row: its keys, then its bare columns. */
#define SHOWN(pl) ((pl)->nKey + (pl)->nBare)

/* ---- keys.c: canonical keys, their sets; values equal but not the same ---------------------- */
int qxKbufRoom(Part *p, int n);
int qxKeyOf(Part *p, const qval *x, int coll, int *pn);
uint64_t qxHashKey(const char *z, int n);
int qxKeySetAdd(qrun *r, KeySet *s, const char *z, int n, int *pNew, int64_t *pId);
void qxKeySetFree(KeySet *s);
int qxNotSame(Part *p, const char *zWhy);
#define Q_NOT_SAME(zWhat) zWhat " that compare equal but differ (which one SQLite shows depends on its join order)"
int qxCmpU64(const void *x, const void *y);

/* ---- aggregate.c: aggregates' states (Sink, Combine, Finalize) ---------------------------- */
int qxAggApply(Part *p, Agg *a, int n, const qvec *x, const qvec *y, const int64_t *aG, const int *sel,
               int64_t pos, unsigned char *hit, int one);
int qxDistinctAdd(Part *p, Agg *a, const char *z, int n, const qval *x, int64_t pos, int *pNew);
int qxAggMerge(Part *p, Agg *a, int64_t g, Agg *b, int64_t gq);
int qxAggFinal(Exec *e);

/* ---- hashgroup.c: the groups' table, parts (Sink's groups; Combine) ------------------------- */
int qxGroupOf(Part *p, const qplan *pl, const char *z, int n, uint64_t h, int64_t *pg, int *pNew);
int qxSetShown(Part *p, const qplan *pl, int64_t g, qvec **aK, qvec **aB, int i);
int qxPartInit(Part *p, const qplan *pl, qrun *r);
/* What the part holds of groups and aggregates, freed (the operators' own
** state on it, held rows and join scratch, is freed first: qxPartDone). */
void qxPartFree(Part *p, const qplan *pl, int freeRun);
int qxPartsMerge(Exec *e);

/* ---- filter.c: conjuncts over a batch's rows ------------------------------------------------ */
int qxFilter(Part *p, qexpr **aConj, int nConj, qctx *ctx, int *sel);

/* ---- finish.c: result rows, HAVING, ORDER BY, OFFSET, LIMIT -------------------------------- */
typedef int (*Cmp)(void*, int64_t, int64_t);
void qxSort(int64_t *a, int64_t *tmp, int64_t n, Cmp cmp, void *arg);
int qxNullsFirst(const qplan *pl, int k);
/* Values a and b of ORDER BY term k in its order (NULLS, collation, DESC). */
int qxSortTermCmp(const qplan *pl, int k, const qval *a, const qval *b);
int qxRowsGrow(Exec *e, int64_t need, int exact);
int qxRowsAppend(Exec *e, const qctx *ctx);
/* As qxRowsAppend, into part p (exec.c, 7a), its batch's position pos;
** qxRowsMerge puts the parts' rows into e->out in scan order. */
int qxRowsPart(Exec *e, Part *p, int64_t pos, const qctx *ctx, int worker);
int qxRowsMerge(Exec *e);
int qxGroupsToRows(Exec *e);
int qxFinish(Exec *e);

/* ---- held.c: a window of an order, from the table ------------------------------------------ */
int qxOrderable(const qplan *pl, int64_t *pLim, int64_t *pOff);
int qxHoldRows(Exec *e, Part *p, const qctx *ctx);
int qxHeldRows(Exec *e);
void qxHeldFree(Held *h);

/* ---- join.c: a join's tables built, probed by each batch ------------------------------------ */
int qxJoinBuild(Exec *e, sqlite3_vtab *vt, sqlite3 *db, int keep, char **pzErr);
/* The built tables' indexes (1, 1a), where not made yet: before qxJoinProbe. */
int qxJoinIndex(Exec *e);
int qxJoinProbe(Exec *e, Part *p, const ga_colbatch *b, const qctx *ctx, int worker);
/* Join k's rows and keys as a join over kept columns reads them (built). */
void qxJoinRows(const Exec *e, int k, qjoinrows *out);
/* e's built tables freed (not those lent to it). */
void qxJoinFree(Exec *e);
void qxJoinScratchFree(Part *p);
/* A join's built tables kept between reads (kept.c, 8a): e's, indexed,
** taken from it into *paJt (their bytes the number returned; -1: none, or
** out of memory), lent to a later read of the same query (not freed with
** it), and freed by their keeper. */
int64_t qxJoinTake(Exec *e, struct JoinTab **paJt);
void qxJoinLend(Exec *e, struct JoinTab *aJt);
void qxJoinTabsFree(struct JoinTab *aJt, int n);

/* ---- kept.c: kept columns ------------------------------------------------------------------- */
int qxKeptRun(Exec *e, sqlite3_vtab *vt, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
              int *pDone, char **pzErr);
int qxKeptOrder(Exec *e, sqlite3_vtab *vt, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
                int *pDone, char **pzErr);
/* How a read of pl that did not run over kept columns opens its table
** (ga_source_open's useCache): GA_SRC_RECORD where kept columns may serve
** pl on this connection, so that the next read finds them kept; else as
** qxKeptSource. */
int qxKeptRecord(const ga_conn *conn, const qplan *pl, int heavy);
/* How the CPU operators open a table of plan pl that its kept columns
** serve where it has them (a join's build; the scan of a plan 8 does not
** serve), on a connection that keeps any (else 0). Where 8 does not serve
** pl (every read of it is these operators': TPC-H Q15's and Q20's
** supplier), or builds its joined tables each read its kept program does
** not serve (rows of a join: 8a), and the read is heavy (q_exec's keep, or a
** subquery of its gpu_query table's reads scanned gpuagg_config('threshold')
** rows: q_table_keeps_sub), what it reads is kept whatever its size, so that
** its next read replays it from memory (GA_SRC_CACHE: the pages of 10,000
** rows took 2-5 ms a read on the GPU host's 16 threads); else only a table
** of 'threshold' rows or more (GA_SRC_LARGE: 8's compiled plan holds a
** smaller joined table as built). */
int qxKeptSource(const ga_conn *conn, const qplan *pl, int heavy);

/* ---- exec.c: the driver ---------------------------------------------------------------------- */
/* The stages each batch passes through, which an operator hands its rows
** to through the Exec (xBatch, xRows, xSubRows), never by name. */
int qxBatchInto(Exec *e, Part *p, const ga_colbatch *b, int worker);
int qxRowsInto(Exec *e, Part *p, const ga_colbatch *b, qctx *ctx, int worker);
/* FROM a subquery (exec.c, 10): pl->pSub run (keep: q_exec's), its rows
** handed to sink's xBatch a batch at a time as pl's columns (aiCol), their
** row numbers their positions; *pnScan the rows it read. SQLITE_OK, QE_BAIL
** or an error (*pzErr set where it is the subquery's). */
int qxSubRows(sqlite3_vtab *vt, sqlite3 *db, const qplan *pl, int keep, ga_colsink *sink, int64_t *pnScan,
              char **pzErr);
/* Part p freed: the operators' state on it, then its groups (qxPartFree). */
void qxPartDone(Part *p, const qplan *pl, int freeRun);

/* A plan that reads no column (count(*) alone) given one to count rows by:
** its scan and kept columns need one. */
static inline void qxSomeColumn(qplan *pl){
  if( pl->nCol==0 ){
    pl->aiCol[0] = 0;
    pl->aWant[0] = 0;
    pl->nCol = 1;
  }
}

/* ---- compound.c ----------------------------------------------------------------------------- */
int qxCompound(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int keep, qresult *r, char **pzErr);

#endif /* GPUAGG_EXECINT_H */
