#!/bin/sh
# TPC-H at SF 1 with the spec's keys (BENCH_TPCH_KEYS=1): the joins SQLite's
# plan searches lineitem for, costed (8e650b9); builtin, first run, repeated
# reads, DuckDB in memory on 16 threads; then test_query's cost test on cuda.
cd "$(dirname "$0")"
xz -dkf libduckdb.so.xz
export GPUAGG_MODULE=$PWD/.libs/libgpuagg.so
t0=$(date +%s)
BENCH_OUT=$OUT BENCH_TPCH_KEYS=1 BENCH_QUERY_PART=tpchj BENCH_TPCH_SF=${SF:-1} BENCH_QUERY_ONLY=${ONLY:-h3,h5,h10,h12,h4,h14,h19} \
  BENCH_DUCKDB=$PWD/libduckdb.so timeout 540 ./bench/bench_sql 1000 3 query > /tmp/bench.md 2> /tmp/bench.err
echo "bench exit $? after $(( $(date +%s) - t0 )) s"
cp /tmp/bench.md /tmp/bench.err "$OUT/" 2>/dev/null
grep -E '^\| h|^\| query \| path|not:|why' /tmp/bench.md | cut -c1-260
tail -3 /tmp/bench.err
