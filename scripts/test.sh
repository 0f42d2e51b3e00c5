#!/bin/sh
# Quick start 2: build and run the test suites (make check). On a machine
# with a usable GPU the CUDA suites run too; without one they are skipped.
set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh
need_packages
build
if ! make -j"$(nproc)" check; then
  cat test-suite.log
  exit 1
fi
