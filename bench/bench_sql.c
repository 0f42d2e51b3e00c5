/*
** SQL-level benchmark: gpu_* aggregates against the builtins, in one run, as
** time ratios (gpu / builtin; below 1.0 the gpu_* query is faster).
**
**   1. A query under the 64K-row threshold, first, and a check that it
**      neither loaded the CUDA driver nor created a context.
**   2. 10M rows: sum / total / avg of an INTEGER and a REAL column, on the
**      connection's backend (auto) and on the CPU backend.
**   3. GROUP BY with 100,000 groups over the same 10M rows.
**   3b. Extremes at 10M rows: gpu_max / gpu_min against max / min, and
**      gpu_argmax against the reference query ORDER BY x DESC, rowid LIMIT 1,
**      on the connection's backend and on the CPU backend.
**   3c. gpu_histogram('t','x',256) against the GROUP BY query that counts
**      the same bins (given the range), with the range given and found
**      (one scan; and two, with gpuagg_config('resident', 0)), on the
**      connection's backend and on the CPU backend.
**   3d. gpu_group_by('g', 'k', 'x') against the builtin GROUP BY with the
**      same aggregates (count(*), count, sum, total, avg, min, max), and
**      for 256 and 100,000 groups against SELECT k, sum(x) ... GROUP BY k,
**      on tables g(k, x) of `rows` rows whose keys make 256, 100,000 and
**      `rows` groups, uniform and skewed (90% of the rows on one key);
**      connection's backend and CPU (BENCH_GROUP_CPU=0: not the CPU).
**   3e. gpu_summary of a 5-column table of `rows` rows against the builtin
**      query with the same figures (count(*), count, counts by type, min,
**      max, sum, total, avg, total(x*x) for the variance) per column,
**      and against one with only count, min, max, sum and avg per column.
**   3f. Statistics and windows (stats): gpu_median and gpu_percentile_cont
**      against the percentile extension's algorithm (every value kept,
**      quicksorted at the end) and a sort-based SQL median, gpu_var_samp
**      against SQL's sums, window sums and maxima (ROWS 999 PRECEDING, 1M
**      rows) against the builtins'.
**   3g. Every aggregate's per-row cost (aggs): gpu_sum, gpu_count, gpu_min,
**      gpu_max, gpu_argmin, gpu_argmax against sum, count, min, max, and for
**      the argument functions ORDER BY ... LIMIT 1 ungrouped and min / max
**      grouped (and, grouped, gpu_argmax against max(x), count(k): the builtin
**      reading the same two columns), ungrouped and GROUP BY with groups of
**      1,000 and of 100,000 rows; on tables in a file (BENCH_AGGS_DB) that processes share, so
**      that scripts/gpu-compare.sh can alternate two builds, a process each.
**   4. sum(i) and sum(x) again at other chunk sizes (GPUAGG_BENCH_CHUNKS, a
**      comma-separated list; default 262144,65536,direct): does a chunk that
**      stays in the CPU's cache make appending cheaper? "direct" folds every
**      row in the step function (threshold above the row count): the cost of
**      the step itself, without the pipeline.
**
**   6. The page source (pages): a 5-column table p in a file (BENCH_DB),
**      gpu_summary, gpu_histogram and gpu_group_by (256 and 100,000 groups)
**      against the builtin SQL and the statement source, on one thread and
**      every core; gpu_summary at the row counts of BENCH_PAGES_SCALE.
**
**   5. Scaling: sum(x) against gpu_sum(x), CUDA and CPU backends, at the row
**      counts of BENCH_SCALE (default 65536,262144,1048576,4194304,10000000;
**      counts above the table's are filled anew), as rows per second.
**
**   7. The column cache (cache): the second and later runs of each
**      table-valued function on p, against the builtin SQL and DuckDB in
**      memory (BENCH_DUCKDB: libduckdb.so or scripts/get-duckdb.sh's .xz),
**      and where a cached query's time goes.
**
**   8. Every device (devices): on p, one device against all of them
**      (gpuagg_config 'devices'), each answer checked to be the same bits:
**      cached gpu_summary, gpu_histogram and gpu_group_by (the kept columns
**      split across the devices), end to end and on the devices alone
**      (cache.device_ms); aggregates through the row loop; cold scans that
**      decode the pages (the cache off).
**
**   9. Flights (flights, issue 26): a table shaped like US flights, f(date
**      TEXT 'YYYY-MM-DD HH:MM', origin TEXT, dest TEXT, delay INTEGER,
**      distance INTEGER, airtime REAL) of `rows` rows, made from a seed in a
**      file (BENCH_FLIGHTS_DB, default /tmp/gpuagg-flights.db) and kept:
**      gpu_group_by with TEXT keys (origin, dest; ~300 airports, Zipf-ish),
**      the INTEGER key distance as a control, and the month of a view; and
**      gpu_summary of the 6 columns, without quartiles and with them:
**      against the builtin SQL (the same figures, numeric ones over INTEGER
**      and REAL values only), each function's first run (column cache
**      emptied, then at BENCH_FLIGHTS_CACHE bytes, default -1) and its
**      repeated runs, and DuckDB in memory (BENCH_DUCKDB;
**      its SUMMARIZE for the summary with quartiles); each answer checked
**      against the builtin's. Heavy: not in the default sections
**      (BENCH_FLIGHTS_PART=group or summary runs one half).
**
**  10. Queries (query, issue 27): TPC-H Q1 and Q6 on a generated lineitem
**      table (bench/lineitem.c; BENCH_QUERY_DB, default
**      /tmp/gpuagg-lineitem.db) and flights-like GROUP BY questions on the
**      flights section's table: the builtin SQL against gpu_query on the
**      CPU backend (its first run on a fresh connection, its repeated runs)
**      and DuckDB in memory (BENCH_DUCKDB); each gpu_query answer checked
**      against the builtin's with gpu_sum/gpu_total/gpu_avg. Heavy: not in
**      the default sections (BENCH_QUERY_PART=tpch or flights runs one
**      part; the other knobs at querySection). A third part, ssb, runs only
**      when named (BENCH_QUERY_PART=ssb, or BENCH_QUERY_ONLY naming one of
**      its queries): the Star Schema Benchmark's 13 queries, Q1.1-Q4.3, on
**      its five tables generated at scale factor BENCH_SSB_SF (default 1;
**      bench/ssb.c) in BENCH_SSB_DB (default /tmp/gpuagg-ssb.db). A fourth,
**      tpchj, likewise only when named (BENCH_QUERY_PART=tpchj, or
**      BENCH_QUERY_ONLY naming one of h3,h4,h5,h10,h12,h14,h19): TPC-H's join
**      queries Q3, Q5, Q10, Q12, Q14 and Q19 on its eight tables generated
**      at scale factor BENCH_TPCH_SF (default 1; bench/tpch.c, lineitem's
**      lines drawn with their orders by bench/lineitem.c's generator) in
**      BENCH_TPCH_DB (default /tmp/gpuagg-tpch.db; with BENCH_TPCH_KEYS=1
**      the spec's composite keys on partsupp and lineitem and ANALYZE,
**      /tmp/gpuagg-tpch-keys.db).
**
** Each figure is the median of several runs, builtin and gpu_* alternating.
** Usage: bench_sql [rows] [runs] [sections]   (GPUAGG_MODULE names the module;
** sections: a comma-separated subset of small,rows,extremes,hist,groupby,
** group,summary,stats,aggs,chunks,scale,pages,cache,devices,flights,query; the
** default leaves out aggs, cache, devices, flights and query). BENCH_OUT=dir also writes dir/sql.csv (every comparison)
** and dir/scale.csv (rows per second by row count).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "duck.h"
#include "lineitem.h"
#include "ssb.h"
#include "tpch.h"
#include "tpch22.h"

static int nRun = 5;
/* gpu_summary's columns other than distinct (which the builtin statistics
** queries here do not compute): the figures compared, and the same query
** on builds from before distinct. */
#define SUMMARY_COLS "name, rows, nulls, integers, reals, texts, blobs, min, max, sum, total, avg, var_samp, var_pop," \
                     " stddev_samp, stddev_pop, q25, median, q75"
static const char *zSections = "small,rows,extremes,hist,groupby,group,summary,stats,chunks,scale,pages";
static FILE *gCsv;                  /* sql.csv, or NULL */
static FILE *gQcsv;                 /* query.csv (gpu_query's section, for its plot), or NULL */
static const char *gSection = "";   /* the section being run, for the CSV */
static int64_t gRows;               /* rows the compared queries read, for the CSV */
static const char *gBackend = "auto";  /* the backend they ran on, for the CSV (asking the
                                    ** module would probe CUDA: the small queries must not) */

static int want(const char *z){ return strstr(zSections, z)!=0; }

static int cmpDouble(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

/* Time one statement: step to the end, return seconds (exit on error). */
static double timeQuery(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st;
  double t0 = h_now();
  int rc;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    fprintf(stderr, "prepare %s: %s\n", zSql, sqlite3_errmsg(db));
    exit(1);
  }
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){}
  if( rc!=SQLITE_DONE ){
    fprintf(stderr, "%s: %s\n", zSql, sqlite3_errmsg(db));
    exit(1);
  }
  sqlite3_finalize(st);
  return h_now() - t0;
}

/* Median seconds of the builtin and the gpu_* query, runs interleaved, into
** *pBuiltin and *pGpu if not NULL. */
static void compare2(sqlite3 *db, const char *zLabel, const char *zBuiltin, const char *zGpu, int reps,
                     double *pBuiltin, double *pGpu){
  double tb[64], tg[64], mb, mg;
  int i;
  timeQuery(db, zGpu);                        /* warm-up: pool, context */
  for(i=0; i<nRun; i++){
    double t = 0, u = 0;
    int k;
    for(k=0; k<reps; k++){
      if( (i+k)&1 ){             /* alternate which runs first */
        u += timeQuery(db, zGpu);
        t += timeQuery(db, zBuiltin);
      }else{
        t += timeQuery(db, zBuiltin);
        u += timeQuery(db, zGpu);
      }
    }
    tb[i] = t/reps;
    tg[i] = u/reps;
  }
  qsort(tb, nRun, sizeof(double), cmpDouble);
  qsort(tg, nRun, sizeof(double), cmpDouble);
  mb = tb[nRun/2];
  mg = tg[nRun/2];
  printf("| %-44s | %10.3f | %10.3f | %6.3f |\n", zLabel, mb*1e3, mg*1e3, mg/mb);
  fflush(stdout);
  if( gCsv ){
    const char *z;
    fprintf(gCsv, "%s,\"", gSection);
    for(z=zLabel; *z; z++) fputc(*z==',' ? ';' : *z, gCsv);
    fprintf(gCsv, "\",%lld,%s,%.3f,%.3f,%.4f,%.0f,%.0f\n", (long long)gRows, gBackend, mb*1e3, mg*1e3,
            mg/mb, gRows/mb, gRows/mg);
  }
  if( pBuiltin ) *pBuiltin = mb;
  if( pGpu ) *pGpu = mg;
}

static void compare(sqlite3 *db, const char *zLabel, const char *zBuiltin, const char *zGpu, int reps){
  compare2(db, zLabel, zBuiltin, zGpu, reps, 0, 0);
}

/* Switch the connection's backend: b 0 is the default (auto), 1 the CPU. */
static void useBackend(sqlite3 *db, int b, const char *zAuto){
  h_exec(db, "SELECT gpuagg_backend('%s')", b ? "cpu" : "auto");
  gBackend = b ? "cpu" : zAuto;
}

static void fill(sqlite3 *db, const char *zTab, int64_t n, int64_t nGroup){
  sqlite3_stmt *st;
  h_rng r;
  int64_t i;
  char *zSql;
  double t0 = h_now();
  h_rng_init(&r, 42);
  h_exec(db, "CREATE TABLE \"%w\"(k INTEGER, i INTEGER, x REAL); BEGIN", zTab);
  zSql = sqlite3_mprintf("INSERT INTO \"%w\" VALUES(?1, ?2, ?3)", zTab);
  sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  for(i=0; i<n; i++){
    sqlite3_bind_int64(st, 1, (int64_t)(h_next(&r) % (uint64_t)nGroup));
    sqlite3_bind_int64(st, 2, h_range(&r, -1000000000, 1000000000));
    sqlite3_bind_double(st, 3, (h_unit(&r) - 0.5)*1e6);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  h_exec(db, "COMMIT");
  fprintf(stderr, "# %s: %lld rows in %.1f s\n", zTab, (long long)n, h_now() - t0);
}

static double qDouble(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st;
  double x = 0.0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    x = sqlite3_column_double(st, 0);
  }
  sqlite3_finalize(st);
  return x;
}

static void info(sqlite3 *db, const char *zWhen){
  char *z = h_text(db, "SELECT gpuagg_info()");
  printf("\n%s: %s\n", zWhen, z ? z : "?");
  free(z);
}

/* The table p(k, g, x, y, z) of n rows in the file zFile (harness.c:
** bench_scan.c reads the same one), opened with the module, the page cache
** warm. */
static sqlite3 *pagesTable(const char *zFile, int64_t n){
  char *zErr = 0;
  sqlite3 *db = h_open_file(zFile, &zErr);
  if( db==0 ){
    fprintf(stderr, "%s: %s\n", zFile, zErr);
    exit(1);
  }
  h_bench_table(db, zFile, n);
  h_int(db, "SELECT count(*), sum(length(k)) FROM p");
  h_exec(db, "SELECT gpuagg_config('cache', 0)");     /* every query reads the table */
  return db;
}

/* Median seconds of zSql on db over nRun runs (after one warm-up). */
static double medianOf(sqlite3 *db, const char *zSql){
  double t[64];
  int i;
  timeQuery(db, zSql);
  for(i=0; i<nRun; i++) t[i] = timeQuery(db, zSql);
  qsort(t, nRun, sizeof(double), cmpDouble);
  return t[nRun/2];
}

/* 3g. The tables a3 (groups of 1,000 rows) and a5 (of 100,000) of n rows,
** WITHOUT ROWID with the group first in the key, so a GROUP BY reads them in
** order and spends no time sorting: what is left is the scan and the
** aggregates' steps. x is random and in no order within a group. Made
** once in the file zFile; a later process opens them as they are. */
static sqlite3 *aggsTables(const char *zFile, int64_t n){
  char *zErr = 0;
  sqlite3 *db = h_open_file(zFile, &zErr);
  int g;
  if( db==0 ){
    fprintf(stderr, "%s: %s\n", zFile, zErr);
    exit(1);
  }
  for(g=3; g<=5; g+=2){
    int64_t nGroup = g==3 ? 1000 : 100000;
    double t0 = h_now();
    if( h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name='a%d'", g)
     && h_int(db, "SELECT count(*) FROM a%d", g)==n ) continue;
    h_exec(db, "DROP TABLE IF EXISTS a%d; CREATE TABLE a%d(g INTEGER, n INTEGER, k INTEGER, x REAL,"
               " PRIMARY KEY(g, n)) WITHOUT ROWID;"
               "WITH RECURSIVE s(r) AS (VALUES(0) UNION ALL SELECT r+1 FROM s WHERE r<%lld) "
               "INSERT INTO a%d SELECT r/%lld, r%%%lld, (r*2654435761)%%1000003,"
               " ((r*69069)%%4000037)*0.25 - 500000.125 FROM s", g, g, (long long)n - 1, g,
               (long long)nGroup, (long long)nGroup);
    fprintf(stderr, "# a%d: %lld rows in %.1f s\n", g, (long long)n, h_now() - t0);
  }
  /* Both tables in SQLite's page cache, so the queries copy no pages from
  ** the file (the figures are the aggregates', not the syscalls'). */
  h_exec(db, "PRAGMA cache_size = -%lld", (long long)(n/8 + 65536));
  h_int(db, "SELECT count(*), sum(x) FROM a3");
  h_int(db, "SELECT count(*), sum(x) FROM a5");
  return db;
}

static void aggsSection(int64_t nRow, const char *zBackend){
  static const struct { const char *zFn, *zBuiltin, *zGpu, *zOrder; } aQ[] = {
    { "sum(x)",        "sum(x)", "gpu_sum(x)",       0 },
    { "count(x)",      "count(x)", "gpu_count(x)",   0 },  /* no device work: the noise */
    { "min(x)",        "min(x)", "gpu_min(x)",       0 },
    { "max(x)",        "max(x)", "gpu_max(x)",       0 },
    { "argmin(k, x)",  "min(x)", "gpu_argmin(k, x)", "x" },
    { "argmax(k, x)",  "max(x)", "gpu_argmax(k, x)", "x DESC" },
    /* grouped only: the builtin reading the same two columns */
    { "argmax(k, x)",  "max(x), count(k)", "gpu_argmax(k, x)", "" },
  };
  const char *zFile = getenv("BENCH_AGGS_DB") ? getenv("BENCH_AGGS_DB") : "/tmp/gpuagg-aggs.db";
  sqlite3 *db = aggsTables(zFile, nRow);
  size_t q;
  int g;
  gRows = nRow;
  printf("\n| query | builtin ms | gpu_* ms | ratio |\n| --- | ---: | ---: | ---: |\n");
  for(g=0; g<3; g++){
    for(q=0; q<sizeof(aQ)/sizeof(aQ[0]); q++){
      char zLabel[160], *zB, *zG;
      if( g==0 && aQ[q].zOrder && !aQ[q].zOrder[0] ) continue;
      if( g==0 ){
        zB = aQ[q].zOrder ? sqlite3_mprintf("SELECT k FROM a3 WHERE x IS NOT NULL ORDER BY %s LIMIT 1", aQ[q].zOrder)
                          : sqlite3_mprintf("SELECT %s FROM a3", aQ[q].zBuiltin);
        zG = sqlite3_mprintf("SELECT %s FROM a3", aQ[q].zGpu);
        snprintf(zLabel, sizeof(zLabel), "%s vs %s, ungrouped, %s", aQ[q].zFn,
                 aQ[q].zOrder ? "ORDER BY LIMIT 1" : aQ[q].zBuiltin, zBackend);
      }else{
        const char *zTab = g==1 ? "a3" : "a5";
        zB = sqlite3_mprintf("SELECT count(*), count(v) FROM (SELECT g, %s AS v FROM %s GROUP BY g)", aQ[q].zBuiltin, zTab);
        zG = sqlite3_mprintf("SELECT count(*), count(v) FROM (SELECT g, %s AS v FROM %s GROUP BY g)",
                             aQ[q].zGpu, zTab);
        snprintf(zLabel, sizeof(zLabel), "%s vs %s, groups of %s rows, %s", aQ[q].zFn, aQ[q].zBuiltin,
                 g==1 ? "1,000" : "100,000", zBackend);
      }
      compare(db, zLabel, zB, zG, 1);
      sqlite3_free(zB);
      sqlite3_free(zG);
    }
  }
  sqlite3_close(db);
}

/* 6. A table in a file (BENCH_DB, default /tmp/gpuagg-bench.db), page
** cache warm: gpu_summary, gpu_histogram and gpu_group_by read from the
** pages (one thread, every core) against the statement source and the
** builtin SQL, and with the file mapped (mmap_size) both ways; then gpu_summary at the sizes of BENCH_PAGES_SCALE (row
** counts; files BENCH_DB.N), as rows per second. */
static void pagesSection(int64_t nRow, const char *zBackend){
  static const char *azCol[] = { "k", "g", "x", "y", "z" };
  const char *zFile = getenv("BENCH_DB") ? getenv("BENCH_DB") : "/tmp/gpuagg-bench.db";
  const char *zScale = getenv("BENCH_PAGES_SCALE");
  sqlite3 *db = pagesTable(zFile, nRow);
  sqlite3_str *full = sqlite3_str_new(db);
  char *aQ[4][3], zLabel[160], azLabel[4][64];
  double aWait[4], aSink[4], aTp[4];
  int nCore = (int)h_int(db, "SELECT gpuagg_config('threads')"), q, c;
  double lo = qDouble(db, "SELECT min(x) FROM p"), hi = qDouble(db, "SELECT max(x) FROM p");
  for(c=0; c<5; c++){
    const char *z = azCol[c];
    sqlite3_str_appendf(full, "%scount(*), count(%s), sum(typeof(%s)='integer'), sum(typeof(%s)='real'), "
                        "min(%s), max(%s), sum(%s), total(%s), avg(%s), total(%s*%s)",
                        c ? ", " : "SELECT ", z, z, z, z, z, z, z, z, z, z);
  }
  sqlite3_str_appendall(full, " FROM p");
  aQ[0][0] = sqlite3_mprintf("gpu_summary('p'), 5 columns");
  aQ[0][1] = sqlite3_str_finish(full);
  aQ[0][2] = sqlite3_mprintf("SELECT " SUMMARY_COLS " FROM gpu_summary('p')");
  aQ[1][0] = sqlite3_mprintf("gpu_histogram('p', 'x', 256), range found");
  aQ[1][1] = sqlite3_mprintf("SELECT min(CAST((x - %!.17g)*256/(%!.17g - %!.17g) AS INT), 255) b, count(*) "
                             "FROM p WHERE x BETWEEN %!.17g AND %!.17g GROUP BY b", lo, hi, lo, lo, hi);
  aQ[1][2] = sqlite3_mprintf("SELECT * FROM gpu_histogram('p', 'x', 256)");
  aQ[2][0] = sqlite3_mprintf("gpu_group_by('p', 'k', 'x'), 256 groups");
  aQ[2][1] = sqlite3_mprintf("SELECT k, count(*), count(x), sum(x), total(x), avg(x), min(x), max(x) FROM p GROUP BY k");
  aQ[2][2] = sqlite3_mprintf("SELECT * FROM gpu_group_by('p', 'k', 'x')");
  aQ[3][0] = sqlite3_mprintf("gpu_group_by('p', 'g', 'x'), 100,000 groups");
  aQ[3][1] = sqlite3_mprintf("SELECT g, count(*), count(x), sum(x), total(x), avg(x), min(x), max(x) FROM p GROUP BY g");
  aQ[3][2] = sqlite3_mprintf("SELECT * FROM gpu_group_by('p', 'g', 'x')");
  printf("\nPage source, %lld rows in %s, %s backend, %d cores (medians of %d runs)\n\n", (long long)nRow, zFile,
         zBackend, nCore, nRun);
  printf("| query | builtin ms | statement source ms | pages, 1 thread ms | pages ms | vs builtin | vs statement "
         "| builtin, mapped ms | pages, mapped ms | vs builtin, mapped |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for(q=0; q<4; q++){
    double tb, ts, t1, tp, tbm, tpm, w0, s0;
    h_exec(db, "SELECT gpuagg_config('pages', 0)");
    tb = medianOf(db, aQ[q][1]);
    ts = medianOf(db, aQ[q][2]);
    h_exec(db, "SELECT gpuagg_config('pages', 1), gpuagg_config('threads', 1)");
    t1 = medianOf(db, aQ[q][2]);
    h_exec(db, "SELECT gpuagg_config('threads', %d)", nCore);
    w0 = qDouble(db, "SELECT json_extract(gpuagg_info(), '$.page_wait_ms')");
    s0 = qDouble(db, "SELECT json_extract(gpuagg_info(), '$.page_sink_ms')");
    tp = medianOf(db, aQ[q][2]);
    /* Where the connection's thread spent the scans (means over the runs). */
    aWait[q] = (qDouble(db, "SELECT json_extract(gpuagg_info(), '$.page_wait_ms')") - w0)/(nRun + 1);
    aSink[q] = (qDouble(db, "SELECT json_extract(gpuagg_info(), '$.page_sink_ms')") - s0)/(nRun + 1);
    aTp[q] = tp*1e3;
    /* The file mapped (mmap_size): SQLite's reads and ours skip the copy. */
    h_exec(db, "PRAGMA mmap_size=1099511627776");
    tbm = medianOf(db, aQ[q][1]);
    tpm = medianOf(db, aQ[q][2]);
    h_exec(db, "PRAGMA mmap_size=0");
    printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1fx | %.1fx | %.1f | %.1f | %.1fx |\n", aQ[q][0], tb*1e3, ts*1e3,
           t1*1e3, tp*1e3, tb/tp, ts/tp, tbm*1e3, tpm*1e3, tbm/tpm);
    fflush(stdout);
    if( gCsv ){
      gRows = nRow;
      fprintf(gCsv, "pages,\"%s (statement)\",%lld,%s,%.3f,%.3f,%.4f,%.0f,%.0f\n", aQ[q][0], (long long)nRow, zBackend,
              tb*1e3, ts*1e3, ts/tb, nRow/tb, nRow/ts);
      fprintf(gCsv, "pages,\"%s (pages, 1 thread)\",%lld,%s,%.3f,%.3f,%.4f,%.0f,%.0f\n", aQ[q][0], (long long)nRow,
              zBackend, tb*1e3, t1*1e3, t1/tb, nRow/tb, nRow/t1);
      fprintf(gCsv, "pages,\"%s (pages)\",%lld,%s,%.3f,%.3f,%.4f,%.0f,%.0f\n", aQ[q][0], (long long)nRow, zBackend,
              tb*1e3, tp*1e3, tp/tb, nRow/tb, nRow/tp);
      fprintf(gCsv, "pages,\"%s (pages, mapped)\",%lld,%s,%.3f,%.3f,%.4f,%.0f,%.0f\n", aQ[q][0], (long long)nRow,
              zBackend, tbm*1e3, tpm*1e3, tpm/tbm, nRow/tbm, nRow/tpm);
    }
    snprintf(azLabel[q], sizeof(azLabel[q]), "%s", aQ[q][0]);
    for(c=0; c<3; c++) sqlite3_free(aQ[q][c]);
  }
  printf("\nThe page source's scans on %d threads, copied: the connection's thread waiting for decoded leaves and in the "
         "function's sink (gpuagg_info's page_wait_ms and page_sink_ms, means)\n\n| query | pages ms | waited ms | sink ms |\n"
         "| --- | ---: | ---: | ---: |\n", nCore);
  for(q=0; q<4; q++) printf("| %s | %.1f | %.1f | %.1f |\n", azLabel[q], aTp[q], aWait[q], aSink[q]);
  snprintf(zLabel, sizeof(zLabel), "%s", h_text(db, "SELECT json_extract(gpuagg_info(), '$.sources')"));
  printf("\nsources: %s\n", zLabel);
  sqlite3_close(db);
  if( zScale ){
    char *zCopy = strdup(zScale), *zTok, *zSave = 0;
    printf("\n| rows | file MB | gpu_summary ms (pages) | M rows/s | gpu_summary ms (statement) | M rows/s |\n"
           "| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for(zTok=strtok_r(zCopy, ",", &zSave); zTok; zTok=strtok_r(0, ",", &zSave)){
      int64_t n = atoll(zTok);
      char *zF = sqlite3_mprintf("%s.%lld", zFile, (long long)n);
      double tp, ts;
      db = pagesTable(zF, n);
      tp = medianOf(db, "SELECT " SUMMARY_COLS " FROM gpu_summary('p')");
      h_exec(db, "SELECT gpuagg_config('pages', 0)");
      ts = medianOf(db, "SELECT " SUMMARY_COLS " FROM gpu_summary('p')");
      printf("| %lld | %.0f | %.1f | %.1f | %.1f | %.1f |\n", (long long)n,
             h_int(db, "PRAGMA page_count")*(double)h_int(db, "PRAGMA page_size")/1e6, tp*1e3, n/tp/1e6, ts*1e3, n/ts/1e6);
      fflush(stdout);
      sqlite3_close(db);
      sqlite3_free(zF);
    }
    free(zCopy);
  }
}

/* Mean ms of a gpuagg_info() counter over the last n queries (from before). */
static double infoMs(sqlite3 *db, const char *zKey, double before, int n){
  char zSql[96];
  snprintf(zSql, sizeof(zSql), "SELECT json_extract(gpuagg_info(), '$.%s')", zKey);
  return (qDouble(db, zSql) - before)/n;
}

/* Every cell of zSql's rows hashed exactly (types, integers, doubles' bits,
** text): FNV-1a. */
static uint64_t answerHash(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st;
  uint64_t h = 1469598103934665603ull;
  int i, j;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    fprintf(stderr, "prepare %s: %s\n", zSql, sqlite3_errmsg(db));
    exit(1);
  }
  while( sqlite3_step(st)==SQLITE_ROW ){
    for(i=0; i<sqlite3_column_count(st); i++){
      unsigned char b[8];
      const unsigned char *z = b;
      int n = 8, t = sqlite3_column_type(st, i);
      if( t==SQLITE_INTEGER ){ int64_t v = sqlite3_column_int64(st, i); memcpy(b, &v, 8); }
      else if( t==SQLITE_FLOAT ){ double v = sqlite3_column_double(st, i); memcpy(b, &v, 8); }
      else if( t==SQLITE_NULL ) n = 0;
      else { z = sqlite3_column_blob(st, i); n = sqlite3_column_bytes(st, i); }
      h = (h ^ (uint64_t)t)*1099511628211ull;
      for(j=0; j<n; j++) h = (h ^ z[j])*1099511628211ull;
    }
  }
  sqlite3_finalize(st);
  return h;
}

/* 8. Every device (devices): on the pages section's table p, the first device
** against all of them. Cached: the median of 15 runs after the one that
** fills the cache, with the devices' share (cache.device_ms, per run); the
** row loop: gpu_sum and gpu_avg against sum and avg (median of nRun); cold:
** the cache off, every core decoding pages (median of nRun). */
static void devicesSection(int64_t nRow){
  static const struct { const char *zLabel, *zSql; int cached, cold; } aQ[] = {
    { "gpu_summary('p'), 5 columns, no quartiles",
      "SELECT name, rows, nulls, min, max, sum, total, avg, var_samp FROM gpu_summary('p')", 1, 1 },
    { "gpu_summary('p', 'x') with quartiles", "SELECT " SUMMARY_COLS " FROM gpu_summary('p', 'x')", 1, 0 },
    { "gpu_histogram('p', 'x', 256)", "SELECT * FROM gpu_histogram('p', 'x', 256)", 1, 1 },
    { "gpu_histogram('p', 'x', 65536)", "SELECT * FROM gpu_histogram('p', 'x', 65536)", 1, 0 },
    { "gpu_group_by('p', 'k', 'x'), 256 groups", "SELECT * FROM gpu_group_by('p', 'k', 'x')", 1, 1 },
    { "gpu_group_by('p', 'g', 'x'), 100,000 groups", "SELECT * FROM gpu_group_by('p', 'g', 'x')", 1, 1 },
    { "gpu_sum(x), gpu_avg(y), first 10M rows",
      "SELECT gpu_sum(x), gpu_avg(y) FROM p WHERE rowid<=10000000", 0, 0 },
  };
  const int nQ = (int)(sizeof(aQ)/sizeof(aQ[0])), nFast = 15;
  const char *zFile = getenv("BENCH_DB") ? getenv("BENCH_DB") : "/tmp/gpuagg-bench.db";
  sqlite3 *db = pagesTable(zFile, nRow);
  int nDev, q, d, i, mode;
  h_exec(db, "SELECT gpuagg_config('devices', 0)");
  nDev = (int)qDouble(db, "SELECT json_array_length(gpuagg_info(), '$.devices')");
  if( nDev<2 ){
    printf("\nEvery device: %d device usable here; nothing to compare\n", nDev);
    sqlite3_close(db);
    return;
  }
  printf("\nEvery device, %lld rows in %s: the first device against all %d (gpuagg_config 'devices' 1 and 0), "
         "each answer the same bits on both\n\n", (long long)nRow, zFile, nDev);
  printf("| query | path | 1 device ms | %d devices ms | speedup | device ms, 1 | device ms, %d | device speedup | "
         "same bits |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n", nDev, nDev);
  for(mode=0; mode<3; mode++){            /* cached, the row loop, cold */
    for(q=0; q<nQ; q++){
      double t[2], dv[2];
      uint64_t h[2];
      if( mode==0 ? !aQ[q].cached : mode==1 ? aQ[q].cached : !aQ[q].cold ) continue;
      for(d=0; d<2; d++){
        double a[64], d0;
        int n = mode==0 ? nFast : nRun;
        h_exec(db, "SELECT gpuagg_config('devices', %d), gpuagg_config('cache', %s)", d ? 0 : 1, mode==0 ? "-1" : "0");
        h[d] = answerHash(db, aQ[q].zSql);      /* mode 0: fills the cache */
        d0 = qDouble(db, "SELECT json_extract(gpuagg_info(), '$.cache.device_ms')");
        for(i=0; i<n; i++) a[i] = timeQuery(db, aQ[q].zSql);
        qsort(a, (size_t)n, sizeof(double), cmpDouble);
        t[d] = a[n/2];
        dv[d] = infoMs(db, "cache.device_ms", d0, n);
      }
      printf("| %s | %s | %.3f | %.3f | %.2fx |", aQ[q].zLabel, mode==0 ? "cached" : mode==1 ? "row loop" : "cold pages",
             t[0]*1e3, t[1]*1e3, t[0]/t[1]);
      if( mode==0 ) printf(" %.3f | %.3f | %.2fx |", dv[0], dv[1], dv[0]/dv[1]);
      else printf(" - | - | - |");
      printf(" %s |\n", h[0]==h[1] ? "yes" : "NO");
      fflush(stdout);
    }
  }
  h_exec(db, "SELECT gpuagg_config('devices', 0)");
  {
    char *z = 0;
    sqlite3_stmt *st;
    if( sqlite3_prepare_v2(db, "SELECT json_extract(gpuagg_info(), '$.devices')", -1, &st, 0)==SQLITE_OK
     && sqlite3_step(st)==SQLITE_ROW ) z = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    printf("\ngpuagg_info()'s devices after the section: %s\n", z ? z : "?");
    sqlite3_free(z);
  }
  sqlite3_close(db);
}

/* 7. The column cache (cache): on the pages section's table p, the second
** and later gpu_summary, gpu_histogram (256 and 65,536 bins) and
** gpu_group_by (256 and 100,000 groups) against the builtin SQL and, where
** BENCH_DUCKDB names libduckdb.so (or its .xz), DuckDB's in-memory
** equivalents (the table copied into it, every core; gpu_summary's exact
** quartiles against DuckDB's exact quantile_cont, the builtin SQL without
** them: SQLite has no percentile function); where a cached
** query's time goes: finding and checking the entries (check), the device
** (device), the rest (SQLite's virtual-table calls, the function's setup). */
static void cacheSection(int64_t nRow, const char *zBackend){
  const char *zFile = getenv("BENCH_DB") ? getenv("BENCH_DB") : "/tmp/gpuagg-bench.db";
  const char *zDuck = getenv("BENCH_DUCKDB");
  sqlite3 *db = pagesTable(zFile, nRow);
  double lo = qDouble(db, "SELECT min(x) FROM p"), hi = qDouble(db, "SELECT max(x) FROM p");
  char *aQ[5][4], zErr[256];
  duck *dk = 0;
  int q, i, nFast = 31;
  for(i=0; i<2; i++){
    int bins = i ? 65536 : 256;
    aQ[1+i][0] = sqlite3_mprintf("gpu_histogram('p', 'x', %d)", bins);
    aQ[1+i][1] = sqlite3_mprintf("SELECT min(CAST((x - %!.17g)*%d/(%!.17g - %!.17g) AS INT), %d) b, count(*) "
                                 "FROM p WHERE x BETWEEN %!.17g AND %!.17g GROUP BY b", lo, bins, hi, lo, bins-1, lo, hi);
    aQ[1+i][2] = sqlite3_mprintf("SELECT * FROM gpu_histogram('p', 'x', %d)", bins);
    aQ[1+i][3] = sqlite3_mprintf("SELECT least(CAST(floor((x - %!.17g)*%d/(%!.17g - %!.17g)) AS BIGINT), %d) b, count(*) "
                                 "FROM p WHERE x BETWEEN %!.17g AND %!.17g GROUP BY b", lo, bins, hi, lo, bins-1, lo, hi);
  }
  {
    static const char *azCol[] = { "k", "g", "x", "y", "z" };
    sqlite3_str *a = sqlite3_str_new(db), *b = sqlite3_str_new(db);
    int c;
    for(c=0; c<5; c++){
      const char *z = azCol[c];
      sqlite3_str_appendf(a, "%scount(*), count(%s), sum(typeof(%s)='integer'), sum(typeof(%s)='real'), "
                          "min(%s), max(%s), sum(%s), total(%s), avg(%s), total(%s*%s)",
                          c ? ", " : "SELECT ", z, z, z, z, z, z, z, z, z, z, z);
      sqlite3_str_appendf(b, "%scount(*), count(%s), min(%s), max(%s), sum(%s), avg(%s), var_samp(%s), var_pop(%s), "
                          "quantile_cont(%s, [0.25, 0.5, 0.75])", c ? ", " : "SELECT ", z, z, z, z, z, z, z, z);
    }
    sqlite3_str_appendall(a, " FROM p");
    sqlite3_str_appendall(b, " FROM p");
    aQ[0][0] = sqlite3_mprintf("gpu_summary('p'), 5 columns");
    aQ[0][1] = sqlite3_str_finish(a);
    aQ[0][2] = sqlite3_mprintf("SELECT " SUMMARY_COLS " FROM gpu_summary('p')");
    aQ[0][3] = sqlite3_str_finish(b);
  }
  for(i=0; i<2; i++){
    const char *zK = i ? "g" : "k";
    aQ[3+i][0] = sqlite3_mprintf("gpu_group_by('p', '%s', 'x'), %s groups", zK, i ? "100,000" : "256");
    aQ[3+i][1] = sqlite3_mprintf("SELECT %s, count(*), count(x), sum(x), total(x), avg(x), min(x), max(x) FROM p "
                                 "GROUP BY %s", zK, zK);
    aQ[3+i][2] = sqlite3_mprintf("SELECT * FROM gpu_group_by('p', '%s', 'x')", zK);
    aQ[3+i][3] = sqlite3_mprintf("SELECT %s, count(*), count(x), sum(x), sum(x), avg(x), min(x), max(x) FROM p "
                                 "GROUP BY %s", zK, zK);
  }
  if( zDuck ){
    double t0 = h_now();
    if( duck_load(zDuck, zErr, sizeof(zErr)) || (dk = duck_open_memory(0, zErr, sizeof(zErr)))==0
     || duck_copy_table(dk, db, "p", zErr, sizeof(zErr)) ){
      printf("\nDuckDB not run: %s\n", zErr);
      if( dk ) duck_close(dk);
      dk = 0;
    }else{
      fprintf(stderr, "# DuckDB: p copied in %.1f s\n", h_now() - t0);
    }
  }
  /* The cache at its default (a quarter of the device's free memory). */
  h_exec(db, "SELECT gpuagg_config('cache', -1)");
  printf("\nColumn cache, %lld rows in %s, %s backend: builtin SQL (median of %d runs) against the second and later "
         "runs of each function (median of %d)%s\n\n", (long long)nRow, zFile, zBackend, nRun, nFast,
         dk ? ", and DuckDB in memory (every core, median of the same)" : "");
  printf("| query | builtin ms | first run ms | cached ms | vs builtin | DuckDB ms | vs DuckDB | check ms | device ms "
         "| rest ms |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for(q=0; q<5; q++){
    double tb = medianOf(db, aQ[q][1]), tFirst, tc, td = -1, c0, d0, ck, dv, t[64];
    int nHit0;
    tFirst = timeQuery(db, aQ[q][2]);
    nHit0 = (int)qDouble(db, "SELECT json_extract(gpuagg_info(), '$.cache.device_hits')");
    c0 = qDouble(db, "SELECT json_extract(gpuagg_info(), '$.cache.check_ms')");
    d0 = qDouble(db, "SELECT json_extract(gpuagg_info(), '$.cache.device_ms')");
    for(i=0; i<nFast; i++) t[i] = timeQuery(db, aQ[q][2]);
    ck = infoMs(db, "cache.check_ms", c0, nFast);
    dv = infoMs(db, "cache.device_ms", d0, nFast);
    qsort(t, nFast, sizeof(double), cmpDouble);
    tc = t[nFast/2];
    if( (int)qDouble(db, "SELECT json_extract(gpuagg_info(), '$.cache.device_hits')") - nHit0 != nFast ){
      printf("| %s: not all runs answered on the device |\n", aQ[q][0]);
    }
    if( dk ){
      duck_time_ms(dk, aQ[q][3], 0);
      for(i=0; i<nFast; i++) t[i] = duck_time_ms(dk, aQ[q][3], 0);
      qsort(t, nFast, sizeof(double), cmpDouble);
      td = t[nFast/2]/1e3;
    }
    printf("| %s | %.1f | %.1f | %.3f | %.0fx |", aQ[q][0], tb*1e3, tFirst*1e3, tc*1e3, tb/tc);
    if( td>0 ) printf(" %.2f | %.1fx |", td*1e3, td/tc); else printf(" - | - |");
    printf(" %.3f | %.3f | %.3f |\n", ck, dv, tc*1e3 - ck - dv);
    fflush(stdout);
    if( gCsv ){
      fprintf(gCsv, "cache,\"%s (cached)\",%lld,%s,%.3f,%.4f,%.6f,%.0f,%.0f\n", aQ[q][0], (long long)nRow, zBackend,
              tb*1e3, tc*1e3, tc/tb, nRow/tb, nRow/tc);
      if( td>0 ) fprintf(gCsv, "cache,\"%s (cached vs DuckDB)\",%lld,%s,%.3f,%.4f,%.6f,%.0f,%.0f\n", aQ[q][0],
                         (long long)nRow, zBackend, td*1e3, tc*1e3, tc/td, nRow/td, nRow/tc);
    }
    for(i=0; i<4; i++) sqlite3_free(aQ[q][i]);
  }
  {
    char *z = h_text(db, "SELECT json_extract(gpuagg_info(), '$.cache')");
    printf("\ncache: %s\n", z ? z : "?");
    free(z);
  }
  if( dk ) duck_close(dk);
  sqlite3_close(db);
}

/* 9. Flights (flights): a table shaped like US flights, f(date, origin,
** dest, delay, distance, airtime), of `rows` rows in a file (BENCH_FLIGHTS_DB,
** default /tmp/gpuagg-flights.db), made from a seed and kept for later runs
** (made again where its row count or FLIGHTS_VERSION differs).
**
**   date      TEXT 'YYYY-MM-DD HH:MM': the rows in day order over 2023 and
**             2024 (731 days), departures uniform in 05:00-23:59: 832,428
**             possible values, nearly all present at 10M rows
**   origin    TEXT, 300 airport codes (3 upper-case letters), Zipf-ish
**             (weight 1/rank^0.8: the busiest ~9% of the rows)
**   dest      TEXT, the same codes and weights, never the origin
**   delay     INTEGER minutes: NULL where cancelled (1.5%); else 62% in
**             -20..0, the rest 1 + an exponential of mean 35, at most 1800
**   distance  INTEGER miles between the two airports' made-up positions
**             (a few thousand distinct values)
**   airtime   REAL minutes to 0.1: NULL where cancelled or diverted (0.3%)
**
** and the view fm(month, delay): substr(date, 1, 7) and delay. */
#define FLIGHTS_VERSION 1
#define FLIGHTS_AIRPORTS 300

static void civilDay(int d, int *pY, int *pM, int *pD){  /* d days after 2023-01-01 */
  static const int aDays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  int y = 2023, m = 0;
  for(;;){
    int nYear = (y%4==0 && (y%100!=0 || y%400==0)) ? 366 : 365;
    if( d<nYear ) break;
    d -= nYear;
    y++;
  }
  for(;;){
    int nMonth = aDays[m] + (m==1 && (y%4==0 && (y%100!=0 || y%400==0)));
    if( d<nMonth ) break;
    d -= nMonth;
    m++;
  }
  *pY = y; *pM = m + 1; *pD = d + 1;
}

/* A rank in [0, n) by the cumulative weights a[n] (a[n-1] is 1). */
static int pickRank(h_rng *r, const double *a, int n){
  double u = h_unit(r);
  int lo = 0, hi = n - 1;
  while( lo<hi ){
    int mid = (lo + hi)/2;
    if( a[mid]>u ) hi = mid; else lo = mid + 1;
  }
  return lo;
}

static void flightsFill(sqlite3 *db, int64_t n){
  const int nDay = 731;
  char azCode[FLIGHTS_AIRPORTS][4], (*azDay)[32] = malloc(sizeof(*azDay)*(size_t)nDay), zDate[64];
  double aCdf[FLIGHTS_AIRPORTS], ax[FLIGHTS_AIRPORTS], ay[FLIGHTS_AIRPORTS], w = 0;
  int *aDist = malloc(sizeof(int)*FLIGHTS_AIRPORTS*FLIGHTS_AIRPORTS), i, j;
  sqlite3_stmt *st;
  h_rng r;
  int64_t k;
  double t0 = h_now();
  if( azDay==0 || aDist==0 ){
    fprintf(stderr, "flights: no memory\n");
    exit(1);
  }
  h_rng_init(&r, 26);
  /* The airports: distinct codes in random order (rank 0 the busiest), a
  ** position each in a 2,600 x 1,500 mile box. */
  for(i=0; i<FLIGHTS_AIRPORTS; i++){
    for(;;){
      for(j=0; j<3; j++) azCode[i][j] = (char)('A' + h_range(&r, 0, 25));
      azCode[i][3] = 0;
      for(j=0; j<i && strcmp(azCode[j], azCode[i]); j++){}
      if( j==i ) break;
    }
    ax[i] = h_unit(&r)*2600;
    ay[i] = h_unit(&r)*1500;
    w += pow(i + 1, -0.8);
    aCdf[i] = w;
  }
  for(i=0; i<FLIGHTS_AIRPORTS; i++) aCdf[i] /= w;
  aCdf[FLIGHTS_AIRPORTS-1] = 1.0;
  for(i=0; i<FLIGHTS_AIRPORTS; i++){
    for(j=0; j<FLIGHTS_AIRPORTS; j++){
      int d = (int)lround(hypot(ax[i] - ax[j], ay[i] - ay[j])*1.05);
      aDist[i*FLIGHTS_AIRPORTS + j] = d<60 ? 60 + (i + j)%40 : d;
    }
  }
  for(i=0; i<nDay; i++){
    int y, m, d;
    civilDay(i, &y, &m, &d);
    snprintf(azDay[i], sizeof(azDay[i]), "%04d-%02d-%02d", y, m, d);
  }
  h_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576;"
             "DROP VIEW IF EXISTS fm; DROP TABLE IF EXISTS f;"
             "CREATE TABLE f(date TEXT, origin TEXT, dest TEXT, delay INTEGER, distance INTEGER, airtime REAL);"
             "CREATE VIEW fm(month, delay) AS SELECT substr(date, 1, 7), delay FROM f; BEGIN");
  if( sqlite3_prepare_v2(db, "INSERT INTO f VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, 0)!=SQLITE_OK ){
    fprintf(stderr, "flights: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
  for(k=0; k<n; k++){
    int day = (int)(k*nDay/n), minute = (int)h_range(&r, 5*60, 24*60 - 1);
    int o = pickRank(&r, aCdf, FLIGHTS_AIRPORTS), d;
    int dist, cancelled = h_unit(&r)<0.015, diverted = h_unit(&r)<0.003;
    do d = pickRank(&r, aCdf, FLIGHTS_AIRPORTS); while( d==o );
    dist = aDist[o*FLIGHTS_AIRPORTS + d];
    snprintf(zDate, sizeof(zDate), "%s %02d:%02d", azDay[day], minute/60, minute%60);
    sqlite3_bind_text(st, 1, zDate, 16, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, azCode[o], 3, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, azCode[d], 3, SQLITE_STATIC);
    if( cancelled ){
      sqlite3_bind_null(st, 4);
    }else if( h_unit(&r)<0.62 ){
      sqlite3_bind_int64(st, 4, -h_range(&r, 0, 20));
    }else{
      double e = 1 + floor(-log(1 - h_unit(&r))*35);
      sqlite3_bind_int64(st, 4, e>1800 ? 1800 : (int64_t)e);
    }
    sqlite3_bind_int64(st, 5, dist);
    if( cancelled || diverted ) sqlite3_bind_null(st, 6);
    else sqlite3_bind_double(st, 6, round((dist/7.5 + 15 + h_unit(&r)*20 - 5)*10)/10);
    if( sqlite3_step(st)!=SQLITE_DONE ){
      fprintf(stderr, "flights: %s\n", sqlite3_errmsg(db));
      exit(1);
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  h_exec(db, "COMMIT; PRAGMA user_version=%d; PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL",
         2600 + FLIGHTS_VERSION);
  fprintf(stderr, "# flights: %lld rows made in %.1f s\n", (long long)n, h_now() - t0);
  free(azDay);
  free(aDist);
}

/* The flights table of n rows in zFile, made if missing, of another size or
** version; read once, so both SQLite's page cache (big enough for the whole
** file) and the system's hold it. */
static sqlite3 *flightsTable(const char *zFile, int64_t n){
  char *zErr = 0;
  sqlite3 *db = h_open_file(zFile, &zErr);
  double t0;
  if( db==0 ){
    fprintf(stderr, "%s: %s\n", zFile, zErr);
    exit(1);
  }
  if( h_int(db, "PRAGMA user_version")!=2600 + FLIGHTS_VERSION
   || h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('f', 'fm')")!=2
   || h_int(db, "SELECT count(*) FROM f")!=n ){
    /* A file holding only our table and view is made anew (no free pages left behind). */
    if( h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name NOT IN ('f', 'fm')")==0 ){
      sqlite3_close(db);
      unlink(zFile);
      if( (db = h_open_file(zFile, &zErr))==0 ){
        fprintf(stderr, "%s: %s\n", zFile, zErr);
        exit(1);
      }
    }
    flightsFill(db, n);
  }else{
    fprintf(stderr, "# flights: %lld rows in %s, made before\n", (long long)n, zFile);
  }
  t0 = h_now();
  h_exec(db, "PRAGMA cache_size = -%lld",
         (long long)(h_int(db, "PRAGMA page_count")*h_int(db, "PRAGMA page_size")/1024 + 65536));
  h_int(db, "SELECT count(*), sum(length(date)), sum(length(origin)), sum(length(dest)), sum(delay), sum(distance), "
            "sum(airtime) FROM f");
  fprintf(stderr, "# flights: read once in %.1f s\n", h_now() - t0);
  return db;
}

/* Median seconds of n runs of zSql (n<=64), after a warm-up run if warm. */
static double medianN(sqlite3 *db, const char *zSql, int n, int warm){
  double t[64];
  int i;
  if( warm ) timeQuery(db, zSql);
  for(i=0; i<n; i++) t[i] = timeQuery(db, zSql);
  qsort(t, (size_t)n, sizeof(double), cmpDouble);
  return t[n/2];
}

/* Do two cells hold the same value? Exactly, or where tol is set, numbers
** within a few units in the last place (an average rounded elsewhere). */
static int sameCell(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j, int tol){
  int ta = sqlite3_column_type(a, i), tb = sqlite3_column_type(b, j);
  if( tol && (ta==SQLITE_INTEGER || ta==SQLITE_FLOAT) && (tb==SQLITE_INTEGER || tb==SQLITE_FLOAT) ){
    double x = sqlite3_column_double(a, i), y = sqlite3_column_double(b, j);
    return fabs(x - y)<=4*2.220446049250313e-16*fmax(fabs(x), fabs(y));
  }
  if( ta!=tb ) return 0;
  switch( ta ){
    case SQLITE_NULL:    return 1;
    case SQLITE_INTEGER: return sqlite3_column_int64(a, i)==sqlite3_column_int64(b, j);
    case SQLITE_FLOAT:   return sqlite3_column_double(a, i)==sqlite3_column_double(b, j);
    default: {
      int n = sqlite3_column_bytes(a, i);
      const void *za = sqlite3_column_blob(a, i), *zb = sqlite3_column_blob(b, j);
      return n==sqlite3_column_bytes(b, j) && (n==0 || memcmp(za, zb, (size_t)n)==0);
    }
  }
}

/* A cell as text, for a message. */
static char *cellText(sqlite3_stmt *st, int i){
  switch( sqlite3_column_type(st, i) ){
    case SQLITE_NULL:  return sqlite3_mprintf("NULL");
    case SQLITE_FLOAT: return sqlite3_mprintf("%!.17g", sqlite3_column_double(st, i));
    case SQLITE_TEXT:  return sqlite3_mprintf("'%q'", sqlite3_column_text(st, i));
    default:           return sqlite3_mprintf("%s", sqlite3_column_text(st, i));
  }
}

static sqlite3_stmt *prepareOrDie(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    fprintf(stderr, "prepare %s: %s\n", zSql, sqlite3_errmsg(db));
    exit(1);
  }
  return st;
}

/* gpu_group_by's rows against the builtin GROUP BY's (key, rows, count,
** sum, total, avg, min, max): every cell exact but total and avg (within
** 4 ulp: gpu_*'s are correctly rounded). NULL if the same, else the first
** difference (sqlite3_free it). */
static char *groupDiff(sqlite3 *db, const char *zGpu, const char *zBuiltin){
  static const char *azCol[] = { "key", "rows", "count", "sum", "total", "avg", "min", "max" };
  sqlite3_stmt *g = prepareOrDie(db, zGpu), *b = prepareOrDie(db, zBuiltin);
  char *zDiff = 0;
  int64_t nRow = 0;
  for(;;){
    int rg = sqlite3_step(g), rb = sqlite3_step(b), i;
    if( rg!=SQLITE_ROW || rb!=SQLITE_ROW ){
      if( rg==SQLITE_ROW || rb==SQLITE_ROW ){
        zDiff = sqlite3_mprintf("%s has more rows than the other's %lld", rg==SQLITE_ROW ? "gpu_group_by" : "the builtin",
                                (long long)nRow);
      }else if( rg!=SQLITE_DONE || rb!=SQLITE_DONE ){
        zDiff = sqlite3_mprintf("an error after %lld rows: %s", (long long)nRow, sqlite3_errmsg(db));
      }
      break;
    }
    nRow++;
    for(i=0; i<8 && zDiff==0; i++){
      if( !sameCell(g, i, b, i, i==4 || i==5) ){
        char *x = cellText(g, i), *y = cellText(b, i), *k = cellText(b, 0);
        zDiff = sqlite3_mprintf("row %lld (key %s), %s: gpu %s, builtin %s", (long long)nRow, k, azCol[i], x, y);
        sqlite3_free(x); sqlite3_free(y); sqlite3_free(k);
      }
    }
    if( zDiff ) break;
  }
  sqlite3_finalize(g);
  sqlite3_finalize(b);
  return zDiff;
}

/* gpu_summary's rows against the builtin statistics query's one row
** (count(*), then per column 12 figures: count, integers, reals, texts,
** blobs, min, max, count(DISTINCT), sum, total, avg, total of squares):
** rows, count, the counts by type, min, max and, where gpu_summary has it,
** distinct. NULL if the same, else the first difference. */
static char *summaryDiff(sqlite3 *db, const char *zGpu, const char *zBuiltin, int nCol){
  static const struct { const char *zName; int iB; } aCk[] = {
    { "integers", 1 }, { "reals", 2 }, { "texts", 3 }, { "blobs", 4 }, { "min", 5 }, { "max", 6 }, { "distinct", 7 },
  };
  sqlite3_stmt *g = prepareOrDie(db, zGpu), *b = prepareOrDie(db, zBuiltin);
  char *zDiff = 0;
  int c = 0, k, aIdx[8], iRows = -1, iNulls = -1, i;
  for(k=0; k<7; k++) aIdx[k] = -1;
  for(i=0; i<sqlite3_column_count(g); i++){
    const char *z = sqlite3_column_name(g, i);
    if( strcmp(z, "rows")==0 ) iRows = i;
    if( strcmp(z, "nulls")==0 ) iNulls = i;
    for(k=0; k<7; k++) if( strcmp(z, aCk[k].zName)==0 ) aIdx[k] = i;
  }
  if( sqlite3_step(b)!=SQLITE_ROW ){
    zDiff = sqlite3_mprintf("the builtin query: %s", sqlite3_errmsg(db));
  }
  while( zDiff==0 && sqlite3_step(g)==SQLITE_ROW ){
    const char *zName = (const char*)sqlite3_column_text(g, 0);
    int base = 1 + 12*c;
    if( c>=nCol ){ zDiff = sqlite3_mprintf("gpu_summary has more than %d rows", nCol); break; }
    if( iRows<0 || sqlite3_column_int64(g, iRows)!=sqlite3_column_int64(b, 0) ){
      zDiff = sqlite3_mprintf("%s: rows", zName);
    }else if( iNulls<0 || sqlite3_column_int64(g, iRows) - sqlite3_column_int64(g, iNulls)!=sqlite3_column_int64(b, base) ){
      zDiff = sqlite3_mprintf("%s: count: gpu %lld, builtin %lld", zName,
                              (long long)(sqlite3_column_int64(g, iRows) - sqlite3_column_int64(g, iNulls)),
                              (long long)sqlite3_column_int64(b, base));
    }
    for(k=0; k<7 && zDiff==0; k++){
      if( aIdx[k]<0 ) continue;               /* no `distinct` column (yet) */
      if( k<4 || k==6 ? sqlite3_column_int64(g, aIdx[k])!=sqlite3_column_int64(b, base + aCk[k].iB)
                      : !sameCell(g, aIdx[k], b, base + aCk[k].iB, 0) ){
        char *x = cellText(g, aIdx[k]), *y = cellText(b, base + aCk[k].iB);
        zDiff = sqlite3_mprintf("%s: %s: gpu %s, builtin %s", zName, aCk[k].zName, x, y);
        sqlite3_free(x); sqlite3_free(y);
      }
    }
    c++;
  }
  if( zDiff==0 && c!=nCol ) zDiff = sqlite3_mprintf("gpu_summary has %d rows, not %d", c, nCol);
  sqlite3_finalize(g);
  sqlite3_finalize(b);
  return zDiff;
}

/* Is this part of the flights section to run? BENCH_FLIGHTS_PART: "group"
** or "summary" alone (two processes, each shorter), else both. */
static int wantPart(const char *z){
  const char *zPart = getenv("BENCH_FLIGHTS_PART");
  return zPart==0 || zPart[0]==0 || strstr(zPart, z)!=0;
}

static void flightsSection(int64_t nRow, const char *zBackend){
  static const char *azCol[] = { "date", "origin", "dest", "delay", "distance", "airtime" };
  static const struct { const char *zSrc, *zKey, *zBKey, *zDKey, *zLabel; } aG[] = {
    { "f", "origin", "origin", "origin", "TEXT key origin (~300)" },
    { "f", "dest", "dest", "dest", "TEXT key dest (~300)" },
    { "f", "distance", "distance", "distance", "INTEGER key distance (control)" },
    { "fm", "month", "substr(date, 1, 7)", "substr(\"date\", 1, 7)", "TEXT key month, a view (24)" },
  };
  enum { nG = sizeof(aG)/sizeof(aG[0]), nQ = nG + 2 };
  const char *zFile = getenv("BENCH_FLIGHTS_DB") ? getenv("BENCH_FLIGHTS_DB") : "/tmp/gpuagg-flights.db";
  const char *zDuck = getenv("BENCH_DUCKDB");
  const int nCol = (int)(sizeof(azCol)/sizeof(azCol[0])), nFast = 15;
  /* The cache's bytes after it is emptied: -1, the default, unless
  ** BENCH_FLIGHTS_CACHE says (on a host without CUDA, N keeps columns in
  ** host memory). */
  const int64_t nCache = getenv("BENCH_FLIGHTS_CACHE") ? atoll(getenv("BENCH_FLIGHTS_CACHE")) : -1;
  sqlite3 *db = flightsTable(zFile, nRow);
  sqlite3_str *pB = sqlite3_str_new(db), *pD = sqlite3_str_new(db), *pS = sqlite3_str_new(db);
  char *aQ[nQ][4], *zDiff, zErr[256];
  double tbSummary = -1;
  duck *dk = 0;
  int hasDistinct = 0, q, i, c;
  sqlite3_stmt *st;

  /* Does this build's gpu_summary have `distinct`? (Prepared, not run.) */
  st = prepareOrDie(db, "SELECT * FROM gpu_summary('f')");
  for(i=0; i<sqlite3_column_count(st); i++) hasDistinct |= strcmp(sqlite3_column_name(st, i), "distinct")==0;
  sqlite3_finalize(st);

  for(q=0; q<nG; q++){
    aQ[q][0] = sqlite3_mprintf("gpu_group_by('%s', '%s', 'delay'), %s", aG[q].zSrc, aG[q].zKey, aG[q].zLabel);
    aQ[q][1] = sqlite3_mprintf("SELECT %s, count(*), count(delay), sum(delay), total(delay), avg(delay), min(delay), "
                               "max(delay) FROM f GROUP BY %s", aG[q].zBKey, aG[q].zBKey);
    aQ[q][2] = sqlite3_mprintf("SELECT * FROM gpu_group_by('%s', '%s', 'delay')", aG[q].zSrc, aG[q].zKey);
    aQ[q][3] = sqlite3_mprintf("SELECT %s, count(*), count(delay), sum(delay), CAST(sum(delay) AS DOUBLE), avg(delay), "
                               "min(delay), max(delay) FROM f GROUP BY 1 ORDER BY 1", aG[q].zDKey);
  }
  /* The builtin statistics query: gpu_summary's figures, its numeric ones
  ** over the INTEGER and REAL values only. */
  sqlite3_str_appendall(pB, "SELECT count(*)");
  sqlite3_str_appendall(pS, "SELECT name, rows, nulls, integers, reals, texts, blobs, min, max, ");
  if( hasDistinct ) sqlite3_str_appendall(pS, "\"distinct\", ");
  sqlite3_str_appendall(pS, "sum, total, avg, var_samp, var_pop FROM gpu_summary('f')");
  sqlite3_str_appendall(pD, "SELECT count(*)");
  for(c=0; c<nCol; c++){
    const char *z = azCol[c];
    char *zN = sqlite3_mprintf("CASE WHEN typeof(\"%w\") IN ('integer', 'real') THEN \"%w\" END", z, z);
    sqlite3_str_appendf(pB, ", count(\"%w\"), sum(typeof(\"%w\")='integer'), sum(typeof(\"%w\")='real'), "
                        "sum(typeof(\"%w\")='text'), sum(typeof(\"%w\")='blob'), min(\"%w\"), max(\"%w\"), "
                        "count(DISTINCT \"%w\"), sum(%s), total(%s), avg(%s), total(%s*%s)",
                        z, z, z, z, z, z, z, z, zN, zN, zN, zN, zN);
    sqlite3_free(zN);
    sqlite3_str_appendf(pD, ", count(\"%w\"), min(\"%w\"), max(\"%w\"), count(DISTINCT \"%w\")", z, z, z, z);
    if( c>=3 ) sqlite3_str_appendf(pD, ", sum(\"%w\"), avg(\"%w\"), var_samp(\"%w\"), var_pop(\"%w\")", z, z, z, z);
  }
  sqlite3_str_appendall(pB, " FROM f");
  sqlite3_str_appendall(pD, " FROM f");
  aQ[nG][0] = sqlite3_mprintf("gpu_summary('f'), 6 columns, no quartiles");
  aQ[nG][1] = sqlite3_str_finish(pB);
  aQ[nG][2] = sqlite3_str_finish(pS);
  aQ[nG][3] = sqlite3_str_finish(pD);
  aQ[nG+1][0] = sqlite3_mprintf("gpu_summary('f'), 6 columns, with quartiles (DuckDB: SUMMARIZE)");
  aQ[nG+1][1] = sqlite3_mprintf("%s", aQ[nG][1]);
  aQ[nG+1][2] = sqlite3_mprintf("SELECT * FROM gpu_summary('f')");
  aQ[nG+1][3] = sqlite3_mprintf("SUMMARIZE f");

  if( zDuck ){
    double t0 = h_now();
    if( duck_load(zDuck, zErr, sizeof(zErr)) || (dk = duck_open_memory(0, zErr, sizeof(zErr)))==0
     || duck_copy_table(dk, db, "f", zErr, sizeof(zErr)) ){
      printf("\nDuckDB not run: %s\n", zErr);
      if( dk ) duck_close(dk);
      dk = 0;
    }else{
      fprintf(stderr, "# DuckDB: f copied in %.1f s\n", h_now() - t0);
    }
  }

  h_exec(db, "SELECT gpuagg_config('cache', %lld)", (long long)nCache);
  printf("\nFlights, %lld rows in %s, %s backend: the builtin SQL (median of %d runs), each function's first run "
         "(the column cache emptied; after a warm-up run) and its repeated runs (median of %d)%s; cache %lld. "
         "gpu_summary %s `distinct`.\n\n", (long long)nRow, zFile, zBackend, nRun, nFast,
         dk ? ", DuckDB in memory (every core, median of the same)" : "", (long long)nCache, hasDistinct ? "has" : "has no");
  printf("| query | builtin ms | first run ms | vs builtin (first) | repeated ms | vs builtin | DuckDB ms "
         "| repeated vs DuckDB | cache hits (device) |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for(q=0; q<nQ; q++){
    double tb, tFirst, tc, td = -1, t[64], t0 = h_now();
    int64_t nHit0, nDev0;
    if( !wantPart(q<nG ? "group" : "summary") ) continue;
    if( q==nG+1 && tbSummary>0 ) tb = tbSummary;  /* the same builtin query */
    else tb = medianN(db, aQ[q][1], nRun, 0);      /* the table is read already */
    if( q==nG ) tbSummary = tb;
    timeQuery(db, aQ[q][2]);                       /* warm-up: context, kernels' modules */
    h_exec(db, "SELECT gpuagg_config('cache', 0), gpuagg_config('cache', %lld)", (long long)nCache);
    tFirst = timeQuery(db, aQ[q][2]);
    nHit0 = h_int(db, "SELECT json_extract(gpuagg_info(), '$.cache.hits')");
    nDev0 = h_int(db, "SELECT json_extract(gpuagg_info(), '$.cache.device_hits')");
    tc = medianN(db, aQ[q][2], nFast, 0);
    if( dk ){
      duck_time_ms(dk, aQ[q][3], 0);
      for(i=0; i<nFast; i++) t[i] = duck_time_ms(dk, aQ[q][3], 0);
      qsort(t, nFast, sizeof(double), cmpDouble);
      td = t[nFast/2]/1e3;
    }
    printf("| %s | %.1f | %.1f | %.1fx | %.3f | %.1fx |", aQ[q][0], tb*1e3, tFirst*1e3, tb/tFirst, tc*1e3, tb/tc);
    if( td>0 ) printf(" %.2f | %.1fx |", td*1e3, td/tc); else printf(" - | - |");
    printf(" %lld (%lld) |\n", (long long)(h_int(db, "SELECT json_extract(gpuagg_info(), '$.cache.hits')") - nHit0),
           (long long)(h_int(db, "SELECT json_extract(gpuagg_info(), '$.cache.device_hits')") - nDev0));
    fflush(stdout);
    fprintf(stderr, "# flights: %s in %.1f s\n", aQ[q][0], h_now() - t0);
    if( gCsv ){
      fprintf(gCsv, "flights,\"%s (first run)\",%lld,%s,%.3f,%.4f,%.6f,%.0f,%.0f\n", aQ[q][0], (long long)nRow, zBackend,
              tb*1e3, tFirst*1e3, tFirst/tb, nRow/tb, nRow/tFirst);
      fprintf(gCsv, "flights,\"%s (repeated)\",%lld,%s,%.3f,%.4f,%.6f,%.0f,%.0f\n", aQ[q][0], (long long)nRow, zBackend,
              tb*1e3, tc*1e3, tc/tb, nRow/tb, nRow/tc);
      if( td>0 ) fprintf(gCsv, "flights,\"%s (repeated vs DuckDB)\",%lld,%s,%.3f,%.4f,%.6f,%.0f,%.0f\n", aQ[q][0],
                         (long long)nRow, zBackend, td*1e3, tc*1e3, tc/td, nRow/td, nRow/tc);
    }
  }

  /* The answers: gpu_group_by row for row; gpu_summary's counts, extremes
  ** and distinct counts per column. */
  printf("\n");
  for(q=0; q<nG && wantPart("group"); q++){
    char *zB = sqlite3_mprintf("%s ORDER BY 1", aQ[q][1]);
    zDiff = groupDiff(db, aQ[q][2], zB);
    printf("answers, gpu_group_by('%s', '%s', 'delay'): %s%s\n", aG[q].zSrc, aG[q].zKey, zDiff ? "" : "same",
           zDiff ? zDiff : "");
    sqlite3_free(zDiff);
    sqlite3_free(zB);
  }
  if( wantPart("summary") ){
    zDiff = summaryDiff(db, aQ[nG+1][2], aQ[nG][1], nCol);
    printf("answers, gpu_summary('f') (rows, count, counts by type, min, max%s): %s%s\n",
           hasDistinct ? ", distinct" : "; no `distinct` in this build", zDiff ? "" : "same", zDiff ? zDiff : "");
    sqlite3_free(zDiff);
  }
  {
    char *z = h_text(db, "SELECT json_extract(gpuagg_info(), '$.cache')");
    printf("\ncache: %s\n", z ? z : "?");
    free(z);
  }
  for(q=0; q<nQ; q++) for(i=0; i<4; i++) sqlite3_free(aQ[q][i]);
  if( dk ) duck_close(dk);
  sqlite3_close(db);
}

/* 10. Queries through gpu_query (query): TPC-H Q1 and Q6 on a lineitem
** table (bench/lineitem.c) of `rows` rows in a file (BENCH_QUERY_DB, default
** /tmp/gpuagg-lineitem.db), flights-like questions on the flights
** section's table f (BENCH_FLIGHTS_DB), and, only when named, the Star
** Schema Benchmark's 13 queries on its five tables (bench/ssb.c) at scale
** factor BENCH_SSB_SF (default 1; `rows` does not apply) in BENCH_SSB_DB
** (default /tmp/gpuagg-ssb.db) and TPC-H's join queries Q3, Q5, Q10, Q12,
** Q14 and Q19 on its eight tables (bench/tpch.c) at scale factor
** BENCH_TPCH_SF (default 1; `rows` does not apply) in BENCH_TPCH_DB
** (default /tmp/gpuagg-tpch.db), all made from a seed and kept. Each
** query: (a) the builtin SQL on the connection that made or read the file
** (its page cache holds the whole file; median of `runs`); (b) gpu_query's
** first run on a fresh connection (the file opened anew, the module loaded,
** gpuagg_backend('cpu'), gpuagg_config('threads', every core); the file in
** the system's page cache, since the builtin just read it): CREATE VIRTUAL
** TABLE temp.q USING gpu_query((SELECT ...)) and SELECT * FROM q, timed
** together; (c) SELECT * FROM q again on that connection (median of up to
** 15 runs, fewer past 10 s, 5 at least); (d) DuckDB in memory over copies of the same
** tables (BENCH_DUCKDB; every core, median of up to 15, as (c); tpchj's tables in a
** DuckDB database of their own, their names being the other parts').
** Every gpu_query answer is checked cell for cell against the builtin
** SQL's with sum, total and avg as gpu_sum, gpu_total and gpu_avg
** (correctly rounded, as gpu_query's are). gpu_explain's path for each
** query, where the module has it.
** For an answer of 1,000 rows or more, a note compares the steps after its
** first row with those of a temp table holding the same rows: what SQLite
** itself takes to hand them over.
** Knobs: BENCH_QUERY_PART (tpch, flights, ssb, tpchj or tpch22 — TPC-H's
** 22 as the tests run them, bench/tpch22.h, ids t1 ... t22, over tpchj's
** tables — or a comma-separated list of them; unset: tpch and flights),
** BENCH_QUERY_ONLY (a comma-separated list of the queries' ids; an ssb,
** tpchj or tpch22 id runs that part), BENCH_BUILTIN_CAP_S (the builtin
** stopped after that many seconds, its time shown as "> cap" and the
** answer checked against the CPU operators'), BENCH_SSB_SF, BENCH_SSB_DB, BENCH_TPCH_SF, BENCH_TPCH_DB,
** BENCH_QUERY_THREADS (default every core), BENCH_QUERY_OURS=0 (gpu_query
** not run: DuckDB's side alone, in a process of its own, where both
** together would not fit the host's memory: TPC-H SF 30), BENCH_QUERY_READ=0
** (the generated tables not read through first: a process after one that
** read them in the same run),
** BENCH_QUERY_CACHE (gpuagg_config('cache', N) on the fresh connection;
** default the module's), BENCH_QUERY_CHECK=0 (no answer checks: each costs
** one more builtin-sized run), BENCH_QUERY_BUILTIN=0 (the builtin not run:
** for A/B runs of two builds, GPUAGG_MODULE alternating, and at scale
** factors where it takes minutes; each answer is then checked against the
** CPU operators' on the same connection, gpuagg_backend('cpu'), unless
** BENCH_QUERY_CHECK=0). */
typedef struct QueryDef {
  const char *zId;          /* for BENCH_QUERY_ONLY */
  const char *zPart;        /* "tpch" (lineitem), "flights" (f), "ssb" (SSB's 5 tables) or
                            ** "tpchj" (TPC-H's 8 tables) */
  const char *zLabel;
  const char *zSql;         /* the SQLite form; ?1.. bound to zArgs' integers */
  const char *zDuck;        /* DuckDB's form, NULL: zSql */
  const char *zArgs;        /* SELECT * FROM q(zArgs); NULL: no parameters */
  const char *zBuiltin;     /* the builtin's form, where SQLite's plan for zSql would take hours
                            ** (the same answer by another plan); NULL: zSql */
} QueryDef;

static const QueryDef aQueryDef[] = {
  { "q1", "tpch", "TPC-H Q1",
    "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, "
    "sum(l_extendedprice*(1-l_discount)) AS sum_disc_price, sum(l_extendedprice*(1-l_discount)*(1+l_tax)) AS sum_charge, "
    "avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order "
    "FROM lineitem WHERE l_shipdate <= date('1998-12-01', '-90 days') GROUP BY l_returnflag, l_linestatus "
    "ORDER BY l_returnflag, l_linestatus",
    /* The dates are TEXT (VARCHAR in the copy): compared as strings, as in SQLite. */
    "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, "
    "sum(l_extendedprice*(1-l_discount)) AS sum_disc_price, sum(l_extendedprice*(1-l_discount)*(1+l_tax)) AS sum_charge, "
    "avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order "
    "FROM lineitem WHERE l_shipdate <= '1998-09-02' GROUP BY l_returnflag, l_linestatus "
    "ORDER BY l_returnflag, l_linestatus", 0, 0 },
  { "q6", "tpch", "TPC-H Q6",
    "SELECT sum(l_extendedprice*l_discount) AS revenue FROM lineitem WHERE l_shipdate >= '1994-01-01' "
    "AND l_shipdate < date('1994-01-01', '+1 year') AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 "
    "AND l_quantity < 24",
    /* SQLite's bounds are doubles (0.06 + 0.01 is 0.06999999999999999: no
    ** 0.07 discount passes); DuckDB's literals are DECIMAL: made doubles. */
    "SELECT sum(l_extendedprice*l_discount) AS revenue FROM lineitem WHERE l_shipdate >= '1994-01-01' "
    "AND l_shipdate < '1995-01-01' AND l_discount BETWEEN 0.06::DOUBLE - 0.01::DOUBLE AND 0.06::DOUBLE + 0.01::DOUBLE "
    "AND l_quantity < 24", 0, 0 },
  { "origin", "flights", "avg delay over 1,000 miles, by origin",
    "SELECT origin, avg(delay), count(*) FROM f WHERE distance > 1000 GROUP BY origin", 0, 0, 0 },
  { "route", "flights", "avg delay over 1,000 miles, by route",
    "SELECT origin, dest, avg(delay), count(*) FROM f WHERE distance > 1000 GROUP BY origin, dest", 0, 0, 0 },
  { "month", "flights", "avg delay by month (substr)",
    "SELECT substr(date,1,7) AS month, avg(delay), count(*) FROM f GROUP BY month",
    "SELECT substr(\"date\",1,7) AS month, avg(delay), count(*) FROM f GROUP BY month", 0, 0 },
  { "distinct", "flights", "destinations by origin, count(DISTINCT)",
    "SELECT origin, count(DISTINCT dest) FROM f GROUP BY origin", 0, 0, 0 },
  { "totals", "flights", "sum(delay), avg(distance), count(*)",
    "SELECT sum(delay), avg(distance), count(*) FROM f", 0, 0, 0 },
  { "param", "flights", "by origin, distance > ?1, as q(1000)",
    "SELECT origin, avg(delay), count(*) FROM f WHERE distance > ?1 GROUP BY origin",
    "SELECT origin, avg(delay), count(*) FROM f WHERE distance > 1000 GROUP BY origin", "1000", 0 },
  /* issue 39's questions */
  { "concat", "flights", "origin || '-' || dest, count, avg delay, by route",
    "SELECT origin || '-' || dest AS route, count(*), avg(delay) FROM f GROUP BY origin, dest", 0, 0, 0 },
  { "hist", "flights", "a 100-bin histogram of delay as SQL (CAST, min of two)",
    "SELECT min(CAST((delay + 60) * 100 / 300 AS INT), 99) AS b, count(*) FROM f WHERE delay BETWEEN -60 AND 240 GROUP BY b",
    /* DuckDB: // divides integers, least() is the scalar min */
    "SELECT least(CAST((delay + 60) * 100 // 300 AS INT), 99) AS b, count(*) FROM f WHERE delay BETWEEN -60 AND 240 GROUP BY b", 0, 0 },
  { "late", "tpch", "late receipts by supplier, two TEXT columns compared",
    "SELECT l_suppkey, count(*) AS late FROM lineitem WHERE l_receiptdate > l_commitdate GROUP BY l_suppkey "
    "ORDER BY late DESC, l_suppkey LIMIT 10", 0, 0, 0 },
  { "bydist", "flights", "avg(distance) by distance (~1,700 groups)",
    "SELECT distance, avg(distance), count(*) FROM f GROUP BY distance", 0, 0, 0 },
  { "median", "flights", "the median delay through ORDER BY LIMIT 2 OFFSET n/2 in a subquery",
    "SELECT avg(delay) FROM (SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay "
    "LIMIT 2 - (SELECT count(delay) FROM f) % 2 OFFSET ((SELECT count(delay) FROM f) - 1) / 2)",
    "SELECT avg(delay) FROM (SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay "
    "LIMIT 2 - (SELECT count(delay) FROM f) % 2 OFFSET ((SELECT count(delay) FROM f) - 1) // 2)", 0, 0 },
  /* The Star Schema Benchmark's 13 queries (revision 3), in the spec's
  ** text with its constants; DuckDB takes the same text. */
  { "q1.1", "ssb", "SSB: revenue, a year, discount 1-3, quantity < 25",
    "SELECT sum(lo_extendedprice*lo_discount) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey "
    "AND d_year = 1993 AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25", 0, 0, 0 },
  { "q1.2", "ssb", "SSB: revenue, a month, discount 4-6, quantity 26-35",
    "SELECT sum(lo_extendedprice*lo_discount) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey "
    "AND d_yearmonthnum = 199401 AND lo_discount BETWEEN 4 AND 6 AND lo_quantity BETWEEN 26 AND 35", 0, 0, 0 },
  { "q1.3", "ssb", "SSB: revenue, a week, discount 5-7, quantity 36-40",
    "SELECT sum(lo_extendedprice*lo_discount) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey "
    "AND d_weeknuminyear = 6 AND d_year = 1994 AND lo_discount BETWEEN 5 AND 7 AND lo_quantity BETWEEN 36 AND 40",
    0, 0, 0 },
  { "q2.1", "ssb", "SSB: revenue by year and brand, a category, a region",
    "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier WHERE lo_orderdate = d_datekey "
    "AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_category = 'MFGR#12' AND s_region = 'AMERICA' "
    "GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1", 0, 0, 0 },
  { "q2.2", "ssb", "SSB: revenue by year and brand, 8 brands, a region",
    "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier WHERE lo_orderdate = d_datekey "
    "AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_brand1 BETWEEN 'MFGR#2221' AND 'MFGR#2228' "
    "AND s_region = 'ASIA' GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1", 0, 0, 0 },
  { "q2.3", "ssb", "SSB: revenue by year and brand, a brand, a region",
    "SELECT sum(lo_revenue), d_year, p_brand1 FROM lineorder, date, part, supplier WHERE lo_orderdate = d_datekey "
    "AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_brand1 = 'MFGR#2239' AND s_region = 'EUROPE' "
    "GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1", 0, 0, 0 },
  { "q3.1", "ssb", "SSB: revenue by nations and year, a region, 6 years",
    "SELECT c_nation, s_nation, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date "
    "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey AND c_region = 'ASIA' "
    "AND s_region = 'ASIA' AND d_year >= 1992 AND d_year <= 1997 GROUP BY c_nation, s_nation, d_year "
    "ORDER BY d_year ASC, revenue DESC", 0, 0, 0 },
  { "q3.2", "ssb", "SSB: revenue by cities and year, a nation, 6 years",
    "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date "
    "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
    "AND c_nation = 'UNITED STATES' AND s_nation = 'UNITED STATES' AND d_year >= 1992 AND d_year <= 1997 "
    "GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC", 0, 0, 0 },
  { "q3.3", "ssb", "SSB: revenue by cities and year, 2 cities, 6 years",
    "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date "
    "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
    "AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') "
    "AND d_year >= 1992 AND d_year <= 1997 GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC", 0, 0, 0 },
  { "q3.4", "ssb", "SSB: revenue by cities and year, 2 cities, a month",
    "SELECT c_city, s_city, d_year, sum(lo_revenue) AS revenue FROM customer, lineorder, supplier, date "
    "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_datekey "
    "AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5') "
    "AND d_yearmonth = 'Dec1997' GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC", 0, 0, 0 },
  { "q4.1", "ssb", "SSB: profit by year and nation, a region, 2 manufacturers",
    "SELECT d_year, c_nation, sum(lo_revenue - lo_supplycost) AS profit FROM date, customer, supplier, part, lineorder "
    "WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND lo_orderdate = d_datekey "
    "AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') "
    "GROUP BY d_year, c_nation ORDER BY d_year, c_nation", 0, 0, 0 },
  { "q4.2", "ssb", "SSB: profit by year, nation and category, 2 years",
    "SELECT d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) AS profit "
    "FROM date, customer, supplier, part, lineorder WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey "
    "AND lo_partkey = p_partkey AND lo_orderdate = d_datekey AND c_region = 'AMERICA' AND s_region = 'AMERICA' "
    "AND (d_year = 1997 OR d_year = 1998) AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2') "
    "GROUP BY d_year, s_nation, p_category ORDER BY d_year, s_nation, p_category", 0, 0, 0 },
  { "q4.3", "ssb", "SSB: profit by year, city and brand, a nation, a category",
    "SELECT d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) AS profit "
    "FROM date, customer, supplier, part, lineorder WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey "
    "AND lo_partkey = p_partkey AND lo_orderdate = d_datekey AND c_region = 'AMERICA' "
    "AND s_nation = 'UNITED STATES' AND (d_year = 1997 OR d_year = 1998) AND p_category = 'MFGR#14' "
    "GROUP BY d_year, s_city, p_brand1 ORDER BY d_year, s_city, p_brand1", 0, 0, 0 },
  /* TPC-H's join queries (part tpchj) in the spec's text with its
  ** validation parameters: comma joins, the dates TEXT compared as strings
  ** (DATE 'x' written 'x', a date plus an interval written out as the
  ** date it is); DuckDB takes the same text. */
  { "h3", "tpchj", "TPC-H Q3: shipping priority, a segment, a date, LIMIT 10",
    "SELECT l_orderkey, sum(l_extendedprice*(1-l_discount)) AS revenue, o_orderdate, o_shippriority "
    "FROM customer, orders, lineitem WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey "
    "AND l_orderkey = o_orderkey AND o_orderdate < '1995-03-15' AND l_shipdate > '1995-03-15' "
    "GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 10", 0, 0, 0 },
  { "h4", "tpchj", "TPC-H Q4: order priority checking, a quarter, EXISTS (a semi join)",
    "SELECT o_orderpriority, count(*) AS order_count FROM orders WHERE o_orderdate >= '1993-07-01' "
    "AND o_orderdate < '1993-10-01' AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey "
    "AND l_commitdate < l_receiptdate) GROUP BY o_orderpriority ORDER BY o_orderpriority", 0, 0,
    /* SQLite's plan for EXISTS scans lineitem once per order (no index on
    ** l_orderkey): its IN form builds one index of the keys */
    "SELECT o_orderpriority, count(*) AS order_count FROM orders WHERE o_orderdate >= '1993-07-01' "
    "AND o_orderdate < '1993-10-01' AND o_orderkey IN (SELECT l_orderkey FROM lineitem "
    "WHERE l_commitdate < l_receiptdate) GROUP BY o_orderpriority ORDER BY o_orderpriority" },
  { "h5", "tpchj", "TPC-H Q5: local supplier volume, a region, a year, 6 tables",
    "SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue "
    "FROM customer, orders, lineitem, supplier, nation, region WHERE c_custkey = o_custkey "
    "AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND c_nationkey = s_nationkey "
    "AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'ASIA' "
    "AND o_orderdate >= '1994-01-01' AND o_orderdate < '1995-01-01' GROUP BY n_name ORDER BY revenue DESC", 0, 0, 0 },
  { "h10", "tpchj", "TPC-H Q10: returned items by customer, a quarter, LIMIT 20",
    "SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name, c_address, "
    "c_phone, c_comment FROM customer, orders, lineitem, nation WHERE c_custkey = o_custkey "
    "AND l_orderkey = o_orderkey AND o_orderdate >= '1993-10-01' AND o_orderdate < '1994-01-01' "
    "AND l_returnflag = 'R' AND c_nationkey = n_nationkey "
    "GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment ORDER BY revenue DESC LIMIT 20",
    0, 0, 0 },
  { "h12", "tpchj", "TPC-H Q12: ship modes and order priority, CASE sums",
    "SELECT l_shipmode, sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) "
    "AS high_line_count, sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 "
    "END) AS low_line_count FROM orders, lineitem WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') "
    "AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate AND l_receiptdate >= '1994-01-01' "
    "AND l_receiptdate < '1995-01-01' GROUP BY l_shipmode ORDER BY l_shipmode", 0, 0, 0 },
  { "h14", "tpchj", "TPC-H Q14: promotion effect, a month, CASE and LIKE",
    "SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice*(1-l_discount) ELSE 0 END) "
    "/ sum(l_extendedprice * (1 - l_discount)) AS promo_revenue FROM lineitem, part WHERE l_partkey = p_partkey "
    "AND l_shipdate >= '1995-09-01' AND l_shipdate < '1995-10-01'", 0, 0, 0 },
  { "h15", "tpchj", "TPC-H Q15: top supplier, a WITH of sums joined, its max",
    "WITH revenue0 AS (SELECT l_suppkey AS supplier_no, sum(l_extendedprice * (1 - l_discount)) AS "
    "total_revenue FROM lineitem WHERE l_shipdate >= '1996-01-01' AND l_shipdate < '1996-04-01' GROUP BY "
    "l_suppkey) SELECT s_suppkey, s_name, s_address, s_phone, total_revenue FROM supplier, revenue0 "
    "WHERE s_suppkey = supplier_no AND total_revenue = (SELECT max(total_revenue) FROM revenue0) ORDER "
    "BY s_suppkey", 0, 0, 0 },
  { "h17", "tpchj", "TPC-H Q17: small-quantity revenue, a correlated avg (decorrelated)",
    "SELECT sum(l_extendedprice) / 7.0 AS avg_yearly FROM lineitem, part WHERE p_partkey = l_partkey AND "
    "p_brand = 'Brand#23' AND p_container = 'MED BOX' AND l_quantity < (SELECT 0.2 * avg(l_quantity) "
    "FROM lineitem WHERE l_partkey = p_partkey)", 0, 0,
    /* SQLite's plan runs the subquery once per line of the brand's parts (> 20 s at SF 1): the
    ** same answer with the average per part computed once */
    "SELECT sum(l_extendedprice) / 7.0 AS avg_yearly FROM lineitem, part, (SELECT l_partkey AS k, "
    "0.2 * avg(l_quantity) AS a FROM lineitem GROUP BY l_partkey) AS d WHERE p_partkey = l_partkey AND "
    "p_brand = 'Brand#23' AND p_container = 'MED BOX' AND d.k = p_partkey AND l_quantity < d.a" },
  { "h19", "tpchj", "TPC-H Q19: discounted revenue, 3 brands, OR of ANDs",
    "SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem, part WHERE "
    "(p_partkey = l_partkey AND p_brand = 'Brand#12' AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG') "
    "AND l_quantity >= 1 AND l_quantity <= 1 + 10 AND p_size BETWEEN 1 AND 5 AND l_shipmode IN ('AIR', 'AIR REG') "
    "AND l_shipinstruct = 'DELIVER IN PERSON') OR "
    "(p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK') "
    "AND l_quantity >= 10 AND l_quantity <= 10 + 10 AND p_size BETWEEN 1 AND 10 AND l_shipmode IN ('AIR', 'AIR REG') "
    "AND l_shipinstruct = 'DELIVER IN PERSON') OR "
    "(p_partkey = l_partkey AND p_brand = 'Brand#34' AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG') "
    "AND l_quantity >= 20 AND l_quantity <= 20 + 10 AND p_size BETWEEN 1 AND 15 AND l_shipmode IN ('AIR', 'AIR REG') "
    "AND l_shipinstruct = 'DELIVER IN PERSON')", 0, 0, 0 },
};

/* A statement's rows, each as one string of its cells, exactly: INTEGER as
** %lld, REAL as %.17g (with ".0" where that looks like an integer), TEXT
** quoted, BLOB as x'..', NULL as NULL; cells joined by " | ". */
typedef struct QRows { char **az; int n, cap; } QRows;

static void qrowsFree(QRows *p){
  int i;
  for(i=0; i<p->n; i++) sqlite3_free(p->az[i]);
  free(p->az);
  memset(p, 0, sizeof(*p));
}

static char *rowText(sqlite3_stmt *st){
  sqlite3_str *s = sqlite3_str_new(0);
  int i, j;
  for(i=0; i<sqlite3_column_count(st); i++){
    if( i ) sqlite3_str_appendall(s, " | ");
    switch( sqlite3_column_type(st, i) ){
      case SQLITE_NULL:    sqlite3_str_appendall(s, "NULL"); break;
      case SQLITE_INTEGER: sqlite3_str_appendf(s, "%lld", (long long)sqlite3_column_int64(st, i)); break;
      case SQLITE_FLOAT: {
        char z[40];
        snprintf(z, sizeof(z), "%.17g", sqlite3_column_double(st, i));
        sqlite3_str_appendall(s, z);
        if( z[strspn(z, "-0123456789")]==0 ) sqlite3_str_appendall(s, ".0");
        break;
      }
      case SQLITE_TEXT:    sqlite3_str_appendf(s, "'%q'", sqlite3_column_text(st, i)); break;
      default: {
        const unsigned char *b = sqlite3_column_blob(st, i);
        sqlite3_str_appendall(s, "x'");
        for(j=0; j<sqlite3_column_bytes(st, i); j++) sqlite3_str_appendf(s, "%02x", b[j]);
        sqlite3_str_appendall(s, "'");
      }
    }
  }
  return sqlite3_str_finish(s);
}

static int64_t gQueryRows;          /* rows of runQuery's last statement */

/* Runs zSql on db, the integers of zArgs (comma-separated, or NULL) bound
** to ?1, ?2, ...; its rows into *pRows if pRows, their count into
** gQueryRows. Seconds, or -1 with the error in *pzErr (sqlite3_free it). */
static double runQuery(sqlite3 *db, const char *zSql, const char *zArgs, QRows *pRows, char **pzErr){
  sqlite3_stmt *st = 0;
  double t0 = h_now(), t;
  int rc, i = 1;
  const char *z;
  *pzErr = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    return -1;
  }
  for(z=zArgs; z && *z; i++){
    sqlite3_bind_int64(st, i, atoll(z));
    z = strchr(z, ',');
    if( z ) z++;
  }
  gQueryRows = 0;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    gQueryRows++;
    if( pRows ){
      if( pRows->n==pRows->cap ){
        int cap = pRows->cap ? 2*pRows->cap : 64;
        char **az = realloc(pRows->az, sizeof(char*)*(size_t)cap);
        if( az==0 ){ fprintf(stderr, "no memory\n"); exit(1); }
        pRows->az = az;
        pRows->cap = cap;
      }
      pRows->az[pRows->n++] = rowText(st);
    }
  }
  t = h_now() - t0;
  if( rc!=SQLITE_DONE ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    t = -1;
  }
  sqlite3_finalize(st);
  return t;
}

/* The seconds a statement's steps after its first row take (*pn: its
** rows), or -1: the rows handed to the caller, the engine having run
** before the first. */
static double stepsAfterFirst(sqlite3 *db, const char *zSql, int64_t *pn){
  sqlite3_stmt *st = 0;
  double t0, t = 0;
  *pn = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ) return -1;
  if( sqlite3_step(st)==SQLITE_ROW ){
    *pn = 1;
    t0 = h_now();
    while( sqlite3_step(st)==SQLITE_ROW ) (*pn)++;
    t = h_now() - t0;
  }
  if( sqlite3_finalize(st)!=SQLITE_OK ) return -1;
  return t;
}

/* A note on a large answer: its rows handed over by gpu_query's virtual
** table, and the same rows by a temp table of SQLite's own (steps after the
** first row, medians of 3). */
static void rowsHandedOver(sqlite3 *db, const char *zId, const char *zSel, sqlite3_str *pNote){
  double a[3], b[3];
  int64_t n = 0, nT = 0;
  int i;
  char *z = sqlite3_mprintf("CREATE TEMP TABLE qrows AS %s", zSel);
  for(i=0; i<3; i++) a[i] = stepsAfterFirst(db, zSel, &n);
  if( sqlite3_exec(db, z, 0, 0, 0)==SQLITE_OK ){
    for(i=0; i<3; i++) b[i] = stepsAfterFirst(db, "SELECT * FROM temp.qrows", &nT);
    sqlite3_exec(db, "DROP TABLE temp.qrows", 0, 0, 0);
    qsort(a, 3, sizeof(double), cmpDouble);
    qsort(b, 3, sizeof(double), cmpDouble);
    if( a[0]>=0 && b[0]>=0 && n==nT ){
      sqlite3_str_appendf(pNote, "- %s: its %lld rows handed over after the first: %.2f ms from gpu_query's virtual table, "
                          "%.2f ms from a temp table of the same rows\n", zId, (long long)n, a[1]*1e3, b[1]*1e3);
    }
  }
  sqlite3_free(z);
}

/* The builtin's time, or exit: the builtin SQL must run. */
static double runOrDie(sqlite3 *db, const char *zSql, const char *zArgs, QRows *pRows){
  char *zErr;
  double t = runQuery(db, zSql, zArgs, pRows, &zErr);
  if( t<0 ){
    fprintf(stderr, "%s: %s\n", zSql, zErr);
    exit(1);
  }
  return t;
}

/* zSql with sum, total and avg called as gpu_sum, gpu_total and gpu_avg
** (whole identifiers followed by "(", outside string literals). */
static char *gpuNames(const char *z){
  sqlite3_str *s = sqlite3_str_new(0);
  while( *z ){
    if( *z=='_' || (*z>='a' && *z<='z') || (*z>='A' && *z<='Z') ){
      const char *e = z, *p;
      while( *e=='_' || (*e>='a' && *e<='z') || (*e>='A' && *e<='Z') || (*e>='0' && *e<='9') ) e++;
      for(p=e; *p==' '; p++){}
      if( *p=='(' && ((e-z==3 && (sqlite3_strnicmp(z, "sum", 3)==0 || sqlite3_strnicmp(z, "avg", 3)==0))
                      || (e-z==5 && sqlite3_strnicmp(z, "total", 5)==0)) ){
        sqlite3_str_appendall(s, "gpu_");
      }
      sqlite3_str_append(s, z, (int)(e - z));
      z = e;
    }else if( *z=='\'' ){
      const char *e = z + 1;
      while( *e && !(e[0]=='\'' && e[1]!='\'') ) e += e[0]=='\'' ? 2 : 1;
      if( *e ) e++;
      sqlite3_str_append(s, z, (int)(e - z));
      z = e;
    }else{
      sqlite3_str_append(s, z++, 1);
    }
  }
  return sqlite3_str_finish(s);
}

static int cmpStr(const void *a, const void *b){ return strcmp(*(char*const*)a, *(char*const*)b); }

/* NULL if g and b (zB's: "the builtin") hold the same rows in the same order; else a message:
** "same rows in another order" (*pOrderOnly set unless the query has an
** ORDER BY, then a difference) or the first difference. */
static char *rowsDiff(QRows *g, QRows *b, const char *zB, int ordered, int *pOrderOnly){
  int i;
  *pOrderOnly = 0;
  if( g->n!=b->n ) return sqlite3_mprintf("gpu_query gave %d rows, %s %d", g->n, zB, b->n);
  for(i=0; i<g->n && strcmp(g->az[i], b->az[i])==0; i++){}
  if( i==g->n ) return 0;
  qsort(g->az, (size_t)g->n, sizeof(char*), cmpStr);
  qsort(b->az, (size_t)b->n, sizeof(char*), cmpStr);
  for(i=0; i<g->n && strcmp(g->az[i], b->az[i])==0; i++){}
  if( i==g->n ){
    *pOrderOnly = !ordered;
    return sqlite3_mprintf("same rows in another order%s", ordered ? ", against the query's ORDER BY" : "");
  }
  return sqlite3_mprintf("first difference (rows sorted): gpu_query %s; %s %s", g->az[i], zB, b->az[i]);
}

/* The lineitem table of n rows in zFile, made if missing, of another size
** or version; read once, so both SQLite's page cache (made big enough for
** the whole file) and the system's hold it. */
static sqlite3 *lineitemTable(const char *zFile, int64_t n){
  char *zErr = 0, zMsg[256];
  sqlite3 *db = h_open_file(zFile, &zErr);
  double t0;
  if( db==0 ){
    fprintf(stderr, "%s: %s\n", zFile, zErr);
    exit(1);
  }
  if( h_int(db, "PRAGMA user_version")!=2700 + LINEITEM_VERSION
   || h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name='lineitem'")!=1
   || h_int(db, "SELECT count(*) FROM lineitem")!=n ){
    /* A file holding only our table is made anew (no free pages left behind). */
    if( h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name<>'lineitem'")==0 ){
      sqlite3_close(db);
      unlink(zFile);
      if( (db = h_open_file(zFile, &zErr))==0 ){
        fprintf(stderr, "%s: %s\n", zFile, zErr);
        exit(1);
      }
    }
    t0 = h_now();
    h_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576");
    if( lineitem_fill(db, n, 27, zMsg, sizeof(zMsg)) ){
      fprintf(stderr, "%s: %s\n", zFile, zMsg);
      exit(1);
    }
    h_exec(db, "PRAGMA user_version=%d; PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL", 2700 + LINEITEM_VERSION);
    fprintf(stderr, "# lineitem: %lld rows made in %.1f s\n", (long long)n, h_now() - t0);
  }else{
    fprintf(stderr, "# lineitem: %lld rows in %s, made before\n", (long long)n, zFile);
  }
  t0 = h_now();
  h_exec(db, "PRAGMA cache_size = -%lld",
         (long long)(h_int(db, "PRAGMA page_count")*h_int(db, "PRAGMA page_size")/1024 + 65536));
  h_int(db, "SELECT count(*), sum(length(l_comment)), sum(l_extendedprice), sum(length(l_shipdate)) FROM lineitem");
  fprintf(stderr, "# lineitem: read once in %.1f s\n", h_now() - t0);
  return db;
}

/* A generated schema of several tables (the SSB's, TPC-H's). */
typedef struct GenTables {
  const char *zTag;         /* for messages: "ssb", "tpchj" */
  const char *zNames;       /* its tables as an SQL list, its "made" table last */
  int nNames;               /* ... how many */
  const char *zMade;        /* the table that says which rows the file holds */
  int version;              /* the rows' version (the generators'), kept in zMade */
  uint64_t seed;
  int (*xFill)(sqlite3*, double sf, uint64_t seed, char *zErr, int nErr);
  const char *const *azRead;/* the queries that read each table once (the last counts the big table's rows) */
  int nRead;
} GenTables;

/* g's tables at scale factor sf in zFile, made if missing or of another
** scale factor, seed or version (g->zMade holds those of the tables in the
** file); read once, as lineitemTable does. *pnRow: the last read's count. */
static sqlite3 *genTables(const GenTables *g, const char *zFile, double sf, int64_t *pnRow){
  const int64_t micro = (int64_t)(sf*1e6 + 0.5);
  char *zErr = 0, zMsg[256];
  sqlite3 *db = h_open_file(zFile, &zErr);
  double t0;
  int i;
  if( db==0 ){
    fprintf(stderr, "%s: %s\n", zFile, zErr);
    exit(1);
  }
  if( h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name IN %s", g->zNames)!=g->nNames
   || h_int(db, "SELECT count(*) FROM \"%w\" WHERE sf_micro=%lld AND seed=%lld AND version=%d", g->zMade,
            (long long)micro, (long long)g->seed, g->version)!=1 ){
    /* A file holding only our tables is made anew (no free pages left behind). */
    if( h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name NOT IN %s", g->zNames)==0 ){
      sqlite3_close(db);
      unlink(zFile);
      if( (db = h_open_file(zFile, &zErr))==0 ){
        fprintf(stderr, "%s: %s\n", zFile, zErr);
        exit(1);
      }
    }
    t0 = h_now();
    h_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576");
    if( g->xFill(db, sf, g->seed, zMsg, sizeof(zMsg)) ){
      fprintf(stderr, "%s: %s\n", zFile, zMsg);
      exit(1);
    }
    if( h_exec(db, "DROP TABLE IF EXISTS \"%w\"; CREATE TABLE \"%w\"(sf_micro INTEGER, seed INTEGER, version INTEGER);"
                   " INSERT INTO \"%w\" VALUES(%lld, %lld, %d); PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL",
               g->zMade, g->zMade, g->zMade, (long long)micro, (long long)g->seed, g->version) ){
      fprintf(stderr, "%s: %s\n", zFile, h_errmsg);
      exit(1);
    }
    fprintf(stderr, "# %s: scale factor %g made in %.1f s\n", g->zTag, sf, h_now() - t0);
  }else{
    fprintf(stderr, "# %s: scale factor %g in %s, made before\n", g->zTag, sf, zFile);
  }
  t0 = h_now();
  h_exec(db, "PRAGMA cache_size = -%lld",
         (long long)(h_int(db, "PRAGMA page_count")*h_int(db, "PRAGMA page_size")/1024 + 65536));
  if( getenv("BENCH_QUERY_READ") && atoi(getenv("BENCH_QUERY_READ"))==0 ){
    /* BENCH_QUERY_READ=0: not read through (a process after one that did
    ** in the same run: the pages cached); the rows, the big table's largest
    ** rowid (its rows go in without one: 1 to n) */
    *pnRow = h_int(db, "SELECT max(rowid) FROM %s", strstr(g->azRead[g->nRead - 1], " FROM ") + 6);
  }else{
    for(i=0; i<g->nRead; i++) *pnRow = h_int(db, "%s", g->azRead[i]);
  }
  fprintf(stderr, "# %s: %lld rows in its largest table, the tables read once in %.1f s\n", g->zTag,
          (long long)*pnRow, h_now() - t0);
  return db;
}

/* The SSB's five tables (bench/ssb.c). */
static const char *const azSsbRead[] = {
  "SELECT count(*), sum(d_weekdayfl) FROM date", "SELECT count(*), sum(length(p_container)) FROM part",
  "SELECT count(*), sum(length(s_phone)) FROM supplier", "SELECT count(*), sum(length(c_mktsegment)) FROM customer",
  "SELECT count(*), sum(length(lo_shipmode)) FROM lineorder",
};
static const GenTables ssbGen = {
  "ssb", "('date', 'part', 'supplier', 'customer', 'lineorder', 'ssb_made')", 6, "ssb_made", SSB_VERSION, 28,
  ssb_fill, azSsbRead, 5,
};

/* TPC-H's eight tables (bench/tpch.c; their version TPCH_VERSION's and
** LINEITEM_VERSION's). */
static const char *const azTpchRead[] = {
  "SELECT count(*), sum(length(r_comment)) FROM region", "SELECT count(*), sum(length(n_comment)) FROM nation",
  "SELECT count(*), sum(length(s_comment)) FROM supplier", "SELECT count(*), sum(length(c_comment)) FROM customer",
  "SELECT count(*), sum(length(p_comment)) FROM part", "SELECT count(*), sum(length(ps_comment)) FROM partsupp",
  "SELECT count(*), sum(length(o_comment)) FROM orders", "SELECT count(*), sum(length(l_comment)) FROM lineitem",
};
static const GenTables tpchGen = {
  "tpchj", "('region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem', 'tpch_made')", 9,
  "tpch_made", TPCH_VERSION*1000 + LINEITEM_VERSION, 29, tpch_fill, azTpchRead, 8,
};

/* Does the comma-separated list zList name zItem (a whole item, blanks
** around it allowed)? */
static int listHas(const char *zList, const char *zItem){
  size_t n = strlen(zItem);
  const char *z;
  for(z=zList; (z = strstr(z, zItem))!=0; z += n){
    if( (z==zList || z[-1]==',' || z[-1]==' ') && (z[n]==0 || z[n]==',' || z[n]==' ') ) return 1;
  }
  return 0;
}

/* Is this part of the query section to run (BENCH_QUERY_PART), and this
** query (BENCH_QUERY_ONLY)? The ssb and tpchj parts run only where one of
** them names it or its query. */
static int wantQuery(const QueryDef *q){
  const char *zPart = getenv("BENCH_QUERY_PART"), *zOnly = getenv("BENCH_QUERY_ONLY");
  if( zPart && zPart[0] ){
    if( !listHas(zPart, q->zPart) ) return 0;
  }else if( (strcmp(q->zPart, "ssb")==0 || strcmp(q->zPart, "tpchj")==0 || strcmp(q->zPart, "tpch22")==0)
            && !(zOnly && zOnly[0]) ){
    return 0;
  }
  if( zOnly && zOnly[0] ) return listHas(zOnly, q->zId);
  return 1;
}

/* gpuagg_info()'s query.last parts, named as in azPart: run i's into
** a[0..4][i], and what is left of its tElapsed seconds into a[5][i], all ms. */
static const char *azPart[6] = { "plan", "columns", "compile", "operators", "finish",
                                 "the rest (SQLite's statement, the rows handed over)" };
static void lastParts(sqlite3 *db, double tElapsed, double a[6][64], int i){
  static const char *azSql[5] = {
    "SELECT json_extract(gpuagg_info(), '$.query.last.plan_ms')",
    "SELECT json_extract(gpuagg_info(), '$.query.last.columns_ms')",
    "SELECT json_extract(gpuagg_info(), '$.query.last.compile_ms')",
    "SELECT json_extract(gpuagg_info(), '$.query.last.operators_ms')",
    "SELECT json_extract(gpuagg_info(), '$.query.last.finish_ms')" };
  double rest = tElapsed*1e3;
  int k;
  for(k=0; k<5; k++){
    a[k][i] = qDouble(db, azSql[k]);
    rest -= a[k][i];
  }
  a[5][i] = rest;
}

/* A fresh connection to zFile for gpu_query: the module loaded, the CPU
** backend, nThread threads, the cache at BENCH_QUERY_CACHE if set, query_kept
** at BENCH_QUERY_KEPT if set (1: the CPU backend's programs over kept columns,
** to see a read's cost beside the operators' on a machine without a GPU).
** NULL with the error in *pzErr. */
static sqlite3 *queryConn(const char *zFile, int nThread, char **pzErr){
  sqlite3 *db = h_open_file(zFile, pzErr);
  if( db==0 ) return 0;
  const char *zMode = getenv("BENCH_QUERY_BACKEND") ? getenv("BENCH_QUERY_BACKEND") : "auto";
  if( h_exec(db, "SELECT gpuagg_backend(%Q), gpuagg_config('threads', %d)", zMode, nThread)
   || (getenv("BENCH_QUERY_CACHE")
       && h_exec(db, "SELECT gpuagg_config('cache', %lld)", atoll(getenv("BENCH_QUERY_CACHE"))))
   || (getenv("BENCH_QUERY_KEPT")
       && h_exec(db, "SELECT gpuagg_config('query_kept', %d)", atoi(getenv("BENCH_QUERY_KEPT")))) ){
    *pzErr = sqlite3_mprintf("%s", h_errmsg);
    sqlite3_close(db);
    return 0;
  }
  return db;
}

/* CREATE VIRTUAL TABLE temp.q USING gpu_query(...) with zSql as a
** parenthesized SELECT, or failing that, as a string. 0, or nonzero with
** the (first) error in *pzErr. *pForm remembers the form that worked. */
static int createQ(sqlite3 *db, const char *zSql, int *pForm, char **pzErr){
  int k;
  *pzErr = 0;
  for(k=0; k<2; k++){
    int form = (*pForm + k) & 1;
    char *zCreate = form ? sqlite3_mprintf("CREATE VIRTUAL TABLE temp.q USING gpu_query(%Q)", zSql)
                         : sqlite3_mprintf("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))", zSql);
    char *zErr = 0;
    int rc = sqlite3_exec(db, zCreate, 0, 0, &zErr);
    sqlite3_free(zCreate);
    if( rc==SQLITE_OK ){
      *pForm = form;
      sqlite3_free(*pzErr);
      *pzErr = 0;
      return 0;
    }
    if( *pzErr==0 ){
      *pzErr = sqlite3_mprintf("%s", zErr ? zErr : sqlite3_errstr(rc));
    }else if( zErr && strcmp(zErr, *pzErr)!=0 ){
      char *z = sqlite3_mprintf("%s (as a string: %s)", *pzErr, zErr);
      sqlite3_free(*pzErr);
      *pzErr = z;
    }
    sqlite3_free(zErr);
  }
  return 1;
}

/* A capped builtin (BENCH_BUILTIN_CAP_S): the progress handler's deadline. */
static int pastDeadline(void *p){
  return h_now()>*(const double*)p;
}

/* The builtin's run of pQ on db, at most cap seconds where cap>0: its
** seconds, or -1 where the cap stopped it (the run's error is fatal). */
static double builtinRun(sqlite3 *db, const QueryDef *pQ, double cap){
  char *zErr = 0;
  double deadline = h_now() + cap, t;
  if( cap>0 ) sqlite3_progress_handler(db, 10000, pastDeadline, &deadline);
  t = runQuery(db, pQ->zBuiltin ? pQ->zBuiltin : pQ->zSql, pQ->zArgs, 0, &zErr);
  sqlite3_progress_handler(db, 0, 0, 0);
  if( t<0 && cap>0 && sqlite3_errcode(db)==SQLITE_INTERRUPT ){
    sqlite3_free(zErr);
    return -1;
  }
  if( t<0 ){
    fprintf(stderr, "%s: %s\n", pQ->zSql, zErr);
    exit(1);
  }
  return t;
}

static void querySection(int64_t nRow){
  enum { nQ = sizeof(aQueryDef)/sizeof(aQueryDef[0]) + 22 };
  QueryDef aDef[nQ];                 /* aQueryDef, then TPC-H's 22 (part tpch22: ids t1 ... t22) */
  char azLabel22[22][24];
  const double cap = getenv("BENCH_BUILTIN_CAP_S") ? atof(getenv("BENCH_BUILTIN_CAP_S")) : 0;
  const char *zLFile = getenv("BENCH_QUERY_DB") ? getenv("BENCH_QUERY_DB") : "/tmp/gpuagg-lineitem.db";
  const char *zFFile = getenv("BENCH_FLIGHTS_DB") ? getenv("BENCH_FLIGHTS_DB") : "/tmp/gpuagg-flights.db";
  const char *zSFile = getenv("BENCH_SSB_DB") ? getenv("BENCH_SSB_DB") : "/tmp/gpuagg-ssb.db";
  const char *zJFile = getenv("BENCH_TPCH_DB") ? getenv("BENCH_TPCH_DB")
                     : tpch_keys() ? "/tmp/gpuagg-tpch-keys.db" : "/tmp/gpuagg-tpch.db";
  const char *zDuck = getenv("BENCH_DUCKDB");
  const double sf = getenv("BENCH_SSB_SF") && atof(getenv("BENCH_SSB_SF"))>0 ? atof(getenv("BENCH_SSB_SF")) : 1.0;
  const double sfJ = getenv("BENCH_TPCH_SF") && atof(getenv("BENCH_TPCH_SF"))>0 ? atof(getenv("BENCH_TPCH_SF")) : 1.0;
  const int builtin = !(getenv("BENCH_QUERY_BUILTIN") && atoi(getenv("BENCH_QUERY_BUILTIN"))==0);
  const int checks = !(getenv("BENCH_QUERY_CHECK") && atoi(getenv("BENCH_QUERY_CHECK"))==0);
  const int ours = !(getenv("BENCH_QUERY_OURS") && atoi(getenv("BENCH_QUERY_OURS"))==0);
  const int nFast = 15, check = builtin && checks, checkCpu = !builtin && checks;
  long nCpu = sysconf(_SC_NPROCESSORS_ONLN);
  int nThread = getenv("BENCH_QUERY_THREADS") ? atoi(getenv("BENCH_QUERY_THREADS")) : (int)(nCpu<1 ? 1 : nCpu>64 ? 64 : nCpu);
  int wantL = 0, wantF = 0, wantS = 0, wantJ = 0, form = 0, q, i;
  int64_t nSRow = 0, nJRow = 0;
  sqlite3 *dbL = 0, *dbF = 0, *dbS = 0, *dbJ = 0;
  sqlite3_str *pNote = sqlite3_str_new(0);
  char zErr[256], *zNote, *zUnavail = 0;
  duck *dk = 0, *dkJ = 0;

  memcpy(aDef, aQueryDef, sizeof(aQueryDef));
  for(q=0; q<22; q++){
    QueryDef *d = &aDef[nQ - 22 + q];
    static char azId[22][4];
    memset(d, 0, sizeof(*d));
    snprintf(azId[q], sizeof(azId[q]), "t%d", q + 1);
    snprintf(azLabel22[q], sizeof(azLabel22[q]), "TPC-H Q%d (tpch22.h)", q + 1);
    d->zId = azId[q];
    d->zPart = "tpch22";
    d->zLabel = azLabel22[q];
    d->zSql = azTpch22[q];
    if( q==10 && sfJ!=1.0 ){
      /* Q11's FRACTION is 0.0001 / SF (TPC-H 3.0, 2.4.11.3): the text's is SF 1's */
      static char zQ11[1024];
      const char *zAt = strstr(azTpch22[q], "* 0.0001 ");
      if( zAt ){
        snprintf(zQ11, sizeof(zQ11), "%.*s* %.17g %s", (int)(zAt - azTpch22[q]), azTpch22[q], 0.0001/sfJ,
                 zAt + strlen("* 0.0001 "));
        d->zSql = zQ11;
      }
    }
  }
#define aQueryDef aDef             /* (below: the whole list) */
  for(q=0; q<nQ; q++){
    if( !wantQuery(&aQueryDef[q]) ) continue;
    if( strcmp(aQueryDef[q].zPart, "tpch")==0 ) wantL = 1;
    else if( strcmp(aQueryDef[q].zPart, "ssb")==0 ) wantS = 1;
    else if( strcmp(aQueryDef[q].zPart, "tpchj")==0 || strcmp(aQueryDef[q].zPart, "tpch22")==0 ) wantJ = 1;
    else wantF = 1;
  }
  if( wantL ) dbL = lineitemTable(zLFile, nRow);
  if( wantF ) dbF = flightsTable(zFFile, nRow);
  if( wantS ) dbS = genTables(&ssbGen, zSFile, sf, &nSRow);
  if( wantJ ) dbJ = genTables(&tpchGen, zJFile, sfJ, &nJRow);
  if( zDuck && (wantL || wantF || wantS || wantJ) ){
    /* tpchj's tables in a DuckDB of their own: their names (lineitem,
    ** customer, supplier, part) are those of the tpch and ssb parts'. */
    static const char *const azSsb[] = { "date", "part", "supplier", "customer", "lineorder" };
    static const char *const azTpch[] = { "region", "nation", "supplier", "customer", "part", "partsupp", "orders",
                                          "lineitem" };
    double t0 = h_now();
    int bad = duck_load(zDuck, zErr, sizeof(zErr))
           || ((wantL || wantF || wantS) && (dk = duck_open_memory(0, zErr, sizeof(zErr)))==0)
           || (wantJ && (dkJ = duck_open_memory(0, zErr, sizeof(zErr)))==0)
           || (wantL && duck_copy_table(dk, dbL, "lineitem", zErr, sizeof(zErr)))
           || (wantF && duck_copy_table(dk, dbF, "f", zErr, sizeof(zErr)));
    for(i=0; !bad && wantS && i<5; i++) bad = duck_copy_table(dk, dbS, azSsb[i], zErr, sizeof(zErr));
    for(i=0; !bad && wantJ && i<8; i++) bad = duck_copy_table(dkJ, dbJ, azTpch[i], zErr, sizeof(zErr));
    if( bad ){
      printf("\nDuckDB not run: %s\n", zErr);
      if( dk ) duck_close(dk);
      if( dkJ ) duck_close(dkJ);
      dk = dkJ = 0;
    }else{
      fprintf(stderr, "# DuckDB: %s%s%s%s%s%s%s copied in %.1f s\n", wantL ? "lineitem" : "", wantL && wantF ? " and " : "",
              wantF ? "f" : "", (wantL || wantF) && wantS ? " and " : "", wantS ? "the SSB's 5 tables" : "",
              (wantL || wantF || wantS) && wantJ ? " and " : "", wantJ ? "TPC-H's 8 tables" : "", h_now() - t0);
    }
  }

  printf("\nQueries, %lld rows (lineitem in %s, f in %s", (long long)nRow, wantL ? zLFile : "-", wantF ? zFFile : "-");
  if( wantS ) printf("; SSB at scale factor %g, %lld lineorder rows, in %s", sf, (long long)nSRow, zSFile);
  if( wantJ ) printf("; TPC-H at scale factor %g, %lld lineitem rows, in %s", sfJ, (long long)nJRow, zJFile);
  printf("): the builtin SQL (median of %d runs, page cache warm); "
         "gpu_query (BENCH_QUERY_BACKEND, default auto; %d threads), its first run on a fresh connection (CREATE VIRTUAL TABLE "
         "and SELECT, the file in the system's page cache) and its repeated runs on it (median of up to %d)%s.\n\n",
         nRun, nThread, nFast, dk || dkJ ? "; DuckDB in memory (every core, median of the same)" : "");
  for(q=0; q<nQ; q++){
    if( wantQuery(&aQueryDef[q]) ) printf("- %s: `%s`%s%s%s\n", aQueryDef[q].zId, aQueryDef[q].zSql,
                                          aQueryDef[q].zArgs ? " as q(" : "", aQueryDef[q].zArgs ? aQueryDef[q].zArgs : "",
                                          aQueryDef[q].zArgs ? ")" : "");
  }
  printf("\n| query | path | builtin ms | first run ms | builtin/first | repeated ms (runs) | builtin/repeated "
         "| DuckDB ms | DuckDB/repeated | answers |\n"
         "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
  fflush(stdout);

  for(q=0; q<nQ; q++){
    const QueryDef *pQ = &aQueryDef[q];
    int isL = strcmp(pQ->zPart, "tpch")==0, isS = strcmp(pQ->zPart, "ssb")==0, nFastRun = 0;
    int isJ = strcmp(pQ->zPart, "tpchj")==0 || strcmp(pQ->zPart, "tpch22")==0, capped = 0;
    sqlite3 *db = isL ? dbL : isS ? dbS : isJ ? dbJ : dbF, *db2 = 0;
    const char *zFile = isL ? zLFile : isS ? zSFile : isJ ? zJFile : zFFile;
    const int64_t nQRow = isS ? nSRow : isJ ? nJRow : nRow;   /* rows of the (fact) table, for the CSV */
    duck *dq = isJ ? dkJ : dk;
    double tb, tCreate = -1, tFirst = -1, tc = -1, td = -1, t[64], t0, tStart = h_now();
    char *zSel = pQ->zArgs ? sqlite3_mprintf("SELECT * FROM q(%s)", pQ->zArgs) : sqlite3_mprintf("SELECT * FROM q");
    char *zE = 0, *zPath = 0, *zAnswer = 0;
    int64_t nDuckRow = -1, nBuiltinRow;
    if( !wantQuery(pQ) ){ sqlite3_free(zSel); continue; }

    /* (a) The builtin (BENCH_QUERY_BUILTIN=0: not run). */
    tb = NAN;
    nBuiltinRow = -1;
    if( builtin ){
      for(i=0; i<nRun && !capped; i++) capped = (t[i] = builtinRun(db, pQ, cap))<0;
      qsort(t, (size_t)nRun, sizeof(double), cmpDouble);
      tb = capped ? cap : t[nRun/2];
      nBuiltinRow = capped ? -1 : gQueryRows;
      if( capped ) sqlite3_str_appendf(pNote, "- %s: the builtin stopped at its cap, %.3g s: its time is the cap's, "
                                       "the answer checked against the CPU operators'\n", pQ->zId, cap);
    }

    /* (b) gpu_query's first run on a fresh connection, (c) repeated. */
    if( !ours ){
      /* BENCH_QUERY_OURS=0: DuckDB's side alone */
    }else if( (db2 = queryConn(zFile, nThread, &zE))==0 ){
      sqlite3_str_appendf(pNote, "- %s: no fresh connection: %s\n", pQ->zId, zE);
      sqlite3_free(zE);
      zE = 0;
    }else{
      double tq;
      t0 = h_now();
      if( createQ(db2, pQ->zSql, &form, &zE) ){
        if( zUnavail==0 ){
          zUnavail = sqlite3_mprintf("%s", zE);
          sqlite3_str_appendf(pNote, "- gpu_query not available: %s\n", zE);
        }else if( strcmp(zUnavail, zE)!=0 ){
          sqlite3_str_appendf(pNote, "- %s: gpu_query not available: %s\n", pQ->zId, zE);
        }
      }else{
        tCreate = h_now() - t0;
        sqlite3_free(zE);
        if( (tq = runQuery(db2, zSel, 0, 0, &zE))<0 ){
          sqlite3_str_appendf(pNote, "- %s: gpu_query failed: %s\n", pQ->zId, zE);
        }else{
          tFirst = tCreate + tq;
          double aPart[6][64];       /* each repeated run's parts (lastParts), then the rest */
          t0 = h_now();
          while( nFastRun<nFast && (nFastRun<5 || h_now() - t0<10) ){   /* 5 at least (issue 56's median): the
                                                                         ** first may keep the columns */
            if( (t[nFastRun] = runQuery(db2, zSel, 0, 0, &zE))<0 ) break;
            lastParts(db2, t[nFastRun], aPart, nFastRun);
            nFastRun++;
          }
          if( nFastRun>0 ){
            qsort(t, (size_t)nFastRun, sizeof(double), cmpDouble);
            tc = t[nFastRun/2];
            sqlite3_str_appendf(pNote, "- %s: where a repeated run's time went (medians of %d, ms): ", pQ->zId, nFastRun);
            for(i=0; i<6; i++){
              qsort(aPart[i], (size_t)nFastRun, sizeof(double), cmpDouble);
              sqlite3_str_appendf(pNote, "%s %s %.3f", i ? "," : "", azPart[i], aPart[i][nFastRun/2]);
            }
            sqlite3_str_appendf(pNote, "\n");
          }
          if( zE ) sqlite3_str_appendf(pNote, "- %s: a repeated run failed: %s\n", pQ->zId, zE);
          {
            char *zK = h_text(db2, "SELECT json_extract(gpuagg_info(), '$.query.device') || ' of %d runs on the device; "
                                   "not: ' || json_extract(gpuagg_info(), '$.query.not_kept') || '; the last run: ' ||"
                                   " json_extract(gpuagg_info(), '$.query.last') || '; the column cache: ' ||"
                                   " json_extract(gpuagg_info(), '$.cache.device_bytes') || ' bytes on the device, ' ||"
                                   " json_extract(gpuagg_info(), '$.cache.bytes') || ' on the host'", nFastRun + 1);
            sqlite3_str_appendf(pNote, "- %s: %s\n", pQ->zId, zK ? zK : "?");
            free(zK);
          }
          if( nFastRun>0 && gQueryRows>=1000 ) rowsHandedOver(db2, pQ->zId, zSel, pNote);
        }
      }
      sqlite3_free(zE);
      zE = 0;
    }

    /* (d) DuckDB. */
    if( dq ){
      const char *zD = pQ->zDuck ? pQ->zDuck : pQ->zSql;
      if( duck_time_ms(dq, zD, 0)>=0 ){
        int nDuckRun = 0;
        t0 = h_now();
        while( nDuckRun<nFast && (nDuckRun<5 || h_now() - t0<10) ){   /* as (c): at SF 30 its 15 took minutes */
          if( (t[nDuckRun] = duck_time_ms(dq, zD, &nDuckRow))<0 ) break;
          nDuckRun++;
        }
        qsort(t, (size_t)nDuckRun, sizeof(double), cmpDouble);
        td = nDuckRun>0 ? t[nDuckRun/2]/1e3 : -1;
      }else{
        sqlite3_str_appendf(pNote, "- %s: DuckDB failed (stderr)\n", pQ->zId);
      }
    }

    /* The answers: gpu_query's against the builtin's, sum/total/avg as
    ** gpu_sum/gpu_total/gpu_avg (where gpu_query ran); DuckDB's row count
    ** against the builtin's. */
    if( nDuckRow>=0 && builtin && !capped && nDuckRow!=nBuiltinRow ){
      sqlite3_str_appendf(pNote, "- %s: DuckDB gave %lld rows, the builtin %lld\n", pQ->zId, (long long)nDuckRow,
                          (long long)nBuiltinRow);
    }
    if( check && !capped && tFirst>=0 ){
      QRows ref = {0, 0, 0}, got = {0, 0, 0};
      char *zRef = gpuNames(pQ->zBuiltin ? pQ->zBuiltin : pQ->zSql);
      int orderOnly;
      runOrDie(db, zRef, pQ->zArgs, &ref);
      if( runQuery(db2, zSel, 0, &got, &zE)<0 ){
        zAnswer = sqlite3_mprintf("ERROR");
        sqlite3_str_appendf(pNote, "- %s: the answer's run failed: %s\n", pQ->zId, zE);
      }else if( (zE = rowsDiff(&got, &ref, "the builtin", strstr(pQ->zSql, "ORDER BY")!=0, &orderOnly))==0 ){
        zAnswer = sqlite3_mprintf("same (%d rows)", ref.n);
      }else{
        zAnswer = sqlite3_mprintf("%s (%d rows)", orderOnly ? "same, other order" : "DIFFER", ref.n);
        sqlite3_str_appendf(pNote, "- %s: answers: %s\n  reference: `%s`\n", pQ->zId, zE, zRef);
      }
      sqlite3_free(zE);
      zE = 0;
      qrowsFree(&ref);
      qrowsFree(&got);
      sqlite3_free(zRef);
    }

    /* Without the builtin (BENCH_QUERY_BUILTIN=0: at SF 10 it takes
    ** minutes a query), a repeated run's answer against the CPU operators'
    ** (gpuagg_backend('cpu') on the same connection), the reference the
    ** device is tested against. */
    if( (checkCpu || (checks && capped)) && tc>=0 ){
      const char *zMode = getenv("BENCH_QUERY_BACKEND") ? getenv("BENCH_QUERY_BACKEND") : "auto";
      QRows ref = {0, 0, 0}, got = {0, 0, 0};
      char *zOn = 0;
      int orderOnly;
      if( runQuery(db2, zSel, 0, &got, &zE)<0
       || (zOn = h_text(db2, "SELECT json_extract(gpuagg_info(), '$.query.last.on')"))==0
       || h_exec(db2, "SELECT gpuagg_backend('cpu')") || runQuery(db2, zSel, 0, &ref, &zE)<0
       || h_exec(db2, "SELECT gpuagg_backend(%Q)", zMode) ){
        zAnswer = sqlite3_mprintf("ERROR");
        sqlite3_str_appendf(pNote, "- %s: the answers' runs failed: %s\n", pQ->zId, zE ? zE : h_errmsg);
      }else if( (zE = rowsDiff(&got, &ref, "the CPU operators", strstr(pQ->zSql, "ORDER BY")!=0, &orderOnly))==0 ){
        zAnswer = sqlite3_mprintf("same as the CPU operators' (%d rows, on %s)", ref.n, zOn);
        if( nDuckRow>=0 && nDuckRow!=ref.n ){
          sqlite3_str_appendf(pNote, "- %s: DuckDB gave %lld rows, the CPU operators %d\n", pQ->zId, (long long)nDuckRow,
                              ref.n);
        }
      }else{
        zAnswer = sqlite3_mprintf("%s the CPU operators' (%d rows, on %s)", orderOnly ? "same, other order, as" : "DIFFER from",
                                  ref.n, zOn);
        sqlite3_str_appendf(pNote, "- %s: answers: %s\n", pQ->zId, zE);
      }
      sqlite3_free(zE);
      zE = 0;
      free(zOn);
      qrowsFree(&ref);
      qrowsFree(&got);
    }

    /* gpu_explain's path and why, where the module has it. */
    if( db2 ){
      sqlite3_stmt *st;
      if( sqlite3_prepare_v2(db2, "SELECT json_extract(j, '$.path'), json_extract(j, '$.why') "
                                  "FROM (SELECT gpu_explain(?1) AS j)", -1, &st, 0)==SQLITE_OK ){
        sqlite3_bind_text(st, 1, pQ->zSql, -1, SQLITE_STATIC);
        if( sqlite3_step(st)==SQLITE_ROW ){
          zPath = sqlite3_mprintf("%s", sqlite3_column_text(st, 0) ? (const char*)sqlite3_column_text(st, 0) : "?");
          if( sqlite3_column_text(st, 1) && sqlite3_column_bytes(st, 1)>0 ){
            sqlite3_str_appendf(pNote, "- %s: gpu_explain: %s, %s\n", pQ->zId, zPath, sqlite3_column_text(st, 1));
          }
        }else{
          sqlite3_str_appendf(pNote, "- %s: gpu_explain: %s\n", pQ->zId, sqlite3_errmsg(db2));
        }
      }
      sqlite3_finalize(st);
      sqlite3_close(db2);
    }

    printf("| %s %s | %s | %s%.1f |", pQ->zId, pQ->zLabel, zPath ? zPath : "-", capped ? "> " : "", tb*1e3);
    if( tFirst>=0 ) printf(" %.1f | %.2fx |", tFirst*1e3, tb/tFirst); else printf(" - | - |");
    if( tc>=0 ) printf(" %.2f (%d) | %.1fx |", tc*1e3, nFastRun, tb/tc); else printf(" - | - |");
    if( td>=0 ) printf(" %.2f |", td*1e3); else printf(" - |");
    if( td>=0 && tc>=0 ) printf(" %.2fx |", td/tc); else printf(" - |");
    printf(" %s |\n", zAnswer ? zAnswer : check || checkCpu ? "-" : "not checked");
    fflush(stdout);
    fprintf(stderr, "# query %s: builtin %.1f ms, create %.1f ms, first %.1f ms, repeated %.2f ms, DuckDB %.2f ms "
            "(nan: not run), %.1f s in all\n", pQ->zId, tb*1e3, tCreate<0 ? NAN : tCreate*1e3, tFirst<0 ? NAN : tFirst*1e3,
            tc<0 ? NAN : tc*1e3, td<0 ? NAN : td*1e3, h_now() - tStart);
    if( gCsv ){
      if( tFirst>=0 ) fprintf(gCsv, "query,\"%s %s (first run)\",%lld,cpu,%.3f,%.3f,%.4f,%.0f,%.0f\n", pQ->zId,
                              pQ->zLabel, (long long)nQRow, tb*1e3, tFirst*1e3, tFirst/tb, nQRow/tb, nQRow/tFirst);
      if( tc>=0 ) fprintf(gCsv, "query,\"%s %s (repeated)\",%lld,cpu,%.3f,%.3f,%.4f,%.0f,%.0f\n", pQ->zId,
                          pQ->zLabel, (long long)nQRow, tb*1e3, tc*1e3, tc/tb, nQRow/tb, nQRow/tc);
      if( td>=0 ) fprintf(gCsv, "query,\"%s %s (DuckDB)\",%lld,duckdb,%.3f,%.3f,%.4f,%.0f,%.0f\n", pQ->zId,
                          pQ->zLabel, (long long)nQRow, tb*1e3, td*1e3, td/tb, nQRow/tb, nQRow/td);
    }
    if( gQcsv ){
      fprintf(gQcsv, "%s,%.3f,%.3f,%.3f,%.3f\n", pQ->zId, tb*1e3, tFirst<0 ? NAN : tFirst*1e3, tc<0 ? NAN : tc*1e3,
              td<0 ? NAN : td*1e3);
    }
    sqlite3_free(zSel);
    sqlite3_free(zPath);
    sqlite3_free(zAnswer);
  }
  zNote = sqlite3_str_finish(pNote);
  if( zNote && zNote[0] ) printf("\n%s", zNote);
  sqlite3_free(zNote);
  sqlite3_free(zUnavail);
  if( dk ) duck_close(dk);
  if( dkJ ) duck_close(dkJ);
  sqlite3_close(dbL);
  sqlite3_close(dbF);
  sqlite3_close(dbS);
  sqlite3_close(dbJ);
}
#undef aQueryDef

/* ref_percentile(Y, P): the percentile extension's algorithm, as a
** reference in the same run: every value kept as a double, sorted at the
** end by a quicksort (in place, no comparison callback), interpolated as
** percentile.c does. The benchmark's own code. */
typedef struct RefPct { double *a; int64_t n, cap; double p; } RefPct;

static void refSort(double *a, int64_t n){
  while( n>16 ){
    double x = a[n/2], t;
    int64_t i = 0, j = n - 1;
    while( i<=j ){
      while( a[i]<x ) i++;
      while( a[j]>x ) j--;
      if( i<=j ){ t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if( j+1 < n - i ){ refSort(a, j + 1); a += i; n -= i; }
    else{ refSort(a + i, n - i); n = j + 1; }
  }
  for(int64_t i=1; i<n; i++){
    double v = a[i];
    int64_t j = i;
    while( j>0 && a[j-1]>v ){ a[j] = a[j-1]; j--; }
    a[j] = v;
  }
}

static void refPctStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  RefPct *p = (RefPct*)sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 || sqlite3_value_type(argv[0])==SQLITE_NULL ) return;
  p->p = argc>1 ? sqlite3_value_double(argv[1])/100.0 : 0.5;
  if( p->n==p->cap ){
    double *a = realloc(p->a, sizeof(double)*(size_t)(p->cap ? 2*p->cap : 1024));
    if( a==0 ){
      sqlite3_result_error_nomem(ctx);
      return;
    }
    p->a = a;
    p->cap = p->cap ? 2*p->cap : 1024;
  }
  p->a[p->n++] = sqlite3_value_double(argv[0]);
}

static void refPctFinal(sqlite3_context *ctx){
  RefPct *p = (RefPct*)sqlite3_aggregate_context(ctx, 0);
  if( p && p->n ){
    double ix = p->p*(double)(p->n - 1);
    int64_t i1 = (int64_t)ix, i2 = ix==(double)i1 || i1==p->n - 1 ? i1 : i1 + 1;
    refSort(p->a, p->n);
    sqlite3_result_double(ctx, p->a[i1] + (p->a[i2] - p->a[i1])*(ix - (double)i1));
  }
  if( p ) free(p->a);
}

/* 3f. On t (`rows` rows): gpu_median and gpu_percentile_cont against the
** percentile extension's algorithm (ref_percentile, above) and a sort-based
** SQL median; gpu_var_samp against the variance a user writes in SQL; then
** over its first million rows window sums and maxima (ROWS 999 PRECEDING)
** against the builtins'. Connection's backend and CPU. */
static void statsSection(sqlite3 *db, int64_t nRow, const char *zBackend){
  static const char *azQ[][3] = {
    { "median(x) vs the extension's algorithm", "SELECT ref_percentile(x, 50) FROM t", "SELECT gpu_median(x) FROM t" },
    { "percentile_cont(x, 0.9) vs the extension's algorithm", "SELECT ref_percentile(x, 90) FROM t",
      "SELECT gpu_percentile_cont(x, 0.9) FROM t" },
    { "percentile_disc(x, 0.5) vs ORDER BY x LIMIT 1 OFFSET n/2",
      "SELECT x FROM t WHERE x IS NOT NULL ORDER BY x LIMIT 1 OFFSET (SELECT (count(x) - 1)/2 FROM t)",
      "SELECT gpu_percentile_disc(x, 0.5) FROM t" },
    { "var_samp(x) vs SQL's sums", "SELECT (total(x*x) - total(x)*total(x)/count(x))/(count(x) - 1) FROM t",
      "SELECT gpu_var_samp(x) FROM t" },
    { "sum(x) OVER (ROWS 999 PRECEDING), 1M rows",
      "SELECT sum(x) OVER (ORDER BY rowid ROWS 999 PRECEDING) FROM t WHERE rowid<=1000000",
      "SELECT gpu_sum(x) OVER (ORDER BY rowid ROWS 999 PRECEDING) FROM t WHERE rowid<=1000000" },
    { "max(x) OVER (ROWS 999 PRECEDING), 1M rows",
      "SELECT max(x) OVER (ORDER BY rowid ROWS 999 PRECEDING) FROM t WHERE rowid<=1000000",
      "SELECT gpu_max(x) OVER (ORDER BY rowid ROWS 999 PRECEDING) FROM t WHERE rowid<=1000000" },
  };
  size_t q;
  int b;
  sqlite3_create_function(db, "ref_percentile", 2, SQLITE_UTF8, 0, 0, refPctStep, refPctFinal);
  printf("\n| query | reference ms | gpu_* ms | ratio |\n| --- | ---: | ---: | ---: |\n");
  for(b=0; b<2; b++){
    useBackend(db, b, zBackend);
    for(q=0; q<sizeof(azQ)/sizeof(azQ[0]); q++){
      char zLabel[128];
      if( b && q>=4 ) continue;                   /* windows run on the CPU either way */
      gRows = q>=4 ? 1000000 : nRow;
      snprintf(zLabel, sizeof(zLabel), "%s, %s", azQ[q][0], b ? "cpu" : zBackend);
      compare(db, zLabel, azQ[q][1], azQ[q][2], 1);
    }
  }
  useBackend(db, 0, zBackend);
  gRows = nRow;
}

int main(int argc, char **argv){
  int64_t nRow = argc>1 ? atoll(argv[1]) : 10000000;
  char *zErr = 0, *zBackend;
  sqlite3 *db;
  nRun = argc>2 ? atoi(argv[2]) : 5;
  if( argc>3 ) zSections = argv[3];
  if( nRun<1 || nRun>64 ) nRun = 5;
  if( (db = h_open(&zErr))==0 ){
    fprintf(stderr, "cannot load the module: %s\n", zErr);
    return 1;
  }
  if( getenv("BENCH_OUT") ){
    char *zPath = sqlite3_mprintf("%s/query.csv", getenv("BENCH_OUT"));
    if( (gQcsv = fopen(zPath, "w"))!=0 ) fprintf(gQcsv, "question,builtin_ms,first_ms,repeated_ms,duckdb_ms\n");
    sqlite3_free(zPath);
    zPath = sqlite3_mprintf("%s/sql.csv", getenv("BENCH_OUT"));
    gCsv = fopen(zPath, "w");
    sqlite3_free(zPath);
    if( gCsv==0 ){
      fprintf(stderr, "cannot write to %s\n", getenv("BENCH_OUT"));
      return 1;
    }
    fprintf(gCsv, "section,query,rows,backend,builtin_ms,gpu_ms,ratio,builtin_rows_per_s,gpu_rows_per_s\n");
  }
  fill(db, "small", 50000, 1000);
  printf("| query (median of %d runs) | builtin ms | gpu_* ms | ratio |\n", nRun);
  printf("| --- | ---: | ---: | ---: |\n");

  /* 1. Under the threshold: CPU only, and no CUDA at all. */
  gSection = "small";
  gRows = 50000;
  if( want("small") ){
  compare(db, "sum, 50K rows (under the threshold), x100", "SELECT sum(x) FROM small", "SELECT gpu_sum(x) FROM small", 100);
  compare(db, "GROUP BY 1000 groups, 50K rows, x20", "SELECT k, sum(i) FROM small GROUP BY k", "SELECT k, gpu_sum(i) FROM small GROUP BY k", 20);
  printf("| small queries: libcuda loaded | %s | context | %s |\n",
         h_libcuda_loaded()==1 ? "yes" : "no", h_cuda_context_active()==1 ? "created" : "none");
  }

  /* 2. nRow rows, on the connection's backend, then on the CPU backend. */
  if( want("rows") || want("extremes") || want("hist") || want("groupby") || want("summary") || want("stats") || want("chunks")
   || want("scale") ) fill(db, "t", nRow, 100000);
  zBackend = h_text(db, "SELECT gpuagg_backend()");
  gBackend = zBackend;
  gRows = nRow;
  gSection = "rows";
  {
    static const char *azQ[][3] = {
      { "sum(i)", "SELECT sum(i) FROM t", "SELECT gpu_sum(i) FROM t" },
      { "sum(x)", "SELECT sum(x) FROM t", "SELECT gpu_sum(x) FROM t" },
      { "total(x)", "SELECT total(x) FROM t", "SELECT gpu_total(x) FROM t" },
      { "avg(x)", "SELECT avg(x) FROM t", "SELECT gpu_avg(x) FROM t" },
      { "count(x)", "SELECT count(x) FROM t", "SELECT gpu_count(x) FROM t" },
    };
    int b;
    size_t q;
    for(b=0; b<2 && want("rows"); b++){
      useBackend(db, b, zBackend);
      for(q=0; q<sizeof(azQ)/sizeof(azQ[0]); q++){
        char zLabel[128];
        snprintf(zLabel, sizeof(zLabel), "%s, %lld rows, %s backend", azQ[q][0], (long long)nRow,
                 b==0 ? zBackend : "cpu");
        compare(db, zLabel, azQ[q][1], azQ[q][2], 1);
      }
      if( b==0 ) info(db, "after the 10M-row queries");
      if( b==0 ) printf("\n| query | builtin ms | gpu_* ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    }
    useBackend(db, 0, zBackend);
  }

  /* 3b. Extremes. */
  gSection = "extremes";
  if( want("extremes") ){
    static const char *azQ[][3] = {
      { "max(x)", "SELECT max(x) FROM t", "SELECT gpu_max(x) FROM t" },
      { "max(i)", "SELECT max(i) FROM t", "SELECT gpu_max(i) FROM t" },
      { "min(x)", "SELECT min(x) FROM t", "SELECT gpu_min(x) FROM t" },
      { "argmax(k, x) vs ORDER BY x DESC LIMIT 1",
        "SELECT k FROM t WHERE x IS NOT NULL ORDER BY x DESC, rowid LIMIT 1", "SELECT gpu_argmax(k, x) FROM t" },
      { "argmin(k, i) vs ORDER BY i LIMIT 1",
        "SELECT k FROM t WHERE i IS NOT NULL ORDER BY i, rowid LIMIT 1", "SELECT gpu_argmin(k, i) FROM t" },
    };
    size_t q;
    int b;
    printf("\n| query | builtin ms | gpu_* ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    for(b=0; b<2; b++){
      useBackend(db, b, zBackend);
      for(q=0; q<sizeof(azQ)/sizeof(azQ[0]); q++){
        char zLabel[128];
        snprintf(zLabel, sizeof(zLabel), "%s, %lld rows, %s", azQ[q][0], (long long)nRow, b ? "cpu" : zBackend);
        compare(db, zLabel, azQ[q][1], azQ[q][2], 1);
      }
    }
    useBackend(db, 0, zBackend);
  }

  /* 3c. Histograms. */
  gSection = "hist";
  if( want("hist") ){
    double lo = qDouble(db, "SELECT min(x) FROM t"), hi = qDouble(db, "SELECT max(x) FROM t");
    int64_t resident = h_int(db, "SELECT gpuagg_config('resident')");
    char *zRef = sqlite3_mprintf("SELECT min(CAST((x - %!.17g)*256/(%!.17g - %!.17g) AS INT), 255) b, count(*) "
                                 "FROM t WHERE x BETWEEN %!.17g AND %!.17g GROUP BY b", lo, hi, lo, lo, hi);
    char *zGiven = sqlite3_mprintf("SELECT * FROM gpu_histogram('t', 'x', 256, %!.17g, %!.17g)", lo, hi);
    int b;
    printf("\n| query | GROUP BY ms | gpu_histogram ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    for(b=0; b<2; b++){
      char zLabel[128];
      const char *zBe = b ? "cpu" : zBackend;
      useBackend(db, b, zBackend);
      snprintf(zLabel, sizeof(zLabel), "histogram 256, range given, %lld rows, %s", (long long)nRow, zBe);
      compare(db, zLabel, zRef, zGiven, 1);
      snprintf(zLabel, sizeof(zLabel), "histogram 256, range found, one scan, %s", zBe);
      compare(db, zLabel, zRef, "SELECT * FROM gpu_histogram('t', 'x', 256)", 1);
      h_exec(db, "SELECT gpuagg_config('resident', 0)");
      snprintf(zLabel, sizeof(zLabel), "histogram 256, range found, two scans, %s", zBe);
      compare(db, zLabel, zRef, "SELECT * FROM gpu_histogram('t', 'x', 256)", 1);
      h_exec(db, "SELECT gpuagg_config('resident', %lld)", (long long)resident);
    }
    useBackend(db, 0, zBackend);
    sqlite3_free(zRef);
    sqlite3_free(zGiven);
  }

  /* 3. GROUP BY with 100,000 groups. */
  gSection = "groupby";
  if( want("groupby") ){
    char zLabel[128];
    snprintf(zLabel, sizeof(zLabel), "GROUP BY 100,000 groups, %lld rows, %s", (long long)nRow, zBackend);
    compare(db, zLabel, "SELECT k, sum(i) FROM t GROUP BY k", "SELECT k, gpu_sum(i) FROM t GROUP BY k", 1);
    snprintf(zLabel, sizeof(zLabel), "GROUP BY 100,000 groups, avg(x), %s", zBackend);
    compare(db, zLabel, "SELECT k, avg(x) FROM t GROUP BY k", "SELECT k, gpu_avg(x) FROM t GROUP BY k", 1);
  }
  /* 3d. gpu_group_by against the GROUP BY a user would write, on tables
  ** of a key and a value (k, x), one a key distribution. */
  gSection = "group";
  if( want("group") ){
    static const struct { const char *zName, *zKey; } aKey[] = {
      { "256 groups",            "i*2654435761 %% 256" },
      { "100,000 groups",        "i*2654435761 %% 100000" },
      { "all distinct",          "i*2654435761 %% %lld" },
      { "256, skewed 90%%",      "CASE WHEN i%%10 THEN 42 ELSE i*2654435761 %% 256 END" },
      { "100,000, skewed 90%%",  "CASE WHEN i%%10 THEN 42 ELSE i*2654435761 %% 100000 END" },
      { "all, skewed 90%%",      "CASE WHEN i%%10 THEN 42 ELSE i*2654435761 %% %lld END" },
    };
    int b;
    size_t q;
    printf("\n| query | GROUP BY ms | gpu_group_by ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    for(q=0; q<sizeof(aKey)/sizeof(aKey[0]); q++){
      char *zKey = sqlite3_mprintf(aKey[q].zKey, (long long)nRow);
      char *zName = sqlite3_mprintf(aKey[q].zName);
      double t0 = h_now();
      h_exec(db, "DROP TABLE IF EXISTS g; CREATE TABLE g(k INTEGER, x REAL);"
                 "WITH RECURSIVE s(i) AS (VALUES(0) UNION ALL SELECT i+1 FROM s WHERE i<%lld) "
                 "INSERT INTO g SELECT %s, (i*40503 %% 2000001) - 1000000.25 FROM s", (long long)nRow - 1, zKey);
      fprintf(stderr, "# g (%s): %lld rows in %.1f s\n", zName, (long long)nRow, h_now() - t0);
      for(b=0; b<(getenv("BENCH_GROUP_CPU") && atoi(getenv("BENCH_GROUP_CPU"))==0 ? 1 : 2); b++){
        char zLabel[160];
        useBackend(db, b, zBackend);
        snprintf(zLabel, sizeof(zLabel), "group by, %s (%lld), all aggregates, %s", zName,
                 (long long)h_int(db, "SELECT count(DISTINCT k) FROM g"), b ? "cpu" : zBackend);
        compare(db, zLabel, "SELECT k, count(*), count(x), sum(x), total(x), avg(x), min(x), max(x) FROM g GROUP BY k",
                "SELECT * FROM gpu_group_by('g', 'k', 'x')", 1);
        if( b==0 && q<2 ){
          snprintf(zLabel, sizeof(zLabel), "group by, %s, vs SELECT k, sum(x) GROUP BY k, %s", zName, zBackend);
          compare(db, zLabel, "SELECT k, sum(x) FROM g GROUP BY k", "SELECT * FROM gpu_group_by('g', 'k', 'x')", 1);
        }
      }
      useBackend(db, 0, zBackend);
      sqlite3_free(zKey);
      sqlite3_free(zName);
    }
    h_exec(db, "DROP TABLE g");
  }

  /* 3e. gpu_summary against the statistics query a user would write. */
  gSection = "summary";
  if( want("summary") ){
    static const char *azCol[] = { "k", "i", "x", "y", "z" };
    sqlite3_str *full = sqlite3_str_new(db), *basic = sqlite3_str_new(db);
    char *zFull, *zBasic;
    double t0 = h_now();
    size_t c;
    int b;
    h_exec(db, "CREATE TABLE s5 AS SELECT k, i, x, x*x AS y, CASE WHEN k%%10=0 THEN NULL ELSE i*0.5 END AS z FROM t");
    fprintf(stderr, "# s5: %lld rows in %.1f s\n", (long long)nRow, h_now() - t0);
    for(c=0; c<sizeof(azCol)/sizeof(azCol[0]); c++){
      const char *z = azCol[c];
      sqlite3_str_appendf(full, "%scount(*), count(%s), sum(typeof(%s)='integer'), sum(typeof(%s)='real'), "
                          "min(%s), max(%s), sum(%s), total(%s), avg(%s), total(%s*%s)",
                          c ? ", " : "SELECT ", z, z, z, z, z, z, z, z, z, z);
      sqlite3_str_appendf(basic, "%scount(%s), min(%s), max(%s), sum(%s), avg(%s)", c ? ", " : "SELECT ", z, z, z, z, z);
    }
    sqlite3_str_appendall(full, " FROM s5");
    sqlite3_str_appendall(basic, " FROM s5");
    zFull = sqlite3_str_finish(full);
    zBasic = sqlite3_str_finish(basic);
    printf("\n| query | builtin ms | gpu_summary ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    for(b=0; b<2; b++){
      char zLabel[128];
      useBackend(db, b, zBackend);
      snprintf(zLabel, sizeof(zLabel), "summary of 5 columns, %lld rows, same figures, %s", (long long)nRow,
               b ? "cpu" : zBackend);
      compare(db, zLabel, zFull, "SELECT " SUMMARY_COLS " FROM gpu_summary('s5')", 1);
      if( b ) continue;
      snprintf(zLabel, sizeof(zLabel), "summary of 5 columns, vs count/min/max/sum/avg, %s", zBackend);
      compare(db, zLabel, zBasic, "SELECT " SUMMARY_COLS " FROM gpu_summary('s5')", 1);
    }
    useBackend(db, 0, zBackend);
    sqlite3_free(zFull);
    sqlite3_free(zBasic);
    h_exec(db, "DROP TABLE s5");
  }

  /* 3f. Statistics and windows. */
  gSection = "stats";
  if( want("stats") ) statsSection(db, nRow, zBackend);

  gSection = "aggs";
  if( want("aggs") ) aggsSection(nRow, zBackend);

  /* 5. Scaling: rows per second by row count. */
  gSection = "scale";
  if( want("scale") ){
    const char *zList = getenv("BENCH_SCALE");
    char *zCopy = strdup(zList ? zList : "65536,262144,1048576,4194304,10000000"), *zTok, *zSave = 0;
    FILE *out = 0;
    if( getenv("BENCH_OUT") ){
      char *zPath = sqlite3_mprintf("%s/scale.csv", getenv("BENCH_OUT"));
      out = fopen(zPath, "w");
      sqlite3_free(zPath);
      if( out ) fprintf(out, "rows,builtin_rows_per_s,cuda_rows_per_s,cpu_rows_per_s\n");
    }
    printf("\n| query | builtin ms | gpu_* ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    for(zTok = strtok_r(zCopy, ",", &zSave); zTok; zTok = strtok_r(0, ",", &zSave)){
      int64_t n = atoll(zTok);
      double tb, tg, tc;
      char zLabel[128], *zTab, *zB, *zG;
      if( n<=0 ) continue;
      zTab = sqlite3_mprintf("s%lld", (long long)n);
      zB = sqlite3_mprintf("SELECT sum(x) FROM \"%w\"", zTab);
      zG = sqlite3_mprintf("SELECT gpu_sum(x) FROM \"%w\"", zTab);
      if( n<=nRow ) h_exec(db, "CREATE TABLE \"%w\" AS SELECT x FROM t LIMIT %lld", zTab, (long long)n);
      else fill(db, zTab, n, 100000);
      gRows = n;
      snprintf(zLabel, sizeof(zLabel), "sum(x), %lld rows, %s", (long long)n, zBackend);
      compare2(db, zLabel, zB, zG, 1, &tb, &tg);
      useBackend(db, 1, zBackend);
      snprintf(zLabel, sizeof(zLabel), "sum(x), %lld rows, cpu", (long long)n);
      compare2(db, zLabel, zB, zG, 1, 0, &tc);
      useBackend(db, 0, zBackend);
      if( out ) fprintf(out, "%lld,%.0f,%.0f,%.0f\n", (long long)n, n/tb, n/tg, n/tc);
      h_exec(db, "DROP TABLE \"%w\"", zTab);
      sqlite3_free(zTab); sqlite3_free(zB); sqlite3_free(zG);
    }
    if( out ) fclose(out);
    free(zCopy);
    gRows = nRow;
  }

  /* 4. Chunk sizes. */
  gSection = "chunks";
  if( want("chunks") ){
    const char *zList = getenv("GPUAGG_BENCH_CHUNKS");
    char *zCopy = strdup(zList ? zList : "262144,65536,direct"), *zTok, *zSave = 0;
    printf("\n| query | builtin ms | gpu_* ms | ratio |\n| --- | ---: | ---: | ---: |\n");
    for(zTok = strtok_r(zCopy, ",", &zSave); zTok; zTok = strtok_r(0, ",", &zSave)){
      char zLabel[128];
      if( strcmp(zTok, "direct")==0 ){
        h_exec(db, "SELECT gpuagg_config('threshold', %lld)", (long long)nRow + 1);
      }else{
        h_exec(db, "SELECT gpuagg_config('chunk', %d)", atoi(zTok));
      }
      snprintf(zLabel, sizeof(zLabel), "sum(i), chunk %s, %s", zTok, zBackend);
      compare(db, zLabel, "SELECT sum(i) FROM t", "SELECT gpu_sum(i) FROM t", 1);
      snprintf(zLabel, sizeof(zLabel), "sum(x), chunk %s, %s", zTok, zBackend);
      compare(db, zLabel, "SELECT sum(x) FROM t", "SELECT gpu_sum(x) FROM t", 1);
    }
    free(zCopy);
  }
  /* 6. The page source. */
  gSection = "pages";
  if( want("pages") ) pagesSection(nRow, zBackend);
  if( want("cache") ) cacheSection(nRow, zBackend);
  gSection = "flights";
  if( want("flights") ) flightsSection(nRow, zBackend);
  gSection = "devices";
  if( want("devices") ) devicesSection(nRow);
  gSection = "query";
  if( want("query") ) querySection(nRow);

  info(db, "at the end");
  free(zBackend);
  sqlite3_close(db);
  if( gCsv ) fclose(gCsv);
  if( gQcsv ) fclose(gQcsv);
  return 0;
}
