/*
** gpu_query's CPU operators (exec.c's requirement 12): a join's hash joins.
** The scan's table probes the others, one after another in the plan's
** order (plan.c, 9), in the scan's workers as the rest of the pipeline.
**
**   1. Build, before the scan, on the scan's thread: each joined table's
**      rows are read by its own plan (its columns the query reads, its own
**      conjuncts applied: a scan of its own, in workers too), then each
**      row's key is made from the sides of its equalities over its columns:
**      each value with the equality's affinity applied (as OP_Eq applies
**      it to both operands, eval.c 2), then made canonical under the
**      equality's collation (as GROUP BY's keys: an integral REAL is its
**      integer, TEXT by its collation's key), the values one after the
**      other. A row with a NULL in its key matches nothing. The keys go
**      into a hash table of chains (a row per key and duplicates: they
**      multiply rows, as SQL's join does).
**   2. Probe, per batch: the rows the scan's own conjuncts kept are the
**      joined rows so far; for each joined table in turn, each joined
**      row's key is made from the other sides of the equalities (over the
**      columns joined so far) the same way, and the row is followed by each
**      of the table's rows with the same key; a row with none is dropped,
**      or, for a LEFT JOIN, followed by a row of NULLs. Joined rows are
**      kept as their sources' row numbers (the batch's row, each table's
**      row): only the columns an equality reads are gathered for it, and
**      every column once at the end, a batch at a time, for the conjuncts
**      over the joined rows (aPost) and the rest of the pipeline.
**   3. A worker whose batch joins into more than a batch of rows gives it
**      back to the scan's thread (GA_SINK_LATER) before changing anything:
**      the rest of the pipeline takes one batch whole or not at all.
**   4. Positions: joined rows take their batch's positions in order. They
**      decide nothing: a join's plan is strict (exec.c, 12).
*/
#include "execint.h"

/* A joined table: its rows (by its build plan) and their keys. */
typedef struct JoinTab {
  const qjoin *q;                  /* the plan's */
  qresult rows;                    /* its rows (their bytes its build run's) */
  unsigned char **aT;              /* its columns, q->nCol: each row's class */
  int64_t **aV;                    /* ... value (TEXT, BLOB: the row's cell) */
  ga_cell **aCell;                 /* ... TEXT and BLOB bytes */
  const char **azKey; int *anKey;  /* each row's canonical key (NULL: it matches no row) */
  uint64_t *aHash;                 /* ... and its hash */
  int64_t *aNext;                  /* the next row in its slot's chain (-1: none) */
  int64_t *aSlot; uint64_t mask;   /* each slot's first row (-1: none), and slots - 1 */
  int aProbeCol[GA_COLS_MAX];      /* the columns (joined row's places) its equalities' other sides
                                   ** read */
  int nProbeCol;
} JoinTab;

/* A part's joined rows being made. */
typedef struct JoinScratch {
  int64_t *aSrc[2];                /* two generations of joined rows: [s*nAlloc + i], source s of
                                   ** row i (0: the batch's row; k+1: join k's row, -1 NULLs) */
  int64_t nAlloc;                  /* ... rows each has room for */
  ga_colvec *aCol;                 /* a gathered batch's columns (Q_JCOL0 + nJCol) */
  unsigned char *aT; int64_t *aV;  /* ... their classes and values: GA_BATCH a column, by slot */
  int *aSlot;                      /* ... each joined row place's slot (-1: not gathered) */
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
** sides, into p->kbuf (*pn bytes); *pHas 0 where a value is NULL (the row
** matches nothing). */
static int keyOfRow(Part *p, const qjoin *q, qvec **aX, int i, int *pn, int *pHas){
  int j, rc;
  *pn = 0;
  *pHas = 0;
  for(j=0; j<q->nEq; j++){
    const qexpr *eq = q->aEq[j];
    qval x;
    q_get(aX[j], i, &x);
    if( x.t==SQLITE_NULL ) return SQLITE_OK;
    if( eq->cmpAff>=0 && (rc = q_apply_aff(p->r, eq->cmpAff, &x))!=SQLITE_OK ) return rc;
    if( (rc = qxKeyOf(p, &x, eq->cmpColl, pn))!=SQLITE_OK ) return rc;
  }
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

/* Join table jt's rows as columns, its keys made and hashed (1). */
static int buildTable(Exec *e, JoinTab *jt){
  const qjoin *q = jt->q;
  const qresult *o = &jt->rows;
  Part *p = &e->main;
  int64_t n = o->nRow, r, s;
  int c, j, rc = SQLITE_OK;
  ga_colvec *aCol = 0;
  uint64_t nSlot = 16;
  jt->aT = sqlite3_malloc64(sizeof(void*)*(uint64_t)(q->nCol + 1));
  jt->aV = sqlite3_malloc64(sizeof(void*)*(uint64_t)(q->nCol + 1));
  jt->aCell = sqlite3_malloc64(sizeof(void*)*(uint64_t)(q->nCol + 1));
  if( jt->aT==0 || jt->aV==0 || jt->aCell==0 ) return SQLITE_NOMEM;
  memset(jt->aT, 0, sizeof(void*)*(size_t)(q->nCol + 1));
  memset(jt->aV, 0, sizeof(void*)*(size_t)(q->nCol + 1));
  memset(jt->aCell, 0, sizeof(void*)*(size_t)(q->nCol + 1));
  for(c=0; c<q->nCol; c++){
    if( (jt->aT[c] = sqlite3_malloc64((uint64_t)n + 1))==0 || (jt->aV[c] = sqlite3_malloc64(8*(uint64_t)n + 8))==0
     || (jt->aCell[c] = sqlite3_malloc64(sizeof(ga_cell)*(uint64_t)n + sizeof(ga_cell)))==0 ) return SQLITE_NOMEM;
    for(r=0; r<n; r++){
      const qval *x = &o->a[r*o->nCol + c];
      jt->aT[c][r] = (unsigned char)x->t;
      jt->aV[c][r] = x->v;
      if( x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ){
        memset(&jt->aCell[c][r], 0, sizeof(ga_cell));
        jt->aCell[c][r].z = x->z;
        jt->aCell[c][r].n = x->n;
        jt->aV[c][r] = r;
      }
    }
  }
  while( nSlot<2*(uint64_t)n ) nSlot *= 2;
  jt->mask = nSlot - 1;
  jt->azKey = sqlite3_malloc64(sizeof(char*)*(uint64_t)n + 8);
  jt->anKey = sqlite3_malloc64(sizeof(int)*(uint64_t)n + 8);
  jt->aHash = sqlite3_malloc64(8*(uint64_t)n + 8);
  jt->aNext = sqlite3_malloc64(8*(uint64_t)n + 8);
  jt->aSlot = sqlite3_malloc64(8*nSlot);
  aCol = sqlite3_malloc64(sizeof(ga_colvec)*(uint64_t)(Q_JCOL0 + e->pl->nJCol));
  if( jt->azKey==0 || jt->anKey==0 || jt->aHash==0 || jt->aNext==0 || jt->aSlot==0 || aCol==0 ){
    sqlite3_free(aCol);
    return SQLITE_NOMEM;
  }
  memset(jt->aSlot, 0xff, 8*nSlot);
  memset(aCol, 0, sizeof(ga_colvec)*(size_t)(Q_JCOL0 + e->pl->nJCol));
  /* keys, a batch of rows at a time: the equalities' sides over this
  ** table, evaluated over its columns where the joined row has them */
  for(s=0; s<n && rc==SQLITE_OK; s+=GA_BATCH){
    ga_colbatch b;
    qctx ctx;
    qvec *aX[Q_MAXKEY];
    int m = (int)(n - s<GA_BATCH ? n - s : GA_BATCH), i;
    for(c=0; c<q->nCol; c++){
      ga_colvec *v = &aCol[Q_JCOL0 + q->iCol0 + c];
      v->type = jt->aT[c] + s;
      v->v = jt->aV[c] + s;
      v->cell = jt->aCell[c];
    }
    memset(&b, 0, sizeof(b));
    b.n = m;
    b.nCol = Q_JCOL0 + e->pl->nJCol;
    b.col = aCol;
    memset(&ctx, 0, sizeof(ctx));
    ctx.b = &b;
    ctx.n = m;
    for(j=0; j<q->nEq && rc==SQLITE_OK; j++) rc = q_eval(p->r, sideOf(q, j, 1), &ctx, &aX[j]);
    for(i=0; i<m && rc==SQLITE_OK; i++){
      int nk, has;
      r = s + i;
      if( (rc = keyOfRow(p, q, aX, i, &nk, &has))!=SQLITE_OK ) break;
      jt->azKey[r] = 0;
      jt->anKey[r] = 0;
      if( !has ) continue;
      if( (jt->azKey[r] = q_keep(p->r, p->kbuf, nk))==0 ){ rc = SQLITE_NOMEM; break; }
      jt->anKey[r] = nk;
      jt->aHash[r] = qxHashKey(p->kbuf, nk);
    }
  }
  sqlite3_free(aCol);
  if( rc ) return rc;
  for(r=n-1; r>=0; r--){              /* chains in the table's order */
    uint64_t h;
    if( jt->azKey[r]==0 ) continue;
    h = jt->aHash[r] & jt->mask;
    jt->aNext[r] = jt->aSlot[h];
    jt->aSlot[h] = r;
  }
  for(j=0; j<q->nEq; j++) colsOf(sideOf(q, j, 0), jt->aProbeCol, &jt->nProbeCol);
  return SQLITE_OK;
}

int qxJoinBuild(Exec *e, sqlite3_vtab *vt, sqlite3 *db, int keep, char **pzErr){
  const qplan *pl = e->pl;
  int k, rc;
  if( (e->aJt = sqlite3_malloc64(sizeof(JoinTab)*(uint64_t)pl->nJoin))==0 ) return SQLITE_NOMEM;
  memset(e->aJt, 0, sizeof(JoinTab)*(size_t)pl->nJoin);
  for(k=0; k<pl->nJoin; k++){
    JoinTab *jt = &e->aJt[k];
    jt->q = &pl->aJoin[k];
    if( (rc = q_exec(vt, db, jt->q->pBuild, keep, 0, "", &jt->rows, pzErr))!=SQLITE_OK ){
      if( rc==QE_BAIL && *pzErr ){
        char *z = sqlite3_mprintf("the join's table %s: %s", jt->q->zQual, *pzErr);
        sqlite3_free(*pzErr);
        *pzErr = z;
      }
      return rc;
    }
    if( (rc = buildTable(e, jt))!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}

void qxJoinFree(Exec *e){
  int k, c;
  for(k=0; e->aJt && k<e->pl->nJoin; k++){
    JoinTab *jt = &e->aJt[k];
    for(c=0; jt->q && c<jt->q->nCol; c++){
      if( jt->aT ) sqlite3_free(jt->aT[c]);
      if( jt->aV ) sqlite3_free(jt->aV[c]);
      if( jt->aCell ) sqlite3_free(jt->aCell[c]);
    }
    sqlite3_free(jt->aT); sqlite3_free(jt->aV); sqlite3_free(jt->aCell);
    sqlite3_free(jt->azKey); sqlite3_free(jt->anKey); sqlite3_free(jt->aHash);
    sqlite3_free(jt->aNext); sqlite3_free(jt->aSlot);
    q_result_free(&jt->rows);
  }
  sqlite3_free(e->aJt);
  e->aJt = 0;
}

void qxJoinScratchFree(Part *p){
  JoinScratch *js = p->js;
  if( js==0 ) return;
  sqlite3_free(js->aSrc[0]);
  sqlite3_free(js->aSrc[1]);
  sqlite3_free(js->aCol);
  sqlite3_free(js->aT);
  sqlite3_free(js->aV);
  sqlite3_free(js->aSlot);
  sqlite3_free(js);
  p->js = 0;
}

/* p's scratch, made the first time: the gathered batch's room for every
** column of the scan's table and of the joined ones. */
static JoinScratch *scratch(Exec *e, Part *p){
  const qplan *pl = e->pl;
  JoinScratch *js = p->js;
  int nPlace = Q_JCOL0 + pl->nJCol, nSlot = pl->nCol, k, c;
  if( js ) return js;
  for(k=0; k<pl->nJoin; k++) nSlot += pl->aJoin[k].nCol;
  if( (js = p->js = sqlite3_malloc(sizeof(JoinScratch)))==0 ) return 0;
  memset(js, 0, sizeof(*js));
  js->aCol = sqlite3_malloc64(sizeof(ga_colvec)*(uint64_t)nPlace);
  js->aSlot = sqlite3_malloc64(sizeof(int)*(uint64_t)nPlace);
  js->aT = sqlite3_malloc64((uint64_t)GA_BATCH*(uint64_t)(nSlot + 1));
  js->aV = sqlite3_malloc64(8*(uint64_t)GA_BATCH*(uint64_t)(nSlot + 1));
  if( js->aCol==0 || js->aSlot==0 || js->aT==0 || js->aV==0 ){
    qxJoinScratchFree(p);
    return 0;
  }
  memset(js->aCol, 0, sizeof(ga_colvec)*(size_t)nPlace);
  for(c=0; c<nPlace; c++) js->aSlot[c] = -1;
  for(c=0, nSlot=0; c<pl->nCol; c++) js->aSlot[c] = nSlot++;
  for(k=0; k<pl->nJoin; k++){
    for(c=0; c<pl->aJoin[k].nCol; c++) js->aSlot[Q_JCOL0 + pl->aJoin[k].iCol0 + c] = nSlot++;
  }
  return js;
}

/* Room for n joined rows of nSrc sources in generation g. */
static int roomFor(JoinScratch *js, int64_t n, int nSrc){
  if( n>js->nAlloc ){
    int64_t m = js->nAlloc ? 2*js->nAlloc : 2*GA_BATCH, g;
    while( m<n ) m *= 2;
    for(g=0; g<2; g++){
      int64_t *a = sqlite3_malloc64(8*(uint64_t)m*(uint64_t)nSrc), s;
      if( a==0 ) return SQLITE_NOMEM;
      for(s=0; js->aSrc[g] && s<nSrc; s++) memcpy(a + s*m, js->aSrc[g] + s*js->nAlloc, 8*(size_t)js->nAlloc);
      sqlite3_free(js->aSrc[g]);
      js->aSrc[g] = a;
    }
    js->nAlloc = m;
  }
  return SQLITE_OK;
}

/* Gather place c (a column of the scan's table or a joined one) of joined
** rows [i0, i0+m) of generation g into the scratch batch. */
static void gather(Exec *e, JoinScratch *js, const ga_colbatch *b, const int64_t *src, int c, int64_t i0, int m){
  unsigned char *t = js->aT + (size_t)js->aSlot[c]*GA_BATCH;
  int64_t *v = js->aV + (size_t)js->aSlot[c]*GA_BATCH;
  ga_colvec *o = &js->aCol[c];
  int i;
  if( c<Q_JCOL0 ){
    const ga_colvec *x = &b->col[c];
    const int64_t *r = src + i0;
    for(i=0; i<m; i++){ t[i] = x->type[r[i]]; v[i] = x->v[r[i]]; }
    o->cell = x->cell;
  }else{
    int k = (c - Q_JCOL0)/GA_COLS_MAX, cc = (c - Q_JCOL0)%GA_COLS_MAX;
    const JoinTab *jt = &e->aJt[k];
    const int64_t *r = src + (int64_t)(k + 1)*js->nAlloc + i0;
    for(i=0; i<m; i++){
      if( r[i]<0 ){ t[i] = SQLITE_NULL; v[i] = 0; }
      else{ t[i] = jt->aT[cc][r[i]]; v[i] = jt->aV[cc][r[i]]; }
    }
    o->cell = jt->aCell[cc];
  }
  o->type = t;
  o->v = v;
}

int qxJoinProbe(Exec *e, Part *p, const ga_colbatch *b, const qctx *ctx, int worker){
  const qplan *pl = e->pl;
  JoinScratch *js = scratch(e, p);
  int64_t m = ctx->n, i0, i;
  int k, g = 0, rc, c;
  ga_colbatch jb;
  if( js==0 || (rc = roomFor(js, m, pl->nJoin + 1))!=SQLITE_OK ) return SQLITE_NOMEM;
  for(i=0; i<m; i++) js->aSrc[0][i] = ctx->sel ? ctx->sel[i] : i;
  memset(&jb, 0, sizeof(jb));
  jb.nCol = Q_JCOL0 + pl->nJCol;
  jb.col = js->aCol;
  jb.pos = b->pos;
  /* each joined table in turn (2) */
  for(k=0; k<pl->nJoin && m>0; k++){
    const JoinTab *jt = &e->aJt[k];
    const qjoin *q = jt->q;
    int64_t m2 = 0;
    for(i0=0; i0<m; i0+=GA_BATCH){
      int n = (int)(m - i0<GA_BATCH ? m - i0 : GA_BATCH), i1, j;
      qvec *aX[Q_MAXKEY];
      qctx cx;
      for(c=0; c<jt->nProbeCol; c++) gather(e, js, b, js->aSrc[g], jt->aProbeCol[c], i0, n);
      jb.n = n;
      memset(&cx, 0, sizeof(cx));
      cx.b = &jb;
      cx.n = n;
      for(j=0; j<q->nEq; j++){
        if( (rc = q_eval(p->r, sideOf(q, j, 0), &cx, &aX[j]))!=SQLITE_OK ) return rc;
      }
      for(i1=0; i1<n; i1++){
        int nk, has, hit = 0, any = 0;
        int64_t r;
        uint64_t h = 0;
        if( (rc = keyOfRow(p, q, aX, i1, &nk, &has))!=SQLITE_OK ) return rc;
        r = -1;
        if( has ){
          h = qxHashKey(p->kbuf, nk);
          for(r=jt->aSlot[h & jt->mask]; r>=0; r=jt->aNext[r]){
            if( jt->aHash[r]!=h || jt->anKey[r]!=nk || memcmp(jt->azKey[r], p->kbuf, (size_t)nk) ) continue;
            hit = 1;
            break;
          }
        }
        while( hit || (!any && q->left) ){
          int s;
          if( (rc = roomFor(js, m2 + 1, pl->nJoin + 1))!=SQLITE_OK ) return rc;
          for(s=0; s<=k; s++) js->aSrc[1 - g][s*js->nAlloc + m2] = js->aSrc[g][s*js->nAlloc + i0 + i1];
          js->aSrc[1 - g][(int64_t)(k + 1)*js->nAlloc + m2] = hit ? r : -1;
          m2++;
          if( !hit ) break;
          any = 1;
          /* the chain's next row of the same key */
          for(r=jt->aNext[r]; r>=0; r=jt->aNext[r]){
            if( jt->aHash[r]==h && jt->anKey[r]==nk && memcmp(jt->azKey[r], p->kbuf, (size_t)nk)==0 ) break;
          }
          hit = r>=0;
        }
      }
    }
    g = 1 - g;
    m = m2;
  }
  if( m>GA_BATCH && worker ) return GA_SINK_LATER;   /* (3) */
  /* the joined rows, a batch at a time: every column gathered, the
  ** conjuncts over them, the rest of the pipeline */
  for(i0=0; i0<m; i0+=GA_BATCH){
    int n = (int)(m - i0<GA_BATCH ? m - i0 : GA_BATCH), sel[GA_BATCH];
    qctx cx;
    for(c=0; c<pl->nCol; c++) gather(e, js, b, js->aSrc[g], c, i0, n);
    for(k=0; k<pl->nJoin; k++){
      for(c=0; c<pl->aJoin[k].nCol; c++) gather(e, js, b, js->aSrc[g], Q_JCOL0 + pl->aJoin[k].iCol0 + c, i0, n);
    }
    jb.n = n;
    memset(&cx, 0, sizeof(cx));
    cx.b = &jb;
    cx.n = n;
    if( (rc = qxFilter(p, pl->aPost, pl->nPost, &cx, sel))!=SQLITE_OK ) return rc;
    if( cx.n && (rc = qxRowsInto(e, p, &jb, &cx, worker))!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}
