#!/bin/sh
# Quick start 1: build, make a sample database (demo.db, by sql/sample.sql)
# and ask it the questions of sql/demo.sql, each of the extension and of
# SQLite's own SQL: both answers, both times (the sqlite3 shell's .timer),
# the ratio, and why they differ where they do. The gpu_query questions come
# first: each is asked three times in one shell, its first and third times
# shown (where a GPU serves, the second read keeps the columns and the third
# reads them there), with gpu_explain's path and where the third read ran;
# the builtin SQL is asked three times in a shell of its own. Each other
# question's statements run once, each alone in a fresh shell.
set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh
t0=$(now)
need_packages
build
sqlite3 demo.db ".read sql/sample.sql"          # (what demo.db lacks: a second run adds nothing)

# Run one statement in a fresh shell: its header, its rows, then "Run Time:".
run() {
  printf '.load ./libgpuagg\n.timer on\n%s\n' "$1" |
    sqlite3 -bail -header -separator ' | ' demo.db
}

info() { sqlite3 demo.db ".load ./libgpuagg" "SELECT $1"; }
device=
echo "gpuagg demo: SQLite $(sqlite3 :memory: 'SELECT sqlite_version()'), demo.db: $(sqlite3 demo.db \
     "SELECT (SELECT count(*) FROM sales) || ' sales (with ' || (SELECT count(*) FROM stores) || ' stores, ' ||
             (SELECT count(*) FROM products) || ' products, ' || (SELECT count(*) FROM customers) ||
             ' customers), table t: ' || (SELECT count(*) FROM t) || ' rows'")"
backend=$(info "json_extract(gpuagg_info(), '\$.backend')")
if [ "$backend" = cuda ]; then
  device=$(info "json_extract(gpuagg_info(), '\$.device')")
  echo "backend: cuda, on $device"
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
      if (r < 0) printf "\n"; else printf (r >= 10 ? "   builtin/gpuagg: %.0f\n" : "   builtin/gpuagg: %.2g\n"), r
      d = 0; m = rows[0] > rows[1] ? rows[0] : rows[1]
      for (i = 1; i <= m; i++) if (row[0, i] != row[1, i]) d++
      if (d == 0) print "   same answer"
      else if (m == 1) print "   differ: " why
      else print "   differ in " d " of " m " rows: " why
    }'
}

# A gpu_query question: $1 title, $2 why they differ, $3 its CREATE VIRTUAL
# TABLE, $4 the read of that table, $5 the builtin statement.
ask_query() {
  n=$((n + 1))
  sel=$(printf '%s\n' "$3" | sed -e 's/^[^(]*gpu_query((//' -e 's/));[[:space:]]*$//')
  esc=$(printf '%s' "$sel" | sed "s/'/''/g")
  gpu=$(printf '.load ./libgpuagg\n%s\n.timer on\n%s\n%s\n%s\n.timer off\n.headers off\n%s\n' "$3" "$4" "$4" "$4" \
        "SELECT '@', json_extract(gpu_explain('$esc'), '\$.path'), ifnull(json_extract(gpu_explain('$esc'), '\$.why'), ''), json_extract(gpuagg_info(), '\$.query.last.on');" |
        sqlite3 -bail -header -separator ' | ' demo.db) || { echo "demo: failed: $3 $4" >&2; exit 1; }
  bi=$(printf '.timer on\n%s\n%s\n%s\n' "$5" "$5" "$5" | sqlite3 -bail -header -separator ' | ' demo.db) ||
    { echo "demo: failed: $5" >&2; exit 1; }
  printf '%s\n%s\n' "$gpu" "$bi" | awk -v n="$n" -v title="$1" -v why="$2" -v mk="$3" -v rd="$4" -v dev="$device" '
    BEGIN { q = 0 }
    /^Run Time: real / { ms[q] = $4 * 1000; q++; next }
    /^@ \| / { split($0, f, / \| /); path = f[2]; whyNot = f[3]; on = f[4]; next }
    { if (!(q in head)) head[q] = $0; else { rows[q]++; if (rows[q] == 1) first[q] = $0; row[q, rows[q]] = $0 } }
    END {
      # runs 0-2: gpu_query; 3-5: the builtin
      for (k = 0; k <= 3; k += 3) if (rows[k] > 1) first[k] = first[k] " (" rows[k] " rows)"
      a = length(first[0]) > length(first[3]) ? length(first[0]) : length(first[3])
      if (length(head[0]) > a) a = length(head[0])
      printf "\n%d. %s\n", n, title
      printf "   %s\n   %s\n", mk, rd
      printf "   %-11s  %-" a "s  %8s  %8s\n", "", head[0], "first", "repeated"
      printf "   %-11s  %-" a "s  %5.0f ms  %5.0f ms\n", "gpu_query", first[0], ms[0], ms[2]
      printf "   %-11s  %-" a "s  %5.0f ms  %5.0f ms", "builtin SQL", first[3], ms[3], ms[5]
      if (ms[0] > 0 && ms[2] > 0) {
        r0 = ms[3] / ms[0]; r2 = ms[5] / ms[2]
        printf (r0 >= 10 ? "   builtin/gpu_query: %.0f" : "   builtin/gpu_query: %.2g"), r0
        printf (r2 >= 10 ? " first, %.0f repeated\n" : " first, %.2g repeated\n"), r2
      } else printf "\n"
      d = 0; m = rows[0] > rows[3] ? rows[0] : rows[3]
      for (i = 1; i <= m; i++) if (row[0, i] != row[3, i]) d++
      if (d == 0) print "   same answer"
      else if (m == 1) print "   differ: " why
      else print "   differ in " d " of " m " rows: " why
      if (path == "engine")
        printf "   gpu_explain: path engine; the first read ran on the CPU, the repeated read %s\n", on == "device" ? "on the " dev ", over columns kept there" : on == "kept, cpu" ? "over kept columns, on the CPU" : "on the CPU too, over the table'"'"'s pages"
      else printf "   gpu_explain: path %s (%s)\n", path, whyNot
    }'
}

# sql/demo.sql: "-- @ title", "-- ! why", then the two statements (a gpu_query
# question: its CREATE VIRTUAL TABLE first, then the two).
n=0
title= why= first= setup=
while IFS= read -r line; do
  case $line in
    "-- @ "*) title=${line#-- @ } ;;
    "-- ! "*) why=${line#-- ! } ;;
    CREATE*) setup=$line ;;
    SELECT*)
      if [ -z "$first" ]; then first=$line
      elif [ -n "$setup" ]; then ask_query "$title" "$why" "$setup" "$first" "$line"; first= setup=
      else ask "$title" "$why" "$first" "$line"; first=
      fi ;;
  esac
done < sql/demo.sql
echo
echo "demo.sh: $(elapsed "$t0") (build, database and the questions)"
