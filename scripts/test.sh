#!/bin/sh
# Quick start 2: build and run the test suites (make check). On a machine
# with a usable GPU the CUDA suites run too; without one they are skipped.
# Prints a PASS/SKIP/FAIL line per suite and the summary, then, where the
# CUDA passes were skipped, why (the suites' logs say it, one line); on a
# failure, the failing suites' logs.
set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh
t0=$(now)
need_packages
build
# The suites' programs first: their compiler lines are no news either.
make -j"$(nproc)" check-programs >/dev/null
status=0
make -s -j"$(nproc)" check || status=$?
# Each suite's log says why it skipped its CUDA pass (tests/suite.c); the
# reason is the same for all of them.
why=$(sed -n 's/^CUDA suites skipped: \(gpuagg: CUDA backend unavailable: \)\{0,1\}//p' tests/*.log 2>/dev/null | sort -u | head -n 1)
[ -z "$why" ] || echo "CUDA passes skipped (the suites ran on the CPU backend only): $why"
[ $status = 0 ] || cat test-suite.log
echo "test.sh: $(elapsed "$t0")"
exit $status
