/*
** Every visible device (backend/cuda.c, 5; backend/cuda_resident.c): the
** answers are the same bits on one device and on all of them, whatever
** chunk went where.
**
**   - Every aggregate and table-valued function, through the chunk pipeline
**     (chunks of 1,024 values or 4,097, so that a query's chunks alternate
**     between devices at different points; threshold 0), on random data
**     with NULLs, mixed types, TEXT, int64 limits, ±0, many groups: the
**     rendered answer (types, integers, the doubles' bits) with
**     gpuagg_config('devices', 1) equals the one with 2 and with 0 (all).
**   - The column cache: a table kept on the devices (split across two of
**     them when two are in use) answers gpu_summary (with its quartiles,
**     gathered across devices), gpu_histogram (found range and given range)
**     and gpu_group_by as the same query does uncached.
**   - Where two devices are in use, both did work and both hold a part of a
**     kept column (gpuagg_info's "devices"); GPUAGG_TEST_REQUIRE_DEVICES=N
**     fails the run when fewer than N are usable.
** Both backends (suite.h); on the CPU pass the setting changes nothing and
** that is checked too. GPUAGG_SEED=N repeats a run.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

static const char *azAgg[] = {
  "SELECT gpu_sum(i), gpu_sum(x), gpu_total(m), gpu_avg(x), gpu_count(m) FROM t",
  "SELECT gpu_min(x), gpu_max(i), gpu_min(m), gpu_max(m), gpu_argmin(k, x), gpu_argmax(k, m) FROM t",
  "SELECT gpu_var_samp(x), gpu_stddev_pop(i), gpu_median(m), gpu_percentile(x, 90) FROM t",
  "SELECT k % 5, gpu_sum(x), gpu_max(m), gpu_avg(i) FROM t GROUP BY 1",
  "SELECT bin, lo, hi, count FROM gpu_histogram('t', 'x', 97)",
  "SELECT bin, count FROM gpu_histogram('t', 'm', 300, -50, 50)",
  "SELECT * FROM gpu_group_by('t', 'g', 'x')",
  "SELECT * FROM gpu_group_by('t', 'k', 'm')",
  "SELECT * FROM gpu_summary('t')",
};
#define N_AGG ((int)(sizeof(azAgg)/sizeof(azAgg[0])))

static int64_t info(sqlite3 *db, const char *zPath){
  return h_int(db, "SELECT json_extract(gpuagg_info(), '$.%s')", zPath);
}

/* Devices the connection uses now. */
static int nDevices(sqlite3 *db){
  return (int)h_int(db, "SELECT json_array_length(gpuagg_info(), '$.devices')");
}

/* t(k, g, i, x, m) of n rows: keys, many groups, integers to the limits,
** reals (±0 among them), and a mixed column with NULL and TEXT. */
static void fill(sqlite3 *db, h_rng *r, int n){
  sqlite3_stmt *st;
  int j;
  EXEC(db, "CREATE TABLE t(k INTEGER, g, i INTEGER, x REAL, m); BEGIN");
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2, ?3, ?4, ?5)", -1, &st, 0)==SQLITE_OK, "insert");
  for(j=0; j<n; j++){
    uint64_t u = h_next(r);
    sqlite3_bind_int64(st, 1, j);
    sqlite3_bind_int64(st, 2, h_range(r, 0, n/3));
    if( u % 97==0 ) sqlite3_bind_int64(st, 3, u % 2 ? INT64_MAX : INT64_MIN);
    else sqlite3_bind_int64(st, 3, h_range(r, -1000000000, 1000000000));
    if( u % 89==0 ) sqlite3_bind_double(st, 4, u % 2 ? -0.0 : 0.0);
    else sqlite3_bind_double(st, 4, (h_unit(r)*2.0 - 1.0)*1e3);
    switch( (u >> 8) % 6 ){
      case 0: sqlite3_bind_null(st, 5); break;
      case 1: sqlite3_bind_text(st, 5, u % 3 ? "12.5" : "abc", -1, SQLITE_STATIC); break;
      case 2: case 3: sqlite3_bind_int64(st, 5, h_range(r, -100, 100)); break;
      default: sqlite3_bind_double(st, 5, h_unit(r)*100.0 - 50.0); break;
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");
}

/* Where CUDA serves this pass: how many devices it may use, checked
** against GPUAGG_TEST_REQUIRE_DEVICES. 0 on the CPU pass. */
static int devicesHere(sqlite3 *db){
  const char *zReq = getenv("GPUAGG_TEST_REQUIRE_DEVICES");
  int n;
  if( strcmp(g_backend, "cuda")!=0 ) return 0;
  EXEC(db, "SELECT gpuagg_config('devices', 0)");
  n = nDevices(db);
  CHECK(zReq==0 || n>=atoi(zReq), "%d devices usable, %s required", n, zReq);
  return n;
}

START_TEST(test_pipeline){
  static const int aChunk[] = { 1024, 4097 };
  static const int aDev[] = { 2, 0 };
  sqlite3 *db = s_open(1024, 0);
  char *aRef[N_AGG];
  int q, c, d, nDev;
  h_rng r;
  h_rng_init(&r, h_seed ^ 0xde1);
  nDev = devicesHere(db);
  fill(db, &r, 60000);
  for(c=0; c<2; c++){
    EXEC(db, "SELECT gpuagg_config('chunk', %d), gpuagg_config('devices', 1)", aChunk[c]);
    for(q=0; q<N_AGG; q++) aRef[q] = s_render(db, azAgg[q]);
    for(d=0; d<2; d++){
      EXEC(db, "SELECT gpuagg_config('devices', %d)", aDev[d]);
      for(q=0; q<N_AGG; q++){
        char *z = s_render(db, azAgg[q]);
        CHECK(strcmp(z, aRef[q])==0, "chunk %d, devices %d vs 1, %s: got %.300s, want %.300s", aChunk[c], aDev[d],
              azAgg[q], z, aRef[q]);
        free(z);
      }
      s_expect_pool_idle(db);
    }
    for(q=0; q<N_AGG; q++) free(aRef[q]);
  }
  s_expect_device(db, "every device");
  if( nDev>=2 ){
    CHECK(info(db, "devices[0].chunks")>0 && info(db, "devices[1].chunks")>0,
          "two devices in use, and chunks on %lld and %lld of them", (long long)info(db, "devices[0].chunks"),
          (long long)info(db, "devices[1].chunks"));
    CHECK(info(db, "devices[0].chunks") + info(db, "devices[1].chunks")<=info(db, "chunks_flushed"),
          "the devices' chunks add up to more than the connection's");
  }
  printf("test_pipeline (%s): %d devices usable; the same bits on 1, 2 and all\n", g_backend, nDev);
  sqlite3_close(db);
}
END_TEST

START_TEST(test_cached){
  static const char *azQ[] = {
    "SELECT * FROM gpu_summary('t')",
    "SELECT * FROM gpu_summary('t', 'x')",
    "SELECT bin, lo, hi, count FROM gpu_histogram('t', 'x', 97)",
    "SELECT bin, count FROM gpu_histogram('t', 'i', 1000, -1e9, 1e9)",
    "SELECT * FROM gpu_group_by('t', 'g', 'x')",
    "SELECT * FROM gpu_group_by('t', 'k', 'i')",
  };
  const int nQ = (int)(sizeof(azQ)/sizeof(azQ[0]));
  char zDir[64], zFile[128], *aRef[6], *zErr = 0;
  int q, d, nDev;
  sqlite3 *db;
  h_rng r;
  s_dir_make(zDir, "devices");
  snprintf(zFile, sizeof(zFile), "%s/t.db", zDir);
  db = s_open_plain(zFile);
  h_rng_init(&r, h_seed ^ 0xcac4e);
  fill(db, &r, 50000);
  EXEC(db, "UPDATE t SET m = NULL WHERE typeof(m)='text'");   /* every column may go to the device */
  sqlite3_close(db);
  db = h_open_file(zFile, &zErr);
  CHECK(db!=0, "open: %s", zErr ? zErr : "?");
  EXEC(db, "SELECT gpuagg_backend('%s'), gpuagg_config('chunk', 4096), gpuagg_config('threshold', 0),"
           " gpuagg_config('cache', 0)", g_backend);
  nDev = devicesHere(db);
  for(q=0; q<nQ; q++) aRef[q] = s_render(db, azQ[q]);      /* uncached */
  for(d=1; d>=0; d--){                                      /* one device, then all */
    int pass;
    EXEC(db, "SELECT gpuagg_config('devices', %d), gpuagg_config('cache', 1<<30)", d);
    for(pass=0; pass<2; pass++){                            /* filling the cache, then from it */
      for(q=0; q<nQ; q++){
        char *z = s_render(db, azQ[q]);
        CHECK(strcmp(z, aRef[q])==0, "devices %d, %s, %s: got %.300s, want %.300s", d,
              pass ? "from the cache" : "filling it", azQ[q], z, aRef[q]);
        free(z);
      }
    }
    if( nDev>0 ) CHECK(info(db, "cache.device_hits")>0, "devices %d: no answer came from the device", d);
  }
  if( nDev>=2 ){
    CHECK(info(db, "devices[0].cache_bytes")>0 && info(db, "devices[1].cache_bytes")>0,
          "kept columns on two devices: %lld and %lld bytes", (long long)info(db, "devices[0].cache_bytes"),
          (long long)info(db, "devices[1].cache_bytes"));
  }
  printf("test_cached (%s): %d devices usable, %lld answers from the device, cache bytes by device %lld, %lld\n",
         g_backend, nDev, (long long)info(db, "cache.device_hits"), (long long)info(db, "devices[0].cache_bytes"),
         (long long)info(db, "devices[1].cache_bytes"));
  for(q=0; q<nQ; q++) free(aRef[q]);
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

static Suite *devicesSuite(void){
  Suite *s = suite_create("devices");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_pipeline);
  tcase_add_test(tc, test_cached);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(devicesSuite);
}
