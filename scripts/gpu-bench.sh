#!/bin/sh
# The benchmark report's run (docs/BENCHMARKS.md), on the GPU machine, after
# `scripts/gpu-check.sh build` here: both programs in one run, tables and CSV
# to $OUT (or build-gpu/out), the machine's description beside them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/build-gpu/out}
mkdir -p "$out"
cd "$top/build-gpu/src"
export GPUAGG_MODULE="$PWD/.libs/libgpuagg.so" BENCH_OUT="$out"
# DuckDB, the cache section's peer, where scripts/get-duckdb.sh put it.
[ -f "$top/build-gpu/duckdb/libduckdb.so.xz" ] && export BENCH_DUCKDB=${BENCH_DUCKDB:-$top/build-gpu/duckdb/libduckdb.so.xz}
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  lscpu | grep -E "Model name|^CPU\(s\)"; date -u +%Y-%m-%dT%H:%MZ; } > "$out/machine.txt" 2>&1
./bench/bench_kernels > "$out/kernels.md" 2>&1
BENCH_SCALE=${BENCH_SCALE:-65536,262144,1048576,4194304,10000000,100000000} \
  taskset -c 2 ./bench/bench_sql "${BENCH_ROWS:-10000000}" "${BENCH_RUNS:-3}" \
  "${BENCH_SECTIONS:-small,rows,extremes,hist,groupby,scale}" > "$out/sql.md" 2> "$out/sql.err"
# The column cache against DuckDB on every core: not pinned.
./bench/bench_sql "${BENCH_ROWS:-10000000}" "${BENCH_RUNS:-3}" cache > "$out/cache.md" 2>> "$out/sql.err"
# Issue 26's flights section, only where BENCH_FLIGHTS_ROWS asks (heavy; e.g. 12000000): its table
# made once in BENCH_FLIGHTS_DB (default /tmp/gpuagg-flights.db) and reused; BENCH_FLIGHTS_PART=group
# or summary runs one half. DuckDB on every core: not pinned.
: > "$out/flights.md"
if [ -n "${BENCH_FLIGHTS_ROWS:-}" ]; then
  ./bench/bench_sql "$BENCH_FLIGHTS_ROWS" "${BENCH_RUNS:-3}" flights > "$out/flights.md" 2>> "$out/sql.err"
fi
# Issue 27's query section, only where BENCH_QUERY_ROWS asks (e.g. 10000000): TPC-H Q1/Q6 on a lineitem
# table (BENCH_QUERY_DB, default /tmp/gpuagg-lineitem.db) and flights questions on the flights table,
# through gpu_query on the CPU backend, against the builtin and DuckDB; BENCH_QUERY_PART=tpch or flights
# runs one half. Its CSV lines go to query.csv (bench_sql writes BENCH_OUT/sql.csv anew). Not pinned.
: > "$out/query.md"
if [ -n "${BENCH_QUERY_ROWS:-}" ]; then
  mkdir -p "$out/query"
  BENCH_OUT="$out/query" ./bench/bench_sql "$BENCH_QUERY_ROWS" "${BENCH_RUNS:-3}" query > "$out/query.md" 2>> "$out/sql.err"
  mv "$out/query/sql.csv" "$out/query.csv" && rmdir "$out/query"
fi
date -u +%Y-%m-%dT%H:%MZ >> "$out/machine.txt"
cat "$out/machine.txt" "$out/kernels.md" "$out/sql.md" "$out/cache.md" "$out/flights.md" "$out/query.md"
