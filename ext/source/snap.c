/*
** A database file's pages as one connection's read transaction sees them:
** see snap.h for what is read from where, and why that is exact. The
** wal-index layout is SQLite's (walformat.html): two copies of a 48-byte
** header, the checkpoint information (nBackfill first) at byte 96, and per
** 32 KiB region the page number of each frame, 4062 frames in region 0
** (after 136 bytes of header) and 4096 in each region after.
*/
#include <assert.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "snap.h"

#define SHM_REGION 32768          /* bytes in a wal-index region */
#define FRAMES_ONE 4062           /* frames whose page numbers region 0 holds */
#define FRAMES     4096           /* ... and each region after it */
#define HDR        48             /* bytes in a wal-index header */
#define WAL_HDR    32             /* bytes before the WAL's first frame */
#define FRAME_HDR  24             /* bytes before each frame's page */
#define NO_FRAME   0xffffffffu    /* ga_frame: the page's copy is not proven */

/* A native u32 at byte off of a header. */
static uint32_t hdrU32(const unsigned char *h, int off){
  uint32_t v;
  memcpy(&v, h + off, 4);
  return v;
}
#define HDR_MXFRAME(h) hdrU32(h, 16)
#define HDR_SZPAGE(h)  ((((h)[14] | (h)[15]<<8) & 0xfe00) + (((h)[14] | (h)[15]<<8) & 1)*65536)
#define HDR_SALTS_SAME(a, b) (memcmp((a) + 32, (b) + 32, 8)==0)

/* The header (both copies agreeing, initialised) and nBackfill, as one
** reading: SQLITE_OK, or SQLITE_BUSY if a writer kept changing it. */
static int shmHeader(volatile unsigned char *p, unsigned char *h, uint32_t *pnBackfill){
  int i;
  for(i=0; i<1000; i++){
    unsigned char a[2*HDR];
    uint32_t nb;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(a, (const unsigned char*)p, sizeof(a));
    nb = __atomic_load_n((volatile uint32_t*)(p + 2*HDR), __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if( memcmp(a, a + HDR, HDR)==0 && a[12] ){
      memcpy(h, a, HDR);
      if( pnBackfill ) *pnBackfill = nb;
      return SQLITE_OK;
    }
    sched_yield();
  }
  return SQLITE_BUSY;
}

/* Region iRegion of fd's wal-index, mapped by SQLite's pager already:
** SQLITE_OK with *pp (NULL if the region does not exist), or an error
** (SQLITE_READONLY: a read-only wal-index, whose readers SQLite gives a
** private header). */
static int shmRegion(sqlite3_file *fd, int iRegion, volatile unsigned char **pp){
  void volatile *p = 0;
  int rc;
  *pp = 0;
  if( fd->pMethods->iVersion<2 || fd->pMethods->xShmMap==0 ) return SQLITE_ERROR;
  rc = fd->pMethods->xShmMap(fd, iRegion, SHM_REGION, 0, &p);
  *pp = (volatile unsigned char*)p;
  return rc;
}

/* The database file of schema zDb if it is a plain file of the "unix" VFS,
** else NULL with the reason in *pzWhy. */
static sqlite3_file *unixFile(sqlite3 *db, const char *zDb, sqlite3_vfs **ppVfs, char **pzWhy){
  sqlite3_vfs *pVfs = 0;
  sqlite3_file *fd = 0;
  const char *zFile = sqlite3_db_filename(db, zDb);
  if( zFile==0 || zFile[0]==0 ){
    *pzWhy = sqlite3_mprintf("a temporary or in-memory database");
  }else if( sqlite3_file_control(db, zDb, SQLITE_FCNTL_VFS_POINTER, &pVfs) || pVfs==0
         || strcmp(pVfs->zName, "unix")!=0 ){
    *pzWhy = sqlite3_mprintf("the VFS \"%s\" (only \"unix\" files are read directly)", pVfs ? pVfs->zName : "?");
  }else if( sqlite3_file_control(db, zDb, SQLITE_FCNTL_FILE_POINTER, &fd) || fd==0 || fd->pMethods==0 ){
    *pzWhy = sqlite3_mprintf("the database file is not open");
    fd = 0;
  }
  if( ppVfs ) *ppVfs = pVfs;
  return fd;
}

/* Does db share a page cache with another connection? Then the pager's
** snapshot may be another connection's, and its pages hold their changes. */
static int sharedCache(sqlite3 *db, const char *zDb){
  int used = 0, shared = 0, hi = 0;
  const char *z = sqlite3_uri_parameter(sqlite3_db_filename(db, zDb), "cache");
  if( z && sqlite3_stricmp(z, "shared")==0 ) return 1;
  sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &used, &hi, 0);
  sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED_SHARED, &shared, &hi, 0);
  return shared<used;
}

/* What the page source saw of one schema's wal-index. */
typedef struct ga_walseen {
  char zDb[48];             /* schema name; "" if unused */
  unsigned char free[48];   /* a header seen with no read transaction open ... */
  int haveFree;             /* ... if set */
  unsigned char dvHdr[48];  /* the header of a proven snapshot ... */
  unsigned int dv;          /* ... and the pager's data version then ... */
  int haveDv;               /* ... if set */
} ga_walseen;

#define GA_SEEN 4                   /* schemas whose wal-index a connection remembers */

/* A connection's records (conn->seen, made at the first one). */
struct ga_seen {
  ga_walseen a[GA_SEEN];    /* the schemas', the oldest first */
};

static void snapForget(ga_conn *conn){
  ga_free(conn->seen);
  conn->seen = 0;
}

/* The connection's record of schema zDb (made if make, evicting the
** first), or NULL. */
static ga_walseen *seenOf(ga_conn *conn, const char *zDb, int make){
  ga_walseen *a;
  int i;
  if( conn->seen==0 ){
    if( !make || (conn->seen = sqlite3_malloc(sizeof(struct ga_seen)))==0 ) return 0;
    ga_conn_on_free(conn, snapForget);
    memset(conn->seen, 0, sizeof(struct ga_seen));
  }
  a = conn->seen->a;
  if( strlen(zDb)>=sizeof(a[0].zDb) ) return 0;
  for(i=0; i<GA_SEEN; i++) if( strcmp(a[i].zDb, zDb)==0 ) return &a[i];
  if( !make ) return 0;
  for(i=0; i<GA_SEEN && a[i].zDb[0]; i++){}
  if( i==GA_SEEN ){
    memmove(&a[0], &a[1], sizeof(a[0])*(GA_SEEN-1));
    i = GA_SEEN-1;
  }
  memset(&a[i], 0, sizeof(a[i]));
  strcpy(a[i].zDb, zDb);
  return &a[i];
}

void ga_snap_observe(sqlite3 *db, ga_conn *conn){
  int i, named = sqlite3_libversion_number()>=3039000;   /* sqlite3_db_name */
  for(i=0; ; i++){
    const char *zDb = named ? sqlite3_db_name(db, i) : (i==0 ? "main" : 0);
    char *zWhy = 0;
    sqlite3_file *fd;
    volatile unsigned char *p0;
    unsigned char v[2], h[HDR];
    ga_walseen *w;
    if( zDb==0 ) break;
    if( i==1 || sqlite3_txn_state(db, zDb)!=SQLITE_TXN_NONE || sharedCache(db, zDb) ) continue;
    fd = unixFile(db, zDb, 0, &zWhy);
    ga_free(zWhy);
    /* WAL on disk (header bytes 18, 19): the pager has the wal-index open. */
    if( fd==0 || fd->pMethods->xRead(fd, v, 2, 18)!=SQLITE_OK || v[0]!=2 || v[1]!=2 ) continue;
    if( shmRegion(fd, 0, &p0)!=SQLITE_OK || p0==0 || shmHeader(p0, h, 0)!=SQLITE_OK ) continue;
    if( (w = seenOf(conn, zDb, 1))!=0 ){
      memcpy(w->free, h, HDR);
      w->haveFree = 1;
    }
  }
}

/* A pragma's first value on schema zDb, as text (into z, n bytes) or as an
** integer. */
static int pragmaGet(sqlite3 *db, const char *zDb, const char *zName, char *z, int n, int64_t *pi){
  sqlite3_stmt *st = 0;
  char *zSql = sqlite3_mprintf("PRAGMA \"%w\".%s", zDb, zName);
  int rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &st, 0) : SQLITE_NOMEM;
  ga_free(zSql);
  if( rc==SQLITE_OK ){
    rc = sqlite3_step(st);
    if( rc==SQLITE_ROW ){
      if( z ) sqlite3_snprintf(n, z, "%s", (const char*)sqlite3_column_text(st, 0));
      if( pi ) *pi = sqlite3_column_int64(st, 0);
      rc = SQLITE_OK;
    }else if( rc==SQLITE_DONE ){
      rc = SQLITE_ERROR;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* From the wal-index, each page's latest frame in 1..mxFrame (aLast) and,
** if mx<mxFrame, its latest in 1..mx (aFrame; else aFrame is aLast). */
static int frameMap(ga_snap *s, uint32_t mx, uint32_t mxFrame){
  volatile unsigned char *p = 0;
  size_t sz = sizeof(uint32_t)*((size_t)s->nPage + 1);
  uint32_t f;
  int iRegion = -1, rc;
  s->aLast = sqlite3_malloc64(sz);
  s->aFrame = mx<mxFrame ? sqlite3_malloc64(sz) : s->aLast;
  if( s->aLast==0 || s->aFrame==0 ) return SQLITE_NOMEM;
  memset(s->aLast, 0, sz);
  memset(s->aFrame, 0, sz);
  for(f=1; f<=mxFrame; f++){
    int r = f<=FRAMES_ONE ? 0 : 1 + (int)((f - FRAMES_ONE - 1)/FRAMES);
    uint32_t idx = r==0 ? 34 + f - 1 : (f - FRAMES_ONE - 1) % FRAMES, pg;
    if( r!=iRegion ){
      if( (rc = shmRegion(s->fd, r, &p))!=SQLITE_OK ) return rc;
      if( p==0 ) return SQLITE_CORRUPT;
      iRegion = r;
    }
    pg = __atomic_load_n((volatile uint32_t*)p + idx, __ATOMIC_RELAXED);
    if( pg<1 || pg>s->nPage ) continue;
    s->aLast[pg] = f;
    if( f<=mx ) s->aFrame[pg] = f;
  }
  return SQLITE_OK;
}

/* The snapshot's identity (snap.h): the file (device, inode), the mode, and
** what changes with each commit: a rollback file's header bytes 24..39
** (change counter, pages, freelist), or a WAL snapshot's salts and mxFrame. */
static void snapId(ga_snap *s, char mode, const unsigned char *a, int nA, const unsigned char *b){
  struct stat st;
  uint64_t dev, ino;
  if( stat(s->zFile, &st)!=0 ) return;
  dev = (uint64_t)st.st_dev;
  ino = (uint64_t)st.st_ino;
  memset(s->id, 0, sizeof(s->id));
  memcpy(s->id, &dev, 8);
  memcpy(s->id + 8, &ino, 8);
  s->id[16] = (unsigned char)mode;
  memcpy(s->id + 17, a, (size_t)nA);
  if( b ) memcpy(s->id + 17 + nA, b, 4);
  s->haveId = 1;
}

int ga_snap_open(ga_snap *s, sqlite3 *db, ga_conn *conn, const char *zDb, char **pzWhy){
  int txn = sqlite3_txn_state(db, zDb), wal, rc, i;
  char zJm[16], zLm[16];
  unsigned char h1[HDR], h2[HDR], h3[HDR];
  uint32_t nb = 0;
  int64_t v;
  char *zSql;
  memset(s, 0, sizeof(*s));
  s->db = db;
  *pzWhy = 0;
  if( txn==SQLITE_TXN_WRITE ){
    *pzWhy = sqlite3_mprintf("this connection has a write transaction open on %s", zDb);
    return GA_REFUSED;
  }
  if( txn<0 || (s->fd = unixFile(db, zDb, &s->vfs, pzWhy))==0 ) return *pzWhy ? GA_REFUSED : SQLITE_NOMEM;
  s->zFile = sqlite3_db_filename(db, zDb);
  if( sharedCache(db, zDb) ){
    *pzWhy = sqlite3_mprintf("a shared cache (another connection's transaction may be its view)");
    return GA_REFUSED;
  }
  if( (rc = pragmaGet(db, zDb, "journal_mode", zJm, sizeof(zJm), 0))!=SQLITE_OK ) goto failed;
  wal = sqlite3_stricmp(zJm, "wal")==0;
  if( wal ){
    if( (rc = pragmaGet(db, zDb, "locking_mode", zLm, sizeof(zLm), 0))!=SQLITE_OK ) goto failed;
    if( sqlite3_stricmp(zLm, "exclusive")==0 ){
      *pzWhy = sqlite3_mprintf("WAL in exclusive locking mode (the wal-index is private)");
      return GA_REFUSED;
    }
    if( sqlite3_file_control(db, zDb, SQLITE_FCNTL_JOURNAL_POINTER, &s->wal) || s->wal==0 || s->wal->pMethods==0
     || shmRegion(s->fd, 0, &s->shm)!=SQLITE_OK || s->shm==0 ){
      *pzWhy = sqlite3_mprintf("the wal-index cannot be mapped, or is read-only");
      return GA_REFUSED;
    }
    if( txn==SQLITE_TXN_NONE && shmHeader(s->shm, h1, 0)!=SQLITE_OK ) txn = -1;   /* no bracket */
  }
  /* Pin the read transaction: this statement stays active until close. */
  zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema", zDb);
  rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &s->hold, 0) : SQLITE_NOMEM;
  ga_free(zSql);
  if( rc==SQLITE_OK && (rc = sqlite3_step(s->hold))!=SQLITE_ROW ) goto failed;
  if( (rc = pragmaGet(db, zDb, "page_size", 0, 0, &v))!=SQLITE_OK ) goto failed;
  s->pgsz = (int)v;
  if( (rc = pragmaGet(db, zDb, "page_count", 0, 0, &v))!=SQLITE_OK ) goto failed;
  s->nPage = (uint32_t)v;
  if( txn==SQLITE_TXN_NONE && !wal ){
    /* Switched to WAL before this transaction began? */
    if( (rc = pragmaGet(db, zDb, "journal_mode", zLm, sizeof(zLm), 0))!=SQLITE_OK ) goto failed;
    if( sqlite3_stricmp(zLm, zJm)!=0 ){
      *pzWhy = sqlite3_mprintf("the journal mode changed");
      return GA_REFUSED;
    }
  }
  if( wal ){
    unsigned int dv = 0;
    ga_walseen *w;
    const unsigned char *hdr = 0;       /* the snapshot's header, if proven */
    for(i=0; i<100; i++){
      if( shmHeader(s->shm, h2, &nb) || shmHeader(s->shm, h3, 0) ){ i = 100; break; }
      if( memcmp(h2, h3, HDR)==0 ) break;
    }
    if( i==100 ){
      *pzWhy = sqlite3_mprintf("the wal-index kept changing");
      return GA_REFUSED;
    }
    /* The pager's data version proves only for "main": an attached schema's
    ** pager is new at each ATTACH, and counts from 0 again. */
    if( strcmp(zDb, "main")!=0 || sqlite3_file_control(db, zDb, SQLITE_FCNTL_DATA_VERSION, &dv)!=SQLITE_OK ) dv = 0;
    w = seenOf(conn, zDb, 1);
    if( txn==SQLITE_TXN_NONE && memcmp(h1, h2, HDR)==0 ){
      hdr = h2;
    }else if( w && w->haveFree && memcmp(w->free, h2, HDR)==0
           && !(sqlite3_compileoption_used("ENABLE_SNAPSHOT") && !sqlite3_get_autocommit(db)) ){
      hdr = h2;                     /* (sqlite3_snapshot_open() can set an older one) */
    }else if( w && w->haveDv && dv && w->dv==dv ){
      hdr = w->dvHdr;
    }
    if( HDR_MXFRAME(h2)>0 && HDR_SZPAGE(h2)!=s->pgsz ){     /* an empty WAL has none */
      *pzWhy = sqlite3_mprintf("the wal-index's page size is not the database's");
      return GA_REFUSED;
    }
    s->nBackfill = nb;
    memcpy(s->salt, h2 + 32, 8);
    if( hdr ){
      s->proven = 1;
      /* Salts changed since: a restart, so this reader is on slot 0 and the
      ** file alone is its snapshot. */
      if( HDR_SALTS_SAME(hdr, h2) ) rc = frameMap(s, HDR_MXFRAME(hdr), HDR_MXFRAME(h2));
      if( w && dv ){
        memmove(w->dvHdr, hdr, HDR);
        w->dv = dv;
        w->haveDv = 1;
      }
    }else{
      rc = frameMap(s, HDR_MXFRAME(h2), HDR_MXFRAME(h2));
    }
    if( rc!=SQLITE_OK ) goto failed;
    if( hdr ) snapId(s, 'W', hdr + 32, 8, hdr + 16);
  }else{
    unsigned char *b = sqlite3_malloc(s->pgsz);
    if( b==0 ) return SQLITE_NOMEM;
    if( ga_snap_read(s, 1, 1, b, 1)==SQLITE_OK ) snapId(s, 'R', b + 24, 16, 0);
    ga_free(b);
  }
  return SQLITE_OK;

failed:
  if( rc==SQLITE_DONE ){
    *pzWhy = sqlite3_mprintf("schema %s is empty", zDb);
    return GA_REFUSED;
  }
  if( rc==SQLITE_ROW ) rc = SQLITE_ERROR;
  *pzWhy = sqlite3_mprintf("%s", rc==SQLITE_CORRUPT ? "the wal-index is malformed" : sqlite3_errmsg(db));
  return rc;
}


/* Page pg's frame to read: 0 for the file, NO_FRAME if not proven. The
** file's copy is the snapshot's when the page's latest frame in the whole
** WAL is at or below nBackfill (the checkpointer copies each page's
** latest frame, and skips a page whose latest frame is past its safe
** point, so a page's frame below nBackfill is not in the file if a later
** frame of it exists); or, for a proven snapshot, when it has no frame
** at or below mxFrame (a checkpoint never passes a reader's mark). */
static uint32_t frameOf(const ga_snap *s, uint32_t pg){
  if( s->aLast==0 || s->aLast[pg]<=s->nBackfill ) return 0;
  return s->proven ? s->aFrame[pg] : NO_FRAME;
}

int ga_snap_proven(const ga_snap *s, uint32_t pgno){
  return pgno>=1 && pgno<=s->nPage && frameOf(s, pgno)!=NO_FRAME;
}

int ga_snap_in_file(const ga_snap *s, uint32_t pgno){
  return pgno>=1 && pgno<=s->nPage && frameOf(s, pgno)==0;
}

/* xRead, a short read (a page beyond the file's end) being corruption. */
static int readAt(sqlite3_file *f, unsigned char *buf, int64_t n, int64_t off){
  int rc = f->pMethods->xRead(f, buf, (int)n, off);
  return rc==SQLITE_IOERR_SHORT_READ ? SQLITE_CORRUPT : rc;
}

/* The page that holds the locks' bytes, never data. */
static uint32_t lockPage(const ga_snap *s){
  return (uint32_t)(0x40000000/s->pgsz) + 1;
}

int ga_snap_read(const ga_snap *s, uint32_t pgno, int n, unsigned char *buf, int fileOnly){
  int64_t sz = s->pgsz;
  int i = 0, j, rc = SQLITE_OK, fromWal = 0;
  uint32_t lk = lockPage(s);
  if( pgno<1 || n<1 || pgno>s->nPage || (uint32_t)(n-1) > s->nPage - pgno ) return SQLITE_CORRUPT;
  if( pgno<=lk && lk<=pgno + (uint32_t)(n-1) ) return SQLITE_CORRUPT;
  while( i<n && rc==SQLITE_OK ){
    uint32_t f = fileOnly ? 0 : frameOf(s, pgno + i);
    if( f==0 ){
      for(j=i+1; j<n && (fileOnly || frameOf(s, pgno + j)==0); j++){}
      rc = readAt(s->fd, buf + i*sz, (j - i)*sz, (int64_t)(pgno + i - 1)*sz);
      i = j;
    }else if( f==NO_FRAME ){
      return GA_UNPROVEN;
    }else{
      fromWal = 1;
      rc = readAt(s->wal, buf + i*sz, sz, WAL_HDR + (int64_t)(f - 1)*(sz + FRAME_HDR) + FRAME_HDR);
      i++;
    }
  }
  if( fromWal ){
    /* A restart (or a WAL truncated) while reading: only a slot-0 reader
    ** allows one, and its snapshot is the file: read the file's copies. */
    unsigned char h[HDR];
    if( shmHeader(s->shm, h, 0)!=SQLITE_OK ) rc = SQLITE_BUSY;
    else if( memcmp(h + 32, s->salt, 8)!=0 ) rc = ga_snap_read(s, pgno, n, buf, 1);
  }
  return rc;
}

const unsigned char *ga_snap_fetch(const ga_snap *s, uint32_t pgno, int nExtra){
  const sqlite3_io_methods *m = s->fd->pMethods;
  void *p = 0;
  if( m->iVersion<3 || m->xFetch==0 || m->xUnfetch==0 || pgno<1 || pgno>s->nPage || pgno==lockPage(s)
   || frameOf(s, pgno)!=0 ){
    return 0;
  }
  /* SQLite maps the file only when the user set mmap_size; else p stays 0. */
  if( m->xFetch(s->fd, (int64_t)(pgno - 1)*s->pgsz, s->pgsz + nExtra, &p)!=SQLITE_OK ) return 0;
  return (const unsigned char*)p;
}

int64_t ga_snap_map_limit(const ga_snap *s, int64_t limit){
  int64_t v = limit;
  const sqlite3_io_methods *m = s->fd->pMethods;
  if( m->iVersion<3 || m->xFetch==0 || m->xFileControl(s->fd, SQLITE_FCNTL_MMAP_SIZE, &v)!=SQLITE_OK ) return -1;
  return v;
}

void ga_snap_unfetch(const ga_snap *s, uint32_t pgno, const unsigned char *p){
  /* Never with 0: xUnfetch(0) unmaps the whole file. */
  if( p ) s->fd->pMethods->xUnfetch(s->fd, (int64_t)(pgno - 1)*s->pgsz, (void*)p);
}

/* ---- readers: handles of other threads on the file (snap.h, 6) ---------------------- */

/* The device and inode of the file mapped at each of ap[0..n-1], from
** /proc/self/maps, into aDev and aIno (aIno[i] 0: not found). A line
** longer than the buffer is read from its start (every number is there),
** the rest of it skipped. */
static void mappedFiles(int n, void *const *ap, uint64_t *aDev, uint64_t *aIno){
  char z[512];
  int i, whole = 1;
  FILE *f = fopen("/proc/self/maps", "re");
  memset(aIno, 0, sizeof(*aIno)*(size_t)n);
  if( f==0 ) return;
  while( fgets(z, sizeof(z), f) ){
    unsigned long long lo, hi, off, ino;
    unsigned maj, min;
    char perm[8];
    int atStart = whole;
    whole = strchr(z, '\n')!=0;
    if( !atStart || sscanf(z, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perm, &off, &maj, &min, &ino)!=7 ) continue;
    for(i=0; i<n; i++){
      uintptr_t a = (uintptr_t)ap[i];
      if( a>=lo && a<hi ){
        aDev[i] = ((uint64_t)maj<<32) | min;
        aIno[i] = ino;
      }
    }
  }
  fclose(f);
}

/* Close every reader. */
static void readersClose(ga_snap *s){
  int i;
  for(i=0; i<s->nReader; i++){
    if( s->aReader[i]->pMethods ) s->aReader[i]->pMethods->xClose(s->aReader[i]);
    ga_free(s->aReader[i]);
  }
  ga_free(s->aReader);
  s->aReader = 0;
  s->nReader = 0;
}

int ga_snap_readers(ga_snap *s, int n){
  const sqlite3_io_methods *m = s->fd->pMethods;
  void *ap[GA_SNAP_READERS + 1];
  uint64_t aDev[GA_SNAP_READERS + 1], aIno[GA_SNAP_READERS + 1];
  int i, ok;
  readersClose(s);
  if( n<1 || n>GA_SNAP_READERS || s->vfs==0 || m->iVersion<3 || m->xFetch==0 || m->xUnfetch==0 ) return 0;
  /* A connection that takes no lock (nolock, immutable) would let a close
  ** of ours race another connection's lock in this process (the VFS keeps a
  ** closed descriptor only while the file has locks). */
  if( sqlite3_uri_boolean(s->zFile, "nolock", 0) || sqlite3_uri_boolean(s->zFile, "immutable", 0) ) return 0;
  /* SQLite's mapping of the file: its first page (never from the WAL: it is
  ** the mapping's identity that is wanted, not the page). */
  ap[0] = 0;
  if( m->xFetch(s->fd, 0, s->pgsz, &ap[0])!=SQLITE_OK || ap[0]==0 ) return 0;
  if( (s->aReader = sqlite3_malloc64(sizeof(sqlite3_file*)*(uint64_t)n))==0 ){
    m->xUnfetch(s->fd, 0, ap[0]);
    return 0;
  }
  ok = 1;
  for(i=0; i<n && ok; i++){
    sqlite3_file *f = sqlite3_malloc(s->vfs->szOsFile);
    sqlite3_int64 v = 2*(sqlite3_int64)s->pgsz;
    int out = 0;
    ap[i + 1] = 0;
    if( f==0 ){
      ok = 0;
      break;
    }
    memset(f, 0, (size_t)s->vfs->szOsFile);
    s->aReader[s->nReader++] = f;
    /* Its own mapping of a page, to prove which file it has open. */
    ok = s->vfs->xOpen(s->vfs, s->zFile, f, SQLITE_OPEN_READONLY|SQLITE_OPEN_MAIN_DB|SQLITE_OPEN_URI, &out)==SQLITE_OK
      && f->pMethods && f->pMethods->iVersion>=3 && f->pMethods->xFetch && f->pMethods->xUnfetch
      && f->pMethods->xFileControl(f, SQLITE_FCNTL_MMAP_SIZE, &v)==SQLITE_OK
      && f->pMethods->xFetch(f, 0, s->pgsz, &ap[i + 1])==SQLITE_OK && ap[i + 1]!=0;
  }
  if( ok ) mappedFiles(n + 1, ap, aDev, aIno);
  for(i=0; i<s->nReader; i++){
    sqlite3_file *f = s->aReader[i];
    sqlite3_int64 v = 0;
    /* The same device and inode, and (a file system whose maps show one
    ** device for several inode spaces) the same first page. */
    ok = ok && aIno[0]!=0 && aIno[i + 1]==aIno[0] && aDev[i + 1]==aDev[0] && memcmp(ap[0], ap[i + 1], (size_t)s->pgsz)==0;
    if( ap[i + 1] ) f->pMethods->xUnfetch(f, 0, ap[i + 1]);
    if( f->pMethods && f->pMethods->iVersion>=3 ) f->pMethods->xFileControl(f, SQLITE_FCNTL_MMAP_SIZE, &v);
  }
  m->xUnfetch(s->fd, 0, ap[0]);
  if( !ok ) readersClose(s);
  return s->nReader;
}

int ga_snap_read_on(const ga_snap *s, int h, uint32_t pgno, int n, unsigned char *buf){
  uint32_t lk = lockPage(s);
  assert( h>=0 && h<s->nReader );
  if( pgno<1 || n<1 || pgno>s->nPage || (uint32_t)(n-1) > s->nPage - pgno ) return SQLITE_CORRUPT;
  if( pgno<=lk && lk<=pgno + (uint32_t)(n-1) ) return SQLITE_CORRUPT;
  return readAt(s->aReader[h], buf, (int64_t)n*s->pgsz, (int64_t)(pgno - 1)*s->pgsz);
}

void ga_snap_close(ga_snap *s){
  readersClose(s);
  sqlite3_finalize(s->hold);
  if( s->aFrame!=s->aLast ) ga_free(s->aFrame);
  ga_free(s->aLast);
  memset(s, 0, sizeof(*s));
}
