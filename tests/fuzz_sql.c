/*
** libFuzzer target: SQL built from the pieces users get wrong — every
** function and table-valued function with every kind of argument (NULL, TEXT, BLOB,
** huge blobs, ±Inf, int64 limits, names with quotes, dots and semicolons,
** 0, negative and huge bin counts), settings changed in between — run
** against a connection with the module registered (CPU backend: the module's
** C sources are compiled into this program with ASan and UBSan). Errors are
** fine; a crash, a sanitizer report or a leak is a finding.
**
**   make fuzz FUZZ_SECONDS=300    (clang; corpus in tests/fuzz-corpus)
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

int sqlite3_gpuagg_init(sqlite3*, char**, const sqlite3_api_routines*);

static const char *azFunc[] = {
  "gpu_sum", "gpu_total", "gpu_avg", "gpu_count", "gpu_min", "gpu_max", "gpu_argmin", "gpu_argmax",
  "gpuagg_config", "gpuagg_backend", "gpuagg_info", "gpuagg_colsrc",
};
static const char *azArg[] = {
  "NULL", "0", "-1", "1", "2", "2.5", "'text'", "x''", "x'00ff'", "9223372036854775807",
  "-9223372036854775808", "1e308", "-1e308", "1e999", "-1e999", "'t'", "'x'", "'k'", "'main.t'", "'a.b'",
  "'t\"; DROP TABLE t; --'", "'x\"'", "';'", "'.'", "''", "zeroblob(1000000)", "randomblob(64)",
  "16777216", "16777217", "65536", "4096", "'chunk'", "'threshold'", "'resident'", "'cuda'", "'cpu'",
  "'auto'", "x", "k", "s", "-0.0", "4.9e-324", "'12'", "'odd \"name\"; t'", "'col x'", "(SELECT max(x) FROM t)",
};
static const char *azShape[] = {
  "SELECT %s FROM t",
  "SELECT k %% 3, %s FROM t GROUP BY 1",
  "SELECT * FROM gpu_histogram(%s)",
  "SELECT %s",
  "SELECT %s FROM t WHERE k < 3",
  "SELECT * FROM gpu_group_by(%s)",        /* last: the corpus keeps its meaning */
  "SELECT * FROM gpu_summary(%s)",
};

static sqlite3 *db;

static int stopLong(void *p){
  int *n = (int*)p;
  return ++*n > 2000;              /* ~2M VM steps */
}

static void setUp(void){
  sqlite3_auto_extension((void(*)(void))sqlite3_gpuagg_init);
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db,
    "CREATE TABLE t(k INTEGER, x, s);"
    "WITH RECURSIVE n(i) AS (VALUES(0) UNION ALL SELECT i+1 FROM n WHERE i<3000)"
    " INSERT INTO t SELECT i, CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN 'str' WHEN 2 THEN x'0102'"
    "  WHEN 3 THEN 9223372036854775807 WHEN 4 THEN -9223372036854775808 WHEN 5 THEN 1e308"
    "  WHEN 6 THEN i * 0.5 ELSE i END, 'v' || i FROM n;"
    "CREATE TABLE \"odd \"\"name\"\"; t\"(\"col x\"); INSERT INTO \"odd \"\"name\"\"; t\" SELECT x FROM t;"
    "ATTACH ':memory:' AS a; CREATE TABLE a.b(x); INSERT INTO a.b SELECT k FROM t;", 0, 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  sqlite3_str *q;
  char *zSql, *zArgs;
  size_t i = 0;
  int nArg, a, nStep = 0;
  if( db==0 ) setUp();
  if( size<2 ) return 0;
  /* Settings back to small chunks, a low threshold: many flushes. */
  sqlite3_exec(db, "SELECT gpuagg_backend('auto'), gpuagg_config('chunk', 512), gpuagg_config('threshold', 64),"
                   " gpuagg_config('resident', 1000000)", 0, 0, 0);
  while( i + 2 <= size ){
    int shape = data[i] % (sizeof(azShape)/sizeof(azShape[0]));
    int fn = data[i+1] % (sizeof(azFunc)/sizeof(azFunc[0]));
    sqlite3_str *args = sqlite3_str_new(db);
    i += 2;
    nArg = i<size ? data[i++] % 7 : 1;
    for(a=0; a<nArg && i<size; a++, i++){
      sqlite3_str_appendf(args, "%s%s", a ? ", " : "", azArg[data[i] % (sizeof(azArg)/sizeof(azArg[0]))]);
    }
    zArgs = sqlite3_str_finish(args);
    q = sqlite3_str_new(db);
    if( strstr(azShape[shape], "FROM gpu_") ) sqlite3_str_appendf(q, azShape[shape], zArgs ? zArgs : "");
    else{
      char *zCall = sqlite3_mprintf("%s(%s)", azFunc[fn], zArgs ? zArgs : "");
      sqlite3_str_appendf(q, azShape[shape], zCall);
      sqlite3_free(zCall);
    }
    sqlite3_free(zArgs);
    zSql = sqlite3_str_finish(q);
    nStep = 0;
    sqlite3_progress_handler(db, 1000, stopLong, &nStep);
    sqlite3_exec(db, zSql, 0, 0, 0);
    sqlite3_progress_handler(db, 0, 0, 0);
    sqlite3_free(zSql);
  }
  return 0;
}
