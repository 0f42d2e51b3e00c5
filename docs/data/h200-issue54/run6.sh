#!/bin/sh
# test_query with CUDA required: joined subqueries, decorrelated aggregates,
# rows ordered by the scanned table's key (TPC-H's 22 at SF 0.01 in both
# schemas) on both backends.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/.libs/libgpuagg.so
t0=$(date +%s)
GPUAGG_TEST_REQUIRE_CUDA=1 GPUAGG_QUERY_N=${QN:-600} timeout 560 ./tests/test_query > /tmp/test_query.log 2>&1; echo "exit $?" >> /tmp/test_query.log
echo "after $(( $(date +%s) - t0 )) s"
cp /tmp/test_query.log "$OUT/"
grep -E '^[0-9]+%|^exit|:F:|TPC-H|joined subq|correlated agg|seed|gpu_query random' /tmp/test_query.log | cut -c1-220
