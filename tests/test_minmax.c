/*
** Differential tests of gpu_min, gpu_max, gpu_argmin and gpu_argmax: against
** the builtins min() and max(), and, for the argument functions, against
** the reference query
**   SELECT a FROM t WHERE v IS NOT NULL ORDER BY v DESC, rowid LIMIT 1
** (ASC for argmin), on seeded random and adversarial data. Results must be
** identical: same type, same integer, same double bits, same bytes.
** Both backends, as suite.h says. GPUAGG_SEED=N repeats a run.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

enum {
  V_INT,            /* any int64 */
  V_REAL,           /* reals of any exponent, a few ±Inf */
  V_TIES,           /* few distinct values as INTEGER and as REAL, signed zeros */
  V_2P53,           /* integers and reals straddling 2^53 */
  V_MIXED,          /* numbers with TEXT, BLOB and NULL among them */
  V_TEXT,           /* TEXT and BLOB only, prefixes and empties */
  V_NULL_HEAVY,     /* 95% NULL */
  NPROFILE
};
static const char *azProfile[] = { "int", "real", "ties", "2^53", "mixed", "text", "null_heavy" };

static void bindV(h_rng *r, sqlite3_stmt *st, int col, int profile){
  static const char *azText[] = { "", "a", "ab", "abc", "b", "B", "\xc3\xa9", "a\x01" };
  static const char *azBlob[] = { "", "\x00", "\x00\x00", "\x01", "\xff", "a" };
  static const int anBlob[] = { 0, 1, 2, 1, 1, 1 };
  uint64_t k = h_next(r) % 100;
  int64_t two53 = (int64_t)1 << 53;
  switch( profile ){
    case V_INT:
      sqlite3_bind_int64(st, col, k<50 ? h_range(r, -1000000, 1000000) : (int64_t)h_next(r));
      return;
    case V_REAL:
      if( k==0 ) sqlite3_bind_double(st, col, h_next(r)%2 ? INFINITY : -INFINITY);
      else sqlite3_bind_double(st, col, (k%2 ? 1 : -1)*ldexp(1.0 + h_unit(r), (int)h_range(r, -1074, 1023)));
      return;
    case V_TIES: {
      int64_t x = h_range(r, -2, 2);
      if( k<40 ) sqlite3_bind_int64(st, col, x);
      else if( k<80 ) sqlite3_bind_double(st, col, (double)x);
      else if( k<90 ) sqlite3_bind_double(st, col, -0.0);
      else sqlite3_bind_double(st, col, 0.0);
      return;
    }
    case V_2P53:
      if( k<50 ) sqlite3_bind_int64(st, col, (k%2 ? 1 : -1)*(two53 + h_range(r, -3, 3)));
      else sqlite3_bind_double(st, col, (k%2 ? 1 : -1)*(double)(two53 + 2*h_range(r, -2, 2)));
      return;
    case V_MIXED:
      if( k<5 ) sqlite3_bind_text(st, col, azText[h_next(r)%8], -1, SQLITE_STATIC);
      else if( k<8 ){ int i = (int)(h_next(r)%6); sqlite3_bind_blob(st, col, azBlob[i], anBlob[i], SQLITE_STATIC); }
      else if( k<15 ) sqlite3_bind_null(st, col);
      else if( k<55 ) sqlite3_bind_int64(st, col, h_range(r, -1000, 1000));
      else sqlite3_bind_double(st, col, (h_unit(r) - 0.5)*2000.0);
      return;
    case V_TEXT:
      if( k<60 ) sqlite3_bind_text(st, col, azText[h_next(r)%8], -1, SQLITE_STATIC);
      else { int i = (int)(h_next(r)%6); sqlite3_bind_blob(st, col, azBlob[i], anBlob[i], SQLITE_STATIC); }
      return;
    case V_NULL_HEAVY:
      if( k<95 ) sqlite3_bind_null(st, col);
      else sqlite3_bind_int64(st, col, h_range(r, -5, 5));
      return;
  }
}

/* A of row `row`: every type, identifying the row (NULL every fifth). */
static void bindA(sqlite3_stmt *st, int col, int64_t row){
  char z[32];
  switch( row%5 ){
    case 0: sqlite3_bind_int64(st, col, row); break;
    case 1: sqlite3_bind_double(st, col, row + 0.5); break;
    case 2: snprintf(z, sizeof(z), "r%lld", (long long)row); sqlite3_bind_text(st, col, z, -1, SQLITE_TRANSIENT); break;
    case 3: sqlite3_bind_blob(st, col, &row, sizeof(row), SQLITE_TRANSIENT); break;
    default: sqlite3_bind_null(st, col); break;
  }
}

/* Table t(g, a, v): n rows of a profile, g = row % nGroup. */
static void fill(sqlite3 *db, int profile, int64_t n, int nGroup, uint64_t seed){
  sqlite3_stmt *st;
  h_rng r;
  int64_t i;
  h_rng_init(&r, seed);
  EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(g INTEGER, a, v); BEGIN");
  ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2, ?3)", -1, &st, 0), SQLITE_OK);
  for(i=1; i<=n; i++){
    sqlite3_bind_int64(st, 1, nGroup ? i % nGroup : 0);
    bindA(st, 2, i);
    bindV(&r, st, 3, profile);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");
}

/* Every function over "t WHERE <zWhere>" against its reference. */
static void checkAll(sqlite3 *db, const char *zWhere, const char *zWhat, int withArg){
  static const char *azCol[] = { "gpu_max", "gpu_min", "gpu_argmax", "gpu_argmin" };
  sqlite3_stmt *st;
  int i, n = withArg ? 4 : 2;
  char *zSql = withArg ? sqlite3_mprintf(
      "SELECT gpu_max(v), max(v), gpu_min(v), min(v),"
      " gpu_argmax(a, v), (SELECT a FROM t WHERE v IS NOT NULL AND (%s) ORDER BY v DESC, rowid LIMIT 1),"
      " gpu_argmin(a, v), (SELECT a FROM t WHERE v IS NOT NULL AND (%s) ORDER BY v ASC, rowid LIMIT 1)"
      " FROM t WHERE %s", zWhere, zWhere, zWhere)
    : sqlite3_mprintf("SELECT gpu_max(v), max(v), gpu_min(v), min(v) FROM t WHERE %s", zWhere);
  CHECK(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s: %s", zSql, sqlite3_errmsg(db));
  CHECK(sqlite3_step(st)==SQLITE_ROW, "%s: %s", zWhat, sqlite3_errmsg(db));
  for(i=0; i<n; i++){
    CHECK(s_same_cell(st, 2*i, 2*i+1), "%s: %s gives %s %s, the reference %s %s", zWhat, azCol[i],
          sqlite3_column_type(st, 2*i)==SQLITE_NULL ? "NULL" : (const char*)sqlite3_column_text(st, 2*i),
          sqlite3_column_type(st, 2*i)==SQLITE_FLOAT ? "(real)" : "",
          sqlite3_column_type(st, 2*i+1)==SQLITE_NULL ? "NULL" : (const char*)sqlite3_column_text(st, 2*i+1),
          sqlite3_column_type(st, 2*i+1)==SQLITE_FLOAT ? "(real)" : "");
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
}

/* ---- tests ------------------------------------------------------------------ */

/* Every profile at every size around the threshold and chunk boundaries. */
START_TEST(test_profiles_boundaries){
  const int C = 257, T = 100;
  const int64_t sizes[] = { 0, 1, 2, T-1, T, T+1, T+C-1, T+C, T+C+1, T+2*C, T+7*C+3 };
  sqlite3 *db = s_open(C, T);
  int p;
  size_t i;
  for(p=0; p<NPROFILE; p++){
    for(i=0; i<sizeof(sizes)/sizeof(sizes[0]); i++){
      char zWhat[64];
      snprintf(zWhat, sizeof(zWhat), "%s n=%lld", azProfile[p], (long long)sizes[i]);
      fill(db, p, sizes[i], 0, h_seed + 100*p + i);
      checkAll(db, "1", zWhat, 1);
    }
  }
  s_expect_device(db, "profiles");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* The extreme in the first, a middle, the last and the partial chunk, tied
** later by the other type and in a later chunk: the first occurrence wins. */
START_TEST(test_placement){
  const int C = 1000;
  const int64_t n = 10*C + 123;
  const int64_t at[] = { 1, 6, 4500, 9990, n-2 };
  sqlite3 *db = s_open(C, 0);
  size_t i;
  fill(db, V_INT, n, 0, h_seed ^ 0x91);
  EXEC(db, "UPDATE t SET v = v %% 1000000");
  for(i=0; i<sizeof(at)/sizeof(at[0]); i++){
    char zWhat[64];
    int64_t later = at[i] + 2 + (int64_t)(h_seed % 7)*C;   /* (never at[i] + 1, the other extreme's row) */
    if( later>n ) later = n;
    EXEC(db, "UPDATE t SET v = CASE WHEN rowid=%lld THEN 2000000 WHEN rowid=%lld THEN 2000000.0"
             " WHEN rowid=%lld+1 THEN -2000000.0 WHEN rowid=%lld THEN -2000000 ELSE v %% 1000000 END",
         (long long)at[i], (long long)later, (long long)at[i], (long long)later);
    snprintf(zWhat, sizeof(zWhat), "extreme at row %lld, tie at %lld", (long long)at[i], (long long)later);
    checkAll(db, "1", zWhat, 1);
    CHECK(h_int(db, "SELECT gpu_argmax(rowid, v) FROM t")==at[i], "%s: argmax is not the first", zWhat);
    CHECK(h_int(db, "SELECT typeof(gpu_max(v))='integer' FROM t")==1, "%s: max lost its type", zWhat);
  }
  s_expect_device(db, "placement");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* The default chunk (1M) and threshold (64K): prefixes of one table. */
START_TEST(test_default_boundaries){
  const int64_t C = 1<<20, T = 65536;
  const int64_t at[] = { T-1, T+1, T+C-1, T+C, T+C+1, T+2*C+1 };
  sqlite3 *db = s_open((int)C, T);
  size_t j;
  int p;
  for(p=0; p<2; p++){
    fill(db, p==0 ? V_INT : V_TIES, T+2*C+1, 0, h_seed + 5 + p);
    for(j=0; j<sizeof(at)/sizeof(at[0]); j++){
      char zWhere[64], zWhat[64];
      snprintf(zWhere, sizeof(zWhere), "rowid<=%lld", (long long)at[j]);
      snprintf(zWhat, sizeof(zWhat), "default chunk, %s, %lld rows", azProfile[p==0 ? V_INT : V_TIES], (long long)at[j]);
      checkAll(db, zWhere, zWhat, j%2==0);
    }
  }
  s_expect_device(db, "default boundaries");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* GROUP BY with 5,000 groups, some long enough to pipeline; every function
** against the builtins and a window-function reference. */
START_TEST(test_group_by){
  const int nGroup = 5000;
  sqlite3 *db = s_open(97, 50);
  sqlite3_stmt *st;
  int p, seen, want;
  for(p=0; p<NPROFILE; p++){
    fill(db, p, 40000 + (p==V_MIXED ? 200000 : 0), nGroup, h_seed ^ (0x77 + p));
    EXEC(db, "UPDATE t SET g = 7 WHERE rowid %% 20 = 0");   /* one long group */
    want = (int)h_int(db, "SELECT count(DISTINCT g) FROM t");
    ck_assert_int_eq(sqlite3_prepare_v2(db,
        "WITH hi AS (SELECT g, a FROM (SELECT g, a, row_number() OVER (PARTITION BY g ORDER BY v DESC, rowid) rn"
        "            FROM t WHERE v IS NOT NULL) WHERE rn=1),"
        "     lo AS (SELECT g, a FROM (SELECT g, a, row_number() OVER (PARTITION BY g ORDER BY v ASC, rowid) rn"
        "            FROM t WHERE v IS NOT NULL) WHERE rn=1),"
        "     x AS (SELECT g, gpu_max(v) m1, max(v) m2, gpu_min(v) n1, min(v) n2,"
        "            gpu_argmax(a, v) am, gpu_argmin(a, v) an FROM t GROUP BY g)"
        " SELECT x.g, m1, m2, n1, n2, am, hi.a, an, lo.a FROM x LEFT JOIN hi USING(g) LEFT JOIN lo USING(g)",
        -1, &st, 0), SQLITE_OK);
    seen = 0;
    while( sqlite3_step(st)==SQLITE_ROW ){
      long long g = sqlite3_column_int64(st, 0);
      seen++;
      CHECK(s_same_cell(st, 1, 2), "%s group %lld: gpu_max", azProfile[p], g);
      CHECK(s_same_cell(st, 3, 4), "%s group %lld: gpu_min", azProfile[p], g);
      CHECK(s_same_cell(st, 5, 6), "%s group %lld: gpu_argmax", azProfile[p], g);
      CHECK(s_same_cell(st, 7, 8), "%s group %lld: gpu_argmin", azProfile[p], g);
    }
    CHECK(sqlite3_errcode(db)==SQLITE_DONE || sqlite3_errcode(db)==SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    CHECK(seen==want, "%s: %d groups, want %d", azProfile[p], seen, want);
  }
  s_expect_device(db, "group by");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Large A values: 3,000 rows of 100 KB TEXT (300 MB, were a whole chunk's A
** kept) and one 40 MB BLOB. The answers are the reference's (computed from
** the row ids, so the reference itself is cheap), and the query's peak
** memory stays far below one chunk's worth of A: a chunk whose A bytes reach
** the arena bound is handed over early, and the arena that the 40 MB value
** grew is cut back once its chunk is folded. */
START_TEST(test_big_arguments){
  sqlite3 *db = s_open(4096, 0);
  int64_t before, peak;
  int exactPeak;
  h_rng r;
  h_rng_init(&r, h_seed ^ 0xb16);
  EXEC(db, "CREATE TABLE t(g, x)");
  {
    sqlite3_stmt *st;
    int k;
    EXEC(db, "BEGIN");
    ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2)", -1, &st, 0), SQLITE_OK);
    for(k=0; k<3000; k++){
      int64_t x = h_range(&r, 0, 50);                    /* many ties */
      sqlite3_bind_int64(st, 1, k%3);
      if( k%11==0 ) sqlite3_bind_null(st, 2);
      else if( k%2 ) sqlite3_bind_double(st, 2, (double)x);
      else sqlite3_bind_int64(st, 2, x);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    EXEC(db, "COMMIT");
  }
  /* A: the row id, then 100,000 zeros; w: the same with one 40 MB BLOB at
  ** the greatest x. */
  EXEC(db, "CREATE VIEW v AS SELECT rowid AS id, g, x, printf('%%d:', rowid) || hex(zeroblob(50000)) AS a FROM t;"
           "CREATE VIEW w AS SELECT id, g, CASE id WHEN 1500 THEN 1000 ELSE x END AS x,"
           " CASE id WHEN 1500 THEN zeroblob(40000000) ELSE a END AS a FROM v");
#define A_OF(zBest) "(SELECT a FROM v WHERE id = (" zBest "))"
  /* Measured once the CUDA context and the pool's slots exist: a sum of
  ** more than a chunk (it leaves no A arena behind). */
  CHECK(h_int(db, "SELECT gpu_sum(a.x) = sum(a.x) FROM t a, t b WHERE b.rowid<=3")==1, "gpu_sum");
  exactPeak = h_peak_reset()==0;
  before = exactPeak ? h_rss_bytes() : h_peak_bytes();
  CHECK(h_int(db, "SELECT gpu_argmin(a, x) IS " A_OF("SELECT rowid FROM t WHERE x IS NOT NULL ORDER BY x, rowid LIMIT 1")
                  " FROM v")==1, "gpu_argmin over 100 KB values");
  peak = h_peak_bytes();
  printf("test_big_arguments (%s): gpu_argmin over 300 MB of A values peaked %lld MiB above its start%s\n", g_backend,
         (long long)((peak - before) >> 20), exactPeak ? "" : " (the process's peak: it cannot be reset here)");
  if( !getenv("GPUAGG_UNDER_VALGRIND") ){
    CHECK(peak - before < ((int64_t)128 << 20), "gpu_argmin over 300 MB of A values peaked %lld MiB above its start",
          (long long)((peak - before) >> 20));
  }
  CHECK(h_int(db, "SELECT gpu_argmax(a, x) IS " A_OF("SELECT rowid FROM t WHERE x IS NOT NULL ORDER BY x DESC, rowid LIMIT 1")
                  " FROM v")==1, "gpu_argmax over 100 KB values");
  CHECK(h_int(db, "SELECT count(*) FROM (SELECT g, gpu_argmin(a, x) lo, gpu_argmax(a, x) hi FROM v GROUP BY g) q"
                  " WHERE lo IS " A_OF("SELECT rowid FROM t WHERE t.g = q.g AND x IS NOT NULL ORDER BY x, rowid LIMIT 1")
                  " AND hi IS " A_OF("SELECT rowid FROM t WHERE t.g = q.g AND x IS NOT NULL ORDER BY x DESC, rowid LIMIT 1"))==3,
        "GROUP BY over 100 KB values");
  CHECK(h_int(db, "SELECT gpu_argmax(a, x) = zeroblob(40000000) FROM w")==1, "gpu_argmax: the 40 MB BLOB");
  CHECK(h_int(db, "SELECT gpu_argmin(a, x) IS " A_OF("SELECT rowid FROM t WHERE x IS NOT NULL AND rowid<>1500 ORDER BY x, rowid LIMIT 1")
                  " FROM w")==1, "gpu_argmin past the 40 MB BLOB");
#undef A_OF
  s_expect_device(db, "big arguments");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Fixed cases with known answers, each in the builtin's words too. */
START_TEST(test_cases){
  static const struct { const char *zVals; const char *zMax; const char *zMin; } aCase[] = {
    { "[1, 1.0]", "integer 1", "integer 1" },
    { "[1.0, 1]", "real 1.0", "real 1.0" },
    { "[9007199254740993, 9007199254740992.0]", "integer 9007199254740993", "real 9.00719925474099e+15" },
    { "[9007199254740992.0, 9007199254740993]", "integer 9007199254740993", "real 9.00719925474099e+15" },
    { "[-9223372036854775808, -9.3e18]", "integer -9223372036854775808", "real -9.3e+18" },
    { "[9223372036854775807, 9.3e18]", "real 9.3e+18", "integer 9223372036854775807" },
    { "[null, null]", "null ", "null " },
    { "[1e999, -1e999, 0]", "real Inf", "real -Inf" },
    { "[\"b\", \"a\", 5]", "text b", "integer 5" },
    { "[]", "null ", "null " },
  };
  sqlite3 *db;
  size_t i;
  int chunk;
  for(chunk=1; chunk<=3; chunk+=2){
    db = s_open(chunk, 0);
    for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++){
      char *zMax, *zMin;
      EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(a, v);"
               "INSERT INTO t SELECT key, value FROM json_each('%s')", aCase[i].zVals);
      zMax = h_text(db, "SELECT typeof(gpu_max(v))||' '||coalesce(gpu_max(v),'') FROM t");
      zMin = h_text(db, "SELECT typeof(gpu_min(v))||' '||coalesce(gpu_min(v),'') FROM t");
      CHECK(zMax && strcmp(zMax, aCase[i].zMax)==0, "chunk %d, %s: gpu_max = %s, want %s", chunk, aCase[i].zVals, zMax, aCase[i].zMax);
      CHECK(zMin && strcmp(zMin, aCase[i].zMin)==0, "chunk %d, %s: gpu_min = %s, want %s", chunk, aCase[i].zVals, zMin, aCase[i].zMin);
      free(zMax); free(zMin);
      checkAll(db, "1", aCase[i].zVals, 1);
    }
    /* Signed zeros keep their sign and the first one wins. */
    EXEC(db, "DROP TABLE t; CREATE TABLE t(a, v); INSERT INTO t VALUES(1, -0.0), (2, 0.0), (3, -0.0)");
    CHECK(h_int(db, "SELECT gpu_argmax(a, v)*10 + gpu_argmin(a, v) FROM t")==11, "signed zeros");
    checkAll(db, "1", "signed zeros", 1);
    sqlite3_close(db);
  }
}
END_TEST

static Suite *minmaxSuite(void){
  Suite *s = suite_create("minmax");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_cases);
  tcase_add_test(tc, test_profiles_boundaries);
  tcase_add_test(tc, test_placement);
  tcase_add_test(tc, test_default_boundaries);
  tcase_add_test(tc, test_group_by);
  tcase_add_test(tc, test_big_arguments);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(minmaxSuite);
}
