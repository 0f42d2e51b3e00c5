/*
** The Star Schema Benchmark's five tables for the benchmarks (bench/ssb.c),
** made from a seed: no data shipped.
*/
#ifndef GPUAGG_SSB_H
#define GPUAGG_SSB_H
#include <stdint.h>
#include <sqlite3.h>

/* The version of the rows ssb_fill makes (the same seed and scale factor
** give the same rows while it holds). */
#define SSB_VERSION 1

/* Drops and makes the tables lineorder, customer, supplier, part and date
** in db's main schema at scale factor sf from seed, in one transaction. 0,
** or nonzero with the message in zErr[nErr]. */
int ssb_fill(sqlite3 *db, double sf, uint64_t seed, char *zErr, int nErr);

#endif
