#!/bin/sh
# On the GPU: bench_sql's query section, part $PART (tpchj or ssb) at scale
# factor $SF, the builtin not run (its answers checked against the CPU
# operators' instead), DuckDB unless DUCK=0; BENCH_QUERY_ONLY passes through.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/libgpuagg.so BENCH_QUERY_PART=${PART:-tpchj} BENCH_QUERY_BUILTIN=0 BENCH_OUT=$OUT
export BENCH_TPCH_SF=$SF BENCH_TPCH_DB=/tmp/gpuagg-tpch$SF.db BENCH_SSB_SF=$SF BENCH_SSB_DB=/tmp/gpuagg-ssb$SF.db
[ "${DUCK:-1}" = 1 ] && export BENCH_DUCKDB=$PWD/libduckdb.so.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
t=$(date +%s)
./bench_sql 0 3 query > $OUT/${BENCH_QUERY_PART}_sf$SF.md 2> $OUT/${BENCH_QUERY_PART}_sf$SF.err
echo "bench rc $? $(( $(date +%s) - t )) s"
rm -f $OUT/*.csv
cat $OUT/${BENCH_QUERY_PART}_sf$SF.err | grep -v '^$' | tail -20
grep '^| h\|^| q' $OUT/${BENCH_QUERY_PART}_sf$SF.md
