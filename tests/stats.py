"""gpu_summary's sums and variances, and the aggregates gpu_total, gpu_avg,
gpu_var_samp, gpu_var_pop, gpu_stddev_samp and gpu_stddev_pop (gpu_variance,
gpu_stddev), against exact rational arithmetic.

For columns of random data (the seed is printed; GPUAGG_SEED repeats it),
on each backend and at several chunk sizes: total is the correctly rounded
exact sum, avg is total / count, var_pop and var_samp are the correctly
rounded exact variances of the values sum() sees (gpu_summary: of those
stored as INTEGER or REAL, TEXT is not read as a number, and total is NULL
without one) (Fraction arithmetic,
rounded by Python's float(Fraction)), the standard deviations the exact
square roots correctly rounded: within half an ulp, judged exactly (the
midpoints to the neighbouring doubles, squared, bracket the variance).
"""
import math
import os
import random
import sys

from exact import backends as find_backends, connect, number, rounded, within_half_ulp

module = sys.argv[1] if len(sys.argv) > 1 else "./libgpuagg"
seed = int(os.environ.get("GPUAGG_SEED") or random.randrange(1 << 32))
rng = random.Random(seed)


def profile(kind, n):
    """n values of one kind."""
    if kind == "uniform":
        return [rng.uniform(-1e6, 1e6) for _ in range(n)]
    if kind == "cancel":      # a large mean, tiny spread: the textbook formula's worst case
        return [1e9 + rng.random() * 1e-3 for _ in range(n)]
    if kind == "wide":        # squares over the whole range of doubles
        return [rng.choice((-1, 1)) * math.ldexp(1 + rng.random(), rng.randint(-1074, 500)) for _ in range(n)]
    if kind == "huge":        # squares past the double range
        return [rng.choice((-1, 1)) * math.ldexp(1 + rng.random(), rng.randint(400, 1020)) for _ in range(n)]
    if kind == "tiny":
        return [rng.choice((-1, 1)) * math.ldexp(1 + rng.random(), rng.randint(-1074, -1000)) for _ in range(n)]
    if kind == "ints":
        return [rng.randint(-(1 << 62), 1 << 62) for _ in range(n)]
    if kind == "edge":
        return [rng.choice((2**63 - 1, -2**63, rng.randint(-9, 9))) for _ in range(n)]
    if kind == "mixed":
        return [rng.choice((None, rng.randint(-50, 50), rng.uniform(-50, 50), "12", "2.5", "abc", ""))
                for _ in range(n)]
    if kind == "constant":
        return [0.1] * n
    raise ValueError(kind)


def check(con, values, what):
    con.execute("DROP TABLE IF EXISTS t")
    con.execute("CREATE TABLE t(c)")
    con.executemany("INSERT INTO t VALUES (?)", [(v,) for v in values])
    summary = con.execute("SELECT total, avg, var_samp, var_pop, stddev_samp, stddev_pop FROM gpu_summary('t')").fetchone()
    aggs = con.execute("SELECT gpu_total(c), gpu_avg(c), gpu_var_samp(c), gpu_var_pop(c), gpu_stddev_samp(c),"
                       " gpu_stddev_pop(c), gpu_variance(c) IS gpu_var_samp(c) AND gpu_stddev(c) IS gpu_stddev_samp(c)"
                       " FROM t").fetchone()
    ok = aggs[6] == 1 or print(f"FAIL: {what}: gpu_variance/gpu_stddev are not the sample forms")
    stored = [v for v in values if isinstance(v, (int, float))]
    return check_one(summary, stored, what + ", gpu_summary", True) & check_one(aggs[:6], values, what + ", aggregates") & ok


def check_one(got, values, what, null_total=False):
    xs = [number(v) for v in values if v is not None]
    n, s = len(xs), sum(xs)
    bad = []
    if null_total and n == 0:
        if got[0] is not None:
            bad.append(f"total {got[0]!r} of no number, want None")
    elif got[0] != rounded(s):
        bad.append(f"total {got[0]!r}, exact {rounded(s)!r}")
    if n and got[1] != got[0] / n:
        bad.append(f"avg {got[1]!r}")
    num = n * sum(x * x for x in xs) - s * s
    for i, d in ((2, n - 1), (3, n)):
        if n == 0 or d == 0:
            want = None
        else:
            want = rounded(num / (n * d))
        if got[i] != want:
            bad.append(f"var ({'samp' if i == 2 else 'pop'}) {got[i]!r}, exact {want!r}")
            continue
        sd = got[i + 2]
        if want is None:
            ok, exact = sd is None, None
        else:
            # The variance may overflow where its square root does not.
            exact = num / (n * d)
            ok = sd is not None and within_half_ulp(sd, exact)
        if not ok:
            bad.append(f"stddev ({'samp' if i == 2 else 'pop'}) {sd!r}, exact {exact}")
    for b in bad:
        print(f"FAIL: {what}: {b} (GPUAGG_SEED={seed})")
    return not bad


con = connect(module)
backends = find_backends(con)
ok = True
runs = 0
for backend in backends:
    con.execute("SELECT gpuagg_backend(?)", (backend,))
    for chunk, threshold in ((1000, 0), (1 << 20, 65536)):
        con.execute("SELECT gpuagg_config('chunk', ?), gpuagg_config('threshold', ?)", (chunk, threshold))
        for kind in ("uniform", "cancel", "wide", "huge", "tiny", "ints", "edge", "mixed", "constant"):
            for n in (0, 1, 2, 3, 1000, 20000):
                ok &= check(con, profile(kind, n), f"{backend}, chunk {chunk}, {kind}, {n} values")
                runs += 1
print(f"stats: {runs} columns checked on {', '.join(backends)} (GPUAGG_SEED={seed})",
      con.execute("SELECT json_extract(gpuagg_info(), '$.chunks_flushed')").fetchone()[0], "chunks on a device")
sys.exit(0 if ok else 1)
