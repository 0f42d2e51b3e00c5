#!/bin/sh
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/.libs/libgpuagg.so GPUAGG_TEST_REQUIRE_CUDA=1
t0=$(date +%s)
(timeout 300 ./tests/test_summary > /tmp/test_summary.log 2>&1; echo "exit $?" >> /tmp/test_summary.log) &
GPUAGG_QUERY_N=${QN:-1000} timeout 560 ./tests/test_query > /tmp/test_query.log 2>&1; echo "exit $?" >> /tmp/test_query.log
wait
echo "wall $(( $(date +%s) - t0 )) s"
cp /tmp/test_query.log /tmp/test_summary.log "$OUT/"
grep -E '^[0-9]+%|^exit|:F:|seed|random|correlated' /tmp/test_query.log /tmp/test_summary.log | cut -c1-300
