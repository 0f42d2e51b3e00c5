/*
** The column cache: a table's decoded columns kept between queries, per
** connection, in host memory and on the device, and a column source
** (colsrc.h) that serves them again.
**
**   1. An entry is one column of one table (schema, table, column) as a
**      column source hands it over: each row's class and value, and the
**      TEXT and BLOB cells the scan asked for (GA_COL_BYTES, GA_COL_NUMERIC),
**      with the snapshot identity it was read in (snap.h, 7). A column with
**      no TEXT or BLOB value serves any scan of it, whatever it asks.
**   2. It is used only by a scan whose own snapshot has the same identity
**      (snap.h, 7): the same file, and in rollback modes the same change
**      counter, in WAL mode the same salts and mxFrame. Any commit, from
**      this connection or another or another process, a schema change or
**      VACUUM changes that; a rollback does not (the pages are the same).
**      Within one file that identity is SQLite's own (its page cache is kept
**      across transactions on the same bytes). The file is the one the main
**      schema's pager holds open for the connection's life, so no other
**      file can take its inode; a different file at its name has another.
**      An entry found with another identity is dropped (an invalidation).
**   3. Nothing is cached, and nothing used, for attached schemas: DETACH
**      closes the file, and a file made later can get its inode and every
**      counter SQLite exposes (a fresh WAL's are all zero), so no identity
**      tells the two apart. Nor where the snapshot has no identity or is
**      refused (snap.h, 5: this connection's write transaction, shared
**      cache, temp and in-memory databases, other VFSes, an unproven WAL
**      snapshot), nor for views: the scan runs as before.
**   4. A scan whose columns are all kept is served from them (a hit); else
**      it runs through the source that would serve it anyway (pages or
**      statement) and its columns are kept as they pass, if they fit.
**   5. Where the connection may use CUDA and a context exists (a cache never
**      makes one), a kept column with no TEXT or BLOB value also goes to the
**      device (backend/cuda_resident.c), and a hit offers it (xResident):
**      the functions then answer with kernels on it, with no scan, and read
**      the host copy if the device fails. A device without room evicts
**      entries and tries again; then the column stays in host memory only.
**   6. At most gpuagg_config('cache') bytes are kept, host and device
**      together (0: none); the least recently used entries go first;
**      setting it lower frees at once. The default (-1) is a quarter of the
**      devices' free memory (together) when the first columns are kept with a context,
**      and no caching where CUDA cannot serve the connection. Entries in use
**      by a scan are freed when it ends.
**   7. Per connection: the check rests on the connection's own snapshot,
**      and entries die with it.
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "snap.h"

struct ga_centry {
  ga_centry *next;                  /* the next less recently used */
  char *zDb, *zTab, *zCol;          /* which column (one allocation, zDb first) */
  unsigned char want;               /* what the scan asked of it (GA_COL_*) */
  unsigned char id[GA_SNAP_ID];     /* the snapshot it was read in */
  int64_t n;                        /* rows */
  unsigned char *type;              /* each row's class */
  int64_t *v;                       /* each row's value, or its cell's index */
  ga_cell *cell;                    /* TEXT and BLOB cells, their bytes in arena */
  int64_t nCell;                    /* ... how many */
  char *arena;                      /* the cells' bytes */
  int plain;                        /* no TEXT or BLOB value: serves every want */
  ga_resident res;                  /* its device form (res.d), or none; its counts */
  int64_t devBytes;                 /* device memory res.d takes */
  int64_t bytes;                    /* all it holds, host and device */
  uint64_t used;                    /* the cache's tick at its last use */
  int nRef;                         /* scans serving from it */
  int dead;                         /* unlinked: freed when nRef drops to 0 */
};

static void entryFree(ga_centry *e){
#ifdef GPUAGG_CUDA
  ga_dcol_free(e->res.d);
#endif
  free(e->zDb);
  free(e->type);
  free(e->v);
  free(e->cell);
  free(e->arena);
  free(e);
}

/* Unlink e (at *pp) from the cache; free it unless a scan holds it. */
static void entryDrop(ga_cache *c, ga_centry **pp){
  ga_centry *e = *pp;
  *pp = e->next;
  c->bytes -= e->bytes;
  c->devBytes -= e->devBytes;
#ifdef GPUAGG_CUDA
  {
    int i;
    for(i=0; i<GA_DEV_MAX; i++) c->devBytesOn[i] -= ga_dcol_bytes_on(e->res.d, i);
  }
#endif
  c->nEntry--;
  if( e->nRef ) e->dead = 1;
  else entryFree(e);
}

/* Drop the least recently used entries until what is kept, plus need, fits. */
static void cacheTrim(ga_cache *c, int64_t need){
  while( c->pFirst && c->bytes + need > c->budget ){
    ga_centry **pp = &c->pFirst;
    while( (*pp)->next ) pp = &(*pp)->next;
    entryDrop(c, pp);
    c->nEvict++;
  }
}

void ga_cache_budget(ga_cache *c, int64_t budget){
  c->budget = budget;
  cacheTrim(c, 0);
#ifdef GPUAGG_CUDA
  if( c->nEntry==0 && c->dres ){
    ga_dres_free(c->dres);
    c->dres = 0;
  }
#endif
}

int ga_cache_row_at(const ga_cache *c, int i, ga_cache_row *r){
  const ga_centry *e = c->pFirst;
  while( e && i-- > 0 ) e = e->next;
  if( e==0 ) return 0;
  r->zDb = e->zDb;
  r->zTab = e->zTab;
  r->zCol = e->zCol;
  r->n = e->n;
  r->bytes = e->bytes;
  r->devBytes = e->devBytes;
  r->used = e->used;
  return 1;
}

void ga_cache_device_hit(ga_cache *c, double ms){
  c->nDevHit++;
  c->devMs += ms;
}

/* ---- recording what passes ---------------------------------------------------------- */

/* One column being recorded. */
typedef struct Rec {
  int64_t n, nAlloc;                /* rows, room */
  unsigned char *type;
  int64_t *v;
  ga_cell *cell;                    /* z holds the offset in arena until kept */
  int64_t nCell, nCellAlloc;
  char *arena;
  int64_t nArena, nArenaAlloc;
} Rec;

/* Room for n more of sz bytes at *pa (have in use, *pAlloc room). */
static int roomFor(void **pa, int64_t have, int64_t n, int64_t *pAlloc, size_t sz){
  if( have + n > *pAlloc ){
    int64_t na = *pAlloc ? *pAlloc : 1024;
    void *p;
    while( na < have + n ) na *= 2;
    if( (p = realloc(*pa, (size_t)na*sz))==0 ) return SQLITE_NOMEM;
    *pa = p;
    *pAlloc = na;
  }
  return SQLITE_OK;
}

static int64_t recBytes(const Rec *r){
  return r->n*9 + r->nCell*(int64_t)sizeof(ga_cell) + r->nArena;
}

/* Append batch column b (n rows) to r; TEXT and BLOB cells if want asks. */
static int recAdd(Rec *r, const ga_colvec *b, int n, unsigned char want){
  int64_t nType = r->nAlloc, nV = r->nAlloc;
  int i;
  if( roomFor((void**)&r->type, r->n, n, &nType, 1) || roomFor((void**)&r->v, r->n, n, &nV, 8) ) return SQLITE_NOMEM;
  r->nAlloc = nType<nV ? nType : nV;
  memcpy(r->type + r->n, b->type, (size_t)n);
  memcpy(r->v + r->n, b->v, (size_t)n*8);
  for(i=0; want && i<n; i++){
    int t = b->type[i];
    if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
      const ga_cell *x = &b->cell[b->v[i]];
      ga_cell *y;
      if( roomFor((void**)&r->cell, r->nCell, 1, &r->nCellAlloc, sizeof(ga_cell))
       || roomFor((void**)&r->arena, r->nArena, x->n + 1, &r->nArenaAlloc, 1) ){
        return SQLITE_NOMEM;
      }
      y = &r->cell[r->nCell];
      *y = *x;
      y->z = (const void*)(intptr_t)r->nArena;
      if( x->n ) memcpy(r->arena + r->nArena, x->z, (size_t)x->n);
      r->arena[r->nArena + x->n] = 0;
      r->nArena += x->n + 1;
      r->v[r->n + i] = r->nCell++;
    }
  }
  r->n += n;
  return SQLITE_OK;
}

static void recFree(Rec *r){
  free(r->type); free(r->v); free(r->cell); free(r->arena);
  memset(r, 0, sizeof(*r));
}

/* ---- the source ------------------------------------------------------------------------ */

typedef struct CacheSrc {
  ga_colsrc base;                   /* the interface */
  ga_colsink tee;                   /* records, then forwards to sink */
  ga_colsink *sink;                 /* the scan's sink */
  ga_conn *conn;                    /* whose cache */
  ga_snap snap;                     /* the transaction, pinned; its identity */
  char *zDb, *zTab;                 /* the table */
  int nCol;                         /* columns */
  char *azCol[GA_COLS_MAX];         /* their names */
  unsigned char aWant[GA_COLS_MAX]; /* what the scan asks of each */
  ga_centry *aEnt[GA_COLS_MAX];     /* each one's entry, held; all or none */
  ga_colsrc *inner;                 /* the source that reads the table, on a miss */
  Rec *aRec;                        /* the columns being recorded; NULL: not */
  int64_t nRec;                     /* bytes recorded */
} CacheSrc;

static int teeBatch(ga_colsink *pSink, const ga_colbatch *b){
  CacheSrc *p = (CacheSrc*)((char*)pSink - offsetof(CacheSrc, tee));
  int c;
  if( p->aRec ){
    int ok = 1;
    for(c=0; c<p->nCol && ok; c++){
      p->nRec -= recBytes(&p->aRec[c]);
      ok = recAdd(&p->aRec[c], &b->col[c], b->n, p->aWant[c])==SQLITE_OK;
      p->nRec += recBytes(&p->aRec[c]);
    }
    /* Will not fit: stop recording (an automatic budget not settled yet: at
    ** most what a histogram may keep). */
    if( !ok || p->nRec > (p->conn->cache.budget==GA_CACHE_AUTO ? p->conn->resident : p->conn->cache.budget) ){
      for(c=0; c<p->nCol; c++) recFree(&p->aRec[c]);
      free(p->aRec);
      p->aRec = 0;
    }
  }
  return p->sink->xBatch(p->sink, b);
}

/* The counts a device form needs, of recorded column r; 0 if it holds TEXT
** or BLOB values (no device form). */
static int residentOf(const Rec *r, ga_resident *x){
  int64_t i;
  memset(x, 0, sizeof(*x));
  x->n = r->n;
  x->eMin = 0x7ff;
  x->eMax = -1;
  for(i=0; i<r->n; i++){
    switch( r->type[i] ){
      case SQLITE_INTEGER: x->nInt++; break;
      case SQLITE_NULL:    x->nNull++; break;
      case SQLITE_FLOAT: {
        int e = (int)(((uint64_t)r->v[i] >> 52) & 0x7ff);
        x->nReal++;
        if( e==0x7ff ) x->nInf++;
        else if( ((uint64_t)r->v[i] << 1)!=0 ){
          if( e<x->eMin ) x->eMin = e;
          if( e>x->eMax ) x->eMax = e;
        }
        break;
      }
      default: return 0;
    }
  }
  return 1;
}

#ifdef GPUAGG_CUDA
/* Drop the least recently used entry no scan holds; 0 if there is none. */
static int evictOne(ga_cache *c){
  ga_centry **pp, **pLast = 0;
  for(pp=&c->pFirst; *pp; pp=&(*pp)->next){
    if( (*pp)->nRef==0 ) pLast = pp;
  }
  if( pLast==0 ) return 0;
  entryDrop(c, pLast);
  c->nEvict++;
  return 1;
}

/* e's device form, split across the nDev devices the connection uses;
** where a device has no room, entries are evicted and it is tried again.
** Any failure leaves e in host memory only. */
static void deviceKeep(ga_cache *c, int nDev, ga_centry *e){
  char zErr[GA_ERRLEN];
  int64_t nb = 0;
  int rc, i;
  while( (rc = ga_dcol_make(e->type, e->v, e->n, nDev, &e->res.d, &nb, zErr))==GA_DEV_NOMEM && evictOne(c) ){}
  if( rc ) return;
  for(i=0; i<GA_DEV_MAX; i++) c->devBytesOn[i] += ga_dcol_bytes_on(e->res.d, i);
  e->devBytes = nb;
  e->bytes += nb;
  c->bytes += nb;
  c->devBytes += nb;
}
#endif

/* Whether kept columns also go to the device: the connection's mode allows
** CUDA and a context exists (a cache never creates one). An automatic
** budget is settled here, at the first columns kept with a context. */
static int deviceWanted(ga_conn *conn){
#ifdef GPUAGG_CUDA
  if( conn->mode!=GA_CPU && ga_cuda_backend.xWarm() ){
    if( conn->cache.budget==GA_CACHE_AUTO ){
      int64_t fr = ga_cuda_free_bytes(conn->devices);
      if( fr>0 ) conn->cache.budget = fr/4;
    }
    return 1;
  }
#else
  (void)conn;
#endif
  return 0;
}

/* The recorded columns become entries (all, or none if memory fails), on
** the device too where they can (deviceWanted, residentOf). */
static void keep(CacheSrc *p){
  ga_cache *cc = &p->conn->cache;
  ga_centry *aNew[GA_COLS_MAX], **pp;
  ga_resident aRes[GA_COLS_MAX];
  unsigned char aDev[GA_COLS_MAX], aPlain[GA_COLS_MAX];
  size_t nDb = strlen(p->zDb) + 1, nTab = strlen(p->zTab) + 1;
  int64_t need = p->nRec;
  int c, ok = 1, dev = deviceWanted(p->conn);
  if( cc->budget<=0 ) return;                        /* automatic, and no context */
  for(c=0; c<p->nCol; c++){
    aPlain[c] = (unsigned char)residentOf(&p->aRec[c], &aRes[c]);
    aDev[c] = aPlain[c] && dev;
#ifdef GPUAGG_CUDA
    if( aDev[c] ) need += ga_dcol_bytes(aRes[c].n, aRes[c].nInt + aRes[c].nReal);
#endif
  }
  /* Entries these supersede go first, then the least recently used. */
  for(pp=&cc->pFirst; *pp; ){
    ga_centry *o = *pp;
    for(c=0; c<p->nCol; c++){
      if( strcmp(o->zDb, p->zDb)==0 && strcmp(o->zTab, p->zTab)==0 && sqlite3_stricmp(o->zCol, p->azCol[c])==0
       && (o->want & ~p->aWant[c])==0 ) break;
    }
    if( c<p->nCol ) entryDrop(cc, pp);
    else pp = &o->next;
  }
  if( need > cc->budget ){                          /* host memory only, if that fits */
    memset(aDev, 0, sizeof(aDev));
    need = p->nRec;
  }
  cacheTrim(cc, need);
  if( cc->bytes + need > cc->budget ) return;        /* scans hold what would make room */
  for(c=0; c<p->nCol; c++){
    Rec *r = &p->aRec[c];
    size_t nCol = strlen(p->azCol[c]) + 1;
    ga_centry *e = aNew[c] = ok ? calloc(1, sizeof(ga_centry)) : 0;
    int64_t i;
    if( e==0 || (e->zDb = malloc(nDb + nTab + nCol))==0 ){
      ok = 0;
      continue;
    }
    e->zTab = e->zDb + nDb;
    e->zCol = e->zTab + nTab;
    memcpy(e->zDb, p->zDb, nDb);
    memcpy(e->zTab, p->zTab, nTab);
    memcpy(e->zCol, p->azCol[c], nCol);
    e->want = p->aWant[c];
    memcpy(e->id, p->snap.id, GA_SNAP_ID);
    e->n = r->n;
    e->type = r->type; e->v = r->v; e->cell = r->cell; e->nCell = r->nCell; e->arena = r->arena;
    for(i=0; i<e->nCell; i++) e->cell[i].z = e->arena + (intptr_t)e->cell[i].z;
    e->bytes = recBytes(r);
    e->res = aRes[c];
    e->plain = aPlain[c];
    memset(r, 0, sizeof(*r));
  }
  for(c=0; c<p->nCol; c++){
    ga_centry *e = aNew[c];
    if( !ok ){                      /* all or none */
      if( e ){ if( e->zDb ) entryFree(e); else free(e); }
      continue;
    }
    e->used = ++cc->tick;
    e->next = cc->pFirst;
    cc->pFirst = e;
    cc->bytes += e->bytes;
    cc->nEntry++;
    e->nRef++;                      /* a second scan of this source replays it */
    p->aEnt[c] = e;
  }
#ifdef GPUAGG_CUDA
  for(c=0; ok && c<p->nCol; c++){
    if( aDev[c] ) deviceKeep(cc, p->conn->devices, aNew[c]);
  }
#endif
}

static int cacheScan(ga_colsrc *pSrc, ga_colsink *sink){
  CacheSrc *p = (CacheSrc*)pSrc;
  ga_colvec col[GA_COLS_MAX];
  ga_colbatch b;
  int64_t i;
  int c, rc = SQLITE_OK;
  if( p->aEnt[0]==0 ){
    /* A miss: the table is read, and kept if the scan ends well. */
    if( p->inner==0 ) return SQLITE_ERROR;
    p->sink = sink;
    p->nRec = 0;
    if( p->aRec==0 && (p->aRec = calloc((size_t)p->nCol, sizeof(Rec)))==0 ) return p->inner->xScan(p->inner, sink);
    rc = p->inner->xScan(p->inner, &p->tee);
    if( rc==SQLITE_OK && p->aRec ) keep(p);
    if( p->aRec ){
      for(c=0; c<p->nCol; c++) recFree(&p->aRec[c]);
      free(p->aRec);
      p->aRec = 0;
    }
    return rc;
  }
  b.nCol = p->nCol;
  b.col = col;
  for(i=0; i<p->aEnt[0]->n && rc==SQLITE_OK; i+=GA_BATCH){
    b.n = p->aEnt[0]->n - i < GA_BATCH ? (int)(p->aEnt[0]->n - i) : GA_BATCH;
    for(c=0; c<p->nCol; c++){
      col[c].type = p->aEnt[c]->type + i;
      col[c].v = p->aEnt[c]->v + i;
      col[c].cell = p->aEnt[c]->cell;
    }
    rc = sink->xBatch(sink, &b);
  }
  return rc;
}

static ga_resident *cacheResident(ga_colsrc *pSrc, int i){
  CacheSrc *p = (CacheSrc*)pSrc;
  return i>=0 && i<p->nCol && p->aEnt[i] && p->aEnt[i]->res.d ? &p->aEnt[i]->res : 0;
}

static const char *cacheErrmsg(ga_colsrc *pSrc){
  CacheSrc *p = (CacheSrc*)pSrc;
  return p->inner ? p->inner->xErrmsg(p->inner) : "";
}

static void cacheClose(ga_colsrc *pSrc){
  CacheSrc *p = (CacheSrc*)pSrc;
  int c;
  for(c=0; c<p->nCol; c++){
    ga_centry *e = p->aEnt[c];
    if( e && --e->nRef==0 && e->dead ) entryFree(e);
    sqlite3_free(p->azCol[c]);
  }
  if( p->inner ) p->inner->xClose(p->inner);
  ga_snap_close(&p->snap);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zTab);
  sqlite3_free(p);
}

/* The entry for column zCol of p's table that p's scan can use, or NULL.
** Entries of p's schema read in another snapshot are dropped on the way. */
static ga_centry *entryFind(CacheSrc *p, const char *zCol, unsigned char want){
  ga_cache *cc = &p->conn->cache;
  ga_centry **pp = &cc->pFirst, *hit = 0;
  while( *pp ){
    ga_centry *e = *pp;
    if( strcmp(e->zDb, p->zDb)==0 && memcmp(e->id, p->snap.id, GA_SNAP_ID)!=0 ){
      entryDrop(cc, pp);
      cc->nInval++;
      continue;
    }
    if( !hit && strcmp(e->zDb, p->zDb)==0 && strcmp(e->zTab, p->zTab)==0 && sqlite3_stricmp(e->zCol, zCol)==0
     && ((want & ~e->want)==0 || e->plain) ){
      hit = e;
    }
    pp = &e->next;
  }
  if( hit ){                        /* to the front */
    for(pp=&cc->pFirst; *pp!=hit; pp=&(*pp)->next){}
    *pp = hit->next;
    hit->next = cc->pFirst;
    cc->pFirst = hit;
  }
  return hit;
}

/* Whether scans are to be cached at all: a budget, or the automatic one
** where CUDA could serve (settled when columns are kept, deviceWanted). */
static int cacheOn(ga_conn *conn){
  char zWhy[GA_ERRLEN];
  if( conn->cache.budget!=GA_CACHE_AUTO ) return conn->cache.budget>0;
  if( conn->mode==GA_CPU || !ga_cuda_usable(zWhy) ) return 0;
  deviceWanted(conn);                       /* settles the budget if a context exists */
  return 1;
}

/* ga_colsrc_cache's work; the caller times it. */
static ga_colsrc *cacheOpen(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                            const char *const *azCol, const unsigned char *aWant, int *pHit){
  CacheSrc *p;
  char *zWhy = 0;
  int c, n = 0;
  if( !cacheOn(conn) || nCol<1 || nCol>GA_COLS_MAX || (p = sqlite3_malloc(sizeof(CacheSrc)))==0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->base.xScan = cacheScan;
  p->base.xErrmsg = cacheErrmsg;
  p->base.xClose = cacheClose;
  p->base.xResident = cacheResident;
  p->tee.xBatch = teeBatch;
  p->conn = conn;
  p->nCol = nCol;
  for(c=0; c<nCol; c++){
    p->aWant[c] = aWant ? aWant[c] : 0;
    if( (p->azCol[c] = sqlite3_mprintf("%s", azCol[c]))==0 ) n = -1;
  }
  if( n<0 || t->zKind==0 || strcmp(t->zDb, "main")!=0 || strcmp(t->zKind, "table")!=0
   || (p->zDb = sqlite3_mprintf("%s", t->zDb))==0 || (p->zTab = sqlite3_mprintf("%s", t->zTab))==0
   || ga_snap_open(&p->snap, db, conn, p->zDb, &zWhy)!=SQLITE_OK || !p->snap.haveId ){
    sqlite3_free(zWhy);
    cacheClose(&p->base);
    return 0;
  }
  for(c=0; c<nCol; c++){
    if( (p->aEnt[c] = entryFind(p, azCol[c], p->aWant[c]))!=0 ) n++;
  }
  if( n==nCol && nCol>0 ){
    for(c=1; c<nCol && p->aEnt[c]->n==p->aEnt[0]->n; c++){}
    if( c==nCol ){
      for(c=0; c<nCol; c++){
        p->aEnt[c]->nRef++;
        p->aEnt[c]->used = ++conn->cache.tick;
      }
      conn->cache.nHit++;
      *pHit = 1;
      return &p->base;
    }
  }
  memset(p->aEnt, 0, sizeof(p->aEnt));
  conn->cache.nMiss++;
  return &p->base;
}

ga_colsrc *ga_colsrc_cache(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                           const char *const *azCol, const unsigned char *aWant, int *pHit){
  double t0 = ga_now_ms();
  ga_colsrc *p;
  *pHit = 0;
  p = cacheOpen(db, conn, t, nCol, azCol, aWant, pHit);
  conn->cache.checkMs += ga_now_ms() - t0;
  return p;
}

void ga_cache_read_by(ga_colsrc *pSrc, ga_colsrc *inner){
  ((CacheSrc*)pSrc)->inner = inner;
}
