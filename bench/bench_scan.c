/*
** Column sources alone: how fast the statement source and the page source
** (ext/source/) hand a table's rows to a sink that only adds them up. The
** module's C is compiled in (CPU backend), so the sources are called
** directly, without a table-valued function around them.
**
**   bench_scan DB [ROWS] [RUNS]
**
** DB is a database file; its table p(k, g, x, y, z) of ROWS rows (default
** 10,000,000; harness.c) is made if it is missing or of another size. For 1 and 5 columns, the
** statement source, and the page source with 1 thread and with every core, its
** leaves copied through the VFS and read where SQLite maps the file (mmap_size):
** rows per second (median of RUNS, default 5), the page cache warm, and
** their ratios; for the page source, the mean time its connection's thread
** waited for decoded leaves and spent in the sink (gpuagg_info's
** page_wait_ms and page_sink_ms). BENCH_OUT=dir also writes dir/scan.csv; BENCH_SCAN_SOURCES
** ("pages", "statement") runs one of them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

int sqlite3_gpuagg_init(sqlite3*, char**, const sqlite3_api_routines*);

/* zDb, with the module compiled in registered (which sets its API pointer:
** from here on the module's headers route sqlite3_* calls through it). */
static sqlite3 *openDb(const char *zDb){
  sqlite3 *db = 0;
  sqlite3_auto_extension((void(*)(void))sqlite3_gpuagg_init);
  if( sqlite3_open(zDb, &db)!=SQLITE_OK ){
    fprintf(stderr, "open %s: %s\n", zDb, sqlite3_errmsg(db));
    exit(1);
  }
  return db;
}

#include "colsrc.h"

/* A sink that adds every number up (so that nothing is skipped) and counts. */
typedef struct Count {
  ga_colsink base;
  int64_t nRow;
  int64_t acc;
} Count;

static int countBatch(ga_colsink *p, const ga_colbatch *b){
  Count *c = (Count*)p;
  int i, k;
  for(k=0; k<b->nCol; k++){
    const ga_colvec *v = &b->col[k];
    int64_t acc = 0;
    /* No branch: the sink should cost next to nothing beside the source. */
    for(i=0; i<b->n; i++) acc += v->type[i]<=SQLITE_FLOAT ? v->v[i] : 0;
    c->acc += acc;
  }
  c->nRow += b->n;
  return 0;
}

static int cmpDouble(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

/* Seconds of one scan of columns azCol[0..nCol) of p; pages: which source. */
static double scanOnce(sqlite3 *db, ga_conn *conn, int pages, int nCol, const char *const *azCol, int64_t *pnRow){
  Count c;
  ga_colsrc *src;
  ga_table t;
  char *zErr = 0;
  int rc = 0;
  double t0 = h_now();
  memset(&c, 0, sizeof(c));
  c.base.xBatch = countBatch;
  c.base.xPar = 0;
  if( ga_table_describe(db, "main", "p", &t)!=SQLITE_OK ){
    fprintf(stderr, "describe p: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
  src = pages ? ga_colsrc_pages(db, conn, &t, nCol, azCol, 0, &rc, &zErr)
              : ga_colsrc_stmt(db, conn, "\"p\"", nCol, azCol, 0, &zErr);
  ga_table_free(&t);
  if( src==0 ){
    fprintf(stderr, "%s source: %s\n", pages ? "page" : "statement", zErr ? zErr : "?");
    exit(1);
  }
  if( (rc = src->xScan(src, &c.base))!=SQLITE_OK ){
    fprintf(stderr, "scan: %s\n", src->xErrmsg(src));
    exit(1);
  }
  src->xClose(src);
  *pnRow = c.nRow;
  return h_now() - t0;
}

int main(int argc, char **argv){
  static const char *azCol[] = { "k", "g", "x", "y", "z" };
  const char *zDb = argc>1 ? argv[1] : "/tmp/gpuagg-bench.db";
  int64_t nRow = argc>2 ? atoll(argv[2]) : 10000000, n = 0;
  int nRun = argc>3 ? atoi(argv[3]) : 5, nCore = (int)sysconf(_SC_NPROCESSORS_ONLN), k, i, r;
  FILE *csv = 0;
  char *zErr = 0;
  sqlite3 *db;
  ga_conn *conn;
  const char *zWhich = getenv("BENCH_SCAN_SOURCES");       /* "pages", "statement" or both */
  int pagesToo = !zWhich || strstr(zWhich, "pages")!=0, stmtToo = !zWhich || strstr(zWhich, "statement")!=0;
  if( nRun<1 || nRun>64 ) nRun = 5;
  if( nCore>GA_THREADS_MAX ) nCore = GA_THREADS_MAX;
  db = openDb(zDb);
  h_bench_table(db, zDb, nRow);
  nRow = h_int(db, "SELECT count(*) FROM p");       /* and the page cache warm */
  /* A state of our own for the sources, its aggregate registered over the
  ** module's (the statement source's step finds its scan through it). */
  if( (conn = ga_conn_new(&zErr))==0 ) return 1;
  ga_cache_attach(conn);
  conn->nRef = 1;
  sqlite3_create_function(db, "gpuagg_colsrc", -1, SQLITE_UTF8|SQLITE_DIRECTONLY, conn, 0, ga_colsrcStep, ga_colsrcFinal);
  if( getenv("BENCH_OUT") ){
    char *zPath = sqlite3_mprintf("%s/scan.csv", getenv("BENCH_OUT"));
    csv = fopen(zPath, "w");
    sqlite3_free(zPath);
    if( csv ) fprintf(csv, "columns,source,threads,rows,ms,rows_per_s\n");
  }
  printf("Column sources, %lld rows of %s, %d cores (median of %d runs)\n\n", (long long)nRow, zDb, nCore, nRun);
  printf("| columns | source | threads | ms | M rows/s | vs statement | waited ms | sink ms |\n"
         "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for(k=1; k<=5; k+=4){
    double base = 0;
    for(r=0; r<5; r++){
      /* r: the statement source; the pages copied on 1 thread and on all
      ** cores; the pages where SQLite maps the file (mmap_size), the same. */
      int pages = r>0, th = r==2 || r==4 ? nCore : 1, map = r>=3;
      const char *zHow = !pages ? "statement" : map ? "pages, mapped" : "pages, copied";
      double t[64];
      if( ((r==2 || r==4) && nCore==1) || (r>0 && !pagesToo) || (r==0 && !stmtToo) ) continue;
      conn->threads = th;
      h_exec(db, map ? "PRAGMA mmap_size=1099511627776" : "PRAGMA mmap_size=0");
      scanOnce(db, conn, pages, k, azCol, &n);          /* warm-up */
      conn->stats.pageWaitMs = conn->stats.pageSinkMs = 0;
      for(i=0; i<nRun; i++) t[i] = scanOnce(db, conn, pages, k, azCol, &n);
      qsort(t, nRun, sizeof(double), cmpDouble);
      if( r==0 ) base = t[nRun/2];
      printf("| %d | %s | %d | %.1f | %.1f | ", k, zHow, th, t[nRun/2]*1e3, n/t[nRun/2]/1e6);
      if( base>0 ) printf("%.2fx |", base/t[nRun/2]);
      else printf("- |");
      if( pages ) printf(" %.1f | %.1f |\n", conn->stats.pageWaitMs/nRun, conn->stats.pageSinkMs/nRun);
      else printf(" - | - |\n");
      if( csv ) fprintf(csv, "%d,%s,%d,%lld,%.3f,%.0f\n", k, zHow, th, (long long)n, t[nRun/2]*1e3, n/t[nRun/2]);
      fflush(stdout);
    }
    h_exec(db, "PRAGMA mmap_size=0");
  }
  if( csv ) fclose(csv);
  ga_conn_unref(conn);
  sqlite3_close(db);
  return 0;
}
