/*
** DuckDB as a peer for the benchmarks, loaded at run time (bench/duck.c):
** nothing of DuckDB is needed to build, only libduckdb.so (or the .xz that
** scripts/get-duckdb.sh writes) to run.
*/
#ifndef GPUAGG_DUCK_H
#define GPUAGG_DUCK_H
#include <stdint.h>
#include <sqlite3.h>

typedef struct duck duck;

int duck_load(const char *zPath, char *zErr, int nErr);
duck *duck_open_memory(int nThreads, char *zErr, int nErr);
int duck_copy_table(duck*, sqlite3 *db, const char *zTab, char *zErr, int nErr);
double duck_time_ms(duck*, const char *zSql, int64_t *pnRows);
void duck_close(duck*);

#endif
