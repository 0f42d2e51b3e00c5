"""The column cache, first cut (ext/source/cache.c): each table-valued function over the
page source's table p (bench_scan or bench_sql 'pages' makes it), with the cache off and on
(second and later runs are hits), medians of 3 runs.

    GPUAGG_MODULE=.libs/libgpuagg.so python3 bench/cache_time.py /tmp/gpuagg-bench.db
"""
import sqlite3, time, sys, os
db = sqlite3.connect(sys.argv[1]); db.enable_load_extension(True); db.load_extension(os.environ["GPUAGG_MODULE"])
q = ["SELECT * FROM gpu_summary('p')", "SELECT * FROM gpu_histogram('p','x',256)", "SELECT * FROM gpu_group_by('p','k','x')", "SELECT * FROM gpu_group_by('p','g','x')"]
def t(sql, n=3):
    ts = []
    for i in range(n):
        t0 = time.perf_counter(); db.execute(sql).fetchall(); ts.append(time.perf_counter() - t0)
    return sorted(ts)[n//2]*1e3
for mode in ("off", "on"):
    db.execute("SELECT gpuagg_config('cache', %d)" % (0 if mode == "off" else 8 << 30)).fetchall()
    for s in q:
        db.execute(s).fetchall()
        print("cache %s | %s | %.1f ms" % (mode, s, t(s)))
print(db.execute("SELECT json_extract(gpuagg_info(), '$.cache')").fetchone()[0])
