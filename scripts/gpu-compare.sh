#!/bin/sh
# Two builds of the module against each other, on the GPU machine: bench_sql
# runs once per build and round, a process each, the builds alternating (and
# which goes first alternating too), so that both see the same machine.
# Prints, per query, the median over the rounds of each build's ratio
# (gpu_* time / builtin time, both measured in the same process) and of its
# gpu_* ms, and the second build's ratio over the first's.
#
#   scripts/gpu-compare.sh A.so B.so [rounds] [rows] [sections]
#
# BENCH_SQL names the bench_sql program (default build-gpu/src's); rows
# and sections are bench_sql's (default 10000000 and aggs, whose tables are
# made once in BENCH_AGGS_DB and shared by the rounds), BENCH_RUNS its runs
# a process (default 3: each process's figure is itself a median). Every
# process's table goes to $OUT/compare-raw.md (or build-gpu/out's), headed
# "## A round N", and the summary to $OUT/compare.md.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 A.so B.so [rounds] [rows] [sections]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
a=$1 b=$2 rounds=${3:-5} rows=${4:-10000000} sections=${5:-aggs}
bench=${BENCH_SQL:-$top/build-gpu/src/bench/bench_sql}
out=${OUT:-$top/build-gpu/out}
raw=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
trap 'rm -rf "$raw"' EXIT
mkdir -p "$out"
pin=; command -v taskset >/dev/null && [ "$(nproc)" -gt 2 ] && pin="taskset -c 2"   # one core for SQLite
r=1
while [ $r -le "$rounds" ]; do
  if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for w in $order; do
    if [ $w = A ]; then m=$a; else m=$b; fi
    GPUAGG_MODULE=$m $pin "$bench" "$rows" "${BENCH_RUNS:-3}" "$sections" >"$raw/$w.$r.md" 2>>"$raw/stderr.txt" \
      || { echo "$w round $r failed:"; tail -3 "$raw/stderr.txt"; } >>"$raw/$w.$r.md"
    { echo "## $w round $r"; cat "$raw/$w.$r.md"; } >>"$out/compare-raw.md"
  done
  r=$((r + 1))
done
{
echo "A: $a"
echo "B: $b"
echo "$rounds rounds, $rows rows, one process per build and round; medians over the rounds"
echo
echo "| query | A ratio | B ratio | A gpu ms | B gpu ms | B/A ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
# Table rows: | label | builtin ms | gpu ms | ratio |
for f in "$raw"/A.*.md "$raw"/B.*.md; do
  w=$(basename "$f" | cut -c1)
  awk -F'|' -v w="$w" 'NF==6 && $3 ~ /^ *[0-9.]+ *$/ && $5 ~ /^ *[0-9.]+ *$/ {
      gsub(/^ +| +$/, "", $2); printf "%s\t%s\t%s\t%s\n", w, $2, $4+0, $5+0 }' "$f"
done | awk -F'\t' '
  function med(arr, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j+1] = arr[j]; arr[j+1] = t }
    return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2 }
  { k = $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
    n = ++cnt[$1, k]; ratio[$1, k, n] = $4; ms[$1, k, n] = $3 }
  END {
    for (q = 1; q <= nk; q++) {
      k = order[q]
      for (s = 0; s < 2; s++) {
        w = s ? "B" : "A"; n = cnt[w, k]
        for (i = 1; i <= n; i++) { r[i] = ratio[w, k, i]; m[i] = ms[w, k, i] }
        mr[w] = n ? med(r, n) : 0; mm[w] = n ? med(m, n) : 0
      }
      printf "| %s | %.3f | %.3f | %.1f | %.1f | %.3f |\n", k, mr["A"], mr["B"], mm["A"], mm["B"],
             mr["A"] ? mr["B"] / mr["A"] : 0
    }
  }'
} | tee "$out/compare.md"
