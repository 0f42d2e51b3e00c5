/*
** What every file of the extension uses, below everything else: SQLite's
** routines and monotonic time. It calls nothing of the extension's.
**
**   1. SQLite hands a loadable extension its routines' table at load
**      (sqlite3_api). The table is process-wide: ga_api_set sets it once,
**      under a lock, and refuses a second SQLite library's table.
**   2. ga_now_ms: monotonic milliseconds, for the counters gpuagg_info()
**      reports and the planner's timings.
*/
#ifndef GPUAGG_BASE_H
#define GPUAGG_BASE_H

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include <time.h>

/* Requirement 1: SQLITE_OK once sqlite3_api is pApi, else SQLITE_ERROR
** (another SQLite library in this process set it first). */
int ga_api_set(const sqlite3_api_routines *pApi);

/* Requirement 2. */
static inline double ga_now_ms(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1e3 + ts.tv_nsec*1e-6;
}

#endif /* GPUAGG_BASE_H */
