#!/bin/sh
# `make install` as the README says, checked: after `ldconfig` the sqlite3
# shell loads the module by name (`.load libgpuagg`) and pkg-config names its
# path; `make uninstall` then removes both. Run in a built tree, as root (or
# through sudo): it installs into the configured prefix (/usr/local).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
fail() { echo "install-check: $*" >&2; $sudo make uninstall >/dev/null 2>&1 || true; exit 1; }
$sudo make install >/dev/null
$sudo ldconfig
got=$(sqlite3 :memory: '.load libgpuagg' 'SELECT gpu_sum(1)') || fail ".load libgpuagg failed"
[ "$got" = 1 ] || fail ".load libgpuagg, then SELECT gpu_sum(1): '$got'"
path=$(pkg-config --variable=module gpuagg) || fail "pkg-config does not find gpuagg"
[ -f "$path" ] || fail "pkg-config names $path, which is not there"
$sudo make uninstall >/dev/null
$sudo ldconfig
[ ! -e "$path" ] || fail "make uninstall left $path"
! pkg-config --exists gpuagg || fail "make uninstall left gpuagg.pc"
echo "install-check: .load libgpuagg after make install and ldconfig, $path by pkg-config; make uninstall removed both"
