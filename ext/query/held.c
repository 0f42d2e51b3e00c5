/*
** gpu_query's CPU operators (exec.c's requirement 11): rows ordered by one
** term with a LIMIT, held by the scan (its workers too) as the term's value
** and their columns', and only the window's rows made result rows.
*/
#include "execint.h"

/* pl is rows ordered by one term with a LIMIT keptOrder serves: its limit
** and offset into *pLim and *pOff. */
int qxOrderable(const qplan *pl, int64_t *pLim, int64_t *pOff){
  const qselect *s = pl->s;
  if( pl->grouped || pl->distinct || pl->nSort!=1 || pl->isArm || pl->pSub || s->zFrom==0 || s->pLimit==0
   || pl->tieBail ) return 0;
  if( s->pLimit->op!=E_LIT || s->pLimit->t!=SQLITE_INTEGER || s->pLimit->i<1 || s->pLimit->i>Q_ORDER_MAX ) return 0;
  *pLim = s->pLimit->i;
  *pOff = 0;
  if( s->pOffset && s->pOffset!=s->pLimit ){
    if( s->pOffset->op!=E_LIT || s->pOffset->t!=SQLITE_INTEGER ) return 0;
    *pOff = s->pOffset->i<0 ? 0 : s->pOffset->i;
  }
  return 1;
}

void qxHeldFree(Held *h){
  if( h==0 ) return;
  ga_free(h->kt); ga_free(h->kv);
  ga_free(h->ct); ga_free(h->cv);
  ga_free(h->pos); ga_free(h->cell);
  ga_free(h->bAt);
  ga_free(h);
}

/* Room in h for need rows. */
static int heldGrow(Held *h, int64_t need){
  int64_t n = h->alloc ? 2*h->alloc : 4096;
  void *a[5];
  int k;
  if( need<=h->alloc ) return SQLITE_OK;
  while( n<need ) n *= 2;
  a[0] = ga_realloc64(h->kt, (uint64_t)n);
  if( a[0] ) h->kt = a[0];
  a[1] = ga_realloc64(h->kv, 8*(uint64_t)n);
  if( a[1] ) h->kv = a[1];
  a[2] = ga_realloc64(h->ct, (uint64_t)n*(uint64_t)(h->nCol + 1));
  if( a[2] ) h->ct = a[2];
  a[3] = ga_realloc64(h->cv, 8*(uint64_t)n*(uint64_t)(h->nCol + 1));
  if( a[3] ) h->cv = a[3];
  a[4] = ga_realloc64(h->pos, 8*(uint64_t)n);
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
  HeldRank *r = ga_malloc64(sizeof(HeldRank)*(uint64_t)(h->n + 1));
  int64_t *keepI = ga_malloc64(8*(uint64_t)(h->keep + 1)), i, j;
  int c;
  if( r==0 || keepI==0 ){
    ga_free(r);
    ga_free(keepI);
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
  qsort(keepI, (size_t)h->keep, sizeof(int64_t), qxCmpU64);   /* (indexes are not negative) */
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
  ga_free(r);
  ga_free(keepI);
  return SQLITE_OK;
}

/* ctx's rows (the filter's) held by part p: the term's value, the columns
** copied (TEXT and BLOB bytes kept by p's run). On a worker, nothing is
** changed before the term is evaluated (a value that needs SQLite hands
** the batch to the scan's thread). */
int qxHoldRows(Exec *e, Part *p, const qctx *ctx){
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
    int64_t *a = ga_realloc64(h->bAt, 8*(uint64_t)n);
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
      if( (t==SQLITE_TEXT || t==SQLITE_BLOB) && !(pl->aWant[c] & GA_COL_BYTES) ){
        t = SQLITE_NULL;                  /* a column read for its rows alone (no result reads it:
                                          ** q_exec's for a SELECT of no column): no bytes */
        x = 0;
      }else if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
        const ga_cell *src = &b->col[c].cell[x];
        ga_cell *d;
        if( h->nCell>=h->cellAlloc ){
          int64_t n = h->cellAlloc ? 2*h->cellAlloc : 1024;
          ga_cell *a = ga_realloc64(h->cell, sizeof(ga_cell)*(uint64_t)n);
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
  if( (x->aRun = ga_malloc64(sizeof(HeldRun)*(uint64_t)(nRun + 1)))==0
   || (x->aStart = ga_malloc64(8*(uint64_t)(nRun + 1)))==0 ){
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
  ga_free(x->aRun);
  ga_free(x->aStart);
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
  unsigned char *aT = ga_malloc64((uint64_t)(nCol + 1)*GA_BATCH);
  int64_t *aV = ga_malloc64(8*(uint64_t)(nCol + 1)*GA_BATCH), i;
  ga_cell *aCell = ga_malloc64(sizeof(ga_cell)*(uint64_t)(nCol + 1)*GA_BATCH);
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
    rc = e->xBatch(e, &e->main, &b, 0);
  }
  ga_free(aT);
  ga_free(aV);
  ga_free(aCell);
  return rc;
}

/* After the scan: the window's rows (OFFSET spent), or, where a term is
** not a number or NULL, every held row (finish orders them all). The
** parts keep their rows until the result rows are made. */
int qxHeldRows(Exec *e){
  HeldView x;
  qseg *aSeg = 0;
  int64_t lim, off, *idx = 0, n, i;
  int rc, k;
  Part *aP[1 + 64];
  if( (rc = heldView(e, &x))!=SQLITE_OK ) goto done;
  qxOrderable(e->pl, &lim, &off);
  n = x.aStart[x.nRun] - off<lim ? x.aStart[x.nRun] - off : lim;
  if( n<=0 ){
    e->offDone = 1;
    goto done;
  }
  if( (aSeg = ga_malloc64(sizeof(qseg)*(uint64_t)(x.nRun + 1)))==0
   || (idx = ga_malloc64(8*(uint64_t)n))==0 ){
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
  rc = q_order_segs(aSeg, (int)x.nRun, e->pl->aSortDesc[0], qxNullsFirst(e->pl, 0), off, n, idx);
  if( rc==SQLITE_OK ){
    qsort(idx, (size_t)n, sizeof(int64_t), qxCmpU64);   /* in scan order (finish orders them) */
    rc = heldReplay(e, &x, idx, n);
    e->offDone = 1;
  }else if( rc==SQLITE_DONE ){
    rc = heldReplay(e, &x, 0, x.aStart[x.nRun]);
  }
  for(k=0; k<x.nH; k++) aP[k]->held = x.aH[k];   /* (freed with the parts) */
done:
  heldViewFree(&x);
  ga_free(aSeg);
  ga_free(idx);
  return rc;
}
