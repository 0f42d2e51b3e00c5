#!/bin/sh
# On the GPU: test_query (N=400) and test_fault with CUDA required, then
# compute-sanitizer memcheck and racecheck over san.py's many codes' join.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/libgpuagg.so GPUAGG_TEST_REQUIRE_CUDA=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t=$(date +%s)
GPUAGG_QUERY_N=${N:-400} ./test_query > $OUT/test_query.log 2>&1; echo "test_query rc $? $(( $(date +%s) - t )) s"; tail -3 $OUT/test_query.log
grep -iE 'many codes|mismatch' $OUT/test_query.log | tail -5
t=$(date +%s)
./test_fault > $OUT/test_fault.log 2>&1; echo "test_fault rc $? $(( $(date +%s) - t )) s"; tail -3 $OUT/test_fault.log
grep -i 'many codes' $OUT/test_fault.log
CS=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1); [ -n "$CS" ] || CS=compute-sanitizer
for tool in memcheck racecheck; do
  t=$(date +%s)
  $CS --tool $tool --error-exitcode 9 python3 san.py $GPUAGG_MODULE /tmp/san.db > $OUT/san-$tool.log 2>&1
  echo "$tool rc $? $(( $(date +%s) - t )) s"; tail -8 $OUT/san-$tool.log
done
