#!/bin/sh
# Issue 53 on the GPU: the suites with CUDA required (in parallel), the
# sqllogictest runner on the cuda backend and against the host's SQLite,
# one 10M-row frame of every window aggregate. Logs into $OUT/logs.tgz.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/.libs/libgpuagg.so GPUAGG_TEST_REQUIRE_CUDA=1
L=/tmp/logs; rm -rf $L; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > $L/gpu.txt 2>&1
python3 -c "import sqlite3; print('python sqlite', sqlite3.sqlite_version)" >> $L/gpu.txt
t0=$(date +%s)
(GPUAGG_TEST_FRAME_ROWS=10000000 timeout 560 python3 tests/frames.py "$GPUAGG_MODULE" > $L/frames.log 2>&1; echo "exit $?" >> $L/frames.log) &
(GPUAGG_QUERY_N=${QN:-1000} timeout 560 ./tests/test_query > $L/test_query.log 2>&1; echo "exit $?" >> $L/test_query.log) &
(for t in test_window test_api test_minmax test_summary; do timeout 300 ./tests/$t > $L/$t.log 2>&1; echo "exit $?" >> $L/$t.log; done) &
(GPUAGG_SLT_DIR=$PWD/slt GPUAGG_SLT_BACKEND=cuda timeout 400 ./tests/slt > $L/slt.log 2>&1; echo "exit $?" >> $L/slt.log;
 GPUAGG_SLT_DIR=$PWD/slt GPUAGG_SLT_ENCODINGS=UTF-8 GPUAGG_SLT_WHY=1 timeout 200 ./tests/slt-dyn > $L/slt-dyn.log 2>&1; echo "exit $?" >> $L/slt-dyn.log;
 GPUAGG_TEST_GROUPS=1000000 timeout 300 ./tests/test_group > $L/test_group.log 2>&1; echo "exit $?" >> $L/test_group.log) &
wait
echo "wall $(( $(date +%s) - t0 )) s" >> $L/gpu.txt
tar czf "$OUT/logs.tgz" -C /tmp logs
cat $L/gpu.txt
for f in $L/*.log; do echo "== $(basename $f): $(grep -E '^[0-9]+%|^sqllogictest:|^exit' $f | tr '\n' ' ')"; done
grep -E ':F:|:E:|MISMATCH' $L/*.log | head -20
grep -E 'random|correlated|utf16' $L/test_query.log | head -12
cat $L/frames.log | tail -32
