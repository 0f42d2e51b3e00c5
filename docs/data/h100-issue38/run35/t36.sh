#!/bin/sh
# On the GPU: test_query (N=400) and test_fault with CUDA required; the
# hashed join against the direct one (hashbench.py, 20M rows); memcheck and
# racecheck over the hashed join, small.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/libgpuagg.so GPUAGG_TEST_REQUIRE_CUDA=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t=$(date +%s)
GPUAGG_QUERY_N=${N:-400} ./test_query > $OUT/test_query.log 2>&1; echo "test_query rc $? $(( $(date +%s) - t )) s"; tail -3 $OUT/test_query.log
grep -E 'mismatches|F:' $OUT/test_query.log | tail -8
t=$(date +%s)
./test_fault > $OUT/test_fault.log 2>&1; echo "test_fault rc $? $(( $(date +%s) - t )) s"; tail -2 $OUT/test_fault.log
python3 hashbench.py $GPUAGG_MODULE /tmp/hb.db 20000000 200000 2>&1 | tee $OUT/hashbench.txt
CS=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1); [ -n "$CS" ] || CS=compute-sanitizer
for tool in memcheck racecheck; do
  t=$(date +%s)
  $CS --tool $tool --error-exitcode 9 python3 hashbench.py $GPUAGG_MODULE /tmp/hbs.db 300000 20000 cuda > $OUT/san-$tool.log 2>&1
  echo "$tool rc $? $(( $(date +%s) - t )) s"; tail -4 $OUT/san-$tool.log
done
