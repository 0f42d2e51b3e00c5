#!/bin/sh
# Quick start 1: build, make a sample database (demo.db, 3M rows) and run
# sql/demo.sql on it: each gpu_* aggregate next to the builtin, and which
# backend ran.
set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh
need_packages
build
[ -f demo.db ] || sqlite3 demo.db ".read sql/sample.sql"
sqlite3 -bail demo.db ".load ./libgpuagg" ".read sql/demo.sql"
