/*
** TPC-H's lineitem table for the benchmarks (bench/lineitem.c), made from a
** seed: no data shipped.
*/
#ifndef GPUAGG_LINEITEM_H
#define GPUAGG_LINEITEM_H
#include <stdint.h>
#include <sqlite3.h>

/* The version of the rows lineitem_fill makes (the same seed and row count
** give the same rows while it holds). */
#define LINEITEM_VERSION 1

/* Drops and makes the table lineitem in db's main schema with n rows from
** seed, in one transaction. 0, or nonzero with the message in zErr[nErr]. */
int lineitem_fill(sqlite3 *db, int64_t n, uint64_t seed, char *zErr, int nErr);

#endif
