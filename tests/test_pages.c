/*
** The page column source against the statement source: every table-valued
** function must give the same rows, cell for cell, whichever source reads
** the table (gpuagg_config('pages', 1) and 0), and gpuagg_info() must name
** the source that served. Both backends, as suite.h says.
**
**   - Generated databases: each page size (512 to 65,536), reserved bytes,
**     auto_vacuum (none, full, incremental, with pages moved), the reading
**     connection in each journal mode (DELETE, TRUNCATE, PERSIST, MEMORY,
**     OFF, WAL with the table's pages in the -wal file), half of them with
**     the file mapped (mmap_size: leaves read from SQLite's mapping), half of
**     those only its first two pages (the workers read the leaves beyond on
**     handles of their own: pages.c, 3); the schema's
**     INTEGER PRIMARY KEY (rowids from 1, or across 2^21 and 2^28, where their
**     varints widen, or from 2^42), REAL affinity with integral values, NUMERIC and
**     untyped columns, TEXT that looks like numbers, blobs, NaN-free reals,
**     int64 limits, rows with overflow pages, columns added by ALTER TABLE
**     (with and without DEFAULT), renamed and dropped columns, STORED
**     generated columns, STRICT tables, deleted rows (freelist), an index
**     that would reorder a covering scan; 0 to GPUAGG_TEST_PAGES_ROWS rows
**     (default 200,000; the GPU run uses 10,000,000).
**   - Refusals, each answered by the statement source with its reason:
**     VIRTUAL generated columns, views, WITHOUT ROWID, temp and in-memory
**     tables, UTF-16 databases, this connection's uncommitted changes.
**   - WAL snapshots: a transaction opened before the statement, a commit
**     between prepare and step, a re-stepped statement, checkpoints.
**   - Concurrent writers (another connection in a thread, another process)
**     committing pairs of rows that cancel during scans, in WAL and DELETE
**     modes, the reader's file mapped in half the scans (in half of those its
**     first page only, the workers reading the rest on their handles): every
**     scan's sums are exactly 0, and inside one transaction the
**     page and statement sources agree. The writer lets a reader that waits
**     for the lock go first (DELETE: its commits back to back kept one out).
**   - Malformed files (bits flipped, bytes overwritten, truncated): an error
**     or the statement source's answer, never a crash, copied, mapped or read
**     by the workers on their handles; GPUAGG_TEST_CORRUPT=N
**     files (default 300), run under ASan and UBSan by a build configured
**     with CFLAGS='-fsanitize=address,undefined' (docs/reliability.md).
** GPUAGG_SEED=N repeats a run.
*/
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "suite.h"

static char zDir[64];               /* this test's scratch directory */

/* A connection with the module, on this pass's backend, small chunks. */
static sqlite3 *openDb(const char *zFile){
  char *zErr = 0;
  sqlite3 *db = h_open_file(zFile, &zErr);
  ck_assert_msg(db!=0, "cannot open %s with the module: %s", zFile, zErr ? zErr : "?");
  sqlite3_busy_timeout(db, 5000);
  EXEC(db, "SELECT gpuagg_backend('%s'), gpuagg_config('chunk', 4096), gpuagg_config('threshold', 1000),"
           " gpuagg_config('cache', 0)", g_backend);
  return db;
}

/* The source zFn used last ("pages" or "statement") and why. */
static char *sourceOf(sqlite3 *db, const char *zFn){
  return h_text(db, "SELECT json_extract(gpuagg_info(), '$.sources.%s.source') || ': ' ||"
                    " ifnull(json_extract(gpuagg_info(), '$.sources.%s.why'), '')", zFn, zFn);
}

/* zSql gives the same cells with the pages as with the statement source.
** wantPages: 1, the pages must have served; 0, the statement source with
** a reason containing zWhy; -1, either. */
static void same(sqlite3 *db, const char *zFn, const char *zSql, int wantPages, const char *zWhy){
  char *a, *b, *zSrc;
  EXEC(db, "SELECT gpuagg_config('pages', 0)");
  a = s_render(db, zSql);
  EXEC(db, "SELECT gpuagg_config('pages', 1)");
  b = s_render(db, zSql);
  zSrc = sourceOf(db, zFn);
  CHECK(strcmp(a, b)==0, "%s: statement source\n  %.600s\npages (%s)\n  %.600s", zSql, a, zSrc ? zSrc : "?", b);
  CHECK(strncmp(a, "error", 5)!=0 || strstr(a, "integer overflow"), "%s: %.300s", zSql, a);
  if( wantPages==1 ) CHECK(zSrc && strncmp(zSrc, "pages", 5)==0, "%s: served by %s", zSql, zSrc ? zSrc : "?");
  if( wantPages==0 ){
    CHECK(zSrc && strncmp(zSrc, "statement", 9)==0 && strstr(zSrc, zWhy), "%s: served by %s, wanted the statement source (%s)",
          zSql, zSrc ? zSrc : "?", zWhy);
  }
  free(a); free(b); free(zSrc);
}

/* Did the page source read leaves where SQLite maps the file (want 1), or
** none (want 0)? */
static void mapped(sqlite3 *db, int want, const char *zWhat){
  int64_t nMap = h_int(db, "SELECT json_extract(gpuagg_info(), '$.pages_mapped')");
  CHECK(want ? nMap>0 : nMap==0, "%s: %lld leaves read from the mapping, wanted %s", zWhat, (long long)nMap,
        want ? "some" : "none");
}

/* Did the page source's workers read leaves on handles of their own
** (want 1), or none (want 0)? */
static void readOwn(sqlite3 *db, int want, const char *zWhat){
  int64_t nRead = h_int(db, "SELECT json_extract(gpuagg_info(), '$.pages_read')");
  CHECK(want ? nRead>0 : nRead==0, "%s: %lld leaves read by the workers on their handles, wanted %s", zWhat,
        (long long)nRead, want ? "some" : "none");
}

/* ---- generated databases ----------------------------------------------------------- */

typedef struct Cfg {
  int pgsz;                         /* page size */
  int reserve;                      /* reserved bytes a page */
  const char *zVacuum;              /* auto_vacuum */
  const char *zJournal;             /* the reading connection's journal mode */
  int strict;                       /* a STRICT table */
  int nRow;                         /* rows inserted first */
  int64_t idStart;                  /* the first rowid (rowids' varints change width at 2^21, 2^28, ...) */
} Cfg;

static const char *azText[] = {
  "", "abc", "12", "-7", " 12", "1.5", "1e3", "0x10", "+4", "-", ".5", "inf", "NaN", "9223372036854775808",
  "-9223372036854775808", "00042", "12abc", "\xc3\xa9t\xc3\xa9", "1.0", "-0", "123456789012345678", " ", "e5",
};

/* A value for column kind k ('i' integer, 'r' real, 't' text, 'b' blob,
** 'a' any) of a table whose pages are pgsz bytes, bound at i. */
static void bindValue(h_rng *r, sqlite3_stmt *st, int i, char k, int strict, int pgsz){
  uint64_t x = h_next(r) % 100;
  if( x<8 ){ sqlite3_bind_null(st, i); return; }
  if( k=='a' ) k = "irtb"[x % 4];
  switch( k ){
    case 'i':
      if( x<14 ) sqlite3_bind_int64(st, i, x%2 ? INT64_MAX : INT64_MIN);
      else if( x<60 ) sqlite3_bind_int64(st, i, h_range(r, -300, 300));
      else sqlite3_bind_int64(st, i, (int64_t)h_next(r) >> (h_next(r) % 64));
      return;
    case 'r':
      if( x<20 ) sqlite3_bind_double(st, i, (double)h_range(r, -1000, 1000));     /* stored as integers */
      else if( x<24 ) sqlite3_bind_double(st, i, x%2 ? -0.0 : 0.0);
      else if( x<27 ) sqlite3_bind_double(st, i, x%2 ? INFINITY : -INFINITY);
      else if( x<32 ) sqlite3_bind_double(st, i, 9007199254740993.0*(x%2 ? 1 : -1));
      else if( x<36 && !strict ) sqlite3_bind_int64(st, i, h_range(r, -5, 5));
      else sqlite3_bind_double(st, i, (h_unit(r) - 0.5)*ldexp(1.0, (int)h_range(r, -60, 60)));
      return;
    case 't':
      if( x<12 ){                   /* overflow pages */
        int n = (int)h_range(r, pgsz/2, 3*pgsz);
        char *z = malloc((size_t)n);
        memset(z, 'a' + (int)(x % 26), (size_t)n);
        if( x%3==0 ) memcpy(z, "42", 2);
        sqlite3_bind_text(st, i, z, n, free);
      }else{
        sqlite3_bind_text(st, i, azText[h_next(r) % (sizeof(azText)/sizeof(azText[0]))], -1, SQLITE_STATIC);
      }
      return;
    default:                        /* 'b' */
      if( x<12 ){
        int n = (int)h_range(r, pgsz/2, 3*pgsz);
        unsigned char *z = malloc((size_t)n);
        int j;
        for(j=0; j<n; j++) z[j] = (unsigned char)h_next(r);
        sqlite3_bind_blob(st, i, z, n, free);
      }else{
        const char *z = azText[h_next(r) % (sizeof(azText)/sizeof(azText[0]))];
        sqlite3_bind_blob(st, i, z, (int)strlen(z), SQLITE_STATIC);
      }
      return;
  }
}

/* n rows into t(a, r, s, b, n, m). */
static void insertRows(sqlite3 *db, h_rng *r, int n, int strict, int pgsz, int extra){
  sqlite3_stmt *st = 0;
  const char *zSql = extra ? "INSERT INTO t(a, r, s, b, m2, d1, d2, d3, d4, d5, d6) VALUES(?,?,?,?,?,?,?,?,?,?,?)"
                           : "INSERT INTO t(a, r, s, b, n, m) VALUES(?,?,?,?,?,?)";
  const char *zKinds = extra ? "irtba" "airtbr" : "irtbia";
  int i, j;
  ck_assert_msg(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s: %s", zSql, sqlite3_errmsg(db));
  for(i=0; i<n; i++){
    for(j=0; zKinds[j]; j++) bindValue(r, st, j+1, zKinds[j], strict, pgsz);
    if( strict ){                   /* STRICT: a, r, s, b, n of their types or NULL */
      if( sqlite3_step(st)!=SQLITE_DONE ){ sqlite3_reset(st); continue; }
    }else{
      CHECK(sqlite3_step(st)==SQLITE_DONE, "insert: %s", sqlite3_errmsg(db));
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
}

/* A database at zFile shaped by c; returns the writer connection, still open
** (in WAL mode its last changes are only in the -wal file). */
static sqlite3 *makeDb(const char *zFile, h_rng *r, const Cfg *c){
  sqlite3 *db = s_open_plain(zFile);
  int res = c->reserve;
  sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &res);
  EXEC(db, "PRAGMA page_size=%d; PRAGMA auto_vacuum=%s", c->pgsz, c->zVacuum);
  if( strcmp(c->zJournal, "wal")==0 ) EXEC(db, "PRAGMA journal_mode=wal; PRAGMA wal_autocheckpoint=0");
  if( c->strict ){
    EXEC(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, r REAL, s TEXT, b BLOB, n INTEGER, m ANY,"
             " g INT AS (a/2) STORED, v INT AS (a+1) VIRTUAL) STRICT");
  }else{
    EXEC(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, r REAL, s TEXT, b BLOB, n NUMERIC, m,"
             " g AS (a/2) STORED, v AS (a+1) VIRTUAL)");
  }
  EXEC(db, "CREATE INDEX t_ar ON t(a, r)");
  EXEC(db, "CREATE TABLE other(x, y); INSERT INTO other VALUES(1, randomblob(%d))", c->pgsz*3);
  EXEC(db, "BEGIN");
  if( c->idStart>1 ) EXEC(db, "INSERT INTO t(id) VALUES(%lld)", (long long)c->idStart - 1);
  insertRows(db, r, c->nRow, c->strict, c->pgsz, 0);
  EXEC(db, "COMMIT");
  EXEC(db, "DELETE FROM t WHERE id %% 11 = 3; DELETE FROM other");
  if( strcmp(c->zVacuum, "incremental")==0 ) EXEC(db, "PRAGMA incremental_vacuum(7)");
  /* Columns added after rows exist: older records lack them. */
  EXEC(db, "ALTER TABLE t RENAME COLUMN m TO m2");
  EXEC(db, "ALTER TABLE t ADD COLUMN d1 %s DEFAULT 7", c->strict ? "ANY" : "");
  EXEC(db, "ALTER TABLE t ADD COLUMN d2 REAL DEFAULT 2");
  EXEC(db, "ALTER TABLE t ADD COLUMN d3 TEXT DEFAULT 'dflt'");
  EXEC(db, "ALTER TABLE t ADD COLUMN d4 %s DEFAULT -1.5", c->strict ? "ANY" : "");
  EXEC(db, "ALTER TABLE t ADD COLUMN d5 %s DEFAULT x'0102'", c->strict ? "BLOB" : "");
  EXEC(db, "ALTER TABLE t ADD COLUMN d6 REAL");
  if( c->nRow%2 ) EXEC(db, "ALTER TABLE t DROP COLUMN n");   /* rewrites every row */
  EXEC(db, "BEGIN");
  insertRows(db, r, c->nRow/4 + 1, c->strict, c->pgsz, 1);
  EXEC(db, "UPDATE t SET d1 = 'upd', s = 'upd' WHERE id %% 13 = 5");
  EXEC(db, "COMMIT");
  return db;
}

/* Every function over every stored column of t, both sources. */
static void compareAll(sqlite3 *db, int nRow){
  static const char *azCol[] = { "id", "a", "r", "s", "b", "m2", "g", "d1", "d2", "d3", "d4", "d5", "d6" };
  const int nCol = (int)(sizeof(azCol)/sizeof(azCol[0]));
  char z[256];
  int i;
  for(i=0; i<nCol; i++){
    snprintf(z, sizeof(z), "SELECT * FROM gpu_summary('t', '%s')", azCol[i]);
    same(db, "gpu_summary", z, 1, 0);
    snprintf(z, sizeof(z), "SELECT * FROM gpu_histogram('t', '%s', 7, -1000, 1000)", azCol[i]);
    same(db, "gpu_histogram", z, 1, 0);
    snprintf(z, sizeof(z), "SELECT * FROM gpu_group_by('t', '%s', '%s')", azCol[i], azCol[(i*5 + 3) % nCol]);
    same(db, "gpu_group_by", z, 1, 0);
  }
  /* All columns: the VIRTUAL one sends the scan to the statement source. */
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('t')", 0, "VIRTUAL");
  /* Segments decoded by one thread and by many: the same rows. */
  EXEC(db, "SELECT gpuagg_config('threads', 1)");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'a', 'r')", 1, 0);
  EXEC(db, "SELECT gpuagg_config('threads', 7)");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'a', 'r')", 1, 0);
  (void)nRow;
}

START_TEST(test_formats){
  static const int aPg[] = { 512, 1024, 4096, 16384, 65536 };
  static const char *azJ[] = { "delete", "truncate", "persist", "memory", "off", "wal" };
  static const char *azV[] = { "none", "full", "incremental" };
  static const int aRows[] = { 0, 1, 37, 2500, 9000 };
  static const int64_t aId[] = { 1, (1<<21) - 2, (1<<28) - 2, (int64_t)1<<42 };
  h_rng r;
  int j, k = 0;
  h_rng_init(&r, h_seed ^ 0x9a9e5);
  s_dir_make(zDir, "pages");
  for(j=0; j<(int)(sizeof(azJ)/sizeof(azJ[0])); j++){
    int p;
    for(p=0; p<(int)(sizeof(aPg)/sizeof(aPg[0])); p++, k++){
      Cfg c;
      char zFile[128];
      sqlite3 *w, *db;
      c.pgsz = aPg[p];
      c.reserve = (int)(h_next(&r) % 3)*16;
      c.zVacuum = azV[h_next(&r) % 3];
      c.zJournal = azJ[j];
      c.strict = (int)(h_next(&r) % 3==0);
      c.nRow = aRows[(k*3 + j) % 5];
      c.idStart = aId[k % 4];
      if( c.pgsz - c.reserve < 480 ) c.reserve = 0;
      snprintf(zFile, sizeof(zFile), "%s/f%d.db", zDir, k);
      w = makeDb(zFile, &r, &c);
      if( strcmp(c.zJournal, "wal")!=0 ){ sqlite3_close(w); w = 0; }
      db = openDb(zFile);
      EXEC(db, "PRAGMA journal_mode=%s", c.zJournal);
      /* Half the files read where SQLite maps them (each journal mode has
      ** both, five page sizes apiece), half of those where it maps the
      ** first two pages only (3 workers read the rest on their handles:
      ** pages.c, 3); of the others, half where the scan maps the file itself
      ** (pages.c, 3a), half copied. */
      if( k%2 ) EXEC(db, "PRAGMA mmap_size=%d", k%4==3 ? 2*c.pgsz : 268435456);
      else if( k%4==0 ) EXEC(db, "SELECT gpuagg_config('map', 0)");
      if( k%4==3 ) EXEC(db, "SELECT gpuagg_config('threads', 3)");
      compareAll(db, c.nRow);
      if( k%4!=3 ) mapped(db, (k%2 || k%4==2) && !w, zFile);
      if( c.nRow>=2500 && !w ) readOwn(db, k%4==3, zFile);
      s_expect_pool_idle(db);
      sqlite3_close(db);
      sqlite3_close(w);
    }
  }
  s_dir_drop(zDir);
}
END_TEST

/* A large table: many segments, every thread, the device's chunks. */
START_TEST(test_large){
  const char *zRows = getenv("GPUAGG_TEST_PAGES_ROWS");
  int64_t n = zRows ? atoll(zRows) : 200000;
  char zFile[128];
  sqlite3 *w, *db;
  s_dir_make(zDir, "pages");
  snprintf(zFile, sizeof(zFile), "%s/large.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "CREATE TABLE t(k INTEGER, x REAL, y INTEGER, s TEXT)");
  EXEC(w, SERIES(%lld) "INSERT INTO t SELECT value %% 1000, value*0.5, value*7 - 3000000, "
          "CASE WHEN value %% 97 = 0 THEN 'x' || value END FROM series", (long long)n);
  sqlite3_close(w);
  db = openDb(zFile);
  EXEC(db, "SELECT gpuagg_config('chunk', 65536), gpuagg_config('threshold', 65536), gpuagg_config('map', 0)");
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('t')", 1, 0);
  same(db, "gpu_histogram", "SELECT * FROM gpu_histogram('t', 'x', 256)", 1, 0);
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'y')", 1, 0);
  mapped(db, 0, "large table");
  /* mmap_size 0, the scan maps the file itself (pages.c, 3a) */
  EXEC(db, "SELECT gpuagg_config('map', 1)");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'y')", 1, 0);
  mapped(db, 1, "large table, mapped by the scan");
  CHECK(h_int(db, "PRAGMA mmap_size")==0, "the connection's mmap_size changed");
  EXEC(db, "SELECT gpuagg_config('map', 0)");
  EXEC(db, "PRAGMA mmap_size=%lld", (long long)(n*64 + (1<<20)));
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('t')", 1, 0);
  mapped(db, 1, "large table, mmap_size");
  /* SQLite maps the first 64 KiB: the workers read the rest on their handles */
  EXEC(db, "PRAGMA mmap_size=65536; SELECT gpuagg_config('threads', 4)");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'y')", 1, 0);
  readOwn(db, 1, "large table, its first 64 KiB mapped");
  if( n>=100000 ) s_expect_device(db, "large table");
  sqlite3_close(db);
  /* A connection that takes no lock (nolock=1): no handles of the workers'
  ** (snap.c), the connection's thread copies the leaves past the mapping */
  {
    char *zUri = sqlite3_mprintf("file:%s?nolock=1", zFile);
    db = openDb(zUri);
    sqlite3_free(zUri);
  }
  EXEC(db, "PRAGMA mmap_size=65536; SELECT gpuagg_config('threads', 4)");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'y')", 1, 0);
  readOwn(db, 0, "large table, nolock=1");
  mapped(db, 1, "large table, nolock=1");
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

/* A wide table: wanted fields past the 100th (a record's header walked far),
** and rows whose records are long enough to overflow. */
START_TEST(test_wide){
  sqlite3_str *q = sqlite3_str_new(0), *v = sqlite3_str_new(0);
  char zFile[128], *zCreate, *zInsert;
  sqlite3 *db;
  int c;
  s_dir_make(zDir, "pages");
  snprintf(zFile, sizeof(zFile), "%s/wide.db", zDir);
  sqlite3_str_appendall(q, "CREATE TABLE w(");
  sqlite3_str_appendall(v, SERIES(3000) "INSERT INTO w SELECT ");
  for(c=0; c<150; c++){
    sqlite3_str_appendf(q, "%sc%d", c ? ", " : "", c);
    sqlite3_str_appendf(v, "%s%s", c ? ", " : "", c%7==3 ? "printf('%.*c', value % 40, 'x')" : c%5==1 ? "value*0.5" : "value*1000003 % 257");
  }
  sqlite3_str_appendall(q, ")");
  sqlite3_str_appendall(v, " FROM series");
  zCreate = sqlite3_str_finish(q);
  zInsert = sqlite3_str_finish(v);
  db = openDb(zFile);
  EXEC(db, "%s", zCreate);
  EXEC(db, "%s", zInsert);
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('w', 'c140')", 1, 0);
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('w', 'c149', 'c101')", 1, 0);
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('w')", 1, 0);
  sqlite3_close(db);
  sqlite3_free(zCreate);
  sqlite3_free(zInsert);
  s_dir_drop(zDir);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------- */

START_TEST(test_refusals){
  char zFile[128], zAux[128];
  sqlite3 *db;
  s_dir_make(zDir, "pages");
  snprintf(zFile, sizeof(zFile), "%s/r.db", zDir);
  snprintf(zAux, sizeof(zAux), "%s/aux.db", zDir);
  db = openDb(zFile);
  EXEC(db, "CREATE TABLE t(k, x); " SERIES(3000) "INSERT INTO t SELECT value %% 5, value FROM series");
  EXEC(db, "CREATE TABLE w(k PRIMARY KEY, x) WITHOUT ROWID; INSERT INTO w SELECT k + rowid*10, x FROM t");
  EXEC(db, "CREATE VIEW vw AS SELECT k, x FROM t WHERE x > 10");
  EXEC(db, "CREATE TEMP TABLE tt AS SELECT * FROM t");
  EXEC(db, "CREATE VIRTUAL TABLE f USING fts5(body)");
  EXEC(db, "INSERT INTO f SELECT 'word' || k FROM t");
  EXEC(db, "CREATE TABLE odd(\"rowid\", \"_rowid_\", \"oid\", x); INSERT INTO odd SELECT 1, 2, 3, x FROM t");
  EXEC(db, "CREATE TABLE desc_pk(id INTEGER PRIMARY KEY DESC, x); INSERT INTO desc_pk SELECT x, x FROM t");
  EXEC(db, "ATTACH '%s' AS aux; CREATE TABLE aux.t2(k, x); INSERT INTO aux.t2 SELECT * FROM t", zAux);
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'x')", 1, 0);
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('w', 'k', 'x')", 0, "WITHOUT ROWID");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('vw', 'k', 'x')", 0, "view");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('tt', 'k', 'x')", 0, "temporary");
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('f')", 0, "virtual");
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('f_content')", 1, 0);     /* a shadow table */
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('odd')", 0, "rowid, _rowid_ and oid");
  same(db, "gpu_summary", "SELECT * FROM gpu_summary('desc_pk')", 1, 0);       /* not an alias */
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('aux.t2', 'k', 'x')", 1, 0);
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t2', 'k', 'x')", 1, 0);
  /* This connection's uncommitted changes. */
  EXEC(db, "BEGIN; UPDATE t SET x = -x WHERE k = 2");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'x')", 0, "write transaction");
  EXEC(db, "ROLLBACK");
  sqlite3_close(db);
  /* In memory. */
  db = openDb(":memory:");
  EXEC(db, "CREATE TABLE t(k, x); " SERIES(100) "INSERT INTO t SELECT value %% 5, value FROM series");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'x')", 0, "in-memory");
  sqlite3_close(db);
  /* UTF-16. */
  snprintf(zFile, sizeof(zFile), "%s/u16.db", zDir);
  db = openDb(zFile);
  EXEC(db, "PRAGMA encoding='UTF-16le'; CREATE TABLE t(k, x); "
           SERIES(100) "INSERT INTO t SELECT 'k' || (value %% 5), value FROM series");
  same(db, "gpu_group_by", "SELECT * FROM gpu_group_by('t', 'k', 'x')", 0, "UTF-16");
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

/* ---- WAL snapshots ---------------------------------------------------------------------- */

/* The cells of zSql on db with pages on, and the source that served. */
static char *renderPages(sqlite3 *db, const char *zSql, char **pzSrc){
  char *z;
  EXEC(db, "SELECT gpuagg_config('pages', 1)");
  z = s_render(db, zSql);
  *pzSrc = sourceOf(db, "gpu_summary");
  return z;
}

START_TEST(test_wal_snapshots){
  const char *zQ = "SELECT * FROM gpu_summary('t')";
  char zFile[128], *a, *b, *zSrc;
  sqlite3 *db, *w;
  sqlite3_stmt *st;
  s_dir_make(zDir, "pages");
  snprintf(zFile, sizeof(zFile), "%s/wal.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "PRAGMA journal_mode=wal; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(k, x);"
          SERIES(5000) "INSERT INTO t SELECT value %% 9, value FROM series");
  db = openDb(zFile);
  /* A fresh statement: the snapshot is proven, the -wal frames are read. */
  same(db, "gpu_summary", zQ, 1, 0);
  /* A transaction opened before the statement, after a commit this
  ** connection has not proven, then another commit: its snapshot is older
  ** than the header, the table's pages are in frames it may not see, so the
  ** statement source reads them, in that snapshot. */
  EXEC(w, "UPDATE t SET x = x + 1 WHERE k = 2");
  EXEC(db, "BEGIN; SELECT count(*) FROM t");
  EXEC(w, "UPDATE t SET x = x + 1 WHERE k = 3");
  a = renderPages(db, zQ, &zSrc);
  CHECK(strncmp(zSrc, "statement", 9)==0 && strstr(zSrc, "WAL"), "old transaction: served by %s", zSrc);
  free(zSrc);
  EXEC(db, "SELECT gpuagg_config('pages', 0)");
  b = s_render(db, zQ);
  CHECK(strcmp(a, b)==0, "old transaction: %s\n%s", a, b);
  free(b);
  EXEC(db, "COMMIT");
  b = renderPages(db, zQ, &zSrc);
  CHECK(strcmp(a, b)!=0, "the commit is not seen");
  CHECK(strncmp(zSrc, "pages", 5)==0, "after the commit: served by %s", zSrc);
  free(a); free(b); free(zSrc);
  /* A commit between prepare and step: not proven by the prepare's view. */
  EXEC(db, "SELECT gpuagg_config('pages', 1)");
  CHECK(sqlite3_prepare_v2(db, zQ, -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  EXEC(w, "UPDATE t SET x = x - 1 WHERE k = 4");
  while( sqlite3_step(st)==SQLITE_ROW ){}
  zSrc = sourceOf(db, "gpu_summary");
  CHECK(strncmp(zSrc, "statement", 9)==0, "commit after prepare: served by %s", zSrc);
  free(zSrc);
  /* Stepped again, nothing committed since the last proven scan: proven by
  ** the pager's data version. */
  sqlite3_reset(st);
  same(db, "gpu_summary", zQ, 1, 0);
  sqlite3_reset(st);
  while( sqlite3_step(st)==SQLITE_ROW ){}
  zSrc = sourceOf(db, "gpu_summary");
  CHECK(strncmp(zSrc, "pages", 5)==0, "re-stepped: served by %s", zSrc);
  free(zSrc);
  sqlite3_finalize(st);
  /* Checkpoints of each kind between scans. */
  EXEC(w, "UPDATE t SET x = x * 2 WHERE k = 5; PRAGMA wal_checkpoint(PASSIVE)");
  same(db, "gpu_summary", zQ, 1, 0);
  EXEC(w, "UPDATE t SET x = x * 3 WHERE k = 6; PRAGMA wal_checkpoint(RESTART)");
  same(db, "gpu_summary", zQ, 1, 0);
  EXEC(w, "UPDATE t SET x = x * 5 WHERE k = 7; PRAGMA wal_checkpoint(TRUNCATE)");
  same(db, "gpu_summary", zQ, 1, 0);
  EXEC(w, "UPDATE t SET x = -x WHERE k = 8");
  same(db, "gpu_summary", zQ, 1, 0);
  sqlite3_close(db);
  sqlite3_close(w);
  s_dir_drop(zDir);
}
END_TEST

/* ---- concurrent writers ---------------------------------------------------------------- */

/* What the reader tells the writer, in memory a writer process shares. */
typedef struct Turn {
  volatile double tWait;            /* when the reader last found the file locked (h_now()) */
} Turn;

typedef struct Writer {
  const char *zFile;                /* the database */
  uint64_t seed;                    /* its values */
  volatile int stop;                /* set to end it */
  int nCommit;                      /* commits made */
  Turn *turn;                       /* the reader's waits */
  char zErr[256];                   /* its failure, if any */
} Writer;

/* The reader's busy handler: openDb's 5 s, in tries a millisecond apart,
** each noted for the writer (writeLoop). */
static int readerBusy(void *pArg, int n){
  ((Turn*)pArg)->tWait = h_now();
  if( n>=5000 ) return 0;
  usleep(1000);
  return 1;
}

/* Commit until stopped: pairs of rows whose x and y cancel, pairs of updates
** that cancel, deletes of pairs, checkpoints now and then. */
static void writeLoop(Writer *p){
  sqlite3 *db = 0;
  h_rng r;
  int i, k;
  h_rng_init(&r, p->seed);
  if( sqlite3_open(p->zFile, &db)!=SQLITE_OK ){ snprintf(p->zErr, sizeof(p->zErr), "open"); return; }
  sqlite3_busy_timeout(db, 10000);
  for(i=0; !p->stop; i++){
    int64_t v = h_range(&r, 1, 1000000000);
    double y = (h_unit(&r) - 0.5)*ldexp(1.0, (int)h_range(&r, -30, 30));
    /* Rows come in pairs (odd id, the next id): inserted, updated and
    ** deleted together, so x and y always sum to 0. */
    char *z = sqlite3_mprintf(
        "BEGIN IMMEDIATE;"
        "INSERT INTO t(x, y, pad) VALUES(%lld, %!.17g, randomblob(%d)), (%lld, %!.17g, randomblob(%d));"
        "WITH p AS (SELECT id FROM t WHERE id %% 2 = 1 ORDER BY random() LIMIT 1)"
        " UPDATE t SET x = x + CASE WHEN id %% 2 = 1 THEN %lld ELSE %lld END"
        " WHERE id IN (SELECT id FROM p UNION ALL SELECT id + 1 FROM p);"
        "%s"
        "COMMIT;",
        (long long)v, y, (int)(h_next(&r) % 3000), (long long)-v, -y, (int)(h_next(&r) % 3000),
        (long long)v, (long long)-v,
        i%7==3 ? "WITH p AS (SELECT id FROM t WHERE id % 2 = 1 ORDER BY random() LIMIT 1)"
                 " DELETE FROM t WHERE id IN (SELECT id FROM p UNION ALL SELECT id + 1 FROM p);" : "");
    int rc = sqlite3_exec(db, z, 0, 0, 0);
    sqlite3_free(z);
    if( rc!=SQLITE_OK ){
      sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
      if( rc!=SQLITE_BUSY ){ snprintf(p->zErr, sizeof(p->zErr), "writer: %s", sqlite3_errmsg(db)); break; }
      continue;
    }
    p->nCommit++;
    if( i%50==25 ) sqlite3_exec(db, i%150==25 ? "PRAGMA wal_checkpoint(RESTART)" : "PRAGMA wal_checkpoint(PASSIVE)", 0, 0, 0);
    /* A reader waiting for the lock goes next. In rollback modes a commit
    ** holds EXCLUSIVE while it syncs the journal and the file, and the next
    ** one starts at once: the file is free to read for about a millisecond
    ** between them, and a reader whose busy handler tries every 100 ms
    ** (SQLite's own) missed every gap for 5 s (issue 39). The reader tries
    ** every millisecond: no try for 5 ms, it is in. */
    for(k=0; k<200 && h_now() - p->turn->tWait < 0.005; k++) usleep(1000);
  }
  sqlite3_close(db);
}

static void *writeThread(void *p){ writeLoop((Writer*)p); return 0; }

/* Scan t while a writer commits: every scan's exact sums cancel to 0, and
** inside a transaction the two sources agree. */
static void readDuring(const char *zFile, int useProcess, const char *zJournal){
  Writer wr;
  pthread_t th;
  pid_t pid = 0;
  sqlite3 *db, *w;
  int i, nPages = 0, nScan = 0;
  double t0;
  w = s_open_plain(zFile);
  EXEC(w, "PRAGMA journal_mode=%s; DROP TABLE IF EXISTS t;"
          "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER, y REAL, pad BLOB);"
          SERIES(4000) "INSERT INTO t(x, y, pad) SELECT (value %% 2)*2 - 1, 0.25*((value %% 2)*2 - 1), "
          "randomblob(value %% 700) FROM series", zJournal);
  sqlite3_close(w);
  memset(&wr, 0, sizeof(wr));
  wr.zFile = zFile;
  wr.seed = h_seed ^ 0x77;
  wr.turn = mmap(0, sizeof(Turn), PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS, -1, 0);
  CHECK(wr.turn!=MAP_FAILED, "mmap");
  wr.turn->tWait = 0;
  if( useProcess ){
    if( (pid = fork())==0 ){
      wr.stop = 0;
      alarm(60);
      for(;;){ writeLoop(&wr); if( wr.zErr[0] ) _exit(1); }
    }
    CHECK(pid>0, "fork");
  }else{
    CHECK(pthread_create(&th, 0, writeThread, &wr)==0, "pthread_create");
  }
  db = openDb(zFile);
  sqlite3_busy_handler(db, readerBusy, wr.turn);
  EXEC(db, "SELECT gpuagg_config('threads', 3)");
  t0 = h_now();
  for(i=0; h_now() - t0 < 1.5 || i<6; i++){
    char *zSrc, *a, *b;
    h_val v;
    /* the pages copied, mapped, or the first mapped and the rest read by the
    ** workers on their handles */
    EXEC(db, "PRAGMA mmap_size=%d", i%4<2 ? 0 : i%4==2 ? 1<<26 : 4096);
    if( i%3==2 ){
      /* One transaction, both sources. */
      EXEC(db, "BEGIN; SELECT count(*) FROM t");
      EXEC(db, "SELECT gpuagg_config('pages', 1)");
      a = s_render(db, "SELECT * FROM gpu_summary('t', 'x')");
      EXEC(db, "SELECT gpuagg_config('pages', 0)");
      b = s_render(db, "SELECT * FROM gpu_summary('t', 'x')");
      EXEC(db, "COMMIT");
      CHECK(strcmp(a, b)==0 && strncmp(a, "error", 5)!=0, "in one transaction (%s): %s\n%s", zJournal, a, b);
      free(a); free(b);
      continue;
    }
    EXEC(db, "SELECT gpuagg_config('pages', 1)");
    v = h_query(db, "SELECT sum FROM gpu_summary('t', 'x')");
    CHECK(v.rc==SQLITE_OK && v.type==SQLITE_INTEGER && v.i==0, "sum(x) during writes (%s): rc %d, type %d, %lld: %s",
          zJournal, v.rc, v.type, (long long)v.i, v.zErr);
    zSrc = sourceOf(db, "gpu_summary");
    nPages += zSrc && strncmp(zSrc, "pages", 5)==0;
    nScan++;
    free(zSrc);
    v = h_query(db, "SELECT total FROM gpu_summary('t', 'y')");
    CHECK(v.rc==SQLITE_OK && v.type==SQLITE_FLOAT && v.r==0.0, "total(y) during writes (%s): rc %d, %.17g: %s",
          zJournal, v.rc, v.r, v.zErr);
    /* Two scans and SQL's counts in one statement: one snapshot. */
    zSrc = s_render(db, "SELECT (SELECT count(*) FROM t), (SELECT sum(rows) FROM gpu_group_by('t', 'x', 'y')),"
                        " (SELECT rows FROM gpu_summary('t', 'x')), (SELECT count(*) FROM t)");
    {
      long long n[4] = { -1, -2, -3, -4 };
      CHECK(zSrc && sscanf(zSrc, "i%lld i%lld i%lld i%lld", &n[0], &n[1], &n[2], &n[3])==4
            && n[0]==n[1] && n[1]==n[2] && n[2]==n[3], "count(*), group_by, summary, count(*) during writes (%s): %s",
            zJournal, zSrc ? zSrc : "?");
    }
    free(zSrc);
  }
  wr.stop = 1;
  if( useProcess ){
    int status = 0;
    kill(pid, SIGKILL);             /* not SIGTERM: Check handles that for the whole group */
    waitpid(pid, &status, 0);
  }else{
    pthread_join(th, 0);
    CHECK(wr.zErr[0]==0, "%s", wr.zErr);
  }
  munmap(wr.turn, sizeof(Turn));
  CHECK(nPages>0, "%s: no scan read the pages (%d scans)", zJournal, nScan);
  readOwn(db, 1, zJournal);
  sqlite3_close(db);
}

START_TEST(test_concurrent_writers){
  char zFile[128];
  s_dir_make(zDir, "pages");
  snprintf(zFile, sizeof(zFile), "%s/c.db", zDir);
  readDuring(zFile, 0, "wal");
  readDuring(zFile, 0, "delete");
  readDuring(zFile, 1, "wal");
  readDuring(zFile, 1, "delete");
  s_dir_drop(zDir);
}
END_TEST

/* ---- malformed files --------------------------------------------------------------------- */

static unsigned char *slurp(const char *zFile, long *pn){
  FILE *f = fopen(zFile, "rb");
  unsigned char *a;
  ck_assert_msg(f!=0, "open %s", zFile);
  fseek(f, 0, SEEK_END);
  *pn = ftell(f);
  fseek(f, 0, SEEK_SET);
  a = malloc((size_t)*pn);
  ck_assert_msg(a && fread(a, 1, (size_t)*pn, f)==(size_t)*pn, "read %s", zFile);
  fclose(f);
  return a;
}

START_TEST(test_corrupt){
  static const char *azQ[] = {
    "SELECT * FROM gpu_summary('t')",
    "SELECT * FROM gpu_group_by('t', 'k', 'x')",
    "SELECT * FROM gpu_histogram('t', 'x', 16)",
  };
  const char *zN = getenv("GPUAGG_TEST_CORRUPT");
  int nTry = zN ? atoi(zN) : 300, i, nErr = 0, nDiff = 0;
  char zFile[128], zBad[128];
  unsigned char *orig, *a;
  long n;
  h_rng r;
  sqlite3 *w;
  h_rng_init(&r, h_seed ^ 0xc0de);
  s_dir_make(zDir, "pages");
  snprintf(zFile, sizeof(zFile), "%s/good.db", zDir);
  snprintf(zBad, sizeof(zBad), "%s/bad.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "PRAGMA page_size=1024; CREATE TABLE t(k, x, s);"
          SERIES(3000) "INSERT INTO t SELECT value %% 7, value*0.5, CASE WHEN value %% 50 = 0 "
          "THEN randomblob(3000) ELSE 'v' || value END FROM series");
  sqlite3_close(w);
  orig = slurp(zFile, &n);
  a = malloc((size_t)n);
  for(i=0; i<nTry; i++){
    long len = n, k, j;
    FILE *f;
    sqlite3 *db;
    memcpy(a, orig, (size_t)n);
    switch( h_next(&r) % 4 ){
      case 0:                       /* bits flipped anywhere past page 1 */
        for(k=0; k<1 + (long)(h_next(&r) % 8); k++){ j = 1024 + (long)(h_next(&r) % (uint64_t)(n - 1024)); a[j] ^= (unsigned char)(1u << (h_next(&r) % 8)); }
        break;
      case 1:                       /* a page header's bytes overwritten */
        j = 1024*(1 + (long)(h_next(&r) % (uint64_t)(n/1024 - 1))) + (long)(h_next(&r) % 12);
        a[j] = (unsigned char)h_next(&r);
        break;
      case 2:                       /* cell pointers and cells scrambled */
        j = 1024*(1 + (long)(h_next(&r) % (uint64_t)(n/1024 - 1)));
        for(k=0; k<4; k++) a[j + 8 + (long)(h_next(&r) % 1000)] = (unsigned char)h_next(&r);
        break;
      default:                      /* truncated */
        len = 1024*(1 + (long)(h_next(&r) % (uint64_t)(n/1024))) - (long)(h_next(&r) % 2)*(long)(h_next(&r) % 1024);
        break;
    }
    f = fopen(zBad, "wb");
    ck_assert_msg(f && fwrite(a, 1, (size_t)len, f)==(size_t)len, "write %s", zBad);
    fclose(f);
    db = openDb(zBad);
    if( i%2 ) EXEC(db, "PRAGMA mmap_size=%ld; SELECT gpuagg_config('threads', 2)", i%4==3 ? 2048 : 4*n);
    for(k=0; k<3; k++){
      char *x, *y;
      EXEC(db, "SELECT gpuagg_config('pages', 1)");
      x = s_render(db, azQ[k]);
      EXEC(db, "SELECT gpuagg_config('pages', 0)");
      y = s_render(db, azQ[k]);
      if( strncmp(x, "error", 5)==0 ){
        nErr++;
      }else if( strncmp(y, "error", 5)!=0 && strcmp(x, y)!=0 ){
        nDiff++;
        CHECK(0, "corruption %d, %s: pages\n  %.300s\nstatement\n  %.300s", i, azQ[k], x, y);
      }
      free(x); free(y);
    }
    sqlite3_close(db);
  }
  CHECK(nErr>0, "no corruption was noticed in %d files", nTry);
  free(a); free(orig);
  s_dir_drop(zDir);
}
END_TEST

static Suite *pagesSuite(void){
  Suite *s = suite_create("pages");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 1800);
  tcase_add_test(tc, test_formats);
  tcase_add_test(tc, test_large);
  tcase_add_test(tc, test_wide);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_wal_snapshots);
  tcase_add_test(tc, test_concurrent_writers);
  tcase_add_test(tc, test_corrupt);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(pagesSuite);
}
