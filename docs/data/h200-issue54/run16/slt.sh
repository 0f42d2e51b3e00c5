#!/bin/sh
# The sqllogictest runner on the CUDA backend (GPUAGG_SLT_BACKEND=cuda), UTF-8.
cd "$(dirname "$0")"
export GPUAGG_MODULE=$PWD/.libs/libgpuagg.so GPUAGG_SLT_DIR=$PWD/slt
GPUAGG_SLT_BACKEND=cuda GPUAGG_SLT_ENCODINGS=${ENC:-UTF-8} timeout 300 ./tests/slt > /tmp/slt.log 2>&1; echo "exit $?" >> /tmp/slt.log
cp /tmp/slt.log "$OUT/"
grep -E "^select|^evidence/in|^sqllogictest|^exit|wrong answer" /tmp/slt.log | cut -c1-200
