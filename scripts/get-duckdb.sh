#!/bin/sh
# DuckDB for the benchmark's peer (bench/duck.c), loaded with dlopen: takes
# libduckdb.so out of the latest npm package @duckdb/node-bindings-linux-x64
# and writes DEST_DIR/libduckdb.so.xz (xz -9, small enough to carry to the
# GPU machine). Needs npm (the package's own client), tar and xz.
#
#   scripts/get-duckdb.sh DEST_DIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DEST_DIR" >&2; exit 2; }
pkg=@duckdb/node-bindings-linux-x64
command -v npm >/dev/null || {
  echo "$0: needs npm, to fetch $pkg (Debian: apt-get install npm)" >&2; exit 1; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/duckdb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "$pkg" >/dev/null
tar xzf ./*.tgz package/libduckdb.so package/package.json
ver=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' package/package.json)
xz -9 -T0 -c package/libduckdb.so > "$dest/libduckdb.so.xz.tmp"
mv "$dest/libduckdb.so.xz.tmp" "$dest/libduckdb.so.xz"
echo "$pkg $ver: $dest/libduckdb.so.xz, $(wc -c < "$dest/libduckdb.so.xz") bytes"
