/*
** Differential tests of gpu_sum, gpu_total, gpu_avg and gpu_count against
** SQLite's builtins and an exact reference, on seeded random data.
**
** Both backends, as suite.h says. GPUAGG_SEED=N repeats a run.
**
** What is compared, for each data set:
**   - types: gpu_sum's type is sum's (INTEGER, REAL or NULL), except where
**     the documented overflow rule differs, which is then checked exactly;
**   - integers: exactly against the exact 128-bit total;
**   - reals: exactly (==) against the correctly rounded exact total, which
**     the harness computes independently (Shewchuk's partials, as Python's
**     math.fsum); and near the builtin, within the error bound of its naive
**     running sum (Debian's 3.40; 3.43+ compensates, which is closer);
**   - averages exactly against that total divided by the count;
**   - counts exactly; the same bits when a query runs twice, on every
**     backend and chunk size.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"
#include "sum_acc.h"

/* ---- data ------------------------------------------------------------------ */

enum {
  P_INT_SMALL,      /* ints of up to 1e9, a few NULLs */
  P_INT_WIDE,       /* any int64: the total usually overflows */
  P_INT_EDGE,       /* near INT64_MAX/MIN, in pairs that cancel */
  P_REAL_UNIT,      /* reals in [-1000, 1000]: every value matters */
  P_REAL_WIDE,      /* exponents from subnormal to 2^1000 */
  P_REAL_CANCEL,    /* big values and their negations around small ones */
  P_REAL_INF,       /* finite values with some ±Inf */
  P_MIXED,          /* ints, reals, numeric text, text, blobs, NULLs */
  P_NULL_HEAVY,     /* 95% NULL */
  NPROFILE
};
static const char *azProfile[] = {
  "int_small", "int_wide", "int_edge", "real_unit", "real_wide",
  "real_cancel", "real_inf", "mixed", "null_heavy"
};

/* Generator state that spans values (pairs of cancelling values). */
typedef struct Gen { h_rng r; int profile; int havePending; int64_t iPending; double rPending; } Gen;

static void bindValue(Gen *g, sqlite3_stmt *st, int col){
  h_rng *r = &g->r;
  uint64_t k = h_next(r) % 100;
  switch( g->profile ){
    case P_INT_SMALL:
      if( k<2 ) sqlite3_bind_null(st, col);
      else sqlite3_bind_int64(st, col, h_range(r, -1000000000, 1000000000));
      return;
    case P_INT_WIDE:
      sqlite3_bind_int64(st, col, (int64_t)h_next(r));
      return;
    case P_INT_EDGE:
      if( g->havePending ){
        g->havePending = 0;
        sqlite3_bind_int64(st, col, -g->iPending + h_range(r, -3, 3));
      }else if( k<60 ){
        static const int64_t big[] = { INT64_MAX, INT64_MAX-1, INT64_MIN+4, INT64_MAX/2+7 };
        g->iPending = big[h_next(r)%4] * (k%2 ? 1 : -1);
        g->havePending = 1;
        sqlite3_bind_int64(st, col, g->iPending);
      }else{
        sqlite3_bind_int64(st, col, h_range(r, -5, 5));
      }
      return;
    case P_REAL_UNIT:
      sqlite3_bind_double(st, col, (h_unit(r)*2.0 - 1.0)*1000.0);
      return;
    case P_REAL_WIDE:
      sqlite3_bind_double(st, col, (k%2 ? 1 : -1)*ldexp(1.0 + h_unit(r), (int)h_range(r, -1074, 1000)));
      return;
    case P_REAL_CANCEL:
      if( g->havePending && k<50 ){
        g->havePending = 0;
        sqlite3_bind_double(st, col, -g->rPending);
      }else if( !g->havePending && k<40 ){
        g->rPending = (k%2 ? 1 : -1)*ldexp(1.0 + h_unit(r), (int)h_range(r, 40, 100));
        g->havePending = 1;
        sqlite3_bind_double(st, col, g->rPending);
      }else{
        sqlite3_bind_double(st, col, h_unit(r));
      }
      return;
    case P_REAL_INF:
      if( k==0 ) sqlite3_bind_double(st, col, INFINITY);
      else if( k==1 && h_next(r)%4==0 ) sqlite3_bind_double(st, col, -INFINITY);
      else sqlite3_bind_double(st, col, h_unit(r)*1e300);
      return;
    case P_MIXED:
      switch( k%10 ){
        case 0: sqlite3_bind_null(st, col); return;
        case 1: sqlite3_bind_text(st, col, "12", -1, SQLITE_STATIC); return;
        case 2: sqlite3_bind_text(st, col, "-3.25", -1, SQLITE_STATIC); return;
        case 3: sqlite3_bind_text(st, col, "abc", -1, SQLITE_STATIC); return;
        case 4: sqlite3_bind_blob(st, col, "12", 2, SQLITE_STATIC); return;
        case 5: sqlite3_bind_blob(st, col, "\x01\xff", 2, SQLITE_STATIC); return;
        case 6: case 7: sqlite3_bind_double(st, col, (h_unit(r) - 0.5)*1e6); return;
        default: sqlite3_bind_int64(st, col, h_range(r, -1000000, 1000000)); return;
      }
    case P_NULL_HEAVY:
      if( k<95 ) sqlite3_bind_null(st, col);
      else if( k<98 ) sqlite3_bind_int64(st, col, h_range(r, -100, 100));
      else sqlite3_bind_double(st, col, h_unit(r));
      return;
  }
}

/* Make table zTab(g, x) with n rows of a profile; g = row number % nGroup. */
static void fillTable(sqlite3 *db, const char *zTab, int profile, int64_t n, int nGroup, uint64_t seed){
  Gen g;
  sqlite3_stmt *st;
  char *zSql = sqlite3_mprintf("INSERT INTO \"%w\"(g, x) VALUES(?1, ?2)", zTab);
  int64_t i;
  memset(&g, 0, sizeof(g));
  h_rng_init(&g.r, seed);
  g.profile = profile;
  EXEC(db, "DROP TABLE IF EXISTS \"%w\"; CREATE TABLE \"%w\"(g INTEGER, x)", zTab, zTab);
  EXEC(db, "BEGIN");
  ck_assert_int_eq(sqlite3_prepare_v2(db, zSql, -1, &st, 0), SQLITE_OK);
  for(i=0; i<n; i++){
    sqlite3_bind_int64(st, 1, nGroup>0 ? i % nGroup : 0);
    bindValue(&g, st, 2);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  EXEC(db, "COMMIT");
}

/* ---- references -------------------------------------------------------------- */

typedef struct Ref { h_exact ex; } Ref;

/* Reference over the values of "SELECT x <zFrom>". */
static void refCompute(sqlite3 *db, const char *zFrom, Ref *ref){
  sqlite3_stmt *st;
  char *zSql = sqlite3_mprintf("SELECT x %s", zFrom);
  memset(ref, 0, sizeof(*ref));
  h_exact_init(&ref->ex);
  ck_assert_msg(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  while( sqlite3_step(st)==SQLITE_ROW ){
    h_exact_add(&ref->ex, sqlite3_column_value(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_free(zSql);
}

static double ulp(double x){
  x = fabs(x);
  if( !isfinite(x) ) return 0.0;
  return nextafter(x, INFINITY) - x;
}

/* A real result is right when it is the correctly rounded total (or both
** are NaN: SQL NULL, checked by the caller). */
static int realOk(double got, double exact){
  return got==exact;
}

/* ---- the checks ----------------------------------------------------------- */

static int64_t nValues(const Ref *ref){ return ref->ex.nInt + ref->ex.nReal; }

/* gpu_sum against sum and the reference, over "<zFrom>". */
static void checkSum(sqlite3 *db, const char *zFrom, const Ref *ref, const char *zWhat){
  h_val got = h_query(db, "SELECT gpu_sum(x) %s", zFrom);
  h_val again = h_query(db, "SELECT gpu_sum(x) %s", zFrom);
  h_val bi = h_query(db, "SELECT sum(x) %s", zFrom);
  const h_exact *e = &ref->ex;
  int64_t n = nValues(ref);
  CHECK(got.rc==again.rc && got.type==again.type && memcmp(&got.r, &again.r, sizeof(double))==0,
                "%s: gpu_sum differs between two runs", zWhat);
  if( n==0 ){
    CHECK(got.rc==SQLITE_OK && got.type==SQLITE_NULL, "%s: gpu_sum of no values must be NULL (%s)", zWhat, got.zErr);
    ck_assert_msg(bi.type==SQLITE_NULL, "%s: builtin disagrees on NULL", zWhat);
    return;
  }
  if( e->nReal==0 ){
    int fits = e->isum>=INT64_MIN && e->isum<=INT64_MAX;
    if( fits ){
      CHECK(got.rc==SQLITE_OK && got.type==SQLITE_INTEGER && got.i==(int64_t)e->isum,
                    "%s: gpu_sum=%lld (rc %d %s), exact %lld", zWhat,
                    (long long)got.i, got.rc, got.zErr, (long long)e->isum);
      /* The builtin agrees, or raised the intermediate overflow we document. */
      CHECK((bi.rc==SQLITE_OK && bi.type==SQLITE_INTEGER && bi.i==got.i)
                    || (bi.rc!=SQLITE_OK && strstr(bi.zErr, "integer overflow")),
                    "%s: builtin sum=%lld (%s) vs gpu_sum=%lld", zWhat,
                    (long long)bi.i, bi.zErr, (long long)got.i);
    }else{
      CHECK(got.rc!=SQLITE_OK && strstr(got.zErr, "integer overflow"),
                    "%s: exact total overflows, gpu_sum must fail (rc %d)", zWhat, got.rc);
      CHECK(bi.rc!=SQLITE_OK && strstr(bi.zErr, "integer overflow"),
                    "%s: builtin did not overflow", zWhat);
    }
    return;
  }
  {
    double exact = h_exact_value(e);
    CHECK(got.rc==SQLITE_OK, "%s: gpu_sum failed: %s", zWhat, got.zErr);
    if( isnan(exact) ){
      CHECK(got.type==SQLITE_NULL, "%s: +Inf and -Inf give NULL", zWhat);
      return;
    }
    CHECK(got.type==SQLITE_FLOAT, "%s: gpu_sum type %d, want REAL", zWhat, got.type);
    CHECK(realOk(got.r, exact), "%s: gpu_sum=%.17g exact=%.17g", zWhat, got.r, exact);
    if( bi.rc==SQLITE_OK ){
      double naive = (double)n * DBL_EPSILON * e->absSum;
      CHECK(bi.type==SQLITE_FLOAT, "%s: builtin type %d", zWhat, bi.type);
      CHECK(isinf(exact) ? bi.r==got.r : fabs(bi.r - got.r) <= naive + ulp(exact),
                    "%s: builtin sum=%.17g far from gpu_sum=%.17g", zWhat, bi.r, got.r);
    }else{
      /* 3.40 raises an intermediate integer overflow before the first real. */
      ck_assert_msg(strstr(bi.zErr, "integer overflow")!=0, "%s: builtin: %s", zWhat, bi.zErr);
    }
  }
}

/* gpu_total, gpu_avg and gpu_count against the builtins and the reference. */
static void checkTotalAvgCount(sqlite3 *db, const char *zFrom, const Ref *ref, const char *zWhat){
  sqlite3_stmt *st;
  char *zSql = sqlite3_mprintf(
      "SELECT gpu_total(x), gpu_avg(x), gpu_count(x), total(x), avg(x), count(x), gpu_count(*), count(*) %s", zFrom);
  int64_t n = nValues(ref);
  double exact = h_exact_value(&ref->ex);
  ck_assert_msg(sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  CHECK(sqlite3_step(st)==SQLITE_ROW, "%s: %s", zWhat, sqlite3_errmsg(db));

  /* gpu_count(x) and gpu_count(*) exactly. */
  CHECK(sqlite3_column_int64(st, 2)==n && sqlite3_column_int64(st, 5)==n,
                "%s: gpu_count=%lld count=%lld want %lld", zWhat,
                (long long)sqlite3_column_int64(st, 2), (long long)sqlite3_column_int64(st, 5), (long long)n);
  CHECK(sqlite3_column_int64(st, 6)==sqlite3_column_int64(st, 7), "%s: gpu_count(*)", zWhat);

  /* gpu_total: always REAL. */
  CHECK(sqlite3_column_type(st, 0)==(isnan(exact) ? SQLITE_NULL : SQLITE_FLOAT),
                "%s: gpu_total type %d", zWhat, sqlite3_column_type(st, 0));
  if( !isnan(exact) ){
    CHECK(realOk(sqlite3_column_double(st, 0), exact),
                  "%s: gpu_total=%.17g exact=%.17g", zWhat, sqlite3_column_double(st, 0), exact);
  }
  CHECK(sqlite3_column_type(st, 3)==sqlite3_column_type(st, 0), "%s: total type", zWhat);

  /* gpu_avg: NULL without values, else total/n. */
  if( n==0 || isnan(exact) ){
    CHECK(sqlite3_column_type(st, 1)==SQLITE_NULL, "%s: gpu_avg must be NULL", zWhat);
  }else{
    double a = sqlite3_column_double(st, 1), want = exact/(double)n;
    CHECK(sqlite3_column_type(st, 1)==SQLITE_FLOAT, "%s: gpu_avg type", zWhat);
    CHECK(a==want,
                  "%s: gpu_avg=%.17g want %.17g", zWhat, a, want);
  }
  CHECK(sqlite3_column_type(st, 4)==sqlite3_column_type(st, 1), "%s: avg type", zWhat);
  sqlite3_finalize(st);
  sqlite3_free(zSql);
}

static void checkAll(sqlite3 *db, const char *zFrom, const char *zWhat){
  Ref ref;
  refCompute(db, zFrom, &ref);
  checkSum(db, zFrom, &ref, zWhat);
  checkTotalAvgCount(db, zFrom, &ref, zWhat);
}

/* ---- tests ------------------------------------------------------------------ */

/* Every profile at every size around the threshold and chunk boundaries. */
START_TEST(test_profiles_boundaries){
  const int C = 257, T = 100;   /* odd chunk: odd vector tails on the device */
  const int64_t sizes[] = { 0, 1, 2, 3, T-1, T, T+1, T+C-1, T+C, T+C+1, T+2*C, T+3*C+5, T+10*C+17 };
  sqlite3 *db = s_open(C, T);
  int p;
  size_t i;
  for(p=0; p<NPROFILE; p++){
    for(i=0; i<sizeof(sizes)/sizeof(sizes[0]); i++){
      char zWhat[100];
      snprintf(zWhat, sizeof(zWhat), "%s n=%lld", azProfile[p], (long long)sizes[i]);
      fillTable(db, "t", p, sizes[i], 0, h_seed + 1000*p + i);
      checkAll(db, "FROM t", zWhat);
    }
  }
  s_expect_device(db, "profiles");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* The default chunk (1M) and threshold (64K): prefixes of one table. */
START_TEST(test_default_boundaries){
  sqlite3 *db = s_open(1<<20, 65536);
  const int64_t C = 1<<20, T = 65536;
  const int64_t at[] = { T-1, T, T+1, T+C-1, T+C, T+C+1, T+2*C+1 };
  size_t i;
  for(i=0; i<2; i++){
    size_t j;
    fillTable(db, "t", i==0 ? P_INT_SMALL : P_MIXED, T+2*C+1, 0, h_seed + 77 + i);
    for(j=0; j<sizeof(at)/sizeof(at[0]); j++){
      char zFrom[64], zWhat[64];
      snprintf(zFrom, sizeof(zFrom), "FROM t WHERE rowid<=%lld", (long long)at[j]);
      snprintf(zWhat, sizeof(zWhat), "default chunk, %s, %lld rows", azProfile[i==0 ? P_INT_SMALL : P_MIXED], (long long)at[j]);
      checkAll(db, zFrom, zWhat);
    }
  }
  s_expect_device(db, "default boundaries");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Larger random sizes and chunk shapes, one profile each. */
START_TEST(test_random_shapes){
  h_rng r;
  int k;
  h_rng_init(&r, h_seed ^ 0x5eed);
  for(k=0; k<12; k++){
    int chunk = (int)h_range(&r, 1, 5000);
    int64_t thr = h_range(&r, 0, 3000);
    int64_t n = h_range(&r, 0, 40000);
    int p = (int)h_range(&r, 0, NPROFILE-1);
    sqlite3 *db = s_open(chunk, thr);
    char zWhat[128];
    snprintf(zWhat, sizeof(zWhat), "%s n=%lld chunk=%d threshold=%lld", azProfile[p], (long long)n, chunk, (long long)thr);
    fillTable(db, "t", p, n, 0, h_next(&r));
    checkAll(db, "FROM t", zWhat);
    s_expect_pool_idle(db);
    sqlite3_close(db);
  }
}
END_TEST

/* GROUP BY with 20,000 groups: most tiny, some long enough to pipeline. */
START_TEST(test_group_by){
  const int nGroup = 20000, C = 97, T = 50;
  sqlite3 *db = s_open(C, T);
  h_rng r;
  Gen g;
  sqlite3_stmt *st;
  Ref *ref = calloc(nGroup, sizeof(Ref));
  int64_t i, nRow = 0;
  int seen = 0;
  h_rng_init(&r, h_seed ^ 0x6b);
  memset(&g, 0, sizeof(g));
  h_rng_init(&g.r, h_seed ^ 0x6c);
  EXEC(db, "CREATE TABLE t(g INTEGER, x); BEGIN");
  ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2)", -1, &st, 0), SQLITE_OK);
  for(i=0; i<nGroup; i++){
    int64_t n = h_next(&r)%200==0 ? h_range(&r, T, T+5*C) : h_range(&r, 1, 8), j;
    for(j=0; j<n; j++){
      g.profile = h_next(&r)%3==0 ? P_MIXED : (h_next(&r)%2 ? P_INT_SMALL : P_REAL_UNIT);
      sqlite3_bind_int64(st, 1, (int64_t)((i*7919) % nGroup));   /* groups interleaved */
      bindValue(&g, st, 2);
      ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
      sqlite3_reset(st);
      nRow++;
    }
  }
  sqlite3_finalize(st);
  EXEC(db, "COMMIT");

  /* References per group, in the order GROUP BY feeds them (g, then rowid). */
  ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT g, x FROM t ORDER BY g, rowid", -1, &st, 0), SQLITE_OK);
  while( sqlite3_step(st)==SQLITE_ROW ){
    Ref *p = &ref[sqlite3_column_int64(st, 0)];
    h_exact_add(&p->ex, sqlite3_column_value(st, 1));
  }
  sqlite3_finalize(st);

  ck_assert_int_eq(sqlite3_prepare_v2(db,
      "SELECT g, gpu_sum(x), sum(x), gpu_total(x), gpu_avg(x), gpu_count(x), count(x), typeof(gpu_sum(x)), typeof(sum(x))"
      " FROM t GROUP BY g ORDER BY g", -1, &st, 0), SQLITE_OK);
  while( sqlite3_step(st)==SQLITE_ROW ){
    int64_t gi = sqlite3_column_int64(st, 0);
    Ref *p = &ref[gi];
    int64_t n = nValues(p);
    double exact = h_exact_value(&p->ex);
    seen++;
    CHECK(sqlite3_column_int64(st, 5)==n && sqlite3_column_int64(st, 6)==n, "group %lld: count", (long long)gi);
    CHECK(strcmp((const char*)sqlite3_column_text(st, 7), (const char*)sqlite3_column_text(st, 8))==0,
                  "group %lld: typeof gpu_sum %s, sum %s", (long long)gi,
                  sqlite3_column_text(st, 7), sqlite3_column_text(st, 8));
    if( n==0 ) continue;
    if( p->ex.nReal==0 ){
      CHECK(sqlite3_column_int64(st, 1)==(int64_t)p->ex.isum && sqlite3_column_int64(st, 2)==(int64_t)p->ex.isum,
                    "group %lld: gpu_sum=%lld exact=%lld", (long long)gi,
                    (long long)sqlite3_column_int64(st, 1), (long long)p->ex.isum);
    }else{
      CHECK(realOk(sqlite3_column_double(st, 1), exact), "group %lld: gpu_sum=%.17g exact=%.17g",
                    (long long)gi, sqlite3_column_double(st, 1), exact);
    }
    CHECK(realOk(sqlite3_column_double(st, 3), exact), "group %lld: gpu_total", (long long)gi);
    CHECK(sqlite3_column_double(st, 4)==exact/(double)n,
                  "group %lld: gpu_avg", (long long)gi);
  }
  ck_assert_msg(sqlite3_errcode(db)==SQLITE_DONE || sqlite3_errcode(db)==SQLITE_OK, "%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  ck_assert_int_eq(seen, nGroup);
  s_expect_device(db, "group by");
  s_expect_pool_idle(db);
  free(ref);
  sqlite3_close(db);
  (void)nRow;
}
END_TEST

/* Same outcome as the builtin: same error, or same type and value; REAL
** within the builtin's own rounding (it sums naively, we exactly). */
static int sameAsBuiltin(const h_val *a, const h_val *b){
  if( a->rc!=SQLITE_OK || b->rc!=SQLITE_OK ) return a->rc==b->rc && strcmp(a->zErr, b->zErr)==0;
  if( a->type!=b->type ) return 0;
  if( a->type==SQLITE_INTEGER ) return a->i==b->i;
  if( a->type==SQLITE_FLOAT ) return a->r==b->r || fabs(a->r - b->r) <= 1e-7*fabs(b->r);
  return 1;
}

/* Aggregates used the ways SQL allows, each against the builtin spelled the
** same way. */
START_TEST(test_sql_forms){
  static const char *azForm[] = {
    "SELECT %s(DISTINCT x) FROM t",
    "SELECT %s(x) FILTER (WHERE g%%3=0) FROM t",
    "SELECT count(*) FROM (SELECT g FROM t GROUP BY g HAVING %s(x)>0)",
    "SELECT %s(x) FROM t WHERE g IN (SELECT g FROM t GROUP BY g HAVING count(*)>2)",
    "SELECT %s(a.x*b.x) FROM t a JOIN t b ON a.g=b.g AND a.rowid<b.rowid WHERE a.rowid<=3000",
    "SELECT %s(a.x) FROM t a JOIN t b ON a.rowid=b.rowid+1",
    "SELECT (SELECT %s(x) FROM t WHERE g=o.g) FROM (SELECT DISTINCT g FROM t ORDER BY g LIMIT 1 OFFSET 3) o",
    "SELECT %s(x) FROM (SELECT x FROM t ORDER BY x DESC LIMIT 5000)",
    "SELECT %s(x) FROM t WHERE 0",
  };
  static const char *azFunc[][2] = {
    { "gpu_sum", "sum" }, { "gpu_total", "total" }, { "gpu_avg", "avg" }, { "gpu_count", "count" }
  };
  sqlite3 *db = s_open(64, 10);
  size_t i, j;
  fillTable(db, "t", P_MIXED, 30000, 37, h_seed ^ 0xf0);
  for(i=0; i<sizeof(azForm)/sizeof(azForm[0]); i++){
    for(j=0; j<4; j++){
      char *zGpu = sqlite3_mprintf(azForm[i], azFunc[j][0]);
      char *zRef = sqlite3_mprintf(azForm[i], azFunc[j][1]);
      h_val a = h_query(db, "%s", zGpu), b = h_query(db, "%s", zRef);
      CHECK(sameAsBuiltin(&a, &b), "%s = %.17g/%lld (%s) but %s = %.17g/%lld (%s)",
            zGpu, a.r, (long long)a.i, a.zErr, zRef, b.r, (long long)b.i, b.zErr);
      sqlite3_free(zGpu); sqlite3_free(zRef);
    }
  }
  /* Several contexts pipelining at once in one statement. */
  CHECK(h_int(db, "SELECT gpu_sum(g)=sum(g) AND gpu_count(x)=count(x) AND abs(gpu_sum(x+g)-sum(x+g))<=1e-9*abs(sum(x+g))"
                  " AND abs(gpu_avg(x*2)-avg(x*2))<=1e-9*abs(avg(x*2)) AND abs(gpu_total(-x)-total(-x))<=1e-9*abs(total(x))"
                  " FROM t")==1, "several aggregates in one statement disagree");
  /* More pipelined aggregates than the pool has slots (16): the last ones
  ** run on one buffer, or fold on the CPU. */
  {
    sqlite3_str *q = sqlite3_str_new(db);
    char *zSql;
    int k;
    sqlite3_str_appendall(q, "SELECT 1");
    for(k=0; k<20; k++) sqlite3_str_appendf(q, " AND gpu_sum(g+%d)=sum(g+%d)", k, k);
    sqlite3_str_appendall(q, " FROM t");
    zSql = sqlite3_str_finish(q);
    CHECK(h_int(db, "%s", zSql)==1, "20 aggregates in one statement disagree");
    CHECK(h_int(db, "SELECT json_extract(gpuagg_info(), '$.slots')")==16, "the pool limit was not reached");
    sqlite3_free(zSql);
  }
  s_expect_device(db, "sql forms");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Integer overflow: the exact total decides, across chunks too. */
START_TEST(test_overflow){
  static const struct { const char *zVals; int overflow; const char *zWant; } aCase[] = {
    { "9223372036854775807, 1", 1, 0 },
    { "-9223372036854775808, -1", 1, 0 },
    { "9223372036854775807, 1, -1", 0, "9223372036854775807" },
    { "-9223372036854775808, -1, 1", 0, "-9223372036854775808" },
    { "9223372036854775807, 9223372036854775807, -9223372036854775807, -9223372036854775807", 0, "0" },
    { "9223372036854775807, 0.5", 0, "9.22337203685478e+18" },
    { "0.5, 9223372036854775807, 1", 0, "9.22337203685478e+18" },
  };
  size_t i;
  int chunk;
  for(chunk=1; chunk<=4; chunk+=3){
    sqlite3 *db = s_open(chunk, 0);
    for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++){
      h_val v;
      EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(x); INSERT INTO t SELECT value FROM json_each('[%s]')", aCase[i].zVals);
      v = h_query(db, "SELECT CAST(gpu_sum(x) AS TEXT) FROM t");
      if( aCase[i].overflow ){
        ck_assert_msg(v.rc!=SQLITE_OK && strcmp(v.zErr, "integer overflow")==0, "[%s]: want integer overflow, got rc %d", aCase[i].zVals, v.rc);
      }else{
        char *z = h_text(db, "SELECT CAST(gpu_sum(x) AS TEXT) FROM t");
        ck_assert_msg(z && strcmp(z, aCase[i].zWant)==0, "[%s]: gpu_sum=%s want %s", aCase[i].zVals, z, aCase[i].zWant);
        free(z);
      }
      /* total and avg never raise it. */
      v = h_query(db, "SELECT gpu_total(x) + gpu_avg(x) FROM t");
      ck_assert_msg(v.rc==SQLITE_OK, "[%s]: gpu_total/gpu_avg failed: %s", aCase[i].zVals, v.zErr);
    }
    /* A long run whose running total leaves int64 many times but ends inside. */
    EXEC(db, "DROP TABLE t; CREATE TABLE t(x);" SERIES(5001) "INSERT INTO t"
             " SELECT CASE WHEN value%%2 THEN 9223372036854775807 ELSE -9223372036854775807 END FROM series");
    ck_assert_int_eq(h_int(db, "SELECT gpu_sum(x) FROM t"), INT64_MAX);
    s_expect_pool_idle(db);
    sqlite3_close(db);
  }
}
END_TEST

/* ga_fpe_value, a group's total finished over the words its digits reach,
** is bit for bit what settling into every word gives (ga_sum_value): random
** expansions of doubles of every exponent (subnormals, near DBL_MAX, values
** that cancel, decimals), with and without an integer total. */
START_TEST(test_fpe_value){
  h_rng r;
  int i, j, nCase = 0;
  h_rng_init(&r, h_seed ^ 0xfe);
  for(i=0; i<400000; i++){
    ga_fpe f = { 0.0, 0.0, 0.0 };
    ga_sum a;
    __int128 iv = 0;
    double got, want;
    int n = (int)h_range(&r, 1, 9), kind = (int)h_range(&r, 0, 3), spilled = 0;
    for(j=0; j<n; j++){
      double x;
      uint64_t b = h_next(&r);
      switch( kind ){
        case 0:                    /* any finite bits */
          if( ((b >> 52) & 0x7ff)==0x7ff ) b &= ~(1ull << 62);
          memcpy(&x, &b, 8);
          break;
        case 1:                    /* decimals, as prices are */
          x = (double)h_range(&r, -10000000, 10000000)/100.0;
          break;
        case 2:                    /* near one another's magnitude, cancelling */
          x = ldexp((double)h_range(&r, -(1ll << 53), 1ll << 53), (int)h_range(&r, -60, -40));
          if( j%2 ) x = -x;
          break;
        default:                   /* far apart: subnormals beside large values */
          x = ldexp(h_unit(&r) - 0.5, (int)h_range(&r, -1074, 1023));
          break;
      }
      if( ga_fpe_add(&f, x)!=0.0 ) spilled = 1;      /* (then the words hold some of it) */
    }
    if( spilled ) continue;
    if( h_range(&r, 0, 1) ){
      iv = (__int128)(int64_t)h_next(&r);
      if( h_range(&r, 0, 1) ) iv *= (__int128)(int64_t)(h_next(&r) >> (int)h_range(&r, 1, 63));
    }
    memset(&a, 0, sizeof(a));
    a.lo = (uint64_t)iv;
    a.hi = (int64_t)(iv >> 64);
    {
      ga_fpe g = f;
      ga_sum_settle(&a, &g);
    }
    want = ga_sum_value(&a);
    got = ga_fpe_value(&f, iv);
    CHECK(memcmp(&got, &want, 8)==0, "case %d: (%a, %a, %a) + %lld:%llu gives %a, the words %a", i, f.a0, f.a1, f.a2,
          (long long)(int64_t)(iv >> 64), (unsigned long long)(uint64_t)iv, got, want);
    nCase++;
  }
  CHECK(nCase>200000, "only %d expansions held their total", nCase);
}
END_TEST

/* Data whose naive sum is far off; 3.43+'s sum is right; so must we be. */
START_TEST(test_ill_conditioned){
  static const struct { const char *zVals; double want; } aCase[] = {
    { "1e100, 1.0, -1e100", 1.0 },
    { "1.0, 1e100, 1.0, -1e100", 2.0 },
    { "1e308, 1e308, -1e308", 1e308 },        /* the builtin overflows to Inf */
    { "1e308, 1e308", INFINITY },
    { "0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1", 1.0 },
    { "9007199254740993, 1.0, -9007199254740992", 2.0 },
    { "-0.0", 0.0 },
    { "1e-320, 1e-320, -1e-320", 1e-320 },
  };
  size_t i;
  int chunk;
  for(chunk=1; chunk<=3; chunk++){
    sqlite3 *db = s_open(chunk, 0);
    for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++){
      h_val v;
      EXEC(db, "DROP TABLE IF EXISTS t; CREATE TABLE t(x); INSERT INTO t SELECT value FROM json_each('[%s]')", aCase[i].zVals);
      v = h_query(db, "SELECT gpu_total(x) FROM t");
      ck_assert_msg(v.rc==SQLITE_OK && v.r==aCase[i].want, "chunk %d, [%s]: gpu_total=%.17g want %.17g",
                    chunk, aCase[i].zVals, v.r, aCase[i].want);
    }
    sqlite3_close(db);
  }
}
END_TEST

static int stopNow(void *p){ (void)p; return 1; }

/* An interrupted multi-chunk aggregate frees its slots; the next query is right. */
START_TEST(test_interrupt){
  sqlite3 *db = s_open(1000, 0);
  h_rng r;
  int k;
  h_rng_init(&r, h_seed ^ 0x1a);
  fillTable(db, "t", P_REAL_UNIT, 200000, 0, h_seed ^ 0x1b);
  for(k=0; k<5; k++){
    int n = (int)h_range(&r, 1000, 500000);   /* the scan takes over 1M ops */
    h_val v;
    sqlite3_progress_handler(db, n, stopNow, 0);
    v = h_query(db, "SELECT gpu_sum(x) + gpu_avg(x) FROM t");
    sqlite3_progress_handler(db, 0, 0, 0);
    CHECK(v.rc==SQLITE_INTERRUPT, "interrupt after %d ops: rc %d", n, v.rc);
    s_expect_pool_idle(db);
  }
  checkAll(db, "FROM t", "after interrupts");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* The CPU and CUDA backends agree on the same data; the CUDA pass only. */
START_TEST(test_backends_agree){
  sqlite3 *db = s_open(3001, 0);
  int p;
  if( strcmp(g_backend, "cuda")!=0 ){ sqlite3_close(db); return; }
  for(p=0; p<NPROFILE; p++){
    h_val a, b;
    if( p==P_INT_WIDE ) continue;
    fillTable(db, "t", p, 20000, 0, h_seed + 31*p);
    EXEC(db, "SELECT gpuagg_backend('cpu')");
    a = h_query(db, "SELECT gpu_total(x) FROM t");
    EXEC(db, "SELECT gpuagg_backend('cuda')");
    b = h_query(db, "SELECT gpu_total(x) FROM t");
    CHECK(a.rc==SQLITE_OK && b.rc==SQLITE_OK && a.type==b.type, "%s: backends disagree on type", azProfile[p]);
    CHECK(a.type!=SQLITE_FLOAT || a.r==b.r,
                  "%s: cpu %.17g cuda %.17g", azProfile[p], a.r, b.r);
  }
  s_expect_device(db, "backends agree");
  sqlite3_close(db);
}
END_TEST

/* ---- running ----------------------------------------------------------------- */

static Suite *sumSuite(void){
  Suite *s = suite_create("sum");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_profiles_boundaries);
  tcase_add_test(tc, test_default_boundaries);
  tcase_add_test(tc, test_random_shapes);
  tcase_add_test(tc, test_group_by);
  tcase_add_test(tc, test_sql_forms);
  tcase_add_test(tc, test_overflow);
  tcase_add_test(tc, test_ill_conditioned);
  tcase_add_test(tc, test_fpe_value);
  tcase_add_test(tc, test_interrupt);
  tcase_add_test(tc, test_backends_agree);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(sumSuite);
}
