/*
** What every file of the extension uses, below everything else: SQLite's
** routines and monotonic time. It calls nothing of the extension's.
**
**   1. SQLite hands a loadable extension its routines' table at load
**      (sqlite3_api). The table is process-wide: ga_api_set sets it once,
**      under a lock, and refuses a second SQLite library's table.
**   2. ga_now_ms: monotonic milliseconds, for the counters gpuagg_info()
**      reports and the planner's timings.
**   3. Arrays past SQLite's allocation limit. sqlite3_malloc64 and
**      sqlite3_realloc64 refuse n >= 0x7fffff00 bytes (malloc.c's
**      sqlite3Malloc, every version; SQLITE_MAX_ALLOCATION_SIZE from 3.42):
**      at TPC-H's scale factor 30, an array of lineitem's 180M rows of 16
**      bytes is SQLITE_NOMEM there. ga_malloc64, ga_realloc64 and ga_free
**      are one family over both: SQLite's allocator below 1 GiB (from 3b),
**      the C library's from there on, each such block recorded until freed,
**      so ga_free frees either kind and any pointer sqlite3_malloc gave.
**      ga_realloc64 moves one of SQLite's blocks to the C library where its
**      new size reaches the line; the C library's stay there. Thread-safe.
**   3b. The line is 1 GiB, or GPUAGG_TEST_BIG_ALLOC bytes where that is set
**      (> 0) when the module is loaded on a connection: tests send small
**      arrays the C library's way, so that a block freed by the wrong
**      family fails at once.
*/
#ifndef GPUAGG_BASE_H
#define GPUAGG_BASE_H

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include <time.h>

/* Requirement 1: SQLITE_OK once sqlite3_api is pApi, else SQLITE_ERROR
** (another SQLite library in this process set it first). */
int ga_api_set(const sqlite3_api_routines *pApi);

/* Requirement 3: SQLite's allocator's contract (NULL: no memory; n of 0
** gives NULL; ga_realloc64 to 0 bytes frees), over both kinds. */
void *ga_malloc64(sqlite3_uint64 n);
void *ga_realloc64(void *p, sqlite3_uint64 n);
void ga_free(void *p);
/* The blocks from the C library held now (gpuagg_info()'s large_arrays). */
int ga_big_blocks(void);

/* Requirement 2. */
static inline double ga_now_ms(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1e3 + ts.tv_nsec*1e-6;
}

#endif /* GPUAGG_BASE_H */
