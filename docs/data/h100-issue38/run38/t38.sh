#!/bin/sh
# On the GPU: test_query (N=400) and test_fault with CUDA required.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/libgpuagg.so GPUAGG_TEST_REQUIRE_CUDA=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in test_query test_fault; do
  s=$(date +%s)
  GPUAGG_QUERY_N=400 ./$t > $OUT/$t.log 2>&1; echo "$t rc $? $(( $(date +%s) - s )) s"; tail -2 $OUT/$t.log
done
grep -E 'mismatches|many codes|F:' $OUT/*.log | tail -12
