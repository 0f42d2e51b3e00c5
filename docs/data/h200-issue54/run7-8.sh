#!/bin/sh
# TPC-H at SF 1 with the spec's keys: Q15 (a WITH of sums joined) and Q17
# (a correlated avg, decorrelated) on the engine, beside Q3 and Q5 (A/B with
# run4); builtin, first run, repeated reads, DuckDB in memory on 16 threads.
cd "$(dirname "$0")"
xz -dkf libduckdb.so.xz
export GPUAGG_MODULE=$PWD/.libs/libgpuagg.so
t0=$(date +%s)
BENCH_OUT=$OUT BENCH_TPCH_KEYS=1 BENCH_QUERY_PART=tpchj BENCH_TPCH_SF=${SF:-1} BENCH_QUERY_ONLY=${ONLY:-h15,h17,h3,h5} \
  BENCH_DUCKDB=$PWD/libduckdb.so timeout 560 ./bench/bench_sql 1000 3 query > /tmp/bench.md 2> /tmp/bench.err
echo "bench exit $? after $(( $(date +%s) - t0 )) s"
cp /tmp/bench.md /tmp/bench.err "$OUT/" 2>/dev/null
grep -E '^\| h|^\| query \| path|not:|why' /tmp/bench.md | cut -c1-300
tail -5 /tmp/bench.err
