#!/bin/sh
# Quick start 1: build, make a sample database (demo.db, by sql/sample.sql)
# and ask it the questions of sql/demo.sql, each of a gpu_* function and of
# SQLite's own SQL: both answers, both times (each statement alone in the
# sqlite3 shell, .timer on), the ratio, and why they differ where they do.
set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh
t0=$(now)
need_packages
build
[ -f demo.db ] || sqlite3 demo.db ".read sql/sample.sql"

# Run one statement in a fresh shell: its header, its rows, then "Run Time:".
run() {
  printf '.load ./libgpuagg\n.timer on\n%s\n' "$1" |
    sqlite3 -bail -header -separator ' | ' demo.db
}

info() { sqlite3 demo.db ".load ./libgpuagg" "SELECT $1"; }
echo "gpuagg demo: SQLite $(sqlite3 :memory: 'SELECT sqlite_version()'), demo.db: table t," \
     "$(sqlite3 demo.db 'SELECT count(*) FROM t') rows"
backend=$(info "json_extract(gpuagg_info(), '\$.backend')")
if [ "$backend" = cuda ]; then
  echo "backend: cuda, on $(info "json_extract(gpuagg_info(), '\$.device')")"
else
  echo "backend: $backend. No GPU in use: $(info "json_extract(gpuagg_info(), '\$.cuda_unavailable')")."
  echo "(The CPU backend gives a GPU's answers bit for bit; the times below are the CPU's.)"
fi

# One question: $1 title, $2 why they differ, $3 the gpu_* statement, $4 the
# builtin one. Each answer's first row is shown, with the row count if more.
ask() {
  n=$((n + 1))
  gpu=$(run "$3") || { echo "demo: failed: $3" >&2; exit 1; }
  bi=$(run "$4") || { echo "demo: failed: $4" >&2; exit 1; }
  printf '%s\n%s\n' "$gpu" "$bi" | awk -v n="$n" -v title="$1" -v why="$2" '
    BEGIN { q = 0 }
    /^Run Time: real / { ms[q] = $4 * 1000; q++; next }
    { if (!(q in head)) head[q] = $0; else { rows[q]++; if (rows[q] == 1) first[q] = $0; row[q, rows[q]] = $0 } }
    END {
      w = length(head[0]) > length(head[1]) ? length(head[0]) : length(head[1])
      a = length(first[0]) > length(first[1]) ? length(first[0]) : length(first[1])
      for (k = 0; k < 2; k++) if (rows[k] > 1) { first[k] = first[k] " (" rows[k] " rows)"; if (length(first[k]) > a) a = length(first[k]) }
      printf "\n%d. %s\n", n, title
      printf "   %-" w "s  %-" a "s  %9s\n", "", "answer", "time"
      printf "   %-" w "s  %-" a "s  %6.0f ms\n", head[0], first[0], ms[0]
      printf "   %-" w "s  %-" a "s  %6.0f ms", head[1], first[1], ms[1]
      r = ms[0] > 0 ? ms[1] / ms[0] : -1
      if (r < 0) printf "\n"; else printf (r >= 10 ? "   builtin/gpu: %.0f\n" : "   builtin/gpu: %.2g\n"), r
      d = 0; m = rows[0] > rows[1] ? rows[0] : rows[1]
      for (i = 1; i <= m; i++) if (row[0, i] != row[1, i]) d++
      if (d == 0) print "   same answer"
      else if (m == 1) print "   differ: " why
      else print "   differ in " d " of " m " rows: " why
    }'
}

# sql/demo.sql: "-- @ title", "-- ! why", then the two statements.
n=0
title= why= first=
while IFS= read -r line; do
  case $line in
    "-- @ "*) title=${line#-- @ } ;;
    "-- ! "*) why=${line#-- ! } ;;
    SELECT*) if [ -z "$first" ]; then first=$line; else ask "$title" "$why" "$first" "$line"; first=; fi ;;
  esac
done < sql/demo.sql
echo
echo "demo.sh: $(elapsed "$t0") (build, database and the questions)"
