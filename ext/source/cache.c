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
**   1a. Its TEXT and BLOB values are dictionary-encoded (colsrc.h,
**      ga_resident): each distinct (class, bytes) is kept once (where only
**      their numbers were asked for, each distinct (class, number)), with its
**      cell and the row it first appeared in; the dictionary is sorted when
**      the column is kept, TEXT by BINARY then BLOB by bytes, and a row's
**      value is its place there. A replay hands rows the same cells, shared
**      by equal values. Its memory counts against the budget like the rest.
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
**   4a. Where the scan's sink takes batches on several threads (xPar), each
**      thread records the batches it hands on, into a part of its own (its
**      own dictionaries); when the scan ends well, the parts are merged in
**      scan order (by the batches' pos), a column a thread, so that the
**      columns kept are those a scan on one thread keeps: the same rows in
**      the same order, one dictionary, each entry's first row the scan's.
**      A recording that passes the budget, or fails for memory, stops; the
**      scan goes on without it.
**   4b. A source opened to record (a reader whose read cannot use kept
**      columns, for a later one that can: gpu_query's first read) is none
**      on a hit, and keeps what passes only if it is
**      gpuagg_config('threshold') rows or more. Where the table's rowids
**      span fewer (max minus min plus one, read in the caller's
**      transaction, each from one end of the b-tree, not by a scan), it
**      could keep nothing: none is opened, and the reader serves alone, not
**      recording what each read would throw away (here,
**      2 cores, a cache budget on the CPU backend, TPC-H SF 0.1: a join of
**      supplier's 1,000 rows and nation's 25, 1.74 -> 0.66 ms a read on one
**      thread, 1.94 -> 1.20 on two).
**   4c. A hit whose sink takes batches on several threads hands them out
**      on that many threads (hitPar), as a page source's workers would.
**   4d. Where the source that reads the table bounds its rows (nRowMax:
**      the page source) and a batch says where its rows are (at1), the
**      recording writes them straight into the columns to be kept, made
**      that large at the start (memory is only touched where rows land;
**      in transparent huge pages where the kernel gives them, so that the
**      workers' first writes fault once every 2 MiB, not every 4 KiB);
**      only their TEXT and BLOB places are put in the merged dictionary's
**      order at the end, and the columns shrunk to the rows. Other batches
**      go through the parts' slabs as in 4a. A merge that finds a placed
**      batch anywhere but where the scan order puts it keeps nothing.
**   5. Where the connection may use CUDA and a context exists (a cache never
**      makes one itself: columns kept before one have the device backend
**      make it on a thread of its own once the read that kept them ends,
**      ga_cache_read_done, so that it does not slow that read), a kept
**      column (TEXT and BLOB as their places in the dictionary, if their
**      cells were asked for) also goes to the device
**      (the backend's xColMake), and a hit offers it (xResident):
**      the functions then answer with kernels on it, with no scan, and read
**      the host copy if the device fails. A device without room evicts
**      entries and tries again; then the column stays in host memory only.
**   6. At most gpuagg_config('cache') bytes are kept, host and device
**      together (0: none); the least recently used entries go first;
**      setting it lower frees at once. The default (-1) is a quarter of the
**      devices' free memory (together) when the first columns are kept with a context,
**      and no caching where CUDA cannot serve the connection. Columns kept
**      before any context (a first read makes none: its operators are the
**      CPU's) are kept in host memory within gpuagg_config('resident'), and
**      go to the device at the first read over them that wants it; the
**      budget is then settled as above (the least recently used entries
**      going if it is smaller). Entries in use
**      by a scan are freed when it ends.
**   6a. What is kept beside the columns for their reads counts too:
**      - a hold (ga_cache_hold): a gpu_query table's compiled plan, a
**        join's tables among it, resting on the entries it was made from.
**        Room is made for it as for columns; it goes when any of those
**        entries goes (stale, evicted, the budget), its holder told then
**        (xDrop; a hold in use by a read waits for the read's end);
**      - the device's work memory (the backend's buffers for gpu_query's
**        programs over kept columns: a program's tables, grouping rows),
**        measured after each read (ga_cache_work). Where the columns and holds leave
**        it no room, its buffers are given back (xResTrim: the next read
**        makes them again) before any entry is evicted. A read may
**        exceed the budget while it runs.
**   7. Per connection: the check rests on the connection's own snapshot,
**      and entries die with it.
*/
#define _GNU_SOURCE                 /* qsort_r */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "colsrc.h"
#include "kmap.h"
#include "snap.h"

typedef struct ga_centry ga_centry;
typedef struct ga_chold ga_chold;

/* A connection's kept columns (conn->cache). */
struct ga_cache {
  int64_t budget;           /* most bytes kept (gpuagg_config 'cache'); 0: none;
                            ** GA_CACHE_AUTO: not yet known */
  int hostShare;            /* budget is automatic, settled without a context: the
                            ** host's share (conn->resident) until the first context */
  int64_t bytes;            /* bytes kept, in host and device memory (holds, work too) */
  int64_t devBytes;         /* ... of them in device memory */
  int64_t devBytesOn[GA_DEV_MAX]; /* ... by device */
  const ga_backend *be;     /* the backend that keeps the device forms, or NULL */
  ga_dres *dres;            /* its state for the work on them, or NULL */
  int nEntry;               /* columns kept */
  ga_centry *pFirst;        /* them, the most recently used first */
  ga_chold *pHold;          /* memory held beside them (6a) */
  int64_t holdBytes;        /* ... its bytes (counted in bytes) */
  int64_t workBytes;        /* the device's work memory (dres), at the last read (in bytes) */
  uint64_t tick;            /* uses so far (an entry's last use) */
  int64_t nHit, nMiss;      /* scans served from it, scans that read the table ... */
  int64_t nSmall;           /* ... of which not recorded: the table's rowids span fewer than the
                            ** threshold (4b) */
  int64_t nInval, nEvict;   /* columns dropped as stale, and to keep to the budget */
  int64_t nDevHit;          /* hits answered by kernels on the device form */
  double checkMs;           /* time spent finding entries and checking them */
  double devMs;             /* time of those answers on the device */
  int warmDue;              /* columns kept in host memory for a device before any context:
                            ** one to be made when the read ends (ga_cache_read_done) */
};

struct ga_centry {
  ga_centry *next;                  /* the next less recently used */
  char *zDb, *zTab, *zCol;          /* which column (one allocation, zDb first) */
  unsigned char want;               /* what the scan asked of it (GA_COL_*) */
  unsigned char id[GA_SNAP_ID];     /* the snapshot it was read in */
  int64_t n;                        /* rows */
  unsigned char *type;              /* each row's class */
  int64_t *v;                       /* each row's value, or its place in the dictionary */
  ga_cell *cell;                    /* the dictionary (dictSort's order), bytes in arena */
  int64_t *cellRow;                 /* ... each entry's first row */
  int64_t nCell;                    /* ... how many */
  char *arena;                      /* the entries' bytes */
  int plain;                        /* no TEXT or BLOB value: serves every want */
  ga_resident res;                  /* its device form (res.d), or none; its counts */
  int64_t devBytes;                 /* device memory res.d takes */
  int64_t bytes;                    /* all it holds, host and device */
  uint64_t used;                    /* the cache's tick at its last use */
  int nRef;                         /* scans serving from it */
  int dead;                         /* unlinked: freed when nRef drops to 0 */
};

/* Memory kept beside kept columns for their reads (6a). */
struct ga_chold {
  ga_chold *next;                   /* the cache's next hold */
  int64_t bytes;                    /* what it counts */
  uint64_t aGen[GA_COLS_MAX];       /* the entries it rests on (ga_resident.gen) */
  int nGen;
  void (*xDrop)(void*);             /* tells the holder it is gone (to free its memory) */
  void *p;                          /* ... xDrop's argument */
  int busy;                         /* reads using it: a drop waits for the last */
  int dead;                         /* dropped while busy */
};

/* Unlink hold *pp; tell its holder, now or when its reads end. */
static void holdDrop(ga_cache *c, ga_chold **pp){
  ga_chold *h = *pp;
  *pp = h->next;
  c->bytes -= h->bytes;
  c->holdBytes -= h->bytes;
  if( h->busy ){
    h->dead = 1;
  }else{
    h->xDrop(h->p);
    ga_free(h);
  }
}

/* Drop the holds resting on entry gen. */
static void holdsOn(ga_cache *c, uint64_t gen){
  ga_chold **pp = &c->pHold;
  while( *pp ){
    int i;
    for(i=0; i<(*pp)->nGen && (*pp)->aGen[i]!=gen; i++){}
    if( i<(*pp)->nGen ) holdDrop(c, pp);
    else pp = &(*pp)->next;
  }
}

/* The device's work memory as it is now, counted. */
static void workCount(ga_cache *c){
  int64_t w = c->dres && c->be->xResBytes ? c->be->xResBytes(c->dres) : 0;
  c->bytes += w - c->workBytes;
  c->workBytes = w;
}

/* Give back the device's work buffers (6a): whether that freed any. */
static int workTrim(ga_cache *c){
  int64_t w = c->workBytes;
  if( c->dres && c->be->xResTrim && w>0 ){
    c->be->xResTrim(c->dres);
    workCount(c);
  }
  return c->workBytes<w;
}

static void entryFree(ga_centry *e){
  if( e->res.d ) e->res.be->xColFree(e->res.d);
  free(e->zDb);
  free(e->type);
  free(e->v);
  free(e->cell);
  free(e->cellRow);
  free(e->arena);
  free(e);
}

/* Unlink e (at *pp) from the cache; free it unless a scan holds it. */
static void entryDrop(ga_cache *c, ga_centry **pp){
  ga_centry *e = *pp;
  *pp = e->next;
  c->bytes -= e->bytes;
  c->devBytes -= e->devBytes;
  if( e->res.d ){
    int i;
    for(i=0; i<GA_DEV_MAX; i++) c->devBytesOn[i] -= e->res.be->xColBytesOn(e->res.d, i);
  }
  c->nEntry--;
  holdsOn(c, e->res.gen);
  if( e->nRef ) e->dead = 1;
  else entryFree(e);
}

/* Give back the work buffers, then drop the least recently used entries,
** until what is kept, plus need, fits. */
static void cacheTrim(ga_cache *c, int64_t need){
  if( c->bytes + need > c->budget ) workTrim(c);
  while( c->pFirst && c->bytes + need > c->budget ){
    ga_centry **pp = &c->pFirst;
    while( (*pp)->next ) pp = &(*pp)->next;
    entryDrop(c, pp);
    c->nEvict++;
  }
}

void ga_cache_budget(ga_cache *c, int64_t budget){
  if( c==0 ) return;
  c->budget = budget;
  c->hostShare = 0;
  cacheTrim(c, 0);
  if( c->nEntry==0 && c->dres ){
    c->be->xResFree(c->dres);
    c->dres = 0;
    workCount(c);
  }
}

int64_t ga_cache_budget_of(const ga_cache *c){
  return c==0 ? 0 : c->hostShare ? GA_CACHE_AUTO : c->budget;
}

void ga_cache_clear(ga_cache *c){
  int64_t b = c ? c->budget : 0;
  int h = c ? c->hostShare : 0;
  ga_cache_budget(c, 0);
  if( c ){
    c->budget = b;
    c->hostShare = h;
  }
}

static ga_cache *cacheNew(void){
  ga_cache *c = sqlite3_malloc(sizeof(*c));
  if( c ){
    memset(c, 0, sizeof(*c));
    c->budget = GA_CACHE_AUTO;
  }
  return c;
}

static void cacheFree(ga_cache *c){
  ga_cache_budget(c, 0);
  assert( c==0 || c->pHold==0 );            /* (holds rest on entries) */
  ga_free(c);
}

static void cacheForget(ga_conn *conn){
  cacheFree(conn->cache);
  conn->cache = 0;
}

void ga_cache_attach(ga_conn *conn){
  if( conn->cache==0 && (conn->cache = cacheNew())!=0 ) ga_conn_on_free(conn, cacheForget);
}

static int evictOne(ga_cache *c);

/* Whether entry gen is kept (and, where busy, in use by a scan). */
static int genKept(const ga_cache *c, uint64_t gen, int busy){
  const ga_centry *e;
  for(e=c->pFirst; e && e->res.gen!=gen; e=e->next){}
  return e!=0 && (!busy || e->nRef>0);
}

/* What no eviction can free now: the entries scans use, and the holds
** resting on those alone. */
static int64_t pinnedBytes(const ga_cache *c){
  const ga_centry *e;
  const ga_chold *h;
  int64_t n = 0;
  int i;
  for(e=c->pFirst; e; e=e->next) if( e->nRef ) n += e->bytes;
  for(h=c->pHold; h; h=h->next){
    for(i=0; i<h->nGen && genKept(c, h->aGen[i], 1); i++){}
    if( i==h->nGen ) n += h->bytes;
  }
  return n;
}

ga_chold *ga_cache_hold(ga_cache *c, int64_t bytes, const uint64_t *aGen, int nGen, void (*xDrop)(void*), void *p){
  ga_chold *h;
  int i;
  if( c==0 || c->budget<=0 || nGen<1 || nGen>GA_COLS_MAX ) return 0;
  for(i=0; i<nGen; i++) if( !genKept(c, aGen[i], 0) ) return 0;
  if( pinnedBytes(c) + bytes > c->budget ) return 0;      /* (evicting would not make room) */
  if( c->bytes + bytes > c->budget ) workTrim(c);
  while( c->bytes + bytes > c->budget && evictOne(c) ){}
  if( c->bytes + bytes > c->budget ) return 0;
  for(i=0; i<nGen; i++) if( !genKept(c, aGen[i], 0) ) return 0;   /* (one not in use, evicted) */
  if( (h = sqlite3_malloc(sizeof(*h)))==0 ) return 0;
  memset(h, 0, sizeof(*h));
  h->bytes = bytes;
  memcpy(h->aGen, aGen, sizeof(uint64_t)*(size_t)nGen);
  h->nGen = nGen;
  h->xDrop = xDrop;
  h->p = p;
  h->next = c->pHold;
  c->pHold = h;
  c->bytes += bytes;
  c->holdBytes += bytes;
  return h;
}

void ga_cache_unhold(ga_cache *c, ga_chold *h){
  ga_chold **pp;
  if( h==0 ) return;
  assert( h->busy==0 );
  for(pp=&c->pHold; *pp && *pp!=h; pp=&(*pp)->next){}
  if( *pp ){
    *pp = h->next;
    c->bytes -= h->bytes;
    c->holdBytes -= h->bytes;
  }
  ga_free(h);
}

void ga_cache_hold_use(ga_chold *h, int on){
  if( h==0 ) return;
  h->busy += on ? 1 : -1;
  assert( h->busy>=0 );
  if( h->busy==0 && h->dead ){
    h->xDrop(h->p);
    ga_free(h);
  }
}

void ga_cache_work(ga_cache *c){
  if( c==0 || c->dres==0 ) return;
  workCount(c);
  if( c->bytes > c->budget ) workTrim(c);
}

void ga_cache_describe(sqlite3_str *out, const ga_cache *c){
  static const ga_cache none = { 0 };
  if( c==0 ) c = &none;
  sqlite3_str_appendf(out, "\"cache\":{\"budget\":%lld,\"entries\":%d,\"bytes\":%lld,\"device_bytes\":%lld,"
                      "\"held_bytes\":%lld,\"work_bytes\":%lld,"
                      "\"hits\":%lld,\"device_hits\":%lld,\"misses\":%lld,\"small\":%lld,\"invalidations\":%lld,"
                      "\"evictions\":%lld,\"check_ms\":%.3f,\"device_ms\":%.3f}", (long long)c->budget, c->nEntry,
                      (long long)c->bytes, (long long)c->devBytes, (long long)c->holdBytes, (long long)c->workBytes,
                      (long long)c->nHit, (long long)c->nDevHit, (long long)c->nMiss, (long long)c->nSmall,
                      (long long)c->nInval, (long long)c->nEvict, c->checkMs, c->devMs);
}

int64_t ga_cache_device_bytes(const ga_cache *c, int d){
  return c && d>=0 && d<GA_DEV_MAX ? c->devBytesOn[d] : 0;
}

int ga_cache_row_at(const ga_cache *c, int i, ga_cache_row *r){
  const ga_centry *e = c ? c->pFirst : 0;
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
  if( c==0 ) return;
  c->nDevHit++;
  c->devMs += ms;
}

/* ---- recording what passes ---------------------------------------------------------- */

/* n rows' classes counted into x (ga_resident's counts: eMin and eMax
** start at 0x7ff and -1). */
static void countRows(const unsigned char *type, const int64_t *v, int64_t n, ga_resident *x){
  int64_t i;
  for(i=0; i<n; i++){
    switch( type[i] ){
      case SQLITE_INTEGER: x->nInt++; break;
      case SQLITE_NULL:    x->nNull++; break;
      case SQLITE_TEXT:    x->nText++; break;
      case SQLITE_BLOB:    x->nBlob++; break;
      case SQLITE_FLOAT: {
        int e = (int)(((uint64_t)v[i] >> 52) & 0x7ff);
        x->nReal++;
        if( e==0x7ff ) x->nInf++;
        else if( ((uint64_t)v[i] << 1)!=0 ){
          if( e<x->eMin ) x->eMin = e;
          if( e>x->eMax ) x->eMax = e;
        }
        break;
      }
    }
  }
}

/* One column recorded. Its TEXT and BLOB values form a dictionary: each
** distinct (class, bytes) once, numbered as first seen. A part's (4a) is
** its dictionary alone, its rows in its chunks; recMerge's has the rows,
** each TEXT or BLOB row's v its entry's place once dictSort has put the
** dictionary in order. */
typedef struct Rec {
  int64_t n, nAlloc;                /* rows, room */
  unsigned char *type;              /* each row's class */
  int64_t *v;                       /* each row's value, or its dictionary entry */
  ga_cell *cell;                    /* the dictionary (z: the offset in arena until kept) */
  unsigned char *cellType;          /* ... each entry's class */
  int64_t *cellRow;                 /* ... its first row */
  uint64_t *cellHash;               /* ... the hash of its class and bytes */
  uint64_t *cellW;                  /* ... two words that are its bytes where they are 16 or fewer
                                    ** (textWords) */
  int64_t nCell, nCellAlloc;        /* entries, room */
  int64_t *slot;                    /* entry + 1 by hash slot; 0: empty */
  int64_t nSlot;                    /* slots: a power of two, at least twice nCell */
  char *arena;                      /* the entries' bytes, each NUL-terminated */
  int64_t nArena, nArenaAlloc;      /* bytes in use, room */
  int counted;                      /* cnt holds the rows' counts (recMerge's) */
  ga_resident cnt;                  /* ... */
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

/* What the dictionary takes per entry, besides its bytes. */
#define DICT_ENTRY ((int64_t)(sizeof(ga_cell) + 1 + 8 + 8 + 16 + 16))

/* Bytes z[0..n) as two words w[0], w[1] that are equal for equal bytes of
** one length, and tell any two of one length apart up to 16 (loads that
** cover every byte), and their hash (the rest of the bytes in it past 16):
** the dictionary's probe, once a row, compares no bytes where they are
** few. */
static uint64_t textWords(const unsigned char *z, int n, uint64_t *w){
  uint64_t h;
  w[0] = w[1] = 0;
  if( n>=8 ){
    memcpy(&w[0], z, 8);
    memcpy(&w[1], z + n - 8, 8);
  }else if( n>=4 ){
    uint32_t a, b;
    memcpy(&a, z, 4);
    memcpy(&b, z + n - 4, 4);
    w[0] = a | (uint64_t)b << 32;
  }else if( n>0 ){
    w[0] = z[0] | (uint64_t)z[n/2] << 8 | (uint64_t)z[n - 1] << 16;
  }
  h = ga_mix64(w[0] ^ ga_mix64(w[1] ^ (uint64_t)n));
  return n>16 ? h ^ ga_hash_bytes(z, n) : h;
}

static int64_t recBytes(const Rec *r){
  return r->n*9 + r->nCell*DICT_ENTRY + r->nArena;
}

/* The dictionary entry of cell x of class t (first seen at row), asked for
** as want says: found, or made. Entries are equal values: the same class
** and bytes, or, where the bytes were not asked for (GA_COL_NUMERIC
** alone), the same number. -1 when out of memory. */
static int64_t recEntry(Rec *r, int t, const ga_cell *x, unsigned char want, int64_t row){
  int bytes = (want & GA_COL_BYTES)!=0;
  uint64_t w[2] = { 0, 0 }, h;
  int64_t s, id;
  if( bytes ) h = textWords((const unsigned char*)x->z, x->n, w);
  else h = ga_mix64((uint64_t)x->num ^ (uint64_t)x->numType);
  if( t==SQLITE_BLOB ) h ^= 0x6a09e667f3bcc909ull;
  if( 2*(r->nCell + 1) > r->nSlot ){
    int64_t ns = r->nSlot ? 2*r->nSlot : 1024, i;
    int64_t *a = calloc((size_t)ns, sizeof(int64_t));
    if( a==0 ) return -1;
    for(i=0; i<r->nCell; i++){
      for(s = (int64_t)(r->cellHash[i] & (uint64_t)(ns-1)); a[s]; s = (s+1) & (ns-1)){}
      a[s] = i + 1;
    }
    free(r->slot);
    r->slot = a;
    r->nSlot = ns;
  }
  for(s = (int64_t)(h & (uint64_t)(r->nSlot-1)); r->slot[s]; s = (s+1) & (r->nSlot-1)){
    id = r->slot[s] - 1;
    if( r->cellHash[id]!=h || r->cellType[id]!=t ) continue;
    if( !bytes ){
      if( r->cell[id].numType==x->numType && r->cell[id].num==x->num ) return id;
    }else if( r->cell[id].n==x->n && r->cellW[2*id]==w[0] && r->cellW[2*id + 1]==w[1]
           && (x->n<=16 || memcmp(r->arena + (intptr_t)r->cell[id].z, x->z, (size_t)x->n)==0) ){
      return id;
    }
  }
  if( r->nCell==r->nCellAlloc ){
    int64_t na = r->nCellAlloc ? 2*r->nCellAlloc : 256;
    ga_cell *pc = realloc(r->cell, sizeof(ga_cell)*(size_t)na);
    unsigned char *pt = pc ? realloc(r->cellType, (size_t)na) : 0;
    int64_t *pr = pt ? realloc(r->cellRow, sizeof(int64_t)*(size_t)na) : 0;
    uint64_t *ph = pr ? realloc(r->cellHash, sizeof(uint64_t)*(size_t)na) : 0;
    uint64_t *pw = ph ? realloc(r->cellW, 2*sizeof(uint64_t)*(size_t)na) : 0;
    if( pc ) r->cell = pc;
    if( pt ) r->cellType = pt;
    if( pr ) r->cellRow = pr;
    if( ph ) r->cellHash = ph;
    if( pw==0 ) return -1;
    r->cellW = pw;
    r->nCellAlloc = na;
  }
  if( roomFor((void**)&r->arena, r->nArena, (bytes ? x->n : 0) + 1, &r->nArenaAlloc, 1) ) return -1;
  id = r->nCell++;
  r->cell[id] = *x;
  if( !bytes ) r->cell[id].n = 0;
  r->cell[id].z = (const void*)(intptr_t)r->nArena;
  r->cellType[id] = (unsigned char)t;
  r->cellRow[id] = row;
  r->cellHash[id] = h;
  r->cellW[2*id] = w[0];
  r->cellW[2*id + 1] = w[1];
  if( r->cell[id].n ) memcpy(r->arena + r->nArena, x->z, (size_t)x->n);
  r->arena[r->nArena + r->cell[id].n] = 0;
  r->nArena += r->cell[id].n + 1;
  r->slot[s] = id + 1;
  return id;
}

/* Batch column b's n rows into type and v, their TEXT and BLOB values
** numbered by r's dictionary if want asks for their cells (each entry's
** first row counted from row0); r's rows counted. */
static int recAdd(Rec *r, const ga_colvec *b, int n, unsigned char want, unsigned char *type, int64_t *v,
                  int64_t row0){
  int i;
  memcpy(type, b->type, (size_t)n);
  memcpy(v, b->v, (size_t)n*8);
  for(i=0; want && i<n; i++){
    int t = b->type[i];
    if( t==SQLITE_TEXT || t==SQLITE_BLOB ){
      int64_t id = recEntry(r, t, &b->cell[b->v[i]], want, row0 + i);
      if( id<0 ) return SQLITE_NOMEM;
      v[i] = id;
    }
  }
  r->n += n;
  return SQLITE_OK;
}

static void recFree(Rec *r){
  free(r->type); free(r->v); free(r->cell); free(r->cellType); free(r->cellRow); free(r->cellHash); free(r->cellW);
  free(r->slot); free(r->arena);
  memset(r, 0, sizeof(*r));
}

/* Sign of a - b for dictionary entries: TEXT before BLOB, then the bytes
** (BINARY: memcmp, then length). */
static int cmpEntry(const void *pa, const void *pb, void *pArg){
  const Rec *r = (const Rec*)pArg;
  int64_t a = *(const int64_t*)pa, b = *(const int64_t*)pb;
  int na = r->cell[a].n, nb = r->cell[b].n, k = na<nb ? na : nb, c;
  if( r->cellType[a]!=r->cellType[b] ) return r->cellType[a]<r->cellType[b] ? -1 : 1;
  c = k ? memcmp(r->arena + (intptr_t)r->cell[a].z, r->arena + (intptr_t)r->cell[b].z, (size_t)k) : 0;
  return c ? c : na<nb ? -1 : na>nb;
}

/* The 8 bytes of entry e from byte off on, as a big-endian word (zeros past its end). */
static uint64_t wordAt(const Rec *r, int64_t e, int off){
  const unsigned char *z = (const unsigned char*)r->arena + (intptr_t)r->cell[e].z + off;
  int m = r->cell[e].n - off, b;
  uint64_t k = 0;
  if( m>8 ) m = 8;
  for(b=0; b<m; b++) k |= (uint64_t)z[b] << (56 - 8*b);
  return k;
}

/* ord[0..n), entries of one class whose first off bytes are alike, sorted
** by the word at off (an LSD radix sort of its bytes: no comparison), then
** each run of equal words by the next word, and so on; a run of few, or of
** entries no longer than off + 8, by cmpEntry. key, key2, ord2: room for n. */
static void sortFrom(const Rec *r, int64_t *ord, int64_t n, int off, uint64_t *key, uint64_t *key2, int64_t *ord2){
  int64_t i, j, cnt[256];
  int pass, longer = 0;
  if( n<=16 ){
    qsort_r(ord, (size_t)n, sizeof(int64_t), cmpEntry, (void*)r);
    return;
  }
  for(i=0; i<n; i++){
    key[i] = wordAt(r, ord[i], off);
    if( r->cell[ord[i]].n>off + 8 ) longer = 1;
  }
  for(pass=0; pass<8; pass++){     /* (a byte every key shares: no pass) */
    int64_t tot = 0;
    memset(cnt, 0, sizeof(cnt));
    for(i=0; i<n; i++) cnt[(key[i] >> 8*pass) & 0xff]++;
    if( cnt[(key[0] >> 8*pass) & 0xff]==n ) continue;
    for(j=0; j<256; j++){ int64_t c = cnt[j]; cnt[j] = tot; tot += c; }
    for(i=0; i<n; i++){
      int64_t at = cnt[(key[i] >> 8*pass) & 0xff]++;
      key2[at] = key[i];
      ord2[at] = ord[i];
    }
    memcpy(key, key2, sizeof(uint64_t)*(size_t)n);
    memcpy(ord, ord2, sizeof(int64_t)*(size_t)n);
  }
  for(i=0; i<n; i=j){
    uint64_t k = key[i];
    for(j=i + 1; j<n && key[j]==k; j++){}
    if( j - i<2 ) continue;
    if( longer ) sortFrom(r, ord + i, j - i, off + 8, key + i, key2 + i, ord2 + i);
    else qsort_r(ord + i, (size_t)(j - i), sizeof(int64_t), cmpEntry, (void*)r);
  }
}

/* r's entries in cmpEntry's order into ord: TEXT then BLOB, each by its bytes
** a word at a time (sortFrom), not by qsort's comparisons of every pair
** (TPC-H's o_comment: 1.5M distinct values, whose qsort took most of a first
** read's recording). SQLITE_NOMEM leaves ord to the caller. */
static int sortByPrefix(const Rec *r, int64_t *ord){
  int64_t n = r->nCell, i, nText = 0, nBlob = 0;
  uint64_t *key = malloc(sizeof(uint64_t)*2*(size_t)(n ? n : 1));
  int64_t *ord2 = malloc(sizeof(int64_t)*(size_t)(n ? n : 1));
  if( key==0 || ord2==0 ){
    free(key);
    free(ord2);
    return SQLITE_NOMEM;
  }
  for(i=0; i<n; i++) if( r->cellType[i]==SQLITE_TEXT ) nText++;
  for(i=0; i<n; i++){
    if( r->cellType[i]==SQLITE_TEXT ) ord[i - nBlob] = i;
    else ord[nText + nBlob++] = i;
  }
  sortFrom(r, ord, nText, 0, key, key + n, ord2);
  sortFrom(r, ord + nText, nBlob, 0, key, key + n, ord2);
  free(key);
  free(ord2);
  return SQLITE_OK;
}

/* Put r's dictionary in SQL's order (TEXT by BINARY, then BLOB by bytes),
** *pRank (malloc'd, n entries) each old entry's place; the lookup table is
** freed (r takes no more entries). SQLITE_OK or SQLITE_NOMEM. */
static int dictSort(Rec *r, int64_t **pRank){
  int64_t n = r->nCell, i, *ord = malloc(sizeof(int64_t)*(size_t)(n ? n : 1));
  int64_t *rank = malloc(sizeof(int64_t)*(size_t)(n ? n : 1)), *row = malloc(sizeof(int64_t)*(size_t)(n ? n : 1));
  ga_cell *cell = malloc(sizeof(ga_cell)*(size_t)(n ? n : 1));
  unsigned char *ty = malloc((size_t)(n ? n : 1));
  *pRank = 0;
  if( ord==0 || rank==0 || row==0 || cell==0 || ty==0 ){
    free(ord); free(rank); free(row); free(cell); free(ty);
    return SQLITE_NOMEM;
  }
  if( sortByPrefix(r, ord)!=SQLITE_OK ){
    for(i=0; i<n; i++) ord[i] = i;
    qsort_r(ord, (size_t)n, sizeof(int64_t), cmpEntry, r);
  }
  for(i=0; i<n; i++){
    rank[ord[i]] = i;
    cell[i] = r->cell[ord[i]];
    row[i] = r->cellRow[ord[i]];
    ty[i] = r->cellType[ord[i]];
  }
  free(ord);
  free(r->cell); free(r->cellRow); free(r->cellType); free(r->cellHash); free(r->cellW); free(r->slot);
  r->cell = cell;
  r->cellRow = row;
  r->cellType = ty;
  r->cellHash = 0;
  r->cellW = 0;
  r->slot = 0;
  r->nSlot = 0;
  r->nCellAlloc = n;
  *pRank = rank;
  return SQLITE_OK;
}

/* ---- recording on several threads ---------------------------------------------------- */

/* A batch recorded: where it is in the scan, and its rows. */
typedef struct Chunk {
  int64_t pos;                      /* the batch's pos (colsrc.h: rises with scan order) */
  int64_t at;                       /* its first row among its part's */
  int64_t row0;                     /* its first row in the columns kept, where written there
                                    ** (4d: type and v NULL); -1: in the slabs */
  int64_t n;                        /* rows */
  unsigned char *type;              /* column c's classes at type + c*n */
  int64_t *v;                       /* ... its values (dictionary entries: the part's) at v + c*n */
  int part;                         /* whose, and its index there (recMerge's list of all chunks) */
  int64_t idx;
} Chunk;

/* Memory a part's chunks take their rows from: never moved, freed with it. */
typedef struct Slab {
  struct Slab *next;
  size_t used, size;                /* bytes given out of data, and its size */
  int64_t data[];
} Slab;

/* What one thread records: a worker's batches (xPar) or the scan thread's
** (xBatch), each column with a dictionary of its own, and where each batch
** belongs; recMerge puts the parts' rows in scan order. */
typedef struct RecPart {
  Rec *aRec;                        /* [nCol] its columns' dictionaries (their type, v unused) */
  Chunk *aChunk;                    /* its batches, in the order it recorded them */
  int64_t nChunk, nChunkAlloc;
  int64_t nRow;                     /* rows */
  Slab *pSlab;                      /* where their rows are, the newest first */
  int64_t nBytes;                   /* what it takes (recBytes's measure) */
} RecPart;

#define SLAB_BYTES (1<<20)

/* The columns to be kept, where batches are written in place (4d). */
typedef struct Direct {
  int64_t n;                        /* room: rows */
  unsigned char *aT[GA_COLS_MAX];   /* each column's classes */
  int64_t *aV[GA_COLS_MAX];         /* ... and values */
} Direct;

/* n bytes (a multiple of 8) of part q's slabs, or NULL. */
static void *slabAlloc(RecPart *q, size_t n){
  Slab *b = q->pSlab;
  if( b==0 || b->size - b->used < n ){
    size_t sz = n>SLAB_BYTES ? n : SLAB_BYTES;
    if( (b = malloc(sizeof(Slab) + sz))==0 ) return 0;
    b->used = 0;
    b->size = sz;
    b->next = q->pSlab;
    q->pSlab = b;
  }
  b->used += n;
  return (char*)b->data + b->used - n;
}

static void partFree(RecPart *q, int nCol){
  int c;
  for(c=0; q->aRec && c<nCol; c++) recFree(&q->aRec[c]);
  free(q->aRec);
  free(q->aChunk);
  while( q->pSlab ){
    Slab *b = q->pSlab;
    q->pSlab = b->next;
    free(b);
  }
  memset(q, 0, sizeof(*q));
}

/* Batch b (of nCol columns, as want asks) into part q, counted into
** *pnAll; stopped (*pStop) where the parts together pass limit bytes or
** memory fails. Workers record at once, each into its own part. Where d
** has room for where b says its rows are, they go there (4d). */
static void partAdd(RecPart *q, int nCol, const unsigned char *aWant, const ga_colbatch *b, const Direct *d,
                    int64_t *pnAll, int64_t limit, int *pStop){
  int64_t before = q->nBytes, after = 0;
  size_t nT = ((size_t)nCol*(size_t)b->n + 7) & ~(size_t)7;
  Chunk *k = 0;
  int c, ok;
  if( __atomic_load_n(pStop, __ATOMIC_RELAXED) ) return;
  ok = (q->aRec || (q->aRec = calloc((size_t)nCol, sizeof(Rec)))!=0)
    && roomFor((void**)&q->aChunk, q->nChunk, 1, &q->nChunkAlloc, sizeof(Chunk))==SQLITE_OK;
  if( ok ){
    k = &q->aChunk[q->nChunk];
    k->pos = b->pos;
    k->at = q->nRow;
    k->n = b->n;
    k->part = 0;
    k->row0 = d && b->at1>0 && b->at1 - 1 + b->n<=d->n ? b->at1 - 1 : -1;
    k->type = 0;
    k->v = 0;
    ok = k->row0>=0
      || ((k->type = slabAlloc(q, nT))!=0 && (k->v = slabAlloc(q, 8*(size_t)nCol*(size_t)b->n))!=0);
  }
  for(c=0; c<nCol && ok; c++){
    unsigned char *t = k->row0>=0 ? d->aT[c] + k->row0 : k->type + (size_t)c*b->n;
    int64_t *v = k->row0>=0 ? d->aV[c] + k->row0 : k->v + (size_t)c*b->n;
    ok = recAdd(&q->aRec[c], &b->col[c], b->n, aWant[c], t, v, q->nRow)==SQLITE_OK;
  }
  if( ok ){
    q->nChunk++;
    q->nRow += b->n;
    for(c=0; c<nCol; c++) after += recBytes(&q->aRec[c]);
  }
  q->nBytes = after;
  if( !ok || __atomic_add_fetch(pnAll, after - before, __ATOMIC_RELAXED) > limit ){
    __atomic_store_n(pStop, 1, __ATOMIC_RELAXED);
  }
}

static int cmpChunk(const void *pa, const void *pb){
  const Chunk *a = (const Chunk*)pa, *b = (const Chunk*)pb;
  return a->pos<b->pos ? -1 : a->pos>b->pos;
}

/* Part q's local row i as a row of the scan: aAt[k] the scan row of q's
** chunk k's first row (q's chunks are in the order of their rows). */
static int64_t scanRow(const RecPart *q, const int64_t *aAt, int64_t i){
  int64_t lo = 0, hi = q->nChunk - 1;
  while( lo<hi ){                   /* the last chunk starting at or before i */
    int64_t mid = (lo + hi + 1)/2;
    if( q->aChunk[mid].at<=i ) lo = mid; else hi = mid - 1;
  }
  return aAt[lo] + (i - q->aChunk[lo].at);
}

/* A merge's state, shared by its threads: first the parts' dictionaries of
** TEXT and BLOB bytes sorted (a task a column and part), then each column's
** dictionary (a task a column: those parts' merged in order, the others'
** looked up and sorted), then the rows (a task a column and run of chunks). */
typedef struct Merge {
  RecPart *aPart; int nPart;        /* the parts */
  const unsigned char *aWant;       /* what the scan asked of each column */
  Rec *out;                         /* the columns merged */
  int nCol;                         /* ... how many */
  const Chunk *all; int64_t nAll;   /* every part's chunks in scan order */
  Direct *d;                        /* the columns the placed chunks are in (4d), or NULL */
  int64_t **aAt;                    /* [part][chunk]: its first row in the scan */
  int64_t nRow;                     /* rows */
  int64_t **aMap;                   /* [column*nPart + part]: its entries' places in the column's */
  int64_t **aRank;                  /* [column*nPart + part]: a column of bytes, each entry's place
                                    ** in its part's dictionary sorted (phase 0) */
  int nTask, next;                  /* the phase's tasks, the next one (atomic) */
  int phase;                        /* 0: the parts' dictionaries of bytes sorted, 1: each column's
                                    ** dictionary, 2: rows */
  int rc;                           /* SQLITE_OK, or SQLITE_NOMEM (atomic) */
  pthread_mutex_t mu;               /* guards the columns' counts (Rec.cnt) */
} Merge;

#define MERGE_CHUNKS 64             /* chunks (of up to GA_BATCH rows) a task of rows copies */

/* Part entries a and b (of parts' dictionaries qa and qb) compared as
** cmpEntry compares one dictionary's. */
static int cmpPartEntry(const Rec *qa, int64_t a, const Rec *qb, int64_t b){
  int na = qa->cell[a].n, nb = qb->cell[b].n, k = na<nb ? na : nb, c;
  if( qa->cellType[a]!=qb->cellType[b] ) return qa->cellType[a]<qb->cellType[b] ? -1 : 1;
  c = k ? memcmp(qa->arena + (intptr_t)qa->cell[a].z, qb->arena + (intptr_t)qb->cell[b].z, (size_t)k) : 0;
  return c ? c : na<nb ? -1 : na>nb;
}

/* Is r's dictionary in SQL's order, each value once (mergeSorted's assert)? */
static int dictOrdered(const Rec *r){
  int64_t e;
  for(e=1; e<r->nCell; e++) if( cmpPartEntry(r, e - 1, r, e)>=0 ) return 0;
  return 1;
}

/* Column c's dictionary of bytes from the parts' sorted ones (phase 0), in
** one pass that takes the least head of the parts' (a heap of parts) and
** keeps each value once: no lookup, no sort of the whole. */
static int mergeSorted(Merge *m, int c){
  Rec *r = &m->out[c];
  int64_t **aMap = &m->aMap[(size_t)c*m->nPart], **aRank = &m->aRank[(size_t)c*m->nPart];
  int64_t nAll = 0, nBytes = 0, e, *aPos = 0, **aId = 0;
  int *heap = 0, nHeap = 0, w, rc = SQLITE_NOMEM;
  const Rec *aQ[GA_THREADS_MAX + 2];
  assert( m->nPart<=GA_THREADS_MAX + 2 );
  for(w=0; w<m->nPart; w++){
    aQ[w] = m->aPart[w].nChunk && m->aPart[w].aRec[c].nCell ? &m->aPart[w].aRec[c] : 0;
    if( aQ[w] ){ nAll += aQ[w]->nCell; nBytes += aQ[w]->nArena; }
  }
  if( (r->cell = malloc(sizeof(ga_cell)*(size_t)(nAll + 1)))==0 || (r->cellType = malloc((size_t)nAll + 1))==0
   || (r->cellRow = malloc(sizeof(int64_t)*(size_t)(nAll + 1)))==0 || (r->arena = malloc((size_t)nBytes + 1))==0
   || (heap = malloc(sizeof(int)*(size_t)m->nPart))==0 || (aPos = calloc((size_t)m->nPart, sizeof(int64_t)))==0
   || (aId = calloc((size_t)m->nPart, sizeof(int64_t*)))==0 ){
    goto done;
  }
  r->nCellAlloc = nAll + 1;
  r->nArenaAlloc = nBytes + 1;
  for(w=0; w<m->nPart; w++){
    int i;
    if( aQ[w]==0 ) continue;
    if( (aId[w] = malloc(sizeof(int64_t)*(size_t)aQ[w]->nCell))==0 ) goto done;
    /* into the heap: a part's place holds a head no greater than its children's */
    for(i=nHeap++; i>0 && cmpPartEntry(aQ[w], 0, aQ[heap[(i - 1)/2]], aPos[heap[(i - 1)/2]])<0; i=(i - 1)/2){
      heap[i] = heap[(i - 1)/2];
    }
    heap[i] = w;
  }
  while( nHeap>0 ){
    const Rec *q;
    int64_t row, id;
    int i = 0, k;
    w = heap[0];
    q = aQ[w];
    e = aPos[w];
    row = scanRow(&m->aPart[w], m->aAt[w], q->cellRow[e]);
    if( r->nCell>0 && cmpPartEntry(r, r->nCell - 1, q, e)==0 ){
      id = r->nCell - 1;
      if( row<r->cellRow[id] ) r->cellRow[id] = row;
    }else{
      id = r->nCell++;
      r->cell[id] = q->cell[e];
      r->cell[id].z = (const void*)(intptr_t)r->nArena;
      r->cellType[id] = q->cellType[e];
      r->cellRow[id] = row;
      if( q->cell[e].n ) memcpy(r->arena + r->nArena, q->arena + (intptr_t)q->cell[e].z, (size_t)q->cell[e].n);
      r->arena[r->nArena + q->cell[e].n] = 0;
      r->nArena += q->cell[e].n + 1;
    }
    aId[w][e] = id;
    /* the part's next head, else its last place's part, sifted down from the top */
    if( ++aPos[w]>=q->nCell ) w = heap[--nHeap];
    while( (k = 2*i + 1)<nHeap ){
      if( k + 1<nHeap && cmpPartEntry(aQ[heap[k + 1]], aPos[heap[k + 1]], aQ[heap[k]], aPos[heap[k]])<0 ) k++;
      if( cmpPartEntry(aQ[heap[k]], aPos[heap[k]], aQ[w], aPos[w])>=0 ) break;
      heap[i] = heap[k];
      i = k;
    }
    if( nHeap>0 ) heap[i] = w;
  }
  for(w=0; w<m->nPart; w++){
    if( aQ[w]==0 ) continue;
    if( (aMap[w] = malloc(sizeof(int64_t)*(size_t)aQ[w]->nCell))==0 ) goto done;
    for(e=0; e<aQ[w]->nCell; e++) aMap[w][e] = aId[w][aRank[w][e]];
  }
  assert( dictOrdered(r) );
  rc = SQLITE_OK;
done:
  for(w=0; aId && w<m->nPart; w++) free(aId[w]);
  free(aId);
  free(aPos);
  free(heap);
  return rc;
}

/* Column c's dictionary from the parts', in SQL's order (each entry's first
** row the earliest in the scan), and each part's entries' places in it;
** its arrays of rows made. */
static int mergeDict(Merge *m, int c){
  Rec *r = &m->out[c];
  int64_t **aMap = &m->aMap[(size_t)c*m->nPart], *rank = 0, e;
  int w;
  if( m->d ){                       /* (4d: the rows are there already, in part) */
    r->type = m->d->aT[c];
    r->v = m->d->aV[c];
    m->d->aT[c] = 0;
    m->d->aV[c] = 0;
    r->nAlloc = m->d->n;
  }else{
    if( roomFor((void**)&r->type, 0, m->nRow, &r->nAlloc, 1) ) return SQLITE_NOMEM;
    r->nAlloc = 0;
    if( roomFor((void**)&r->v, 0, m->nRow, &r->nAlloc, 8) ) return SQLITE_NOMEM;
  }
  r->n = m->nRow;
  if( m->aWant[c] & GA_COL_BYTES ) return mergeSorted(m, c);
  for(w=0; w<m->nPart; w++){
    const Rec *q = m->aPart[w].nChunk ? &m->aPart[w].aRec[c] : 0;
    if( q==0 || q->nCell==0 ) continue;
    if( (aMap[w] = malloc(sizeof(int64_t)*(size_t)q->nCell))==0 ) return SQLITE_NOMEM;
    for(e=0; e<q->nCell; e++){
      ga_cell x = q->cell[e];
      int64_t row = scanRow(&m->aPart[w], m->aAt[w], q->cellRow[e]), id;
      x.z = q->arena + (intptr_t)q->cell[e].z;
      if( (id = recEntry(r, q->cellType[e], &x, m->aWant[c], row))<0 ) return SQLITE_NOMEM;
      if( row<r->cellRow[id] ) r->cellRow[id] = row;
      aMap[w][e] = id;
    }
  }
  if( dictSort(r, &rank) ) return SQLITE_NOMEM;
  for(w=0; w<m->nPart; w++){
    const Rec *q = m->aPart[w].nChunk ? &m->aPart[w].aRec[c] : 0;
    for(e=0; aMap[w] && e<q->nCell; e++) aMap[w][e] = rank[aMap[w][e]];
  }
  free(rank);
  return SQLITE_OK;
}

/* Task t of the rows: column t % nCol's rows of a run of MERGE_CHUNKS
** chunks, each entry of a part's dictionary as its place in the column's. */
static void mergeRows(Merge *m, int t){
  int c = t % m->nCol;
  int64_t i, i1 = (int64_t)(t / m->nCol + 1)*MERGE_CHUNKS;
  Rec *r = &m->out[c];
  ga_resident x;
  memset(&x, 0, sizeof(x));
  x.eMin = 0x7ff;
  x.eMax = -1;
  for(i=i1 - MERGE_CHUNKS; i<i1 && i<m->nAll; i++){
    const Chunk *k = &m->all[i];
    const int64_t *map = m->aMap[(size_t)c*m->nPart + k->part];
    int64_t j, to = m->aAt[k->part][k->idx];
    if( k->row0<0 ){                /* (else in its place: 4d) */
      memcpy(r->type + to, k->type + (size_t)c*k->n, (size_t)k->n);
      memcpy(r->v + to, k->v + (size_t)c*k->n, (size_t)k->n*8);
    }
    countRows(r->type + to, r->v + to, k->n, &x);
    for(j=0; map && j<k->n; j++){
      int ty = r->type[to + j];
      if( ty==SQLITE_TEXT || ty==SQLITE_BLOB ) r->v[to + j] = map[r->v[to + j]];
    }
  }
  pthread_mutex_lock(&m->mu);
  r->cnt.nInt += x.nInt; r->cnt.nNull += x.nNull; r->cnt.nText += x.nText; r->cnt.nBlob += x.nBlob;
  r->cnt.nReal += x.nReal; r->cnt.nInf += x.nInf;
  if( x.eMin<r->cnt.eMin ) r->cnt.eMin = x.eMin;
  if( x.eMax>r->cnt.eMax ) r->cnt.eMax = x.eMax;
  pthread_mutex_unlock(&m->mu);
}

static void *mergeWorker(void *pArg){
  Merge *m = (Merge*)pArg;
  int t;
  while( (t = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED))<m->nTask
      && __atomic_load_n(&m->rc, __ATOMIC_RELAXED)==SQLITE_OK ){
    if( m->phase==0 ){
      int c = t / m->nPart;
      Rec *q = &m->aPart[t % m->nPart].aRec[c];
      if( (m->aWant[c] & GA_COL_BYTES) && m->aPart[t % m->nPart].nChunk && q->nCell
       && dictSort(q, &m->aRank[t])!=SQLITE_OK ){
        __atomic_store_n(&m->rc, SQLITE_NOMEM, __ATOMIC_RELAXED);
      }
    }else if( m->phase==1 ){
      if( mergeDict(m, t)!=SQLITE_OK ) __atomic_store_n(&m->rc, SQLITE_NOMEM, __ATOMIC_RELAXED);
    }else{
      mergeRows(m, t);
    }
  }
  return 0;
}

/* m's phase of nTask tasks on up to nThread threads. */
static void mergePhase(Merge *m, int phase, int nTask, int nThread){
  pthread_t aTh[GA_THREADS_MAX];
  int n = 0, i;
  m->phase = phase;
  m->nTask = nTask;
  m->next = 0;
  if( nThread>nTask ) nThread = nTask;
  if( nThread>GA_THREADS_MAX ) nThread = GA_THREADS_MAX;
  for(n=0; n<nThread - 1 && pthread_create(&aTh[n], 0, mergeWorker, m)==0; n++){}
  mergeWorker(m);
  for(i=0; i<n; i++) pthread_join(aTh[i], 0);
}

/* The parts' rows in scan order into out[nCol] (one dictionary a column,
** in SQL's order, each entry's first row the scan's), the parts freed; on
** up to nThread threads; the columns of d (NULL: none) taken where chunks
** were placed there (4d). SQLITE_OK, NOMEM, or SQLITE_ERROR where a placed
** chunk is not where the scan order puts it (nothing is kept then). */
static int recMerge(RecPart *aPart, int nPart, int nCol, const unsigned char *aWant, int nThread, Direct *d,
                    Rec *out){
  Chunk *all = 0;
  Merge m;
  int64_t nAll = 0, i;
  int w, c;
  memset(&m, 0, sizeof(m));
  for(w=0; w<nPart; w++) nAll += aPart[w].nChunk;
  if( nAll==0 ) return SQLITE_OK;  /* no rows: empty columns */
  m.aPart = aPart; m.nPart = nPart; m.aWant = aWant; m.out = out; m.nCol = nCol;
  if( (all = malloc(sizeof(Chunk)*(size_t)nAll))==0 || (m.aAt = calloc((size_t)nPart, sizeof(int64_t*)))==0
   || (m.aMap = calloc((size_t)nPart*(size_t)nCol, sizeof(int64_t*)))==0
   || (m.aRank = calloc((size_t)nPart*(size_t)nCol, sizeof(int64_t*)))==0 ){
    m.rc = SQLITE_NOMEM;
    goto done;
  }
  for(w=0, nAll=0; w<nPart; w++){
    for(i=0; i<aPart[w].nChunk; i++){
      all[nAll] = aPart[w].aChunk[i];
      all[nAll].part = w;
      all[nAll++].idx = i;
    }
    if( aPart[w].nChunk && (m.aAt[w] = malloc(sizeof(int64_t)*(size_t)aPart[w].nChunk))==0 ){
      m.rc = SQLITE_NOMEM;
      goto done;
    }
  }
  qsort(all, (size_t)nAll, sizeof(Chunk), cmpChunk);
  for(i=0; i<nAll; i++){
    if( all[i].row0>=0 ) m.d = d;
    if( all[i].row0>=0 && all[i].row0!=m.nRow ) m.rc = SQLITE_ERROR;
    m.aAt[all[i].part][all[i].idx] = m.nRow;
    m.nRow += all[i].n;
  }
  if( m.d && m.nRow>m.d->n ) m.rc = SQLITE_ERROR;
  if( m.rc!=SQLITE_OK ) goto done;
  m.all = all;
  m.nAll = nAll;
  for(c=0; c<nCol; c++){
    out[c].counted = 1;
    out[c].cnt.eMin = 0x7ff;
    out[c].cnt.eMax = -1;
  }
  pthread_mutex_init(&m.mu, 0);
  for(c=0; c<nCol && !(aWant[c] & GA_COL_BYTES); c++){}
  if( c<nCol ) mergePhase(&m, 0, nCol*nPart, nThread);
  if( m.rc==SQLITE_OK ) mergePhase(&m, 1, nCol, nThread);
  if( m.rc==SQLITE_OK ) mergePhase(&m, 2, nCol*(int)((nAll + MERGE_CHUNKS - 1)/MERGE_CHUNKS), nThread);
  pthread_mutex_destroy(&m.mu);
done:
  for(w=0; m.aAt && w<nPart; w++) free(m.aAt[w]);
  for(i=0; m.aMap && i<(int64_t)nPart*nCol; i++) free(m.aMap[i]);
  for(i=0; m.aRank && i<(int64_t)nPart*nCol; i++) free(m.aRank[i]);
  free(m.aAt);
  free(m.aMap);
  free(m.aRank);
  free(all);
  for(w=0; w<nPart; w++) partFree(&aPart[w], nCol);
  if( m.rc!=SQLITE_OK ) for(c=0; c<nCol; c++) recFree(&out[c]);
  return m.rc;
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
  Rec *aRec;                        /* the columns recorded, in scan order (recMerge); NULL: not */
  int64_t nRec;                     /* ... their bytes */
  RecPart *aPart;                   /* the recording: the workers' (xPar), then the scan thread's */
  int nPart;                        /* ... how many: the sink's nPar + 1 */
  int64_t nRecAll;                  /* bytes the parts hold (atomic: workers add to it) */
  int stop;                         /* recording stopped: too large, or out of memory (atomic) */
  int64_t minRows;                  /* fewer rows are not kept (ga_cache_min_rows) */
  Direct direct;                    /* the columns batches are written into in place (4d); n 0: none */
} CacheSrc;

/* The columns of d the merge did not take, freed. */
static void directFree(Direct *d){
  int c;
  for(c=0; c<GA_COLS_MAX; c++){
    free(d->aT[c]);
    free(d->aV[c]);
  }
  memset(d, 0, sizeof(*d));
}

/* A column of 4d, n bytes: where that is 2 MiB or more, aligned to 2 MiB
** and in transparent huge pages where the kernel gives them (madvise), so
** that the workers' first writes to it fault once a 2 MiB page, not once
** every 4 KiB (512 rows of values). */
static void *directAlloc(size_t n){
  void *p = 0;
  if( n<((size_t)2 << 20) ) return malloc(n);
  if( posix_memalign(&p, (size_t)2 << 20, n) ) return 0;
#ifdef MADV_HUGEPAGE
  (void)madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

/* 4d: the columns made for the rows the inner source bounds (their memory
** untouched until rows land), or none where it gives no bound or memory
** is short. */
static void directMake(CacheSrc *p){
  Direct *d = &p->direct;
  int64_t n = p->inner->nRowMax;
  int c;
  memset(d, 0, sizeof(*d));
  if( n<=0 || n>((int64_t)1<<40) ) return;
  for(c=0; c<p->nCol; c++){
    if( (d->aT[c] = directAlloc((size_t)n))==0 || (d->aV[c] = directAlloc(8*(size_t)n))==0 ){
      directFree(d);
      return;
    }
  }
  d->n = n;
}

/* A merged column that was made for the bound (4d), shrunk to its rows (in
** place: no copy). */
static void directShrink(Rec *r){
  void *t, *v;
  if( r->nAlloc<=r->n ) return;
  t = realloc(r->type, (size_t)(r->n ? r->n : 1));
  v = realloc(r->v, 8*(size_t)(r->n ? r->n : 1));
  if( t ) r->type = t;
  if( v ) r->v = v;
  r->nAlloc = r->n;
}

/* The most bytes a recording may take (an automatic budget not settled
** yet: at most what a histogram may keep). */
static int64_t recLimit(const CacheSrc *p){
  return p->conn->cache->budget==GA_CACHE_AUTO ? p->conn->resident : p->conn->cache->budget;
}

/* The scan thread's batches: recorded into the last part, then the sink's. */
static int teeBatch(ga_colsink *pSink, const ga_colbatch *b){
  CacheSrc *p = (CacheSrc*)((char*)pSink - offsetof(CacheSrc, tee));
  if( p->aPart ){
    partAdd(&p->aPart[p->nPart - 1], p->nCol, p->aWant, b, p->direct.n ? &p->direct : 0, &p->nRecAll, recLimit(p),
            &p->stop);
  }
  return p->sink->xBatch(p->sink, b);
}

/* Worker w's: the sink's first (a batch it leaves for later comes again
** through teeBatch), then recorded into part w. */
static int teePar(ga_colsink *pSink, int w, const ga_colbatch *b){
  CacheSrc *p = (CacheSrc*)((char*)pSink - offsetof(CacheSrc, tee));
  int rc = p->sink->xPar(p->sink, w, b);
  if( rc==0 && p->aPart ){
    partAdd(&p->aPart[w], p->nCol, p->aWant, b, p->direct.n ? &p->direct : 0, &p->nRecAll, recLimit(p), &p->stop);
  }
  return rc;
}

/* Recorded column r's counts, for its device form (x). 0 if it holds TEXT
** or BLOB values whose bytes were not recorded (no dictionary: no device
** form). */
static int residentOf(const Rec *r, unsigned char want, ga_resident *x){
  if( r->counted ){
    *x = r->cnt;
  }else{
    memset(x, 0, sizeof(*x));
    x->eMin = 0x7ff;
    x->eMax = -1;
    countRows(r->type, r->v, r->n, x);
  }
  x->n = r->n;
  x->want = want;
  return x->nText + x->nBlob==0 || (want & GA_COL_BYTES);
}

/* The reals r's TEXT and BLOB values read as (its cells carry numbers:
** GA_COL_NUMERIC) into its exponents and infinities, beside its REAL
** values': a grouping sums them too. */
static void dictReals(ga_resident *r){
  int64_t i;
  for(i=0; i<r->nDict; i++){
    const ga_cell *x = &r->dict[i];
    int e = (int)(((uint64_t)x->num >> 52) & 0x7ff);
    if( x->numType!=SQLITE_FLOAT ) continue;
    if( e==0x7ff ) r->nInf++;
    else if( ((uint64_t)x->num << 1)!=0 ){
      if( e<r->eMin ) r->eMin = e;
      if( e>r->eMax ) r->eMax = e;
    }
  }
}

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
static void deviceKeep(ga_cache *c, ga_conn *conn, ga_centry *e){
  int nDev = conn->devices;
  char zErr[GA_ERRLEN] = "";
  int64_t nb = 0;
  int rc, i;
  int64_t *dictNum = 0, k, nDict = (e->want & GA_COL_NUMERIC) ? e->nCell : 0;
  unsigned char *dictReal = 0;
  if( nDict ){                      /* the number sum() reads from each entry */
    dictNum = malloc(sizeof(int64_t)*(size_t)nDict);
    dictReal = malloc((size_t)nDict);
    if( dictNum==0 || dictReal==0 ){
      free(dictNum); free(dictReal);
      return;
    }
    for(k=0; k<nDict; k++){
      dictNum[k] = e->cell[k].num;
      dictReal[k] = e->cell[k].numType==SQLITE_FLOAT;
    }
  }
  while( (rc = c->be->xColMake(&c->dres, e->type, e->v, e->n, dictNum, dictReal, nDict, nDev, &e->res.d, &nb, zErr))==GA_DEV_NOMEM
      && (workTrim(c) || evictOne(c)) ){}
  free(dictNum);
  free(dictReal);
  if( rc ){                         /* host memory serves; a device's error is the last one */
    if( zErr[0] ) sqlite3_snprintf(GA_ERRLEN, conn->stats.zLastErr, "%s", zErr);
    return;
  }
  e->res.be = c->be;
  e->res.pRes = &c->dres;
  for(i=0; i<GA_DEV_MAX; i++) c->devBytesOn[i] += c->be->xColBytesOn(e->res.d, i);
  e->devBytes = nb;
  e->bytes += nb;
  c->bytes += nb;
  c->devBytes += nb;
}

/* Whether kept columns also go to the device: the connection's mode allows
** CUDA and a context exists (a cache never creates one). An automatic
** budget is settled here, at the first columns kept with a context. */
static int deviceWanted(ga_conn *conn){
  const ga_backend *be = ga_device_backend();
  ga_cache *c = conn->cache;
  if( conn->mode!=GA_CPU && be && be->xColMake && be->xWarm() ){
    c->be = be;
    if( c->budget==GA_CACHE_AUTO || c->hostShare ){
      int64_t fr = be->xFreeBytes(conn->devices);
      if( fr>0 ){
        c->budget = fr/4;
        c->hostShare = 0;
        cacheTrim(c, 0);            /* (held entries go at their scan's end: dead) */
      }
    }
    return 1;
  }
  return 0;
}

/* Whether columns may be kept under the automatic budget: CUDA could
** serve (cacheOn's question, answered by now). */
static int autoKept(const ga_conn *conn){
  char zWhy[GA_ERRLEN];
  const ga_cache *c = conn->cache;
  return (c->budget!=GA_CACHE_AUTO && !c->hostShare) || ga_device_usable(zWhy);
}

/* The recorded columns become entries (all, or none if memory fails), on
** the device too where they can (deviceWanted, residentOf). */
static uint64_t gGen;               /* entries made in the process (ga_resident.gen) */

static void keep(CacheSrc *p){
  ga_cache *cc = p->conn->cache;
  ga_centry *aNew[GA_COLS_MAX], **pp;
  ga_resident aRes[GA_COLS_MAX];
  unsigned char aDev[GA_COLS_MAX], aPlain[GA_COLS_MAX];
  size_t nDb = strlen(p->zDb) + 1, nTab = strlen(p->zTab) + 1;
  int64_t need = p->nRec;
  int c, ok = 1, dev;
  if( !autoKept(p->conn) ) return;
  dev = deviceWanted(p->conn);
  if( cc->budget==GA_CACHE_AUTO && !dev ){           /* no context: the host's share until one (6) */
    cc->budget = p->conn->resident;
    cc->hostShare = 1;
  }
  if( cc->budget<=0 ) return;
  for(c=0; c<p->nCol; c++){
    aDev[c] = (unsigned char)residentOf(&p->aRec[c], p->aWant[c], &aRes[c]) && dev;
    aPlain[c] = aRes[c].nText + aRes[c].nBlob==0;
    if( aDev[c] ){
      need += cc->be->xColBytes(aRes[c].n, aRes[c].nInt + aRes[c].nReal,
                                (p->aWant[c] & GA_COL_NUMERIC) ? p->aRec[c].nCell : 0);
    }
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
    int64_t i, nText = 0;
    if( e==0 || (e->zDb = malloc(nDb + nTab + nCol))==0 ){
      ok = 0;
      continue;
    }
    for(i=0; i<r->nCell; i++) nText += r->cellType[i]==SQLITE_TEXT;   /* (recMerge sorted them) */
    e->zTab = e->zDb + nDb;
    e->zCol = e->zTab + nTab;
    memcpy(e->zDb, p->zDb, nDb);
    memcpy(e->zTab, p->zTab, nTab);
    memcpy(e->zCol, p->azCol[c], nCol);
    e->want = p->aWant[c];
    memcpy(e->id, p->snap.id, GA_SNAP_ID);
    e->n = r->n;
    e->bytes = recBytes(r);
    e->type = r->type; e->v = r->v; e->cell = r->cell; e->cellRow = r->cellRow; e->nCell = r->nCell;
    e->arena = r->arena;
    free(r->cellType);
    for(i=0; i<e->nCell; i++) e->cell[i].z = e->arena + (intptr_t)e->cell[i].z;
    e->res = aRes[c];
    e->res.gen = __atomic_add_fetch(&gGen, 1, __ATOMIC_RELAXED);
    e->res.type = e->type;
    e->res.v = e->v;
    e->res.dict = e->nCell ? e->cell : 0;
    e->res.dictRow = e->cellRow;
    e->res.nDict = e->nCell;
    e->res.nDictText = nText;
    if( e->want & GA_COL_NUMERIC ) dictReals(&e->res);
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
  for(c=0; ok && c<p->nCol; c++){
    if( aDev[c] ) deviceKeep(cc, p->conn, aNew[c]);
  }
  /* kept before any context, for a device: one made after the read (5) */
  if( ok && !dev && p->conn->mode!=GA_CPU && ga_device_backend() ) cc->warmDue = 1;
}

void ga_cache_read_done(ga_cache *c){
  if( c && c->warmDue ){
    c->warmDue = 0;
    (void)ga_device_warm_soon();
  }
}

/* The hit's batch of rows [i, i + GA_BATCH) into *b, its columns in col. */
static const ga_colbatch *hitBatch(const CacheSrc *p, int64_t i, ga_colvec *col, ga_colbatch *b){
  int c;
  b->nCol = p->nCol;
  b->col = col;
  b->sel = 0;
  b->nSel = 0;
  b->n = p->aEnt[0]->n - i < GA_BATCH ? (int)(p->aEnt[0]->n - i) : GA_BATCH;
  b->pos = i;
  b->at1 = i + 1;
  for(c=0; c<p->nCol; c++){
    col[c].type = p->aEnt[c]->type + i;
    col[c].v = p->aEnt[c]->v + i;
    col[c].cell = p->aEnt[c]->cell;
  }
  return b;
}

/* 4c. A hit whose sink takes batches on several threads: the rows in nPar
** runs of whole batches, each run's batches to xPar in order on a worker
** thread of its own. A batch a worker leaves for later (GA_SINK_LATER) and
** the rest of its run, and a run whose thread could not start, go to xBatch
** on the scan thread once every worker has stopped, in scan order. */
#define HIT_PAR_MIN 16              /* batches a hit needs to be split */
typedef struct HitRun {
  const CacheSrc *p;
  ga_colsink *sink;
  int w;                            /* its worker */
  int64_t i0, i1;                   /* its rows */
  int64_t at;                       /* where xBatch takes over (i1: nowhere) */
  int *pStop;                       /* an error stops every run (atomic) */
  int rc;                           /* its error */
} HitRun;

static void *hitWorker(void *pArg){
  HitRun *h = (HitRun*)pArg;
  ga_colvec col[GA_COLS_MAX];
  ga_colbatch b;
  int64_t i;
  h->at = h->i1;
  for(i=h->i0; i<h->i1 && !__atomic_load_n(h->pStop, __ATOMIC_RELAXED); i+=GA_BATCH){
    int rc = h->sink->xPar(h->sink, h->w, hitBatch(h->p, i, col, &b));
    if( rc==GA_SINK_LATER ){
      h->at = i;
      break;
    }
    if( rc ){
      h->rc = rc;
      __atomic_store_n(h->pStop, 1, __ATOMIC_RELAXED);
      break;
    }
  }
  return 0;
}

static int hitPar(const CacheSrc *p, ga_colsink *sink){
  HitRun aRun[GA_THREADS_MAX];
  pthread_t aTh[GA_THREADS_MAX];
  int aUp[GA_THREADS_MAX];
  ga_colvec col[GA_COLS_MAX];
  ga_colbatch b;
  int64_t nB = (p->aEnt[0]->n + GA_BATCH - 1)/GA_BATCH, i;
  int nRun = (sink->nPar<GA_THREADS_MAX ? sink->nPar : GA_THREADS_MAX), r, stop = 0, rc = SQLITE_OK;
  for(r=0; r<nRun; r++){
    HitRun *h = &aRun[r];
    h->p = p;
    h->sink = sink;
    h->w = r;
    h->i0 = (nB*r/nRun)*GA_BATCH;
    h->i1 = r==nRun - 1 ? p->aEnt[0]->n : (nB*(r + 1)/nRun)*GA_BATCH;
    h->at = h->i0;
    h->pStop = &stop;
    h->rc = SQLITE_OK;
    aUp[r] = h->i0<h->i1 && pthread_create(&aTh[r], 0, hitWorker, h)==0;
  }
  for(r=0; r<nRun; r++) if( aUp[r] ) pthread_join(aTh[r], 0);
  for(r=0; r<nRun && rc==SQLITE_OK; r++) rc = aRun[r].rc;
  for(r=0; r<nRun && rc==SQLITE_OK; r++){
    for(i=aRun[r].at; i<aRun[r].i1 && rc==SQLITE_OK; i+=GA_BATCH) rc = sink->xBatch(sink, hitBatch(p, i, col, &b));
  }
  return rc;
}

static int cacheScan(ga_colsrc *pSrc, ga_colsink *sink){
  CacheSrc *p = (CacheSrc*)pSrc;
  ga_colvec col[GA_COLS_MAX];
  ga_colbatch b;
  int64_t i;
  int c, rc = SQLITE_OK;
  if( p->aEnt[0]==0 ){
    /* A miss: the table is read, and kept if the scan ends well, recorded
    ** by each thread that hands the sink batches (4a). */
    if( p->inner==0 ) return SQLITE_ERROR;
    p->sink = sink;
    p->tee.xPar = sink->xPar ? teePar : 0;
    p->tee.nPar = sink->xPar ? sink->nPar : 0;
    p->nPart = p->tee.nPar + 1;
    p->nRecAll = 0;
    p->stop = 0;
    if( (p->aPart = calloc((size_t)p->nPart, sizeof(RecPart)))==0 ) return p->inner->xScan(p->inner, sink);
    directMake(p);
    rc = p->inner->xScan(p->inner, &p->tee);
    if( rc==SQLITE_OK && !p->stop && (p->aRec = calloc((size_t)p->nCol, sizeof(Rec)))!=0
     && recMerge(p->aPart, p->nPart, p->nCol, p->aWant, p->conn->threads, p->direct.n ? &p->direct : 0,
                 p->aRec)==SQLITE_OK
     && p->aRec[0].n>=p->minRows ){
      for(c=0; c<p->nCol; c++) directShrink(&p->aRec[c]);
      for(c=0, p->nRec=0; c<p->nCol; c++) p->nRec += recBytes(&p->aRec[c]);
      if( p->nRec<=recLimit(p) ) keep(p);
    }
    directFree(&p->direct);
    for(c=0; c<p->nPart; c++) partFree(&p->aPart[c], p->nCol);
    free(p->aPart);
    p->aPart = 0;
    if( p->aRec ){
      for(c=0; c<p->nCol; c++) recFree(&p->aRec[c]);
      free(p->aRec);
      p->aRec = 0;
    }
    return rc;
  }
  if( sink->xPar && sink->nPar>0 && p->aEnt[0]->n>=(int64_t)GA_BATCH*HIT_PAR_MIN ) return hitPar(p, sink);
  for(i=0; i<p->aEnt[0]->n && rc==SQLITE_OK; i+=GA_BATCH) rc = sink->xBatch(sink, hitBatch(p, i, col, &b));
  return rc;
}

static ga_resident *cacheResident(ga_colsrc *pSrc, int i){
  CacheSrc *p = (CacheSrc*)pSrc;
  return i>=0 && i<p->nCol && p->aEnt[i] && p->aEnt[i]->res.d ? &p->aEnt[i]->res : 0;
}

void ga_cache_device_again(ga_colsrc *pSrc){
  CacheSrc *p = (CacheSrc*)pSrc;
  ga_cache *cc;
  int c;
  if( pSrc==0 || pSrc->xScan!=cacheScan || !deviceWanted(p->conn) ) return;
  cc = p->conn->cache;
  for(c=0; c<p->nCol; c++){
    ga_centry *e = p->aEnt[c];
    if( e==0 || e->dead || e->res.d || (e->res.nText + e->res.nBlob && !(e->want & GA_COL_BYTES)) ) continue;
    if( cc->bytes + cc->be->xColBytes(e->n, e->res.nInt + e->res.nReal, (e->want & GA_COL_NUMERIC) ? e->nCell : 0)
        > cc->budget ) continue;
    deviceKeep(cc, p->conn, e);
  }
}

int ga_cache_source(ga_colsrc *pSrc){
  return pSrc && pSrc->xScan==cacheScan;
}

ga_resident *ga_cache_kept(ga_colsrc *pSrc, int i){
  CacheSrc *p = (CacheSrc*)pSrc;
  if( pSrc==0 || pSrc->xScan!=cacheScan ) return 0;
  return i>=0 && i<p->nCol && p->aEnt[i] ? &p->aEnt[i]->res : 0;
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
    ga_free(p->azCol[c]);
  }
  if( p->inner ) p->inner->xClose(p->inner);
  ga_snap_close(&p->snap);
  ga_free(p->zDb);
  ga_free(p->zTab);
  ga_free(p);
}

/* The entry for column zCol of p's table that p's scan can use, or NULL.
** Entries of p's schema read in another snapshot are dropped on the way. */
static ga_centry *entryFind(CacheSrc *p, const char *zCol, unsigned char want){
  ga_cache *cc = p->conn->cache;
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
** where CUDA could serve (settled when columns are kept, deviceWanted).
** Where that is not known yet (the process's first read: the driver's
** first answer takes about 100 ms), the scan records while the driver is
** asked, and keep() waits for its answer (autoKept). */
static int cacheOn(ga_conn *conn){
  int u;
  if( conn->cache==0 ) return 0;
  if( conn->cache->budget!=GA_CACHE_AUTO && !conn->cache->hostShare ) return conn->cache->budget>0;
  if( conn->mode==GA_CPU || (u = ga_device_probe_soon())==0 ) return 0;
  if( u>0 ) deviceWanted(conn);             /* settles the budget if a context exists */
  return 1;
}


/* Do the rowids of rowid table t of db span fewer than n values (4b)? 0
** where that is not known (an error, a column named _rowid_). */
static int spanBelow(sqlite3 *db, const ga_table *t, int64_t n){
  sqlite3_stmt *st = 0;
  char *z;
  int below = 0, c;
  if( n<1 || t->withoutRowid ) return 0;
  for(c=0; c<t->nCol; c++) if( sqlite3_stricmp(t->aCol[c].zName, "_rowid_")==0 ) return 0;
  /* (each alone: SQLite reads a lone max() or min() of the rowid from one
  ** end of the b-tree, and both in one SELECT by a scan of the whole table) */
  z = sqlite3_mprintf("SELECT (SELECT max(_rowid_) FROM \"%w\".\"%w\"), (SELECT min(_rowid_) FROM \"%w\".\"%w\")",
                      t->zDb, t->zTab, t->zDb, t->zTab);
  if( z && sqlite3_prepare_v2(db, z, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    if( sqlite3_column_type(st, 0)==SQLITE_NULL ){
      below = 1;                                  /* (no rows) */
    }else if( sqlite3_column_type(st, 0)==SQLITE_INTEGER && sqlite3_column_type(st, 1)==SQLITE_INTEGER ){
      /* (max - min, exact as an unsigned difference) */
      below = (uint64_t)sqlite3_column_int64(st, 0) - (uint64_t)sqlite3_column_int64(st, 1) < (uint64_t)(n - 1);
    }
  }
  sqlite3_finalize(st);
  ga_free(z);
  return below;
}

/* ga_colsrc_cache's work; the caller times it. */
static ga_colsrc *cacheOpen(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                            const char *const *azCol, const unsigned char *aWant, int keep, int *pHit){
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
  p->tee.xPar = 0;
  p->conn = conn;
  p->nCol = nCol;
  for(c=0; c<nCol; c++){
    p->aWant[c] = aWant ? aWant[c] : 0;
    if( (p->azCol[c] = sqlite3_mprintf("%s", azCol[c]))==0 ) n = -1;
  }
  if( n<0 || t->zKind==0 || strcmp(t->zDb, "main")!=0 || strcmp(t->zKind, "table")!=0
   || (p->zDb = sqlite3_mprintf("%s", t->zDb))==0 || (p->zTab = sqlite3_mprintf("%s", t->zTab))==0
   || ga_snap_open(&p->snap, db, conn, p->zDb, &zWhy)!=SQLITE_OK || !p->snap.haveId ){
    ga_free(zWhy);
    cacheClose(&p->base);
    return 0;
  }
  for(c=0; c<nCol; c++){
    if( (p->aEnt[c] = entryFind(p, azCol[c], p->aWant[c]))!=0 ) n++;
  }
  if( n==nCol && nCol>0 ){
    for(c=1; c<nCol && p->aEnt[c]->n==p->aEnt[0]->n; c++){}
    if( c==nCol && (keep & GA_KEEP_RECORD) ){   /* kept: nothing to record */
      memset(p->aEnt, 0, sizeof(p->aEnt));
      cacheClose(&p->base);
      return 0;
    }
    if( c==nCol ){
      for(c=0; c<nCol; c++){
        p->aEnt[c]->nRef++;
        p->aEnt[c]->used = ++conn->cache->tick;
      }
      conn->cache->nHit++;
      *pHit = 1;
      return &p->base;
    }
  }
  memset(p->aEnt, 0, sizeof(p->aEnt));
  conn->cache->nMiss++;
  if( keep & GA_KEEP_LARGE ){
    p->minRows = conn->threshold;
    if( spanBelow(db, t, p->minRows) ){            /* (4b: nothing it reads could be kept) */
      conn->cache->nSmall++;
      cacheClose(&p->base);
      return 0;
    }
  }
  return &p->base;
}

ga_colsrc *ga_colsrc_cache(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                           const char *const *azCol, const unsigned char *aWant, int keep, int *pHit){
  double t0 = ga_now_ms();
  ga_colsrc *p;
  *pHit = 0;
  p = cacheOpen(db, conn, t, nCol, azCol, aWant, keep, pHit);
  conn->cache->checkMs += ga_now_ms() - t0;
  return p;
}

void ga_cache_read_by(ga_colsrc *pSrc, ga_colsrc *inner){
  ((CacheSrc*)pSrc)->inner = inner;
}
