/*
** gpu_query's CPU operators (exec.c's requirement 12): a join's hash joins.
** The scan's table probes the others, one after another in the plan's
** order (plan.c, 9), in the scan's workers as the rest of the pipeline.
**
**   1. Build, before the scan: each joined table's rows are read by its
**      own plan's scan (its columns the query reads, its own conjuncts
**      applied; in the page source's workers too, each keeping its share,
**      put one after another at the end: their order decides nothing;
**      through the column cache where gpuagg_config('query_kept') is not 0:
**      kept columns serve it, else it keeps what it reads, for the next
**      read's builds, where the table has gpuagg_config('threshold') rows),
**      each kept row's key made there from the sides of its equalities over
**      its columns (a worker's run of the query's plan evaluates them): each value with the equality's affinity applied (as
**      OP_Eq applies it to both operands, eval.c 2), then made canonical
**      under the equality's collation (as GROUP BY's keys: an integral REAL
**      is its integer, TEXT by its collation's key), the values one after
**      the other. A row with a NULL in its key matches nothing. The keys go
**      into a hash table of chains (a row per key and duplicates: they
**      multiply rows, as SQL's join does), made once the operators here
**      need it (qxJoinIndex): a read over kept columns compiles the rows
**      and keys into its own program (compile.c, 6), and needs none; a
**      table whose equality must find one row a key (1d) is indexed with
**      its build, to check that.
**   1a. A table joined by one equality whose keys are all integers (after
**      the affinity; an integral REAL is its integer, as in 1) within a
**      span of at most 16 times its rows plus 65,536, such as an INTEGER
**      PRIMARY KEY or dates as yyyymmdd, is indexed directly: an array of
**      each key's first row, chains for duplicates. A probing value then
**      matches only where it is an integer (after the affinity) in the
**      span: TEXT, BLOB and other REALs never equal an integer key.
**   1b. An equality under NOCASE or RTRIM: where two rows match whose
**      values differ, SQLite's own answer depends on its plan (an automatic
**      index may not find them: SQLite 3.40.1), so the run is SQLite's
**      (QE_BAIL, as exec.c's 12); each key is also kept under BINARY, and
**      where the two keys of a match differ there, it stops.
**   1c. A joined subquery or WITH table (plan.c, 9b): its build reads its
**      own run's rows (exec.c, 10) on the scan's thread, then as 1.
**   1d. A correlated aggregate's groups (plan.c, 9c) must each have a key
**      of their own: two rows with one key (its equality looser than the
**      grouping: an affinity, a collation) make the run SQLite's; so do two
**      rows with one key of a table joined to rows ordered by the scanned
**      table's key (9d).
**   1e. Where the plan's rows come in SQLite's join order (plan.c, 9f),
**      each kept row's position in its table's scan is kept too (a sort
**      term reads it: gather's places after the joined tables' columns). A
**      table joined by no equality (a cross product) has one key, empty:
**      every row is a match.
**   2. Probe, per batch: the rows the scan's own conjuncts kept are the
**      joined rows so far; for each joined table in turn, each joined
**      row's key is made from the other sides of the equalities (over the
**      columns joined so far) the same way, and the row is followed by each
**      of the table's rows with the same key; a row with none is dropped,
**      or, for a LEFT JOIN, followed by a row of NULLs. Joined rows are
**      kept as their sources' row numbers (the batch's row, each table's
**      row), a batch a level: a level that fills goes on to the next
**      (probeLevel), so memory stays bounded however many rows the joins
**      make. Only the columns an equality reads are gathered for it, and
**      every column once at the end, for the conjuncts over the joined rows
**      (aPost) and the rest of the pipeline.
**   2a. The order the tables meet a batch in is the plan's, but where no
**      join is LEFT: once every table is built, the one whose rows are
**      fewest for its table's rows (its own conjuncts kept fewest) comes
**      first among those whose keys' columns are already joined, so that
**      the rows the others keep are probed fewer times.
**   2b. A correlated subquery's table (plan.c, 9a) keeps a joined row once
**      where it has a match (EXISTS, IN), or where it has none (NOT
**      EXISTS), its columns NULL: no row is multiplied.
**   2c. Where its subquery has conditions beside the equalities (over its
**      table and the outer query's: plan.c, 9a), a match counts where it
**      meets them: each row's matches are paired with it, a batch of pairs
**      at a time, and the conditions evaluated over the pairs (as aPost
**      over joined rows); a row met takes no more pairs. Its table meets a
**      batch after every table those conditions read (2a). By no equality
**      (plan.c, 9a), a row's matches are every row of its table.
**   2d. A correlated count(*) (plan.c, 9e) keeps every row once, its source
**      the number of its matches (that meet its conditions, as 2c's, each
**      pair met); its one column, Q_COUNT_COL, is that count.
**   3. A worker keeps its batch's joined rows (past aPost) until the batch
**      is joined whole; where they are more than a batch it gives the batch
**      back to the scan's thread (GA_SINK_LATER) before changing anything:
**      the rest of the pipeline takes one batch whole or not at all.
**   4. Positions: joined rows take their batch's positions in order. They
**      decide nothing: a join's plan is strict (exec.c, 12).
*/
#include "execint.h"

/* A joined table: its rows (its build's scan, 1) and their keys. */
typedef struct JoinTab {
  const qjoin *q;                  /* the plan's */
  int64_t n;                       /* its rows */
  qrun **aRun; int nRun;           /* the build's runs (its scan's threads'): they keep its bytes */
  unsigned char **aT;              /* its columns, q->nCol: each row's class */
  int64_t **aV;                    /* ... value (TEXT, BLOB: the row's cell) */
  ga_cell **aCell;                 /* ... TEXT and BLOB bytes (NULL: the column has none) */
  const char **azKey; int *anKey;  /* each row's canonical key (NULL: it matches no row) */
  uint64_t *aHash;                 /* ... and its hash */
  int bin;                         /* an equality's collation is not BINARY (1b) */
  int *anBin;                      /* ... each row's key under BINARY: its bytes, after anKey's */
  int64_t *aPos;                   /* ... each row's position in its table's scan (plan.c, 9f), or
                                   ** NULL: not asked */
  int64_t *aNext;                  /* the next row in its slot's chain (-1: none) */
  int64_t *aSlot; uint64_t mask;   /* each slot's first row (-1: none), and slots - 1 */
  int64_t *aFirst;                 /* direct (1a): the first row of each key - lo (-1: none), or
                                   ** NULL: the hash table */
  int64_t lo, nFirst;              /* ... the least key, and the keys' span */
  int aProbeCol[GA_COLS_MAX];      /* the columns (joined row's places) its equalities' other sides
                                   ** read */
  int nProbeCol;
  int aOnCol[GA_COLS_MAX];         /* ... and its conditions beside them (q->aOn: 2c), its own too */
  int nOnCol;
  int nOut;                        /* its columns (its build plan's results) */
  char *zStore;                    /* kept between reads (5): its keys' and cells' bytes, its runs
                                   ** freed */
} JoinTab;

/* A part's joined rows being made. */
typedef struct JoinScratch {
  int64_t *aLv;                    /* joined rows by level x (x tables joined), the batch's
                                   ** rows (GA_BATCH) then cap rows a level: source s of level x's
                                   ** row i at srcOf(x, s)[i] (s 0: the batch's row; k+1: join k's
                                   ** row, -1 its NULLs) */
  int cap;                         /* ... rows a level after the first holds (fewer where the
                                   ** tables are many: the levels' memory is nSrc squared) */
  int aN[Q_MAXTAB + 1];            /* ... each level's rows */
  int nSrc;                        /* sources a row: 1 + the joins */
  int64_t *aFin;                   /* a worker's rows past every join and aPost, (3): sources,
                                   ** GA_BATCH rows a source */
  int nFin;                        /* ... how many */
  char *zKey; int nKey;            /* a row's key, kept while its matches are joined */
  ga_colvec *aCol;                 /* a gathered batch's columns (Q_JCOL0 + nJCol) */
  unsigned char *aT; int64_t *aV;  /* ... their classes and values: GA_BATCH a column, by slot */
  int *aSlot;                      /* ... each joined row place's slot (-1: not gathered) */
  int64_t *aPair;                  /* 2c: a row and a match, as a level's rows (nSrc*GA_BATCH) */
  int *aPairRow;                   /* ... the level's row each pair is of */
} JoinScratch;

/* The places E_COL nodes of e read, added to a[*pn] once each. */
static void colsOf(const qexpr *e, int *a, int *pn){
  int i;
  if( e==0 ) return;
  if( e->op==E_COL ){
    for(i=0; i<*pn && a[i]!=e->iCol; i++){}
    if( i==*pn && *pn<GA_COLS_MAX ) a[(*pn)++] = e->iCol;
  }
  colsOf(e->a, a, pn);
  colsOf(e->b, a, pn);
  for(i=0; i<e->nArg; i++) colsOf(e->arg[i], a, pn);
}

/* Row i's canonical key for q's equalities from the values aX of their
** sides, into p->kbuf (*pn bytes), then, where bin, the same under BINARY
** (*pnBin bytes after them: 1b); *pHas 0 where a value is NULL (the row
** matches nothing). */
static int keyOfRow(Part *p, const qjoin *q, int bin, qvec **aX, int i, int *pn, int *pnBin, int *pHas){
  qval ax[Q_MAXKEY];
  int j, rc;
  *pn = *pnBin = 0;
  *pHas = 0;
  for(j=0; j<q->nEq; j++){
    const qexpr *eq = q->aEq[j];
    q_get(aX[j], i, &ax[j]);
    if( ax[j].t==SQLITE_NULL ) return SQLITE_OK;
    if( eq->cmpAff>=0 && (rc = q_apply_aff(p->r, eq->cmpAff, &ax[j]))!=SQLITE_OK ) return rc;
    if( (rc = qxKeyOf(p, &ax[j], eq->cmpColl, pn))!=SQLITE_OK ) return rc;
  }
  for(j=0, *pnBin=*pn; bin && j<q->nEq; j++){
    if( (rc = qxKeyOf(p, &ax[j], C_BINARY, pnBin))!=SQLITE_OK ) return rc;
  }
  *pnBin -= *pn;
  *pHas = 1;
  return SQLITE_OK;
}

/* The side of q's equality j over its own table (build) or over the rows
** before it. */
static qexpr *sideOf(const qjoin *q, int j, int build){
  int s = q->aBuildSide[j];
  if( !build ) s = 1 - s;
  return s ? q->aEq[j]->b : q->aEq[j]->a;
}

/* The direct index of 1a where jt's n keys (one equality's) are integers
** in a span it allows; nonzero: out of memory. */
static int directOf(JoinTab *jt, int64_t n){
  int64_t r, lo = INT64_MAX, hi = INT64_MIN, v;
  uint64_t span;
  for(r=0; r<n; r++){
    if( jt->azKey[r]==0 ) continue;
    if( jt->anKey[r]!=9 || jt->azKey[r][0]!=1 ) return 0;     /* (q_key_bytes: an integer) */
    memcpy(&v, jt->azKey[r] + 1, 8);
    if( v<lo ) lo = v;
    if( v>hi ) hi = v;
  }
  if( lo>hi ) return 0;                                          /* no key */
  span = (uint64_t)hi - (uint64_t)lo + 1;
  if( span==0 || span>(uint64_t)(16*n + 65536) || span>((uint64_t)1<<26) ) return 0;
  if( (jt->aFirst = ga_malloc64(8*span))==0 ) return 1;
  memset(jt->aFirst, 0xff, 8*(size_t)span);
  jt->lo = lo;
  jt->nFirst = (int64_t)span;
  for(r=n-1; r>=0; r--){
    if( jt->azKey[r]==0 ) continue;
    memcpy(&v, jt->azKey[r] + 1, 8);
    jt->aNext[r] = jt->aFirst[v - lo];
    jt->aFirst[v - lo] = r;
  }
  return 0;
}

/* 1d: whether two of jt's rows have one key (its index's chains). */
static int keyTwice(const JoinTab *jt){
  int64_t r, x;
  for(r=0; r<jt->n; r++){
    if( jt->azKey[r]==0 ) continue;
    for(x=jt->aNext[r]; x>=0; x=jt->aNext[x]){
      if( jt->anKey[x]==jt->anKey[r] && memcmp(jt->azKey[x], jt->azKey[r], (size_t)jt->anKey[r])==0 ) return 1;
    }
  }
  return 0;
}

/* Join table jt's rows, their keys made (buildScan), indexed (1, 1a). */
static int tableIndex(JoinTab *jt){
  const qjoin *q = jt->q;
  int64_t n = jt->n, r;
  uint64_t nSlot = 16;
  while( nSlot<2*(uint64_t)n ) nSlot *= 2;
  jt->mask = nSlot - 1;
  jt->aNext = ga_malloc64(8*(uint64_t)n + 8);
  if( jt->aNext==0 ) return SQLITE_NOMEM;
  if( q->nEq==1 && directOf(jt, n) ) return SQLITE_NOMEM;    /* (1a) */
  if( jt->aFirst ){
    jt->bin = 0;                   /* (integers: no collation applies) */
  }else{
    if( (jt->aSlot = ga_malloc64(8*nSlot))==0 ) return SQLITE_NOMEM;
    memset(jt->aSlot, 0xff, 8*nSlot);
    for(r=n-1; r>=0; r--){         /* chains in the table's order */
      uint64_t h;
      if( jt->azKey[r]==0 ) continue;
      h = jt->aHash[r] & jt->mask;
      jt->aNext[r] = jt->aSlot[h];
      jt->aSlot[h] = r;
    }
  }
  return SQLITE_OK;
}

/* The places of a joined row jt's equalities and conditions read (its order: 2a). */
static void tableReads(JoinTab *jt){
  const qjoin *q = jt->q;
  int j;
  for(j=0; j<q->nEq; j++) colsOf(sideOf(q, j, 0), jt->aProbeCol, &jt->nProbeCol);
  for(j=0; j<q->nOn; j++) colsOf(q->aOn[j], jt->aOnCol, &jt->nOnCol);
}

int qxJoinIndex(Exec *e){
  int k, rc;
  for(k=0; e->aJt && k<e->pl->nJoin; k++){
    if( e->aJt[k].aNext==0 && (rc = tableIndex(&e->aJt[k]))!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}

/* The order of 2a into e->aJoinOrder. */
static void joinOrder(Exec *e){
  const qplan *pl = e->pl;
  uint64_t done = 0;
  int k, x, left = 0;
  for(k=0; k<pl->nJoin; k++){
    e->aJoinOrder[k] = k;
    left |= pl->aJoin[k].left;
  }
  if( left ) return;
  for(x=0; x<pl->nJoin; x++){
    int best = -1;
    double fBest = 1e300;                    /* (any ready one: an estimate may be stale) */
    for(k=0; k<pl->nJoin; k++){
      const JoinTab *jt = &e->aJt[k];
      double f;
      int c, ready = !(done>>k & 1);
      for(c=0; ready && c<jt->nProbeCol + jt->nOnCol; c++){
        int at = c<jt->nProbeCol ? jt->aProbeCol[c] : jt->aOnCol[c - jt->nProbeCol];
        int of = at>=Q_JCOL0 ? (at - Q_JCOL0)/GA_COLS_MAX : -1;
        if( of>=0 && of!=k && !(done>>of & 1) ) ready = 0;
      }
      if( !ready ) continue;
      f = jt->q->nEst>0 ? (double)jt->n/(double)jt->q->nEst : 1.0;
      if( f<fBest ){ fBest = f; best = k; }
    }
    assert( best>=0 );            /* (the plan's order is one that is ready) */
    e->aJoinOrder[x] = best;
    done |= (uint64_t)1<<best;
  }
}

/* ---- a build's scan (1) ---- */

/* One thread's share of a build's rows: the result columns as they come. */
typedef struct BuildPart {
  Part part;                       /* its run (part.r: the conjuncts'); nothing else of it */
  Part key;                        /* a run of the query's plan (key.r: the equalities' sides, the
                                   ** keys' bytes) and its key buffer */
  int64_t n, alloc;                /* rows, and room */
  unsigned char **aT;              /* each result column's classes */
  int64_t **aV;                    /* ... values (TEXT, BLOB: the row's cell) */
  ga_cell **aCell;                 /* ... TEXT and BLOB bytes (kept by part.r), room for alloc
                                   ** rows once the column has one (NULL until then) */
  const char **azKey; int *anKey;  /* each row's key (JoinTab's) */
  int *anBin; uint64_t *aHash;
  int64_t *aPos;                   /* each row's position in the table's scan (the plan's nPos) */
  ga_colvec *aKeyCol;              /* places of a joined row (nPlace) the keys' sides read */
} BuildPart;

typedef struct BuildSink {
  ga_colsink base;
  const qplan *pb;                 /* the build's plan: one table, conjuncts, columns as results */
  const qjoin *q;                  /* the join it builds */
  int nPlace;                      /* places of a joined row (Q_JCOL0 + the query's nJCol) */
  int bin;                         /* an equality's collation is not BINARY (1b) */
  int wantPos;                     /* its rows' positions are sort terms (plan.c, 9f) */
  BuildPart *a; int nPart;         /* a[0] the scan's thread's, then each worker's */
  int rc;                          /* the scan's thread's error */
} BuildSink;

/* p grown to n items of sz bytes, or NULL (p freed). */
static void *growTo(void *p, int64_t n, size_t sz){
  void *x = ga_realloc64(p, sz*(uint64_t)n);
  if( x==0 ) ga_free(p);
  return x;
}

/* Batch b's rows that the build's conjuncts keep, appended to part bp,
** with their keys. On a worker nothing changes before the conjuncts and
** the keys are evaluated (a batch it gives back is whole). */
static int buildAppend(BuildSink *s, BuildPart *bp, const ga_colbatch *b){
  const qplan *pb = s->pb;
  const qjoin *q = s->q;
  int sel[GA_BATCH], i, j, rc;
  const char *azK[GA_BATCH];
  int anK[GA_BATCH], anB[GA_BATCH];
  uint64_t aH[GA_BATCH];
  qctx ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.b = b;
  ctx.n = b->n;
  if( (rc = qxFilter(&bp->part, pb->aConj, pb->nConj, &ctx, sel))!=SQLITE_OK ) return rc;
  if( ctx.n ){
    /* the kept rows' keys: the equalities' sides over this table's
    ** places of a joined row, which are the batch's result columns */
    ga_colvec *aCol = bp->aKeyCol;
    ga_colbatch jb;
    qctx kx;
    qvec *aX[Q_MAXKEY];
    memset(&jb, 0, sizeof(jb));
    for(j=0; j<pb->nOut; j++) aCol[Q_JCOL0 + q->iCol0 + j] = b->col[pb->aOut[j]->iCol];
    jb.n = b->n;
    jb.nCol = s->nPlace;
    jb.col = aCol;
    kx = ctx;
    kx.b = &jb;
    for(j=0; j<q->nEq; j++){
      if( (rc = q_eval(bp->key.r, sideOf(q, j, 1), &kx, &aX[j]))!=SQLITE_OK ) return rc;
    }
    for(i=0; i<ctx.n; i++){
      int has;
      if( (rc = keyOfRow(&bp->key, q, s->bin, aX, i, &anK[i], &anB[i], &has))!=SQLITE_OK ) return rc;
      azK[i] = 0;
      if( !has ) continue;
      if( (azK[i] = q_keep(bp->key.r, bp->key.kbuf, anK[i] + anB[i]))==0 ) return SQLITE_NOMEM;
      aH[i] = qxHashKey(bp->key.kbuf, anK[i]);
    }
  }
  if( bp->n + ctx.n>bp->alloc ){
    int64_t m = bp->alloc ? 2*bp->alloc : 4096;
    while( m<bp->n + ctx.n ) m *= 2;
    for(j=0; j<pb->nOut; j++){
      void *x;
      if( (x = ga_realloc64(bp->aT[j], (uint64_t)m))==0 ) return SQLITE_NOMEM;
      bp->aT[j] = x;
      if( (x = ga_realloc64(bp->aV[j], 8*(uint64_t)m))==0 ) return SQLITE_NOMEM;
      bp->aV[j] = x;
      if( bp->aCell[j] ){
        if( (x = ga_realloc64(bp->aCell[j], sizeof(ga_cell)*(uint64_t)m))==0 ) return SQLITE_NOMEM;
        bp->aCell[j] = x;
      }
    }
    if( (bp->azKey = growTo(bp->azKey, m, sizeof(char*)))==0 || (bp->anKey = growTo(bp->anKey, m, sizeof(int)))==0
     || (bp->anBin = growTo(bp->anBin, m, sizeof(int)))==0 || (bp->aHash = growTo(bp->aHash, m, 8))==0
     || (s->wantPos && (bp->aPos = growTo(bp->aPos, m, 8))==0) ){
      return SQLITE_NOMEM;
    }
    bp->alloc = m;
  }
  for(i=0; i<ctx.n; i++){
    bp->azKey[bp->n + i] = azK[i];
    bp->anKey[bp->n + i] = azK[i] ? anK[i] : 0;
    bp->anBin[bp->n + i] = anB[i];
    bp->aHash[bp->n + i] = aH[i];
    if( s->wantPos ) bp->aPos[bp->n + i] = b->pos + (ctx.sel ? ctx.sel[i] : i);
  }
  for(j=0; j<pb->nOut; j++){
    const ga_colvec *c = &b->col[pb->aOut[j]->iCol];
    for(i=0; i<ctx.n; i++){
      int row = ctx.sel ? ctx.sel[i] : i, t = c->type[row];
      int64_t at = bp->n + i;
      bp->aT[j][at] = (unsigned char)t;
      bp->aV[j][at] = c->v[row];
      if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
        const ga_cell *x = &c->cell[c->v[row]];
        ga_cell *d;
        if( bp->aCell[j]==0 && (bp->aCell[j] = ga_malloc64(sizeof(ga_cell)*(uint64_t)bp->alloc))==0 ){
          return SQLITE_NOMEM;
        }
        d = &bp->aCell[j][at];
        memset(d, 0, sizeof(*d));
        d->n = x->n;
        if( (d->z = x->n ? q_keep(bp->part.r, x->z, x->n) : "")==0 ) return SQLITE_NOMEM;
        bp->aV[j][at] = at;
      }
    }
  }
  bp->n += ctx.n;
  return SQLITE_OK;
}

static int buildBatch(ga_colsink *pSink, const ga_colbatch *b){
  BuildSink *s = (BuildSink*)pSink;
  return s->rc = buildAppend(s, &s->a[0], b);
}

static int buildPar(ga_colsink *pSink, int w, const ga_colbatch *b){
  BuildSink *s = (BuildSink*)pSink;
  BuildPart *bp = &s->a[1 + w];
  int rc = buildAppend(s, bp, b);
  if( rc==SQLITE_NOMEM ) bp->part.rc = rc;
  return rc==SQLITE_OK || rc==SQLITE_NOMEM ? rc : GA_SINK_LATER;
}

/* Part w's rows (its first at place `at` of jt's), copied into jt's
** columns and keys, allocated for them all. */
typedef struct Place {
  const BuildSink *s; JoinTab *jt;  /* the parts, and where they go */
  int w; int64_t at;                /* this part, and its first row's place */
} Place;

static void *partPlace(void *pArg){
  const Place *x = (const Place*)pArg;
  const BuildPart *bp = &x->s->a[x->w];
  JoinTab *jt = x->jt;
  int64_t at = x->at, i;
  int j;
  if( bp->n==0 ) return 0;
  for(j=0; j<x->s->pb->nOut; j++){
    memcpy(jt->aT[j] + at, bp->aT[j], (size_t)bp->n);
    if( bp->aCell[j] ) memcpy(jt->aCell[j] + at, bp->aCell[j], sizeof(ga_cell)*(size_t)bp->n);
    for(i=0; i<bp->n; i++){
      int t = bp->aT[j][i];
      jt->aV[j][at + i] = t==SQLITE_TEXT || t==SQLITE_BLOB ? at + i : bp->aV[j][i];
    }
  }
  memcpy(jt->azKey + at, bp->azKey, sizeof(char*)*(size_t)bp->n);
  memcpy(jt->anKey + at, bp->anKey, sizeof(int)*(size_t)bp->n);
  memcpy(jt->anBin + at, bp->anBin, sizeof(int)*(size_t)bp->n);
  memcpy(jt->aHash + at, bp->aHash, 8*(size_t)bp->n);
  if( x->s->wantPos ) memcpy(jt->aPos + at, bp->aPos, 8*(size_t)bp->n);
  return 0;
}

/* The parts' rows one after another into jt: each part on a thread of its
** own where there are many (the first touch of the fresh arrays is most
** of the cost, and the kernel serves page faults on several cores at
** once), else on this one. */
#define PLACE_PAR_MIN ((int64_t)1 << 20)
static void partsPlace(const BuildSink *s, JoinTab *jt){
  Place a[1 + GA_THREADS_MAX];
  int w;
  int64_t at = 0;
  assert( s->nPart<=1 + GA_THREADS_MAX );
  for(w=0; w<s->nPart; at+=s->a[w].n, w++){
    a[w].s = s; a[w].jt = jt; a[w].w = w; a[w].at = at;
  }
  if( jt->n>=PLACE_PAR_MIN ) q_fan(s->nPart, partPlace, a, sizeof(a[0]));
  else for(w=0; w<s->nPart; w++) partPlace(&a[w]);
}

/* Join table jt's rows: its build plan's table scanned (in the page
** source's workers too: its rows' order decides nothing), or its
** subquery's rows (1c), the conjuncts applied, the result columns gathered
** into jt's columns. */
static int buildScan(Exec *e, JoinTab *jt, sqlite3_vtab *vt, sqlite3 *db, int keep, char **pzErr){
  const qplan *pb = jt->q->pBuild;
  ga_conn *conn = ((ga_vtab*)vt)->conn;
  ga_colsrc *src = 0;
  BuildSink s;
  int nTh = conn->threads>1 ? conn->threads : 0, w, j, rc = SQLITE_OK;
  memset(&s, 0, sizeof(s));
  s.pb = pb;
  s.q = jt->q;
  s.nPlace = Q_JCOL0 + e->pl->nJCol;
  s.wantPos = e->pl->nPos>0;
  for(j=0; j<jt->q->nEq; j++) if( jt->q->aEq[j]->cmpColl!=C_BINARY ) s.bin = 1;
  s.base.xBatch = buildBatch;
  s.nPart = 1 + nTh;
  if( (s.a = ga_malloc64(sizeof(BuildPart)*(uint64_t)s.nPart))==0 ) return SQLITE_NOMEM;
  memset(s.a, 0, sizeof(BuildPart)*(size_t)s.nPart);
  for(w=0; w<s.nPart && rc==SQLITE_OK; w++){
    BuildPart *bp = &s.a[w];
    if( (bp->part.r = q_run_new(db, pb))==0 || (bp->key.r = q_run_new(db, e->pl))==0 ) rc = SQLITE_NOMEM;
    else if( w ){
      q_run_worker(bp->part.r);
      q_run_worker(bp->key.r);
    }
    if( rc==SQLITE_OK && (bp->aKeyCol = ga_malloc64(sizeof(ga_colvec)*(uint64_t)s.nPlace))==0 ) rc = SQLITE_NOMEM;
    if( rc==SQLITE_OK && ((bp->aT = ga_malloc64(sizeof(void*)*(uint64_t)(pb->nOut + 1)))==0
                          || (bp->aV = ga_malloc64(sizeof(void*)*(uint64_t)(pb->nOut + 1)))==0
                          || (bp->aCell = ga_malloc64(sizeof(void*)*(uint64_t)(pb->nOut + 1)))==0) ) rc = SQLITE_NOMEM;
    if( rc==SQLITE_OK ){
      memset(bp->aT, 0, sizeof(void*)*(size_t)(pb->nOut + 1));
      memset(bp->aV, 0, sizeof(void*)*(size_t)(pb->nOut + 1));
      memset(bp->aCell, 0, sizeof(void*)*(size_t)(pb->nOut + 1));
    }
  }
  if( rc==SQLITE_OK && nTh ){
    s.base.xPar = buildPar;
    s.base.nPar = nTh;
  }
  if( rc==SQLITE_OK && pb->pSub ){
    int64_t nScan;
    rc = e->xSubRows(vt, db, pb, keep, &s.base, &nScan, pzErr);
    if( rc && *pzErr==0 ){
      *pzErr = sqlite3_mprintf("the join's table %s: %s", jt->q->zQual,
                               rc==SQLITE_NOMEM ? "out of memory" : q_run_errmsg(s.a[0].part.r));
    }
  }else if( rc==SQLITE_OK ){
    rc = ga_source_open(((ga_vtab*)vt)->db, conn, "gpu_query", &pb->src, pb->nCol, pb->aiCol, pb->aWant,
                        qxKeptSource(conn, e->pl, keep || q_table_keeps_sub(vt)), &src, pzErr);
  }
  if( rc==SQLITE_OK && src ){
    rc = src->xScan(src, &s.base);
    for(w=1; w<s.nPart && rc==SQLITE_OK; w++) rc = s.a[w].part.rc;
    if( rc!=SQLITE_OK ){
      if( s.rc==rc && rc!=SQLITE_NOMEM ){
        *pzErr = sqlite3_mprintf("the join's table %s: %s", jt->q->zQual, q_run_errmsg(s.a[0].part.r));
      }else{
        *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : src->xErrmsg(src));
      }
    }
  }
  if( src ) src->xClose(src);
  /* the parts' rows one after another, as jt's columns; their runs kept */
  for(w=0; w<s.nPart; w++) jt->n += s.a[w].n;
  jt->nOut = pb->nOut;
  if( rc==SQLITE_OK ){
    jt->aT = ga_malloc64(sizeof(void*)*(uint64_t)(pb->nOut + 1));
    jt->aV = ga_malloc64(sizeof(void*)*(uint64_t)(pb->nOut + 1));
    jt->aCell = ga_malloc64(sizeof(void*)*(uint64_t)(pb->nOut + 1));
    if( jt->aT==0 || jt->aV==0 || jt->aCell==0 ) rc = SQLITE_NOMEM;
    else{
      memset(jt->aT, 0, sizeof(void*)*(size_t)(pb->nOut + 1));
      memset(jt->aV, 0, sizeof(void*)*(size_t)(pb->nOut + 1));
      memset(jt->aCell, 0, sizeof(void*)*(size_t)(pb->nOut + 1));
    }
  }
  for(j=0; j<pb->nOut && rc==SQLITE_OK; j++){
    int cells = 0;                  /* (a part's cells only where its column has TEXT or BLOB) */
    for(w=0; w<s.nPart; w++) cells |= s.a[w].aCell[j]!=0;
    if( (jt->aT[j] = ga_malloc64((uint64_t)jt->n + 1))==0 || (jt->aV[j] = ga_malloc64(8*(uint64_t)jt->n + 8))==0
     || (cells && (jt->aCell[j] = ga_malloc64(sizeof(ga_cell)*(uint64_t)jt->n + sizeof(ga_cell)))==0) ){
      rc = SQLITE_NOMEM;
    }
  }
  jt->bin = s.bin;
  if( rc==SQLITE_OK ){
    jt->azKey = ga_malloc64(sizeof(char*)*(uint64_t)jt->n + 8);
    jt->anKey = ga_malloc64(sizeof(int)*(uint64_t)jt->n + 8);
    jt->anBin = ga_malloc64(sizeof(int)*(uint64_t)jt->n + 8);
    jt->aHash = ga_malloc64(8*(uint64_t)jt->n + 8);
    if( jt->azKey==0 || jt->anKey==0 || jt->anBin==0 || jt->aHash==0 ) rc = SQLITE_NOMEM;
    if( s.wantPos && (jt->aPos = ga_malloc64(8*(uint64_t)jt->n + 8))==0 ) rc = SQLITE_NOMEM;
  }
  if( rc==SQLITE_OK ) partsPlace(&s, jt);
  /* the runs keep the rows' bytes and keys */
  if( rc==SQLITE_OK && (jt->aRun = ga_malloc64(sizeof(qrun*)*(uint64_t)(2*s.nPart)))==0 ) rc = SQLITE_NOMEM;
  for(w=0; w<s.nPart; w++){
    BuildPart *bp = &s.a[w];
    ga_free(bp->azKey); ga_free(bp->anKey); ga_free(bp->anBin); ga_free(bp->aHash);
    ga_free(bp->aPos);
    ga_free(bp->aKeyCol);
    ga_free(bp->key.kbuf);
    if( jt->aRun ) jt->aRun[jt->nRun++] = bp->key.r;
    else q_run_free(bp->key.r);
    for(j=0; j<pb->nOut; j++){
      if( bp->aT ) ga_free(bp->aT[j]);
      if( bp->aV ) ga_free(bp->aV[j]);
      if( bp->aCell ) ga_free(bp->aCell[j]);
    }
    ga_free(bp->aT);
    ga_free(bp->aV);
    ga_free(bp->aCell);
    if( jt->aRun ) jt->aRun[jt->nRun++] = bp->part.r;
    else q_run_free(bp->part.r);
  }
  ga_free(s.a);
  return rc;
}

int qxJoinBuild(Exec *e, sqlite3_vtab *vt, sqlite3 *db, int keep, char **pzErr){
  const qplan *pl = e->pl;
  int k, rc;
  if( (e->aJt = ga_malloc64(sizeof(JoinTab)*(uint64_t)pl->nJoin))==0 ) return SQLITE_NOMEM;
  memset(e->aJt, 0, sizeof(JoinTab)*(size_t)pl->nJoin);
  for(k=0; k<pl->nJoin; k++){
    JoinTab *jt = &e->aJt[k];
    jt->q = &pl->aJoin[k];
    if( (rc = buildScan(e, jt, vt, db, keep, pzErr))!=SQLITE_OK ){
      if( rc==QE_BAIL && *pzErr==0 ) *pzErr = sqlite3_mprintf("the join's table %s", jt->q->zQual);
      return rc;
    }
    tableReads(jt);
    if( jt->q->unique && (rc = tableIndex(jt))!=SQLITE_OK ) return rc;
    if( jt->q->unique && keyTwice(jt) ){
      *pzErr = jt->q->unique==Q_ONE_GROUP
               ? sqlite3_mprintf("at run time: groups of a correlated aggregate that its equality with the outer query "
                                 "takes as one")
               : sqlite3_mprintf("at run time: rows of %s with one key, which the join's rows would come in SQLite's "
                                 "join order for", jt->q->zQual);
      return *pzErr ? QE_BAIL : SQLITE_NOMEM;
    }
  }
  joinOrder(e);
  return SQLITE_OK;
}

void qxJoinRows(const Exec *e, int k, qjoinrows *out){
  const JoinTab *jt = &e->aJt[k];
  out->n = jt->n;
  out->aT = jt->aT;
  out->aV = jt->aV;
  out->aCell = jt->aCell;
  out->azKey = jt->azKey;
  out->anKey = jt->anKey;
}

void qxJoinTabsFree(JoinTab *aJt, int n){
  int k, c;
  for(k=0; aJt && k<n; k++){
    JoinTab *jt = &aJt[k];
    for(c=0; c<jt->nOut; c++){
      if( jt->aT ) ga_free(jt->aT[c]);
      if( jt->aV ) ga_free(jt->aV[c]);
      if( jt->aCell ) ga_free(jt->aCell[c]);
    }
    ga_free(jt->aT); ga_free(jt->aV); ga_free(jt->aCell);
    ga_free(jt->azKey); ga_free(jt->anKey); ga_free(jt->anBin); ga_free(jt->aHash);
    ga_free(jt->aPos);
    ga_free(jt->aNext); ga_free(jt->aSlot); ga_free(jt->aFirst);
    for(c=0; c<jt->nRun; c++) q_run_free(jt->aRun[c]);
    ga_free(jt->aRun);
    ga_free(jt->zStore);
  }
  ga_free(aJt);
}

void qxJoinFree(Exec *e){
  if( !e->jtLent ) qxJoinTabsFree(e->aJt, e->aJt ? e->pl->nJoin : 0);
  e->aJt = 0;
  e->jtLent = 0;
}

/* Table jt's keys' and cells' bytes copied into one store of its own, so
** that its runs (a build's workers' and their blocks of 1 MiB) go. Non-zero:
** out of memory (jt as it was). */
static int tableStore(JoinTab *jt){
  int64_t n = 0, i;
  int c;
  char *z;
  for(i=0; i<jt->n; i++) if( jt->azKey[i] ) n += jt->anKey[i] + jt->anBin[i];
  for(c=0; c<jt->nOut; c++){
    for(i=0; jt->aCell[c] && i<jt->n; i++){
      if( jt->aT[c][i]==SQLITE_TEXT || jt->aT[c][i]==SQLITE_BLOB ) n += jt->aCell[c][i].n;
    }
  }
  if( (jt->zStore = z = ga_malloc64((uint64_t)n + 1))==0 ) return 1;
  for(i=0; i<jt->n; i++){
    int nk;
    if( jt->azKey[i]==0 ) continue;
    nk = jt->anKey[i] + jt->anBin[i];
    if( nk ) memcpy(z, jt->azKey[i], (size_t)nk);
    jt->azKey[i] = z;
    z += nk;
  }
  for(c=0; c<jt->nOut; c++){
    for(i=0; jt->aCell[c] && i<jt->n; i++){
      ga_cell *x = &jt->aCell[c][i];
      if( jt->aT[c][i]!=SQLITE_TEXT && jt->aT[c][i]!=SQLITE_BLOB ) continue;
      if( x->n ) memcpy(z, x->z, (size_t)x->n);
      x->z = z;
      z += x->n;
    }
  }
  for(c=0; c<jt->nRun; c++) q_run_free(jt->aRun[c]);
  jt->nRun = 0;
  return 0;
}

/* The memory table jt holds. */
static int64_t tableBytes(const JoinTab *jt){
  int64_t n = (int64_t)sizeof(*jt) + jt->n*(8 + 4 + 4 + 8 + (jt->aPos ? 8 : 0) + (jt->aNext ? 8 : 0));
  int64_t i;
  int c;
  for(c=0; c<jt->nOut; c++){
    n += jt->n*(1 + 8 + (jt->aCell[c] ? (int64_t)sizeof(ga_cell) : 0));
    for(i=0; jt->aCell[c] && i<jt->n; i++){
      if( jt->aT[c][i]==SQLITE_TEXT || jt->aT[c][i]==SQLITE_BLOB ) n += jt->aCell[c][i].n;
    }
  }
  for(i=0; i<jt->n; i++) if( jt->azKey[i] ) n += jt->anKey[i] + jt->anBin[i];
  if( jt->aSlot ) n += 8*(int64_t)(jt->mask + 1);
  if( jt->aFirst ) n += 8*jt->nFirst;
  return n;
}

int64_t qxJoinTake(Exec *e, JoinTab **paJt){
  int64_t n = 0;
  int k;
  *paJt = 0;
  if( e->jtLent || e->aJt==0 ) return -1;
  for(k=0; k<e->pl->nJoin; k++){
    if( e->aJt[k].zStore==0 && tableStore(&e->aJt[k]) ) return -1;
    n += tableBytes(&e->aJt[k]);
  }
  *paJt = e->aJt;
  e->aJt = 0;
  return n;
}

void qxJoinLend(Exec *e, JoinTab *aJt){
  int k;
  qxJoinFree(e);
  e->aJt = aJt;
  e->jtLent = 1;
  for(k=0; k<e->pl->nJoin; k++){    /* (the plan is this read's: the same query's) */
    JoinTab *jt = &aJt[k];
    jt->q = &e->pl->aJoin[k];
    jt->nProbeCol = jt->nOnCol = 0;
    tableReads(jt);
  }
  joinOrder(e);
}

void qxJoinScratchFree(Part *p){
  JoinScratch *js = p->js;
  if( js==0 ) return;
  ga_free(js->aLv);
  ga_free(js->aFin);
  ga_free(js->zKey);
  ga_free(js->aCol);
  ga_free(js->aT);
  ga_free(js->aV);
  ga_free(js->aSlot);
  ga_free(js->aPair);
  ga_free(js->aPairRow);
  ga_free(js);
  p->js = 0;
}

/* p's scratch, made the first time: the gathered batch's room for every
** column of the scan's table and of the joined ones. */
static JoinScratch *scratch(Exec *e, Part *p){
  const qplan *pl = e->pl;
  JoinScratch *js = p->js;
  int nPlace = Q_JCOL0 + pl->nJCol + pl->nPos, nSlot = pl->nCol + pl->nPos, k, c;
  if( js ) return js;
  for(k=0; k<pl->nJoin; k++) nSlot += pl->aJoin[k].nCol + (pl->aJoin[k].semi==Q_COUNT);
  if( (js = p->js = ga_malloc64(sizeof(JoinScratch)))==0 ) return 0;
  memset(js, 0, sizeof(*js));
  js->nSrc = pl->nJoin + 1;
  js->cap = js->nSrc<=17 ? GA_BATCH : GA_BATCH*289/(js->nSrc*js->nSrc)>64 ? GA_BATCH*289/(js->nSrc*js->nSrc) : 64;
  js->aLv = ga_malloc64(8*(uint64_t)js->nSrc*((uint64_t)GA_BATCH + (uint64_t)js->cap*(uint64_t)pl->nJoin));
  js->aFin = ga_malloc64(8*(uint64_t)GA_BATCH*(uint64_t)js->nSrc);
  js->aCol = ga_malloc64(sizeof(ga_colvec)*(uint64_t)nPlace);
  js->aSlot = ga_malloc64(sizeof(int)*(uint64_t)nPlace);
  js->aT = ga_malloc64((uint64_t)GA_BATCH*(uint64_t)(nSlot + 1));
  js->aV = ga_malloc64(8*(uint64_t)GA_BATCH*(uint64_t)(nSlot + 1));
  js->aPair = ga_malloc64(8*(uint64_t)GA_BATCH*(uint64_t)js->nSrc);
  js->aPairRow = ga_malloc64(sizeof(int)*(uint64_t)GA_BATCH);
  if( js->aLv==0 || js->aFin==0 || js->aCol==0 || js->aSlot==0 || js->aT==0 || js->aV==0 || js->aPair==0
   || js->aPairRow==0 ){
    qxJoinScratchFree(p);
    return 0;
  }
  memset(js->aCol, 0, sizeof(ga_colvec)*(size_t)nPlace);
  for(c=0; c<nPlace; c++) js->aSlot[c] = -1;
  for(c=0, nSlot=0; c<pl->nCol; c++) js->aSlot[c] = nSlot++;
  for(k=0; k<pl->nJoin; k++){
    for(c=0; c<pl->aJoin[k].nCol; c++) js->aSlot[Q_JCOL0 + pl->aJoin[k].iCol0 + c] = nSlot++;
    if( pl->aJoin[k].semi==Q_COUNT ) js->aSlot[Q_JCOL0 + pl->aJoin[k].iCol0 + Q_COUNT_COL] = nSlot++;
  }
  for(c=0; c<pl->nPos; c++) js->aSlot[Q_JCOL0 + pl->nJCol + c] = nSlot++;
  return js;
}

/* Source s of level x's rows. */
static int64_t *srcOf(JoinScratch *js, int x, int s){
  if( x==0 ) return js->aLv + (int64_t)s*GA_BATCH;
  return js->aLv + (int64_t)js->nSrc*GA_BATCH + ((int64_t)(x - 1)*js->nSrc + s)*js->cap;
}

/* Rows level x holds, and its sources' stride. */
static int capOf(const JoinScratch *js, int x){
  return x ? js->cap : GA_BATCH;
}

/* Gather place c (a column of the scan's table or a joined one) of the m
** joined rows whose sources are src(s) (src(0) the batch's rows) into the
** scratch batch. */
static void gather(Exec *e, JoinScratch *js, const ga_colbatch *b, const int64_t *src0, int64_t stride, int c, int m){
  unsigned char *t = js->aT + (size_t)js->aSlot[c]*GA_BATCH;
  int64_t *v = js->aV + (size_t)js->aSlot[c]*GA_BATCH;
  ga_colvec *o = &js->aCol[c];
  int i;
  if( c>=Q_JCOL0 + e->pl->nJCol ){
    /* (plan.c, 9f) a table's rows' positions: the scan's (0) or join k's (k + 1) */
    int k = c - Q_JCOL0 - e->pl->nJCol, none = k && e->aJt[k - 1].q->semi;   /* (a semi join's: none) */
    const int64_t *r = src0 + (int64_t)k*stride;
    for(i=0; i<m; i++){
      if( none || r[i]<0 ){ t[i] = SQLITE_NULL; v[i] = 0; }
      else{ t[i] = SQLITE_INTEGER; v[i] = k ? e->aJt[k - 1].aPos[r[i]] : b->pos + r[i]; }
    }
    o->cell = 0;
  }else if( c<Q_JCOL0 ){
    const ga_colvec *x = &b->col[c];
    for(i=0; i<m; i++){ t[i] = x->type[src0[i]]; v[i] = x->v[src0[i]]; }
    o->cell = x->cell;
  }else{
    int k = (c - Q_JCOL0)/GA_COLS_MAX, cc = (c - Q_JCOL0)%GA_COLS_MAX;
    const JoinTab *jt = &e->aJt[k];
    const int64_t *r = src0 + (int64_t)(k + 1)*stride;
    if( cc==Q_COUNT_COL && jt->q->semi==Q_COUNT ){
      /* (2d: a count join's source is its count) */
      for(i=0; i<m; i++){ t[i] = SQLITE_INTEGER; v[i] = r[i]; }
      o->cell = 0;
    }else{
      for(i=0; i<m; i++){
        if( r[i]<0 ){ t[i] = SQLITE_NULL; v[i] = 0; }
        else{ t[i] = jt->aT[cc][r[i]]; v[i] = jt->aV[cc][r[i]]; }
      }
      o->cell = jt->aCell[cc];
    }
  }
  o->type = t;
  o->v = v;
}

/* Every column of the m joined rows whose sources are at src0 (stride
** apart) into the scratch batch jb. */
static void gatherAll(Exec *e, JoinScratch *js, const ga_colbatch *b, const int64_t *src0, int64_t stride, int m,
                      ga_colbatch *jb){
  const qplan *pl = e->pl;
  int c, k;
  for(c=0; c<pl->nCol; c++) gather(e, js, b, src0, stride, c, m);
  for(k=0; k<pl->nJoin; k++){
    for(c=0; c<pl->aJoin[k].nCol; c++) gather(e, js, b, src0, stride, Q_JCOL0 + pl->aJoin[k].iCol0 + c, m);
    if( pl->aJoin[k].semi==Q_COUNT ) gather(e, js, b, src0, stride, Q_JCOL0 + pl->aJoin[k].iCol0 + Q_COUNT_COL, m);
  }
  for(c=0; c<pl->nPos; c++) gather(e, js, b, src0, stride, Q_JCOL0 + pl->nJCol + c, m);
  jb->n = m;
}

/* The last level's rows (every table joined): the conjuncts over them, then
** the rest of the pipeline; a worker's are kept (aFin) until the batch is
** joined whole (3). */
static int joinedRows(Exec *e, Part *p, const ga_colbatch *b, ga_colbatch *jb, int worker){
  const qplan *pl = e->pl;
  JoinScratch *js = p->js;
  int x = pl->nJoin, m = js->aN[x], sel[GA_BATCH], rc, i, s;
  qctx cx;
  gatherAll(e, js, b, srcOf(js, x, 0), capOf(js, x), m, jb);
  memset(&cx, 0, sizeof(cx));
  cx.b = jb;
  cx.n = m;
  if( (rc = qxFilter(p, pl->aPost, pl->nPost, &cx, sel))!=SQLITE_OK ) return rc;
  if( !worker ) return cx.n ? e->xRows(e, p, jb, &cx, worker) : SQLITE_OK;
  if( js->nFin + cx.n>GA_BATCH ) return GA_SINK_LATER;
  for(i=0; i<cx.n; i++){
    int r = cx.sel ? cx.sel[i] : i;
    for(s=0; s<js->nSrc; s++) js->aFin[(int64_t)s*GA_BATCH + js->nFin] = srcOf(js, x, s)[r];
    js->nFin++;
  }
  return SQLITE_OK;
}

/* Row i's first match in jt (the values aX of the other sides of its
** equalities) into *pr, -1 for none; for the hash table, its key's hash,
** bytes and BINARY bytes into *pH, *pNk, *pNb (the key in p->kbuf). */
static int firstMatch(Part *p, const JoinTab *jt, qvec **aX, int i, int64_t *pr, uint64_t *pH, int *pNk, int *pNb){
  const qjoin *q = jt->q;
  int64_t r = -1;
  int has, rc;
  *pr = -1;
  if( jt->aFirst ){
    /* (1a) the value as an integer key, or no match */
    qval v;
    int64_t kv;
    q_get(aX[0], i, &v);
    if( q->aEq[0]->cmpAff>=0 && (rc = q_apply_aff(p->r, q->aEq[0]->cmpAff, &v))!=SQLITE_OK ) return rc;
    has = v.t==SQLITE_INTEGER;
    kv = v.v;
    if( v.t==SQLITE_FLOAT ){
      double d;
      memcpy(&d, &v.v, 8);
      if( d>=-9223372036854775808.0 && d<9223372036854775808.0 && d==floor(d) ){ has = 1; kv = (int64_t)d; }
    }
    if( has && (uint64_t)kv - (uint64_t)jt->lo<(uint64_t)jt->nFirst ) *pr = jt->aFirst[(uint64_t)kv - (uint64_t)jt->lo];
    return SQLITE_OK;
  }
  if( (rc = keyOfRow(p, q, jt->bin, aX, i, pNk, pNb, &has))!=SQLITE_OK || !has ) return rc;
  *pH = qxHashKey(p->kbuf, *pNk);
  for(r=jt->aSlot[*pH & jt->mask]; r>=0; r=jt->aNext[r]){
    if( jt->aHash[r]==*pH && jt->anKey[r]==*pNk && memcmp(jt->azKey[r], p->kbuf, (size_t)*pNk)==0 ) break;
  }
  *pr = r;
  return SQLITE_OK;
}

/* The row after r in its chain with the same key (hash h, nk bytes): a
** chain's rows of one key have the same bytes, r's stand for the row's. */
static int64_t nextMatch(const JoinTab *jt, int64_t r, uint64_t h, int nk){
  int64_t r0 = r;
  if( jt->aFirst ) return jt->aNext[r];
  for(r=jt->aNext[r]; r>=0; r=jt->aNext[r]){
    if( jt->aHash[r]==h && jt->anKey[r]==nk && memcmp(jt->azKey[r], jt->azKey[r0], (size_t)nk)==0 ) break;
  }
  return r;
}

static const char zDiffer[] = "values of a join's key that are equal under its collation but differ (SQLite's "
                              "answer depends on its plan)";

/* (1b) The row's key under BINARY (nb bytes after its nk in p->kbuf) into
** js->zKey: every match's must be the same, and p->kbuf is reused while
** they are met (the deeper levels, the conditions of 2c). */
static int keepBinKey(Part *p, int nk, int nb){
  JoinScratch *js = p->js;
  if( nb>js->nKey ){
    char *z = ga_realloc64(js->zKey, nb + 64);
    if( z==0 ) return SQLITE_NOMEM;
    js->zKey = z;
    js->nKey = nb + 64;
  }
  memcpy(js->zKey, p->kbuf + nk, (size_t)nb);
  return SQLITE_OK;
}

/* The np pairs of js->aPair met by jt's conditions beside its equalities
** (2c): each row of a pair that meets them marked in aHit. */
static int pairsMet(Exec *e, Part *p, const ga_colbatch *b, ga_colbatch *jb, const JoinTab *jt, int np,
                    unsigned char *aHit, int64_t *aCount){
  JoinScratch *js = p->js;
  int sel[GA_BATCH], c, i, rc;
  qctx cx;
  for(c=0; c<jt->nOnCol; c++) gather(e, js, b, js->aPair, GA_BATCH, jt->aOnCol[c], np);
  jb->n = np;
  memset(&cx, 0, sizeof(cx));
  cx.b = jb;
  cx.n = np;
  if( (rc = qxFilter(p, jt->q->aOn, jt->q->nOn, &cx, sel))!=SQLITE_OK ) return rc;
  for(i=0; i<cx.n; i++){
    int row = js->aPairRow[cx.sel ? cx.sel[i] : i];
    aHit[row] = 1;
    if( aCount ) aCount[row]++;
  }
  return SQLITE_OK;
}

/* Which of level x's m rows have a match in jt (join k) that meets its
** conditions beside its equalities (2c), into aHit: every row's matches
** paired with it, a batch of pairs at a time, the conditions evaluated over
** the pairs; under 1b, every match's BINARY key checked as 2b does. */
static int residualHits(Exec *e, Part *p, const ga_colbatch *b, ga_colbatch *jb, int x, qvec **aX,
                        unsigned char *aHit, int64_t *aCount){
  JoinScratch *js = p->js;
  const int k = e->aJoinOrder[x], m = js->aN[x];
  const JoinTab *jt = &e->aJt[k];
  int i, s, np = 0, rc;
  memset(aHit, 0, (size_t)m);
  if( aCount ) memset(aCount, 0, sizeof(int64_t)*(size_t)m);
  for(i=0; i<m; i++){
    int nk = 0, nb = 0, nThis = 0, lim = 32;
    int64_t r;
    uint64_t h = 0;
    if( (rc = firstMatch(p, jt, aX, i, &r, &h, &nk, &nb))!=SQLITE_OK ) return rc;
    if( r>=0 && jt->bin && (rc = keepBinKey(p, nk, nb))!=SQLITE_OK ) return rc;
    for(; r>=0 && (aCount || !aHit[i]); r=nextMatch(jt, r, h, nk)){  /* (a row met needs no more pairs, unless counted) */
      if( jt->bin && (jt->anBin[r]!=nb || memcmp(jt->azKey[r] + nk, js->zKey, (size_t)nb)) ){
        return qxNotSame(p, zDiffer);
      }
      for(s=0; s<js->nSrc; s++) js->aPair[(int64_t)s*GA_BATCH + np] = srcOf(js, x, s)[i];
      js->aPair[(int64_t)(k + 1)*GA_BATCH + np] = r;
      js->aPairRow[np++] = i;
      if( np==GA_BATCH || ++nThis==lim ){
        /* (a row of many matches, a correlation by no equality's: its pairs
        ** met 32, 64, ... at a time, so that one met early stops early) */
        if( (rc = pairsMet(e, p, b, jb, jt, np, aHit, aCount))!=SQLITE_OK ) return rc;
        np = nThis = 0;
        if( lim<GA_BATCH ) lim *= 2;
      }
    }
  }
  return np ? pairsMet(e, p, b, jb, jt, np, aHit, aCount) : SQLITE_OK;
}

static int probeLevel(Exec*, Part*, const ga_colbatch*, ga_colbatch*, int, int);

/* Level x's row i into level x + 1, its join's source r (its table's row,
** -1 its NULLs, 2d a count); a full level x + 1 goes on first. */
static int keepRow(Exec *e, Part *p, const ga_colbatch *b, ga_colbatch *jb, int x, int i, int64_t r, int worker){
  JoinScratch *js = p->js;
  const int k = e->aJoinOrder[x];
  int64_t *o;
  int s, rc;
  if( js->aN[x + 1]==capOf(js, x + 1) ){
    if( (rc = probeLevel(e, p, b, jb, x + 1, worker))!=SQLITE_OK ) return rc;
    js->aN[x + 1] = 0;
  }
  o = srcOf(js, x + 1, 0) + js->aN[x + 1];
  for(s=0; s<js->nSrc; s++) o[(int64_t)s*capOf(js, x + 1)] = srcOf(js, x, s)[i];
  o[(int64_t)(k + 1)*capOf(js, x + 1)] = r;
  js->aN[x + 1]++;
  return SQLITE_OK;
}

/* Level x's rows met by its join (the plan's x-th in e->aJoinOrder), into
** level x + 1, which goes on (probeLevel) each time it fills and at the
** end: memory stays a batch a level, however many rows the joins make. */
static int probeLevel(Exec *e, Part *p, const ga_colbatch *b, ga_colbatch *jb, int x, int worker){
  const qplan *pl = e->pl;
  JoinScratch *js = p->js;
  const int k = e->aJoinOrder[x], m = js->aN[x];
  const JoinTab *jt = &e->aJt[k];
  const qjoin *q = jt->q;
  qvec *aX[Q_MAXKEY];
  unsigned char aHit[GA_BATCH];    /* (2c) */
  int64_t aCount[GA_BATCH];        /* (2d) */
  qctx cx;
  int i, j, c, rc;
  if( x==pl->nJoin ) return joinedRows(e, p, b, jb, worker);
  for(c=0; c<jt->nProbeCol; c++) gather(e, js, b, srcOf(js, x, 0), capOf(js, x), jt->aProbeCol[c], m);
  jb->n = m;
  memset(&cx, 0, sizeof(cx));
  cx.b = jb;
  cx.n = m;
  for(j=0; j<q->nEq; j++){
    if( (rc = q_eval(p->r, sideOf(q, j, 0), &cx, &aX[j]))!=SQLITE_OK ) return rc;
  }
  if( q->semi && q->nOn
   && (rc = residualHits(e, p, b, jb, x, aX, aHit, q->semi==Q_COUNT ? aCount : 0))!=SQLITE_OK ) return rc;
  for(i=0; i<m; i++){
    int nk = 0, nb = 0, hit = 0, any = 0;
    int64_t r;
    uint64_t h = 0;
    if( (rc = firstMatch(p, jt, aX, i, &r, &h, &nk, &nb))!=SQLITE_OK ) return rc;
    hit = r>=0;
    if( hit && jt->bin && (rc = keepBinKey(p, nk, nb))!=SQLITE_OK ) return rc;
    if( q->semi==Q_COUNT ){
      /* (2d) the row once, its source its count */
      int64_t n = 0, r2;
      if( q->nOn ) n = aCount[i];
      for(r2=r; r2>=0; r2=nextMatch(jt, r2, h, nk)){
        if( jt->bin && (jt->anBin[r2]!=nb || memcmp(jt->azKey[r2] + nk, js->zKey, (size_t)nb)) ) return qxNotSame(p, zDiffer);
        if( !q->nOn ) n++;
      }
      if( (rc = keepRow(e, p, b, jb, x, i, n, worker))!=SQLITE_OK ) return rc;
      continue;
    }else if( q->semi && q->nOn ){
      /* (2c) the row once where a match met its conditions, or none did */
      if( aHit[i]!=(q->semi==Q_SEMI) ) continue;
      hit = 0;
    }else if( q->semi ){
      /* (2b) the row once, or not at all; under 1b, every match checked */
      int64_t r2;
      for(r2=r; jt->bin && r2>=0; r2=nextMatch(jt, r2, h, nk)){
        if( jt->anBin[r2]!=nb || memcmp(jt->azKey[r2] + nk, js->zKey, (size_t)nb) ) return qxNotSame(p, zDiffer);
      }
      if( hit!=(q->semi==Q_SEMI) ) continue;
      hit = 0;                     /* (its columns NULL, as a LEFT JOIN's row of no match) */
    }
    while( hit || (!any && (q->left || q->semi)) ){
      if( hit && jt->bin && (jt->anBin[r]!=nb || memcmp(jt->azKey[r] + nk, js->zKey, (size_t)nb)) ){
        return qxNotSame(p, zDiffer);
      }
      if( (rc = keepRow(e, p, b, jb, x, i, hit ? r : -1, worker))!=SQLITE_OK ) return rc;
      if( !hit ) break;
      any = 1;
      r = nextMatch(jt, r, h, nk);
      hit = r>=0;
    }
  }
  if( js->aN[x + 1] ){
    rc = probeLevel(e, p, b, jb, x + 1, worker);
    js->aN[x + 1] = 0;
    return rc;
  }
  return SQLITE_OK;
}

int qxJoinProbe(Exec *e, Part *p, const ga_colbatch *b, const qctx *ctx, int worker){
  const qplan *pl = e->pl;
  JoinScratch *js = scratch(e, p);
  ga_colbatch jb;
  int i, rc;
  if( js==0 ) return SQLITE_NOMEM;
  memset(&jb, 0, sizeof(jb));
  jb.nCol = Q_JCOL0 + pl->nJCol + pl->nPos;
  jb.col = js->aCol;
  jb.pos = b->pos;
  for(i=0; i<ctx->n; i++) srcOf(js, 0, 0)[i] = ctx->sel ? ctx->sel[i] : i;
  memset(js->aN, 0, sizeof(js->aN));
  js->aN[0] = ctx->n;
  js->nFin = 0;
  rc = probeLevel(e, p, b, &jb, 0, worker);
  if( rc==SQLITE_OK && worker && js->nFin ){
    /* (3) the batch joined whole: its rows into the part */
    qctx cx;
    gatherAll(e, js, b, js->aFin, GA_BATCH, js->nFin, &jb);
    memset(&cx, 0, sizeof(cx));
    cx.b = &jb;
    cx.n = js->nFin;
    rc = e->xRows(e, p, &jb, &cx, worker);
  }
  return rc;
}
