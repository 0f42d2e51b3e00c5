/*
** The column cache (ext/source/cache.c): a kept column is used only while
** the database is unchanged, and every answer is the one the table gives
** without the cache. Both backends, as suite.h says.
**
**   - In DELETE and WAL modes, after each event that changes what a scan
**     would read: a commit from this connection, from another connection,
**     from another process; a schema change (a column added, the table
**     dropped and made again); VACUUM; a different file at the same name
**     (main's, while open: SQL reads the file it holds; an attached one's,
**     detached and attached again); another database attached under the
**     same schema name (attached schemas are never cached); and inside this
**     connection's own write transaction. Each is followed by every function, whose answer must
**     be the uncached one (the cache off, the same transaction), and it
**     must not have been served from the cache where it would be stale.
**   - Unchanged: a rollback, a read-only query: the next scan is a hit.
**   - Another connection committing pairs of changes that cancel while
**     cached scans run, in WAL and DELETE modes: every sum exactly 0; two
**     scans in one read transaction agree, the second from the cache; the
**     groups of a TEXT column it rewrites are SQL's in that transaction;
**     gpu_query's first reads, which keep what three workers read, and the
**     reads over what they kept, give SQL's answers too.
**   - The budget: never more bytes kept than it allows, least recently used
**     columns evicted, 0 frees everything; a column larger than the budget
**     is not kept; gpuagg_cache() lists what gpuagg_info() counts.
**   - The device form (CUDA pass): every function answered by kernels on
**     kept numbers-only columns gives the uncached answer, and those that
**     must not use it (±Inf, a window too narrow) do not.
** GPUAGG_SEED=N repeats a run.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "suite.h"

static char zDir[64];               /* this test's scratch directory */

static sqlite3 *openDb(const char *zFile){
  char *zErr = 0;
  sqlite3 *db = h_open_file(zFile, &zErr);
  ck_assert_msg(db!=0, "cannot open %s with the module: %s", zFile, zErr ? zErr : "?");
  sqlite3_busy_timeout(db, 5000);
  EXEC(db, "SELECT gpuagg_backend('%s'), gpuagg_config('chunk', 4096), gpuagg_config('threshold', 0),"
           " gpuagg_config('cache', 1<<30)", g_backend);
  /* On the CUDA pass a context exists from the start (a full chunk goes to
  ** the device), so that every column kept is kept on the device too. */
  h_exec(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<5000) SELECT gpu_sum(x) FROM c");
  EXEC(db, "SELECT gpuagg_config('threshold', 1000)");
  return db;
}

static int64_t info(sqlite3 *db, const char *zPath){
  return h_int(db, "SELECT json_extract(gpuagg_info(), '$.%s')", zPath);
}

/* An odd TEXT or BLOB value, picked by u: '', embedded NUL bytes,
** non-ASCII, a string longer than a page (on overflow pages), a BLOB with
** the bytes of a TEXT, case and trailing-space variants. */
static void bindOdd(sqlite3_stmt *st, int col, uint64_t u){
  static char zLong[6000];
  switch( u % 10 ){
    case 0: sqlite3_bind_text(st, col, "", 0, SQLITE_STATIC); break;
    case 1: sqlite3_bind_text(st, col, "a\0b", 3, SQLITE_STATIC); break;
    case 2: sqlite3_bind_text(st, col, "a\0c", 3, SQLITE_STATIC); break;
    case 3: sqlite3_bind_text(st, col, "\xc3\xa9t\xc3\xa9", -1, SQLITE_STATIC); break;
    case 4:
      memset(zLong, 'x', sizeof(zLong) - 1);
      zLong[(u >> 8) % 3] = 'y';                   /* three long values */
      sqlite3_bind_text(st, col, zLong, (int)sizeof(zLong) - 1, SQLITE_TRANSIENT);
      break;
    case 5: sqlite3_bind_blob(st, col, "abc", 3, SQLITE_STATIC); break;
    case 6: sqlite3_bind_blob(st, col, "", 0, SQLITE_STATIC); break;
    case 7: sqlite3_bind_text(st, col, "ABC", -1, SQLITE_STATIC); break;
    case 8: sqlite3_bind_text(st, col, "abc  ", -1, SQLITE_STATIC); break;
    default: sqlite3_bind_text(st, col, "\xf0\x9f\x98\x80", -1, SQLITE_STATIC); break;
  }
}

/* A table zTab of n random rows (numbers, text, NULLs) in schema zDb. */
static void fill(sqlite3 *db, h_rng *r, const char *zDb, const char *zTab, int n){
  sqlite3_stmt *st;
  int i;
  EXEC(db, "CREATE TABLE \"%w\".\"%w\"(k, x, s)", zDb, zTab);
  EXEC(db, "BEGIN");
  {
    char *zSql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w\" VALUES(?1, ?2, ?3)", zDb, zTab);
    CHECK(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_free(zSql);
  }
  for(i=0; i<n; i++){
    uint64_t u = h_next(r);
    sqlite3_bind_int64(st, 1, (int64_t)(u % 37));
    if( u % 11==0 ) sqlite3_bind_null(st, 2);
    else if( u % 5==0 ) sqlite3_bind_int64(st, 2, (int64_t)(h_next(r) % 2000001) - 1000000);
    else sqlite3_bind_double(st, 2, h_unit(r)*2e6 - 1e6);
    if( u % 7==0 ) sqlite3_bind_text(st, 3, u % 2 ? "12" : "abc", -1, SQLITE_STATIC);
    else if( u % 13==0 ) bindOdd(st, 3, u >> 8);
    else sqlite3_bind_int64(st, 3, (int64_t)(u >> 40));
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");
}

/* A database file zFile in journal mode zJournal with a table t of n rows. */
static void makeFile(const char *zFile, const char *zJournal, h_rng *r, int n){
  sqlite3 *o = s_open_plain(zFile);
  EXEC(o, "PRAGMA journal_mode=%s", zJournal);
  fill(o, r, "main", "t", n);
  sqlite3_close(o);
}

static const char *azQ[] = {
  "SELECT * FROM gpu_summary('%s')",
  "SELECT * FROM gpu_histogram('%s', 'x', 9)",
  "SELECT * FROM gpu_group_by('%s', 'k', 'x')",
  "SELECT * FROM gpu_group_by('%s', 's', 'x')",
};
#define NQ ((int)(sizeof(azQ)/sizeof(azQ[0])))

/* Every function over zSrc on db gives ref's answer (another connection to
** the same file, nothing cached); served from the cache (want 1), the first
** not (want 0), or either (-1). */
static void expectRef(sqlite3 *db, sqlite3 *ref, const char *zSrc, int want, const char *zWhen){
  int q;
  for(q=0; q<NQ; q++){
    char *zSql = sqlite3_mprintf(azQ[q], zSrc), *a, *b, *zHow;
    int64_t hits = info(db, "cache.hits");
    a = s_render(db, zSql);
    zHow = h_text(db, "SELECT json_extract(gpuagg_info(), '$.sources.%s.source')",
                  q==0 ? "gpu_summary" : q==1 ? "gpu_histogram" : "gpu_group_by");
    /* After a change only the first scan must miss: it keeps what it reads. */
    int w = q==0 || want==1 ? want : -1;
    if( w>=0 ){
      CHECK((info(db, "cache.hits")>hits)==w && zHow && (strcmp(zHow, "cache")==0)==want,
            "%s: %s: served by %s, wanted %s", zWhen, zSql, zHow ? zHow : "?", w ? "the cache" : "the table");
    }
    free(zHow);
    b = s_render(ref, zSql);
    CHECK(strcmp(a, b)==0, "%s: %s\n  cached   %.400s\n  uncached %.400s", zWhen, zSql, a, b);
    CHECK(strncmp(a, "error", 5)!=0, "%s: %s: %.300s", zWhen, zSql, a);
    free(a); free(b);
    sqlite3_free(zSql);
  }
}

/* Each of azQ[0..nQ) twice on db, the first filling the cache and the
** second reading what was kept, gives ref's answer (the cache off), and
** if noError, not an error. */
static void cachedTwice(sqlite3 *db, sqlite3 *ref, const char *const *azQ, int nQ, int noError){
  int pass, q;
  for(pass=0; pass<2; pass++){
    for(q=0; q<nQ; q++){
      char *a = s_render(db, azQ[q]), *b = s_render(ref, azQ[q]);
      CHECK(strcmp(a, b)==0, "pass %d: %s\n  cached   %.400s\n  uncached %.400s", pass, azQ[q], a, b);
      CHECK(!noError || strncmp(a, "error", 5)!=0, "%s: %.300s", azQ[q], a);
      free(a); free(b);
    }
  }
}

static sqlite3 *gRef;               /* the reference connection of events() */
static void expect(sqlite3 *db, const char *zSrc, int want, const char *zWhen){
  expectRef(db, gRef, zSrc, want, zWhen);
}

/* Fill the cache (a miss), then see it hit. */
static void warm(sqlite3 *db, const char *zSrc, const char *zWhen){
  char z[160];
  expect(db, zSrc, -1, zWhen);
  snprintf(z, sizeof(z), "%s, unchanged", zWhen);
  expect(db, zSrc, 1, z);
}

/* Run zSql on zFile in a child process. */
static void inProcess(const char *zFile, const char *zSql){
  pid_t pid = fork();
  int status = 0;
  CHECK(pid>=0, "fork");
  if( pid==0 ){
    sqlite3 *w = 0;
    int rc = sqlite3_open(zFile, &w);
    sqlite3_busy_timeout(w, 5000);
    if( rc==SQLITE_OK ) rc = sqlite3_exec(w, zSql, 0, 0, 0);
    sqlite3_close(w);
    _exit(rc==SQLITE_OK ? 0 : 1);
  }
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status)==0, "the other process's %s", zSql);
}

static void events(const char *zJournal){
  char zFile[128], zOther[128], zCopy[128], zWhen[96];
  sqlite3 *db, *w;
  h_rng r;
  h_rng_init(&r, h_seed ^ (uint64_t)zJournal[0]);
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/c.db", zDir);
  snprintf(zOther, sizeof(zOther), "%s/o.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "PRAGMA journal_mode=%s", zJournal);
  fill(w, &r, "main", "t", 3000);
  db = openDb(zFile);
  EXEC(db, "PRAGMA journal_mode=%s", zJournal);
  gRef = openDb(zFile);
  EXEC(gRef, "SELECT gpuagg_config('cache', 0)");
#define STEP(what) snprintf(zWhen, sizeof(zWhen), "%s: %s", zJournal, what)
  STEP("first scans"); warm(db, "t", zWhen);
  EXEC(db, "UPDATE t SET x = x + 1 WHERE k = 3");
  STEP("this connection's commit"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  EXEC(w, "UPDATE t SET x = -x WHERE k = 4");
  STEP("another connection's commit"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  inProcess(zFile, "UPDATE t SET s = 'p' || k WHERE k = 5");
  STEP("another process's commit"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  EXEC(db, "BEGIN; UPDATE t SET x = 0; ROLLBACK");
  STEP("a rollback"); expect(db, "t", 1, zWhen);
  EXEC(db, "BEGIN; DELETE FROM t WHERE k < 9");
  {
    /* The reference is SQL in the same transaction. */
    int64_t hits = info(db, "cache.hits");
    char *a = s_render(db, "SELECT rows, nulls, integers, reals, min, max FROM gpu_summary('t', 'x')"), *zHow;
    char *b = s_render(db, "SELECT count(*), count(*) - count(x), sum(typeof(x)='integer'), sum(typeof(x)='real'),"
                           " min(x), max(x) FROM t");
    STEP("this connection's own write transaction");
    CHECK(strcmp(a, b)==0, "%s: %s against %s", zWhen, a, b);
    zHow = h_text(db, "SELECT json_extract(gpuagg_info(), '$.sources.gpu_summary.source')");
    CHECK(info(db, "cache.hits")==hits && zHow && strcmp(zHow, "cache")!=0, "%s: served from the cache", zWhen);
    free(a); free(b); free(zHow);
  }
  EXEC(db, "COMMIT");
  STEP("its commit"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  EXEC(w, "ALTER TABLE t ADD COLUMN y DEFAULT 3");
  STEP("a column added"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  EXEC(w, "DROP TABLE t");
  fill(w, &r, "main", "t", 2000);
  STEP("the table made again"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  EXEC(w, "DELETE FROM t WHERE k %% 3 = 0; VACUUM");
  STEP("VACUUM"); expect(db, "t", 0, zWhen); expect(db, "t", 1, zWhen);
  /* Attached databases: another file under the same name, and the same
  ** name's file replaced while detached. */
  snprintf(zCopy, sizeof(zCopy), "%s/a.db", zDir);
  makeFile(zOther, zJournal, &r, 1500);
  makeFile(zCopy, zJournal, &r, 1200);
  EXEC(db, "ATTACH '%q' AS aux", zCopy);
  EXEC(gRef, "ATTACH '%q' AS aux", zCopy);
  /* Attached schemas are not cached (cache.c, 3). */
  STEP("attached"); expect(db, "aux.t", 0, zWhen); expect(db, "aux.t", 0, zWhen);
  EXEC(db, "DETACH aux");
  EXEC(gRef, "DETACH aux");
  EXEC(db, "ATTACH '%q' AS aux", zOther);
  EXEC(gRef, "ATTACH '%q' AS aux", zOther);
  STEP("another file attached under the same name"); expect(db, "aux.t", 0, zWhen); expect(db, "aux.t", 0, zWhen);
  EXEC(db, "DETACH aux");
  EXEC(gRef, "DETACH aux");
  {
    char z[800];
    snprintf(z, sizeof(z), "rm -f '%s' '%s-wal' '%s-shm' && cp '%s' '%s'", zOther, zOther, zOther, zCopy, zOther);
    CHECK(system(z)==0, "%s", z);
  }
  EXEC(db, "ATTACH '%q' AS aux", zOther);
  EXEC(gRef, "ATTACH '%q' AS aux", zOther);
  STEP("the file replaced while detached"); expect(db, "aux.t", 0, zWhen); expect(db, "aux.t", 0, zWhen);
  EXEC(db, "DETACH aux");
  EXEC(gRef, "DETACH aux");
  /* Main's file replaced while open: SQL reads the file it holds; the
  ** cache, seeing another file at the name, reads it again. */
  {
    char z[800];
    warm(db, "t", "before the name is replaced");
    snprintf(z, sizeof(z), "cp '%s' '%s.new' && mv '%s.new' '%s'", zCopy, zFile, zFile, zFile);
    CHECK(system(z)==0, "%s", z);
    STEP("main's file replaced at its name"); expect(db, "t", 0, zWhen);
  }
#undef STEP
  CHECK(info(db, "cache.invalidations")>0, "%s: nothing was invalidated", zJournal);
  sqlite3_close(db);
  sqlite3_close(gRef);
  sqlite3_close(w);
  s_dir_drop(zDir);
}

START_TEST(test_events_delete){
  events("delete");
}
END_TEST

START_TEST(test_events_wal){
  events("wal");
}
END_TEST

/* ---- a writer committing during cached scans -------------------------------------------- */

typedef struct Writer {
  const char *zFile;                /* the database */
  volatile int stop;                /* set to end it */
  int rc;                           /* its last failure, SQLITE_OK if none */
} Writer;

/* Commit pairs of changes that cancel (the sum of x stays 0) until stopped. */
static void *writeLoop(void *pArg){
  Writer *p = (Writer*)pArg;
  sqlite3 *w = 0;
  int i, rc;
  sqlite3_open(p->zFile, &w);
  sqlite3_busy_timeout(w, 5000);
  for(i=0; !p->stop; i++){
    char *zSql = sqlite3_mprintf("BEGIN; UPDATE t SET x = x + 3, s = 'k' || ((x + 3) %% 7) WHERE id = %d;"
                                 " UPDATE t SET x = x - 3, s = 'k' || ((x - 3) %% 7) WHERE id = %d; COMMIT",
                                 1 + i % 500, 1 + (i*7 + 3) % 500);
    rc = sqlite3_exec(w, zSql, 0, 0, 0);
    sqlite3_free(zSql);
    if( rc!=SQLITE_OK && rc!=SQLITE_BUSY ){ p->rc = rc; break; }
    if( rc==SQLITE_BUSY ) sqlite3_exec(w, "ROLLBACK", 0, 0, 0);
    /* A pause between commits: in rollback modes a writer that takes its
    ** PENDING lock again at once can keep a reader out past its timeout. */
    usleep(500);
  }
  sqlite3_close(w);
  return 0;
}

/* Scans with the cache on while another connection commits: every sum is
** exactly 0; inside one read transaction the second scan is a hit and
** agrees with the first. A join's build reads its table through the cache
** (join.c, 1): the first read keeps it, the next builds from it. */
#define JOIN_SQL "SELECT a.s, count(*), sum(b.x) FROM t AS a JOIN t AS b ON b.id = a.id + 1 GROUP BY a.s"
static void duringWrites(const char *zJournal){
  char zFile[128];
  sqlite3 *db, *w;
  Writer wr;
  pthread_t th;
  int i, nHitIn = 0, nKeptFirst = 0;
  double t0;
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/w.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "PRAGMA journal_mode=%s; CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER, s TEXT);"
          "WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM s WHERE v<20000)"
          " INSERT INTO t(x, s) SELECT (v %% 2)*2 - 1, 'k' || (((v %% 2)*2 - 1) %% 7) FROM s", zJournal);
  sqlite3_close(w);
  db = openDb(zFile);
  /* gpu_query's reads on three threads: a first read keeps what its workers
  ** read (cache.c, 4a), a read over kept columns follows */
  EXEC(db, "SELECT gpuagg_config('threads', 3); CREATE VIRTUAL TABLE temp.gq USING gpu_query((SELECT sum(x), count(*)"
           " FROM t)); CREATE VIRTUAL TABLE temp.gs USING gpu_query((SELECT s, count(*), sum(x) FROM t GROUP BY s));"
           " CREATE VIRTUAL TABLE temp.gj USING gpu_query((" JOIN_SQL "))");
  memset(&wr, 0, sizeof(wr));
  wr.zFile = zFile;
  CHECK(pthread_create(&th, 0, writeLoop, &wr)==0, "pthread_create");
  t0 = h_now();
  for(i=0; h_now() - t0 < 1.0 || i<8; i++){
    h_val v = h_query(db, "SELECT sum FROM gpu_summary('t', 'x')");
    CHECK(v.rc==SQLITE_OK && v.type==SQLITE_INTEGER && v.i==0, "%s: sum(x) during writes: rc %d, %lld: %s", zJournal,
          v.rc, (long long)v.i, v.zErr);
    if( i%4==1 ){
      int q;
      EXEC(db, "SELECT gpuagg_config('cache', 0), gpuagg_config('cache', 1<<30)");
      for(q=0; q<2; q++){
        /* q 0: the first read, kept as its workers read it (query_kept -1: not over them) */
        char *a;
        EXEC(db, "SELECT gpuagg_config('query_kept', %d)", q ? 1 : -1);
        a = s_render(db, "SELECT * FROM gq");
        CHECK(strcmp(a, "i0 i20000 |")==0, "%s: gpu_query's %s read during writes: %s", zJournal,
              q ? "second" : "first", a);
        free(a);
        if( q==0 ) nKeptFirst += h_int(db, "SELECT count(*) FROM gpuagg_cache() WHERE column_name='x'")>0;
      }
      EXEC(db, "BEGIN");
      {
        char *a = s_render(db, "SELECT * FROM gs"), *b = s_render(db, "SELECT s, count(*), sum(x) FROM t GROUP BY s");
        EXEC(db, "COMMIT; SELECT gpuagg_config('query_kept', -1)");
        CHECK(strcmp(a, b)==0, "%s: gpu_query's groups %s, SQL's %s", zJournal, a, b);
        free(a); free(b);
      }
      for(q=0; q<2; q++){
        /* the join's two reads, each in a transaction of its own (the second's build a
        ** hit); 'auto': the device's program takes no probe key that may be a REAL (a.id + 1
        ** overflows into one at the int64 limit) */
        char *a, *b;
        EXEC(db, "SELECT gpuagg_backend('auto'); BEGIN");
        a = s_render(db, "SELECT * FROM gj");
        b = s_render(db, JOIN_SQL);
        EXEC(db, "COMMIT; SELECT gpuagg_backend('%s')", g_backend);
        CHECK(strcmp(a, b)==0 && strncmp(a, "error", 5)!=0, "%s: gpu_query's join, read %d: %s, SQL's %s", zJournal,
              q + 1, a, b);
        free(a); free(b);
      }
    }
    if( i%4==3 ){
      char *a, *b;
      int64_t hits;
      /* The scan starts the transaction, so a WAL snapshot is proven. */
      EXEC(db, "BEGIN");
      a = s_render(db, "SELECT * FROM gpu_summary('t')");
      hits = info(db, "cache.hits");
      b = s_render(db, "SELECT * FROM gpu_summary('t')");
      nHitIn += info(db, "cache.hits")>hits;
      CHECK(strcmp(a, b)==0 && strncmp(a, "error", 5)!=0, "%s: in one transaction: %s\n%s", zJournal, a, b);
      free(a); free(b);
      /* The kept column is this transaction's: SQL's extremes move with
      ** every commit. */
      a = s_render(db, "SELECT min, max FROM gpu_summary('t', 'x')");
      b = s_render(db, "SELECT min(x), max(x) FROM t");
      CHECK(strcmp(a, b)==0, "%s: cached extremes %s, SQL's %s", zJournal, a, b);
      free(a); free(b);
      /* A TEXT key the writer changes: its dictionary is this
      ** transaction's too. */
      a = s_render(db, "SELECT key, rows, sum FROM gpu_group_by('t', 's', 'x')");
      b = s_render(db, "SELECT s, count(*), sum(x) FROM t GROUP BY s ORDER BY s");
      EXEC(db, "COMMIT");
      CHECK(strcmp(a, b)==0, "%s: cached TEXT groups %s, SQL's %s", zJournal, a, b);
      free(a); free(b);
    }
  }
  wr.stop = 1;
  pthread_join(th, 0);
  CHECK(wr.rc==SQLITE_OK, "%s: the writer failed: %d", zJournal, wr.rc);
  CHECK(nHitIn>0, "%s: no second scan in a transaction was a hit", zJournal);
  CHECK(nKeptFirst>0, "%s: no first read of gpu_query kept its column", zJournal);
  EXEC(db, "DROP TABLE temp.gq; DROP TABLE temp.gs; DROP TABLE temp.gj");
  sqlite3_close(db);
  s_dir_drop(zDir);
}

START_TEST(test_concurrent_writer){
  duringWrites("wal");
  duringWrites("delete");
}
END_TEST

START_TEST(test_budget){
  char zFile[128];
  sqlite3 *db, *w;
  int64_t one, k;
  h_rng r;
  h_rng_init(&r, h_seed ^ 0xb0d6e7);
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/b.db", zDir);
  w = s_open_plain(zFile);
  fill(w, &r, "main", "t", 4000);
  fill(w, &r, "main", "u", 4000);
  sqlite3_close(w);
  db = openDb(zFile);
  EXEC(db, "SELECT * FROM gpu_summary('t', 'x')");
  one = info(db, "cache.bytes");
  CHECK(one>0 && info(db, "cache.entries")==1, "one column kept: %lld bytes", (long long)one);
  /* Room for two columns: a third evicts the least recently used. */
  EXEC(db, "SELECT gpuagg_config('cache', %lld)", (long long)(2*one + one/2));
  EXEC(db, "SELECT * FROM gpu_summary('u', 'x')");
  EXEC(db, "SELECT * FROM gpu_summary('t', 'x')");          /* t.x now the most recent */
  k = info(db, "cache.evictions");
  EXEC(db, "SELECT * FROM gpu_summary('u', 'k')");
  CHECK(info(db, "cache.evictions")==k + 1 && info(db, "cache.entries")==2, "evictions %lld, entries %lld",
        (long long)info(db, "cache.evictions"), (long long)info(db, "cache.entries"));
  CHECK(info(db, "cache.bytes")<=info(db, "cache.budget"), "%lld bytes kept over a budget of %lld",
        (long long)info(db, "cache.bytes"), (long long)info(db, "cache.budget"));
  {
    sqlite3 *ref = openDb(zFile);
    EXEC(ref, "SELECT gpuagg_config('cache', 0)");
    expectRef(db, ref, "t", -1, "after evictions");
    sqlite3_close(ref);
  }
  EXEC(db, "SELECT gpuagg_config('cache', %lld)", (long long)(2*one + one/2));
  EXEC(db, "SELECT * FROM gpu_summary('t', 'x')");
  k = info(db, "cache.hits");
  EXEC(db, "SELECT * FROM gpu_summary('t', 'x')");
  CHECK(info(db, "cache.hits")==k + 1, "t.x, the most recent, was evicted");
  /* Too small for one column (in host memory alone): nothing kept, answers
  ** right. */
  EXEC(db, "SELECT gpuagg_config('cache', %lld)", (long long)(one/8));
  CHECK(info(db, "cache.entries")==0, "a budget below one column keeps %lld", (long long)info(db, "cache.entries"));
  EXEC(db, "SELECT * FROM gpu_summary('t', 'x')");
  CHECK(info(db, "cache.entries")==0 && info(db, "cache.bytes")==0, "a column over the budget was kept");
  /* 0 frees everything. */
  EXEC(db, "SELECT gpuagg_config('cache', 1<<30)");
  EXEC(db, "SELECT * FROM gpu_summary('t')");
  CHECK(info(db, "cache.entries")==3, "%lld entries", (long long)info(db, "cache.entries"));
  /* gpuagg_cache() lists them, most recently used first, as gpuagg_info
  ** counts them. */
  EXEC(db, "SELECT * FROM gpu_histogram('t', 'k', 4)");
  {
    char *z = h_text(db, "SELECT group_concat(schema || '.' || table_name || '.' || column_name || ':' || rows, ' ')"
                         " FROM gpuagg_cache()");
    CHECK(z && strncmp(z, "main.t.k:4000 ", 14)==0 && strstr(z, "main.t.x:4000") && strstr(z, "main.t.s:4000"),
          "gpuagg_cache() lists %s", z ? z : "nothing");
    free(z);
  }
  CHECK(h_int(db, "SELECT sum(bytes)=json_extract(gpuagg_info(), '$.cache.bytes') AND sum(device_bytes)="
                  "json_extract(gpuagg_info(), '$.cache.device_bytes') AND count(*)=3"
                  " AND max(last_use)=(SELECT last_use FROM gpuagg_cache() LIMIT 1) FROM gpuagg_cache()")==1,
        "gpuagg_cache() does not add up to gpuagg_info()'s cache");
  EXEC(db, "SELECT gpuagg_config('cache', 0)");
  CHECK(info(db, "cache.entries")==0 && info(db, "cache.bytes")==0, "cache 0 keeps %lld bytes",
        (long long)info(db, "cache.bytes"));
  CHECK(h_int(db, "SELECT count(*) FROM gpuagg_cache()")==0, "gpuagg_cache() lists freed columns");
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

/* A numbers-only table on the device (the CUDA pass): every function read
** from the kept columns by the kernels gives the uncached answer: NULLs,
** -0.0, integral reals as keys, int64's limits, ±Inf (no device grouping
** then), exponents too far apart for one window (nor then), a column of
** NULLs only, a chunk size that leaves a partial last piece. */
START_TEST(test_device){
  static const char *azDev[] = {
    "SELECT * FROM gpu_summary('d')",
    "SELECT * FROM gpu_summary('d', 'x')",
    "SELECT * FROM gpu_histogram('d', 'x', 9)",
    "SELECT * FROM gpu_histogram('d', 'x', 7, -1, 1)",
    "SELECT * FROM gpu_histogram('d', 'i', 65536)",
    "SELECT * FROM gpu_histogram('d', 'f', 5)",
    "SELECT * FROM gpu_histogram('d', 'nul', 5)",
    "SELECT * FROM gpu_group_by('d', 'k', 'x')",
    "SELECT * FROM gpu_group_by('d', 'x', 'k')",
    "SELECT * FROM gpu_group_by('d', 'g', 'i')",
    "SELECT * FROM gpu_group_by('d', 'k', 'w')",
    "SELECT * FROM gpu_group_by('d', 'k', 'f')",
    "SELECT * FROM gpu_group_by('d', 'nul', 'x')",
  };
  const int nDev = (int)(sizeof(azDev)/sizeof(azDev[0]));
  char zFile[128];
  sqlite3 *db, *ref, *w;
  sqlite3_stmt *st;
  int64_t i, n = 70000 + (int64_t)(h_seed % 5000);
  h_rng r;
  h_rng_init(&r, h_seed ^ 0xde71ce);
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/d.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "CREATE TABLE d(k, x, i, g, w, f, nul)");
  EXEC(w, "BEGIN");
  CHECK(sqlite3_prepare_v2(w, "INSERT INTO d VALUES(?1, ?2, ?3, ?4, ?5, ?6, NULL)", -1, &st, 0)==SQLITE_OK, "insert");
  for(i=0; i<n; i++){
    uint64_t u = h_next(&r);
    /* k: integers and integral reals (1 and 1.0 one group), -0.0 and 0 */
    if( u%4==0 ) sqlite3_bind_double(st, 1, (double)(int64_t)(u>>8 & 63));
    else if( u%97==0 ) sqlite3_bind_double(st, 1, -0.0);
    else sqlite3_bind_int64(st, 1, (int64_t)(u>>8 & 63));
    if( u%13==0 ) sqlite3_bind_null(st, 2);
    else if( u%3==0 ) sqlite3_bind_int64(st, 2, (int64_t)((u>>20) % 2001) - 1000);
    else sqlite3_bind_double(st, 2, h_unit(&r)*2.0 - 1.0);
    sqlite3_bind_int64(st, 3, u%1000==0 ? (u%2 ? INT64_MAX : INT64_MIN) : (int64_t)(u>>33) - (1<<30));
    sqlite3_bind_int64(st, 4, (int64_t)(u % 5003));
    sqlite3_bind_double(st, 5, u%501==0 ? 1e200 : u%503==0 ? 1e-200 : h_unit(&r));
    if( u%9973==0 ) sqlite3_bind_double(st, 6, u%2 ? 1.0/0.0 : -1.0/0.0);
    else sqlite3_bind_double(st, 6, h_unit(&r)*10);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(w, "COMMIT");
  sqlite3_close(w);
  db = openDb(zFile);
  ref = openDb(zFile);
  EXEC(ref, "SELECT gpuagg_config('cache', 0)");
  cachedTwice(db, ref, azDev, nDev, 0);     /* the histogram of f: an error, its range is not finite */
  if( strcmp(g_backend, "cuda")==0 ){
    /* Every query answered on the device but the first (it fills the
    ** cache), the groupings of w and f (the window, ±Inf) and the
    ** histogram of f (an error: its range is not finite): 9 + 10. */
    CHECK(info(db, "cache.device_bytes")>0, "no column kept on the device");
    CHECK(info(db, "cache.device_hits")==19, "%lld answers from the device, wanted 19",
          (long long)info(db, "cache.device_hits"));
  }else{
    CHECK(info(db, "cache.device_bytes")==0 && info(db, "cache.device_hits")==0, "the device used on the CPU pass");
  }
  sqlite3_close(db);
  sqlite3_close(ref);
  s_dir_drop(zDir);
}
END_TEST

/* A fresh connection at the default budget (automatic) in a process with
** no CUDA context yet (each test runs in a child of its own): gpu_query's
** first read runs on the CPU's operators and makes no context, and what
** it recorded is kept in host memory (cache.c, 6); the context is then
** made on a thread of its own (cache.c, 5). The second read runs on the
** device if that is done, else on the CPU operators over the kept columns:
** either way it reads no table. Once the context is there, a read sends
** the columns to the device and answers there, the budget then settled.
** Every read gives SQL's answer. The CPU pass keeps nothing (no caching
** where CUDA cannot serve the connection). */
START_TEST(test_kept_before_context){
  static const char *zQ = "SELECT s, count(*), sum(x), max(y), min(x) FROM t GROUP BY s";
  char zFile[128], *zErr = 0, *b;
  sqlite3 *db, *w;
  int cuda = strcmp(g_backend, "cuda")==0, r, k;
  int64_t nMiss = 0;
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/c.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "CREATE TABLE t(x INTEGER, y REAL, s TEXT);"
          "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<%d)"
          " INSERT INTO t SELECT CASE WHEN i %% 17 = 0 THEN NULL ELSE (i*7919 + %lld) %% 100003 - 50000 END,"
          " i / 3.0, 's' || (i %% 23) FROM c", 60000 + (int)(h_seed % 1000), (long long)(h_seed % 100003));
  b = s_render(w, zQ);
  sqlite3_close(w);
  db = h_open_file(zFile, &zErr);
  ck_assert_msg(db!=0, "cannot open %s with the module: %s", zFile, zErr ? zErr : "?");
  EXEC(db, "SELECT gpuagg_backend('%s'), gpuagg_config('threshold', 1000);"
           " CREATE VIRTUAL TABLE temp.g USING gpu_query((%s))", cuda ? "auto" : "cpu", zQ);
  if( cuda ) CHECK(h_int(db, "SELECT json_extract(gpuagg_info(), '$.context')")==0, "a context before the first read");
  for(r=0; r<3; r++){
    char *a;
    if( r==2 && cuda ){             /* the context made on its own thread by now */
      for(k=0; k<200 && h_int(db, "SELECT json_extract(gpuagg_info(), '$.context')")==0; k++) usleep(50000);
      CHECK(h_int(db, "SELECT json_extract(gpuagg_info(), '$.context')")==1, "no context 10 s after the first read");
    }
    a = s_render(db, "SELECT * FROM g");
    CHECK(strcmp(a, b)==0, "read %d: %.300s\n  SQL's %.300s", r + 1, a, b);
    free(a);
    if( r==0 && cuda ){
      CHECK(h_int(db, "SELECT count(*) FROM gpuagg_cache() WHERE device_bytes=0")==3
            && h_int(db, "SELECT count(*) FROM gpuagg_cache()")==3, "the first read's columns not kept on the host: %s",
            h_text(db, "SELECT group_concat(column_name || ' ' || device_bytes) FROM gpuagg_cache()"));
      nMiss = info(db, "cache.misses");
    }
    if( r>0 && cuda ) CHECK(info(db, "cache.misses")==nMiss, "read %d read the table again", r + 1);
  }
  if( cuda ){
    CHECK(h_int(db, "SELECT count(*) FROM gpuagg_cache() WHERE device_bytes>0")==3, "the columns not sent to the device");
    CHECK(info(db, "query.device")>=1, "%lld reads on the device", (long long)info(db, "query.device"));
    CHECK(h_int(db, "SELECT gpuagg_config('cache')")>0, "the budget not settled at the context");
  }else{
    CHECK(h_int(db, "SELECT count(*) FROM gpuagg_cache()")==0, "columns kept on the CPU pass");
  }
  free(b);
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

/* Columns large enough that keeping them on the device stages their
** copies through pinned buffers on several threads (cuda_upload.c: 8 MiB
** and more; on the CUDA pass, 9M rows a column, dozens of pieces, each
** worker reusing its two buffers) and counts their numbers on several
** (1M rows and more): every function read from them on the device gives
** the uncached answer. x: integers, reals and runs of NULLs up to 9,000
** rows long (tiles of the numbers kernel without a number, words of the
** reals' bitmap across tiles); y: numbers only, integers and reals (the
** numbers are the values); t: TEXT with numbers among it (a dictionary).
** The CPU pass reads 1.2M rows (its columns stay on the host). */
START_TEST(test_device_large){
  static const char *azQ[] = {
    "SELECT * FROM gpu_summary('big')",
    "SELECT * FROM gpu_histogram('big', 'x', 97)",
    "SELECT * FROM gpu_histogram('big', 'y', 1000)",
    "SELECT * FROM gpu_group_by('big', 't', 'x')",
    "SELECT * FROM gpu_group_by('big', 'y', 'x')",
  };
  char zFile[128];
  sqlite3 *db, *ref, *w;
  int64_t n = (strcmp(g_backend, "cuda")==0 ? 9000000 : 1200000) + (int64_t)(h_seed % 4099);
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/big.db", zDir);
  w = s_open_plain(zFile);
  /* h: a hash of the row number and the seed; a NULL run where h's block
  ** of 16,384 rows says so, its length from the block's hash */
  EXEC(w, "CREATE TABLE big(x, y, t);"
          "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i<%lld),"
          " h(i, u, b) AS (SELECT i, ((i*2654435761 + %lld) %% 1000003), (((i>>14)*40503 + %lld) %% 9001) FROM c)"
          " INSERT INTO big SELECT"
          "  CASE WHEN (i & 16383) < b AND b %% 3 = 0 THEN NULL WHEN u %% 5 = 0 THEN u*1.25 - 6e5 ELSE u - 500000 END,"
          "  CASE WHEN u %% 7 < 3 THEN u / 8.0 ELSE u %% 1000 END,"
          "  CASE WHEN u %% 11 = 0 THEN u %% 37 WHEN u %% 13 = 0 THEN NULL ELSE 'k' || (u %% 53) END"
          " FROM h", (long long)n - 1, (long long)(h_seed % 1000003), (long long)(h_seed % 9001));
  sqlite3_close(w);
  db = openDb(zFile);
  ref = openDb(zFile);
  EXEC(ref, "SELECT gpuagg_config('cache', 0)");
  cachedTwice(db, ref, azQ, (int)(sizeof(azQ)/sizeof(azQ[0])), 1);
  if( strcmp(g_backend, "cuda")==0 ){
    CHECK(info(db, "cache.device_bytes") > 9*n, "%lld bytes kept on the device for 3 columns of %lld rows",
          (long long)info(db, "cache.device_bytes"), (long long)n);
    CHECK(info(db, "cache.device_hits")>=5, "%lld answers from the device", (long long)info(db, "cache.device_hits"));
  }
  sqlite3_close(db);
  sqlite3_close(ref);
  s_dir_drop(zDir);
}
END_TEST

/* TEXT columns kept as dictionaries (cache.c, 1a): every function over
** them, cached and read again, gives the uncached answer; on the CUDA pass
** TEXT keys and values are grouped on the device. Columns: a key of ~300 values with
** NULLs; odd values (bindOdd) mixed with numbers; one distinct value; all
** distinct; BLOBs only. A dictionary takes its values once: a column of
** one value costs about 9 bytes a row. */
START_TEST(test_dictionary){
  static const char *azDict[] = {
    "SELECT * FROM gpu_group_by('s', 'k', 'x')",
    "SELECT * FROM gpu_group_by('s', 'o', 'x')",
    "SELECT * FROM gpu_group_by('s', 'one', 'x')",
    "SELECT * FROM gpu_group_by('s', 'all', 'x')",
    "SELECT * FROM gpu_group_by('s', 'b', 'x')",
    "SELECT * FROM gpu_group_by('s', 'x', 'k')",
    "SELECT * FROM gpu_group_by('s', 'k', 'o')",
    "SELECT * FROM gpu_group_by('s', 'o', 'rt')",
    "SELECT * FROM gpu_group_by('s', 'k', 'tn')",   /* TEXT read as reals: the window holds them */
    "SELECT * FROM gpu_group_by('s', 'k', 'ti')",   /* ... one read as +Inf: not on the device */
    "SELECT * FROM gpu_summary('s')",
    "SELECT name, \"distinct\", min, max FROM gpu_summary('s')",
    "SELECT * FROM gpu_histogram('s', 'o', 5)",
  };
  const int nDict = (int)(sizeof(azDict)/sizeof(azDict[0]));
  char zFile[128];
  sqlite3 *db, *ref, *w;
  sqlite3_stmt *st;
  int64_t i, n = 20000 + (int64_t)(h_seed % 3000), b0, devHit0;
  h_rng r;
  h_rng_init(&r, h_seed ^ 0xd1c7);
  s_dir_make(zDir, "cache");
  snprintf(zFile, sizeof(zFile), "%s/s.db", zDir);
  w = s_open_plain(zFile);
  EXEC(w, "CREATE TABLE s(k TEXT, o, one TEXT, \"all\" TEXT, b BLOB, x, nc TEXT COLLATE NOCASE, rt COLLATE RTRIM,"
           " tn, ti)");
  EXEC(w, "BEGIN");
  CHECK(sqlite3_prepare_v2(w, "INSERT INTO s VALUES(?1, ?2, 'only', ?3, ?4, ?5, ?6, ?7, ?8, ?9)", -1, &st, 0)
        ==SQLITE_OK, "insert");
  for(i=0; i<n; i++){
    uint64_t u = h_next(&r);
    char z[32];
    if( u%29==0 ) sqlite3_bind_null(st, 1);
    else{
      snprintf(z, sizeof(z), "%c%cA", 'A' + (int)(u>>8)%26, 'A' + (int)(u>>16)%12);   /* 312 keys */
      sqlite3_bind_text(st, 1, z, -1, SQLITE_TRANSIENT);
    }
    if( u%3==0 ) bindOdd(st, 2, u >> 4);
    else if( u%3==1 ) sqlite3_bind_int64(st, 2, (int64_t)(u>>40) % 100);
    else sqlite3_bind_double(st, 2, (double)((u>>40) % 100));
    snprintf(z, sizeof(z), "v%lld", (long long)i);
    sqlite3_bind_text(st, 3, z, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 4, &u, (int)(u % 3), SQLITE_TRANSIENT);
    if( u%11==0 ) sqlite3_bind_null(st, 5);
    else sqlite3_bind_int64(st, 5, (int64_t)(u>>33) % 1000 - 500);
    /* Equal under NOCASE or RTRIM, different bytes: the first row of
    ** equals is min's and max's. */
    snprintf(z, sizeof(z), "%s", (u>>12)%4==0 ? "Abc" : (u>>12)%4==1 ? "aBC" : (u>>12)%4==2 ? "abd" : "ABD");
    sqlite3_bind_text(st, 6, z, -1, SQLITE_TRANSIENT);
    snprintf(z, sizeof(z), "%s", (u>>14)%4==0 ? "x" : (u>>14)%4==1 ? "x " : (u>>14)%4==2 ? "x  " : "y ");
    if( (u>>16)%17==0 ) sqlite3_bind_int64(st, 7, (int64_t)(u>>20) % 5);
    else sqlite3_bind_text(st, 7, z, -1, SQLITE_TRANSIENT);
    /* TEXT that sum() reads as reals, integers at int64's edge, 0; beside
    ** numbers. */
    {
      static const char *azNum[] = { "1.5", "1e308", "-2.5e-300", "9223372036854775807", "12", "abc", "", " 7 " };
      int j = (int)((u>>24) % 10);
      if( j<8 ) sqlite3_bind_text(st, 8, azNum[j], -1, SQLITE_STATIC);
      else sqlite3_bind_double(st, 8, (double)((u>>28) % 100) / 8);
      if( i==n/2 ) sqlite3_bind_text(st, 9, "1e999", -1, SQLITE_STATIC);
      else sqlite3_bind_text(st, 9, azNum[j % 8], -1, SQLITE_STATIC);
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(w, "COMMIT");
  sqlite3_close(w);
  db = openDb(zFile);
  ref = openDb(zFile);
  EXEC(ref, "SELECT gpuagg_config('cache', 0)");
  devHit0 = info(db, "cache.device_hits");
  cachedTwice(db, ref, azDict, nDict, 1);
  if( strcmp(g_backend, "cuda")==0 ){
    /* The second pass's groupings (keys and values of every class), its
    ** summaries and its histogram, on the device. */
    CHECK(info(db, "cache.device_hits") - devHit0 >= 10, "%lld answers from the device, wanted 10 or more",
          (long long)(info(db, "cache.device_hits") - devHit0));
  }
  {
    /* Kept by gpu_query's read on three threads (cache.c, 4a: each records
    ** its part, merged in scan order, one dictionary a column; the rows
    ** with overflow pages handed on by the scan's thread), then read over
    ** them: SQLite's answers. */
    static const char *azQ[] = {
      "SELECT k, count(*), count(DISTINCT nc), min(x), max(x) FROM %s GROUP BY k",
      "SELECT count(DISTINCT k), count(DISTINCT \"all\"), count(*), max(x) FROM %s WHERE x > -200",
      /* (not over kept columns, o of every class: read by the CPU operators, kept all the same) */
      "SELECT o, count(*), count(DISTINCT b), count(DISTINCT rt), count(DISTINCT tn) FROM %s GROUP BY o",
    };
    int q;
    /* s2: s's rows four times over but those on overflow pages (a segment
    ** that has one is the scan thread's), so that the workers' parts are
    ** several */
    EXEC(db, "CREATE TABLE s2(k TEXT, o, one TEXT, \"all\" TEXT, b BLOB, x, nc TEXT COLLATE NOCASE, rt COLLATE RTRIM,"
             " tn, ti); INSERT INTO s2 SELECT s.* FROM s, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL"
             " SELECT 4) WHERE o IS NULL OR length(CAST(o AS BLOB)) < 1000");
    /* ('auto': in 'cuda' mode a read the device cannot serve, o's, is an error) */
    EXEC(db, "SELECT gpuagg_config('cache', 0), gpuagg_config('cache', 1<<30), gpuagg_config('threads', 3),"
             " gpuagg_config('query_kept', 1), gpuagg_backend('auto')");
    for(q=0; q<2*(int)(sizeof(azQ)/sizeof(azQ[0])); q++){
      char *zQ = sqlite3_mprintf(azQ[q/2], q%2 ? "s2" : "s"), *a, *a2, *b;
      EXEC(db, "CREATE VIRTUAL TABLE temp.g USING gpu_query((%s))", zQ);
      a = s_render(db, "SELECT * FROM g");
      a2 = s_render(db, "SELECT * FROM g");
      b = s_render(ref, zQ);
      CHECK(strcmp(a, b)==0 && strcmp(a2, b)==0, "%s\n  kept on 3 threads %.400s\n  then %.400s\n  SQLite %.400s",
            zQ, a, a2, b);
      EXEC(db, "DROP TABLE temp.g");
      free(a); free(a2); free(b);
      sqlite3_free(zQ);
    }
    CHECK(info(db, "query.kept_cpu") + info(db, "query.device")>=4, "gpu_query over kept columns: %lld reads (%s)",
          (long long)(info(db, "query.kept_cpu") + info(db, "query.device")),
          h_text(db, "SELECT json_extract(gpuagg_info(), '$.query.not_kept')"));
    EXEC(db, "SELECT gpuagg_backend('%s')", g_backend);
  }
  /* One value, kept once. */
  EXEC(db, "SELECT gpuagg_config('cache', 0), gpuagg_config('cache', 1<<30)");
  EXEC(db, "SELECT * FROM gpu_group_by('s', 'one', 'one')");
  b0 = h_int(db, "SELECT bytes - device_bytes FROM gpuagg_cache() WHERE column_name='one'");
  CHECK(b0>0 && b0 < 10*n, "a column of one value takes %lld host bytes for %lld rows", (long long)b0, (long long)n);
  sqlite3_close(db);
  sqlite3_close(ref);
  s_dir_drop(zDir);
}
END_TEST

static Suite *cacheSuite(void){
  Suite *s = suite_create("cache");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_events_delete);
  tcase_add_test(tc, test_events_wal);
  tcase_add_test(tc, test_concurrent_writer);
  tcase_add_test(tc, test_budget);
  tcase_add_test(tc, test_device);
  tcase_add_test(tc, test_device_large);
  tcase_add_test(tc, test_kept_before_context);
  tcase_add_test(tc, test_dictionary);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(cacheSuite);
}
