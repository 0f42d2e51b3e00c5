/*
** Concurrency: 8 connections in 8 threads, and one connection (SQLite's
** serialized mode) shared by 4 more threads, all at once, running every
** aggregate and table-valued function over one database file. Every answer must be
** exactly the one computed beforehand on one thread (the column cache off
** there, on in the threads: their second round is served from it, on the
** device on the CUDA pass); no deadlock (the test has a timeout). And sqlite3_interrupt from another thread, timed. Both
** backends, as suite.h says; `make check-helgrind` runs the CPU pass under
** valgrind's helgrind (GPUAGG_THREADS_ROWS smaller there).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "suite.h"

#define N_OWN    8              /* threads with a connection each */
#define N_SHARED 4              /* threads sharing one connection */

static const char *azQuery[] = {
  "SELECT gpu_sum(i), gpu_sum(x), gpu_total(x), gpu_avg(x), gpu_count(m) FROM t",
  "SELECT gpu_min(x), gpu_max(i), gpu_min(m), gpu_max(m) FROM t",
  "SELECT gpu_argmin(k, x), gpu_argmax(k, i) FROM t",
  "SELECT k % 13, gpu_sum(x), gpu_max(i) FROM t GROUP BY 1",
  "SELECT bin, count FROM gpu_histogram('t', 'x', 256)",
  "SELECT bin, count FROM gpu_histogram('t', 'x', 20000, -1, 1)",
  "SELECT * FROM gpu_group_by('t', 'm', 'x')",
  "SELECT * FROM gpu_group_by('t', 's', 'i')",     /* a TEXT key: the cache's dictionary */
  "SELECT * FROM gpu_summary('t')",
};
#define N_QUERY (int)(sizeof(azQuery)/sizeof(azQuery[0]))

static char *aRef[N_QUERY];    /* the answers, computed on one thread */

typedef struct Job {
  const char *zFile;          /* the database */
  sqlite3 *db;                /* the shared connection, or NULL: open one */
  int id;                     /* which thread */
  int nRun;                   /* queries run */
  int nBad;                   /* answers that differed */
  char zBad[300];             /* the first of them */
} Job;

/* A connection to zFile on this pass's backend, small chunks (many
** flushes), the column cache on (cache) or off. */
static sqlite3 *openConn(const char *zFile, int cache){
  char *zErr = 0;
  sqlite3 *db = h_open_file(zFile, &zErr);
  char *z;
  if( db==0 ) return 0;
  z = sqlite3_mprintf("SELECT gpuagg_backend('%s'), gpuagg_config('chunk', 4096), gpuagg_config('threshold', 1000),"
                      " gpuagg_config('cache', %d)", g_backend, cache ? 1<<28 : 0);
  sqlite3_exec(db, z, 0, 0, 0);
  sqlite3_free(z);
  return db;
}

static void *worker(void *p){
  Job *j = (Job*)p;
  sqlite3 *db = j->db ? j->db : openConn(j->zFile, 1);
  int it, q;
  if( db==0 ){
    j->nBad = 1;
    snprintf(j->zBad, sizeof(j->zBad), "thread %d: cannot open the database", j->id);
    return 0;
  }
  for(it=0; it<2; it++){
    for(q=0; q<N_QUERY; q++){
      int k = (q + j->id) % N_QUERY;  /* threads start on different queries */
      char *z = s_render(db, azQuery[k]);
      j->nRun++;
      if( strcmp(z, aRef[k])!=0 && j->nBad++==0 ){
        snprintf(j->zBad, sizeof(j->zBad), "thread %d, %s: got %.150s", j->id, azQuery[k], z);
      }
      free(z);
    }
  }
  if( j->db==0 ) sqlite3_close(db);
  return 0;
}

START_TEST(test_threads){
  const char *zRows = getenv("GPUAGG_THREADS_ROWS");
  int64_t nRow = zRows ? atoll(zRows) : 100000, n;
  char zFile[] = "/tmp/gpuagg-threads-XXXXXX";
  Job aJob[N_OWN + N_SHARED];
  pthread_t aTid[N_OWN + N_SHARED];
  sqlite3 *db, *shared;
  sqlite3_stmt *st;
  h_rng r;
  int fd = mkstemp(zFile), i, q;
  ck_assert_msg(fd>=0, "mkstemp");
  close(fd);
  ck_assert_msg(sqlite3_threadsafe()==1, "SQLite is not built serialized (threadsafe %d)", sqlite3_threadsafe());
  /* The data, and the reference answers on this thread. */
  db = openConn(zFile, 0);
  ck_assert_msg(db!=0, "open %s", zFile);
  EXEC(db, "CREATE TABLE t(k INTEGER, i INTEGER, x REAL, m, s TEXT COLLATE NOCASE); BEGIN");
  ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2, ?3, ?4, ?5)", -1, &st, 0), SQLITE_OK);
  h_rng_init(&r, h_seed);
  for(n=0; n<nRow; n++){
    sqlite3_bind_int64(st, 1, n);
    sqlite3_bind_int64(st, 2, h_range(&r, -1000000000000, 1000000000000));
    sqlite3_bind_double(st, 3, h_unit(&r)*2.0 - 1.0);
    if( n%3==0 ) sqlite3_bind_text(st, 4, "z", 1, SQLITE_STATIC);
    else sqlite3_bind_double(st, 4, h_unit(&r));
    {
      char z[16];
      snprintf(z, sizeof(z), "%c%03d", n%2 ? 'A' : 'a', (int)h_range(&r, 0, 60));
      sqlite3_bind_text(st, 5, z, -1, SQLITE_TRANSIENT);
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");
  for(q=0; q<N_QUERY; q++){
    aRef[q] = s_render(db, azQuery[q]);
    CHECK(strncmp(aRef[q], "error", 5)!=0, "%s: %s", azQuery[q], aRef[q]);
  }
  sqlite3_close(db);
  /* Everyone at once. */
  shared = openConn(zFile, 1);
  ck_assert_msg(shared!=0, "open %s", zFile);
  for(i=0; i<N_OWN + N_SHARED; i++){
    memset(&aJob[i], 0, sizeof(aJob[i]));
    aJob[i].zFile = zFile;
    aJob[i].db = i<N_OWN ? 0 : shared;
    aJob[i].id = i;
    ck_assert_int_eq(pthread_create(&aTid[i], 0, worker, &aJob[i]), 0);
  }
  for(i=0; i<N_OWN + N_SHARED; i++){
    pthread_join(aTid[i], 0);
    CHECK(aJob[i].nBad==0, "%d wrong answers; first: %s", aJob[i].nBad, aJob[i].zBad);
    CHECK(aJob[i].nRun==2*N_QUERY, "thread %d ran %d queries", i, aJob[i].nRun);
  }
  s_expect_device(shared, "threads");
  CHECK(h_int(shared, "SELECT json_extract(gpuagg_info(), '$.cache.hits')")>0, "no scan served from the cache");
  s_expect_pool_idle(shared);
  sqlite3_close(shared);
  for(q=0; q<N_QUERY; q++) free(aRef[q]);
  unlink(zFile);
}
END_TEST

/* sqlite3_interrupt from another thread stops a long multi-chunk aggregate
** and a long gpu_histogram scan within a fraction of a second, with
** SQLITE_INTERRUPT, nothing left in flight (the pool idle), and the next
** query right. */
typedef struct Stopper {
  sqlite3 *db;                /* whom to interrupt */
  double tStop;               /* when it did (h_now) */
} Stopper;

static void *stopLater(void *p){
  Stopper *s = (Stopper*)p;
  usleep(150000);
  s->tStop = h_now();
  sqlite3_interrupt(s->db);
  return 0;
}

START_TEST(test_interrupt_latency){
  static const char *azLong[] = {
    "SELECT gpu_sum(a.x + b.x) FROM t a, t b",
    "SELECT count(*) FROM gpu_histogram('big', 'x', 4096)",
  };
  sqlite3 *db;
  size_t i;
  if( getenv("GPUAGG_UNDER_HELGRIND") ){
    /* SQLite 3.40's sqlite3_interrupt sets a plain int that the running
    ** statement reads: a race by design, which helgrind reports. */
    printf("interrupt latency: not run under helgrind\n");
    return;
  }
  db = s_open(65536, 1000);
  EXEC(db, "CREATE TABLE t(x REAL);" SERIES(20000) "INSERT INTO t SELECT value*0.5 FROM series");
  EXEC(db, "CREATE VIEW big AS SELECT a.x*b.x AS x FROM t a, t b");
  for(i=0; i<sizeof(azLong)/sizeof(azLong[0]); i++){
    Stopper s = { db, 0.0 };
    pthread_t tid;
    h_val r;
    double late;
    ck_assert_int_eq(pthread_create(&tid, 0, stopLater, &s), 0);
    r = h_query(db, "%s", azLong[i]);
    late = h_now() - s.tStop;
    pthread_join(tid, 0);
    CHECK(r.rc==SQLITE_INTERRUPT, "%s: rc %d (%s): it ended before the interrupt?", azLong[i], r.rc, r.zErr);
    CHECK(late < 0.5, "%s: returned %.3f s after the interrupt", azLong[i], late);
    printf("interrupt latency, %s backend, %s: %.1f ms\n", g_backend, azLong[i], late*1e3);
    s_expect_pool_idle(db);
  }
  CHECK(h_int(db, "SELECT gpu_sum(x) = sum(x) FROM t")==1, "the next query");
  CHECK(h_int(db, "SELECT sum(count) FROM gpu_histogram('t', 'x', 10)")==20000, "the next histogram");
  sqlite3_close(db);
}
END_TEST

static Suite *threadSuite(void){
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 1800);
  tcase_add_test(tc, test_threads);
  tcase_add_test(tc, test_interrupt_latency);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(threadSuite);
}
