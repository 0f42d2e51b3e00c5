/*
** A database file's pages as one connection's read transaction sees them,
** read through the connection's VFS (snap.c). The page source (pages.c)
** decodes b-trees from them.
**
**   1. ga_snap_open pins a read transaction on one schema of the connection
**      (a statement stepped once and left active until ga_snap_close) and
**      finds where each page of that transaction's snapshot lives: in the
**      database file, or in a WAL frame.
**   2. Rollback journals (DELETE, TRUNCATE, PERSIST, MEMORY, OFF): while the
**      connection holds its SHARED lock no writer can change the file, so the
**      file is the snapshot.
**   3. WAL: a page's snapshot copy is its latest frame at or below the
**      transaction's mxFrame, else the file's. mxFrame is the wal-index
**      header the reader took, private to the connection, so it is proven
**      from outside: a header seen at a moment when the schema had no read
**      transaction (ga_snap_observe, called at prepare time, or ga_snap_open
**      just before it starts the transaction itself) and found unchanged now
**      is the header the reader took (iChange counts commits, the salts
**      restarts: no header write happened in between; not in a BEGIN where
**      sqlite3_snapshot_open() exists); or, on "main", after a proven scan,
**      the pager's data version unchanged since means the header is the
**      one proven then (an attached schema's pager counts afresh). A page is read from its latest frame at or
**      below mxFrame, which the reader's lock keeps (no WAL restart while a
**      reader holds a slot above 0; a reader on slot 0 has nBackfill ==
**      mxFrame, and if the salts change under it, the file alone is its
**      snapshot); from the file if it has no such frame (no checkpoint
**      passes a reader's mark), or if its latest frame in the whole WAL is
**      at or below nBackfill (the checkpointer copies each page's latest
**      frame, and skips a page whose latest frame is past its safe point:
**      nBackfill alone does not say a page's earlier frame is in the file).
**   4. WAL, mxFrame not proven (a commit raced the statement's start, or the
**      transaction was open before the statement was prepared and nothing
**      was proven in it): a page whose latest frame is at or below
**      nBackfill, or that has none, is the file's; any other page is
**      unproven (GA_UNPROVEN) and never read from the WAL. (nBackfill never
**      passes the reader's mark, so the page's latest frame is in its
**      snapshot.)
**   5. Refused, with a reason (GA_REFUSED): the connection's own uncommitted
**      changes, a shared cache, temp and in-memory databases, a VFS other
**      than "unix", WAL
**      in exclusive locking mode (the wal-index is the connection's heap), a
**      wal-index that cannot be mapped or is read-only.
**   6. Only the connection's thread reads through SQLite's handle: it is not
**      for several threads at once. Where SQLite maps the file (mmap_size), the
**      pages it hands out (xFetch) may be read by any thread until they are
**      handed back. Where it maps only part of the file (its ceiling,
**      SQLITE_MAX_MMAP_SIZE, is 2 GiB), other threads may read the file's
**      copies of pages on handles of their own (ga_snap_readers), one handle a
**      thread: opened through the VFS, which keeps a closed handle's
**      descriptor open while the process holds locks on the file (closing any
**      descriptor of a file drops the process's POSIX locks on it), and each
**      proven to be SQLite's file, not one that took its name since: its
**      mapping and SQLite's are of the same device and inode
**      (/proc/self/maps) with the same first page. None for a connection
**      that takes no lock (nolock, immutable: its close would race another
**      connection's lock). The file's copies are the snapshot's for every
**      handle on it alike (2, 3).
**   7. A snapshot's identity (id) is equal for two snapshots only if they
**      hold the same pages: the file (device and inode of its name), and
**      in rollback modes the header's bytes 24..39, whose change counter
**      every commit in those modes increments (SQLite's own page cache is
**      kept across transactions on the same bytes); in WAL mode, a proven
**      snapshot's salts and mxFrame (every commit raises mxFrame, every
**      restart changes the salts). An unproven WAL snapshot has none.
*/
#ifndef GPUAGG_SNAP_H
#define GPUAGG_SNAP_H

#include "gpuagg.h"

#define GA_REFUSED  1000            /* not read this way; the reason is given */
#define GA_UNPROVEN 1001            /* this page's snapshot copy is not known */
#define GA_SNAP_ID  40              /* bytes of a snapshot's identity */
#define GA_SNAP_READERS GA_THREADS_MAX /* most readers (6) */

typedef struct ga_snap {
  sqlite3 *db;              /* the connection */
  sqlite3_stmt *hold;       /* stepped once, not reset: the read transaction */
  sqlite3_file *fd;         /* the database file */
  sqlite3_file *wal;        /* its WAL, in WAL mode; else NULL */
  int pgsz;                 /* page size */
  uint32_t nPage;           /* pages in the snapshot */
  uint32_t *aLast;          /* WAL: each page's latest frame (0: none) */
  uint32_t *aFrame;         /* WAL, proven: each page's latest frame in the snapshot */
  uint32_t nBackfill;       /* WAL: frames at or below this are in the file too */
  int proven;               /* WAL: frames above nBackfill are the snapshot's (3), or unknown (4) */
  volatile unsigned char *shm; /* WAL: the wal-index's first region */
  unsigned char salt[8];    /* WAL: its salts when opened (a restart changes them) */
  const char *zFile;        /* the database file's name */
  unsigned char id[GA_SNAP_ID]; /* the snapshot's identity (7), if haveId */
  int haveId;               /* ... known: rollback modes, and proven WAL snapshots */
  sqlite3_vfs *vfs;         /* the file's VFS ("unix") */
  sqlite3_file **aReader;   /* handles of other threads on the file (6), if nReader */
  int nReader;              /* ... how many */
} ga_snap;

/* At a moment when SQLite runs no statement of ours (prepare time), note
** the wal-index header of each WAL schema of db with no read transaction
** open. Reads shared memory only: no SQL, no lock. */
void ga_snap_observe(sqlite3 *db, ga_conn *conn);

/* Open a snapshot of schema zDb of db. SQLITE_OK; GA_REFUSED with the
** reason in *pzWhy; or an SQLite error (message in *pzWhy). sqlite3_free
** *pzWhy. ga_snap_close it on every return. */
int ga_snap_open(ga_snap*, sqlite3 *db, ga_conn *conn, const char *zDb, char **pzWhy);

/* Pages pgno .. pgno+n-1 into buf (n*pgsz bytes): SQLITE_OK, GA_UNPROVEN,
** SQLITE_CORRUPT (a page outside the snapshot or the file) or an I/O error.
** fileOnly: the file's copies, whatever the WAL holds. */
int ga_snap_read(const ga_snap*, uint32_t pgno, int n, unsigned char *buf, int fileOnly);

/* Page pgno where SQLite has the file mapped (the user set mmap_size),
** with nExtra readable bytes after it, if its snapshot copy is the file's:
** a pointer held until ga_snap_unfetch, on this thread. NULL: read it.
** The mapped bytes do not change while the transaction is open (snap.c's
** argument for the file's copies holds for the mapping, the same pages of
** the OS's cache), and SQLite never moves a mapping that has pages out. */
const unsigned char *ga_snap_fetch(const ga_snap*, uint32_t pgno, int nExtra);
/* Set the file handle's limit on mapped bytes (SQLITE_FCNTL_MMAP_SIZE; -1
** sets nothing), with no page fetched; the old limit is returned, or -1
** where the file cannot be mapped. */
int64_t ga_snap_map_limit(const ga_snap *s, int64_t limit);
void ga_snap_unfetch(const ga_snap*, uint32_t pgno, const unsigned char*);

/* Is page pgno's snapshot copy known (not GA_UNPROVEN)? */
int ga_snap_proven(const ga_snap*, uint32_t pgno);
/* Is it the file's copy (read by ga_snap_read_on)? */
int ga_snap_in_file(const ga_snap*, uint32_t pgno);

/* n handles of other threads on the file (6), on this thread, where SQLite
** maps part of it, those open before closed: n, or 0 where none can be had
** or proven (then none is open; n 0 closes them). ga_snap_close closes
** them too. */
int ga_snap_readers(ga_snap*, int n);
/* The file's copies of pages pgno .. pgno+n-1 (each ga_snap_in_file) into
** buf through reader h, on the one thread that uses h: as ga_snap_read. */
int ga_snap_read_on(const ga_snap*, int h, uint32_t pgno, int n, unsigned char *buf);

/* End the transaction pin and free what the snapshot holds. */
void ga_snap_close(ga_snap*);

#endif /* GPUAGG_SNAP_H */
