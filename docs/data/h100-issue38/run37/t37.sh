#!/bin/sh
# On the GPU: test_query (N=400) with CUDA required.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/libgpuagg.so GPUAGG_TEST_REQUIRE_CUDA=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t=$(date +%s)
GPUAGG_QUERY_N=${N:-400} ./test_query > $OUT/test_query.log 2>&1; echo "test_query rc $? $(( $(date +%s) - t )) s"; tail -3 $OUT/test_query.log
grep -E 'mismatches|F:' $OUT/test_query.log | tail -10
