"""Every gpu_* aggregate as a window function over one frame of
GPUAGG_TEST_FRAME_ROWS rows (default 100,000; the GPU run 10M), against
SQLite on the same rows: gpu_sum, gpu_total, gpu_avg, gpu_count, gpu_min,
gpu_max, gpu_argmin and gpu_argmax against the builtins (argmin(-v, v) is
-min(v)) over ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING, whose first
result comes after every row; each of them, the variances, standard
deviations and percentiles over OVER () (the whole partition, one frame)
against the same aggregate without OVER, the exact references of the
other tests. Values ascend (every row a candidate of gpu_min) with an
integer and a real column. Prints the time of each query; exits 1 on any
difference.

  python3 tests/frames.py MODULE [BACKEND]
"""
import os
import sqlite3
import sys
import time

module = sys.argv[1] if len(sys.argv) > 1 else "./libgpuagg"
backend = sys.argv[2] if len(sys.argv) > 2 else "auto"
n = int(os.environ.get("GPUAGG_TEST_FRAME_ROWS") or 100000)
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(module)
db.execute(f"SELECT gpuagg_backend('{backend}')")
db.execute("CREATE TABLE f(k INTEGER PRIMARY KEY, v INTEGER, x REAL)")
db.execute(f"WITH RECURSIVE s(k) AS (VALUES(1) UNION ALL SELECT k+1 FROM s WHERE k<{n})"
           f" INSERT INTO f SELECT k, k, (k * 7919 % 1000003) * 0.25 FROM s")
failures = 0


def check(what, sql):
    global failures
    t0 = time.time()
    bad = db.execute(sql).fetchone()[0]
    print(f"{what}: {n} rows, {bad} differ, {time.time() - t0:.1f} s", flush=True)
    if bad != 0:
        failures += 1


w = "ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"
for fn, ref in (("gpu_min(v)", "min(v)"), ("gpu_max(v)", "max(v)"), ("gpu_argmin(-v, v)", "-min(v)"),
                ("gpu_argmax(-v, v)", "-max(v)"), ("gpu_min(x)", "min(x)"), ("gpu_max(x)", "max(x)"),
                ("gpu_sum(v)", "sum(v)"), ("gpu_total(v)", "total(v)"), ("gpu_avg(v)", "avg(v)"),
                ("gpu_count(x)", "count(x)")):
    check(f"{fn} OVER ({w})", f"SELECT count(*) FROM (SELECT {fn} OVER w IS NOT {ref} OVER w AS d FROM f"
                              f" WINDOW w AS ({w})) WHERE d")
for fn in ("gpu_sum(x)", "gpu_total(x)", "gpu_avg(x)", "gpu_count(x)", "gpu_min(x)", "gpu_max(x)",
           "gpu_argmin(k, x)", "gpu_argmax(k, x)", "gpu_var_samp(x)", "gpu_var_pop(x)", "gpu_variance(x)",
           "gpu_stddev_samp(x)", "gpu_stddev_pop(x)", "gpu_stddev(x)", "gpu_median(x)",
           "gpu_percentile(x, 30)", "gpu_percentile_cont(x, 0.7)", "gpu_percentile_disc(x, 0.7)"):
    check(f"{fn} OVER ()", f"SELECT count(*) FROM (SELECT {fn} OVER () AS g FROM f), (SELECT {fn} AS a FROM f)"
                           f" WHERE g IS NOT a")
sys.exit(1 if failures else 0)
