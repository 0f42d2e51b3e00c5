/*
** Differential tests of gpu_group_by against SQLite's GROUP BY and an exact
** reference, on seeded random data. Both backends, as suite.h says.
** GPUAGG_SEED=N repeats a run; GPUAGG_TEST_GROUPS=N sets the size of the
** many-groups test (default 1,000,000; the GPU run uses 10,000,000).
**
** For each data set, row for row against
**   SELECT k, count(*), count(v), min(v), max(v) FROM t GROUP BY k
** the key (same type and bits: the group's first row's key), rows, count,
** min and max exactly; sum, total and avg exactly against the correctly
** rounded exact total of the group's values (harness.c's reference, fed the
** values of SELECT v FROM t ORDER BY k segment by segment), sum's type as
** sum()'s, and "integer overflow" for the query exactly when a group's
** integers' exact total leaves int64.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

/* ---- data -------------------------------------------------------------------- */

/* Keys of mixed kinds include integers and reals near 2^53 that differ by
** one: SQLite compares them with long double, which valgrind computes in 64
** bits (so its GROUP BY would merge them); under valgrind they are left out. */

enum { K_SMALL, K_WIDE, K_MIXED, K_REAL, K_TEXT, K_BIGINT, NKEY };
static const char *azKey[] = { "small", "wide", "mixed", "real", "text", "bigint" };
enum { V_INT, V_EDGE, V_REAL, V_WIDE, V_INF, V_MIXED, NVAL };
static const char *azVal[] = { "int", "edge", "real", "wide", "inf", "mixed" };

static void bindKey(h_rng *r, sqlite3_stmt *st, int kind){
  uint64_t k = h_next(r) % 100;
  static const char *azText[] = { "", "a", "A", "ab", "b", "1", "a\0b", "zz", "\xc3\xa9" };
  switch( kind ){
    case K_SMALL: sqlite3_bind_int64(st, 1, h_range(r, 0, 9)); return;
    case K_WIDE:  sqlite3_bind_int64(st, 1, (int64_t)h_next(r)); return;
    case K_REAL:  sqlite3_bind_double(st, 1, (double)h_range(r, -20, 20)/4.0); return;
    case K_TEXT: {
      int i = (int)(h_next(r) % 9);
      sqlite3_bind_text(st, 1, azText[i], i==6 ? 3 : -1, SQLITE_STATIC);
      return;
    }
    case K_BIGINT:  /* many integers per floor double, and the limits */
      if( k<5 ) sqlite3_bind_int64(st, 1, k%2 ? INT64_MAX : INT64_MIN);
      else sqlite3_bind_int64(st, 1, ((int64_t)1 << 60) + h_range(r, -300, 300)*(k%3 ? 1 : -1));
      return;
  }
  /* K_MIXED: every class and the equalities across them. */
  if( k<8 ) sqlite3_bind_null(st, 1);
  else if( k<20 ) sqlite3_bind_int64(st, 1, h_range(r, -3, 3));
  else if( k<32 ) sqlite3_bind_double(st, 1, (double)h_range(r, -3, 3));          /* 1.0 is 1 */
  else if( k<36 ) sqlite3_bind_double(st, 1, k%2 ? -0.0 : 0.0);
  else if( k<46 ) sqlite3_bind_double(st, 1, h_range(r, -3, 3) + 0.5);
  else if( k<50 ) sqlite3_bind_double(st, 1, k%2 ? INFINITY : -INFINITY);
  else if( k<58 && getenv("GPUAGG_UNDER_VALGRIND") ) sqlite3_bind_int64(st, 1, 4);   /* see below */
  else if( k<54 ) sqlite3_bind_double(st, 1, 9007199254740992.0 + 2.0*(double)(k%2));
  else if( k<58 ) sqlite3_bind_int64(st, 1, 9007199254740993 + (int64_t)(k%3));
  else if( k<75 ) sqlite3_bind_text(st, 1, azText[h_next(r) % 9], -1, SQLITE_STATIC);
  else if( k<85 ) sqlite3_bind_blob(st, 1, azText[h_next(r) % 9], (int)(h_next(r) % 3), SQLITE_STATIC);
  else sqlite3_bind_int64(st, 1, k%2 ? INT64_MAX : INT64_MIN);
}

static void bindVal(h_rng *r, sqlite3_stmt *st, int kind){
  uint64_t k = h_next(r) % 100;
  switch( kind ){
    case V_INT:  sqlite3_bind_int64(st, 2, h_range(r, -1000000000, 1000000000)); return;
    case V_EDGE: sqlite3_bind_int64(st, 2, k<30 ? (k%2 ? INT64_MAX : INT64_MIN+1) : h_range(r, -9, 9)); return;
    case V_REAL: sqlite3_bind_double(st, 2, (h_unit(r) - 0.5)*2e6); return;
    case V_WIDE:
      sqlite3_bind_double(st, 2, (k%2 ? 1 : -1)*ldexp(1.0 + h_unit(r), (int)h_range(r, -1074, 1000)));
      return;
    case V_INF:
      if( k<3 ) sqlite3_bind_double(st, 2, k%2 ? INFINITY : -INFINITY);
      else sqlite3_bind_double(st, 2, h_unit(r)*100.0);
      return;
  }
  /* V_MIXED */
  if( k<10 ) sqlite3_bind_null(st, 2);
  else if( k<14 ) sqlite3_bind_text(st, 2, k%2 ? "12" : "2.5", -1, SQLITE_STATIC);
  else if( k<17 ) sqlite3_bind_text(st, 2, k%2 ? "abc" : "", -1, SQLITE_STATIC);
  else if( k<19 ) sqlite3_bind_blob(st, 2, k%2 ? "7" : "\x01", 1, SQLITE_STATIC);
  else if( k<22 ) sqlite3_bind_double(st, 2, k%2 ? -0.0 : 0.0);
  else if( k<60 ) sqlite3_bind_int64(st, 2, h_range(r, -50, 50));
  else sqlite3_bind_double(st, 2, (double)h_range(r, -50, 50));                 /* ties with the ints */
}

/* Table zTab(k, v) with n rows. */
static void fill(sqlite3 *db, const char *zTab, int kKind, int vKind, int64_t n, uint64_t seed){
  sqlite3_stmt *st;
  h_rng r;
  int64_t i;
  char *zSql = sqlite3_mprintf("INSERT INTO \"%w\" VALUES(?1, ?2)", zTab);
  h_rng_init(&r, seed);
  EXEC(db, "DROP TABLE IF EXISTS \"%w\"; CREATE TABLE \"%w\"(k, v); BEGIN", zTab, zTab);
  ck_assert_int_eq(sqlite3_prepare_v2(db, zSql, -1, &st, 0), SQLITE_OK);
  for(i=0; i<n; i++){
    bindKey(&r, st, kKind);
    bindVal(&r, st, vKind);
    if( sqlite3_step(st)!=SQLITE_DONE ) break;
    sqlite3_reset(st);
  }
  CHECK(i==n, "fill: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  sqlite3_free(zSql);
  EXEC(db, "COMMIT");
}

/* ---- the check ------------------------------------------------------------------- */

/* Cell i of st for a message: its type's letter and its text. */
static void cellText(sqlite3_stmt *st, int i, char *z, size_t n){
  int t = sqlite3_column_type(st, i);
  const char *x = t==SQLITE_NULL ? "" : (const char*)sqlite3_column_text(st, i);
  snprintf(z, n, "%c:%.60s", "?irtbn"[t], x ? x : "");
}

/* Statements that judge a cell where SQLite's GROUP BY picks an unspecified
** row among equal values (1 and 1.0, 0.0 and -0.0: its sorter's order):
** ours must then be the first such value in scan order. */
typedef struct Judge {
  sqlite3_stmt *eq;         /* SELECT ?1 = ?2 */
  sqlite3_stmt *key;        /* the first row's key of group ?1 */
  sqlite3_stmt *val;        /* the first value equal to ?2 in group ?1 */
} Judge;

/* Cell i of o agrees with cell j of f, of the group whose key is cell 0 of
** f (isKey: the cells are that key). */
static int agree(Judge *J, sqlite3_stmt *o, int i, sqlite3_stmt *f, int j, int isKey){
  sqlite3_stmt *q = isKey ? J->key : J->val;
  int ok;
  if( s_same_cells(o, i, f, j) ) return 1;
  sqlite3_bind_value(J->eq, 1, sqlite3_column_value(o, i));
  sqlite3_bind_value(J->eq, 2, sqlite3_column_value(f, j));
  ok = sqlite3_step(J->eq)==SQLITE_ROW && sqlite3_column_int(J->eq, 0)==1
    && sqlite3_column_type(f, j)!=SQLITE_TEXT && sqlite3_column_type(f, j)!=SQLITE_BLOB;
  sqlite3_reset(J->eq);
  if( !ok ) return 0;
  sqlite3_bind_value(q, 1, sqlite3_column_value(f, 0));
  if( !isKey ) sqlite3_bind_value(q, 2, sqlite3_column_value(f, j));
  ok = sqlite3_step(q)==SQLITE_ROW && s_same_cells(o, i, q, 0);
  sqlite3_reset(q);
  return ok;
}

/* The first difference found (Check writes to a pipe on every assertion:
** per-row checks record, one assertion reports). */
static char zFail[512];
#define FAIL_IF(cond, ...) do{ if( (cond) && !zFail[0] ) snprintf(zFail, sizeof(zFail), __VA_ARGS__); }while(0)

/* The reference's exact sums of one group. */
typedef struct Ref {
  __int128 isum;            /* integers' total */
  double t;                 /* everything's total, correctly rounded */
  int64_t nInt, nReal;      /* values by lane */
} Ref;

/* Exact sums, group by group (from w: the values in the order of the
** groups of f); *pOverflow when one group's integers leave int64. */
static Ref *refSums(sqlite3_stmt *f, sqlite3_stmt *w, int64_t *pnGroup, int *pOverflow){
  Ref *ex = 0;
  int64_t nGroup = 0;
  h_exact e;
  while( sqlite3_step(f)==SQLITE_ROW ){
    int64_t n = sqlite3_column_int64(f, 1), k;
    if( (nGroup & (nGroup - 1))==0 ) ex = realloc(ex, sizeof(*ex)*(size_t)(nGroup ? 2*nGroup : 1));
    h_exact_init(&e);
    for(k=0; k<n && sqlite3_step(w)==SQLITE_ROW; k++) h_exact_add(&e, sqlite3_column_value(w, 0));
    ex[nGroup].isum = e.isum;
    ex[nGroup].t = h_exact_value(&e);
    ex[nGroup].nInt = e.nInt;
    ex[nGroup].nReal = e.nReal;
    if( e.nReal==0 && e.nInt>0 && (e.isum<INT64_MIN || e.isum>INT64_MAX) ) *pOverflow = 1;
    nGroup++;
  }
  sqlite3_reset(f);
  *pnGroup = nGroup;
  return ex;
}

/* Our row o against GROUP BY's row f and the exact sums e. */
static void checkRow(Judge *J, sqlite3_stmt *o, sqlite3_stmt *f, const Ref *e, int64_t i, const char *zWhat){
  char za[128], zb[128], zc[128];
  int64_t n = e->nInt + e->nReal;
  int k;
  cellText(o, 0, za, sizeof(za));
  cellText(f, 0, zb, sizeof(zb));
  FAIL_IF(!agree(J, o, 0, f, 0, 1), "%s: group %lld: key %s, want %s", zWhat, (long long)i, za, zb);
  FAIL_IF(sqlite3_column_int64(o, 1)!=sqlite3_column_int64(f, 1), "%s: group %s: rows", zWhat, zb);
  FAIL_IF(sqlite3_column_int64(o, 2)!=sqlite3_column_int64(f, 2), "%s: group %s: count", zWhat, zb);
  for(k=3; k<=4 && !zFail[0]; k++){
    cellText(o, k, za, sizeof(za));
    cellText(f, k, zc, sizeof(zc));
    FAIL_IF(!agree(J, o, k, f, k, 0), "%s: group %s: %s %s, want %s", zWhat, zb, k==3 ? "min" : "max", za, zc);
  }
  if( n==0 ){
    FAIL_IF(sqlite3_column_type(o, 5)!=SQLITE_NULL, "%s: group %s: sum of nothing", zWhat, zb);
  }else if( e->nReal==0 ){
    FAIL_IF(sqlite3_column_type(o, 5)!=SQLITE_INTEGER || sqlite3_column_int64(o, 5)!=(int64_t)e->isum,
            "%s: group %s: integer sum", zWhat, zb);
  }else{
    FAIL_IF(!s_is_double(o, 5, e->t), "%s: group %s: sum %.17g, exact %.17g", zWhat, zb, sqlite3_column_double(o, 5), e->t);
  }
  FAIL_IF(!s_is_double(o, 6, n ? e->t : 0.0), "%s: group %s: total", zWhat, zb);
  if( n ) FAIL_IF(!s_is_double(o, 7, e->t/(double)n), "%s: group %s: avg", zWhat, zb);
  else FAIL_IF(sqlite3_column_type(o, 7)!=SQLITE_NULL, "%s: group %s: avg of nothing", zWhat, zb);
}

/* gpu_group_by(zTab, zKey, zVal) against the reference; the number of
** groups (-1: a group overflows, and the query said so). */
static int64_t checkGroups(sqlite3 *db, const char *zTab, const char *zKey, const char *zVal, const char *zWhat){
  char *zOurs = sqlite3_mprintf("SELECT key, rows, count, min, max, sum, total, avg FROM gpu_group_by(%Q, %Q, %Q)",
                                zTab, zKey, zVal);
  char *zRef = sqlite3_mprintf("SELECT \"%w\", count(*), count(\"%w\"), min(\"%w\"), max(\"%w\") FROM \"%w\" GROUP BY 1",
                               zKey, zVal, zVal, zVal, zTab);
  char *zVals = sqlite3_mprintf("SELECT \"%w\" FROM \"%w\" ORDER BY \"%w\"", zVal, zTab, zKey);
  char *zKey1 = sqlite3_mprintf("SELECT \"%w\" FROM \"%w\" WHERE \"%w\" IS ?1 ORDER BY rowid LIMIT 1", zKey, zTab, zKey);
  char *zVal1 = sqlite3_mprintf("SELECT \"%w\" FROM \"%w\" WHERE \"%w\" IS ?1 AND \"%w\" IS ?2 ORDER BY rowid LIMIT 1",
                                zVal, zTab, zKey, zVal);
  sqlite3_stmt *o, *f, *w;
  Judge J = { 0, 0, 0 };
  int64_t nGroup = 0, i;
  int rc, overflow = 0;
  Ref *ex;
  zFail[0] = 0;
  ck_assert_int_eq(sqlite3_prepare_v2(db, zRef, -1, &f, 0), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(db, zVals, -1, &w, 0), SQLITE_OK);
  ex = refSums(f, w, &nGroup, &overflow);
  sqlite3_finalize(w);
  ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT ?1 = ?2", -1, &J.eq, 0), SQLITE_OK);
  sqlite3_prepare_v2(db, zKey1, -1, &J.key, 0);   /* views have no rowid: then only exact matches */
  sqlite3_prepare_v2(db, zVal1, -1, &J.val, 0);
  CHECK(sqlite3_prepare_v2(db, zOurs, -1, &o, 0)==SQLITE_OK, "%s: %s", zWhat, sqlite3_errmsg(db));
  for(i=0; (rc = sqlite3_step(o))==SQLITE_ROW && !zFail[0]; i++){
    FAIL_IF(overflow, "%s: a group overflows, yet a row came", zWhat);
    FAIL_IF(i>=nGroup || sqlite3_step(f)!=SQLITE_ROW, "%s: more groups than GROUP BY's %lld", zWhat, (long long)nGroup);
    if( !zFail[0] ) checkRow(&J, o, f, &ex[i], i, zWhat);
  }
  CHECK(!zFail[0], "%s", zFail);
  if( overflow ){
    CHECK(rc==SQLITE_ERROR && strstr(sqlite3_errmsg(db), "integer overflow"), "%s: want integer overflow, got %s",
          zWhat, rc==SQLITE_DONE ? "rows" : sqlite3_errmsg(db));
  }else{
    CHECK(rc==SQLITE_DONE, "%s: %s", zWhat, sqlite3_errmsg(db));
    CHECK(i==nGroup, "%s: %lld groups, GROUP BY has %lld", zWhat, (long long)i, (long long)nGroup);
  }
  sqlite3_finalize(o);
  sqlite3_finalize(f);
  sqlite3_finalize(J.eq);
  sqlite3_finalize(J.key);
  sqlite3_finalize(J.val);
  sqlite3_free(zOurs);
  sqlite3_free(zRef);
  sqlite3_free(zVals);
  sqlite3_free(zKey1);
  sqlite3_free(zVal1);
  free(ex);
  return overflow ? -1 : nGroup;
}

/* ---- tests ------------------------------------------------------------------------ */

/* Every key and value kind, sizes across the chunk boundaries (1000-value
** chunks hold 464 rows). */
START_TEST(test_kinds_and_sizes){
  const int64_t sizes[] = { 0, 1, 299, 463, 464, 465, 3*464+7, 20000 };
  sqlite3 *db = s_open(1000, 300);
  int kk, vk;
  size_t i;
  for(kk=0; kk<NKEY; kk++){
    for(vk=0; vk<NVAL; vk++){
      for(i=0; i<sizeof(sizes)/sizeof(sizes[0]); i++){
        char zWhat[96];
        if( sizes[i]>465 && (kk+vk+(int)i)%3 ) continue;   /* the big sizes for a third of the pairs */
        snprintf(zWhat, sizeof(zWhat), "keys %s, values %s, %lld rows", azKey[kk], azVal[vk], (long long)sizes[i]);
        fill(db, "t", kk, vk, sizes[i], h_seed + 1000*kk + 10*vk + i);
        checkGroups(db, "t", "k", "v", zWhat);
      }
    }
  }
  s_expect_device(db, "kinds and sizes");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* One group; every key distinct; 90% of the rows on one key; the key
** column as the value too (chunks of 30,832 rows). */
START_TEST(test_shapes){
  sqlite3 *db = s_open(1<<16, 4096);
  EXEC(db, "CREATE TABLE one(k, v);" SERIES(300000) "INSERT INTO one SELECT 7, value*0.5 FROM series");
  CHECK(checkGroups(db, "one", "k", "v", "one group")==1, "one group");
  EXEC(db, "CREATE TABLE dis(k, v);" SERIES(300000) "INSERT INTO dis SELECT value*7919 %% 1000003, value FROM series");
  CHECK(checkGroups(db, "dis", "k", "v", "all distinct")==300000, "all distinct");
  EXEC(db, "CREATE TABLE skew(k, v);" SERIES(300000)
           "INSERT INTO skew SELECT CASE WHEN value%%10 THEN 42 ELSE value END, value%%1000 - 0.25 FROM series");
  checkGroups(db, "skew", "k", "v", "skewed");
  checkGroups(db, "skew", "k", "k", "key as value");
  checkGroups(db, "skew", "v", "k", "grouped by a real");
  s_expect_device(db, "shapes");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Many groups: GPUAGG_TEST_GROUPS distinct keys (default 200,000; the GPU
** run 10M), shuffled, then 90% on one; chunks of 493,440 rows, or 7,696
** below a million rows (several either way). */
START_TEST(test_many_groups){
  const char *z = getenv("GPUAGG_TEST_GROUPS");
  int64_t n = z ? atoll(z) : 200000;
  sqlite3 *db = s_open(n>=1000000 ? 1<<20 : 1<<14, 4096);
  char zWhat[64];
  EXEC(db, "CREATE TABLE m(k INTEGER, v REAL);" "WITH RECURSIVE s(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM s WHERE i<%lld) "
           "INSERT INTO m SELECT (i*2654435761) %% %lld, i*0.125 FROM s", (long long)n, (long long)n + 7);
  snprintf(zWhat, sizeof(zWhat), "%lld groups", (long long)n);
  CHECK(checkGroups(db, "m", "k", "v", zWhat)==n, "%s", zWhat);
  EXEC(db, "UPDATE m SET k = 5 WHERE rowid %% 10 <> 0");
  checkGroups(db, "m", "k", "v", "90% on one key");
  s_expect_device(db, "many groups");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Integer overflow: of the exact total only, for the whole query. */
START_TEST(test_overflow){
  sqlite3 *db = s_open(64, 0);
  EXEC(db, "CREATE TABLE o(k, v); INSERT INTO o VALUES(1, 9223372036854775807), (1, 1), (1, -1), (2, 5)");
  CHECK(h_int(db, "SELECT sum FROM gpu_group_by('o', 'k', 'v') WHERE key=1")==INT64_MAX,
        "an intermediate overflow does not matter");
  EXEC(db, "INSERT INTO o VALUES(2, 9223372036854775807)");
  {
    h_val r = h_query(db, "SELECT count(*) FROM gpu_group_by('o', 'k', 'v')");
    CHECK(r.rc!=SQLITE_OK && strstr(r.zErr, "integer overflow"), "overflow: %s", r.rc ? r.zErr : "no error");
  }
  EXEC(db, "INSERT INTO o VALUES(2, 0.5)");        /* now REAL: no error */
  CHECK(h_int(db, "SELECT count(*) FROM gpu_group_by('o', 'k', 'v')")==2, "a real makes it REAL");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* Names, schemas, views, transactions and every argument error. */
START_TEST(test_names_and_errors){
  static const s_error aErr[] = {
    { "SELECT * FROM gpu_group_by('nope', 'k', 'v')", "gpu_group_by: no such table: nope" },
    { "SELECT * FROM gpu_group_by('t', 'nope', 'v')", "gpu_group_by: no such column: nope in t" },
    { "SELECT * FROM gpu_group_by('t', 'k', 'nope')", "gpu_group_by: no such column: nope in t" },
    { "SELECT * FROM gpu_group_by('t', 'k')", "gpu_group_by: takes (source, key, value)" },
    { "SELECT * FROM gpu_group_by('t')", "gpu_group_by: takes (source, key, value)" },
    { "SELECT * FROM gpu_group_by()", "gpu_group_by: takes (source, key, value)" },
    { "SELECT * FROM gpu_group_by('t', 'k', 'v', 1)", "too many arguments on gpu_group_by()" },
    { "SELECT * FROM gpu_group_by(NULL, 'k', 'v')", "gpu_group_by: source, key and value must be names" },
    { "SELECT * FROM gpu_group_by('t', NULL, 'v')", "must be names" },
    { "SELECT * FROM gpu_group_by('nope.t', 'k', 'v')", "gpu_group_by: no such table: nope.t" },
    { "SELECT * FROM vg", "unsafe use of virtual table" },
  };
  sqlite3 *db = s_open(64, 0);
  EXEC(db, "CREATE TABLE t(k, v); INSERT INTO t VALUES(1, 2), (1, 3), ('x', 4);"
           "CREATE VIEW vg AS SELECT * FROM gpu_group_by('t', 'k', 'v')");
  s_expect_errors(db, aErr, (int)(sizeof(aErr)/sizeof(aErr[0])));
  CHECK(h_query(db, "SELECT * FROM gpu_group_by('t\"; DROP TABLE t; --', 'k', 'v')").rc!=SQLITE_OK, "injection");
  CHECK(h_query(db, "SELECT * FROM gpu_group_by('t', 'k\"); DROP TABLE t; --', 'v')").rc!=SQLITE_OK, "injection");
  CHECK(h_int(db, "SELECT count(*) FROM t")==3, "the table survived");
  /* Odd names, column case, a view, schemas, a table named with a dot, a
  ** generated column. */
  EXEC(db, "CREATE TABLE \"odd \"\"name\"\"; t\"(\"key x\", \"val;y\"); INSERT INTO \"odd \"\"name\"\"; t\" SELECT * FROM t");
  checkGroups(db, "odd \"name\"; t", "key x", "val;y", "odd names");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_group_by('odd \"name\"; t', 'KEY X', 'VAL;Y')")==2, "column names ignore case");
  EXEC(db, "CREATE VIEW w AS SELECT v AS k, k AS v FROM t");
  checkGroups(db, "w", "k", "v", "a view");
  EXEC(db, "ATTACH ':memory:' AS aux; CREATE TABLE aux.t(k, v); INSERT INTO aux.t VALUES(5, 1), (5, 2), (6, 3)");
  CHECK(h_int(db, "SELECT sum(rows) * 10 + count(*) FROM gpu_group_by('aux.t', 'k', 'v')")==32, "aux.t");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_group_by('main.t', 'k', 'v')")==2, "main.t");
  EXEC(db, "CREATE TABLE \"a.b\"(k, v); INSERT INTO \"a.b\" VALUES(1, 1)");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_group_by('a.b', 'k', 'v')")==1, "a table named a.b");
  EXEC(db, "CREATE TABLE gen(a, b AS (a*2), c AS (a%%3) STORED); INSERT INTO gen(a) VALUES(1), (2), (3), (4)");
  checkGroups(db, "gen", "c", "b", "generated columns");
  /* The current transaction's rows. */
  EXEC(db, "BEGIN; INSERT INTO t VALUES(9, 9)");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_group_by('t', 'k', 'v')")==3, "uncommitted rows");
  EXEC(db, "ROLLBACK");
  /* Empty. */
  EXEC(db, "CREATE TABLE e(k, v)");
  CHECK(h_int(db, "SELECT count(*) FROM gpu_group_by('e', 'k', 'v')")==0, "empty source");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

/* An interrupted scan stops with SQLITE_INTERRUPT; the next query is right. */
START_TEST(test_interrupt){
  sqlite3 *db = s_open(1000, 0);
  int k;
  fill(db, "t", K_SMALL, V_REAL, 200000, h_seed ^ 0x61);
  for(k=0; k<3; k++) s_expect_interrupt(db, "SELECT count(*) FROM gpu_group_by('t', 'k', 'v')", k);
  checkGroups(db, "t", "k", "v", "after interrupts");
  s_expect_pool_idle(db);
  sqlite3_close(db);
}
END_TEST

static Suite *groupSuite(void){
  Suite *s = suite_create("group_by");
  TCase *tc = tcase_create(g_backend);
  tcase_set_timeout(tc, 1800);
  tcase_add_test(tc, test_names_and_errors);
  tcase_add_test(tc, test_overflow);
  tcase_add_test(tc, test_kinds_and_sizes);
  tcase_add_test(tc, test_shapes);
  tcase_add_test(tc, test_interrupt);
  tcase_add_test(tc, test_many_groups);
  suite_add_tcase(s, tc);
  return s;
}

int main(void){
  return s_main(groupSuite);
}
