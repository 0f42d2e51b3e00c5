/*
** The page column source (colsrc.h): a rowid table's b-tree read from the
** database file's pages in bulk, without SQLite's row loop.
**
**   1. It serves a plain rowid table (not a view, a virtual table or a
**      WITHOUT ROWID table) of a UTF-8 database file that snap.c can read
**      exactly in the caller's transaction, and columns that are stored
**      (not VIRTUAL generated ones). Otherwise ga_colsrc_pages refuses with
**      a reason, and the caller uses the statement source.
**   2. Rows come in rowid order, as a full scan of the table gives them, with
**      the values SELECT gives (record.h): the two sources hand over the same
**      batches.
**   3. Leaves are read in segments by this thread (SQLite's file handle is
**      not for several threads) and decoded by up to `threads` worker threads
**      (gpuagg_config); this thread hands the segments over in order. Where
**      SQLite maps the file (mmap_size), leaves are not copied: the workers
**      read them in SQLite's mapping (snap.h). Where it maps only part of
**      the file (mmap_size, or its 2 GiB ceiling), each worker reads the
**      file's copies of the leaves beyond on a handle of its own (snap.h, 6),
**      where such handles can be proven, so that this thread does not copy
**      them all (gpuagg_info's pages_read counts them). A
**      segment's values that only SQL can give (a column's DEFAULT in records
**      older than the column, rows whose overflow pages a worker met or that
**      are not proven, the number of unusual TEXT) are read here through SQL,
**      in the same transaction, before the segment is handed over.
**   3a. Where the connection does not map the file (mmap_size 0, the
**      default) and gpuagg_config('map') is 1 (the default), the scan maps it on the file handle for its own duration
**      (SQLITE_FCNTL_MMAP_SIZE, set back to 0 when it ends, every page handed
**      back): leaves are then not copied by this thread, which would bound
**      the scan at one core's copying speed. SQLite's pager, whose own limit
**      is unchanged, reads as before (the same bytes).
**   3b. Each segment's rows are counted (its leaves' cells) before it is
**      decoded, so that a batch says where its rows are in the scan
**      (ga_colbatch.at1) once every segment before its own is counted:
**      the column cache then records the rows in their places (cache.c,
**      4d). nRowMax bounds the rows by the leaves' room.
**   4. Interior pages are read when the source opens, and every page's copy
**      checked, so that a table whose pages are not proven (snap.h, 4) is
**      refused before any row is given. Leaves are not read then: all are at
**      the first leaf's depth.
**   4a. A sink that takes batches on several threads (ga_colsink.xPar) is
**      handed a segment's batches by the worker that decoded it, where the
**      segment needs nothing from SQL; what it leaves (GA_SINK_LATER), and
**      segments that needed SQL, this thread hands to xBatch in order.
**   5. A malformed page is SQLITE_CORRUPT with the page named; rowids must
**      rise through the scan. sqlite3_interrupt() stops a scan within a few
**      segments (SQLITE_INTERRUPT).
*/
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_READ
# define MADV_POPULATE_READ 22      /* Linux 5.14 */
#endif
#include "record.h"

#define SEG_BYTES  (1<<20)          /* most page bytes in a segment */
#define READ_BYTES (1<<17)          /* most bytes a read (a debug build of the unix VFS asserts it) */
#define MAX_DEPTH  40               /* deeper is a malformed tree (SQLite: 20) */
#define PROBE_SEGS 8                /* segments between interrupt probes */
#define WAL_UNSEEN "WAL: the table changed after the last checkpoint, in frames this transaction may not see"

/* A column's DEFAULT, as SQL reads it for records older than the column. */
typedef struct Dflt {
  int known;                        /* read yet */
  int type;                         /* its class */
  int64_t v;                        /* INTEGER, REAL bits */
  ga_cell cell;                     /* TEXT and BLOB (z malloc'd) */
} Dflt;

/* A segment being decoded or handed over. */
typedef struct Seg {
  int i;                            /* its index; -1: free */
  int done;                         /* decoded (rc says how) */
  int rc;                           /* SQLITE_OK or the error */
  char zErr[160];                   /* the error's message */
  unsigned char *pages;             /* leaves read: their bytes */
  const unsigned char **aPg;        /* each leaf: in pages, or where SQLite maps it */
  unsigned char *aMap;              /* each leaf: PG_COPY, PG_MAPPED or PG_WORKER */
  int held;                         /* the segment whose leaves aMap holds; -1: none */
  ga_rows rows;                     /* their rows */
  int given;                        /* rows a worker handed to the sink itself (xPar) */
  int64_t first, last;              /* first and last rowid, if rows.n */
} Seg;

/* Where a leaf of a segment is (Seg.aMap). */
#define PG_COPY   0                 /* copied into pages by this thread */
#define PG_MAPPED 1                 /* in SQLite's mapping: handed back by segRelease */
#define PG_WORKER 2                 /* read into pages by the worker on its handle (3) */

typedef struct PageSrc {
  ga_colsrc base;                   /* the interface */
  sqlite3 *db;                      /* the connection */
  ga_conn *conn;                    /* its gpuagg state */
  ga_snap snap;                     /* the pages */
  ga_rplan plan;                    /* how records are read */
  ga_rplan early, late;             /* the scan running, where its sink takes late columns
                                    ** (colsrc.h, 8): the plan split (record.h, 5) */
  int lateOn;                       /* ... and it does */
  char *zLook;                      /* SELECT of the wanted columns of one rowid */
  sqlite3_stmt *look;               /* ... prepared when first needed */
  sqlite3_stmt *conv;               /* SELECT ?1: SQLite's number for TEXT/BLOB */
  sqlite3_stmt *probe;              /* SELECT 1: stops on sqlite3_interrupt() */
  uint32_t *aLeaf;                  /* the leaves, in order */
  int nLeaf;                        /* ... how many */
  uint32_t maxLeaf;                 /* the highest leaf page number */
  int nReader;                      /* the scan's workers read on their handles (3): snap's readers */
  int perSeg;                       /* leaves in a segment */
  int nSeg;                         /* segments */
  Dflt aDflt[GA_COLS_MAX];          /* each column's DEFAULT */
  char zErr[256];                   /* the last error */
  /* The scan running: */
  pthread_mutex_t mu;               /* guards nRead, next, nGiven, stop, Seg.done */
  pthread_cond_t cvWork;            /* a segment was read, or stop */
  pthread_cond_t cvDone;            /* a segment was decoded */
  ga_colsink *sink;                 /* the scan's sink (workers: xPar) */
  int nWorker;                      /* workers started (each takes its index) */
  int nRead;                        /* segments read (by this thread) */
  int next;                         /* next segment to decode */
  int nGiven;                       /* segments handed over */
  int stop;                         /* workers: stop */
  int nRing;                        /* slots */
  Seg *ring;                        /* segment i decodes in ring[i % nRing] */
  int64_t *aSegAt;                  /* [nSeg + 1]: each segment's first row in the scan, once
                                    ** every segment before it is counted (segCounted); -1: not yet */
  int64_t *aSegRows;                /* [nSeg]: each segment's rows, counted as it is decoded; -1 */
  int nAt;                          /* segments whose aSegAt is set (guarded by mu) */
} PageSrc;

/* ---- decoding (any thread) ------------------------------------------------------ */

/* Segment i is leaves i*perSeg up to this one. */
static int segEnd(const PageSrc *p, int i){
  return (i + 1)*p->perSeg < p->nLeaf ? (i + 1)*p->perSeg : p->nLeaf;
}

/* The read of g's leaves from leaf j failed (g->rc): say so in g->zErr. */
static void readFailed(PageSrc *p, Seg *g, int j){
  if( g->rc==SQLITE_CORRUPT ){
    sqlite3_snprintf(sizeof(g->zErr), g->zErr, "database disk image is malformed (page %u beyond the end of the file)",
                     p->aLeaf[j]);
  }else if( g->rc==GA_UNPROVEN ){   /* leaves were proven at open: cannot happen */
    sqlite3_snprintf(sizeof(g->zErr), g->zErr, "a leaf page's snapshot copy is unknown");
    g->rc = SQLITE_ERROR;
  }
}

/* Read segment i's leaves marked `how` into g's pages, a run of
** consecutive page numbers (up to READ_BYTES) a read: PG_COPY through
** SQLite's handle (this thread only: without pread its reads seek, and with
** mmap the mapping may move), PG_WORKER on reader h (the worker that owns
** h). */
static void segCopy(PageSrc *p, int i, Seg *g, int how, int h){
  const ga_snap *s = &p->snap;
  int a = i*p->perSeg, b = segEnd(p, i), j, k;
  int maxRun = READ_BYTES/s->pgsz > 1 ? READ_BYTES/s->pgsz : 1;
  for(j=a; j<b && g->rc==SQLITE_OK; j=k){
    unsigned char *buf;
    if( g->aMap[j - a]!=how ){
      k = j + 1;
      continue;
    }
    for(k=j+1; k<b && k - j<maxRun && g->aMap[k - a]==how && p->aLeaf[k]==p->aLeaf[k-1]+1; k++){}
    buf = g->pages + (size_t)(j - a)*s->pgsz;
    g->rc = how==PG_COPY ? ga_snap_read(s, p->aLeaf[j], k - j, buf, 0) : ga_snap_read_on(s, h, p->aLeaf[j], k - j, buf);
    if( g->rc ) readFailed(p, g, j);
  }
}

/* Read segment i's leaves into g, on this thread: those SQLite maps are not
** copied (g points into the mapping until segRelease); those the workers
** read on their handles (3) are left to them; the rest are copied here. */
static void segRead(PageSrc *p, int i, Seg *g){
  const ga_snap *s = &p->snap;
  int a = i*p->perSeg, b = segEnd(p, i), j, copied = 0;
  g->rc = SQLITE_OK;
  g->zErr[0] = 0;
  if( g->aPg==0 ) g->aPg = calloc((size_t)p->perSeg, sizeof(*g->aPg));
  if( g->aMap==0 ) g->aMap = calloc((size_t)p->perSeg, 1);
  if( g->aPg==0 || g->aMap==0 ){
    g->rc = SQLITE_NOMEM;
    return;
  }
  g->held = i;
  for(j=a; j<b; j++){
    g->aPg[j - a] = ga_snap_fetch(s, p->aLeaf[j], GA_PAGE_PAD);
    g->aMap[j - a] = g->aPg[j - a] ? PG_MAPPED : p->nReader && ga_snap_in_file(s, p->aLeaf[j]) ? PG_WORKER : PG_COPY;
    copied |= g->aMap[j - a]!=PG_MAPPED;
    if( p->conn ){
      if( g->aMap[j - a]==PG_MAPPED ) p->conn->stats.nPageMapped++;
      else if( g->aMap[j - a]==PG_WORKER ) p->conn->stats.nPageRead++;
      else p->conn->stats.nPageCopied++;
    }
  }
  if( !copied ) return;
  if( g->pages==0 && (g->pages = calloc(1, (size_t)p->perSeg*(size_t)s->pgsz + GA_PAGE_PAD))==0 ){
    g->rc = SQLITE_NOMEM;
    return;
  }
  for(j=a; j<b; j++){
    if( g->aMap[j - a]!=PG_MAPPED ) g->aPg[j - a] = g->pages + (size_t)(j - a)*s->pgsz;
  }
  segCopy(p, i, g, PG_COPY, -1);
}

/* Hand back the mapped leaves of g (this thread, the workers done with it). */
static void segRelease(PageSrc *p, Seg *g){
  int a, j;
  if( g->held<0 ) return;
  a = g->held*p->perSeg;
  for(j=a; j<segEnd(p, g->held); j++){
    if( g->aMap[j - a]==PG_MAPPED ) ga_snap_unfetch(&p->snap, p->aLeaf[j], g->aPg[j - a]);
    g->aMap[j - a] = PG_COPY;
  }
  g->held = -1;
}

/* Ask for the n bytes at z into the cache (L2), for the leaf decoded next:
** a mapped leaf comes from memory, and its cells are not read in address
** order, which the hardware's prefetchers follow poorly. */
static void prefetch(const unsigned char *z, int n){
  int o;
  for(o=0; o<n; o+=64) __builtin_prefetch(z + o, 0, 2);
}

/* Map the page tables of g's mapped leaves in runs, one call each, rather
** than a fault per few pages (a hint: any error is ignored, and older
** kernels refuse it). */
static void segPopulate(PageSrc *p, int i, Seg *g){
  int a = i*p->perSeg, b = segEnd(p, i), j, k;
  long pgsz = sysconf(_SC_PAGESIZE);
  if( pgsz<=0 ) return;
  for(j=a; j<b; j=k){
    const unsigned char *lo, *hi;
    if( g->aMap[j - a]!=PG_MAPPED ){ k = j + 1; continue; }
    for(k=j+1; k<b && g->aMap[k - a]==PG_MAPPED && g->aPg[k - a]==g->aPg[k - 1 - a] + p->snap.pgsz; k++){}
    lo = (const unsigned char*)((uintptr_t)g->aPg[j - a] & ~(uintptr_t)(pgsz - 1));
    hi = g->aPg[k - 1 - a] + p->snap.pgsz;
    (void)madvise((void*)lo, (size_t)(hi - lo), MADV_POPULATE_READ);
  }
}

/* Segment i has n rows (its leaves' cells): the first rows of the segments
** after it whose every predecessor is counted are known now (3b). */
static void segCounted(PageSrc *p, int i, int64_t n){
  if( p->aSegAt==0 ) return;
  pthread_mutex_lock(&p->mu);
  p->aSegRows[i] = n;
  while( p->nAt<p->nSeg && p->aSegRows[p->nAt]>=0 ){
    __atomic_store_n(&p->aSegAt[p->nAt + 1], p->aSegAt[p->nAt] + p->aSegRows[p->nAt], __ATOMIC_RELEASE);
    p->nAt++;
  }
  pthread_mutex_unlock(&p->mu);
}

/* Decode segment i, read into g, on worker w (-1: this thread, which
** reads no PG_WORKER leaf: no readers without workers). io: overflow pages
** may be read (this thread); else rows that need them are left to SQL
** (GA_T_LOOKUP). */
static void segDecode(PageSrc *p, int i, Seg *g, int io, int w){
  const ga_snap *s = &p->snap;
  int a = i*p->perSeg, b = segEnd(p, i), j, n = 0, have = 0;
  int64_t last = 0;
  assert( w>=0 || p->nReader==0 );
  if( p->nReader ) segCopy(p, i, g, PG_WORKER, w);
  segPopulate(p, i, g);
  for(j=a; j<b && g->rc==SQLITE_OK; j++){
    int c = ga_leaf_cells(g->aPg[j - a], p->plan.usable, p->aLeaf[j], g->zErr, sizeof(g->zErr));
    if( c<0 ) g->rc = SQLITE_CORRUPT;
    n += c;
  }
  if( g->rc==SQLITE_OK ) g->rc = ga_rows_reset(&g->rows, p->plan.nCol, n);
  if( g->rc==SQLITE_OK ) segCounted(p, i, n);
  for(j=a; j<b && g->rc==SQLITE_OK; j++){
    if( j + 1<b ) prefetch(g->aPg[j + 1 - a], p->plan.usable);
    g->rc = ga_leaf_rows(p->lateOn ? &p->early : &p->plan, io ? s : 0, g->aPg[j - a], p->aLeaf[j], &g->rows,
                         &last, &have, g->zErr, sizeof(g->zErr));
  }
  if( g->rc==SQLITE_OK && g->rows.n ){
    g->first = g->rows.rowid[0];
    g->last = last;
  }
}

static int segGive(PageSrc *p, Seg *g, int i, ga_colsink *sink, int w);

/* A worker: decode segments as this thread reads them, and hand them to a
** sink that takes batches here (4a). */
static void *worker(void *pArg){
  PageSrc *p = (PageSrc*)pArg;
  int w;
  pthread_mutex_lock(&p->mu);
  w = p->nWorker++;
  pthread_mutex_unlock(&p->mu);
  for(;;){
    Seg *g;
    int i;
    pthread_mutex_lock(&p->mu);
    while( !p->stop && p->next<p->nSeg && p->next>=p->nRead ) pthread_cond_wait(&p->cvWork, &p->mu);
    if( p->stop || p->next>=p->nSeg ){
      pthread_mutex_unlock(&p->mu);
      return 0;
    }
    i = p->next++;
    g = &p->ring[i % p->nRing];
    pthread_mutex_unlock(&p->mu);
    g->given = 0;
    if( g->rc==SQLITE_OK ) segDecode(p, i, g, 0, w);
    if( g->rc==SQLITE_OK && g->rows.nFix==0 && p->sink->xPar && w<p->sink->nPar ){
      int rc = segGive(p, g, i, p->sink, w);
      if( rc && rc!=GA_SINK_LATER ){
        g->rc = rc;
        sqlite3_snprintf(sizeof(g->zErr), g->zErr, "%s", "");
      }
    }
    pthread_mutex_lock(&p->mu);
    g->i = i;
    g->done = 1;
    pthread_cond_broadcast(&p->cvDone);
    pthread_mutex_unlock(&p->mu);
  }
}

/* ---- finishing through SQL (this thread) ------------------------------------------ */

/* A statement of p's, prepared when first needed. */
static int stmtOf(PageSrc *p, sqlite3_stmt **pp, const char *zSql){
  return *pp ? SQLITE_OK : sqlite3_prepare_v2(p->db, zSql, -1, pp, 0);
}

/* SQLite's number for TEXT or BLOB x, as sum() reads it, into e. */
static int numberOf(PageSrc *p, int type, ga_cell *e){
  sqlite3_value *x;
  int rc = stmtOf(p, &p->conv, "SELECT ?1");
  if( rc ) return rc;
  if( type==SQLITE_TEXT ) sqlite3_bind_text(p->conv, 1, e->z ? e->z : "", e->n, SQLITE_STATIC);
  else sqlite3_bind_blob(p->conv, 1, e->z ? e->z : "", e->n, SQLITE_STATIC);
  if( sqlite3_step(p->conv)!=SQLITE_ROW ) return sqlite3_reset(p->conv);
  x = sqlite3_value_dup(sqlite3_column_value(p->conv, 0));
  if( x==0 ){
    rc = SQLITE_NOMEM;
  }else if( sqlite3_value_numeric_type(x)==SQLITE_INTEGER ){
    e->numType = SQLITE_INTEGER;
    e->num = sqlite3_value_int64(x);
  }else{
    double d = sqlite3_value_double(x);
    e->numType = SQLITE_FLOAT;
    memcpy(&e->num, &d, 8);
  }
  sqlite3_value_free(x);
  sqlite3_reset(p->conv);
  sqlite3_clear_bindings(p->conv);
  return rc;
}

/* Column c of the row with this rowid, read through SQL, into (type, v,
** e); TEXT and BLOB bytes are malloc'd into e->z (the caller keeps them). */
static int lookUp(PageSrc *p, int c, int64_t rowid, int *pType, int64_t *pv, ga_cell *e){
  sqlite3_value *x;
  int rc = stmtOf(p, &p->look, p->zLook), t;
  memset(e, 0, sizeof(*e));
  if( rc ) return rc;
  sqlite3_bind_int64(p->look, 1, rowid);
  if( (rc = sqlite3_step(p->look))!=SQLITE_ROW ){
    sqlite3_reset(p->look);
    sqlite3_snprintf(sizeof(p->zErr), p->zErr, "database disk image is malformed (rowid %lld of the pages is not in the"
                     " table)", (long long)rowid);
    return rc==SQLITE_DONE ? SQLITE_CORRUPT : rc;
  }
  x = sqlite3_column_value(p->look, c);
  *pType = t = sqlite3_value_type(x);
  rc = SQLITE_OK;
  if( t==SQLITE_INTEGER ){
    *pv = sqlite3_value_int64(x);
  }else if( t==SQLITE_FLOAT ){
    double d = sqlite3_value_double(x);
    memcpy(pv, &d, 8);
  }else if( t!=SQLITE_NULL && p->plan.aWant[c] ){
    const void *z = t==SQLITE_TEXT ? (const void*)sqlite3_value_text(x) : sqlite3_value_blob(x);
    e->n = sqlite3_value_bytes(x);
    if( (e->z = malloc((size_t)e->n + 1))==0 || (z==0 && e->n>0) ){
      rc = SQLITE_NOMEM;
    }else{
      if( e->n ) memcpy((void*)e->z, z, (size_t)e->n);
      if( p->plan.aWant[c] & GA_COL_NUMERIC ) rc = numberOf(p, t, e);
    }
  }
  sqlite3_reset(p->look);
  return rc;
}

/* Finish what the decoders left to SQL in g: defaults, rows read through
** SQL, numbers of TEXT and BLOB. */
static int segFinish(PageSrc *p, Seg *g){
  ga_rows *r = &g->rows;
  int k, rc = SQLITE_OK;
  for(k=0; k<r->nFix && rc==SQLITE_OK; k++){
    int at = r->aFix[k], c = at / r->cap, i = at % r->cap, t = r->type[at], ic;
    ga_cell e;
    if( t==GA_T_DEFAULT ){
      Dflt *d = &p->aDflt[c];
      if( !d->known ){
        rc = lookUp(p, c, r->rowid[i], &d->type, &d->v, &d->cell);
        d->known = rc==SQLITE_OK;
      }
      if( rc ) break;
      r->type[at] = (unsigned char)d->type;
      r->v[at] = d->v;
      if( (d->type==SQLITE_TEXT || d->type==SQLITE_BLOB) && p->plan.aWant[c] ){
        if( (rc = ga_rows_cell(r, &ic))==SQLITE_OK ){
          r->cell[ic] = d->cell;
          r->v[at] = ic;
        }
      }
    }else if( t==GA_T_LOOKUP ){
      int type;
      if( (rc = lookUp(p, c, r->rowid[i], &type, &r->v[at], &e))!=SQLITE_OK ){
        free((void*)e.z);
        break;
      }
      r->type[at] = (unsigned char)type;
      if( e.z && (rc = ga_rows_keep(r, (void*)e.z))==SQLITE_OK && (rc = ga_rows_cell(r, &ic))==SQLITE_OK ){
        r->cell[ic] = e;
        r->v[at] = ic;
      }
    }else{
      rc = numberOf(p, t, &r->cell[r->v[at]]);
    }
  }
  return rc;
}

/* ---- handing over (this thread) ---------------------------------------------------- */

/* Hand segment i's rows in g, from g->given on, to the sink in batches:
** on worker w through xPar (w>=0: g->given counts what it took), else
** through xBatch; with late columns, each batch's rows picked by xFilter
** first and only theirs decoded (colsrc.h, 8). 0, or the sink's code. */
static int segGive(PageSrc *p, Seg *g, int i, ga_colsink *sink, int w){
  ga_colvec col[GA_COLS_MAX];
  ga_colbatch b;
  ga_rows *r = &g->rows;
  int k, c, rc = 0, sel[GA_BATCH];
  int64_t at = p->aSegAt ? __atomic_load_n(&p->aSegAt[i], __ATOMIC_ACQUIRE) : -1;
  b.nCol = r->nCol;
  b.col = col;
  b.sel = 0;
  b.nSel = 0;
  for(k=g->given; k<r->n && rc==0; k+=GA_BATCH){
    b.n = r->n - k < GA_BATCH ? r->n - k : GA_BATCH;
    b.pos = ((int64_t)i << 32) + k;
    b.at1 = at>=0 ? at + k + 1 : 0;
    for(c=0; c<r->nCol; c++){
      col[c].type = &r->type[(size_t)c*r->cap + k];
      col[c].v = &r->v[(size_t)c*r->cap + k];
      col[c].cell = r->cell;
    }
    if( p->lateOn ){
      if( (rc = sink->xFilter(sink, w, &b, sel, &b.nSel))!=0 ) break;
      if( (rc = ga_rows_late(&p->late, r, k, sel, b.nSel))!=SQLITE_OK ) break;
      for(c=0; c<r->nCol; c++) col[c].cell = r->cell;   /* the cells may have moved */
      b.sel = sel;
    }
    if( w>=0 ){
      if( (rc = sink->xPar(sink, w, &b))==0 ) g->given = k + b.n;
    }else{
      rc = sink->xBatch(sink, &b);
    }
  }
  return rc;
}

/* Has sqlite3_interrupt() been called? (A statement run while another is
** active sees the flag and stops.) */
static int interrupted(PageSrc *p){
  int rc = stmtOf(p, &p->probe, "SELECT 1");
  if( rc==SQLITE_OK ){
    rc = sqlite3_step(p->probe);
    sqlite3_reset(p->probe);
  }
  return rc==SQLITE_INTERRUPT;
}

/* The scan's late plans freed. */
static void lateEnd(PageSrc *p){
  if( p->lateOn ){
    free(p->early.aFirst);
    free(p->late.aFirst);
    p->early.aFirst = p->late.aFirst = 0;
    p->lateOn = 0;
  }
}

static int pagesScan(ga_colsrc *pSrc, ga_colsink *sink){
  PageSrc *p = (PageSrc*)pSrc;
  pthread_t aTh[64];
  int nTh = p->conn->threads, i, rc = SQLITE_OK, haveLast = 0;
  int64_t last = 0, mapped = ga_snap_map_limit(&p->snap, -1), map;
  if( nTh>p->nSeg ) nTh = p->nSeg;
  if( nTh>(int)(sizeof(aTh)/sizeof(aTh[0])) ) nTh = (int)(sizeof(aTh)/sizeof(aTh[0]));
  p->zErr[0] = 0;
  p->nRing = nTh>1 ? 2*nTh : 1;
  p->lateOn = 0;
  if( sink->xFilter && sink->aLate ){
    /* late: what the filter does not read, but the rowid and numbers of
    ** TEXT (their fixing is this thread's: record.h, 5) */
    unsigned char aLate[GA_COLS_MAX];
    int c, any = 0;
    for(c=0; c<p->plan.nCol; c++){
      aLate[c] = sink->aLate[c] && p->plan.aField[c]>=0 && !(p->plan.aWant[c] & GA_COL_NUMERIC);
      any |= aLate[c];
    }
    p->lateOn = any;
    if( any && (rc = ga_rplan_split(&p->plan, aLate, &p->early, &p->late))!=SQLITE_OK ){
      lateEnd(p);
      return rc;
    }
  }
  if( (p->ring = calloc((size_t)p->nRing, sizeof(Seg)))==0 ){
    lateEnd(p);
    return SQLITE_NOMEM;
  }
  for(i=0; i<p->nRing; i++) p->ring[i].held = -1;
  if( mapped==0 && (p->conn==0 || p->conn->map) ){
    ga_snap_map_limit(&p->snap, (int64_t)1<<40);   /* 3a: clamped by SQLite's mmap ceiling */
  }else{
    mapped = -1;                                   /* nothing to set back */
  }
  if( p->base.nRowMax ){            /* (3b: a bound was given, so positions are) */
    p->aSegAt = malloc(sizeof(int64_t)*(size_t)(2*p->nSeg + 1));
    if( p->aSegAt ){
      p->aSegRows = p->aSegAt + p->nSeg + 1;
      for(i=0; i<2*p->nSeg + 1; i++) p->aSegAt[i] = -1;
      p->aSegAt[0] = 0;
    }
  }
  p->nAt = 0;
  p->next = p->nGiven = p->nRead = p->stop = p->nWorker = 0;
  p->sink = sink;
  pthread_mutex_init(&p->mu, 0);
  pthread_cond_init(&p->cvWork, 0);
  pthread_cond_init(&p->cvDone, 0);
  if( nTh<=1 ) nTh = 0;             /* decode here */
  for(i=0; i<nTh; i++){
    if( pthread_create(&aTh[i], 0, worker, p) ){
      nTh = i;                      /* fewer threads; none: decode here */
      break;
    }
  }
  /* Leaves past what SQLite maps: the workers read them on their handles
  ** (3), where SQLite maps the file's start (which proves the handles). */
  p->nReader = 0;
  map = ga_snap_map_limit(&p->snap, -1);
  if( nTh>0 && map>0 && (int64_t)p->maxLeaf*p->snap.pgsz>map ){
    pthread_mutex_lock(&p->mu);
    p->nReader = ga_snap_readers(&p->snap, nTh);
    pthread_mutex_unlock(&p->mu);
  }
  for(i=0; i<p->nSeg && rc==SQLITE_OK; i++){
    Seg *g = &p->ring[i % p->nRing];
    /* Read ahead into the free slots; workers decode what is read. */
    while( p->nRead<p->nSeg && p->nRead<p->nGiven + p->nRing ){
      segRead(p, p->nRead, &p->ring[p->nRead % p->nRing]);
      pthread_mutex_lock(&p->mu);
      p->nRead++;
      pthread_cond_broadcast(&p->cvWork);
      pthread_mutex_unlock(&p->mu);
    }
    if( nTh==0 ){
      g->given = 0;
      if( g->rc==SQLITE_OK ) segDecode(p, i, g, 1, -1);
    }else{
      double t0 = ga_now_ms();
      pthread_mutex_lock(&p->mu);
      while( !(g->done && g->i==i) ) pthread_cond_wait(&p->cvDone, &p->mu);
      pthread_mutex_unlock(&p->mu);
      if( p->conn ) p->conn->stats.pageWaitMs += ga_now_ms() - t0;
    }
    rc = g->rc;
    if( rc ) sqlite3_snprintf(sizeof(p->zErr), p->zErr, "%s", g->zErr[0] ? g->zErr : sqlite3_errstr(rc));
    if( rc==SQLITE_OK && g->rows.n ){
      if( haveLast && g->first<=last ){
        rc = SQLITE_CORRUPT;
        sqlite3_snprintf(sizeof(p->zErr), p->zErr, "database disk image is malformed (page %u: rowids out of order)",
                         p->aLeaf[i*p->perSeg]);
      }
      last = g->last;
      haveLast = 1;
    }
    if( rc==SQLITE_OK && (rc = segFinish(p, g))!=SQLITE_OK && p->zErr[0]==0 ){
      sqlite3_snprintf(sizeof(p->zErr), p->zErr, "%s", sqlite3_errmsg(p->db));
    }
    if( rc==SQLITE_OK && (i + 1) % PROBE_SEGS==0 && interrupted(p) ){
      rc = SQLITE_INTERRUPT;
      sqlite3_snprintf(sizeof(p->zErr), p->zErr, "interrupted");
    }
    if( rc==SQLITE_OK ){
      double t0 = ga_now_ms();
      rc = segGive(p, g, i, sink, -1);
      if( p->conn ) p->conn->stats.pageSinkMs += ga_now_ms() - t0;
    }
    segRelease(p, g);
    pthread_mutex_lock(&p->mu);
    g->done = 0;
    p->nGiven++;
    pthread_cond_broadcast(&p->cvWork);
    pthread_mutex_unlock(&p->mu);
  }
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->cvWork);
  pthread_mutex_unlock(&p->mu);
  for(i=0; i<nTh; i++) pthread_join(aTh[i], 0);
  if( p->nReader ) ga_snap_readers(&p->snap, 0);
  p->nReader = 0;
  for(i=0; i<p->nRing; i++){
    segRelease(p, &p->ring[i]);
    ga_rows_free(&p->ring[i].rows);
    free(p->ring[i].pages);
    free(p->ring[i].aPg);
    free(p->ring[i].aMap);
  }
  free(p->ring);
  p->ring = 0;
  free(p->aSegAt);
  p->aSegAt = p->aSegRows = 0;
  lateEnd(p);
  if( mapped==0 ) ga_snap_map_limit(&p->snap, 0);
  pthread_cond_destroy(&p->cvDone);
  pthread_cond_destroy(&p->cvWork);
  pthread_mutex_destroy(&p->mu);
  return rc;
}

/* ---- opening ------------------------------------------------------------------------- */

static const char *pagesErrmsg(ga_colsrc *pSrc){
  return ((PageSrc*)pSrc)->zErr;
}

static void pagesClose(ga_colsrc *pSrc){
  PageSrc *p = (PageSrc*)pSrc;
  int c;
  sqlite3_finalize(p->look);
  sqlite3_finalize(p->conv);
  sqlite3_finalize(p->probe);
  ga_snap_close(&p->snap);
  for(c=0; c<GA_COLS_MAX; c++) free((void*)p->aDflt[c].cell.z);
  ga_free(p->zLook);
  ga_free(p->aLeaf);
  free(p->plan.aFirst);
  ga_free(p);
}

/* Does z contain w (upper case), ignoring ASCII case? */
static int hasWord(const char *z, const char *w){
  int n = (int)strlen(w);
  for(; *z; z++) if( sqlite3_strnicmp(z, w, n)==0 ) return 1;
  return 0;
}

int ga_affinity(const char *zType){
  if( zType==0 ) return GA_AFF_BLOB;
  if( hasWord(zType, "INT") ) return GA_AFF_INTEGER;
  if( hasWord(zType, "CHAR") || hasWord(zType, "CLOB") || hasWord(zType, "TEXT") ) return GA_AFF_TEXT;
  if( hasWord(zType, "BLOB") || zType[0]==0 ) return GA_AFF_BLOB;
  if( hasWord(zType, "REAL") || hasWord(zType, "FLOA") || hasWord(zType, "DOUB") ) return GA_AFF_REAL;
  return GA_AFF_NUMERIC;
}

int ga_schema_version(sqlite3 *db, const char *zDb, int *pVer){
  char *zSql = sqlite3_mprintf("PRAGMA \"%w\".schema_version", zDb);
  sqlite3_stmt *st = 0;
  int rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &st, 0) : SQLITE_NOMEM;
  ga_free(zSql);
  *pVer = 0;
  if( rc==SQLITE_OK && (rc = sqlite3_step(st))==SQLITE_ROW ){
    *pVer = sqlite3_column_int(st, 0);
    rc = SQLITE_OK;
  }else if( rc==SQLITE_DONE ){
    rc = SQLITE_ERROR;
  }
  sqlite3_finalize(st);
  return rc;
}

/* Is column zCol of zDb.zTab an alias of the rowid? SQLite's own answer:
** the plan of SELECT zCol reads no record column. */
static int rowidAlias(sqlite3 *db, const char *zDb, const char *zTab, const char *zCol, int *pAlias){
  char *zSql = sqlite3_mprintf("EXPLAIN SELECT \"%w\" FROM \"%w\".\"%w\"", zCol, zDb, zTab);
  sqlite3_stmt *st = 0;
  int rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &st, 0) : SQLITE_NOMEM;
  ga_free(zSql);
  *pAlias = 1;
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *zOp = (const char*)sqlite3_column_text(st, 1);
    if( zOp && strcmp(zOp, "Column")==0 ) *pAlias = 0;
  }
  if( rc==SQLITE_OK ) rc = sqlite3_reset(st);
  sqlite3_finalize(st);
  return rc;
}

/* The record plan of columns azCol of zDb.zTab, and the lookup SELECT. */
static int planOf(PageSrc *p, const char *zDb, const char *zTab, int nCol, const char *const *azCol,
                  const unsigned char *aWant, char **pzWhy){
  sqlite3_stmt *st = 0;
  sqlite3_str *q;
  const char *zRowid = 0, *azId[] = { "rowid", "_rowid_", "oid" };
  int rc, c, i, nStored = 0, nPk = 0, pkInteger = 0, found[GA_COLS_MAX], clash[3] = { 0, 0, 0 };
  char *zPk = 0;
  memset(found, 0, sizeof(found));
  rc = sqlite3_prepare_v2(p->db, "SELECT name, type, pk, hidden, dflt_value IS NOT NULL FROM pragma_table_xinfo(?1, ?2)", -1, &st, 0);
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zTab, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, zDb, -1, SQLITE_STATIC);
  }
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *zName = (const char*)sqlite3_column_text(st, 0), *zType = (const char*)sqlite3_column_text(st, 1);
    int pk = sqlite3_column_int(st, 2), hidden = sqlite3_column_int(st, 3);
    if( zName==0 ){ rc = SQLITE_NOMEM; break; }
    for(i=0; i<3; i++) if( sqlite3_stricmp(zName, azId[i])==0 ) clash[i] = 1;
    if( pk ){
      nPk++;
      pkInteger = zType && sqlite3_stricmp(zType, "INTEGER")==0;
      ga_free(zPk);
      zPk = sqlite3_mprintf("%s", zName);
    }
    for(c=0; c<nCol; c++){
      if( found[c] || sqlite3_stricmp(zName, azCol[c])!=0 ) continue;
      if( hidden==2 ){
        *pzWhy = sqlite3_mprintf("column %s is VIRTUAL (generated, not stored)", zName);
        rc = GA_REFUSED;
        break;
      }
      found[c] = 1;
      p->plan.aField[c] = nStored;
      p->plan.aReal[c] = (unsigned char)(ga_affinity(zType)==GA_AFF_REAL);
      p->plan.aWant[c] = aWant ? aWant[c] : 0;
      p->plan.aDflt[c] = (unsigned char)sqlite3_column_int(st, 4);
    }
    if( hidden!=2 ) nStored++;
  }
  if( rc==SQLITE_OK ) rc = sqlite3_reset(st);
  sqlite3_finalize(st);
  for(c=0; rc==SQLITE_OK && c<nCol; c++){
    if( !found[c] ){
      *pzWhy = sqlite3_mprintf("column %s changed", azCol[c]);
      rc = GA_REFUSED;
    }
  }
  /* An INTEGER PRIMARY KEY is the rowid (stored as NULL). */
  if( rc==SQLITE_OK && nPk==1 && pkInteger ){
    int alias = 0;
    rc = rowidAlias(p->db, zDb, zTab, zPk, &alias);
    for(c=0; rc==SQLITE_OK && alias && c<nCol; c++){
      if( sqlite3_stricmp(azCol[c], zPk)==0 ) p->plan.aField[c] = -1;
    }
    if( alias ) zRowid = zPk;
  }
  for(i=0; !zRowid && i<3; i++) if( !clash[i] ) zRowid = azId[i];
  if( rc==SQLITE_OK && zRowid==0 ){
    *pzWhy = sqlite3_mprintf("columns named rowid, _rowid_ and oid");
    rc = GA_REFUSED;
  }
  p->plan.nCol = nCol;
  for(c=0; c<nCol; c++) if( p->plan.aField[c] + 1 > p->plan.nField ) p->plan.nField = p->plan.aField[c] + 1;
  if( rc==SQLITE_OK ) rc = ga_rplan_fields(&p->plan);
  if( rc==SQLITE_OK ){
    q = sqlite3_str_new(p->db);
    sqlite3_str_appendall(q, "SELECT ");
    for(c=0; c<nCol; c++) sqlite3_str_appendf(q, "%s\"%w\"", c ? ", " : "", azCol[c]);
    sqlite3_str_appendf(q, " FROM \"%w\".\"%w\" WHERE \"%w\"=?1", zDb, zTab, zRowid);
    if( (p->zLook = sqlite3_str_finish(q))==0 ) rc = SQLITE_NOMEM;
  }
  ga_free(zPk);
  return rc;
}

/* The table's root page. */
static int rootOf(sqlite3 *db, const char *zDb, const char *zTab, uint32_t *pRoot){
  char *zSql = sqlite3_mprintf("SELECT rootpage FROM \"%w\".sqlite_schema WHERE type='table' AND name=?1", zDb);
  sqlite3_stmt *st = 0;
  int rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &st, 0) : SQLITE_NOMEM;
  ga_free(zSql);
  *pRoot = 0;
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zTab, -1, SQLITE_STATIC);
    if( (rc = sqlite3_step(st))==SQLITE_ROW ){
      int64_t r = sqlite3_column_int64(st, 0);
      *pRoot = r>0 && r<=0xffffffff ? (uint32_t)r : 0;
      rc = SQLITE_OK;
    }else if( rc==SQLITE_DONE ){
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* Page 1's header: the usable page size; GA_REFUSED for UTF-16. */
static int headerOf(PageSrc *p, char **pzWhy){
  unsigned char *b = malloc((size_t)p->snap.pgsz);
  int rc, sz, enc;
  if( b==0 ) return SQLITE_NOMEM;
  /* A page 1 not proven is the file's: what is read of it (page size,
  ** reserved bytes, encoding) is set by the first table's commit and
  ** changed only by VACUUM, which rewrites every page; either way the
  ** table's pages are then not proven either, and the encoding the file
  ** shows may still be 0 (none yet). */
  rc = ga_snap_read(&p->snap, 1, 1, b, !ga_snap_proven(&p->snap, 1));
  if( rc==SQLITE_OK ){
    sz = (b[16]<<8 | b[17])==1 ? 65536 : (b[16]<<8 | b[17]);
    enc = b[56]<<24 | b[57]<<16 | b[58]<<8 | b[59];
    p->plan.usable = sz - b[20];
    if( memcmp(b, "SQLite format 3", 16)!=0 || sz!=p->snap.pgsz || p->plan.usable<480 ){
      sqlite3_snprintf(sizeof(p->zErr), p->zErr, "database disk image is malformed (page 1: header)");
      rc = SQLITE_CORRUPT;
    }else if( enc!=1 ){
      *pzWhy = sqlite3_mprintf(!ga_snap_proven(&p->snap, 1) ? WAL_UNSEEN : "a UTF-16 database");
      rc = GA_REFUSED;
    }
  }
  free(b);
  return rc;
}

/* The leaves under root, in order, into p->aLeaf. */
static int leavesOf(PageSrc *p, uint32_t root, char **pzWhy){
  const ga_snap *s = &p->snap;
  int usable = p->plan.usable, nStack = 1, nAlloc = 0, rc = SQLITE_OK, n, leafDepth = -1;
  uint32_t *aStack, *aKid, nSeen = 0;
  unsigned char *aDepth, *b;
  size_t room = 4096;               /* in aStack and aDepth; grows */
  aStack = malloc(room*sizeof(uint32_t));
  aDepth = malloc(room);
  aKid = malloc((size_t)(usable/2 + 2)*sizeof(uint32_t));   /* the most a page can claim */
  b = malloc((size_t)s->pgsz);
  if( !aStack || !aDepth || !aKid || !b ){
    rc = SQLITE_NOMEM;
  }else{
    aStack[0] = root;
    aDepth[0] = 0;
  }
  while( rc==SQLITE_OK && nStack>0 ){
    uint32_t pg = aStack[--nStack];
    int depth = aDepth[nStack], hdr = pg==1 ? 100 : 0, i, leaf;
    if( ++nSeen > s->nPage || depth>=MAX_DEPTH ){
      sqlite3_snprintf(sizeof(p->zErr), p->zErr, "database disk image is malformed (page %u: a loop in the tree)", pg);
      rc = SQLITE_CORRUPT;
      break;
    }
    if( !ga_snap_proven(s, pg) ){
      *pzWhy = sqlite3_mprintf(WAL_UNSEEN);
      rc = GA_REFUSED;
      break;
    }
    /* Every leaf of a b-tree is at the same depth (integrity_check: "child
    ** page depth differs"), the first one's, found down the left edge: the
    ** others are not read here (decoding checks their type). */
    if( depth==leafDepth ){
      leaf = 1;
    }else if( (rc = ga_snap_read(s, pg, 1, b, 0))!=SQLITE_OK ){
      if( rc==SQLITE_CORRUPT ) sqlite3_snprintf(sizeof(p->zErr), p->zErr, "database disk image is malformed (page %u beyond the end of the file)", pg);
      break;
    }else if( (leaf = b[hdr]==0x0d)!=0 && leafDepth>=0 ){
      sqlite3_snprintf(sizeof(p->zErr), p->zErr, "database disk image is malformed (page %u: a leaf at depth %d, others at %d)",
                       pg, depth, leafDepth);
      rc = SQLITE_CORRUPT;
      break;
    }
    if( leaf ){
      if( leafDepth<0 ) leafDepth = depth;
      if( p->nLeaf==nAlloc ){
        uint32_t *a = sqlite3_realloc64(p->aLeaf, sizeof(uint32_t)*(sqlite3_uint64)(nAlloc = nAlloc ? 2*nAlloc : 1024));
        if( a==0 ){ rc = SQLITE_NOMEM; break; }
        p->aLeaf = a;
      }
      p->aLeaf[p->nLeaf++] = pg;
      if( pg>p->maxLeaf ) p->maxLeaf = pg;
      continue;
    }
    if( (rc = ga_interior(b, usable, pg, s->nPage, aKid, &n, p->zErr, sizeof(p->zErr)))!=SQLITE_OK ) break;
    if( nStack + (size_t)n > room ){
      uint32_t *a2 = realloc(aStack, 2*(room + n)*sizeof(uint32_t));
      unsigned char *d2 = a2 ? realloc(aDepth, 2*(room + n)) : 0;
      if( a2 ) aStack = a2;
      if( d2 ) aDepth = d2;
      if( !a2 || !d2 ){ rc = SQLITE_NOMEM; break; }
      room = 2*(room + n);
    }
    for(i=n-1; i>=0; i--){          /* the first child on top */
      aStack[nStack] = aKid[i];
      aDepth[nStack++] = (unsigned char)(depth + 1);
    }
  }
  free(aStack); free(aDepth); free(aKid); free(b);
  return rc;
}

/* A page source of table t opened: the description's checks, the pinned
** transaction, the root, page 1's header and the leaves (4); with nCol 0,
** no columns (the tree alone: ga_pages_rows). NULL as ga_colsrc_pages. */
static PageSrc *pagesOpen(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                          const char *const *azCol, const unsigned char *aWant, int *prc, char **pzWhy){
  PageSrc *p = sqlite3_malloc(sizeof(PageSrc));
  const char *zDb = t->zDb, *zTab = t->zTab;
  uint32_t root = 0;
  int rc = SQLITE_OK, ver = 0;
  *pzWhy = 0;
  if( p==0 ){
    *prc = SQLITE_NOMEM;
    return 0;
  }
  memset(p, 0, sizeof(*p));
  p->base.xScan = pagesScan;
  p->base.xErrmsg = pagesErrmsg;
  p->base.xClose = pagesClose;
  p->db = db;
  p->conn = conn;
  /* What the description says (tvf.c resolved it, once). Without
  ** table_list the kind and WITHOUT ROWID are not known: nothing proves
  ** the table is a rowid b-tree, so SQL reads it. */
  rc = GA_REFUSED;
  if( nCol>GA_COLS_MAX ) *pzWhy = sqlite3_mprintf("%d columns", nCol);
  else if( t->noList ) *pzWhy = sqlite3_mprintf("SQLite %s has no table_list pragma", sqlite3_libversion());
  else if( t->zKind==0 ) *pzWhy = sqlite3_mprintf("not a table of this connection's schemas");
  else if( strcmp(t->zKind, "table")!=0 && strcmp(t->zKind, "shadow")!=0 ) *pzWhy = sqlite3_mprintf("a %s", t->zKind);
  else if( t->withoutRowid ) *pzWhy = sqlite3_mprintf("a WITHOUT ROWID table");
  else rc = SQLITE_OK;
  /* From here on, in the pinned transaction. */
  if( rc==SQLITE_OK ) rc = ga_snap_open(&p->snap, db, conn, zDb, pzWhy);
  /* The same schema as described? The cookie was read before the table
  ** was, and every schema change moves it: equal, the description holds
  ** in this transaction too. */
  if( rc==SQLITE_OK ) rc = ga_schema_version(db, zDb, &ver);
  if( rc==SQLITE_OK && ver!=t->schemaVersion ){
    *pzWhy = sqlite3_mprintf("table %s changed", zTab);
    rc = GA_REFUSED;
  }
  if( rc==SQLITE_OK ) rc = rootOf(db, zDb, zTab, &root);
  if( rc==SQLITE_OK && root==0 ){
    *pzWhy = sqlite3_mprintf("table %s changed", zTab);
    rc = GA_REFUSED;
  }
  if( rc==SQLITE_OK && nCol>0 ) rc = planOf(p, zDb, zTab, nCol, azCol, aWant, pzWhy);
  if( rc==SQLITE_OK ) rc = headerOf(p, pzWhy);
  if( rc==SQLITE_OK ) rc = leavesOf(p, root, pzWhy);
  if( rc==SQLITE_OK ) return p;
  if( rc!=GA_REFUSED && *pzWhy==0 ){
    *pzWhy = sqlite3_mprintf("%s", p->zErr[0] ? p->zErr : rc==SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
  }
  *prc = rc;
  pagesClose(&p->base);
  return 0;
}

ga_colsrc *ga_colsrc_pages(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                           const char *const *azCol, const unsigned char *aWant, int *prc, char **pzWhy){
  PageSrc *p;
  int nTh, most, want;
  if( nCol<1 ){
    *pzWhy = sqlite3_mprintf("%d columns", nCol);
    *prc = GA_REFUSED;
    return 0;
  }
  if( (p = pagesOpen(db, conn, t, nCol, azCol, aWant, prc, pzWhy))==0 ) return 0;
  nTh = conn && conn->threads>1 ? conn->threads : 1;
  most = SEG_BYTES/p->snap.pgsz;
  want = (p->nLeaf + 4*nTh - 1)/(4*nTh);
  p->perSeg = want<1 ? 1 : want>most ? (most<1 ? 1 : most) : want;
  p->nSeg = (p->nLeaf + p->perSeg - 1)/p->perSeg;
  /* 3b: a leaf holds at most (usable - 8)/6 cells (each 4 bytes or more, and its 2-byte pointer) */
  p->base.nRowMax = (int64_t)p->nLeaf*((p->plan.usable - 8)/6 + 1);
  return &p->base;
}

int ga_pages_rows(sqlite3 *db, ga_conn *conn, const ga_table *t, int64_t *pnRow, char **pzWhy){
  PageSrc *p;
  unsigned char *b;
  int64_t nCell = 0;
  int rc = SQLITE_OK, k, m;
  *pnRow = 0;
  if( (p = pagesOpen(db, conn, t, 0, 0, 0, &rc, pzWhy))==0 ) return rc;
  m = p->nLeaf<GA_ROWS_SAMPLE ? p->nLeaf : GA_ROWS_SAMPLE;
  if( (b = malloc((size_t)p->snap.pgsz))==0 ) rc = SQLITE_NOMEM;
  for(k=0; rc==SQLITE_OK && k<m; k++){
    uint32_t pg = p->aLeaf[(int64_t)k*p->nLeaf/m];
    int n;
    if( !ga_snap_proven(&p->snap, pg) ){
      *pzWhy = sqlite3_mprintf(WAL_UNSEEN);
      rc = GA_REFUSED;
    }else if( (rc = ga_snap_read(&p->snap, pg, 1, b, 0))==SQLITE_OK
           && (n = ga_leaf_cells(b, p->plan.usable, pg, p->zErr, sizeof(p->zErr)))<0 ){
      *pzWhy = sqlite3_mprintf("%s", p->zErr);
      rc = SQLITE_CORRUPT;
    }else if( rc==SQLITE_OK ){
      nCell += n;
    }
  }
  if( rc==SQLITE_OK ){
    *pnRow = m==p->nLeaf ? nCell : (int64_t)((double)nCell*p->nLeaf/m + 0.5);
  }
  free(b);
  pagesClose(&p->base);
  return rc;
}
