/*
** Tests of gpu_histogram. Counts are checked against a reference computed
** here from the function's own reported edges (each bin [lo, hi), the last
** closed; a binary search over the edges, not the function's arithmetic),
** the edges against lo + i*(hi-lo)/bins, and the range against min/max of
** the column. Both backends, as suite.h says. GPUAGG_SEED=N repeats a run.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

enum { D_UNIFORM, D_SKEWED, D_INTS, D_MIXED, D_CONST, D_NEGATIVE, NDATA };
static const char *azData[] = { "uniform", "skewed", "ints", "mixed", "const", "negative" };

/* Table zTab(x) with n rows of a distribution. */
static void fill(sqlite3 *db, const char *zTab, int kind, int64_t n, uint64_t seed){
  sqlite3_stmt *st;
  h_rng r;
  int64_t i;
  char *zSql = sqlite3_mprintf("INSERT INTO \"%w\" VALUES(?1)", zTab);
  h_rng_init(&r, seed);
  EXEC(db, "DROP TABLE IF EXISTS \"%w\"; CREATE TABLE \"%w\"(x); BEGIN", zTab, zTab);
  ck_assert_int_eq(sqlite3_prepare_v2(db, zSql, -1, &st, 0), SQLITE_OK);
  for(i=0; i<n; i++){
    uint64_t k = h_next(&r) % 100;
    switch( kind ){
      case D_UNIFORM:  sqlite3_bind_double(st, 1, h_unit(&r)*1000.0); break;
      case D_SKEWED:   sqlite3_bind_double(st, 1, k<90 ? 42.25 : h_unit(&r)*100.0); break;
      case D_INTS:     sqlite3_bind_int64(st, 1, h_range(&r, 0, 10)); break;
      case D_MIXED:
        if( k<10 ) sqlite3_bind_null(st, 1);
        else if( k<15 ) sqlite3_bind_text(st, 1, "12", -1, SQLITE_STATIC);   /* TEXT: not counted */
        else if( k<18 ) sqlite3_bind_blob(st, 1, "\x01", 1, SQLITE_STATIC);
        else if( k<60 ) sqlite3_bind_int64(st, 1, h_range(&r, -50, 50));
        else sqlite3_bind_double(st, 1, (h_unit(&r) - 0.5)*100.0);
        break;
      case D_CONST:    sqlite3_bind_int64(st, 1, 7); break;
      case D_NEGATIVE: sqlite3_bind_double(st, 1, -1e6 - h_unit(&r)*1e3); break;
    }
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  EXEC(db, "COMMIT");
}

/* Run the histogram (zArgs after the source and column names), check it
** against the column; return the number of bins it gave. */
static int64_t checkHist(sqlite3 *db, const char *zTab, const char *zCol, const char *zArgs, const char *zWhat){
  sqlite3_stmt *st;
  char *zSql = sqlite3_mprintf("SELECT bin, lo, hi, count FROM gpu_histogram(%Q, %Q, %s)", zTab, zCol, zArgs);
  double *edge = 0, lo, hi;
  int64_t *count = 0, nBin = 0, cap = 0, i;
  int rc;
  CHECK(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s: %s", zSql, sqlite3_errmsg(db));
  /* Check's asserts write to a pipe each time: in per-bin loops, find the
  ** first bad bin and assert once. */
  int64_t bad = -1;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    if( nBin+2>cap ){
      cap = cap ? 2*cap : 1024;
      edge = realloc(edge, sizeof(double)*cap);
      count = realloc(count, sizeof(int64_t)*cap);
    }
    if( bad<0 && (sqlite3_column_int64(st, 0)!=nBin || sqlite3_column_type(st, 1)!=SQLITE_FLOAT
                  || sqlite3_column_type(st, 2)!=SQLITE_FLOAT || sqlite3_column_type(st, 3)!=SQLITE_INTEGER
                  || (nBin>0 && sqlite3_column_double(st, 1)!=edge[nBin])) ){
      bad = nBin;
    }
    edge[nBin] = sqlite3_column_double(st, 1);
    edge[nBin+1] = sqlite3_column_double(st, 2);
    count[nBin] = sqlite3_column_int64(st, 3);
    nBin++;
  }
  CHECK(rc==SQLITE_DONE, "%s: %s", zWhat, sqlite3_errmsg(db));
  CHECK(bad<0, "%s: row %lld: out of order, wrong types, or its lo is not the previous hi", zWhat, (long long)bad);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  if( nBin==0 ){
    free(edge); free(count);
    return 0;
  }
  /* Edges: ascending, equally spaced within rounding. */
  lo = edge[0];
  hi = edge[nBin];
  for(i=0; i<=nBin && bad<0; i++){
    double want = lo + (double)i*((hi - lo)/(double)nBin);
    if( fabs(edge[i] - want) > 4e-16*(fabs(lo) + fabs(hi)) + 1e-300 || (i>0 && edge[i]<=edge[i-1]) ) bad = i;
  }
  CHECK(bad<0, "%s: edge %lld is %.17g: not ascending or not ~lo + i*(hi-lo)/bins", zWhat,
        (long long)bad, bad<0 ? 0.0 : edge[bad]);
  /* The reference: each number of the column by binary search over the edges. */
  {
    int64_t *ref = calloc(nBin, sizeof(int64_t));
    char *zRead = sqlite3_mprintf("SELECT \"%w\" FROM \"%w\" WHERE typeof(\"%w\") IN ('integer','real')", zCol, zTab, zCol);
    ck_assert_int_eq(sqlite3_prepare_v2(db, zRead, -1, &st, 0), SQLITE_OK);
    while( sqlite3_step(st)==SQLITE_ROW ){
      double x = sqlite3_column_double(st, 0);
      int64_t a = 0, b = nBin;             /* edge[a] <= x < edge[b] */
      if( x<lo || x>hi ) continue;
      if( x==hi ){ ref[nBin-1]++; continue; }
      while( b-a>1 ){
        int64_t m = (a + b)/2;
        if( edge[m]<=x ) a = m; else b = m;
      }
      ref[a]++;
    }
    sqlite3_finalize(st);
    sqlite3_free(zRead);
    for(i=0; i<nBin && bad<0; i++) if( count[i]!=ref[i] ) bad = i;
    CHECK(bad<0, "%s: bin %lld [%.17g, %.17g) counts %lld, reference %lld", zWhat, (long long)bad,
          bad<0 ? 0.0 : edge[bad], bad<0 ? 0.0 : edge[bad+1],
          (long long)(bad<0 ? 0 : count[bad]), (long long)(bad<0 ? 0 : ref[bad]));
    free(ref);
  }
  free(edge); free(count);
  return nBin;
}

/* Every distribution, several bin counts, sizes across chunk boundaries. */
START_TEST(test_distributions){
  const int C = 1000, T = 300;
  const int64_t sizes[] = { 0, 1, T-1, T+1, T+C, T+3*C+7, 40000 };
  const int bins[] = { 1, 10, 256, 4096, 65536 };
  sqlite3 *db = s_open(C, T);
  int d;
  size_t i, k;
  for(d=0; d<NDATA; d++){
    for(i=0; i<sizeof(sizes)/sizeof(sizes[0]); i++){
      fill(db, "t", d, sizes[i], h_seed + 10*d + i);
      for(k=0; k<sizeof(bins)/sizeof(bins[0]); k++){
        char zArgs[64], zWhat[96];
        int64_t nNum = h_int(db, "SELECT count(*) FROM t WHERE typeof(x) IN ('integer','real')");
        snprintf(zArgs, sizeof(zArgs), "%d", bins[k]);
        snprintf(zWhat, sizeof(zWhat), "%s n=%lld bins=%d auto", azData[d], (long long)sizes[i], bins[k]);
        CHECK(checkHist(db, "t", "x", zArgs, zWhat)==(nNum ? bins[k] : 0), "%s: rows", zWhat);
        if( nNum ){
          /* The auto range is [min, max] (or [v-0.5, v+0.5]) and counts every number. */
          double mn = (double)h_int(db, "SELECT 0"), mx;
          sqlite3_stmt *st;
          ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT min(x), max(x) FROM t WHERE typeof(x) IN ('integer','real')", -1, &st, 0), SQLITE_OK);
          ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
          mn = sqlite3_column_double(st, 0);
          mx = sqlite3_column_double(st, 1);
          sqlite3_finalize(st);
          if( mn==mx ){ mn -= 0.5; mx += 0.5; }
          {
            /* Compared as doubles here, not through SQL text (whose parsing
            ** uses long double: not exact under valgrind). */
            char *z = sqlite3_mprintf("SELECT min(lo), max(hi), sum(count) FROM gpu_histogram('t', 'x', %d)", bins[k]);
            int ok;
            ck_assert_int_eq(sqlite3_prepare_v2(db, z, -1, &st, 0), SQLITE_OK);
            ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
            ok = sqlite3_column_double(st, 0)==mn && sqlite3_column_double(st, 1)==mx
              && sqlite3_column_int64(st, 2)==nNum;
            sqlite3_finalize(st);
            sqlite3_free(z);
            CHECK(ok, "%s: range or total", zWhat);
          }
        }
        snprintf(zArgs, sizeof(zArgs), "%d, -10, 10", bins[k]);
        snprintf(zWhat, sizeof(zWhat), "%s n=%lld bins=%d [-10,10]", azData[d], (long long)sizes[i], bins[k]);
        CHECK(checkHist(db, "t", "x", zArgs, zWhat)==bins[k], "%s: rows", zWhat);
      }
    }
  }
  s_expect_device(db, "distributions");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Integers exactly on edges, many bins, the default chunk. */
START_TEST(test_edges_and_sizes){
  sqlite3 *db = s_open(1<<20, 65536);
  EXEC(db, "CREATE TABLE e(x);" SERIES(2000000) "INSERT INTO e SELECT value %% 1001 FROM series");
  CHECK(checkHist(db, "e", "x", "10, 0, 1000", "integers on edges")==10, "rows");
  CHECK(h_int(db, "SELECT count FROM gpu_histogram('e', 'x', 10, 0, 1000) WHERE bin=9")
        == h_int(db, "SELECT count(*) FROM e WHERE x>=900"), "the last bin is closed");
  CHECK(checkHist(db, "e", "x", "1000", "1000 bins auto")==1000, "rows");
  CHECK(checkHist(db, "e", "x", "1048576", "1M bins")==1048576, "rows");
  CHECK(checkHist(db, "e", "x", "7, -0.5, 1000.5", "7 bins")==7, "rows");
  s_expect_device(db, "edges");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Values sitting on the edges and one ulp either side, for random ranges
** and bin counts: where computing a bin from the value alone would miss by
** one, the correction against the edges must put it right. */
START_TEST(test_edge_sitting){
  sqlite3 *db = s_open(512, 100);
  h_rng r;
  int k;
  h_rng_init(&r, h_seed ^ 0xed9e);
  for(k=0; k<40; k++){
    double lo = (h_unit(&r) - 0.5)*2000.0, hi = lo + h_unit(&r)*(k%2 ? 1e-3 : 1e3) + 1e-9;
    int bins = (int)h_range(&r, 1, k<20 ? 20 : 5000);
    char zArgs[96], zWhat[128];
    sqlite3_stmt *st;
    snprintf(zArgs, sizeof(zArgs), "%d, %.17g, %.17g", bins, lo, hi);
    snprintf(zWhat, sizeof(zWhat), "edges of (%s)", zArgs);
    EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(x); CREATE TABLE IF NOT EXISTS e(x)");
    EXEC(db, "DELETE FROM e; INSERT INTO e SELECT lo FROM gpu_histogram('t', 'x', %s) UNION ALL SELECT %.17g", zArgs, hi);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1)", -1, &st, 0), SQLITE_OK);
    {
      sqlite3_stmt *q;
      ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT x FROM e", -1, &q, 0), SQLITE_OK);
      while( sqlite3_step(q)==SQLITE_ROW ){
        double x = sqlite3_column_double(q, 0), v[3];
        int m;
        v[0] = nextafter(x, -INFINITY); v[1] = x; v[2] = nextafter(x, INFINITY);
        for(m=0; m<3; m++){
          sqlite3_bind_double(st, 1, v[m]);
          sqlite3_step(st);
          sqlite3_reset(st);
        }
      }
      sqlite3_finalize(q);
    }
    sqlite3_finalize(st);
    CHECK(checkHist(db, "t", "x", zArgs, zWhat)==bins, "%s: rows", zWhat);
  }
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Names: odd identifiers, schemas, injection, errors. */
START_TEST(test_names_and_errors){
  static const s_error aErr[] = {
    { "SELECT * FROM gpu_histogram('nope', 'x', 4)", "gpu_histogram: no such table: nope" },
    { "SELECT * FROM gpu_histogram('t', 'nope', 4)", "gpu_histogram: no such column: nope in t" },
    { "SELECT * FROM gpu_histogram('t', 'x')", "gpu_histogram: takes (source, column, bins)" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 1)", "gpu_histogram: takes (source, column, bins)" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 0, 1, 2)", "too many arguments on gpu_histogram()" },
    { "SELECT * FROM gpu_histogram('t', 'x', 0)", "gpu_histogram: bins must be an integer from 1 to 16777216" },
    { "SELECT * FROM gpu_histogram('t', 'x', 16777217)", "bins must be an integer" },
    { "SELECT * FROM gpu_histogram('t', 'x', 2.5)", "bins must be an integer" },
    { "SELECT * FROM gpu_histogram('t', 'x', 'many')", "bins must be an integer" },
    { "SELECT * FROM gpu_histogram('t', 'x', NULL)", "bins must be an integer" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 'a', 1)", "gpu_histogram: lo and hi must be numbers" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 0, x'01')", "lo and hi must be numbers" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 1, 1)", "gpu_histogram: lo must be less than hi" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 2, 1)", "lo must be less than hi" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, 0, 1e999)", "gpu_histogram: lo and hi must be finite" },
    { "SELECT * FROM gpu_histogram('t', 'x', 4, -1e308, 1e308)", "is too wide for doubles" },
    { "SELECT * FROM gpu_histogram(NULL, 'x', 4)", "gpu_histogram: source and column must be names" },
    { "SELECT * FROM gpu_histogram('inf', 'x', 4)", "gpu_histogram: the range of x is not finite" },
    { "SELECT * FROM v", "unsafe use of virtual table" },
    { "SELECT gpuagg_colsrc(x) FROM t", "gpuagg_colsrc: for the table-valued functions' own use" },
  };
  sqlite3 *db = s_open(64, 0);
  EXEC(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1), (2), (3);"
           "CREATE TABLE inf(x); INSERT INTO inf VALUES(1), (1e999);"
           "CREATE VIEW v AS SELECT * FROM gpu_histogram('t', 'x', 4)");
  s_expect_errors(db, aErr, (int)(sizeof(aErr)/sizeof(aErr[0])));
  /* An injection attempt names no table and changes nothing. */
  CHECK(h_query(db, "SELECT * FROM gpu_histogram('t\"; DROP TABLE t; --', 'x', 4)").rc!=SQLITE_OK, "injection");
  CHECK(h_query(db, "SELECT * FROM gpu_histogram('t', 'x\"); DROP TABLE t; --', 4)").rc!=SQLITE_OK, "injection");
  CHECK(h_int(db, "SELECT count(*) FROM t")==3, "the table survived");
  /* Odd identifiers; a view as the source; an attached schema; a table named with a dot. */
  EXEC(db, "CREATE TABLE \"odd \"\"name\"\"; t\"(\"col x\"); INSERT INTO \"odd \"\"name\"\"; t\" SELECT x FROM t");
  CHECK(checkHist(db, "odd \"name\"; t", "col x", "3", "odd names")==3, "odd names");
  CHECK(checkHist(db, "odd \"name\"; t", "COL X", "3", "column case")==3, "column names ignore case");
  EXEC(db, "CREATE VIEW w AS SELECT x*2 AS y FROM t");
  CHECK(checkHist(db, "w", "y", "2", "view")==2, "a view as the source");
  EXEC(db, "ATTACH ':memory:' AS aux; CREATE TABLE aux.t(x); INSERT INTO aux.t VALUES(10), (20), (30), (40)");
  CHECK(h_int(db, "SELECT sum(count) FROM gpu_histogram('aux.t', 'x', 3)")==4, "aux.t is the attached table");
  CHECK(h_int(db, "SELECT max(hi) FROM gpu_histogram('aux.t', 'x', 3)")==40, "aux.t's range");
  CHECK(h_int(db, "SELECT sum(count) FROM gpu_histogram('main.t', 'x', 3)")==3, "main.t");
  EXEC(db, "CREATE TABLE \"a.b\"(x); INSERT INTO \"a.b\" VALUES(5)");
  CHECK(h_int(db, "SELECT sum(count) FROM gpu_histogram('a.b', 'x', 3)")==1, "a table named a.b");
  /* The current transaction's rows are seen. */
  EXEC(db, "BEGIN; INSERT INTO t VALUES(4)");
  CHECK(h_int(db, "SELECT sum(count) FROM gpu_histogram('t', 'x', 2)")==4, "uncommitted rows");
  EXEC(db, "ROLLBACK");
  /* No numbers: no rows without a range, zero rows with one. */
  EXEC(db, "CREATE TABLE s(x); INSERT INTO s VALUES('a'), (NULL), (x'00')");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_histogram('s', 'x', 5)")==0, "no numbers, no range");
  CHECK(h_int(db, "SELECT count(*)*100 + sum(count) FROM gpu_histogram('s', 'x', 5, 0, 1)")==500, "no numbers, a range");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

static int64_t rescans(sqlite3 *db){
  return h_int(db, "SELECT json_extract(gpuagg_info(), '$.hist_rescans')");
}

/* Without a range the column is scanned once while it fits the 'resident'
** budget; past it (at once, in the first rows, or after chunks were kept on
** the device) a second scan counts, with the same answer. */
START_TEST(test_single_scan){
  static const struct { int64_t resident; int rescan; const char *zWhat; } aCase[] = {
    { -1,      0, "default budget: one scan" },
    { 0,       1, "resident 0: two scans" },
    { 1000,    1, "over in the first rows" },
    { 600000,  1, "over after some chunks" },
    { 4000000, 0, "just enough" },
  };
  sqlite3 *db = s_open(1000, 300);
  int64_t dflt = h_int(db, "SELECT gpuagg_config('resident')");
  size_t i;
  int d;
  CHECK(dflt>0, "default resident %lld", (long long)dflt);
  for(d=0; d<NDATA; d++){
    fill(db, "t", d, 200000, h_seed + 77*d);
    for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++){
      char zWhat[96];
      int64_t before = rescans(db);
      snprintf(zWhat, sizeof(zWhat), "%s, %s", azData[d], aCase[i].zWhat);
      EXEC(db, "SELECT gpuagg_config('resident', %lld)", (long long)(aCase[i].resident<0 ? dflt : aCase[i].resident));
      CHECK(checkHist(db, "t", "x", "256", zWhat)==256, "%s: rows", zWhat);
      CHECK(rescans(db) - before==aCase[i].rescan, "%s: %lld rescans, want %d", zWhat,
            (long long)(rescans(db) - before), aCase[i].rescan);
      s_expect_pool_idle(db);
    }
  }
  s_expect_device(db, "single scan");
  sqlite3_close(db);
}
END_TEST

/* An interrupted scan stops with SQLITE_INTERRUPT; the next query is right. */
START_TEST(test_interrupt){
  sqlite3 *db = s_open(1000, 0);
  int k;
  fill(db, "t", D_UNIFORM, 200000, h_seed ^ 0x12);
  for(k=0; k<3; k++){
    s_expect_interrupt(db, k==1 ? "SELECT sum(count) FROM gpu_histogram('t', 'x', 100, 0, 1000)"
                                : "SELECT sum(count) FROM gpu_histogram('t', 'x', 100)", k);
  }
  CHECK(checkHist(db, "t", "x", "100", "after interrupts")==100, "rows");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

static Suite *histSuite(void){
  Suite *s = suite_create("histogram");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_names_and_errors);
  tcase_add_test(tc, test_distributions);
  tcase_add_test(tc, test_edges_and_sizes);
  tcase_add_test(tc, test_edge_sitting);
  tcase_add_test(tc, test_interrupt);
  tcase_add_test(tc, test_single_scan);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(histSuite);
}
