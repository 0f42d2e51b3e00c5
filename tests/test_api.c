/*
** The module's SQL surface: registration, argument errors, the settings
** functions, gpuagg_info, the environment, and (with a GPU) that small
** queries create no CUDA context while large ones do.
*/
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

static sqlite3 *openDb(void){
  char *zErr = 0;
  sqlite3 *db = h_open(&zErr);
  ck_assert_msg(db!=0, "cannot load the module: %s", zErr ? zErr : "?");
  return db;
}

/* The statement fails with a message containing zWant. */
static void expectError(sqlite3 *db, const char *zSql, const char *zWant){
  h_val v = h_query(db, "%s", zSql);
  ck_assert_msg(v.rc!=SQLITE_OK, "%s: should fail", zSql);
  ck_assert_msg(strstr(v.zErr, zWant)!=0, "%s: error \"%s\" lacks \"%s\"", zSql, v.zErr, zWant);
}

static void expectText(sqlite3 *db, const char *zSql, const char *zWant){
  char *z = h_text(db, "%s", zSql);
  ck_assert_msg(z && strcmp(z, zWant)==0, "%s = %s, want %s (%s)", zSql, z ? z : "NULL", zWant, h_errmsg);
  free(z);
}

START_TEST(test_registered){
  static const char *azName[] = {
    "gpu_sum", "gpu_total", "gpu_avg", "gpu_count", "gpu_min", "gpu_max", "gpu_argmin", "gpu_argmax",
    "gpuagg_info", "gpuagg_backend", "gpuagg_config"
  };
  sqlite3 *db = openDb();
  size_t i;
  for(i=0; i<sizeof(azName)/sizeof(azName[0]); i++){
    ck_assert_msg(h_int(db, "SELECT count(*) FROM pragma_function_list WHERE name='%s'", azName[i])>0,
                  "%s is not registered", azName[i]);
  }
  /* Aggregates are deterministic and innocuous; settings are direct-only. */
  ck_assert_int_eq(h_int(db, "SELECT flags & 0x200800 FROM pragma_function_list WHERE name='gpu_sum'"), 0x200800);
  ck_assert_int_eq(h_int(db, "SELECT flags & 0x80000 FROM pragma_function_list WHERE name='gpuagg_config' LIMIT 1"), 0x80000);
  sqlite3_close(db);
}
END_TEST

START_TEST(test_wrong_arguments){
  sqlite3 *db = openDb();
  expectError(db, "SELECT gpu_sum()", "wrong number of arguments to function gpu_sum()");
  expectError(db, "SELECT gpu_sum(1, 2)", "wrong number of arguments to function gpu_sum()");
  expectError(db, "SELECT gpu_total(1, 2)", "wrong number of arguments to function gpu_total()");
  expectError(db, "SELECT gpu_avg()", "wrong number of arguments to function gpu_avg()");
  expectError(db, "SELECT gpu_count(1, 2)", "wrong number of arguments to function gpu_count()");
  expectError(db, "SELECT gpu_min()", "wrong number of arguments to function gpu_min()");
  expectError(db, "SELECT gpu_max(1, 2)", "wrong number of arguments to function gpu_max()");
  expectError(db, "SELECT gpu_argmax(1)", "wrong number of arguments to function gpu_argmax()");
  expectError(db, "SELECT gpu_argmin(1, 2, 3)", "wrong number of arguments to function gpu_argmin()");
  expectError(db, "SELECT gpu_var_samp()", "wrong number of arguments to function gpu_var_samp()");
  expectError(db, "SELECT gpu_stddev(1, 2)", "wrong number of arguments to function gpu_stddev()");
  expectError(db, "SELECT gpu_median(1, 2)", "wrong number of arguments to function gpu_median()");
  expectError(db, "SELECT gpu_percentile(1)", "wrong number of arguments to function gpu_percentile()");
  expectError(db, "SELECT gpu_percentile_cont(1, 2, 3)", "wrong number of arguments to function gpu_percentile_cont()");
  /* Percentiles' own errors, after rows were kept (nothing may leak: valgrind runs this suite). */
  expectError(db, "SELECT gpu_percentile(column1, 100.5) FROM (VALUES(1),(2))",
              "the fraction argument to gpu_percentile() is not between 0.0 and 100.0");
  expectError(db, "SELECT gpu_percentile_disc(column1, NULL) FROM (VALUES(1),(2))",
              "the fraction argument to gpu_percentile_disc() is not between 0.0 and 1.0");
  expectError(db, "SELECT gpu_percentile_cont(column1, column1/10.0) FROM (VALUES(1),(2),(3))",
              "the fraction argument to gpu_percentile_cont() is not the same for all input rows");
  expectError(db, "SELECT gpu_median(column1) FROM (VALUES(1),(2),('x'))", "input to gpu_median() is not numeric");
  expectError(db, "SELECT gpu_median(column1) OVER (ROWS 1 PRECEDING) FROM (VALUES(9e999),(1),(2))",
              "Inf input to gpu_median()");
  expectError(db, "SELECT gpuagg_info(1)", "wrong number of arguments to function gpuagg_info()");
  expectError(db, "SELECT gpuagg_config()", "wrong number of arguments to function gpuagg_config()");
  expectError(db, "SELECT gpuagg_backend(1, 2)", "wrong number of arguments to function gpuagg_backend()");
  sqlite3_close(db);
}
END_TEST

START_TEST(test_settings){
  sqlite3 *db = openDb();
  expectText(db, "SELECT gpuagg_backend('cpu')", "cpu");
  expectText(db, "SELECT gpuagg_backend()", "cpu");
  expectText(db, "SELECT json_extract(gpuagg_info(), '$.mode')", "cpu");
  expectError(db, "SELECT gpuagg_backend('gpu')", "gpuagg_backend: mode must be 'auto', 'cpu' or 'cuda'");
  expectError(db, "SELECT gpuagg_backend(NULL)", "gpuagg_backend: mode must be");
  expectText(db, "SELECT gpuagg_backend()", "cpu");     /* a failed call changes nothing */

  expectText(db, "SELECT gpuagg_config('chunk')", "1048576");
  expectText(db, "SELECT gpuagg_config('threshold')", "65536");
  expectText(db, "SELECT gpuagg_config('CHUNK', 4096)", "4096");
  expectText(db, "SELECT gpuagg_config('chunk', '512')", "512");
  expectText(db, "SELECT gpuagg_config('threshold', 0)", "0");
  expectError(db, "SELECT gpuagg_config('chunk', 0)", "gpuagg_config: chunk must be an integer from 1 to 134217728");
  expectError(db, "SELECT gpuagg_config('chunk', 134217729)", "chunk must be an integer");
  expectError(db, "SELECT gpuagg_config('chunk', 1.5)", "chunk must be an integer");
  expectError(db, "SELECT gpuagg_config('chunk', 'many')", "chunk must be an integer");
  expectError(db, "SELECT gpuagg_config('chunk', NULL)", "chunk must be an integer");
  expectError(db, "SELECT gpuagg_config('threshold', -1)", "threshold must be an integer from 0");
  expectError(db, "SELECT gpuagg_config('speed', 1)", "gpuagg_config: unknown setting");
  expectError(db, "SELECT gpuagg_config(NULL)", "gpuagg_config: unknown setting");
  expectText(db, "SELECT json_extract(gpuagg_info(), '$.chunk') || ' ' || json_extract(gpuagg_info(), '$.threshold')", "512 0");

  /* The settings cannot be changed from a view or a trigger. */
  ck_assert_int_eq(h_exec(db, "CREATE VIEW v AS SELECT gpuagg_config('chunk', 7)"), SQLITE_OK);
  expectError(db, "SELECT * FROM v", "unsafe use of gpuagg_config()");
  sqlite3_close(db);
}
END_TEST

START_TEST(test_info_json){
  static const char *azKey[] = {
    "version", "mode", "backend", "device", "chunk", "threshold", "slots", "idle_slots",
    "chunks_flushed", "chunks_cpu", "bytes_copied", "kernel_ms", "wait_ms", "fallbacks", "last_error"
  };
  sqlite3 *db = openDb();
  size_t i;
  ck_assert_int_eq(h_int(db, "SELECT json_valid(gpuagg_info())"), 1);
  for(i=0; i<sizeof(azKey)/sizeof(azKey[0]); i++){
    ck_assert_msg(h_int(db, "SELECT json_type(gpuagg_info(), '$.%s') IS NOT NULL", azKey[i]),
                  "gpuagg_info() lacks %s", azKey[i]);
  }
  /* A pipelined query on the CPU backend shows in the counters. */
  ck_assert_int_eq(h_exec(db, "SELECT gpuagg_backend('cpu'), gpuagg_config('chunk', 100), gpuagg_config('threshold', 0);"
                              "CREATE TABLE t(x);" SERIES(1050) "INSERT INTO t SELECT value FROM series"), SQLITE_OK);
  ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x) FROM t"), 1050*1051/2);
  /* 10 full chunks and the tail, reduced by the (warm) CPU backend. */
  ck_assert_int_eq(h_int(db, "SELECT json_extract(gpuagg_info(), '$.chunks_cpu')"), 11);
  ck_assert_int_eq(h_int(db, "SELECT json_extract(gpuagg_info(), '$.chunks_flushed')"), 0);
  ck_assert_int_eq(h_int(db, "SELECT json_extract(gpuagg_info(), '$.slots')"), 2);
  sqlite3_close(db);
}
END_TEST

/* GPUAGG_BACKEND sets the starting mode; a bad value is a load error. */
START_TEST(test_environment){
  char *zErr = 0;
  sqlite3 *db;
  setenv("GPUAGG_BACKEND", "cpu", 1);
  db = openDb();
  expectText(db, "SELECT json_extract(gpuagg_info(), '$.mode')", "cpu");
  sqlite3_close(db);
  setenv("GPUAGG_BACKEND", "fast", 1);
  db = h_open(&zErr);
  ck_assert_msg(db==0 && zErr && strstr(zErr, "GPUAGG_BACKEND is \"fast\""), "bad GPUAGG_BACKEND: %s", zErr ? zErr : "loaded");
  sqlite3_free(zErr);
  unsetenv("GPUAGG_BACKEND");
}
END_TEST

/* Two connections keep separate settings; closing one leaves the other working. */
START_TEST(test_two_connections){
  sqlite3 *a = openDb(), *b = openDb();
  ck_assert_int_eq(h_exec(a, "SELECT gpuagg_config('chunk', 10)"), SQLITE_OK);
  expectText(b, "SELECT gpuagg_config('chunk')", "1048576");
  ck_assert_int_eq(h_exec(a, "CREATE TABLE t(x);" SERIES(100) "INSERT INTO t SELECT value FROM series;"
                             "SELECT gpuagg_config('threshold', 0)"), SQLITE_OK);
  ck_assert_int_eq(h_int(a, "SELECT gpu_sum(x) FROM t"), 5050);
  sqlite3_close(b);
  ck_assert_int_eq(h_int(a, "SELECT gpu_sum(x) FROM t"), 5050);
  sqlite3_close(a);
}
END_TEST

/* Loading the module again on a connection that has it succeeds and
** changes nothing (conn.c, 7): twice through the C API, then through SQL's
** load_extension() in a running statement (once a row), where registering
** again would fail ("unable to delete/modify user-function due to active
** statements"). The settings, a gpu_query table and the functions live
** on. Connections opened after it closed (at its address, often) are
** loaded afresh. */
START_TEST(test_load_again){
  const char *zModule = getenv("GPUAGG_MODULE") ? getenv("GPUAGG_MODULE") : "./libgpuagg";
  sqlite3 *db = openDb();
  char *zErr = 0;
  h_val v;
  int k;
  ck_assert_int_eq(h_exec(db, "SELECT gpuagg_config('chunk', 10)"), SQLITE_OK);
  ck_assert_int_eq(h_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1), (2.5), (NULL);"
                              "CREATE VIRTUAL TABLE temp.q USING gpu_query((SELECT gpu_sum(x) FROM t))"), SQLITE_OK);
  for(k=0; k<2; k++){
    int rc = sqlite3_load_extension(db, zModule, 0, &zErr);
    ck_assert_msg(rc==SQLITE_OK, "load %d: rc %d, %s", k + 2, rc, zErr ? zErr : "no message");
  }
  sqlite3_enable_load_extension(db, 1);   /* the SQL function too */
  v = h_query(db, "SELECT load_extension('%q')", zModule);
  ck_assert_msg(v.rc==SQLITE_OK && v.type==SQLITE_NULL, "SELECT load_extension(): rc %d, %s", v.rc, v.zErr);
  v = h_query(db, "SELECT count(load_extension('%q')) FROM t", zModule);
  ck_assert_msg(v.rc==SQLITE_OK && v.i==0, "load_extension() a row: rc %d, %s", v.rc, v.zErr);
  expectText(db, "SELECT gpuagg_config('chunk')", "10");
  expectText(db, "SELECT * FROM q", "3.5");
  expectText(db, "SELECT gpu_sum(x) FROM t", "3.5");
  sqlite3_close(db);
  for(k=0; k<20; k++){
    db = openDb();
    expectText(db, "SELECT gpuagg_config('chunk')", "1048576");
    expectText(db, "SELECT gpu_sum(2.5)", "2.5");
    sqlite3_close(db);
  }
}
END_TEST

/* 100 cycles of open, load, query (through the pipeline and a histogram),
** close: the process does not grow. Every slot, buffer, stream, event and
** kept number is freed with its connection. */
START_TEST(test_cycles){
  int64_t before = 0, after;
  int k;
  for(k=0; k<110; k++){
    sqlite3 *db = openDb();
    h_exec(db, "SELECT gpuagg_config('chunk', 4096), gpuagg_config('threshold', 100)");
    h_exec(db, "CREATE TABLE t(x);" SERIES(50000) "INSERT INTO t SELECT value*0.25 FROM series");
    ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x)=sum(x) AND gpu_max(x)=max(x) FROM t"), 1);
    ck_assert_int_eq(h_int(db, "SELECT sum(count) FROM gpu_histogram('t', 'x', 100)"), 50000);
    sqlite3_close(db);
    if( k==9 ) before = h_rss_bytes();      /* after the allocator has warmed up */
  }
  after = h_rss_bytes();
  {
    /* With a device: nothing of CUDA's is left once the connections closed
    ** (the keys are absent, so NULL, without one). */
    sqlite3 *db = openDb();
    static const char *azLive[] = { "device_allocations", "pinned_buffers", "streams_events" };
    for(k=0; k<3; k++){
      int64_t n = h_int(db, "SELECT ifnull(json_extract(gpuagg_info(), '$.%s'), 0)", azLive[k]);
      ck_assert_msg(n==0, "%lld %s left after the connections closed", (long long)n, azLive[k]);
    }
    sqlite3_close(db);
  }
  if( getenv("GPUAGG_UNDER_VALGRIND") ) return;   /* its allocator holds freed blocks back; it checks leaks itself */
  ck_assert_msg(before>0 && after - before < (4<<20), "grew by %lld bytes over 100 cycles (%lld -> %lld)",
                (long long)(after - before), (long long)before, (long long)after);
}
END_TEST

/* What the bad-input matrix saw: answers, errors with a message, and
** failures without one (the first of them kept to report). */
typedef struct Tally { int nOk, nErr, nBad; char zFirst[300]; } Tally;

static void tally(sqlite3 *db, Tally *t, const char *zSql){
  h_val v = h_query(db, "%s", zSql);
  if( v.rc==SQLITE_OK ) t->nOk++;
  else if( v.zErr[0] && strcmp(v.zErr, "not an error")!=0 ) t->nErr++;
  else if( t->nBad++==0 ) snprintf(t->zFirst, sizeof(t->zFirst), "%s: rc %d without a message", zSql, v.rc);
}

/* Every function and gpu_histogram with every kind of argument, 0 to 3 of
** them (and gpu_histogram with 3 and 5): each statement ends with a result
** or a clear error (a message, the statement finished), never a crash; the
** pool is idle after, and the connection still answers right. The large
** blob is 40 KB: its 500 rows still pass gpu_argmin/gpu_argmax's 16 MiB
** early hand-over (at 1 MB each statement copied 500 MB: two minutes of
** the quick start); test_minmax has the 40 MB value. */
START_TEST(test_bad_input){
  static const char *azFn[] = {
    "gpu_sum", "gpu_total", "gpu_avg", "gpu_count", "gpu_min", "gpu_max", "gpu_argmin", "gpu_argmax",
    "gpuagg_config", "gpuagg_backend", "gpuagg_info", "gpuagg_colsrc",
  };
  static const char *azArg[] = {
    "NULL", "0", "-1", "9223372036854775807", "-9223372036854775808", "1e999", "-1e999", "2.5",
    "'t'", "'x'", "x'00ff'", "zeroblob(40000)", "'a\"; DROP TABLE t; --'", "'.'", "16777217", "x",
  };
  const int nFn = sizeof(azFn)/sizeof(azFn[0]), nArg = sizeof(azArg)/sizeof(azArg[0]);
  sqlite3 *db = openDb();
  int f, a, b, c;
  Tally t = { 0, 0, 0, "" };
  h_exec(db, "SELECT gpuagg_config('chunk', 64), gpuagg_config('threshold', 8)");
  h_exec(db, "CREATE TABLE t(x);" SERIES(500) "INSERT INTO t SELECT CASE value %% 5 WHEN 0 THEN NULL"
             " WHEN 1 THEN 'text' WHEN 2 THEN x'01' WHEN 3 THEN value * 0.5 ELSE value END FROM series");
  for(f=0; f<nFn; f++){
    for(a=-1; a<nArg; a++){
      for(b=-1; b<(a<0 ? 0 : nArg); b++){
        for(c=-1; c<(b<0 || a>=6 || b>=6 ? 0 : 6); c++){
          char *zSql = sqlite3_mprintf("SELECT %s(%s%s%s%s%s) FROM t", azFn[f], a<0 ? "" : azArg[a],
                                       b<0 ? "" : ", ", b<0 ? "" : azArg[b], c<0 ? "" : ", ", c<0 ? "" : azArg[c]);
          tally(db, &t, zSql);
          sqlite3_free(zSql);
        }
      }
    }
  }
  for(a=0; a<nArg; a++){
    for(b=0; b<nArg; b++){
      for(c=0; c<nArg; c++){
        char *zSql = sqlite3_mprintf("SELECT * FROM gpu_histogram(%s, %s, %s)", azArg[a], azArg[b], azArg[c]);
        tally(db, &t, zSql);
        sqlite3_free(zSql);
        zSql = sqlite3_mprintf("SELECT * FROM gpu_histogram('t', 'x', 4, %s, %s)", azArg[b], azArg[c]);
        tally(db, &t, zSql);
        sqlite3_free(zSql);
      }
    }
  }
  ck_assert_msg(t.nBad==0, "%d statements failed without a message; first: %s", t.nBad, t.zFirst);
  ck_assert_msg(t.nOk>0 && t.nErr>0, "%d answers, %d errors: the matrix did not reach both", t.nOk, t.nErr);
  h_exec(db, "SELECT gpuagg_config('chunk', 64), gpuagg_config('threshold', 8), gpuagg_backend('auto')");
  ck_assert_int_eq(h_int(db, "SELECT gpu_total(x)=total(x) AND gpu_count(x)=count(x) FROM t"), 1);
  ck_assert_int_eq(h_int(db, "SELECT count(*) FROM t"), 500);
  {
    char *z = h_text(db, "SELECT json_extract(gpuagg_info(), '$.slots') = json_extract(gpuagg_info(), '$.idle_slots')");
    ck_assert_msg(z && strcmp(z, "1")==0, "slots in use after the matrix");
    free(z);
  }
  sqlite3_close(db);
}
END_TEST

/* A random argument: NULL, a huge or odd number, a blob of random bytes,
** text of random bytes (often not UTF-8), a name, a name quoted badly. */
static char *fuzzArg(h_rng *r){
  static const char *azFix[] = {
    "NULL", "9223372036854775807", "-9223372036854775808", "1e999", "-1e308", "-0.0", "2.5", "0", "'t'", "'x'",
    "'main.t'", "'\"t\"'", "'[t]'", "'SELECT x FROM t'", "''", "'\xc3\xa9'",
  };
  sqlite3_str *s = sqlite3_str_new(0);
  int k = (int)h_range(r, 0, 9), n = (int)h_range(r, 0, 12), i;
  if( k<4 ){
    sqlite3_str_appendall(s, azFix[h_range(r, 0, (int)(sizeof(azFix)/sizeof(azFix[0])) - 1)]);
  }else{
    sqlite3_str_appendall(s, k<6 ? "x'" : k<8 ? "CAST(x'" : "('t' || CAST(x'");
    for(i=0; i<n; i++) sqlite3_str_appendf(s, "%02x", (unsigned)h_range(r, 0, 255));
    sqlite3_str_appendall(s, k<6 ? "'" : k<8 ? "' AS TEXT)" : "' AS TEXT))");
  }
  return sqlite3_str_finish(s);
}

/* The table functions, gpu_explain, gpu_query and the settings, given
** random arguments (blobs, text that is not UTF-8, NULLs, huge numbers),
** 4,000 statements: each ends with a result or an SQLite error whose
** message is UTF-8 (bytes that are not show as x'..'), never a crash; the
** connection answers right after. */
START_TEST(test_fuzz_args){
  static const struct { const char *zFmt; int nArg; } a[] = {
    { "SELECT * FROM gpu_histogram(%s, %s, %s)", 3 }, { "SELECT * FROM gpu_histogram(%s, %s, %s, %s, %s)", 5 },
    { "SELECT * FROM gpu_group_by(%s, %s, %s)", 3 }, { "SELECT * FROM gpu_summary(%s)", 1 },
    { "SELECT * FROM gpu_summary(%s, %s)", 2 }, { "SELECT gpu_explain(%s)", 1 },
    { "SELECT gpu_explain(%s, %s)", 2 },
    { "SELECT gpuagg_config(%s)", 1 }, { "SELECT gpuagg_config(%s, %s)", 2 }, { "SELECT gpuagg_backend(%s)", 1 },
    { "CREATE VIRTUAL TABLE temp.f USING gpu_query(%s)", 1 }, { "SELECT gpu_percentile(x, %s) FROM t", 1 },
    { "SELECT gpu_argmax(%s, %s) FROM t", 2 }, { "SELECT * FROM gpuagg_cache(%s)", 1 },
  };
  sqlite3 *db = openDb();
  h_rng r;
  int i, nErr = 0;
  h_seed_init();
  h_rng_init(&r, h_seed);
  h_exec(db, "CREATE TABLE t(x);" SERIES(50) "INSERT INTO t SELECT value FROM series");
  for(i=0; i<4000; i++){
    int f = (int)h_range(&r, 0, (int)(sizeof(a)/sizeof(a[0])) - 1), k;
    char *az[5] = { 0, 0, 0, 0, 0 }, *zSql;
    sqlite3_stmt *st = 0;
    for(k=0; k<a[f].nArg; k++) az[k] = fuzzArg(&r);
    zSql = sqlite3_mprintf(a[f].zFmt, az[0], az[1], az[2], az[3], az[4]);
    if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK ){
      while( sqlite3_step(st)==SQLITE_ROW ){}
      sqlite3_finalize(st);
    }
    {
      const char *zMsg = sqlite3_errmsg(db);
      int rc = sqlite3_errcode(db);
      nErr += rc!=SQLITE_OK;
      ck_assert_msg(rc==SQLITE_OK || h_utf8(zMsg),
                    "%s: a message that is not UTF-8: %s (GPUAGG_SEED=%llu)", zSql, zMsg, (unsigned long long)h_seed);
    }
    if( strncmp(zSql, "CREATE", 6)==0 ) sqlite3_exec(db, "DROP TABLE IF EXISTS temp.f", 0, 0, 0);
    sqlite3_free(zSql);
    for(k=0; k<a[f].nArg; k++) sqlite3_free(az[k]);
  }
  ck_assert_msg(nErr>0, "no statement of the fuzz failed: it reached no error");
  h_exec(db, "SELECT gpuagg_config('chunk', 1048576), gpuagg_config('threshold', 65536), gpuagg_backend('auto')");
  ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x)=sum(x) FROM t"), 1);
  sqlite3_close(db);
}
END_TEST

/* Forcing cuda without a usable device is an error naming the reason. */
START_TEST(test_cuda_forced){
  sqlite3 *db = openDb();
  const char *zWhy = 0;
  if( !h_cuda_usable(db, &zWhy) ){
    expectError(db, "SELECT gpuagg_backend('cuda')", "gpuagg: CUDA backend unavailable: ");
    /* The same through the environment, at the first query that pipelines. */
    setenv("GPUAGG_BACKEND", "cuda", 1);
    sqlite3_close(db);
    db = openDb();
    ck_assert_int_eq(h_exec(db, "CREATE TABLE t(x);" SERIES(100) "INSERT INTO t SELECT value FROM series"), SQLITE_OK);
    ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x) FROM t"), 5050);    /* under the threshold: CPU */
    ck_assert_int_eq(h_exec(db, "SELECT gpuagg_config('threshold', 10)"), SQLITE_OK);
    expectError(db, "SELECT gpu_sum(x) FROM t", "gpuagg: CUDA backend unavailable: ");
    unsetenv("GPUAGG_BACKEND");
  }else{
    expectText(db, "SELECT gpuagg_backend()", "cuda");
    expectText(db, "SELECT json_extract(gpuagg_info(), '$.backend')", "cuda");
  }
  sqlite3_close(db);
}
END_TEST

/* Small queries never reach CUDA: no driver call, no context. Large ones
** create the context (the positive control: the check can fail). */
START_TEST(test_no_context_for_small){
  sqlite3 *db = openDb();
  int i;
  ck_assert_int_eq(h_exec(db, "CREATE TABLE t(g, x);"
      SERIES(200000) "INSERT INTO t SELECT value%%100000, value FROM series"), SQLITE_OK);
  ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x) FROM t WHERE rowid<=10"), 55);
  ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x) FROM t WHERE rowid<65536"), (int64_t)65535*65536/2);
  for(i=0; i<3; i++){
    ck_assert_int_eq(h_int(db, "SELECT count(*) FROM (SELECT g, gpu_sum(x) s FROM t GROUP BY g) WHERE s>0"), 100000);
  }
  /* compute-sanitizer loads the driver into every process it starts. */
  if( !getenv("GPUAGG_UNDER_SANITIZER") ){
    ck_assert_msg(h_libcuda_loaded()==0, "a small query loaded the CUDA driver");
  }
  ck_assert_msg(h_cuda_context_active()==0, "a small query created a CUDA context");
  {
    const char *zWhy;
    if( !h_cuda_usable(db, &zWhy) ){
      printf("test_no_context_for_small: positive control skipped: %s\n", zWhy);
    }else{
      /* Probing (gpuagg_backend, gpuagg_info) creates no context either. */
      char *z = h_text(db, "SELECT gpuagg_info()");
      free(z);
      ck_assert_msg(h_cuda_context_active()==0, "probing the device created a context");
      ck_assert_int_eq(h_exec(db, "SELECT gpuagg_config('chunk', 65536)"), SQLITE_OK);
      ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x) FROM t"), (int64_t)200000*200001/2);
      ck_assert_msg(h_cuda_context_active()==1, "a large query did not reach the GPU");
      ck_assert_int_eq(h_int(db, "SELECT json_extract(gpuagg_info(), '$.context')"), 1);
    }
  }
  sqlite3_close(db);
}
END_TEST

/* Why CUDA cannot be used, in words a user can act on: a process that
** cannot load the driver's library (no NVIDIA driver: the build machine,
** CI) is told so, not to upgrade a driver it does not have; where the
** library loads, the reason is CUDA's own (or there is none). Last: it may
** load the driver. */
START_TEST(test_unavailable_reason){
  sqlite3 *db = openDb();
  char *z = h_text(db, "SELECT json_extract(gpuagg_info(), '$.cuda_unavailable')");
  void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if( z && strstr(z, "built without CUDA") ){
    printf("test_unavailable_reason: a CPU-only build: %s\n", z);
  }else if( lib==0 ){
    ck_assert_msg(z && strncmp(z, "no NVIDIA driver found: libcuda.so.1 could not be loaded (", 58)==0,
                  "no driver here, yet the reason given is: %s", z ? z : "(none)");
  }else{
    ck_assert_msg(z==0 || strstr(z, "no NVIDIA driver")==0, "the driver loads, yet the reason given is: %s", z);
  }
  if( lib ) dlclose(lib);
  free(z);
  sqlite3_close(db);
}
END_TEST

/* ---- names: SOURCE and COLUMN as SQL writes them ------------------------------------ */

/* Every row of zSql, each cell's type and exact value; "error: ..." if it
** fails. sqlite3_free it. */
static char *render(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st = 0;
  sqlite3_str *s = sqlite3_str_new(0);
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0), i;
  while( st && (rc = sqlite3_step(st))==SQLITE_ROW ){
    for(i=0; i<sqlite3_column_count(st); i++){
      switch( sqlite3_column_type(st, i) ){
        case SQLITE_INTEGER: sqlite3_str_appendf(s, "i%lld ", sqlite3_column_int64(st, i)); break;
        case SQLITE_FLOAT:   sqlite3_str_appendf(s, "r%!.17g ", sqlite3_column_double(st, i)); break;
        case SQLITE_NULL:    sqlite3_str_appendf(s, "null "); break;
        default:             sqlite3_str_appendf(s, "t%Q ", sqlite3_column_text(st, i)); break;
      }
    }
    sqlite3_str_appendf(s, "\n");
  }
  if( rc!=SQLITE_DONE ) sqlite3_str_appendf(s, "error: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return sqlite3_str_finish(s);
}

/* zGot and zWant (SQL) give the same rows. */
static void sameRows(sqlite3 *db, const char *zGot, const char *zWant, const char *zHow){
  char *a = render(db, zGot), *b = render(db, zWant);
  ck_assert_msg(a && b && strcmp(a, b)==0 && strncmp(a, "error", 5)!=0, "%s (%s):\n  %s\ngave\n  %s\nSQL gives\n  %s",
                zGot, zHow, zGot, a ? a : "?", b ? b : "?");
  sqlite3_free(a);
  sqlite3_free(b);
}

/* The source gpu_summary last used: "pages", "statement" or "cache". */
static char *lastSource(sqlite3 *db){
  return h_text(db, "SELECT json_extract(gpuagg_info(), '$.sources.gpu_summary.source')");
}

#define STATS "rows, nulls, integers, reals, texts, blobs, min, max, sum, total, avg"
#define ALL_STATS STATS ", var_samp, var_pop, stddev_samp, stddev_pop, q25, median, q75"

/* Every function over a table, a value and a key column named each way SQL
** names them gives what SQLite's aggregates give over the table they name,
** and, where the rows are t's, what the bare names 't', 'x', 'k' give; from
** the pages, from the statement, and from the cache (found again under
** another spelling). */
START_TEST(test_names){
  static const struct {
    const char *zSrc, *zVal, *zKey;     /* the arguments */
    const char *zFrom, *zX, *zK;        /* what they name, in SQL */
    int same;                           /* t's rows */
  } a[] = {
    { "t",                     "x",         "k",          "main.t",               "x",       "k",       1 },
    { "\"my table\"",          "x",         "k",          "main.\"my table\"",    "x",       "k",       1 },
    { "[my table]",            "\"x\"",     "[k]",        "main.\"my table\"",    "x",       "k",       1 },
    { "`my table`",            "`x`",       "k",          "main.\"my table\"",    "x",       "k",       1 },
    { "main.\"my table\"",     "x",         "k",          "main.\"my table\"",    "x",       "k",       1 },
    { " \"main\" . [my table] ", " x ",     "k",          "main.\"my table\"",    "x",       "k",       1 },
    { "MAIN.[MY TABLE]",       "X",         "\"K\"",      "main.\"my table\"",    "x",       "k",       1 },
    { "my table",              "x",         "k",          "main.\"my table\"",    "x",       "k",       1 },
    { "\"t.x\"",               "x",         "k",          "main.\"t.x\"",         "x",       "k",       1 },
    { "main.\"t.x\"",          "x",         "k",          "main.\"t.x\"",         "x",       "k",       1 },
    /* As written first: main's "t.x", not table x of schema t. */
    { "t.x",                   "x",         "k",          "main.\"t.x\"",         "x",       "k",       1 },
    { "t.\"x\"",               "x",         "k",          "t.x",                  "x",       "k",       0 },
    { "[t].`x`",               "x",         "k",          "t.x",                  "x",       "k",       0 },
    { "\"a\"\"b\"",            "x",         "k",          "main.\"a\"\"b\"",      "x",       "k",       1 },
    { "`a\"b`",                "x",         "k",          "main.\"a\"\"b\"",      "x",       "k",       1 },
    { "main.[a\"b]",           "x",         "k",          "main.\"a\"\"b\"",      "x",       "k",       1 },
    { "a\"b",                  "x",         "k",          "main.\"a\"\"b\"",      "x",       "k",       1 },
    { "\"x[1]\"",              "x",         "k",          "main.\"x[1]\"",        "x",       "k",       1 },
    { "`x[1]`",                "x",         "k",          "main.\"x[1]\"",        "x",       "k",       1 },
    { "main.`x[1]`",           "x",         "k",          "main.\"x[1]\"",        "x",       "k",       1 },
    { "c",                     "col x",     "Q\"k",       "main.c",               "\"col x\"", "\"Q\"\"k\"", 1 },
    { "c",                     "\"col x\"", "\"Q\"\"k\"", "main.c",               "\"col x\"", "\"Q\"\"k\"", 1 },
    { "c",                     "[COL X]",   "`q\"K`",     "main.c",               "\"col x\"", "\"Q\"\"k\"", 1 },
    { "temp.\"my temp\"",      "x",         "k",          "temp.\"my temp\"",     "x",       "k",       1 },
    { "\"my temp\"",           "x",         "k",          "temp.\"my temp\"",     "x",       "k",       1 },
    { "TEMP.[my temp]",        "x",         "k",          "temp.\"my temp\"",     "x",       "k",       1 },
    { "aux.\"my table\"",      "x",         "k",          "aux.\"my table\"",     "x",       "k",       0 },
    { "[aux].[my table]",      "x",         "k",          "aux.\"my table\"",     "x",       "k",       0 },
    { "aux.my table",          "x",         "k",          "aux.\"my table\"",     "x",       "k",       0 },
  };
  char zDir[] = "/tmp/gpuagg-names-XXXXXX", *zErr = 0, *zGot, *zWant;
  sqlite3 *db;
  size_t i;
  int mode;
  ck_assert_msg(mkdtemp(zDir)!=0, "mkdtemp");
  zGot = sqlite3_mprintf("%s/main.db", zDir);
  db = h_open_file(zGot, &zErr);
  sqlite3_free(zGot);
  ck_assert_msg(db!=0, "open: %s", zErr ? zErr : "?");
  ck_assert_int_eq(h_exec(db, "ATTACH '%q/aux.db' AS aux; ATTACH '%q/t.db' AS t", zDir, zDir), SQLITE_OK);
  ck_assert_msg(h_exec(db, "CREATE TABLE t(x, k); " SERIES(300) "INSERT INTO t SELECT CASE WHEN value%%13=0 THEN NULL"
                           " WHEN value=50 THEN 2.5 ELSE value*7%%10 END, value%%5 FROM series;"
                           "CREATE TABLE \"my table\"(x, k); INSERT INTO \"my table\" SELECT * FROM t;"
                           "CREATE TABLE \"t.x\"(x, k); INSERT INTO \"t.x\" SELECT * FROM t;"
                           "CREATE TABLE \"a\"\"b\"(x, k); INSERT INTO \"a\"\"b\" SELECT * FROM t;"
                           "CREATE TABLE \"x[1]\"(x, k); INSERT INTO \"x[1]\" SELECT * FROM t;"
                           "CREATE TABLE c(\"col x\", \"Q\"\"k\"); INSERT INTO c SELECT * FROM t;"
                           "CREATE TEMP TABLE \"my temp\"(x, k); INSERT INTO \"my temp\" SELECT * FROM t;"
                           /* other rows where the same name is in another schema */
                           "CREATE TABLE aux.\"my table\"(x, k); INSERT INTO aux.\"my table\" SELECT 9 - x, k + 1 FROM t;"
                           "CREATE TABLE t.x(x, k); INSERT INTO t.x SELECT 8 - x, k + 2 FROM t")==SQLITE_OK,
                "%s", h_errmsg);
  /* mode 0: the statement source; 1: the pages where they serve; 2: the
  ** cache, filled by the first call, hit by the second. */
  for(mode=0; mode<3; mode++){
    ck_assert_int_eq(h_exec(db, "SELECT gpuagg_config('pages', %d), gpuagg_config('cache', %d)", mode>0,
                            mode==2 ? 1<<30 : 0), SQLITE_OK);
    for(i=0; i<sizeof(a)/sizeof(a[0]); i++){
      char zHow[200];
      snprintf(zHow, sizeof(zHow), "case %d, %s", (int)i, mode==0 ? "statement" : mode==1 ? "pages" : "cache");
      zGot = sqlite3_mprintf("SELECT " STATS " FROM gpu_summary(%Q, %Q)", a[i].zSrc, a[i].zVal);
      zWant = sqlite3_mprintf("SELECT count(*), count(*) - count(%s), count(CASE typeof(%s) WHEN 'integer' THEN 1 END),"
                              " count(CASE typeof(%s) WHEN 'real' THEN 1 END), count(CASE typeof(%s) WHEN 'text' THEN 1 END),"
                              " count(CASE typeof(%s) WHEN 'blob' THEN 1 END), min(%s), max(%s), sum(%s), total(%s), avg(%s)"
                              " FROM %s", a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX,
                              a[i].zX, a[i].zFrom);
      sameRows(db, zGot, zWant, zHow);
      if( mode==2 ){
        char *zSrc;
        sameRows(db, zGot, zWant, zHow);
        zSrc = lastSource(db);
        /* The cache keeps main's tables alone. */
        if( strncmp(a[i].zFrom, "main.", 5)==0 ){
          ck_assert_msg(zSrc && strcmp(zSrc, "cache")==0, "%s: second call served by %s", zHow, zSrc ? zSrc : "?");
        }
        free(zSrc);
      }else if( mode==1 && strncmp(a[i].zFrom, "temp.", 5)!=0 ){
        char *zSrc = lastSource(db);
        ck_assert_msg(zSrc && strcmp(zSrc, "pages")==0, "%s: served by %s", zHow, zSrc ? zSrc : "?");
        free(zSrc);
      }
      sqlite3_free(zGot);
      sqlite3_free(zWant);
      zGot = sqlite3_mprintf("SELECT key, rows, count, sum, total, avg, min, max FROM gpu_group_by(%Q, %Q, %Q)",
                             a[i].zSrc, a[i].zKey, a[i].zVal);
      zWant = sqlite3_mprintf("SELECT %s, count(*), count(%s), sum(%s), total(%s), avg(%s), min(%s), max(%s) FROM %s"
                              " GROUP BY 1 ORDER BY 1", a[i].zK, a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX, a[i].zX,
                              a[i].zFrom);
      sameRows(db, zGot, zWant, zHow);
      sqlite3_free(zGot);
      sqlite3_free(zWant);
      /* Ten bins of width 1 over [0, 10]: bin b counts b <= x < b+1. */
      zGot = sqlite3_mprintf("SELECT bin, lo, hi, count FROM gpu_histogram(%Q, %Q, 10, 0, 10)", a[i].zSrc, a[i].zVal);
      zWant = sqlite3_mprintf(SERIES(10) "SELECT value - 1, CAST(value - 1 AS REAL), CAST(value AS REAL),"
                              " (SELECT count(*) FROM %s WHERE typeof(%s) IN ('integer', 'real') AND %s>=value - 1"
                              " AND %s<value) FROM series", a[i].zFrom, a[i].zX, a[i].zX, a[i].zX);
      sameRows(db, zGot, zWant, zHow);
      sqlite3_free(zGot);
      sqlite3_free(zWant);
      if( a[i].same ){
        /* Every statistic, of the named column and of the whole table. */
        zGot = sqlite3_mprintf("SELECT " ALL_STATS " FROM gpu_summary(%Q, %Q)", a[i].zSrc, a[i].zVal);
        sameRows(db, zGot, "SELECT " ALL_STATS " FROM gpu_summary('t', 'x')", zHow);
        sqlite3_free(zGot);
        zGot = sqlite3_mprintf("SELECT " ALL_STATS " FROM gpu_summary(%Q)", a[i].zSrc);
        sameRows(db, zGot, "SELECT " ALL_STATS " FROM gpu_summary('t')", zHow);
        sqlite3_free(zGot);
      }
    }
  }
  /* The cache keys what it keeps by the table as SQLite spells it, however
  ** the calls spelled it: one entry a column. */
  expectText(db, "SELECT group_concat(table_name || '.' || column_name, ',') FROM (SELECT table_name, column_name"
                 " FROM gpuagg_cache() WHERE schema='main' AND table_name LIKE 'my table' ORDER BY 2)",
             "my table.k,my table.x");
  sqlite3_close(db);
  zGot = sqlite3_mprintf("rm -rf '%q'", zDir);
  ck_assert_int_eq(system(zGot), 0);
  sqlite3_free(zGot);
}
END_TEST

/* Arguments that are not names, or name nothing: the error says where it
** looked and what to do instead. */
START_TEST(test_name_errors){
  static const struct { const char *zSql, *zErr; } a[] = {
    { "SELECT * FROM gpu_summary('\"my table')",
      "gpu_summary: no such table: \"my table (not a name: the \" at byte 0 is not closed, and no table has that exact"
      " name in temp, main and aux)" },
    { "SELECT * FROM gpu_summary('(SELECT x FROM t)')",
      "gpu_summary: no such table: (SELECT x FROM t) (not a name: unexpected '(' at byte 0, and no table has that exact"
      " name in temp, main and aux); a subquery is not a table: create a view or a temp table of it and pass its name" },
    { "SELECT * FROM gpu_histogram('select x from t where x>0', 'x', 4)",
      "a subquery is not a table: create a view or a temp table of it and pass its name" },
    { "SELECT * FROM gpu_summary('t', 'qty*price')",
      "gpu_summary: no such column: qty*price in t (not a name: unexpected '*' at byte 3, and table \"t\" of main has no"
      " column of that exact name); an expression or a filter is not a column: create a view that selects it AS a"
      " name (and filters in its WHERE), and pass the view and that name" },
    { "SELECT * FROM gpu_histogram('t', 'x > 0', 4)",
      "gpu_histogram: no such column: x > 0 in t (not a name: unexpected '>' at byte 2, and table \"t\" of main has no"
      " column of that exact name); an expression or a filter is not a column" },
    { "SELECT * FROM gpu_summary('t WHERE x > 0')",
      "gpu_summary: no such table: t WHERE x > 0 (not a name: unexpected 'W' at byte 2, and no table has that exact"
      " name in temp, main and aux); an expression or a filter is not a table: create a view or a temp table with the"
      " rows you want and pass its name" },
    { "SELECT * FROM gpu_group_by('t', 'region, product', 'x')",
      "gpu_group_by: no such column: region, product in t (not a name: unexpected ',' at byte 6, and table \"t\" of main"
      " has no column of that exact name); a list is not a column: the function takes one column (for a key of several"
      " columns, create a view with one column that combines them, and pass the view and that column)" },
    { "SELECT * FROM gpu_group_by('t, u', 'k', 'x')",
      "gpu_group_by: no such table: t, u (not a name: unexpected ',' at byte 1, and no table has that exact name in temp,"
      " main and aux); a list is not a table: the function reads one table (create a view that joins them and pass its"
      " name)" },
    { "SELECT * FROM gpu_summary('t', 'x, k')", "a list is not a column" },
    { "SELECT * FROM gpu_summary('nosuch.t')",
      "gpu_summary: no such table: nosuch.t (no schema \"nosuch\"; the schemas are temp, main and aux)" },
    { "SELECT * FROM gpu_summary('\"no such\".[t]')",
      "gpu_summary: no such table: \"no such\".[t] (no schema \"no such\"; the schemas are temp, main and aux)" },
    { "SELECT * FROM gpu_summary('\"my table\"')",
      "gpu_summary: no such table: \"my table\" (looked for table \"my table\" in temp, main and aux)" },
    { "SELECT * FROM gpu_summary('AUX.\"a\"\"b\"')",
      "gpu_summary: no such table: AUX.\"a\"\"b\" (looked for table \"a\"\"b\" in aux)" },
    { "SELECT * FROM gpu_summary('nope')", "gpu_summary: no such table: nope (looked for table \"nope\" in temp, main and aux)" },
    { "SELECT * FROM gpu_summary('[a]]b]')",
      "gpu_summary: no such table: [a]]b] (not a name: unexpected ']' at byte 3, and no table has that exact name in"
      " temp, main and aux); quote a name with spaces, dots or other characters: \"my table\", [my table] or"
      " main.\"t.x\"" },
    { "SELECT * FROM gpu_summary('main.t.x')", "(not a name: unexpected '.' at byte 6," },
    { "SELECT * FROM gpu_summary('main.')", "(not a name: no name after the '.' at byte 4," },
    { "SELECT * FROM gpu_summary(' ')", "gpu_summary: no such table:   (not a name: it is empty," },
    { "SELECT * FROM gpu_summary('`t')", "(not a name: the ` at byte 0 is not closed," },
    { "SELECT * FROM gpu_summary('[t')", "(not a name: the [ at byte 0 is not closed," },
    { "SELECT * FROM gpu_summary('t', 't.x')",
      "gpu_summary: no such column: t.x in t (a column is named alone, without its table: \"x\")" },
    { "SELECT * FROM gpu_summary('t', '\"nope\"')",
      "gpu_summary: no such column: \"nope\" in t (looked for column \"nope\" in table \"t\" of main)" },
    { "SELECT * FROM gpu_summary('aux.u', 'nope')",
      "gpu_summary: no such column: nope in aux.u (looked for column \"nope\" in table \"u\" of aux)" },
    { "SELECT * FROM gpu_summary('t', '\"x')", "(not a name: the \" at byte 0 is not closed, and table \"t\" of main" },
    /* A NUL byte ends the name SQLite would read: not taken as 't'. */
    { "SELECT * FROM gpu_summary('t' || char(0) || 'x')", "gpu_summary: source and column must be names" },
    { "SELECT * FROM gpu_histogram('t', 'x' || char(0), 4)", "gpu_histogram: source and column must be names" },
    { "SELECT * FROM gpu_group_by('t', 'k', 'x' || char(0) || 'y')", "gpu_group_by: source, key and value must be names" },
  };
  sqlite3 *db = openDb();
  size_t i;
  ck_assert_int_eq(h_exec(db, "CREATE TABLE t(x, k); INSERT INTO t VALUES(1, 2); CREATE TEMP TABLE tt(y);"
                              "ATTACH ':memory:' AS aux; CREATE TABLE aux.u(y)"), SQLITE_OK);
  for(i=0; i<sizeof(a)/sizeof(a[0]); i++) expectError(db, a[i].zSql, a[i].zErr);
  /* Quoted names are values, never SQL: these name no table, change nothing. */
  expectError(db, "SELECT * FROM gpu_summary('t\"; DROP TABLE t; --')", "no such table");
  expectError(db, "SELECT * FROM gpu_summary('\"t\"\"; DROP TABLE t; --\"')",
              "(looked for table \"t\"\"; DROP TABLE t; --\" in temp, main and aux)");
  expectError(db, "SELECT * FROM gpu_summary('[t]; DROP TABLE t; --')", "no such table");
  expectError(db, "SELECT * FROM gpu_summary('t', '[x]); DROP TABLE t; --')", "no such column");
  ck_assert_int_eq(h_int(db, "SELECT count(*) FROM t"), 1);
  sqlite3_close(db);
}
END_TEST

int main(void){
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("api");
  SRunner *sr;
  int nFail;
  h_seed_init();
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_registered);
  tcase_add_test(tc, test_wrong_arguments);
  tcase_add_test(tc, test_settings);
  tcase_add_test(tc, test_info_json);
  tcase_add_test(tc, test_environment);
  tcase_add_test(tc, test_two_connections);
  tcase_add_test(tc, test_load_again);
  tcase_add_test(tc, test_cuda_forced);
  tcase_add_test(tc, test_cycles);
  tcase_add_test(tc, test_bad_input);
  tcase_add_test(tc, test_fuzz_args);
  tcase_add_test(tc, test_no_context_for_small);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_name_errors);
  tcase_add_test(tc, test_unavailable_reason);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nFail ? 1 : 0;
}
