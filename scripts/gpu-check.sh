#!/bin/sh
# Tests and benchmarks on a GPU machine, by the recipe of the project's
# GPU notes: build here, carry the build, run there.
#
#   scripts/gpu-check.sh build   here: copy the working tree to build-gpu/src and
#                                build the module, tests and benchmarks there,
#                                tests and benchmarks linked statically
#   scripts/gpu-check.sh run     on the GPU machine: the test suites with CUDA
#                                required, the Python load test, the benchmarks
#                                (BENCH=0: none), the suites under compute-sanitizer
#                                (SANITIZE=0: none; SANITIZE_RUNS: which);
#                                logs and tables go to $OUT (or build-gpu/out)
#
# build-gpu/ is ignored by git: name it in the device tool's `carry`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build-gpu/src

case ${1:-} in
build)
  rm -rf "$src"
  mkdir -p "$src"
  (cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar cf - --) | (cd "$src" && tar xf -)
  cd "$src"
  autoreconf -fi >/dev/null 2>&1
  ./configure --quiet --enable-portable-tests --enable-fault-injection
  make -j"$(nproc)" >/dev/null
  make -j"$(nproc)" tests/test_sum tests/test_minmax tests/test_hist tests/test_group tests/test_summary tests/test_fault tests/test_threads tests/test_api tests/test_pages tests/test_cache tests/test_window tests/test_devices tests/test_query tests/test_kernels tests/slt bench-programs >/dev/null
  # the sqllogictest runner again, linked to the machine's own libsqlite3
  # there (SQLite 3.45 on the GPU host: its answers may differ from 3.40's)
  ${CC:-cc} -O2 -Itests tests/slt.c tests/rows.c tests/md5.c tests/harness.c -lsqlite3 -lm -o tests/slt-dyn
  # the corpus travels with the build (the device copies no sibling folder)
  rm -rf "$top/build-gpu/slt"
  if [ -d "$top/../shared/sqllogictest" ]; then cp -r "$top/../shared/sqllogictest" "$top/build-gpu/slt"; fi
  ls -la .libs/libgpuagg.so tests/test_sum tests/test_minmax tests/test_hist tests/test_api tests/test_pages bench/bench_sql bench/bench_kernels bench/bench_scan
  ;;
run)
  out=${OUT:-$top/build-gpu/out}
  mkdir -p "$out"
  cd "$src"
  export GPUAGG_MODULE="$src/.libs/libgpuagg.so" GPUAGG_TEST_REQUIRE_CUDA=1
  status=0
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1 || true
  date -u +%Y-%m-%dT%H:%MZ >>"$out/gpu.txt"
  ./tests/test_api >"$out/test_api.log" 2>&1 || status=1
  ./tests/test_kernels >"$out/test_kernels.log" 2>&1 || status=1
  ./tests/test_sum >"$out/test_sum.log" 2>&1 || status=1
  ./tests/test_minmax >"$out/test_minmax.log" 2>&1 || status=1
  ./tests/test_hist >"$out/test_hist.log" 2>&1 || status=1
  GPUAGG_TEST_GROUPS=${GPUAGG_TEST_GROUPS:-10000000} ./tests/test_group >"$out/test_group.log" 2>&1 || status=1
  ./tests/test_summary >"$out/test_summary.log" 2>&1 || status=1
  ./tests/test_fault >"$out/test_fault.log" 2>&1 || status=1
  ./tests/test_threads >"$out/test_threads.log" 2>&1 || status=1
  GPUAGG_TEST_PAGES_ROWS=${GPUAGG_TEST_PAGES_ROWS:-10000000} ./tests/test_pages >"$out/test_pages.log" 2>&1 || status=1
  ./tests/test_cache >"$out/test_cache.log" 2>&1 || status=1
  ./tests/test_query >"$out/test_query.log" 2>&1 || status=1
  # one frame of 10M rows for every window aggregate, beside the suites
  GPUAGG_TEST_FRAME_ROWS=${GPUAGG_TEST_FRAME_ROWS:-10000000} python3 tests/frames.py "$GPUAGG_MODULE" \
    >"$out/frames.log" 2>&1 &
  frames=$!
  slt=${GPUAGG_SLT_DIR:-$top/build-gpu/slt}
  GPUAGG_SLT_DIR=$slt GPUAGG_SLT_BACKEND=cuda ./tests/slt >"$out/slt.log" 2>&1 || status=1
  GPUAGG_SLT_DIR=$slt GPUAGG_SLT_ENCODINGS=UTF-8 ./tests/slt-dyn >"$out/slt-dyn.log" 2>&1 || status=1
  ./tests/test_devices >"$out/test_devices.log" 2>&1 || status=1
  GPUAGG_TEST_WINDOW_ROWS=${GPUAGG_TEST_WINDOW_ROWS:-10000000} ./tests/test_window >"$out/test_window.log" 2>&1 || status=1
  GPUAGG_TEST_DRIFT_ROWS=${GPUAGG_TEST_DRIFT_ROWS:-1000000} GPUAGG_SRCDIR="$src" SQLITE3_SHELL= PYTHON3=python3 \
    sh tests/shell.test >"$out/shell.log" 2>&1 || status=1
  wait $frames || status=1
  : >"$out/bench_kernels.md"; : >"$out/bench_sql.md"
  if [ "${BENCH:-1}" = 1 ]; then
    ./bench/bench_kernels >"$out/bench_kernels.md" 2>&1 || status=1
    # One core for SQLite: less noise from migrations.
    pin=; command -v taskset >/dev/null && pin="taskset -c 2"
    $pin ./bench/bench_sql "${BENCH_ROWS:-10000000}" "${BENCH_RUNS:-5}" "${BENCH_SECTIONS:-small,rows,extremes,hist,groupby}" \
      >"$out/bench_sql.md" 2>"$out/bench_sql.err" || status=1
    # The column sources alone, on the pages section's table (every core).
    case ${BENCH_SECTIONS:-} in *pages*)
      ./bench/bench_scan "${BENCH_DB:-/tmp/gpuagg-bench.db}" "${BENCH_ROWS:-10000000}" "${BENCH_RUNS:-5}" \
        >"$out/bench_scan.md" 2>&1 || status=1 ;;
    esac
  fi
  # The CUDA paths under compute-sanitizer, when the machine has it: each
  # TOOL:SUITE of SANITIZE_RUNS, forked test processes followed. The suite
  # must pass and every process's summary must say 0 errors (memcheck also
  # reports device memory never freed).
  if command -v compute-sanitizer >/dev/null && [ "${SANITIZE:-1}" = 1 ]; then
    for run in ${SANITIZE_RUNS:-memcheck:test_fault memcheck:test_threads memcheck:test_hist memcheck:test_group memcheck:test_summary memcheck:test_pages memcheck:test_cache initcheck:test_hist synccheck:test_hist racecheck:test_hist racecheck:test_api racecheck:test_group memcheck:test_query racecheck:test_query}; do
      tool=${run%%:*} suite=${run#*:} log="$out/sanitize-$tool-$suite.log"
      opt=; [ "$tool" = memcheck ] && opt="--leak-check full"
      rc=0
      GPUAGG_TEST_ONLY=cuda GPUAGG_UNDER_SANITIZER=1 GPUAGG_TEST_GROUPS=20000 timeout "${SANITIZE_S:-300}" \
        compute-sanitizer --tool "$tool" $opt --target-processes all "./tests/$suite" >"$log" 2>&1 || rc=$?
      summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$log" | sort | uniq -c | tr '\n' ' ')
      echo "== compute-sanitizer $tool, $suite: exit $rc, $summary"
      if [ $rc != 0 ] || [ -z "$summary" ] ||
         grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$log" |
           grep -vqE 'ERROR SUMMARY: 0 errors|\(0 errors|0 bytes leaked'; then status=1; fi
    done
  fi
  echo "== $(cat "$out/gpu.txt" | tr '\n' ' ')"
  for f in test_kernels test_api test_sum test_minmax test_hist test_group test_summary test_fault test_threads test_pages test_cache test_window test_devices test_query; do echo "== $f: $(grep -E '^[0-9]+%' "$out/$f.log" | tr '\n' ' ')"; done
  grep -E ':F:|:E:|skipped|FAILED' "$out"/test_*.log | head -20 || true
  echo "== slt (cuda): $(tail -1 "$out/slt.log")"; echo "== slt (the host's SQLite): $(tail -1 "$out/slt-dyn.log")"
  echo "== frames: $(grep -c ', 0 differ' "$out/frames.log") of $(grep -c ' differ' "$out/frames.log") agree"
  echo "== shell: $(tr '\n' ' ' <"$out/shell.log" | cut -c1-300)"
  cat "$out/bench_kernels.md" "$out/bench_sql.md"
  [ -f "$out/bench_scan.md" ] && cat "$out/bench_scan.md"
  exit $status
  ;;
*)
  echo "usage: $0 build|run" >&2
  exit 2
  ;;
esac
