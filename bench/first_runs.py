#!/usr/bin/env python3
# First runs of the median's parts and a top ten on a fresh connection each, through
# Python's sqlite3 (issue 39's breakdown): python3 bench/first_runs.py FLIGHTS.db libgpuagg.so
# (the flights table bench_sql makes: /tmp/gpuagg-flights.db). Each query twice; the
# "_1" and "4" rows with gpuagg_config('threads', 1 or 4), the others with every core.
import sqlite3, time, sys, json
db = sys.argv[1]; mod = sys.argv[2]
def conn(th):
    c = sqlite3.connect(db); c.enable_load_extension(True); c.load_extension(mod)
    if th: c.execute("SELECT gpuagg_config('threads', %d)" % th).fetchall()
    return c
qs = [
 ("count", "SELECT count(delay) FROM f", 0),
 ("inner", "SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay LIMIT 2 OFFSET 5000000", 0),
 ("inner1", "SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay LIMIT 2 OFFSET 5000000", 1),
 ("inner4", "SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay LIMIT 2 OFFSET 5000000", 4),
 ("median", "SELECT avg(delay) FROM (SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay LIMIT 2 - (SELECT count(delay) FROM f) % 2 OFFSET ((SELECT count(delay) FROM f) - 1) / 2)", 0),
 ("median1", "SELECT avg(delay) FROM (SELECT delay FROM f WHERE delay IS NOT NULL ORDER BY delay LIMIT 2 - (SELECT count(delay) FROM f) % 2 OFFSET ((SELECT count(delay) FROM f) - 1) / 2)", 1),
 ("top10", "SELECT origin, dest, delay FROM f WHERE distance > 1000 ORDER BY delay DESC LIMIT 10", 0),
 ("top10_1", "SELECT origin, dest, delay FROM f WHERE distance > 1000 ORDER BY delay DESC LIMIT 10", 1),
]
for rep in range(2):
  for name, sql, th in qs:
    c = conn(th)
    c.execute("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))" % sql)
    t0 = time.perf_counter(); r = c.execute("SELECT * FROM q").fetchall(); ms = (time.perf_counter() - t0) * 1000
    info = json.loads(c.execute("SELECT gpuagg_info()").fetchone()[0])
    print("%-8s first %8.1f ms  %s  ops=%.1f" % (name, ms, r[:1], info["query"]["last"]["operators_ms"]))
    c.close()
t0 = time.perf_counter(); c = sqlite3.connect(db); r = c.execute("SELECT origin, dest, delay FROM f WHERE distance > 1000 ORDER BY delay DESC LIMIT 10").fetchall(); print("top10 builtin %.1f ms" % ((time.perf_counter() - t0) * 1000))
