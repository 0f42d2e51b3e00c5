#!/bin/bash
# TPC-H's 22 at a scale factor too large for one call or one process: at
# SF 30 on an H200 the file takes 658 s to make, and DuckDB's in-memory copy
# (50 GB) beside our kept columns crowded the file out of the host's page
# cache (docs/BENCHMARKS.md, issue 56's run20). So the run is in phases, each
# its own process, all on one machine kept warm between the device's calls:
#
#   bench/tpch_large.sh gen     makes the file, detached (it outlives the call)
#   bench/tpch_large.sh wait    waits for it (LIMIT_S)
#   bench/tpch_large.sh duck    DuckDB's side alone (BENCH_QUERY_OURS=0)
#   bench/tpch_large.sh ours    gpu_query's side: the queries no earlier
#                               call finished, until LIMIT_S (the last one cut)
#   bench/tpch_large.sh merge   one table: each query's repeated median, its
#                               answer's check, DuckDB's median, the ratio
#
# Knobs: SF (default 30), DATA (the file and each phase's output; default
# build-data beside the tree: ignored, kept while the machine is), BENCH_SQL
# (default bench/bench_sql), GPUAGG_MODULE, BENCH_DUCKDB (libduckdb.so or
# its .xz), LIMIT_S (default 540: a call's 600 s less the start).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
sf=${SF:-30}
data=${DATA:-$top/build-data}
bench=${BENCH_SQL:-$top/bench/bench_sql}
limit=${LIMIT_S:-540}
db=$data/tpch-sf$sf-k1.db
start=$(date +%s)
mkdir -p "$data"
left(){ echo $(( limit - ($(date +%s) - start) )); }
run(){   # bench_sql over the file with the spec's keys, no builtin
  env BENCH_QUERY_PART=tpch22 BENCH_TPCH_SF=$sf BENCH_TPCH_KEYS=1 BENCH_TPCH_DB=$db BENCH_QUERY_BUILTIN=0 "$@"
}
case ${1:-} in
gen)
  [ -f "$data/gen-sf$sf.done" ] && exit 0
  # bench_sql makes the file before its first query: stopped once it says so
  setsid nohup bash -c "BENCH_QUERY_ONLY=t6 BENCH_QUERY_PART=tpch22 BENCH_TPCH_SF=$sf BENCH_TPCH_KEYS=1 \
    BENCH_TPCH_DB=$db BENCH_QUERY_BUILTIN=0 '$bench' 1000 1 query > /dev/null 2> '$data/gen-sf$sf.err' & p=\$!;
    while kill -0 \$p 2>/dev/null && ! grep -q 'made in\|made before' '$data/gen-sf$sf.err'; do sleep 2; done;
    kill \$p 2>/dev/null; touch '$data/gen-sf$sf.done'" > /dev/null 2>&1 < /dev/null &
  echo "gen: started" ;;
wait)
  while [ ! -f "$data/gen-sf$sf.done" ] && [ "$(left)" -gt 0 ]; do sleep 5; done
  cat "$data/gen-sf$sf.err" 2>/dev/null
  [ -f "$data/gen-sf$sf.done" ] ;;
duck)
  run BENCH_QUERY_OURS=0 BENCH_QUERY_READ=0 BENCH_DUCKDB=${BENCH_DUCKDB:?} timeout "$(left)" "$bench" 1000 1 query \
    > "$data/duck-sf$sf.md" 2> "$data/duck-sf$sf.err"
  echo "duck: rc $?"; grep '^#' "$data/duck-sf$sf.err" ;;
ours)
  done_ids=$(cat "$data"/ours-sf$sf-*.err 2>/dev/null | sed -n 's/^# query \(t[0-9]*\):.*/\1/p' | tr '\n' ' ')
  only=""
  for i in $(seq 1 22); do case " $done_ids " in *" t$i "*) ;; *) only="$only${only:+,}t$i" ;; esac; done
  [ -n "$only" ] || { echo "ours: all 22 done"; exit 0; }
  n=$(ls "$data"/ours-sf$sf-*.err 2>/dev/null | wc -l)
  (while sleep 5; do
     echo "$(date +%s) $(nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null)" \
          "$(free -m | awk '/Mem:/{print $3 " MiB used, " $6 " cached"}')"
   done) > "$data/mem-sf$sf-$n.txt" 2>&1 &
  mp=$!
  run BENCH_QUERY_ONLY=$only BENCH_QUERY_READ=0 timeout "$(left)" "$bench" 1000 1 query \
    > "$data/ours-sf$sf-$n.md" 2> "$data/ours-sf$sf-$n.err"
  echo "ours: $only: rc $?"; kill $mp; grep '^# query' "$data/ours-sf$sf-$n.err" ;;
merge)
  python3 - "$data" "$sf" <<'EOF'
import glob, sys
data, sf = sys.argv[1], sys.argv[2]
def rows(path):
    # bench_sql's table: query, path, builtin, first, /first, repeated (runs), /repeated, DuckDB, ratio, answers
    for line in open(path):
        c = [x.strip() for x in line.split('|')[1:-1]]
        if len(c) == 10 and c[0][:1] == 't' and c[0].split()[0][1:].isdigit():
            yield c[0].split()[0], c
duck = dict(rows(f'{data}/duck-sf{sf}.md')) if glob.glob(f'{data}/duck-sf{sf}.md') else {}
print('| query | first read ms | repeated ms (runs) | DuckDB ms | DuckDB/repeated | answers |')
print('| --- | ---: | ---: | ---: | ---: | --- |')
for path in sorted(glob.glob(f'{data}/ours-sf{sf}-*.md')):
    for q, c in rows(path):
        d = duck[q][7] if q in duck else '-'
        try:
            ratio = '%.2fx' % (float(d) / float(c[5].split()[0]))
        except ValueError:
            ratio = '-'
        print(f'| {c[0]} | {c[3]} | {c[5]} | {d} | {ratio} | {c[9]} |')
EOF
  ;;
*) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 2 ;;
esac
