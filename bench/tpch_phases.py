#!/usr/bin/env python3
# Where each read of TPC-H queries goes (gpuagg_info()'s query.last: plan, columns,
# compile, operators, finish, each subquery's, whether its compiled plan was kept), on one
# connection, the queries in turn, N reads each; then the medians of reads 3..N:
#   python3 bench/tpch_phases.py TPCH.db libgpuagg.so 2,11,15,16,18,20 [N] [setting=value ...]
# (the file bench_sql makes with BENCH_QUERY_PART=tpch22 BENCH_TPCH_KEYS=1; settings are
# gpuagg_config's, e.g. query_kept=1 to keep columns on the CPU backend).
import json, os, re, sqlite3, statistics, sys, time
db, mod, qs = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(',')]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 8
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tpch22.h')).read()
body = src[src.index('azTpch22[22]'):]
Q = {int(m.group(1)): ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
     for m in re.finditer(r'/\* Q(\d+) \*/(.*?)(?=/\* Q\d+ \*/|\};)', body, re.S)}
c = sqlite3.connect(db)
c.enable_load_extension(True)
c.load_extension(mod)
for kv in sys.argv[5:]:
    k, v = kv.split('=')
    c.execute("SELECT gpuagg_config(?, ?)", (k, int(v)))
for q in qs:
    c.execute("DROP TABLE IF EXISTS temp.q")
    c.execute("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))" % Q[q])
    reads = []
    for i in range(n):
        t0 = time.perf_counter(); c.execute("SELECT * FROM q").fetchall(); ms = (time.perf_counter() - t0) * 1e3
        reads.append((ms, json.loads(c.execute("SELECT gpuagg_info()").fetchone()[0])['query']['last']))
    rep = reads[2:] or reads
    med = lambda f: statistics.median(f(last) for _, last in rep)
    print("Q%-2d read 1 %.2f ms, read 2 %.2f, then %.2f (median) | plan %.2f (its subqueries %.2f) columns %.2f"
          " compile %.2f operators %.2f finish %.2f | %s, plan kept %s" %
          (q, reads[0][0], reads[1][0] if n > 1 else 0, statistics.median(ms for ms, _ in rep), med(lambda l: l['plan_ms']),
           med(lambda l: sum(s['ms'] for s in l['subquery_ms'])), med(lambda l: l['columns_ms']),
           med(lambda l: l['compile_ms']), med(lambda l: l['operators_ms']), med(lambda l: l['finish_ms']),
           rep[-1][1]['on'], rep[-1][1]['plan_kept']))
    for s in rep[-1][1]['subquery_ms']:
        print("    subquery on %s, plan kept %d: %.2f ms (compile %.2f, operators %.2f, finish %.2f)" %
              (s['on'], s['plan_kept'], s['ms'], s['compile_ms'], s['operators_ms'], s['finish_ms']))
