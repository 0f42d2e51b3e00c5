/*
** gpu_query's operators on the CPU: scan, filter, group, aggregate, finish.
** What they do, as requirements; where: the pipeline and its drivers here
** (1, 2, 7's workers, 10), canonical keys, groups and parts in
** hashgroup.c (3, 7's merge), aggregates in aggregate.c (4), finishing in
** finish.c (5), kept columns in kept.c (8), held rows in held.c (11),
** compounds in compound.c (9), joins in join.c (12); execint.h is what
** they share.
**
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
**      sort, and ORDER BY's stable sort keeps that order on ties; not where
**      its plan reads the groups in an index's order, ascending: no temp
**      B-tree for GROUP BY in it, plan_sqlite.c; a join's so read by its
**      first loop's rowids comes in the order of the key that is their
**      alias, keyFirst, and one it reads in an order the engine cannot give
**      is SQLite's), then
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
**      back to the scan's thread. Not in parallel: keys shown as a min() or
**      max() row shows them.
**   7a. Rows without aggregates (not DISTINCT, not 11's) are made in
**      parallel too: each part makes the result rows of the batches it
**      reads, as 5 would, keeping each batch's position; when the scan
**      ends the batches' rows are put in scan order by their positions
**      (a batch's rows are one part's, in the order they were made), which
**      is the order one thread makes them in. Q_MAXVALUES counts the rows
**      of every part (6): a worker that would pass it hands its batch to
**      the scan's thread, which says so.
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
**   8a. A join's rows without aggregates (not DISTINCT: plan.c): the
**      program of its filter and probes (compile.c, 5a) picks the scanned
**      table's rows the join keeps, in scan order, and only those are read
**      as 1-7 and 12 say (joined again by the CPU operators: their order,
**      their values, ORDER BY, OFFSET and LIMIT as ever); more than
**      Q_JOIN_ROWS of them, and the operators read the table instead. The
**      program and the joined tables as built are kept with the columns
**      (kept.c), for the next read of the same constants while the file is
**      unchanged, as a grouped join's compiled plan is.
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
**  12. A join (plan.c, 9): the joined tables are read first (each by a
**      plan of its own) into hash tables by their keys; each batch of the
**      scan, filtered by its own conjuncts, then meets them in turn (join.c)
**      and its joined rows go through the conjuncts over them and 3-5.
**      Two rows' keys are equal where their equality is true: its affinity
**      applied to both sides, then the canonical keys of 3 under its
**      collation; NULL equals nothing; duplicates multiply rows; a LEFT
**      JOIN's row without a match is joined to NULLs. A join's plan is
**      strict: which of the values that compare equal but differ SQLite
**      shows (a group's keys, the min() or max() of a tie, DISTINCT's
**      value) depends on the order its join visits rows, so where such
**      values meet the run is left to SQLite (QE_BAIL); where they are
**      the same, any row shows them as SQLite would.
*/
#include <ctype.h>
#include "execint.h"

/* Filter batch b (the scan's own conjuncts), join it (a join's plan:
** join.c), group and aggregate it into part p. A worker's part (worker
** set) evaluates everything before it changes anything, so that a batch
** that needs the scan's thread (GA_SINK_LATER) leaves no trace. */
int qxBatchInto(Exec *e, Part *p, const ga_colbatch *b, int worker){
  qplan *pl = e->pl;
  int sel[GA_BATCH], rc;
  qctx ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.b = b;
  ctx.n = b->n;
  p->nRow += b->n;
  if( b->sel ){                        /* filtered already (sinkFilter) */
    ctx.sel = b->sel;
    ctx.n = b->nSel;
  }else if( (rc = qxFilter(p, pl->aConj, pl->nConj, &ctx, sel))!=SQLITE_OK ){
    return rc;
  }
  if( ctx.n==0 ) return SQLITE_OK;
  if( pl->nJoin ) return qxJoinProbe(e, p, b, &ctx, worker);
  return qxRowsInto(e, p, b, &ctx, worker);
}

/* ctx's rows of batch b (filtered) into part p: grouped and aggregated, or
** kept as rows. */
int qxRowsInto(Exec *e, Part *p, const ga_colbatch *b, qctx *pCtx, int worker){
  qplan *pl = e->pl;
  int i, k, rc = SQLITE_OK;
  int64_t aG[GA_BATCH];
  unsigned char aHit[GA_BATCH];
  qvec *aK[Q_MAXKEY], *aX[64], *aY[64], **aB = 0;
  qctx ctx = *pCtx;
  if( !pl->grouped ){
    if( p->held ) return qxHoldRows(e, p, &ctx);
    return e->rowsPar ? qxRowsPart(e, p, b->pos, &ctx, worker) : qxRowsAppend(e, &ctx);
  }
  /* evaluate keys, bare columns and arguments */
  for(k=0; k<pl->nKey; k++){
    if( (rc = q_eval(p->r, pl->aKey[k], &ctx, &aK[k]))!=SQLITE_OK ) return rc;
  }
  if( pl->nBare ){
    if( p->aB==0 && (p->aB = ga_malloc64(sizeof(qvec*)*(uint64_t)pl->nBare))==0 ) return SQLITE_NOMEM;
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
          return GA_SINK_LATER;     /* the scan's thread meets it, and says why */
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
      if( (rc = qxSetShown(p, pl, 0, aK, aB, 0))!=SQLITE_OK ) return rc;
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
        if( (rc = qxKeyOf(p, &kv, pl->aKeyColl[k], &m))!=SQLITE_OK ) return rc;
      }
    }
    kOff[ctx.n] = m;
    for(i=0; i<ctx.n; i++){
      aH[i] = qxHashKey(p->kbuf + kOff[i], kOff[i + 1] - kOff[i]);
      if( p->hAlloc ) __builtin_prefetch(&p->hs[aH[i] & (uint64_t)(p->hAlloc - 1)], 0, 3);
    }
    for(i=0; i<ctx.n; i++){
      int isNew;
      if( (rc = qxGroupOf(p, pl, p->kbuf + kOff[i], kOff[i + 1] - kOff[i], aH[i], &aG[i], &isNew))!=SQLITE_OK ) return rc;
      if( isNew ){
        p->gPos[aG[i]] = b->pos + (ctx.sel ? ctx.sel[i] : i);
        if( (rc = qxSetShown(p, pl, aG[i], aK, aB, i))!=SQLITE_OK ) return rc;
      }else if( p->strict ){
        for(k=0; k<pl->nKey; k++){
          qval kv;
          q_get(aK[k], i, &kv);
          if( !qxSameVal(&kv, &p->gKey[aG[i]*SHOWN(pl) + k]) ) return qxNotSame(p, Q_NOT_SAME("GROUP BY values"));
        }
      }
    }
  }
  for(k=0; k<pl->nAgg; k++){
    rc = qxAggApply(p, &p->aAgg[k], ctx.n, aX[k], aY[k], aG, ctx.sel, b->pos, k==pl->iHit ? aHit : 0, pl->nKey==0);
    if( rc ) return rc;
  }
  if( pl->iHit>=0 && SHOWN(pl) ){
    /* the keys and bare columns, as the rows min() or max() took show them */
    for(i=0; i<ctx.n; i++){
      if( aHit[i] && (rc = qxSetShown(p, pl, aG[i], aK, aB, i))!=SQLITE_OK ) return rc;
    }
  }
  return SQLITE_OK;
}

/* The scan's thread. */
static int sinkBatch(ga_colsink *pSink, const ga_colbatch *b){
  Exec *e = (Exec*)pSink;
  return e->rc = qxBatchInto(e, &e->main, b, 0);
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
  rc = qxFilter(p, e->pl->aConj, e->pl->nConj, &ctx, sel);
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
  int rc = qxBatchInto(e, p, b, 1);
  if( p->zNotSame ) rc = QE_BAIL;       /* (12: what it changed stays; the run ends) */
  if( rc==SQLITE_NOMEM || rc==QE_BAIL ) p->rc = rc;
  return rc==SQLITE_OK || rc==SQLITE_NOMEM || rc==QE_BAIL ? rc : GA_SINK_LATER;
}

/* A part that met values which compare equal but differ (12): the run's
** reason, on the scan's thread's run. */
static int notSameAnywhere(Exec *e){
  int w;
  for(w=-1; w<e->nPart; w++){
    Part *p = w<0 ? &e->main : &e->aPart[w];
    if( p->zNotSame ) return p->r==e->r ? QE_BAIL : q_run_error(e->r, QE_BAIL, "%s", q_run_errmsg(p->r));
  }
  return SQLITE_OK;
}

/* Work in parallel (requirement 7)? */
static int parallel(const qplan *pl, int nThread){
  if( !pl->grouped || nThread<2 ) return 0;
  if( pl->iHit>=0 && SHOWN(pl) ) return 0;
  return 1;
}

/* ---- FROM a subquery (requirement 10) --------------------------------------------- */

int q_with_twice(const char *z){
  int n = 0, i;
  for(i=0; z[i] && n<2; i++){
    if( sqlite3_strnicmp(z + i, "with", 4)==0 && (i==0 || !(isalnum((unsigned char)z[i-1]) || z[i-1]=='_'))
     && !(isalnum((unsigned char)z[i+4]) || z[i+4]=='_') ){
      n++;
    }
  }
  return n>1;
}

int qxSubRows(sqlite3_vtab *vt, sqlite3 *db, const qplan *pl, int keep, ga_colsink *sink, int64_t *pnScan,
              char **pzErr){
  qresult sr;
  const qresult *pr;
  ga_colvec aCol[GA_COLS_MAX];
  unsigned char *aT = 0;
  int64_t *aV = 0, g;
  ga_cell *aCell = 0;
  int c, i, rc = SQLITE_OK, once;
  const qselect *sub = pl->pSub->s;
  char *zText = 0;
  memset(&sr, 0, sizeof(sr));
  keep = keep || q_table_keeps_sub(vt);
  if( sub->zRowsKey ? (zText = sqlite3_mprintf("%s", sub->zRowsKey))==0
                    : sub->end>sub->at && (zText = sqlite3_mprintf("%.*s", sub->end - sub->at, sub->zSql + sub->at))==0 ){
    return SQLITE_NOMEM;
  }
  /* its rows read already in this read (the text has no parameter: q_table_subrows), else read, and
  ** its compiled plan kept with the table's by its text, as IN's and a scalar subquery's: TPC-H Q15's
  ** WITH table, read for max() and for the join, is read once and keeps one */
  pr = 0;
  once = zText && sub->nParam==0 && strpbrk(zText, "?:@$")==0 && !q_with_twice(sub->zSql);
  if( once && (pr = q_table_subrows(vt, zText))!=0 ){
    for(c=0; c<pl->nCol && pl->aiCol[c]<pr->nCol; c++){}
    if( c<pl->nCol ) pr = 0;           /* (never: one text, one plan, its results) */
  }
  if( pr==0 ){
    double t0 = ga_now_ms();
    rc = q_exec(vt, db, pl->pSub, keep, keep && zText ? q_table_subkept(vt, zText) : 0, keep && zText ? zText : "",
                &sr, pzErr);
    if( rc==SQLITE_OK ){
      q_table_scanned(vt, sr.nScan);
      q_table_sub_ran(vt, &sr, ga_now_ms() - t0);
      if( !once || (pr = q_table_subrows_keep(vt, zText, &sr))==0 ) pr = &sr;
    }
  }
  ga_free(zText);
  if( rc!=SQLITE_OK ) goto done;
  *pnScan = pr->nScan;
  aT = ga_malloc64((uint64_t)(pl->nCol + 1)*GA_BATCH);   /* (count(*) alone reads none) */
  aV = ga_malloc64(8*(uint64_t)(pl->nCol + 1)*GA_BATCH);
  aCell = ga_malloc64(sizeof(ga_cell)*(uint64_t)(pl->nCol + 1)*GA_BATCH);
  if( aT==0 || aV==0 || aCell==0 ){ rc = SQLITE_NOMEM; goto done; }
  memset(aCell, 0, sizeof(ga_cell)*(size_t)pl->nCol*GA_BATCH);
  for(g=0; g<pr->nRow && rc==SQLITE_OK; g+=GA_BATCH){
    ga_colbatch b;
    memset(&b, 0, sizeof(b));
    b.pos = g;
    b.n = (int)(pr->nRow - g<GA_BATCH ? pr->nRow - g : GA_BATCH);
    b.nCol = pl->nCol;
    b.col = aCol;
    for(c=0; c<pl->nCol; c++){
      unsigned char *t = aT + (size_t)c*GA_BATCH;
      int64_t *v = aV + (size_t)c*GA_BATCH;
      ga_cell *cl = aCell + (size_t)c*GA_BATCH;
      for(i=0; i<b.n; i++){
        const qval *x = &pr->a[(g + i)*pr->nCol + pl->aiCol[c]];
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
    rc = sink->xBatch(sink, &b);
  }
done:
  ga_free(aT);
  ga_free(aV);
  ga_free(aCell);
  q_result_free(&sr);
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
    return qxCompound(vt, db, pl, keep, r, pzErr);
  }
  memset(&e, 0, sizeof(e));
  memset(r, 0, sizeof(*r));
  *pzErr = 0;
  e.base.xBatch = sinkBatch;
  e.xBatch = qxBatchInto;
  e.xRows = qxRowsInto;
  e.xSubRows = qxSubRows;
  if( pl->nLate ){
    e.base.xFilter = sinkFilter;
    e.base.aLate = pl->aLate;
  }
  e.pl = pl;
  e.out = r;
  e.nW = pl->nOut + pl->nSort;
  rc = qxPartInit(&e.main, pl, q_run_new(db, pl));
  r->run = e.r = e.main.r;
  if( rc ) goto fail;
  q_run_set_threads(e.r, conn->threads);       /* (compile.c's rowEval) */
  if( pl->pSub ){
    /* FROM a subquery: its rows, as batches */
    t1 = ga_now_ms();
    if( (rc = qxSubRows(vt, db, pl, keep, &e.base, &r->nScan, pzErr))!=SQLITE_OK ){
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
    if( (rc = qxBatchInto(&e, &e.main, &one, 0))!=SQLITE_OK ) goto fail;
    r->nScan = 1;
    r->aMs[2] = ga_now_ms() - t1;
    goto finish;
  }
  qxSomeColumn(pl);
  if( (rc = qxKeptRun(&e, vt, pl, keep, kc, zParams, r, &done, pzErr))!=SQLITE_OK ){
    if( *pzErr==0 ) goto fail;       /* (QE_BAIL with *pzErr: a join's build, as below) */
    goto done;
  }
  if( !done && (rc = qxKeptOrder(&e, vt, pl, keep, kc, zParams, r, &done, pzErr))!=SQLITE_OK ){
    if( *pzErr==0 ) goto fail;       /* (QE_BAIL with *pzErr: a join's build) */
    goto done;
  }
  if( done ) goto finish;
  t1 = ga_now_ms();
  hold = qxOrderable(pl, &lim, &off) && !pl->distinct;
  e.rowsPar = !pl->grouped && !hold && !pl->distinct && conn->threads>1;
  if( parallel(pl, conn->threads) || (hold && conn->threads>1) || e.rowsPar ){
    int n = conn->threads;
    if( (e.aPart = ga_malloc64(sizeof(Part)*(uint64_t)n))==0 ){ rc = SQLITE_NOMEM; goto fail; }
    memset(e.aPart, 0, sizeof(Part)*(size_t)n);
    for(w=0; w<n; w++){
      qrun *wr = q_run_new(db, pl);
      e.nPart = w + 1;
      if( (rc = qxPartInit(&e.aPart[w], pl, wr))!=SQLITE_OK ) goto fail;
      q_run_worker(wr);
    }
    e.base.xPar = sinkPar;
    e.base.nPar = n;
  }
  if( pl->nJoin && e.aJt==0 && (rc = qxJoinBuild(&e, vt, db, keep, pzErr))!=SQLITE_OK ){   /* a join: its tables
                                                                                        ** (12; 8 may have) */
    if( *pzErr==0 ) goto fail;
    goto done;
  }
  if( pl->nJoin && (rc = qxJoinIndex(&e))!=SQLITE_OK ) goto fail;   /* (made once the operators here need them) */
  for(w=-1; hold && w<e.nPart; w++){
    Part *p = w<0 ? &e.main : &e.aPart[w];
    if( (p->held = ga_malloc64(sizeof(Held)))==0 ){ rc = SQLITE_NOMEM; goto fail; }
    memset(p->held, 0, sizeof(Held));
    p->held->nCol = pl->nCol;
    if( lim + off<=Q_TOP ){                  /* a top: rows not among the first held are left out */
      p->held->keep = lim + off;
      p->held->desc = pl->aSortDesc[0];
      p->held->nullsFirst = qxNullsFirst(pl, 0);
    }
  }
  /* The table's pages (else a statement), kept as the workers read them for
  ** the next read where 8 may serve it (its kept columns were 8's to read,
  ** but while the device is being readied: r->keptHost); else its kept
  ** columns where it has them (qxKeptRecord). */
  if( (rc = ga_source_open(((ga_vtab*)vt)->db, conn, "gpu_query", &pl->src, pl->nCol, pl->aiCol, pl->aWant,
                            r->keptHost ? GA_SRC_CACHE : qxKeptRecord(conn, pl, keep || q_table_keeps_sub(vt)),
                            &src, pzErr))!=SQLITE_OK ){
    goto done;
  }
  rc = src->xScan(src, &e.base);
  for(w=0; w<e.nPart && rc==SQLITE_OK; w++) rc = e.aPart[w].rc;
  if( rc!=SQLITE_OK && notSameAnywhere(&e)!=SQLITE_OK ){ rc = QE_BAIL; goto fail; }
  if( rc!=SQLITE_OK ){
    if( e.rc==rc ) goto fail;       /* the sink's own */
    *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : src->xErrmsg(src));
    goto done;
  }
  r->nScan = e.main.nRow;
  for(w=0; w<e.nPart; w++) r->nScan += e.aPart[w].nRow;
  if( hold ) rc = qxHeldRows(&e);
  else if( e.rowsPar ) rc = qxRowsMerge(&e);
  else rc = qxPartsMerge(&e);
  if( rc!=SQLITE_OK && notSameAnywhere(&e)!=SQLITE_OK ) rc = QE_BAIL;
  if( rc!=SQLITE_OK ) goto fail;
  r->aMs[2] = ga_now_ms() - t1;
finish:
  t1 = ga_now_ms();
  if( pl->grouped && (rc = qxGroupsToRows(&e))!=SQLITE_OK ) goto fail;
  if( (rc = qxFinish(&e))!=SQLITE_OK ) goto fail;
  r->aMs[3] = ga_now_ms() - t1;
  (void)t0;
  goto done;
fail:
  *pzErr = sqlite3_mprintf("%s", e.r ? q_run_errmsg(e.r) : "out of memory");
done:
  if( src ) src->xClose(src);
  qxJoinFree(&e);
  for(w=0; w<e.nPart; w++) qxPartDone(&e.aPart[w], pl, 1);
  ga_free(e.aPart);
  ga_free(e.gRank);
  qxKeySetFree(&e.rows);
  qxPartDone(&e.main, pl, 0);
  return rc;
}

void qxPartDone(Part *p, const qplan *pl, int freeRun){
  qxHeldFree(p->held);
  p->held = 0;
  ga_free(p->aRowV);
  ga_free(p->aChunk);
  qxJoinScratchFree(p);
  qxPartFree(p, pl, freeRun);
}

void q_result_free(qresult *r){
  ga_free(r->a);
  ga_free(r->zKeptWhy);
  q_run_free(r->run);
  memset(r, 0, sizeof(*r));
}
