/*
** Column sources: where a table-valued function reads its columns: the
** statement source runs the scan as an aggregate query (stmt.c), the page
** source decodes the table's b-tree pages in worker threads (pages.c), and
** the column cache serves kept columns again (cache.c). They sit behind the
** same calls, and the functions do not know which one serves them.
**
**   1. A source reads nCol columns of one table or view, all in one scan, in
**      scan order, and hands them to a sink in batches of at most GA_BATCH
**      rows (ga_colbatch): for each column and row the storage class as
**      stored, and the value (INTEGER exactly, REAL as its bits).
**   2. TEXT and BLOB cells are described only for columns that ask
**      (GA_COL_BYTES: the bytes; GA_COL_NUMERIC: the number sum() reads
**      from them, that is sqlite3_value_numeric_type() and then the integer
**      or sqlite3_value_double()). Other columns see their class alone.
**   3. xScan returns SQLITE_OK at the end, the sink's error code if the sink
**      stopped it, or the scan's own error (xErrmsg says why).
**   4. xScan may run again: it sees the same rows, as long as the caller's
**      read transaction is open (it is, for the whole of an xFilter).
**   5. xClose frees the source.
**   6. A source chosen for a table (ga_source_open, open.c): the page source where it
**      can prove it reads what the statement would (pages.c), else the
**      statement source. Both give the same rows in the same order: rowid
**      order for a rowid table (the statement source scans tables NOT
**      INDEXED, so that no covering index reorders them).
**   7. A source is given the table already resolved (ga_table, below:
**      filled once by ga_table_describe, which table.c's ga_source_resolve calls)
**      and does not look it up again. What it must prove in its own
**      transaction it proves against that description: the page source,
**      that the schema's cookie is still the one read before the table was
**      described (else it refuses: the statement source serves).
**   8. Late columns: a sink that sets xFilter and aLate (a column's 1: the
**      filter does not read it) may be handed, by a source that can, each
**      batch with only the other columns decoded first; xFilter picks its
**      rows (b->sel); then the late columns are decoded for those rows
**      alone, and the batch goes to xBatch or xPar with sel and nSel set,
**      its other rows' late values unset. A source that cannot ignores
**      both (sel NULL: every row). The page source can: a selective WHERE
**      decodes little more than the columns it reads.
**
** Adding a column source: write its xScan, xErrmsg and xClose (xResident
** only if it can hand out columns already on a device) so that xScan meets
** 1-4: every row the statement `SELECT cols FROM t NOT INDEXED` gives, in
** that order, in batches of at most GA_BATCH rows, TEXT and BLOB described
** as each column's aWant asks. Give it a constructor here that takes the
** const ga_table* and the column names, and returns NULL with a reason
** where it cannot give exactly those rows (GA_REFUSED: the caller falls
** back, as open.c's openReader does for the pages). Choose it in
** ga_source_open (open.c), note it for gpuagg_info() (SRC_* in open.c),
** and add it to tests/test_pages.c's comparisons of sources, cell for cell.
*/
#ifndef GPUAGG_COLSRC_H
#define GPUAGG_COLSRC_H

#include "gpuagg.h"

typedef struct ga_cache ga_cache;

#define GA_BATCH 1024               /* most rows in a batch */

/* What a column asks for besides classes and numbers (ORed). */
#define GA_COL_BYTES   1            /* TEXT and BLOB bytes */
#define GA_COL_NUMERIC 2            /* the number sum() reads from TEXT and BLOB */

/* A TEXT or BLOB cell of a batch. */
typedef struct ga_cell {
  const void *z;                    /* GA_COL_BYTES: its bytes, valid during xBatch */
  int n;                            /* ... and how many */
  int numType;                      /* GA_COL_NUMERIC: SQLITE_INTEGER or SQLITE_FLOAT */
  int64_t num;                      /* ... and the number: int64, or a double's bits */
} ga_cell;

/* One column of a batch. */
typedef struct ga_colvec {
  const unsigned char *type;        /* each row's class: SQLITE_INTEGER .. SQLITE_NULL */
  const int64_t *v;                 /* INTEGER: the value; REAL: its bits; TEXT and
                                    ** BLOB, if the column asked: the index in cell
                                    ** (rows with equal values may share a cell) */
  const ga_cell *cell;              /* TEXT and BLOB cells */
} ga_colvec;

typedef struct ga_colbatch {
  int64_t pos;                      /* where its first row is in the scan: positions rise
                                    ** with scan order, a row past its batch's first */
  int64_t at1;                      /* 1 + its first row's number in the scan, where the source
                                    ** knows it already; 0: not known (a source whose nRowMax is 0
                                    ** gives none) */
  int n;                            /* rows */
  int nCol;                         /* columns */
  const ga_colvec *col;             /* them */
  const int *sel;                   /* 8: the rows the sink's xFilter kept, ascending (NULL: all) */
  int nSel;                         /* ... how many */
} ga_colbatch;

/* Where a scan's rows go. xBatch returns 0, or an SQLite error code to stop
** the scan; it is called on the scan's thread, batches in scan order.
** A sink that can take batches in any order on several threads at once
** sets xPar (NULL otherwise): a source that decodes in worker threads may
** hand worker w (0 <= w < nPar) its batches there. xPar returns 0, an
** SQLite error code to stop the scan, or GA_SINK_LATER: that batch and
** the rest of its segment go to xBatch instead, in scan order. */
#define GA_SINK_LATER 1001
typedef struct ga_colsink ga_colsink;
struct ga_colsink {
  int (*xBatch)(ga_colsink*, const ga_colbatch*);
  int (*xPar)(ga_colsink*, int w, const ga_colbatch*);
  int nPar;                         /* workers xPar serves */
  /* 8: the rows of b to keep into sel (their indexes, ascending), their
  ** number in *pnSel, from b's columns that are not late; on worker w, or
  ** the scan's thread (w -1). 0, an error code, or GA_SINK_LATER (a
  ** worker: as xPar's). NULL: no late columns. */
  int (*xFilter)(ga_colsink*, int w, const ga_colbatch *b, int *sel, int *pnSel);
  const unsigned char *aLate;       /* [nCol]: 1 where xFilter does not read the column */
};

/* A column the cache keeps on the device (cache.c), as a hit offers it.
** Its TEXT and BLOB values are a dictionary: each distinct one once, TEXT
** in BINARY order, then BLOB in byte order (SQL's order of those values),
** so that comparing places compares values; a TEXT or BLOB row's value,
** host and device, is its place there. Things computed once per distinct
** value (a collation's key, a function of the value) are computed over the
** dictionary. */
typedef struct ga_resident {
  const ga_backend *be;             /* the backend that keeps it */
  ga_dres **pRes;                   /* the connection's state for work on it (be's) */
  ga_dcol *d;                       /* the device form (backend.h) */
  int64_t n, nNull, nInt, nReal;    /* rows, and values by class */
  int64_t nText, nBlob;             /* ... TEXT and BLOB */
  int eMin, eMax;                   /* biased exponents of the finite non-zero reals a
                                    ** grouping sums from it: its REAL values and, where
                                    ** its cells carry numbers, those its TEXT and BLOB
                                    ** values read as (eMax -1: none) */
  int64_t nInf;                     /* ... and of those, the infinite ones */
  int64_t nGroup;                   /* groups it makes as a key; 0: not known yet */
  const ga_cell *dict;              /* the dictionary (NULL: no TEXT or BLOB value) */
  const int64_t *dictRow;           /* ... each entry's first row */
  int64_t nDict, nDictText;         /* ... its entries, and how many are TEXT */
  unsigned char want;               /* what its cells describe (GA_COL_*) */
  uint64_t gen;                     /* this entry's number, unique in the process: what is
                                    ** computed from it may be kept under it */
  const unsigned char *type;        /* the host copy: each row's class */
  const int64_t *v;                 /* ... and value (a TEXT or BLOB value's place in dict) */
} ga_resident;

typedef struct ga_colsrc ga_colsrc;
struct ga_colsrc {
  int (*xScan)(ga_colsrc*, ga_colsink*);
  const char *(*xErrmsg)(ga_colsrc*);
  void (*xClose)(ga_colsrc*);
  /* Column i kept on the device, or NULL (every source but the cache: NULL
  ** itself). Valid until xClose; a function that uses it scans nothing. */
  ga_resident *(*xResident)(ga_colsrc*, int i);
  /* The most rows a scan can give, where the source knows a bound (the page
  ** source: its leaves' room), else 0; then its batches say where their
  ** rows are (ga_colbatch.at1) where they can. */
  int64_t nRowMax;
};

/* src's column i on the device, or NULL. */
static inline ga_resident *ga_colsrc_resident(ga_colsrc *src, int i){
  return src->xResident ? src->xResident(src, i) : 0;
}

/* A source that scans columns azCol[0..nCol) (asking aWant[i] of each) of
** zFrom, a quoted FROM term, on db, whose gpuagg state is conn. NULL on
** failure, with the reason in *pzErr (sqlite3_free it). */
ga_colsrc *ga_colsrc_stmt(sqlite3 *db, ga_conn *conn, const char *zFrom, int nCol,
                          const char *const *azCol, const unsigned char *aWant, char **pzErr);

/* SQLite's column affinities, from a declared type (datatype3.html, 3.1:
** the first rule that matches, ignoring case): "INT" INTEGER; "CHAR",
** "CLOB" or "TEXT" TEXT; "BLOB" or no type BLOB; "REAL", "FLOA" or "DOUB"
** REAL; else NUMERIC. */
enum { GA_AFF_BLOB, GA_AFF_TEXT, GA_AFF_NUMERIC, GA_AFF_INTEGER, GA_AFF_REAL };
int ga_affinity(const char *zType);

/* A column of a resolved table. */
typedef struct ga_tabcol {
  char *zName;                      /* its name as declared */
  char *zType;                      /* its declared type; NULL: none */
  int aff;                          /* GA_AFF_*, from zType */
  int pk;                           /* its place in the PRIMARY KEY (table_xinfo's pk), 0 none */
  int generated;                    /* a generated column (table_xinfo's hidden 2 or 3) */
  char *zColl;                      /* the collating sequence count(DISTINCT col) and min(col)
                                    ** use, as SQLite names it (a table's: as declared, BINARY by
                                    ** default); NULL where it could not be learned (a view
                                    ** whose plan names several) */
} ga_tabcol;

/* A table or view, resolved once (ga_table_describe): what every source
** and the functions read of it. */
typedef struct ga_table {
  char *zDb;                        /* its schema, as pragma_database_list names it */
  char *zTab;                       /* its name, as SQLite spells it (table_list), else as given */
  char *zKind;                      /* table_list's type: "table", "view", "virtual", "shadow";
                                    ** NULL: not listed there (noList, or sqlite_master) */
  int noList;                       /* no table_list pragma (SQLite before 3.37): zKind and
                                    ** withoutRowid are not known */
  int withoutRowid;                 /* a WITHOUT ROWID table */
  int rowidAlias;                   /* its one key column, declared INTEGER, is the rowid's alias
                                    ** (a table with rowids; no index of SQLite's for the key, as
                                    ** an INTEGER PRIMARY KEY DESC has) */
  int schemaVersion;                /* zDb's schema cookie, read before the rest: a source
                                    ** that reads the same cookie later knows nothing changed */
  int nCol;                         /* columns, as SELECT * shows them (generated ones too) */
  ga_tabcol *aCol;                  /* them, in declared order */
} ga_table;

/* Describe table (or view) zTab of schema zDb, both found already
** (ga_source_resolve finds them: table.h), into *t: SQLITE_OK, or an error (*t is freed
** then). ga_table_free frees it. In table.c. */
int ga_table_describe(sqlite3 *db, const char *zDb, const char *zTab, ga_table *t);
void ga_table_free(ga_table *t);

/* zDb's schema cookie (PRAGMA schema_version) into *pVer. */
int ga_schema_version(sqlite3 *db, const char *zDb, int *pVer);

/* A source that reads columns azCol[0..nCol) (asking aWant[i] of each) of
** table t from the database file's pages (pages.c), in the caller's
** transaction. NULL if it cannot: *prc is GA_REFUSED with the reason in
** *pzWhy (the statement source serves: also where t's kind is not known,
** before SQLite 3.37, or its schema changed since t was described), or an
** SQLite error (SQLITE_CORRUPT, ...) with its message in *pzWhy. */
ga_colsrc *ga_colsrc_pages(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                           const char *const *azCol, const unsigned char *aWant, int *prc, char **pzWhy);

/* Table t's rows as its b-tree holds them in the caller's transaction,
** without reading every leaf: its leaves (from its interior pages, as
** ga_colsrc_pages finds them) times the mean cells of GA_ROWS_SAMPLE of
** them spread evenly (exact where it has no more leaves). SQLITE_OK, or as
** ga_colsrc_pages refuses (GA_REFUSED, *pzWhy) or fails. For a choice that
** rests on no answer (the planner's largest table). */
#define GA_ROWS_SAMPLE 64
int ga_pages_rows(sqlite3 *db, ga_conn *conn, const ga_table *t, int64_t *pnRow, char **pzWhy);

/* The column cache (cache.c): a source for columns azCol[0..nCol) of
** table t that serves them from the cache (*pHit set), or, after
** ga_cache_read_by names the source that reads the table, keeps them as
** they pass. NULL where nothing is cached: the caller's source serves.
** keep's GA_KEEP_RECORD: only a miss gives a source (a read that cannot use
** kept columns keeps them for the next that can), NULL on a hit;
** GA_KEEP_LARGE: a miss keeps what passes only if it is
** gpuagg_config('threshold') rows or more. */
#define GA_KEEP_RECORD 1
#define GA_KEEP_LARGE  2
ga_colsrc *ga_colsrc_cache(sqlite3 *db, ga_conn *conn, const ga_table *t, int nCol,
                           const char *const *azCol, const unsigned char *aWant, int keep, int *pHit);
void ga_cache_read_by(ga_colsrc *cache, ga_colsrc *inner);
/* Column i of a cache source (ga_colsrc_cache) as kept, its device form or
** not (d NULL): after a hit, or after a scan that kept them; else NULL (and
** for any other source). */
ga_resident *ga_cache_kept(ga_colsrc *pSrc, int i);
/* pSrc is a cache source: its scan keeps the columns it reads (or serves
** them kept). */
int ga_cache_source(ga_colsrc *pSrc);
/* Try again to put a cache source's kept columns on the device where they
** are in host memory only (a device failed, or had no room, when they were
** kept). */
void ga_cache_device_again(ga_colsrc *pSrc);
/* A read has ended (gpu_query's): where it kept columns for a device
** before any context, the device backend now makes one on a thread of its
** own (cache.c, 5), after the read rather than beside it. */
void ga_cache_read_done(ga_cache*);
/* The cache's state, conn->cache, made when the module is loaded on a
** connection and freed with it (all it keeps, host and device). NULL when
** out of memory: nothing kept. */
void ga_cache_attach(ga_conn *conn);
/* The budget in bytes (gpuagg_config 'cache'; GA_CACHE_AUTO until known),
** and setting it: entries dropped to fit (0: all). */
int64_t ga_cache_budget_of(const ga_cache*);
void ga_cache_budget(ga_cache*, int64_t budget);
/* Drop every entry; the budget stays. */
void ga_cache_clear(ga_cache*);
/* The cache's part of gpuagg_info()'s JSON ("\"cache\":{...}"), and the
** bytes it keeps on device d. */
void ga_cache_describe(sqlite3_str*, const ga_cache*);
int64_t ga_cache_device_bytes(const ga_cache*, int d);
/* A kept column, as gpuagg_cache() lists it. */
typedef struct ga_cache_row {
  const char *zDb, *zTab, *zCol;    /* which column */
  int64_t n;                        /* rows */
  int64_t bytes, devBytes;          /* memory it takes, and how much of it on the device */
  uint64_t used;                    /* the cache's tick at its last use */
} ga_cache_row;
/* Entry i, the most recently used first, into *r (valid until the cache
** next changes); 0 if there is none. */
int ga_cache_row_at(const ga_cache*, int i, ga_cache_row *r);
/* The device takes the answer from kept columns (gpuagg_info counts it). */
void ga_cache_device_hit(ga_cache*, double ms);
/* Memory kept beside kept columns for their reads (cache.c, 6a): bytes
** resting on the entries whose gens are aGen[0..nGen) (ga_resident.gen),
** counted against the budget, room made for them as for columns. NULL
** where they do not fit (or an entry is gone): the caller keeps nothing.
** When any of those entries goes, the hold goes and xDrop(p) tells the
** holder (at once, or when the last read using it ends), which then frees
** its memory without ga_cache_unhold. */
typedef struct ga_chold ga_chold;
ga_chold *ga_cache_hold(ga_cache*, int64_t bytes, const uint64_t *aGen, int nGen, void (*xDrop)(void*), void *p);
/* The holder frees its memory itself (h not in use; NULL: none). */
void ga_cache_unhold(ga_cache*, ga_chold *h);
/* A read starts (on 1) or ends (0) using h's memory (NULL: none). */
void ga_cache_hold_use(ga_chold *h, int on);
/* After work on the device over kept columns: its work memory counted,
** and given back where the budget has no room for it (6a). */
void ga_cache_work(ga_cache*);

/* Most columns one statement source scans. */
#define GA_STMT_COLS GA_COLS_MAX

/* The aggregate the statement source runs, registered on each connection:
** gpuagg_colsrc(COL, ...); outside a scan it is an error. */
void ga_colsrcStep(sqlite3_context*, int, sqlite3_value**);
void ga_colsrcFinal(sqlite3_context*);

#endif /* GPUAGG_COLSRC_H */
