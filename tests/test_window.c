/*
** The window forms of gpu_sum, gpu_total, gpu_avg, gpu_count, gpu_min,
** gpu_max, gpu_argmin and gpu_argmax, on seeded random data, over every frame
** type (ROWS, RANGE, GROUPS, EXCLUDE, PARTITION BY, whole partitions).
**
** Both backends, as suite.h says; GPUAGG_SEED=N repeats a run. For each row
** of each window, in the same statement:
**   - sums against an exact reference over the frame's rows, which SQLite
**     itself names (group_concat(i) over the same window): gpu_total the
**     correctly rounded exact total bit for bit, gpu_avg that over the
**     count, gpu_sum NULL / INTEGER / REAL by the frame's values (not where
**     int64 limits make the INTEGER total overflow: an error for the query);
**   - gpu_count, gpu_min and gpu_max against count, min and max (same type,
**     same value; the data has no INTEGER equal to a REAL, so ties cannot
**     differ in type);
**   - gpu_argmin(i, v) and gpu_argmax(a, v), v unique: the row whose v is
**     min(v) / max(v) over the window, and that row's a, exactly.
** Thresholds 0, 5 and the default put pipelines (and the device, on the
** CUDA pass) before the first result where frames start ahead of it. Then
** the ends of the double range, and long windows (GPUAGG_TEST_WINDOW_ROWS).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

/* 1,000 rows: 15 chunks of 64, and every frame type; the whole-partition
** frames cost rows squared (group_concat and the exact reference). */
#define NROW 1000

static const char *azFrame[] = {
  "ORDER BY o ROWS BETWEEN 3 PRECEDING AND CURRENT ROW",
  "ORDER BY o, i ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING",
  "ORDER BY o ROWS BETWEEN 2 FOLLOWING AND 6 FOLLOWING",
  "ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
  "ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
  "ORDER BY o ROWS BETWEEN 40 PRECEDING AND 30 FOLLOWING",
  "ORDER BY o RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
  "ORDER BY o RANGE BETWEEN CURRENT ROW AND CURRENT ROW",
  "ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
  "ORDER BY o ROWS BETWEEN 4 PRECEDING AND 4 FOLLOWING EXCLUDE CURRENT ROW",
  "ORDER BY o RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING EXCLUDE GROUP",
  "ORDER BY o GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE TIES",
  "PARTITION BY p ORDER BY o ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING",
  "PARTITION BY p ORDER BY o",
  "PARTITION BY p",
  "",
};
#define NFRAME ((int)(sizeof(azFrame)/sizeof(azFrame[0])))

enum { D_INT, D_EDGE, D_REAL, D_INF, D_MIXED, NDATA };
static const char *azData[] = { "int", "int64_edge", "real_wide", "real_inf", "mixed" };

/* The table t(i, p, o, x, v, a) of NROW rows of data kind d; x's values
** kept as SQLite hands them to functions, by row. */
static void makeTable(sqlite3 *db, int d, h_rng *r, sqlite3_value **ax, int nPart){
  sqlite3_stmt *st;
  int i;
  EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(i INTEGER PRIMARY KEY, p INT, o INT, x, v REAL, a)");
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?,?,?,?,?,?)", -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  EXEC(db, "BEGIN");
  for(i=1; i<=NROW; i++){
    uint64_t k = h_next(r) % 100;
    sqlite3_bind_int(st, 1, i);
    sqlite3_bind_int64(st, 2, h_range(r, 1, nPart));
    sqlite3_bind_int64(st, 3, h_range(r, 0, NROW/4));            /* ties for RANGE and GROUPS */
    if( k<8 ){
      sqlite3_bind_null(st, 4);
    }else switch( d ){
      case D_INT:  sqlite3_bind_int64(st, 4, h_range(r, -(1LL<<40), 1LL<<40)); break;
      case D_EDGE: sqlite3_bind_int64(st, 4, k<40 ? INT64_MAX : k<70 ? INT64_MIN : h_range(r, -9, 9)); break;
      case D_REAL:                                                 /* never integral below 2^53 */
        sqlite3_bind_double(st, 4, (k&1 ? -1 : 1)*ldexp(1.0 + (double)(2*h_range(r, 0, 1<<20) + 1)/(1<<22),
                                                        (int)h_range(r, -1000, 50)));
        break;
      case D_INF:
        sqlite3_bind_double(st, 4, k<15 ? INFINITY : k<22 ? -INFINITY : (h_unit(r) - 0.5)*1e6 + 0.25);
        break;
      default:
        if( k<30 ) sqlite3_bind_int64(st, 4, h_range(r, -50, 50));
        else if( k<55 ) sqlite3_bind_double(st, 4, h_range(r, -50, 50) + 0.5);
        else if( k<70 ) sqlite3_bind_text(st, 4, k&1 ? "12" : "abc", -1, SQLITE_STATIC);
        else if( k<80 ) sqlite3_bind_text(st, 4, k&1 ? "zz" : "-3.5", -1, SQLITE_STATIC);
        else sqlite3_bind_blob(st, 4, k&1 ? "\x01\x02" : "\x00", k&1 ? 2 : 1, SQLITE_STATIC);
        break;
    }
    sqlite3_bind_double(st, 5, (double)((int64_t)i*7919 % NROW) + 0.5);   /* unique */
    switch( h_next(r) % 5 ){
      case 0: sqlite3_bind_null(st, 6); break;
      case 1: sqlite3_bind_int64(st, 6, (int64_t)h_next(r)); break;
      case 2: sqlite3_bind_double(st, 6, h_unit(r)); break;
      case 3: sqlite3_bind_text(st, 6, "text", 4, SQLITE_STATIC); break;
      default: sqlite3_bind_blob(st, 6, "bl\0b", 4, SQLITE_STATIC); break;
    }
    CHECK(sqlite3_step(st)==SQLITE_DONE, "%s", sqlite3_errmsg(db));
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");
  CHECK(sqlite3_prepare_v2(db, "SELECT i, x FROM t ORDER BY i", -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  while( sqlite3_step(st)==SQLITE_ROW ){
    int id = sqlite3_column_int(st, 0);
    sqlite3_value_free(ax[id]);
    ax[id] = sqlite3_value_dup(sqlite3_column_value(st, 1));
    CHECK(ax[id]!=0, "out of memory");
  }
  sqlite3_finalize(st);
}

/* Row id of each v (v = (i*7919 % NROW) + 0.5). */
static int rowOfV(double v){
  int i;
  for(i=1; i<=NROW; i++) if( (double)((int64_t)i*7919 % NROW) + 0.5==v ) return i;
  return -1;
}

/* Check one window over the whole table. */
static void checkWindow(sqlite3 *db, int d, const char *zFrame, sqlite3_value **ax, const int *rowOf){
  sqlite3_stmt *st, *ra;
  char *zSql = sqlite3_mprintf(
      "SELECT i, %s OVER w, gpu_total(x) OVER w, gpu_avg(x) OVER w, gpu_count(x) OVER w, count(x) OVER w,"
      " gpu_min(x) OVER w, min(x) OVER w, gpu_max(x) OVER w, max(x) OVER w, gpu_count() OVER w, count(*) OVER w,"
      " gpu_argmin(i, v) OVER w, min(v) OVER w, gpu_argmax(a, v) OVER w, max(v) OVER w, group_concat(i) OVER w"
      " FROM t WINDOW w AS (%s)", d==D_EDGE ? "gpu_total(x)" : "gpu_sum(x)", zFrame);
  int rc, nRow = 0;
  CHECK(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s: %s", zSql, sqlite3_errmsg(db));
  CHECK(sqlite3_prepare_v2(db, "SELECT a FROM t WHERE i=?", -1, &ra, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    h_exact e;
    const char *z = (const char*)sqlite3_column_text(st, 16);
    int id = sqlite3_column_int(st, 0), r;
    nRow++;
    h_exact_init(&e);
    while( z && *z ){
      h_exact_add(&e, ax[atoi(z)]);
      while( *z && *z!=',' ) z++;
      if( *z ) z++;
    }
    CHECK(s_is_double(st, 2, h_exact_value(&e)), "%s, %s, row %d: gpu_total %.17g, exact %.17g", azData[d], zFrame, id,
          sqlite3_column_double(st, 2), h_exact_value(&e));
    if( e.nInt+e.nReal==0 ){
      CHECK((d==D_EDGE || sqlite3_column_type(st, 1)==SQLITE_NULL) && sqlite3_column_type(st, 3)==SQLITE_NULL,
            "%s, %s, row %d: gpu_sum/avg of an empty frame not NULL", azData[d], zFrame, id);
    }else{
      CHECK(s_is_double(st, 3, h_exact_value(&e)/(double)(e.nInt+e.nReal)), "%s, %s, row %d: gpu_avg %.17g",
            azData[d], zFrame, id, sqlite3_column_double(st, 3));
      if( e.nReal==0 && d!=D_EDGE ){
        CHECK(sqlite3_column_type(st, 1)==SQLITE_INTEGER && (__int128)sqlite3_column_int64(st, 1)==e.isum,
              "%s, %s, row %d: gpu_sum not the exact INTEGER total", azData[d], zFrame, id);
      }else{
        CHECK(s_is_double(st, 1, h_exact_value(&e)), "%s, %s, row %d: gpu_sum %.17g", azData[d], zFrame, id,
              sqlite3_column_double(st, 1));
      }
    }
    CHECK(s_same_cell(st, 4, 5) && s_same_cell(st, 10, 11), "%s, %s, row %d: gpu_count", azData[d], zFrame, id);
    CHECK(s_same_cell(st, 6, 7), "%s, %s, row %d: gpu_min %s, min %s", azData[d], zFrame, id,
          sqlite3_column_text(st, 6), sqlite3_column_text(st, 7));
    CHECK(s_same_cell(st, 8, 9), "%s, %s, row %d: gpu_max %s, max %s", azData[d], zFrame, id,
          sqlite3_column_text(st, 8), sqlite3_column_text(st, 9));
    if( sqlite3_column_type(st, 13)==SQLITE_NULL ){
      CHECK(sqlite3_column_type(st, 12)==SQLITE_NULL && sqlite3_column_type(st, 14)==SQLITE_NULL,
            "%s, %s, row %d: argmin/argmax of an empty frame", azData[d], zFrame, id);
      continue;
    }
    CHECK(sqlite3_column_type(st, 12)==SQLITE_INTEGER
          && sqlite3_column_int(st, 12)==rowOf[(int)sqlite3_column_double(st, 13)],
          "%s, %s, row %d: gpu_argmin(i, v) %lld", azData[d], zFrame, id, (long long)sqlite3_column_int64(st, 12));
    r = rowOf[(int)sqlite3_column_double(st, 15)];
    sqlite3_bind_int(ra, 1, r);
    CHECK(sqlite3_step(ra)==SQLITE_ROW && s_same_cells(st, 14, ra, 0), "%s, %s, row %d: gpu_argmax(a, v) not row %d's a",
          azData[d], zFrame, id, r);
    sqlite3_reset(ra);
  }
  CHECK(rc==SQLITE_DONE && nRow==NROW, "%s: %s (%d rows)", zFrame, sqlite3_errmsg(db), nRow);
  sqlite3_finalize(ra);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
}

START_TEST(test_frames){
  static const int64_t aThreshold[] = { 0, 5, 65536 };
  sqlite3_value *ax[NROW+1];
  int rowOf[NROW];
  h_rng r;
  int d, f, t, i;
  memset(ax, 0, sizeof(ax));
  for(i=0; i<NROW; i++) rowOf[i] = rowOfV((double)i + 0.5);
  h_rng_init(&r, h_seed ^ 0x77696e64);
  for(t=0; t<3; t++){
    sqlite3 *db = s_open(64, aThreshold[t]);
    for(d=0; d<NDATA; d++){
      makeTable(db, d, &r, ax, d==D_MIXED ? 400 : 7);
      for(f=0; f<NFRAME; f++){
        checkWindow(db, d, azFrame[f], ax, rowOf);
      }
    }
    s_expect_pool_idle(db);
    sqlite3_close(db);
  }
  for(i=0; i<=NROW; i++) sqlite3_value_free(ax[i]);
}
END_TEST

/* Frames of any size (GPUAGG_TEST_FRAME_ROWS rows, default 70,000; the
** GPU run 10M): gpu_min, gpu_max, gpu_argmin and gpu_argmax over frames
** that take every row before their first result (to UNBOUNDED FOLLOWING,
** and OVER ()), on values ascending (every row a candidate of gpu_min),
** descending and scattered, pipelined at once (threshold 0) and not; read
** through a view, and from a trigger's statement (whose program EXPLAIN
** does not show: winsense.c keeps rows there). Each against min() and
** max() over the same window; gpu_argmin(-v, v) is -min(v). Sums have no
** queue: one of them too. */
START_TEST(test_frame_any){
  static const char *azWin[] = {
    "ORDER BY k ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING", "ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    "",
  };
  static const char *azOrder[] = { "k", "-k", "(k * 7919) % n" };
  const char *zRows = getenv("GPUAGG_TEST_FRAME_ROWS");
  int64_t n = zRows ? atoll(zRows) : 70000;
  sqlite3 *db = s_open(4096, 0);
  int o, w, th;
  for(o=0; o<3; o++){
    char *zOrder = sqlite3_mprintf("%s", azOrder[o]);
    EXEC(db, "DROP TABLE IF EXISTS f; CREATE TABLE f(k INTEGER PRIMARY KEY, v);"
             "WITH RECURSIVE s(k) AS (VALUES(1) UNION ALL SELECT k+1 FROM s WHERE k<%lld), c(n) AS (VALUES(%lld))"
             " INSERT INTO f SELECT k, %s FROM s, c", (long long)n, (long long)n, zOrder);
    sqlite3_free(zOrder);
    for(th=0; th<2; th++){
      EXEC(db, "SELECT gpuagg_config('threshold', %d)", th ? 65536 : 0);
      for(w=0; w<3 && (w<2 || o==0); w++){
        h_val v = h_query(db, "SELECT count(*) FROM (SELECT gpu_min(v) OVER w IS NOT min(v) OVER w"
                              " OR gpu_max(v) OVER w IS NOT max(v) OVER w OR gpu_argmin(-v, v) OVER w IS NOT -min(v) OVER w"
                              " OR gpu_argmax(-v, v) OVER w IS NOT -max(v) OVER w AS d FROM f WINDOW w AS (%s)) WHERE d",
                          azWin[w]);
        CHECK(v.rc==SQLITE_OK && v.i==0, "%s; %lld of %lld rows differ: %s, values %s, threshold %d",
              v.rc ? v.zErr : "answered", (long long)v.i, (long long)n, azWin[w], azOrder[o], th ? 65536 : 0);
      }
    }
  }
  /* through a view, and from a trigger's statement */
  EXEC(db, "CREATE TEMP VIEW vw AS SELECT gpu_max(v) OVER w AS g, max(v) OVER w AS m FROM f"
           " WINDOW w AS (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)");
  {
    h_val v = h_query(db, "SELECT count(*) FROM vw WHERE g IS NOT m");
    CHECK(v.rc==SQLITE_OK && v.i==0, "through a view: %s, %lld differ", v.rc ? v.zErr : "answered", (long long)v.i);
  }
  EXEC(db, "CREATE TEMP TABLE ev(x); CREATE TEMP TABLE res(g, m);"   /* (EXEC fails on an error) */
           "CREATE TEMP TRIGGER tr AFTER INSERT ON ev BEGIN INSERT INTO res SELECT gpu_min(v) OVER w, min(v) OVER w FROM f"
           " WINDOW w AS (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING); END;"
           "INSERT INTO ev VALUES (1)");
  CHECK(h_int(db, "SELECT count(*) FROM res")==n && h_int(db, "SELECT count(*) FROM res WHERE g IS NOT m")==0,
        "from a trigger: %s", h_errmsg);
  {
    h_val v = h_query(db, "SELECT sum(g IS NOT s) FROM (SELECT gpu_sum(v) OVER w AS g, sum(v) OVER w AS s FROM f"
                          " WINDOW w AS (ORDER BY k ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING))");
    CHECK(v.rc==SQLITE_OK && v.i==0, "gpu_sum over a large first frame: %s, %lld differ", v.rc ? v.zErr : "answered",
          (long long)v.i);
  }
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Sliding totals at the ends of the double range (subnormals, near-overflow
** values, totals that overflow and come back, negative totals, integers):
** each row's window equals the aggregate over the same rows, which the other
** suites check against exact references. */
START_TEST(test_extremes){
  static const double aVal[] = { 1.7976931348623157e308, 1e308, 4.9406564584124654e-324, 2.2250738585072014e-308,
                                 1.0, 0.1, 3e-310, 8.98846567431158e307 };
  sqlite3 *db = s_open(64, 5);
  sqlite3_stmt *st;
  h_rng r;
  int i;
  h_rng_init(&r, h_seed ^ 0x65787472);
  EXEC(db, "CREATE TABLE e(i INTEGER PRIMARY KEY, x)");
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO e VALUES(?, ?)", -1, &st, 0)==SQLITE_OK, "prepare");
  for(i=1; i<=3000; i++){
    uint64_t k = h_next(&r);
    sqlite3_bind_int(st, 1, i);
    if( k%11==0 ) sqlite3_bind_int64(st, 2, (int64_t)(h_next(&r) >> 1) * (k & 32 ? -1 : 1));
    else sqlite3_bind_double(st, 2, aVal[(k>>8) % 8] * (k & 16 ? -1 : 1));
    CHECK(sqlite3_step(st)==SQLITE_DONE, "insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  CHECK(h_int(db, "SELECT count(*) FROM (SELECT i AS j, gpu_total(x) OVER w AS t, gpu_avg(x) OVER w AS a FROM e"
                  " WINDOW w AS (ORDER BY i ROWS BETWEEN 4 PRECEDING AND 1 FOLLOWING)) AS q"
                  " WHERE t IS NOT (SELECT gpu_total(x) FROM e WHERE i BETWEEN q.j - 4 AND q.j + 1)"
                  " OR a IS NOT (SELECT gpu_avg(x) FROM e WHERE i BETWEEN q.j - 4 AND q.j + 1)")==0,
        "sliding totals at the ends of the range differ from the aggregate over the same rows");
  sqlite3_close(db);
}
END_TEST

/* Long windows: GPUAGG_TEST_WINDOW_ROWS rows (default 100,000; the GPU run
** 10M) through ROWS 999 PRECEDING, values of every magnitude from 1e-10 to
** 1e10 and integers (a running float total would drift). gpu_count against
** count at every row; at every 97th row gpu_total against an exact
** reference over the frame, and gpu_max against the frame's first greatest
** value found here. (The builtin max is not the reference: Debian's SQLite
** 3.40.1 gives wrong maxima over this frame; the count of rows where it
** differs is printed.) */
START_TEST(test_long){
  const char *z = getenv("GPUAGG_TEST_WINDOW_ROWS");
  int64_t n = z ? atoll(z) : 100000, i;
  sqlite3 *db = s_open(1<<20, 65536);
  sqlite3_stmt *st;
  sqlite3_value **ax;
  h_rng r;
  int rc, bad = 0, nCheck = 0, nBuiltin = 0;
  h_rng_init(&r, h_seed ^ 0x6c6f6e67);
  CHECK((ax = calloc((size_t)n, sizeof(*ax)))!=0, "out of memory");
  EXEC(db, "CREATE TABLE l(i INTEGER PRIMARY KEY, x)");
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO l VALUES(?, ?)", -1, &st, 0)==SQLITE_OK, "prepare");
  EXEC(db, "BEGIN");
  for(i=0; i<n; i++){
    uint64_t k = h_next(&r);
    sqlite3_bind_int64(st, 1, i);
    if( k%10==0 ) sqlite3_bind_int64(st, 2, h_range(&r, -1000000, 1000000));
    else if( k%10==1 ) sqlite3_bind_null(st, 2);
    else sqlite3_bind_double(st, 2, (k & 1024 ? -1 : 1)*pow(10.0, -10.0 + 20.0*h_unit(&r)) + 0.25);
    CHECK(sqlite3_step(st)==SQLITE_DONE, "insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");
  CHECK(sqlite3_prepare_v2(db, "SELECT x FROM l ORDER BY i", -1, &st, 0)==SQLITE_OK, "prepare");
  for(i=0; sqlite3_step(st)==SQLITE_ROW; i++) ax[i] = sqlite3_value_dup(sqlite3_column_value(st, 0));
  sqlite3_finalize(st);
  CHECK(sqlite3_prepare_v2(db, "SELECT i, gpu_total(x) OVER w, gpu_max(x) OVER w, max(x) OVER w, gpu_count(x) OVER w,"
                               " count(x) OVER w FROM l WINDOW w AS (ORDER BY i ROWS 999 PRECEDING)", -1, &st, 0)==SQLITE_OK,
        "prepare");
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    int64_t k = sqlite3_column_int64(st, 0), j, best = -1;
    h_exact e;
    if( !s_same_cell(st, 4, 5) ) bad++;
    nBuiltin += !s_same_cell(st, 2, 3);
    if( k%97 ) continue;
    h_exact_init(&e);
    for(j=k<999 ? 0 : k-999; j<=k; j++){
      h_exact_add(&e, ax[j]);
      /* integers here are below 2^53 and reals not integral: doubles order them */
      if( sqlite3_value_type(ax[j])!=SQLITE_NULL
       && (best<0 || sqlite3_value_double(ax[j]) > sqlite3_value_double(ax[best])) ) best = j;
    }
    if( !s_is_double(st, 1, h_exact_value(&e)) ) bad++;
    if( best<0 ? sqlite3_column_type(st, 2)!=SQLITE_NULL
               : sqlite3_column_type(st, 2)!=sqlite3_value_type(ax[best])
                 || sqlite3_column_double(st, 2)!=sqlite3_value_double(ax[best]) ) bad++;
    nCheck++;
  }
  CHECK(rc==SQLITE_DONE, "%s", sqlite3_errmsg(db));
  CHECK(bad==0 && nCheck>0, "%lld rows: %d differ (%d frames checked)", (long long)n, bad, nCheck);
  printf("test_long (%s): %lld rows, %d frames checked exactly; the builtin max differed from gpu_max at %d rows\n",
         g_backend, (long long)n, nCheck, nBuiltin);
  sqlite3_finalize(st);
  for(i=0; i<n; i++) sqlite3_value_free(ax[i]);
  free(ax);
  sqlite3_close(db);
}
END_TEST

/* Sign of a - b in SQLite's order for the late frames' values (numbers are
** below 2^53, so doubles order them). */
static int lateCmp(sqlite3_value *a, sqlite3_value *b){
  int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b), na, nb, c;
  int ra = ta==SQLITE_INTEGER || ta==SQLITE_FLOAT ? 1 : ta==SQLITE_TEXT ? 2 : 3;
  int rb = tb==SQLITE_INTEGER || tb==SQLITE_FLOAT ? 1 : tb==SQLITE_TEXT ? 2 : 3;
  if( ra!=rb ) return ra<rb ? -1 : 1;
  if( ra==1 ){
    double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
    return x<y ? -1 : x>y;
  }
  na = sqlite3_value_bytes(a);
  nb = sqlite3_value_bytes(b);
  c = memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b), (size_t)(na<nb ? na : nb));
  return c ? c : (na>nb) - (na<nb);
}

/* Frames whose first result comes after tens of thousands of rows: the
** rows are logged, compacted into the queue every 4,096 rows or 1 MB of
** TEXT, and the queue is built on the first xValue or xInverse. 80,000 rows
** of REALs, INTEGERs, NULLs, TEXT and BLOBs (few distinct, so the extremes
** tie) with A values of up to
** 1,500 bytes; gpu_min, gpu_max, gpu_argmin and gpu_argmax at every 397th row
** and the last rows against the frame's first least and greatest value,
** found here. With threshold 0 (pipelined at once) the first frame holds
** 60,001 rows, under the 65,536 kept; with 100,000, 70,001 rows. */
START_TEST(test_late){
  static const struct { int64_t threshold; int lead; const char *zStart; } aCase[] = {
    { 0, 60000, "UNBOUNDED PRECEDING" }, { 0, 60000, "5 PRECEDING" },
    { 100000, 70000, "UNBOUNDED PRECEDING" }, { 100000, 70000, "5 PRECEDING" }, { 100000, 70000, "69990 FOLLOWING" },
  };
  enum { N = 80000 };
  sqlite3_value **ax, **aa;
  sqlite3_stmt *st;
  h_rng r;
  size_t c;
  int i, rc;
  h_rng_init(&r, h_seed ^ 0x6c617465);
  CHECK((ax = calloc(N, sizeof(*ax)))!=0 && (aa = calloc(N, sizeof(*aa)))!=0, "out of memory");
  for(c=0; c<sizeof(aCase)/sizeof(aCase[0]); c++){
    sqlite3 *db = s_open(4096, aCase[c].threshold);
    char *zSql;
    int bad = 0, nCheck = 0;
    EXEC(db, "CREATE TABLE lt(i INTEGER PRIMARY KEY, x, a)");
    EXEC(db, "BEGIN");
    CHECK(sqlite3_prepare_v2(db, "INSERT INTO lt VALUES(?, ?, ?)", -1, &st, 0)==SQLITE_OK, "prepare");
    for(i=0; i<N; i++){
      uint64_t k = h_next(&r);
      char z[32];
      int len = (k>>8)%50==0 ? 1500 : 8;
      char *zA;
      sqlite3_bind_int(st, 1, i);
      snprintf(z, sizeof(z), "t%04d", (int)((k>>20)%20));     /* few values: ties at the extremes */
      if( k%10==0 ) sqlite3_bind_null(st, 2);
      else if( k%50==1 ) sqlite3_bind_text(st, 2, z, -1, SQLITE_TRANSIENT);
      else if( k%100==2 ) sqlite3_bind_blob(st, 2, z, 5, SQLITE_TRANSIENT);
      else if( k%10==3 ) sqlite3_bind_int64(st, 2, h_range(&r, -500, 500));
      else sqlite3_bind_double(st, 2, (double)h_range(&r, -1000, 1000) + 0.5);
      zA = sqlite3_mprintf("%d:%.*c", i, len, 'a' + (int)(k%26));
      sqlite3_bind_text(st, 3, zA, -1, sqlite3_free);
      CHECK(sqlite3_step(st)==SQLITE_DONE, "insert");
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    EXEC(db, "COMMIT");
    CHECK(sqlite3_prepare_v2(db, "SELECT x, a FROM lt ORDER BY i", -1, &st, 0)==SQLITE_OK, "prepare");
    for(i=0; sqlite3_step(st)==SQLITE_ROW; i++){
      sqlite3_value_free(ax[i]);
      sqlite3_value_free(aa[i]);
      ax[i] = sqlite3_value_dup(sqlite3_column_value(st, 0));
      aa[i] = sqlite3_value_dup(sqlite3_column_value(st, 1));
    }
    sqlite3_finalize(st);
    zSql = sqlite3_mprintf("SELECT i, gpu_min(x) OVER w, gpu_max(x) OVER w, gpu_argmin(a, x) OVER w, gpu_argmax(a, x) OVER w"
                           " FROM lt WINDOW w AS (ORDER BY i ROWS BETWEEN %s AND %d FOLLOWING)",
                           aCase[c].zStart, aCase[c].lead);
    CHECK(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      int k = sqlite3_column_int(st, 0), lo, hi, j, mn = -1, mx = -1;
      if( k%397 && k<N-3 ) continue;
      lo = aCase[c].zStart[0]=='U' ? 0 : aCase[c].zStart[0]=='5' ? k-5 : k+69990;
      hi = k + aCase[c].lead;
      if( lo<0 ) lo = 0;
      if( hi>N-1 ) hi = N-1;
      for(j=lo; j<=hi; j++){
        if( sqlite3_value_type(ax[j])==SQLITE_NULL ) continue;
        if( mn<0 || lateCmp(ax[j], ax[mn])<0 ) mn = j;
        if( mx<0 || lateCmp(ax[j], ax[mx])>0 ) mx = j;
      }
      nCheck++;
      if( mn<0 ){
        bad += sqlite3_column_type(st, 1)!=SQLITE_NULL || sqlite3_column_type(st, 4)!=SQLITE_NULL;
        continue;
      }
      if( sqlite3_column_type(st, 1)!=sqlite3_value_type(ax[mn]) || lateCmp(sqlite3_column_value(st, 1), ax[mn])
       || sqlite3_column_type(st, 2)!=sqlite3_value_type(ax[mx]) || lateCmp(sqlite3_column_value(st, 2), ax[mx])
       || lateCmp(sqlite3_column_value(st, 3), aa[mn]) || lateCmp(sqlite3_column_value(st, 4), aa[mx]) ){
        if( bad++<3 ) fprintf(stderr, "late frame %s AND %d FOLLOWING, threshold %lld, row %d: min %d max %d differ\n",
                              aCase[c].zStart, aCase[c].lead, (long long)aCase[c].threshold, k, mn, mx);
      }
    }
    CHECK(rc==SQLITE_DONE, "%s AND %d FOLLOWING: %s", aCase[c].zStart, aCase[c].lead, sqlite3_errmsg(db));
    CHECK(bad==0 && nCheck>200, "%s AND %d FOLLOWING, threshold %lld: %d of %d rows differ", aCase[c].zStart,
          aCase[c].lead, (long long)aCase[c].threshold, bad, nCheck);
    sqlite3_finalize(st);
    sqlite3_free(zSql);
    s_expect_pool_idle(db);
    sqlite3_close(db);
  }
  for(i=0; i<N; i++){
    sqlite3_value_free(ax[i]);
    sqlite3_value_free(aa[i]);
  }
  free(ax);
  free(aa);
}
END_TEST

/* Plain aggregates over a stream that ascends (every row a candidate for a
** window): gpu_min, gpu_argmin and gpu_max(-v) over GPUAGG_TEST_WINDOW_ROWS
** rows (default here 2M) keep no rows for a window: none of the statement's
** program's calls is one (winsense.c), so the query's peak memory does not
** grow with the rows. */
START_TEST(test_ascending){
  const char *z = getenv("GPUAGG_TEST_WINDOW_ROWS");
  int64_t n = z ? atoll(z) : 2000000, before, peak;   /* unbounded, 3 queues would pass 300 MiB */
  sqlite3 *db = s_open(1<<16, 65536);                  /* small chunks: the slots' buffers are no noise */
  int exactPeak;
  /* The same query over 200,000 rows first: the context, the slots and
  ** the kernels' modules (loaded at their first launch) are then in place. */
  CHECK(h_int(db, "WITH RECURSIVE s(v) AS (VALUES(1) UNION ALL SELECT v+1 FROM s WHERE v<200000)"
                  " SELECT gpu_min(v) = 1 AND gpu_argmin(-v, v) = -1 AND gpu_max(-v) = -1 FROM s")==1, "warm-up");
  exactPeak = h_peak_reset()==0;
  before = exactPeak ? h_rss_bytes() : h_peak_bytes();
  CHECK(h_int(db, "WITH RECURSIVE s(v) AS (VALUES(1) UNION ALL SELECT v+1 FROM s WHERE v<%lld)"
                  " SELECT gpu_min(v) = 1 AND gpu_argmin(-v, v) = -1 AND gpu_max(-v) = -1 FROM s", (long long)n)==1,
        "ascending extremes over %lld rows", (long long)n);
  peak = h_peak_bytes();
  printf("test_ascending (%s): gpu_min, gpu_argmin and gpu_max over %lld ascending rows peaked %lld MiB above the start%s\n",
         g_backend, (long long)n, (long long)((peak - before) >> 20), exactPeak ? "" : " (the process's peak)");
  if( !getenv("GPUAGG_UNDER_VALGRIND") ){
    CHECK(peak - before < ((int64_t)32 << 20), "ascending extremes over %lld rows peaked %lld MiB above the start",
          (long long)n, (long long)((peak - before) >> 20));
  }
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

static Suite *windowSuite(void){
  Suite *s = suite_create("window");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_frames);
  tcase_add_test(tc, test_frame_any);
  tcase_add_test(tc, test_extremes);
  tcase_add_test(tc, test_long);
  tcase_add_test(tc, test_late);
  tcase_add_test(tc, test_ascending);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(windowSuite);
}
