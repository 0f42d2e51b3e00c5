/*
** gpuagg's shared internal header: the per-connection state and the
** functions each source file offers the others.
*/
#ifndef GPUAGG_H
#define GPUAGG_H

#include "base.h"
#include "backend.h"

/* Backend modes: which backend new pipelines use. */
enum ga_mode { GA_AUTO, GA_CPU, GA_CUDA };

#define GA_CHUNK_DEFAULT     (1<<20)   /* values per chunk: 8 MiB, ~0.2 ms of PCIe */
#define GA_CHUNK_MAX         (1<<27)   /* 1 GiB of host memory per slot */
#define GA_THRESHOLD_DEFAULT 65536     /* rows folded on the CPU before any GPU work */
#define GA_MAX_SLOTS         16        /* slots per connection: 8 pipelined aggregates */
#define GA_RESIDENT_MAX      ((int64_t)32 << 30)  /* default cap on what a histogram keeps */
#define GA_THREADS_MAX       64        /* threads decoding pages */

#define GA_CONN_OWNERS 8              /* modules that may keep state on a connection */

#define GA_CACHE_AUTO (-1)            /* the cache's budget until it is known: a quarter
                                      ** of the devices' free memory once a context exists */


/*
** Per-connection state, shared by every function the extension registers
** on a connection (each registration holds a reference; SQLite drops them
** when the connection closes). SQLite serializes a connection's callbacks,
** so nothing here needs a lock.
*/
typedef struct ga_conn {
  int nRef;                 /* registrations holding this state */
  int mode;                 /* enum ga_mode */
  int chunk;                /* values per chunk for new pipelines */
  int64_t threshold;        /* rows an aggregate folds itself before pipelining */
  int64_t resident;         /* bytes a histogram may keep to scan its column once */
  ga_slot *pIdle;           /* idle slots, most recently used first */
  int nSlot;                /* slots alive, idle or in use */
  ga_stats stats;           /* counters for gpuagg_info() */
  void *pScan;              /* the column source scanning now (source/stmt.c), or NULL */
  int pages;                /* table-valued functions read tables' pages (1) or statements (0) */
  int threads;              /* threads decoding pages */
  int map;                  /* the page source maps the file for its scan where the connection
                            ** does not (1), or copies pages (0) */
  int devices;              /* devices its queries use, the first visible ones; 0: all */
  int qkept;                /* gpu_query over kept columns: -1 on a device that serves, 1 on
                            ** the CPU too (the reference), 0 never */
  struct ga_tvfnotes *notes; /* what the table-valued functions tell gpuagg_info() (tvf/tvf.c
                            ** owns it), or NULL */
  struct ga_seen *seen;     /* wal-index headers seen (source/snap.c owns it), or NULL */
  struct ga_srcnotes *srcnotes; /* the source each function used last (source/open.c owns it), or NULL */
  struct ga_srcmemo *srcmemo; /* SOURCEs resolved in main or temp (source/table.c owns it), or NULL */
  struct ga_cache *cache;   /* columns kept between queries (source/cache.c owns it) */
  struct ga_querynotes *qnotes; /* gpu_query's counts and reasons (query/vtab.c owns it), or NULL */
  struct ga_winseen *winseen; /* statements' use of windows (agg/winsense.c owns it), or NULL */
  void (*axForget[GA_CONN_OWNERS])(struct ga_conn*); /* how the modules that keep state here
                            ** free it (ga_conn_on_free), in the order they registered */
  int nForget;              /* ... how many registered */
  int enc;                  /* the database's text encoding (SQLITE_UTF8 ...), once it cannot
                            ** change (text.c); 0: not known yet */
  sqlite3 *db;              /* the connection it serves, once every registration succeeded:
                            ** then it is in conn.c's list of loaded connections (guarded by
                            ** that list's lock, not the connection's) */
  struct ga_conn *pNextLoaded; /* ... the next one in that list */
} ga_conn;

/* conn.c */
ga_conn *ga_conn_new(char **pzErr);
void ga_conn_unref(void*);
/* Whether db has the module already (a load registered every function and
** module on it, and they live); ga_conn_loaded lists c as db's, until c is
** freed with the connection. */
int ga_conn_has(sqlite3 *db);
void ga_conn_loaded(ga_conn *c, sqlite3 *db);
const ga_backend *ga_conn_backend(ga_conn*, char *zErr);
const char *ga_mode_name(int mode);
int ga_mode_parse(const char *z);
ga_slot *ga_pool_take(ga_conn*, const ga_backend*, char *zErr);
void ga_pool_give(ga_conn*, ga_slot*);
/* The failure policy, for every device operation: a device failed with
** zErr. It becomes the connection's last error; in 'cuda' mode the
** caller fails with it (1); otherwise the CPU answers instead, counted as
** a fallback (0). */
int ga_device_failed(ga_conn*, const char *zErr);
/* A module that has made state of its own on c (a field of ga_conn it
** owns) has xForget free it when c is freed; once per xForget. */
void ga_conn_on_free(ga_conn *c, void (*xForget)(ga_conn*));

/* query/vtab.c: gpu_query, gpu_explain, and their part of gpuagg_info(). */
extern const sqlite3_module ga_query_module;
void ga_explainFunc(sqlite3_context*, int, sqlite3_value**);
void ga_query_describe(sqlite3_str*, const ga_conn*);

/* agg/sum.c: gpu_sum, gpu_total, gpu_avg, gpu_count (aggregates and windows) */
void ga_sumStep(sqlite3_context*, int, sqlite3_value**);
void ga_sumInverse(sqlite3_context*, int, sqlite3_value**);
void ga_sumFinal(sqlite3_context*);
void ga_sumValue(sqlite3_context*);
void ga_totalFinal(sqlite3_context*);
void ga_totalValue(sqlite3_context*);
void ga_avgFinal(sqlite3_context*);
void ga_avgValue(sqlite3_context*);
void ga_countStep(sqlite3_context*, int, sqlite3_value**);
void ga_countInverse(sqlite3_context*, int, sqlite3_value**);
void ga_countFinal(sqlite3_context*);

/* agg/variance.c: gpu_var_samp, gpu_var_pop, gpu_stddev_samp, gpu_stddev_pop */
void ga_varStep(sqlite3_context*, int, sqlite3_value**);
void ga_varInverse(sqlite3_context*, int, sqlite3_value**);
void ga_varSampFinal(sqlite3_context*);
void ga_varSampValue(sqlite3_context*);
void ga_varPopFinal(sqlite3_context*);
void ga_varPopValue(sqlite3_context*);
void ga_sdSampFinal(sqlite3_context*);
void ga_sdSampValue(sqlite3_context*);
void ga_sdPopFinal(sqlite3_context*);
void ga_sdPopValue(sqlite3_context*);

/* agg/percentile.c: gpu_median, gpu_percentile, gpu_percentile_cont, gpu_percentile_disc */
void ga_medianStep(sqlite3_context*, int, sqlite3_value**);
void ga_percentileStep(sqlite3_context*, int, sqlite3_value**);
void ga_contStep(sqlite3_context*, int, sqlite3_value**);
void ga_discStep(sqlite3_context*, int, sqlite3_value**);
void ga_pctInverse(sqlite3_context*, int, sqlite3_value**);
void ga_pctFinal(sqlite3_context*);
void ga_pctValue(sqlite3_context*);

/* tvf/: the table-valued functions */
extern const sqlite3_module ga_histogram_module;   /* gpu_histogram (histogram.c) */
extern const sqlite3_module ga_groupby_module;     /* gpu_group_by (groupby.c) */
extern const sqlite3_module ga_summary_module;     /* gpu_summary (summary.c) */
extern const sqlite3_module ga_cachelist_module;   /* gpuagg_cache (cachelist.c) */

/* agg/minmax.c: gpu_min, gpu_max, gpu_argmin, gpu_argmax */
void ga_minStep(sqlite3_context*, int, sqlite3_value**);
void ga_maxStep(sqlite3_context*, int, sqlite3_value**);
void ga_argminStep(sqlite3_context*, int, sqlite3_value**);
void ga_argmaxStep(sqlite3_context*, int, sqlite3_value**);
void ga_extInverse(sqlite3_context*, int, sqlite3_value**);
void ga_extFinal(sqlite3_context*);
void ga_extValue(sqlite3_context*);

#endif /* GPUAGG_H */
