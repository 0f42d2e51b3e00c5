/*
** TPC-H's eight tables for the benchmarks (bench/tpch.c), made from a seed
** at a scale factor: no data shipped. lineitem's lines come from
** bench/lineitem.c's generator, drawn with their orders.
*/
#ifndef GPUAGG_TPCH_H
#define GPUAGG_TPCH_H
#include <stdint.h>
#include <sqlite3.h>

/* The version of the rows tpch_fill makes (the same seed and scale factor
** give the same rows while it and LINEITEM_VERSION hold). */
#define TPCH_VERSION 1

/* Drops and makes the tables region, nation, supplier, customer, part,
** partsupp, orders and lineitem in db's main schema at scale factor sf
** from seed, in one transaction. 0, or nonzero with the message in
** zErr[nErr]. */
int tpch_fill(sqlite3 *db, double sf, uint64_t seed, char *zErr, int nErr);

/* BENCH_TPCH_KEYS=1: tpch_fill gives partsupp and lineitem the spec's
** composite primary keys, (ps_partkey, ps_suppkey) and (l_orderkey,
** l_linenumber), and runs ANALYZE, as a user loading TPC-H would; bench_sql
** keeps such a database in a file of its own. */
int tpch_keys(void);

#endif
