#!/bin/sh
# Quick start 2: build and run the test suites (make check). On a machine
# with a usable GPU the CUDA suites run too; without one they are skipped.
# Prints a PASS/SKIP/FAIL line per suite and the summary; on a failure, the
# failing suites' logs.
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
[ $status = 0 ] || cat test-suite.log
echo "test.sh: $(elapsed "$t0")"
exit $status
