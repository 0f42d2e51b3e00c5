/*
** Tests of gpu_summary against SQL and exact references on seeded random
** data (GPUAGG_SEED=N repeats a run). Both backends, as suite.h says; the
** variances' exactness against rational arithmetic is tests/stats.py's.
**
** For each column: rows, nulls and the counts by storage class against
** count() and typeof(); distinct against count(DISTINCT col); min and max
** exactly against min() and max() (TEXT by the column's collation, the
** first of equals); sum, total and avg exactly against the correctly
** rounded exact sum (harness.c) of the values stored as INTEGER or REAL
** (SQL's CASE WHEN typeof(c) IN ('integer', 'real') THEN c END), sum's type
** as sum()'s, NULL where the integers' sum overflows, every statistic NULL
** (total too) without such a value; the variances non-negative, NULL below
** 2 (sample) and 1 (population) values, exactly 0 for a constant column
** and (n^2-1)/12 for 1..n, and the same bits on every chunk size. TEXT of
** every kind (NUL bytes, non-ASCII, over 4 KB, case and trailing-space
** variants) under BINARY, NOCASE and RTRIM, views, both sources; a user's
** collation gives NULL where it decides, and says why in gpuagg_info().
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

enum { P_INT, P_EDGE, P_REAL, P_WIDE, P_MIXED, P_NULLS, NPROF };

static void bindProfile(h_rng *r, sqlite3_stmt *st, int col, int prof){
  uint64_t k = h_next(r) % 100;
  switch( prof ){
    case P_INT:  sqlite3_bind_int64(st, col, h_range(r, -1000000000, 1000000000)); return;
    case P_EDGE: sqlite3_bind_int64(st, col, k<40 ? (k%2 ? INT64_MAX : INT64_MIN) : h_range(r, -3, 3)); return;
    case P_REAL: sqlite3_bind_double(st, col, (h_unit(r) - 0.5)*2e6); return;
    case P_WIDE:
      sqlite3_bind_double(st, col, (k%2 ? 1 : -1)*ldexp(1.0 + h_unit(r), (int)h_range(r, -1074, 1000)));
      return;
    case P_NULLS:
      if( k<95 ) sqlite3_bind_null(st, col); else sqlite3_bind_double(st, col, h_unit(r));
      return;
  }
  if( k<10 ) sqlite3_bind_null(st, col);
  else if( k<14 ) sqlite3_bind_text(st, col, k%2 ? "12" : "2.5", -1, SQLITE_STATIC);
  else if( k<17 ) sqlite3_bind_text(st, col, k%2 ? "abc" : "", -1, SQLITE_STATIC);
  else if( k<19 ) sqlite3_bind_blob(st, col, k%2 ? "7" : "\x01", 1, SQLITE_STATIC);
  else if( k<22 ) sqlite3_bind_double(st, col, k%2 ? -0.0 : 0.0);
  else if( k<24 ) sqlite3_bind_double(st, col, k%2 ? INFINITY : -INFINITY);
  else if( k<60 ) sqlite3_bind_int64(st, col, h_range(r, -50, 50));
  else sqlite3_bind_double(st, col, (double)h_range(r, -50, 50));
}

/* Table t with one column per profile, n rows. */
static void fill(sqlite3 *db, int64_t n, uint64_t seed){
  sqlite3_stmt *st;
  h_rng r;
  int64_t i;
  int p;
  h_rng_init(&r, seed);
  EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(c_int, c_edge, c_real, c_wide, c_mixed, c_nulls); BEGIN");
  ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, 0), SQLITE_OK);
  for(i=0; i<n; i++){
    for(p=0; p<NPROF; p++) bindProfile(&r, st, p+1, p);
    if( sqlite3_step(st)!=SQLITE_DONE ) break;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  CHECK(i==n, "fill: %s", sqlite3_errmsg(db));
  EXEC(db, "COMMIT");
}

/* q25, median and q75 (cells 17..19 of o) against percentile_cont's
** definition over the column's INTEGER and REAL values sorted by SQL
** (-0.0 before 0.0), NaN as NULL. */
static void checkQuartiles(sqlite3 *db, sqlite3_stmt *o, const char *zTab, const char *zCol, const char *zWhat){
  char *z = sqlite3_mprintf("SELECT CAST(\"%w\" AS REAL) FROM \"%w\" WHERE typeof(\"%w\") IN ('integer', 'real')"
                            " ORDER BY 1, CAST(\"%w\" AS TEXT)", zCol, zTab, zCol, zCol);
  sqlite3_stmt *w;
  double *a = 0;
  int64_t n = 0, cap = 0;
  int k;
  ck_assert_int_eq(sqlite3_prepare_v2(db, z, -1, &w, 0), SQLITE_OK);
  while( sqlite3_step(w)==SQLITE_ROW ){
    if( n==cap ){
      cap = cap ? 2*cap : 1024;
      a = realloc(a, sizeof(double)*(size_t)cap);
      CHECK(a!=0, "out of memory");
    }
    a[n++] = sqlite3_column_double(w, 0);
  }
  sqlite3_finalize(w);
  sqlite3_free(z);
  for(k=0; k<3; k++){
    double ix = (0.25*(k + 1))*(double)(n - 1), want;
    int64_t i1 = (int64_t)ix, i2 = ix==(double)i1 || i1==n - 1 ? i1 : i1 + 1;
    if( n==0 ){
      CHECK(sqlite3_column_type(o, 17+k)==SQLITE_NULL, "%s: %s: quartile %d of nothing", zWhat, zCol, k+1);
      continue;
    }
    want = a[i1] + (a[i2] - a[i1])*(ix - (double)i1);
    CHECK(s_is_double(o, 17+k, want), "%s: %s: quartile %d %.17g, want %.17g", zWhat, zCol, k+1,
          sqlite3_column_double(o, 17+k), want);
  }
  free(a);
}

/* Every row of gpu_summary(zTab) against the references. zUnknown: the
** column, if any, whose collation gpu_summary cannot apply (its distinct,
** and min and max where TEXT decides them, must be NULL, and gpuagg_info()
** must name it, where it holds two TEXT values or more). */
static void checkSummaryU(sqlite3 *db, const char *zTab, const char *zWhat, const char *zUnknown){
  char *zOurs = sqlite3_mprintf("SELECT name, rows, nulls, integers, reals, texts, blobs, \"distinct\", min, max, sum,"
                                " total, avg, var_samp, var_pop, stddev_samp, stddev_pop, q25, median, q75"
                                " FROM gpu_summary(%Q)", zTab);
  sqlite3_stmt *o;
  int rc, nRow = 0;
  CHECK(sqlite3_prepare_v2(db, zOurs, -1, &o, 0)==SQLITE_OK, "%s: %s", zWhat, sqlite3_errmsg(db));
  while( (rc = sqlite3_step(o))==SQLITE_ROW ){
    const char *zCol = (const char*)sqlite3_column_text(o, 0);
    char *zRef = sqlite3_mprintf("SELECT count(*), count(*) - count(\"%w\"), "
        "sum(typeof(\"%w\")='integer'), sum(typeof(\"%w\")='real'), sum(typeof(\"%w\")='text'), "
        "sum(typeof(\"%w\")='blob'), count(DISTINCT \"%w\"), min(\"%w\"), max(\"%w\") FROM \"%w\"",
        zCol, zCol, zCol, zCol, zCol, zCol, zCol, zCol, zTab);
    char *zVals = sqlite3_mprintf("SELECT v FROM (SELECT CASE WHEN typeof(\"%w\") IN ('integer', 'real') THEN \"%w\" END"
                                  " AS v FROM \"%w\") WHERE v IS NOT NULL", zCol, zCol, zTab);
    sqlite3_stmt *f, *w;
    h_exact e;
    int k, unknown = zUnknown && sqlite3_stricmp(zCol, zUnknown)==0;
    int64_t n, nText;
    double t;
    ck_assert_int_eq(sqlite3_prepare_v2(db, zRef, -1, &f, 0), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(f), SQLITE_ROW);
    for(k=0; k<6; k++){
      CHECK(sqlite3_column_int64(o, 1+k)==sqlite3_column_int64(f, k), "%s: %s: count %d: %lld, want %lld", zWhat, zCol,
            k, (long long)sqlite3_column_int64(o, 1+k), (long long)sqlite3_column_int64(f, k));
    }
    nText = sqlite3_column_int64(f, 4);
    if( unknown && nText>1 ){
      char *zWhy = h_text(db, "SELECT json_extract(gpuagg_info(), '$.summary.why')");
      CHECK(sqlite3_column_type(o, 7)==SQLITE_NULL, "%s: %s: distinct under an unknown collation", zWhat, zCol);
      CHECK(zWhy && strstr(zWhy, zCol), "%s: %s: gpuagg_info's summary.why: %s", zWhat, zCol, zWhy ? zWhy : "null");
      free(zWhy);
      if( sqlite3_column_int64(o, 3) + sqlite3_column_int64(o, 4)==0 ){
        CHECK(sqlite3_column_type(o, 8)==SQLITE_NULL, "%s: %s: min decided by TEXT", zWhat, zCol);
      }else{
        CHECK(s_same_cells(o, 8, f, 7), "%s: %s: min", zWhat, zCol);
      }
      if( sqlite3_column_int64(o, 6)==0 ){
        CHECK(sqlite3_column_type(o, 9)==SQLITE_NULL, "%s: %s: max decided by TEXT", zWhat, zCol);
      }else{
        CHECK(s_same_cells(o, 9, f, 8), "%s: %s: max", zWhat, zCol);
      }
    }else{
      CHECK(s_same_cells(o, 7, f, 6), "%s: %s: distinct %s, want %s", zWhat, zCol, sqlite3_column_text(o, 7),
            sqlite3_column_text(f, 6));
      CHECK(s_same_cells(o, 8, f, 7), "%s: %s: min %s, want %s", zWhat, zCol, sqlite3_column_text(o, 8), sqlite3_column_text(f, 7));
      CHECK(s_same_cells(o, 9, f, 8), "%s: %s: max %s, want %s", zWhat, zCol, sqlite3_column_text(o, 9), sqlite3_column_text(f, 8));
    }
    sqlite3_finalize(f);
    h_exact_init(&e);
    ck_assert_int_eq(sqlite3_prepare_v2(db, zVals, -1, &w, 0), SQLITE_OK);
    while( sqlite3_step(w)==SQLITE_ROW ) h_exact_add(&e, sqlite3_column_value(w, 0));
    sqlite3_finalize(w);
    n = e.nInt + e.nReal;
    t = h_exact_value(&e);
    CHECK(n==sqlite3_column_int64(o, 3) + sqlite3_column_int64(o, 4), "%s: %s: the numbers", zWhat, zCol);
    if( n==0 ){
      for(k=10; k<20; k++){
        CHECK(sqlite3_column_type(o, k)==SQLITE_NULL, "%s: %s: statistic %d of no number is not NULL", zWhat, zCol, k);
      }
    }else if( e.nReal==0 ){
      if( e.isum<INT64_MIN || e.isum>INT64_MAX ){
        CHECK(sqlite3_column_type(o, 10)==SQLITE_NULL, "%s: %s: an overflowing sum is NULL", zWhat, zCol);
      }else{
        CHECK(sqlite3_column_type(o, 10)==SQLITE_INTEGER && sqlite3_column_int64(o, 10)==(int64_t)e.isum,
              "%s: %s: integer sum", zWhat, zCol);
      }
    }else{
      CHECK(s_is_double(o, 10, t), "%s: %s: sum %.17g, exact %.17g", zWhat, zCol, sqlite3_column_double(o, 10), t);
    }
    if( n ){
      CHECK(s_is_double(o, 11, t), "%s: %s: total", zWhat, zCol);
      CHECK(s_is_double(o, 12, t/(double)n), "%s: %s: avg", zWhat, zCol);
    }
    CHECK((n<2)==(sqlite3_column_type(o, 13)==SQLITE_NULL) || e.posInf || e.negInf, "%s: %s: var_samp's NULL", zWhat, zCol);
    CHECK((n<1)==(sqlite3_column_type(o, 14)==SQLITE_NULL) || e.posInf || e.negInf, "%s: %s: var_pop's NULL", zWhat, zCol);
    for(k=13; k<17; k++){
      CHECK(sqlite3_column_type(o, k)==SQLITE_NULL || sqlite3_column_double(o, k)>=0.0, "%s: %s: negative", zWhat, zCol);
    }
    checkQuartiles(db, o, zTab, zCol, zWhat);
    sqlite3_free(zRef);
    sqlite3_free(zVals);
    nRow++;
  }
  CHECK(rc==SQLITE_DONE, "%s: %s", zWhat, sqlite3_errmsg(db));
  CHECK(nRow==h_int(db, "SELECT count(*) FROM pragma_table_xinfo(%Q) WHERE hidden<>1", zTab), "%s: rows", zWhat);
  sqlite3_finalize(o);
  sqlite3_free(zOurs);
}

static void checkSummary(sqlite3 *db, const char *zTab, const char *zWhat){
  checkSummaryU(db, zTab, zWhat, 0);
}

/* Every profile, sizes across chunk boundaries (1000-value chunks hold 128
** values of each of 6 columns), and the same bits at every chunk size. */
START_TEST(test_profiles){
  const int64_t sizes[] = { 0, 1, 2, 127, 128, 129, 3*128+5, 30000 };
  const int chunks[] = { 1000, 70000, 1<<20 };
  size_t i, k;
  sqlite3 *db = s_open(1000, 300);
  for(i=0; i<sizeof(sizes)/sizeof(sizes[0]); i++){
    char zWhat[64];
    char *zFirst = 0;
    fill(db, sizes[i], h_seed + i);
    for(k=0; k<sizeof(chunks)/sizeof(chunks[0]); k++){
      char *z;
      EXEC(db, "SELECT gpuagg_config('chunk', %d), gpuagg_config('threshold', %d)", chunks[k], k==2 ? 65536 : 300);
      snprintf(zWhat, sizeof(zWhat), "%lld rows, chunk %d", (long long)sizes[i], chunks[k]);
      checkSummary(db, "t", zWhat);
      z = s_render(db, "SELECT * FROM gpu_summary('t')");
      if( zFirst ){
        CHECK(strcmp(z, zFirst)==0, "%s: not the bits of chunk %d: %.300s", zWhat, chunks[0], z);
        free(z);
      }else{
        zFirst = z;
      }
    }
    free(zFirst);
  }
  s_expect_device(db, "profiles");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Variances with known answers. */
START_TEST(test_known){
  sqlite3 *db = s_open(1000, 100);
  EXEC(db, "CREATE TABLE k(one, konst, seq, big);" SERIES(100000)
           "INSERT INTO k SELECT CASE WHEN value=1 THEN 5 END, 1e9 + 0.1, value, 1e15 + value FROM series");
  /* 1..n: var_pop = (n^2-1)/12 and var_samp = n(n+1)/12, exactly. */
  CHECK(h_query(db, "SELECT var_pop FROM gpu_summary('k', 'seq')").r == (1e10 - 1)/12.0, "var_pop of 1..n");
  CHECK(h_query(db, "SELECT var_samp FROM gpu_summary('k', 'seq')").r == 1e5*(1e5 + 1)/12.0, "var_samp of 1..n");
  /* Shifted by 1e15 (no textbook cancellation): the same. */
  CHECK(h_query(db, "SELECT var_pop FROM gpu_summary('k', 'big')").r == (1e10 - 1)/12.0, "var_pop of 1e15+i");
  CHECK(h_query(db, "SELECT var_pop FROM gpu_summary('k', 'konst')").r == 0.0, "a constant column");
  CHECK(h_query(db, "SELECT stddev_samp FROM gpu_summary('k', 'konst')").r == 0.0, "its stddev");
  CHECK(h_query(db, "SELECT var_pop FROM gpu_summary('k', 'one')").r == 0.0, "one value: var_pop 0");
  CHECK(h_query(db, "SELECT var_samp FROM gpu_summary('k', 'one')").type == SQLITE_NULL, "one value: var_samp NULL");
  s_expect_device(db, "known");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Names, schemas, views, many columns, errors. */
START_TEST(test_names_and_errors){
  static const s_error aErr[] = {
    { "SELECT * FROM gpu_summary('nope')", "gpu_summary: no such table: nope" },
    { "SELECT * FROM gpu_summary('t', 'nope')", "gpu_summary: no such column: nope in t" },
    { "SELECT * FROM gpu_summary()", "gpu_summary: takes (source) or (source, column)" },
    { "SELECT * FROM gpu_summary('t', 'a', 1)", "too many arguments on gpu_summary()" },
    { "SELECT * FROM gpu_summary(NULL)", "gpu_summary: source and column must be names" },
    { "SELECT * FROM gpu_summary('t', NULL)", "must be names" },
    { "SELECT * FROM vs", "unsafe use of virtual table" },
  };
  sqlite3 *db = s_open(64, 0);
  sqlite3_str *q = sqlite3_str_new(db);
  char *z;
  size_t i;
  EXEC(db, "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 'x'), (2, NULL); CREATE VIEW vs AS SELECT * FROM gpu_summary('t')");
  s_expect_errors(db, aErr, (int)(sizeof(aErr)/sizeof(aErr[0])));
  CHECK(h_query(db, "SELECT * FROM gpu_summary('t\"; DROP TABLE t; --')").rc!=SQLITE_OK, "injection");
  CHECK(h_int(db, "SELECT count(*) FROM t")==2, "the table survived");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_summary('t')")==2, "a row per column");
  z = h_text(db, "SELECT group_concat(name, ',') FROM gpu_summary('t')");
  CHECK(z && strcmp(z, "a,b")==0, "declared order: %s", z ? z : "?");
  free(z);
  CHECK(h_int(db, "SELECT rows FROM gpu_summary('t', 'B')")==2, "one column, any case");
  /* Odd names, a view, schemas, a generated column, the transaction's rows. */
  EXEC(db, "CREATE TABLE \"odd \"\"t\"\"\"(\"col; x\"); INSERT INTO \"odd \"\"t\"\"\" VALUES(4), (6)");
  checkSummary(db, "odd \"t\"", "odd names");
  EXEC(db, "CREATE VIEW w AS SELECT a*2 AS y, b FROM t");
  checkSummary(db, "w", "a view");
  EXEC(db, "ATTACH ':memory:' AS aux; CREATE TABLE aux.u(v); INSERT INTO aux.u VALUES(10), (20)");
  CHECK(h_int(db, "SELECT sum FROM gpu_summary('aux.u')")==30, "aux.u");
  EXEC(db, "CREATE TABLE gen(a, b AS (a*2)); INSERT INTO gen(a) VALUES(1), (2)");
  CHECK(h_int(db, "SELECT sum FROM gpu_summary('gen', 'b')")==6, "a generated column");
  EXEC(db, "BEGIN; INSERT INTO t VALUES(3, 'y')");
  CHECK(h_int(db, "SELECT rows FROM gpu_summary('t', 'a')")==3, "uncommitted rows");
  EXEC(db, "ROLLBACK");
  /* Wider than one scan: 250 columns. */
  sqlite3_str_appendall(q, "CREATE TABLE wide(");
  for(i=0; i<250; i++) sqlite3_str_appendf(q, "%sc%d", i ? ", " : "", (int)i);
  sqlite3_str_appendall(q, "); INSERT INTO wide VALUES(");
  for(i=0; i<250; i++) sqlite3_str_appendf(q, "%s%d", i ? ", " : "", (int)i);
  sqlite3_str_appendall(q, ")");
  z = sqlite3_str_finish(q);
  EXEC(db, "%s", z);
  sqlite3_free(z);
  CHECK(h_int(db, "SELECT count(*) FROM gpu_summary('wide')")==250, "250 columns");
  CHECK(h_int(db, "SELECT sum(sum) FROM gpu_summary('wide')")==250*249/2, "250 columns' sums");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_summary('wide') WHERE name='c' || sum")==250, "each its own");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* ---- TEXT, collations, distinct ----------------------------------------------- */

/* A short TEXT value into z (its length returned): pieces that collide
** under some collations and not others: case, trailing spaces, NUL bytes,
** non-ASCII (é, É, ß), the empty string. */
static int shortText(h_rng *r, char *z){
  static const char *azPiece[] = { "a", "A", "b", "B", " ", "\0", "\xc3\xa9", "\xc3\x89", "\xc3\x9f", "z" };
  static const int anPiece[] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 1 };
  int n = 0, k = (int)h_range(r, 0, 4), i;
  for(i=0; i<k; i++){
    int p = (int)h_range(r, 0, 9);
    memcpy(z + n, azPiece[p], (size_t)anPiece[p]);
    n += anPiece[p];
  }
  if( h_next(r)%4==0 ){             /* trailing spaces: RTRIM's case */
    k = (int)h_range(r, 1, 3);
    for(i=0; i<k; i++) z[n++] = ' ';
  }
  return n;
}

/* A TEXT value over 4 KB (overflow pages): one of a few bodies, its case
** flipped at a few places, sometimes a NUL or a space at the end. */
static int longText(h_rng *r, char *z){
  int n = 4100 + (int)h_range(r, 0, 2)*1000, i, body = (int)h_range(r, 0, 2);
  for(i=0; i<n; i++) z[i] = (char)('a' + (i*7 + body) % 26);
  for(i=(int)h_range(r, 0, 3); i>0; i--){
    int at = (int)h_range(r, 0, 3)*1000 + (int)h_range(r, 0, 2);
    z[at] = (char)(z[at] - 32);
  }
  switch( h_next(r)%4 ){
    case 0: z[n++] = ' '; break;
    case 1: z[n-1] = 0; break;
  }
  return n;
}

/* Numbers that compare exactly or not at all: integers about 2^53 and
** INT64's limits, the same as REAL, -0.0, 0, 1 and 1.0, ±Inf. */
static void bindEdgeNumber(h_rng *r, sqlite3_stmt *st, int col){
  const int64_t p53 = (int64_t)1 << 53;
  switch( h_next(r)%10 ){
    case 0: sqlite3_bind_int64(st, col, p53 + h_range(r, -2, 2)); break;
    case 1: sqlite3_bind_double(st, col, (double)(p53 + 2*h_range(r, -2, 2))); break;
    case 2: sqlite3_bind_int64(st, col, h_next(r)%2 ? INT64_MAX - h_range(r, 0, 1) : INT64_MIN + h_range(r, 0, 1)); break;
    case 3: sqlite3_bind_double(st, col, h_next(r)%2 ? 9223372036854775808.0 : -9223372036854775808.0); break;
    case 4: sqlite3_bind_double(st, col, h_next(r)%2 ? -0.0 : 0.0); break;
    case 5: sqlite3_bind_int64(st, col, h_range(r, -1, 1)); break;
    case 6: sqlite3_bind_double(st, col, (double)h_range(r, -1, 1)); break;
    case 7: sqlite3_bind_double(st, col, h_next(r)%2 ? INFINITY : -INFINITY); break;
    case 8: sqlite3_bind_double(st, col, 0.5*(double)h_range(r, -3, 3)); break;
    default: sqlite3_bind_null(st, col); break;
  }
}

/* Table x of n rows: TEXT under each collation, mixed classes, edge
** numbers, long TEXT, one value, all distinct, and a user's collation. */
static void fillText(sqlite3 *db, int64_t n, uint64_t seed){
  static char z[8192];
  sqlite3_stmt *st;
  h_rng r;
  int64_t i;
  int c, k;
  h_rng_init(&r, seed);
  EXEC(db, "DROP TABLE IF EXISTS x; CREATE TABLE x(bin TEXT, nc TEXT COLLATE NOCASE, rt TEXT COLLATE RTRIM,"
           " mix, mixnc COLLATE nocase, num, big TEXT COLLATE NOCASE, bigb TEXT, one, alld, rev TEXT COLLATE rev,"
           " revnum COLLATE rev); BEGIN");
  ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO x VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1, &st, 0),
                   SQLITE_OK);
  for(i=0; i<n; i++){
    for(c=1; c<=3; c++){
      if( h_next(&r)%10==0 ) sqlite3_bind_null(st, c);
      else sqlite3_bind_text(st, c, z, k = shortText(&r, z), SQLITE_TRANSIENT);
    }
    for(c=4; c<=5; c++){
      switch( h_next(&r)%6 ){
        case 0: sqlite3_bind_int64(st, c, h_range(&r, -3, 3)); break;
        case 1: sqlite3_bind_double(st, c, (double)h_range(&r, -3, 3)); break;
        case 2: sqlite3_bind_blob(st, c, z, k = shortText(&r, z), SQLITE_TRANSIENT); break;
        case 3: sqlite3_bind_null(st, c); break;
        default: sqlite3_bind_text(st, c, z, k = shortText(&r, z), SQLITE_TRANSIENT); break;
      }
    }
    bindEdgeNumber(&r, st, 6);
    for(c=7; c<=8; c++){
      if( h_next(&r)%5==0 ) sqlite3_bind_null(st, c);
      else sqlite3_bind_text(st, c, z, k = longText(&r, z), SQLITE_TRANSIENT);
    }
    if( h_next(&r)%3 ) sqlite3_bind_text(st, 9, "same", -1, SQLITE_STATIC); else sqlite3_bind_null(st, 9);
    snprintf(z, sizeof(z), "v%lld", (long long)i);
    sqlite3_bind_text(st, 10, z, -1, SQLITE_TRANSIENT);
    if( h_next(&r)%4==0 ) sqlite3_bind_null(st, 11); else sqlite3_bind_text(st, 11, z, k = shortText(&r, z), SQLITE_TRANSIENT);
    /* At most one TEXT value: the user's collation decides nothing. */
    if( i==n/2 ) sqlite3_bind_text(st, 12, "t", -1, SQLITE_STATIC);
    else if( h_next(&r)%2 ) sqlite3_bind_int64(st, 12, h_range(&r, 0, 5));
    else sqlite3_bind_blob(st, 12, "b", 1, SQLITE_STATIC);
    if( sqlite3_step(st)!=SQLITE_DONE ) break;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  CHECK(i==n, "fillText: %s", sqlite3_errmsg(db));
  EXEC(db, "COMMIT");
}

/* Reverse byte order: a collation that is none of SQLite's. */
static int revCmp(void *p, int na, const void *a, int nb, const void *b){
  int i;
  (void)p;
  for(i=0; i<na && i<nb; i++){
    int d = ((const unsigned char*)a)[na-1-i] - ((const unsigned char*)b)[nb-1-i];
    if( d ) return d;
  }
  return na - nb;
}

/* distinct, min and max of TEXT under every collation, mixed classes and
** edge numbers, against SQL, on both sources, at several chunk sizes;
** views take their columns' collations; a user's collation: NULL and why. */
START_TEST(test_text){
  const int64_t sizes[] = { 0, 1, 2, 50, 3000 };
  char zDir[64], zFile[128], *zErr = 0;
  sqlite3 *db;
  size_t i;
  int pages;
  s_dir_make(zDir, "summary");
  snprintf(zFile, sizeof(zFile), "%s/x.db", zDir);
  db = h_open_file(zFile, &zErr);
  ck_assert_msg(db!=0, "cannot load the module: %s", zErr ? zErr : "?");
  EXEC(db, "SELECT gpuagg_backend('%s')", g_backend);
  ck_assert_int_eq(sqlite3_create_collation(db, "rev", SQLITE_UTF8, 0, revCmp), SQLITE_OK);
  for(i=0; i<sizeof(sizes)/sizeof(sizes[0]); i++){
    char zWhat[96];
    fillText(db, sizes[i], h_seed + 100 + i);
    EXEC(db, "DROP VIEW IF EXISTS v; CREATE VIEW v AS SELECT nc, rt, nc AS nc2, bin || '' AS cat, mixnc, num, big FROM x");
    EXEC(db, "DROP VIEW IF EXISTS va; CREATE VIEW va AS SELECT nc, max(bin) AS m FROM x GROUP BY nc");
    for(pages=0; pages<2; pages++){
      char *zSrc;
      EXEC(db, "SELECT gpuagg_config('pages', %d), gpuagg_config('chunk', %d), gpuagg_config('threshold', %d)", pages,
           pages ? 1000 : 1<<20, pages ? 300 : 65536);
      snprintf(zWhat, sizeof(zWhat), "text, %lld rows, %s", (long long)sizes[i], pages ? "pages" : "statement");
      checkSummaryU(db, "x", zWhat, "rev");
      zSrc = h_text(db, "SELECT json_extract(gpuagg_info(), '$.sources.gpu_summary.source')");
      CHECK(zSrc && strcmp(zSrc, pages ? "pages" : "statement")==0, "%s: served by %s", zWhat, zSrc ? zSrc : "?");
      free(zSrc);
      snprintf(zWhat, sizeof(zWhat), "text view, %lld rows, %s", (long long)sizes[i], pages ? "pages" : "statement");
      checkSummary(db, "v", zWhat);
      /* A view whose plan shows its own collations too: nc's is not known. */
      snprintf(zWhat, sizeof(zWhat), "grouped view, %lld rows", (long long)sizes[i]);
      checkSummaryU(db, "va", zWhat, "nc");
    }
  }
  /* "distinct" is a keyword: read quoted; only what is read is computed. */
  CHECK(h_int(db, "SELECT \"distinct\" FROM gpu_summary('x', 'alld')")==3000, "all distinct");
  CHECK(h_int(db, "SELECT \"distinct\" FROM gpu_summary('x', 'one')")==1, "one distinct value");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_summary('x') WHERE \"distinct\" IS NULL")==1, "only rev's distinct is NULL");
  {
    char *zWhy = h_text(db, "SELECT json_extract(gpuagg_info(), '$.summary.why')");
    CHECK(zWhy && strstr(zWhy, "\"rev\"") && strstr(zWhy, "not BINARY, NOCASE or RTRIM"), "summary.why: %s",
          zWhy ? zWhy : "null");
    free(zWhy);
  }
  CHECK(h_query(db, "SELECT json_extract(gpuagg_info(), '$.summary.why') FROM gpu_summary('x', 'nc')").rc==SQLITE_OK,
        "a summary without such a column");
  CHECK(h_query(db, "SELECT json_extract(gpuagg_info(), '$.summary.why')").type==SQLITE_NULL, "summary.why cleared");
  /* An empty table: counts 0, everything else NULL. */
  EXEC(db, "CREATE TABLE e(a TEXT COLLATE NOCASE, b)");
  checkSummary(db, "e", "empty");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_summary('e') WHERE \"distinct\"=0 AND total IS NULL AND min IS NULL")==2,
        "empty: distinct 0, total NULL");
  /* A TEXT column: no number, so no sum, total or avg (0.0 is not a total of TEXT). */
  CHECK(h_query(db, "SELECT total FROM gpu_summary('x', 'bin')").type==SQLITE_NULL, "TEXT's total is NULL");
  s_expect_pool_idle(db);
  sqlite3_close(db);
  s_dir_drop(zDir);
}
END_TEST

START_TEST(test_interrupt){
  sqlite3 *db = s_open(1000, 0);
  int k;
  fill(db, 100000, h_seed ^ 0x77);
  for(k=0; k<3; k++) s_expect_interrupt(db, "SELECT count(*) FROM gpu_summary('t')", k);
  checkSummary(db, "t", "after interrupts");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

static Suite *summarySuite(void){
  Suite *s = suite_create("summary");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_names_and_errors);
  tcase_add_test(tc, test_known);
  tcase_add_test(tc, test_text);
  tcase_add_test(tc, test_profiles);
  tcase_add_test(tc, test_interrupt);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(summarySuite);
}
