/*
** gpuagg: SQL aggregates on NVIDIA GPUs, as a loadable SQLite extension.
**
**   .load ./libgpuagg
**   SELECT gpu_sum(x), gpu_avg(x) FROM t;
**
**   1. Loading registers every function of the table below on the connection,
**      each failure reported by name. Loading never touches CUDA, so it works
**      on a machine without a GPU or a driver. Loading it again on a
**      connection that has it succeeds and changes nothing (conn.c, 7).
**   2. gpu_sum, gpu_total, gpu_avg and gpu_count return what sum, total, avg
**      and count return on the same data (agg/sum.c says where and why gpu_sum
**      differs: it raises "integer overflow" only when the exact total
**      overflows); gpu_min and gpu_max what min and max return; gpu_argmin
**      and gpu_argmax the first argument of the row with the least / greatest
**      second one (agg/minmax.c).
**   2a. gpu_var_samp, gpu_var_pop, gpu_stddev_samp, gpu_stddev_pop (and
**      gpu_variance, gpu_stddev) are exact and rounded once (agg/variance.c);
**      gpu_median, gpu_percentile, gpu_percentile_cont and
**      gpu_percentile_disc give what SQLite's percentile extension gives
**      (agg/percentile.c). Every aggregate is also a window function (xValue,
**      xInverse), for any frame.
**   3. gpuagg_backend([MODE]) reads or sets the connection's backend mode:
**      'auto' (CUDA when a device is usable), 'cpu' or 'cuda'; it returns the
**      backend new queries use. Forcing 'cuda' without a usable device is an
**      error naming the reason. The mode starts from GPUAGG_BACKEND.
**   4. gpuagg_config(NAME [, VALUE]) reads or sets 'chunk' (values per chunk),
**      'threshold' (values an aggregate folds on the CPU before it starts
**      a pipeline), 'resident' (bytes gpu_histogram may keep to find its
**      range in the same scan that counts; 0: always scan twice), 'pages'
**      (1: the table-valued functions read tables from the file's pages
**      where they can; 0: always through a statement), 'threads' (threads
**      decoding pages), 'map' (1: a scan of the pages maps the file for its
**      duration where mmap_size is 0; 0: it copies them), 'cache' (bytes of kept columns, host and device;
**      -1, the default: a quarter of the devices' free memory; 0: none) or 'devices' (how many of the
**      visible devices queries use, the first ones; 0, the default: all;
**      setting it empties the column cache, whose columns are split across
**      the devices in use); they apply to queries that start afterwards.
**   5. gpu_histogram(SOURCE, COLUMN, BINS [, LO, HI]), gpu_group_by(SOURCE,
**      KEY, VALUE) and gpu_summary(SOURCE [, COLUMN]) are table-valued
**      functions (tvf/histogram.c, tvf/groupby.c, tvf/summary.c).
**   6. gpuagg_info() returns JSON: mode, backend, device, settings, counters
**      (wait_ms: time queries spent blocked on a chunk's result), and under
**      "devices" each device the connection uses now with its share of the
**      work: chunks, bytes copied, kernel time, column cache bytes.
**   7. The settings functions are SQLITE_DIRECTONLY: no view or trigger can
**      change them behind a user's back.
*/
#include <string.h>
#include "colsrc.h"
#include "table.h"
#include "tvf.h"
#include "text.h"
static void infoFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  ga_conn *c = (ga_conn*)sqlite3_user_data(ctx);
  const ga_backend *be, *dev = ga_device_backend();
  char zErr[GA_ERRLEN];
  sqlite3_str *out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  ga_slot *s;
  int nIdle = 0, i, k;
  (void)argc; (void)argv;
  for(s=c->pIdle; s; s=s->next) nIdle++;
  be = ga_conn_backend(c, zErr);
  sqlite3_str_appendf(out, "{\"version\":\"%s\",\"mode\":\"%s\",\"backend\":",
                      PACKAGE_VERSION, ga_mode_name(c->mode));
  if( be ) ga_json_str(out, be->zName);
  else sqlite3_str_appendall(out, "null");
  if( dev ){
    dev->xDescribe(out);
  }else{
    ga_device_usable(zErr);
    sqlite3_str_appendall(out, ",\"device\":null,\"cuda_unavailable\":");
    ga_json_str(out, zErr);
  }
  sqlite3_str_appendf(out,
      ",\"chunk\":%d,\"threshold\":%lld,\"resident\":%lld,\"pages\":%d,\"threads\":%d"
      ",\"slots\":%d,\"idle_slots\":%d"
      ",\"chunks_flushed\":%lld,\"chunks_cpu\":%lld,\"bytes_copied\":%lld"
      ",\"kernel_ms\":%.3f,\"wait_ms\":%.3f,\"fallbacks\":%lld,\"hist_rescans\":%lld,\"number_keys_coded\":%lld"
      ",\"last_error\":",
      c->chunk, (long long)c->threshold, (long long)c->resident, c->pages, c->threads, c->nSlot, nIdle,
      (long long)c->stats.nDevChunk, (long long)c->stats.nCpuChunk,
      (long long)c->stats.nBytes, c->stats.kernelMs, c->stats.waitMs,
      (long long)c->stats.nFallback, (long long)c->stats.nRescan, (long long)c->stats.nKeyCoded);
  if( c->stats.zLastErr[0] ) ga_json_str(out, c->stats.zLastErr);
  else sqlite3_str_appendall(out, "null");
  sqlite3_str_appendf(out, ",\"page_scans\":%lld,\"statement_scans\":%lld,\"pages_mapped\":%lld,"
                      "\"pages_copied\":%lld,\"pages_read\":%lld,\"page_wait_ms\":%.3f,\"page_sink_ms\":%.3f,"
                      "\"large_arrays\":%d,",
                      (long long)c->stats.nPageScan, (long long)c->stats.nStmtScan, (long long)c->stats.nPageMapped,
                      (long long)c->stats.nPageCopied, (long long)c->stats.nPageRead,
                      c->stats.pageWaitMs, c->stats.pageSinkMs, ga_big_blocks());
  ga_cache_describe(out, c->cache);
  sqlite3_str_appendchar(out, 1, ',');
  ga_source_describe(out, c);
  sqlite3_str_appendchar(out, 1, ',');
  ga_tvf_describe(out, c);
  sqlite3_str_appendchar(out, 1, ',');
  ga_query_describe(out, c);
  sqlite3_str_appendall(out, ",\"devices\":[");
  for(i=0, k=0; dev && i<GA_DEV_MAX; i++){
    const ga_devstat *ds = &c->stats.dev[i];
    if( !dev->xAllowed(i, c->devices) ) continue;
    sqlite3_str_appendf(out, "%s{\"id\":%d,\"name\":", k++ ? "," : "", i);
    ga_json_str(out, dev->xDeviceName(i));
    sqlite3_str_appendf(out, ",\"chunks\":%lld,\"bytes_copied\":%lld,\"kernel_ms\":%.3f,\"cache_bytes\":%lld}",
                        (long long)ds->nChunk, (long long)ds->nBytes, ds->kernelMs,
                        (long long)ga_cache_device_bytes(c->cache, i));
  }
  sqlite3_str_appendall(out, "]}");
  if( sqlite3_str_errcode(out) ){
    ga_free(sqlite3_str_finish(out));
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, ga_free);
}

static void backendFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  ga_conn *c = (ga_conn*)sqlite3_user_data(ctx);
  const ga_backend *be;
  char zErr[GA_ERRLEN];
  int old = c->mode;
  if( argc==1 ){
    int mode = ga_mode_parse((const char*)sqlite3_value_text(argv[0]));
    if( mode<0 ){
      sqlite3_result_error(ctx, "gpuagg_backend: mode must be 'auto', 'cpu' or 'cuda'", -1);
      return;
    }
    c->mode = mode;
  }
  be = ga_conn_backend(c, zErr);
  if( be==0 ){
    c->mode = old;
    sqlite3_result_error(ctx, zErr, -1);
    return;
  }
  sqlite3_result_text(ctx, be->zName, -1, SQLITE_STATIC);
}

static void configFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  ga_conn *c = (ga_conn*)sqlite3_user_data(ctx);
  int64_t budget = ga_cache_budget_of(c->cache);
  const struct { const char *zName; int64_t mn, mx; int *pInt; int64_t *pI64; } aSet[] = {
    { "chunk",     1, GA_CHUNK_MAX,    &c->chunk,   0 },
    { "threshold", 0, INT64_MAX,       0,           &c->threshold },
    { "resident",  0, INT64_MAX,       0,           &c->resident },
    { "pages",     0, 1,               &c->pages,   0 },
    { "threads",   1, GA_THREADS_MAX,  &c->threads, 0 },
    { "map",       0, 1,               &c->map,     0 },
    { "query_kept", -1, 1,             &c->qkept,   0 },
    { "cache",     -1, INT64_MAX,      0,           &budget },     /* the cache's own */
    { "devices",   0, GA_DEV_MAX,      &c->devices, 0 },
  };
  const int nSet = (int)(sizeof(aSet)/sizeof(aSet[0]));
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  int i;
  for(i=0; i<nSet && (zName==0 || sqlite3_stricmp(zName, aSet[i].zName)); i++){}
  if( i==nSet ){
    sqlite3_result_error(ctx, "gpuagg_config: unknown setting (known: 'chunk', 'threshold', 'resident',"
                              " 'pages', 'threads', 'map', 'query_kept', 'cache', 'devices')", -1);
    return;
  }
  if( argc==2 ){
    int t = sqlite3_value_numeric_type(argv[1]);   /* '512' counts as 512 */
    sqlite3_int64 v = sqlite3_value_int64(argv[1]);
    if( t!=SQLITE_INTEGER || v<aSet[i].mn || v>aSet[i].mx ){
      char *z = sqlite3_mprintf("gpuagg_config: %s must be an integer from %lld to %lld",
                                aSet[i].zName, (long long)aSet[i].mn, (long long)aSet[i].mx);
      sqlite3_result_error(ctx, z ? z : "gpuagg_config: bad value", -1);
      ga_free(z);
      return;
    }
    if( aSet[i].pInt==&c->devices && v!=c->devices ){    /* kept columns are split for the old set */
      ga_cache_clear(c->cache);
    }
    if( aSet[i].pInt ) *aSet[i].pInt = (int)v; else *aSet[i].pI64 = v;
    if( aSet[i].pI64==&budget ) ga_cache_budget(c->cache, v);   /* frees what no longer fits */
  }
  sqlite3_result_int64(ctx, aSet[i].pInt ? *aSet[i].pInt : *aSet[i].pI64);
}

/* gpuagg_fault(KIND, N [, DEVICE]): tests only, registered where the
** device backend injects faults (configure --enable-fault-injection). */
static void faultFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int64_t d = argc==3 ? sqlite3_value_int64(argv[2]) : -1;
  int r = ga_device_backend()->xFault((const char*)sqlite3_value_text(argv[0]), sqlite3_value_int64(argv[1]),
                        d<-1 || d>=GA_DEV_MAX ? GA_DEV_MAX : (int)d);
  if( r<0 ){
    sqlite3_result_error(ctx, "gpuagg_fault: KIND is one of 'host', 'device', 'copy', 'launch', 'sync'; N >= 0;"
                              " DEVICE from -1 (any) to 7", -1);
  }else{
    sqlite3_result_int(ctx, r);
  }
}

#define AGG (SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS)
#define SET (SQLITE_UTF8|SQLITE_DIRECTONLY)

static const struct {
  const char *zName;        /* SQL name */
  int nArg;                 /* arguments */
  int flags;                /* SQLITE_UTF8 and properties */
  void (*xFunc)(sqlite3_context*, int, sqlite3_value**);
  void (*xStep)(sqlite3_context*, int, sqlite3_value**);
  void (*xFinal)(sqlite3_context*);
  void (*xValue)(sqlite3_context*);         /* window functions: the frame's result */
  void (*xInverse)(sqlite3_context*, int, sqlite3_value**);   /* ... the oldest row leaves */
} aFunc[] = {
  { "gpu_sum",         1, AGG, 0, ga_sumStep, ga_sumFinal, ga_sumValue, ga_sumInverse },
  { "gpu_total",       1, AGG, 0, ga_sumStep, ga_totalFinal, ga_totalValue, ga_sumInverse },
  { "gpu_avg",         1, AGG, 0, ga_sumStep, ga_avgFinal, ga_avgValue, ga_sumInverse },
  { "gpu_count",       0, AGG, 0, ga_countStep, ga_countFinal, ga_countFinal, ga_countInverse },
  { "gpu_count",       1, AGG, 0, ga_countStep, ga_countFinal, ga_countFinal, ga_countInverse },
  { "gpu_min",         1, AGG, 0, ga_minStep, ga_extFinal, ga_extValue, ga_extInverse },
  { "gpu_max",         1, AGG, 0, ga_maxStep, ga_extFinal, ga_extValue, ga_extInverse },
  { "gpu_argmin",      2, AGG, 0, ga_argminStep, ga_extFinal, ga_extValue, ga_extInverse },
  { "gpu_argmax",      2, AGG, 0, ga_argmaxStep, ga_extFinal, ga_extValue, ga_extInverse },
  { "gpu_var_samp",    1, AGG, 0, ga_varStep, ga_varSampFinal, ga_varSampValue, ga_varInverse },
  { "gpu_var_pop",     1, AGG, 0, ga_varStep, ga_varPopFinal, ga_varPopValue, ga_varInverse },
  { "gpu_variance",    1, AGG, 0, ga_varStep, ga_varSampFinal, ga_varSampValue, ga_varInverse },
  { "gpu_stddev_samp", 1, AGG, 0, ga_varStep, ga_sdSampFinal, ga_sdSampValue, ga_varInverse },
  { "gpu_stddev_pop",  1, AGG, 0, ga_varStep, ga_sdPopFinal, ga_sdPopValue, ga_varInverse },
  { "gpu_stddev",      1, AGG, 0, ga_varStep, ga_sdSampFinal, ga_sdSampValue, ga_varInverse },
  { "gpu_median",      1, AGG, 0, ga_medianStep, ga_pctFinal, ga_pctValue, ga_pctInverse },
  { "gpu_percentile",  2, AGG, 0, ga_percentileStep, ga_pctFinal, ga_pctValue, ga_pctInverse },
  { "gpu_percentile_cont", 2, AGG, 0, ga_contStep, ga_pctFinal, ga_pctValue, ga_pctInverse },
  { "gpu_percentile_disc", 2, AGG, 0, ga_discStep, ga_pctFinal, ga_pctValue, ga_pctInverse },
  { "gpu_explain",     1, SET, ga_explainFunc, 0, 0, 0, 0 },
  { "gpu_explain",     2, SET, ga_explainFunc, 0, 0, 0, 0 },     /* (SQL, 'json' or 'text') */
  { "gpuagg_info",     0, SQLITE_UTF8, infoFunc, 0, 0, 0, 0 },
  { "gpuagg_backend",  0, SET, backendFunc, 0, 0, 0, 0 },
  { "gpuagg_backend",  1, SET, backendFunc, 0, 0, 0, 0 },
  { "gpuagg_config",   1, SET, configFunc, 0, 0, 0, 0 },
  { "gpuagg_config",   2, SET, configFunc, 0, 0, 0, 0 },
  { "gpuagg_colsrc",  -1, SET, 0, ga_colsrcStep, ga_colsrcFinal, 0, 0 },  /* the table functions' scans */
  { "gpuagg_fault",    2, SET, faultFunc, 0, 0, 0, 0 },   /* where injectable (faultFunc) */
  { "gpuagg_fault",    3, SET, faultFunc, 0, 0, 0, 0 },
};

/* The table-valued functions. */
static const struct {
  const char *zName;        /* SQL name */
  const sqlite3_module *pModule;
} aModule[] = {
  { "gpu_histogram", &ga_histogram_module },
  { "gpu_group_by",  &ga_groupby_module },
  { "gpu_summary",   &ga_summary_module },
  { "gpuagg_cache",  &ga_cachelist_module },
  { "gpu_query",     &ga_query_module },
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_gpuagg_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  int rc = SQLITE_OK;
  size_t i;
  ga_conn *c;
  if( (rc = ga_api_set(pApi))!=SQLITE_OK ){
    *pzErrMsg = sqlite3_mprintf("gpuagg: already loaded by another SQLite library in this process");
    return rc;
  }
  /* Loaded again on a connection that has it: nothing to do (conn.c, 7).
  ** Registering again would replace every function and the state they
  ** share, and fails outright inside a statement (SELECT load_extension()). */
  if( ga_conn_has(db) ) return SQLITE_OK;
  if( (c = ga_conn_new(pzErrMsg))==0 ) return SQLITE_ERROR;
  ga_cache_attach(c);       /* NULL: nothing is kept */
  c->nRef = 1;              /* ours, until every function holds one */
  for(i=0; rc==SQLITE_OK && i<sizeof(aFunc)/sizeof(aFunc[0]); i++){
    if( aFunc[i].xFunc==faultFunc && !(ga_device_backend() && ga_device_backend()->xFault) ) continue;
    c->nRef++;              /* dropped by SQLite, on failure too */
    if( aFunc[i].xValue ){
      rc = sqlite3_create_window_function(db, aFunc[i].zName, aFunc[i].nArg, aFunc[i].flags, c,
                                          aFunc[i].xStep, aFunc[i].xFinal, aFunc[i].xValue,
                                          aFunc[i].xInverse, ga_conn_unref);
    }else{
      rc = sqlite3_create_function_v2(db, aFunc[i].zName, aFunc[i].nArg, aFunc[i].flags,
                                      c, aFunc[i].xFunc, aFunc[i].xStep, aFunc[i].xFinal,
                                      ga_conn_unref);
    }
    if( rc!=SQLITE_OK ){
      *pzErrMsg = sqlite3_mprintf("gpuagg: cannot register %s/%d: %s",
                                  aFunc[i].zName, aFunc[i].nArg, sqlite3_errmsg(db));
    }
  }
  for(i=0; rc==SQLITE_OK && i<sizeof(aModule)/sizeof(aModule[0]); i++){
    c->nRef++;              /* dropped by SQLite, on failure too */
    rc = sqlite3_create_module_v2(db, aModule[i].zName, aModule[i].pModule, c, ga_conn_unref);
    if( rc!=SQLITE_OK ){
      *pzErrMsg = sqlite3_mprintf("gpuagg: cannot register %s: %s", aModule[i].zName, sqlite3_errmsg(db));
    }
  }
  if( rc==SQLITE_OK ) ga_conn_loaded(c, db);
  ga_conn_unref(c);
  return rc;
}
