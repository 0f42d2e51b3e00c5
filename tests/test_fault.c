/*
** CUDA fault injection (configure --enable-fault-injection; GPU only). For
** every function and table-valued function, each kind of CUDA call ('host',
** 'device', 'copy', 'launch', 'sync') fails once, at the first call of its
** kind or a later one (the middle of a query):
**
**   1. in 'auto' mode the answer is exactly the CPU backend's (the pipeline
**      redoes the chunk on the CPU; a histogram counts again on the CPU);
**   2. in 'cuda' mode it is that answer or an SQL error naming the CUDA error;
**   3. either way the pool is idle afterwards, the next query is right, and
**      once the connection closes no device allocation or pinned buffer is
**      left, nor stream or event (gpuagg_info's device_allocations,
**      pinned_buffers, streams_events).
**
** With two devices or more in use, faults strike one of them (faultDevice).
** Without CUDA or without the switch compiled in, the suite checks nothing
** (and says so).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

static const char *azQuery[] = {
  "SELECT gpu_sum(i), gpu_sum(x), gpu_total(x), gpu_avg(x) FROM t",
  "SELECT gpu_min(x), gpu_max(i), gpu_min(m), gpu_max(m) FROM t",
  "SELECT gpu_argmin(k, x), gpu_argmax(k, i), gpu_argmax(m, m) FROM t",
  "SELECT k % 7, gpu_sum(x), gpu_max(x) FROM t GROUP BY 1",
  "SELECT bin, count FROM gpu_histogram('t', 'x', 64)",
  "SELECT bin, count FROM gpu_histogram('t', 'x', 50000, -1, 1)",
  "SELECT * FROM gpu_group_by('t', 'm', 'x')",
  "SELECT * FROM gpu_group_by('t', 'k', 'i')",
  "SELECT * FROM gpu_summary('t')",
  "SELECT gpu_median(x), gpu_percentile(i, 10), gpu_percentile_disc(m, 0.9) FROM t",
  "SELECT gpu_var_samp(x), gpu_stddev_pop(i), gpu_variance(m) FROM t",
};
#define BIG_ROWS 1100000          /* rows of test_cache_faults' big: 8.8 MB a column of values */

static const char *azKind[] = { "host", "device", "copy", "launch", "sync" };

static int64_t info(sqlite3 *db, const char *zKey){
  return h_int(db, "SELECT json_extract(gpuagg_info(), '$.%s')", zKey);
}

/* zGot is the start of zRef's rows, then an error naming CUDA. */
static int errorAfter(const char *zGot, const char *zRef){
  const char *e = strstr(zGot, "error: ");
  return e && strncmp(zGot, zRef, (size_t)(e - zGot))==0 && strstr(e, "CUDA error");
}

/* Where fault kind k strikes: with two devices or more in use
** (GPUAGG_TEST_DEVICES), device 1 only, so that one device of two fails
** while the other goes on; else any. ('host' calls belong to no device.) */
static int faultDevice(sqlite3 *db, int k){
  return k>0 && h_int(db, "SELECT json_array_length(gpuagg_info(), '$.devices')")>=2 ? 1 : -1;
}

START_TEST(test_faults){
  sqlite3 *db = s_open(4096, 0);
  char *aRef[sizeof(azQuery)/sizeof(azQuery[0])];
  int hit[5] = { 0, 0, 0, 0, 0 };
  int nRun = 0, nErr = 0;              /* queries run with a fault armed; SQL errors among them */
  size_t q;
  int k, w, strict;
  h_rng r;
  if( strcmp(g_backend, "cuda")!=0 || h_query(db, "SELECT gpuagg_fault('copy', 0)").rc!=SQLITE_OK ){
    printf("test_faults (%s): no CUDA fault injection here; nothing checked\n", g_backend);
    sqlite3_close(db);
    return;
  }
  h_rng_init(&r, h_seed);
  EXEC(db, "CREATE TABLE t(k INTEGER, i INTEGER, x REAL, m)");
  {
    sqlite3_stmt *st;
    int64_t n;
    EXEC(db, "BEGIN");
    ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2, ?3, ?4)", -1, &st, 0), SQLITE_OK);
    for(n=0; n<60000; n++){
      sqlite3_bind_int64(st, 1, n);
      sqlite3_bind_int64(st, 2, h_range(&r, -1000000000, 1000000000));
      sqlite3_bind_double(st, 3, h_unit(&r)*2.0 - 1.0);
      if( n%5==0 ) sqlite3_bind_double(st, 4, h_unit(&r)*100.0);
      else sqlite3_bind_int64(st, 4, h_range(&r, -100, 100));
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    EXEC(db, "COMMIT");
  }
  /* The reference: the CPU backend's answers (the same bits as CUDA's). */
  EXEC(db, "SELECT gpuagg_backend('cpu')");
  for(q=0; q<sizeof(azQuery)/sizeof(azQuery[0]); q++) aRef[q] = s_render(db, azQuery[q]);
  for(strict=0; strict<2; strict++){
    EXEC(db, "SELECT gpuagg_backend('%s')", strict ? "cuda" : "auto");
    for(k=0; k<5; k++){
      for(w=1; w<=5; w+=2){              /* the first call of the kind, the third, the fifth */
        for(q=0; q<sizeof(azQuery)/sizeof(azQuery[0]); q++){
          int64_t before = info(db, "faults_injected");
          char *zGot, *zAgain;
          int fired;
          /* A chunk size unlike the last query's empties the pool: every
          ** query allocates its slots, so 'host' and 'device' faults can
          ** strike the first slot or one opened mid-query. */
          EXEC(db, "SELECT gpuagg_config('chunk', %d)", 4096 - nRun%2);
          EXEC(db, "SELECT gpuagg_fault('%s', %d, %d)", azKind[k], w, faultDevice(db, k));
          zGot = s_render(db, azQuery[q]);
          EXEC(db, "SELECT gpuagg_fault('%s', 0)", azKind[k]);
          fired = info(db, "faults_injected") > before;
          hit[k] += fired;
          nRun++;
          if( strcmp(zGot, aRef[q])!=0 ){
            nErr++;
            /* Only in 'cuda' mode, and only an error naming CUDA, after
            ** rows (a GROUP BY's first groups) that are right. */
            CHECK(strict && fired && errorAfter(zGot, aRef[q]),
                  "fault %s:%d, %s mode, %s: got %.200s", azKind[k], w, strict ? "cuda" : "auto", azQuery[q], zGot);
          }
          s_expect_pool_idle(db);
          zAgain = s_render(db, azQuery[q]);
          CHECK(strcmp(zAgain, aRef[q])==0, "after fault %s:%d, %s: got %.200s", azKind[k], w, azQuery[q], zAgain);
          free(zGot);
          free(zAgain);
        }
      }
    }
  }
  for(k=0; k<5; k++) CHECK(hit[k]>0, "no %s fault was ever injected: the test missed that kind", azKind[k]);
  CHECK(info(db, "fallbacks")>0, "no chunk was redone on the CPU");
  printf("test_faults (cuda): %d queries with a fault armed, %lld faults injected"
         " (queries where it fired: host %d, device %d, copy %d, launch %d, sync %d), %d SQL errors (cuda mode),"
         " %lld chunks redone on the CPU, %lld histograms counted again\n",
         nRun, (long long)info(db, "faults_injected"), hit[0], hit[1], hit[2], hit[3], hit[4], nErr,
         (long long)info(db, "fallbacks"), (long long)info(db, "hist_rescans"));
  for(q=0; q<sizeof(azQuery)/sizeof(azQuery[0]); q++) free(aRef[q]);
  sqlite3_close(db);
  /* Nothing left behind once the connection is gone. */
  db = s_open(4096, 0);
  CHECK(info(db, "device_allocations")==0, "%lld device allocations left", (long long)info(db, "device_allocations"));
  CHECK(info(db, "pinned_buffers")==0, "%lld pinned buffers left", (long long)info(db, "pinned_buffers"));
  CHECK(info(db, "streams_events")==0, "%lld streams or events left", (long long)info(db, "streams_events"));
  sqlite3_close(db);
}
END_TEST

/* The column cache (source/cache.c, backend/cuda_resident.c): a fault while
** a scan fills it (the device forms' allocation and copies, a TEXT column's
** dictionary places among them: 'device' is
** out of device memory, evicted and retried) or while the kernels answer
** from the kept columns: in 'auto' mode the answer is the CPU's, in 'cuda'
** mode that or an error naming CUDA; the next query is right; nothing left
** on the device once the connection is closed. */
START_TEST(test_cache_faults){
  static const char *azQ[] = {
    "SELECT * FROM gpu_summary('d')",
    "SELECT bin, count FROM gpu_histogram('d', 'x', 64)",
    "SELECT bin, count FROM gpu_histogram('d', 'i', 1000, -1e6, 1e6)",
    "SELECT * FROM gpu_group_by('d', 'k', 'x')",
    "SELECT * FROM gpu_group_by('d', 's', 'i')",     /* a TEXT key: its dictionary on the device */
    "SELECT * FROM gpu_group_by('d', 'k', 's')",     /* TEXT values: two groupings, numbers and places */
    /* gpu_query over kept columns (query/exec.c, 8): a TEXT key through its dictionary, one group
    ** folded where it is evaluated, a number key folded by its code (query.cu, 10) */
    "SELECT * FROM qa", "SELECT * FROM qb", "SELECT * FROM qc",
    /* ... and rows ordered by one term (exec.c's keptOrder): integers, reals with NULLs */
    "SELECT * FROM qd", "SELECT * FROM qe",
    /* ... and a join: the joined table's index and rows as the program's tables (kept on the
    ** device between reads), its TEXT key's ids as codes folded where evaluated (query.cu, 7) */
    "SELECT * FROM qf",
    /* ... and a TEXT key beside a joined table's rows' (122 * 272 codes, below the rows; three
    ** folds): more than a table copied back whole, the groups picked and finished on the
    ** device (query.cu, 8), the LIMIT's alone shown (kept.c's keptTop) */
    "SELECT * FROM qg",
    /* ... and count(DISTINCT) over a join, counted by code on the device (cuda_group.c, 7) */
    "SELECT * FROM qh",
    /* ... and a join's rows: the scanned rows it keeps picked by the order's operators (exec.c, 8a) */
    "SELECT * FROM qi",
  };
  const int nQ = (int)(sizeof(azQ)/sizeof(azQ[0]));
  char zDir[64], zFile[128], *aRef[16];
  sqlite3 *db;
  sqlite3_stmt *st;
  int hit[5] = { 0, 0, 0, 0, 0 }, k, w, q, strict, fill, n;
  h_rng r;
  db = s_open(4096, 0);
  if( strcmp(g_backend, "cuda")!=0 || h_query(db, "SELECT gpuagg_fault('copy', 0)").rc!=SQLITE_OK ){
    printf("test_cache_faults (%s): no CUDA fault injection here; nothing checked\n", g_backend);
    sqlite3_close(db);
    return;
  }
  sqlite3_close(db);
  s_dir_make(zDir, "cfault");
  snprintf(zFile, sizeof(zFile), "%s/d.db", zDir);
  db = s_open_plain(zFile);
  h_rng_init(&r, h_seed ^ 0xfa17);
  EXEC(db, "CREATE TABLE d(k, x, i, s); BEGIN");
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO d VALUES(?1, ?2, ?3, ?4)", -1, &st, 0)==SQLITE_OK, "insert");
  for(n=0; n<60000; n++){
    sqlite3_bind_int64(st, 1, h_range(&r, 0, 300));
    if( n%17==0 ) sqlite3_bind_null(st, 2); else sqlite3_bind_double(st, 2, h_unit(&r)*2.0 - 1.0);
    sqlite3_bind_int64(st, 3, h_range(&r, -1000000, 1000000));
    if( n%23==0 ) sqlite3_bind_null(st, 4);
    else{
      char z[16];
      snprintf(z, sizeof(z), "s%03d", (int)h_range(&r, 0, 120));
      sqlite3_bind_text(st, 4, z, -1, SQLITE_TRANSIENT);
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "CREATE TABLE dd(id INTEGER PRIMARY KEY, g TEXT);"
           " WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < 299)"
           " INSERT INTO dd SELECT v, 'g' || (v %% 13) FROM n WHERE v %% 7 <> 3;"
           "CREATE TABLE de(id INTEGER PRIMARY KEY, h TEXT);"
           " WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < 299)"
           " INSERT INTO de SELECT v, 'h' || v FROM n WHERE v %% 11 <> 5");
  /* many codes (800 * 700 of two joined tables' distinct values, eight folds: past the sparse path's
  ** 2^22 accumulators, below the 600K rows), so only the codes with rows get places (cuda_resident.c's
  ** mappedGroups) */
  EXEC(db, "CREATE TABLE m1(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE m2(id INTEGER PRIMARY KEY, b INTEGER);"
           "CREATE TABLE mf(k1 INTEGER, k2 INTEGER, v INTEGER, w REAL);"
           " WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 800)"
           " INSERT INTO m1 SELECT v, 'a' || v FROM n;"
           " WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 700)"
           " INSERT INTO m2 SELECT v, v * 3 FROM n;"
           " WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 600000)"
           " INSERT INTO mf SELECT ((v * 2654435761) >> 7) %% 810 + 1, ((v * 2797425387) >> 11) %% 700 + 1,"
           " CASE WHEN v %% 29 = 0 THEN NULL ELSE (v * %u) %% 100001 - 50000 END, (v %% 1009) / 4.0 FROM n",
       1 + (unsigned)h_range(&r, 0, 100000));
  /* columns of more than 8 MiB: their copy to the device staged through pinned buffers (cuda_upload.c) */
  EXEC(db, "CREATE TABLE big(k INTEGER, x REAL);"
           " WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < %d)"
           " INSERT INTO big SELECT v %% 997, CASE WHEN v %% 31 = 0 THEN NULL ELSE (v * %u %% 10007) * 0.25 - 1000.0"
           " END FROM n", BIG_ROWS - 1, 1 + (unsigned)h_range(&r, 0, 1000));
  EXEC(db, "COMMIT");
  sqlite3_close(db);
  {
    char *zErr = 0;
    db = h_open_file(zFile, &zErr);
    CHECK(db!=0, "open: %s", zErr ? zErr : "?");
  }
  EXEC(db, "SELECT gpuagg_backend('cpu'), gpuagg_config('cache', 0), gpuagg_config('chunk', 4096),"
           " gpuagg_config('threshold', 0)");
  EXEC(db, "CREATE VIRTUAL TABLE temp.qa USING gpu_query((SELECT s, count(*), sum(x), avg(i), min(x), max(i) FROM d"
           " WHERE k < 200 GROUP BY s));"
           "CREATE VIRTUAL TABLE temp.qb USING gpu_query((SELECT sum(x*i), count(*), total(k) FROM d WHERE s >= 's050'));"
           "CREATE VIRTUAL TABLE temp.qc USING gpu_query((SELECT k, count(*), sum(i), min(x) FROM d GROUP BY k));"
           "CREATE VIRTUAL TABLE temp.qd USING gpu_query((SELECT k, i, s FROM d WHERE x > -0.5 ORDER BY i DESC"
           " LIMIT 20 OFFSET 7));"
           "CREATE VIRTUAL TABLE temp.qe USING gpu_query((SELECT i, s, x FROM d ORDER BY x LIMIT 5 OFFSET 3000));"
           "CREATE VIRTUAL TABLE temp.qf USING gpu_query((SELECT dd.g, count(*), sum(d.x), max(d.i) FROM d, dd"
           " WHERE d.k = dd.id AND d.i > -900000 GROUP BY dd.g));"
           "CREATE VIRTUAL TABLE temp.qg USING gpu_query((SELECT d.s, de.h, count(*), sum(d.x), max(d.i), avg(d.k)"
           " FROM d, de WHERE de.id = d.k GROUP BY d.s, de.h ORDER BY 4 DESC, 1, 2 LIMIT 5));"
           "CREATE VIRTUAL TABLE temp.qh USING gpu_query((SELECT dd.g, count(DISTINCT d.s), count(*) FROM d, dd"
           " WHERE d.k = dd.id GROUP BY dd.g));"
           "CREATE VIRTUAL TABLE temp.qi USING gpu_query((SELECT d.k, d.i, dd.g FROM d, dd WHERE d.k = dd.id"
           " AND d.x > 0.9 ORDER BY d.i LIMIT 30))");
  for(q=0; q<nQ; q++) aRef[q] = s_render(db, azQ[q]);
  for(strict=0; strict<2; strict++){
    EXEC(db, "SELECT gpuagg_backend('%s')", strict ? "cuda" : "auto");
    for(k=0; k<5; k++){
      for(w=1; w<=3; w++){
        for(q=0; q<nQ; q++){
          for(fill=1; fill>=0; fill--){     /* while the scan fills the cache; then answering from it */
            int64_t before = info(db, "faults_injected");
            char *zGot, *zAgain;
            if( fill ) EXEC(db, "SELECT gpuagg_config('cache', 0), gpuagg_config('cache', 1<<30)");
            EXEC(db, "SELECT gpuagg_fault('%s', %d, %d)", azKind[k], w, faultDevice(db, k));
            zGot = s_render(db, azQ[q]);
            EXEC(db, "SELECT gpuagg_fault('%s', 0)", azKind[k]);
            hit[k] += info(db, "faults_injected") > before;
            if( strcmp(zGot, aRef[q])!=0 ){
              CHECK(strict && errorAfter(zGot, aRef[q]),
                    "fault %s:%d %s, %s mode, %s: got %.200s", azKind[k], w, fill ? "filling" : "from the cache",
                    strict ? "cuda" : "auto", azQ[q], zGot);
            }
            s_expect_pool_idle(db);
            zAgain = s_render(db, azQ[q]);
            CHECK(strcmp(zAgain, aRef[q])==0, "after fault %s:%d, %s: got %.200s", azKind[k], w, azQ[q], zAgain);
            free(zGot);
            free(zAgain);
          }
        }
      }
    }
  }
  {
    /* the many codes' reads, their columns kept: each of their first 8 calls of each kind failed in
    ** turn (marking, picking, placing, folding, finishing, HAVING's pick and copying back are all
    ** past the third). qm: a join's TEXT and INTEGER keys; qn: a number key folded by its code (query.cu,
    ** 10), HAVING over its one fold picked on the device; qo: a number key's 1.1M codes with four folds,
    ** past the sparse path's 2^22 accumulators, marked first. Few rows shown, each faulted read being
    ** rendered twice: a first form whose qo showed all its 549K groups did not end in 140 s on an
    ** H200 (a read of it by the CPU operators: 4.4 s on a 2-core machine) */
    static const char *azM[] = { "SELECT * FROM qm", "SELECT * FROM qn", "SELECT * FROM qo" };
    static const char *azMSql[] = {
      "SELECT m1.a, m2.b, count(*), sum(v), sum(v + 1), sum(v + 2), sum(v + 3), sum(v * 2),"
      " max(v), min(v), sum(v + 5), total(v + 6), sum(w) FROM mf, m1, m2 WHERE m1.id = mf.k1 AND m2.id = mf.k2"
      " AND v % 5 <> 0 GROUP BY m1.a, m2.b",
      "SELECT v, sum(w) FROM mf WHERE k2 > 3 GROUP BY v HAVING sum(w) > 1000",
      "SELECT v * 11 + k1 % 11 AS c, count(*), sum(w), sum(w + 1), sum(w * 2), total(w - 1) FROM mf WHERE k2 <= 70"
      " GROUP BY c ORDER BY 3 DESC, 1 LIMIT 5",
    };
    int j;
    CHECK(h_int(db, "SELECT (SELECT count(DISTINCT a) FROM m1) * (SELECT count(DISTINCT b) FROM m2) + 1")*8>1<<22,
          "the many codes' join has too few codes for mappedGroups");
    EXEC(db, "CREATE VIRTUAL TABLE temp.qm USING gpu_query((%s)); CREATE VIRTUAL TABLE temp.qn USING gpu_query((%s));"
             " CREATE VIRTUAL TABLE temp.qo USING gpu_query((%s))", azMSql[0], azMSql[1], azMSql[2]);
    EXEC(db, "SELECT gpuagg_backend('auto'), gpuagg_config('cache', 1<<30)");
    for(j=0; j<3; j++){
      char *zRef = s_render(db, azMSql[j]), *zOn;
      const char *zM = azM[j];
      int hitM = 0;
      int64_t coded = info(db, "number_keys_coded");
      EXEC(db, "SELECT gpuagg_backend('auto')");
      free(s_render(db, zM));
      for(strict=0; strict<2; strict++){
        EXEC(db, "SELECT gpuagg_backend('%s')", strict ? "cuda" : "auto");
        for(k=1; k<5; k++){
          for(w=1; w<=8; w++){
            int64_t before = info(db, "faults_injected");
            char *zGot;
            EXEC(db, "SELECT gpuagg_fault('%s', %d, %d)", azKind[k], w, faultDevice(db, k));
            zGot = s_render(db, zM);
            EXEC(db, "SELECT gpuagg_fault('%s', 0)", azKind[k]);
            hitM += info(db, "faults_injected") > before;
            if( strcmp(zGot, zRef)!=0 ){
              CHECK(strict && errorAfter(zGot, zRef), "fault %s:%d, %s mode, %s: got %.200s", azKind[k], w,
                    strict ? "cuda" : "auto", zM, zGot);
            }
            s_expect_pool_idle(db);
            free(zGot);
            zGot = s_render(db, zM);
            CHECK(strcmp(zGot, zRef)==0, "after fault %s:%d, %s: got %.200s", azKind[k], w, zM, zGot);
            free(zGot);
          }
        }
      }
      zOn = h_text(db, "SELECT json_extract(gpuagg_info(), '$.query.last.on')");
      CHECK(zOn && strcmp(zOn, "device")==0, "%s was read on %s, not the device", zM, zOn ? zOn : "?");
      CHECK(hitM>0, "no fault hit %s", zM);
      CHECK(j==0 || info(db, "number_keys_coded")>coded, "%s was not folded by its key's code", zM);
      printf("test_cache_faults (cuda): %s: %d of its %d faulted reads hit a fault\n", zM, hitM, 2*4*8);
      free(zOn);
      free(zRef);
    }
  }
  {
    /* big's columns copied to the device (8.8 MiB of values, more than cuda_upload.c's UPLOAD_MIN: pieces
    ** through pinned buffers on several threads), each of the first 6 calls of each kind failed in turn
    ** while a read fills the cache: the answer the CPU's or an error, nothing left, the next read right */
    static const char *azB[] = {
      "SELECT * FROM qbig", "SELECT bin, count FROM gpu_histogram('big', 'x', 64)",
    };
    char *azRef[2];
    int hitB[5] = { 0, 0, 0, 0, 0 };
    EXEC(db, "CREATE VIRTUAL TABLE temp.qbig USING gpu_query((SELECT k %% 10, count(*), sum(x), max(x), min(k) FROM big"
             " WHERE x > -900 GROUP BY 1))");
    EXEC(db, "SELECT gpuagg_backend('cpu')");
    for(q=0; q<2; q++) azRef[q] = s_render(db, azB[q]);
    for(strict=0; strict<2; strict++){
      EXEC(db, "SELECT gpuagg_backend('%s')", strict ? "cuda" : "auto");
      for(k=0; k<5; k++){
        for(w=1; w<=6; w++){
          for(q=0; q<2; q++){
            int64_t before = info(db, "faults_injected");
            char *zGot;
            EXEC(db, "SELECT gpuagg_config('cache', 0), gpuagg_config('cache', 1<<30)");
            EXEC(db, "SELECT gpuagg_fault('%s', %d, %d)", azKind[k], w, faultDevice(db, k));
            zGot = s_render(db, azB[q]);
            EXEC(db, "SELECT gpuagg_fault('%s', 0)", azKind[k]);
            hitB[k] += info(db, "faults_injected") > before;
            if( strcmp(zGot, azRef[q])!=0 ){
              CHECK(strict && errorAfter(zGot, azRef[q]), "fault %s:%d filling big's columns, %s mode, %s: got %.200s",
                    azKind[k], w, strict ? "cuda" : "auto", azB[q], zGot);
            }
            s_expect_pool_idle(db);
            free(zGot);
            zGot = s_render(db, azB[q]);
            CHECK(strcmp(zGot, azRef[q])==0, "after fault %s:%d, %s: got %.200s", azKind[k], w, azB[q], zGot);
            free(zGot);
          }
        }
      }
    }
    CHECK(hitB[2]>0 && hitB[4]>0, "no copy or sync fault hit big's columns");
    printf("test_cache_faults (cuda): big's columns: faults fired host %d, device %d, copy %d, launch %d, sync %d\n",
           hitB[0], hitB[1], hitB[2], hitB[3], hitB[4]);
    for(q=0; q<2; q++) free(azRef[q]);
  }
  for(k=1; k<5; k++) CHECK(hit[k]>0, "no %s fault was ever injected: the test missed that kind", azKind[k]);
  CHECK(info(db, "cache.device_hits")>0, "no answer came from the device");
  CHECK(info(db, "query.device")>0, "no gpu_query read went over kept columns on the device");
  {
    char *zOn;
    for(q=0; q<2; q++){
      free(s_render(db, q ? "SELECT * FROM qg" : "SELECT * FROM qf"));
      zOn = h_text(db, "SELECT json_extract(gpuagg_info(), '$.query.last.on')");
      CHECK(zOn && strcmp(zOn, "device")==0, "the join %s was read on %s, not the device", q ? "qg" : "qf", zOn ? zOn : "?");
      free(zOn);
    }
  }
  printf("test_cache_faults (cuda): faults fired in queries: host %d, device %d, copy %d, launch %d, sync %d;"
         " %lld answers from the device\n", hit[0], hit[1], hit[2], hit[3], hit[4],
         (long long)info(db, "cache.device_hits"));
  for(q=0; q<nQ; q++) free(aRef[q]);
  sqlite3_close(db);
  db = s_open(4096, 0);
  CHECK(info(db, "device_allocations")==0, "%lld device allocations left", (long long)info(db, "device_allocations"));
  CHECK(info(db, "streams_events")==0, "%lld streams or events left", (long long)info(db, "streams_events"));
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

static Suite *faultSuite(void){
  Suite *s = suite_create("fault");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_faults);
  tcase_add_test(tc, test_cache_faults);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(faultSuite);
}
