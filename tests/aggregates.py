"""gpu_median, gpu_percentile, gpu_percentile_cont and gpu_percentile_disc,
and the window forms of them and of the variance aggregates, against exact
references; their errors; and the sliding sum that does not drift.

Seeded random data (the seed is printed; GPUAGG_SEED repeats it), on each
backend, with the threshold at 0 (every input past the CPU path: ranked on
the device on the CUDA pass) and at its default:
  - percentiles bit for bit against percentile.c's definition computed here
    (sort, ix = frac*(n-1), the same double operations), NULLs, ties, -0.0,
    integers past 2^53, empty input and one value;
  - windows of every frame type: each row's frame named by SQLite itself
    (group_concat(i) over the same window), percentiles and variances of it
    computed here exactly (Fraction arithmetic, rounded once);
  - a GPUAGG_TEST_DRIFT_ROWS-row (default 200,000; the GPU run 1,000,000)
    gpu_sum(x) OVER (ORDER BY i ROWS 999 PRECEDING) of values
    from 1e-10 to 1e10 in magnitude (and 100,000 rows from 1e-100 to 1e100)
    equals the exact frame sum at every row (integers here); the builtin
    sum's drift on the same rows is printed.
"""
import math
import os
import random
import sqlite3
import sys
from fractions import Fraction

from exact import backends as find_backends, connect, number, rounded, variances, within_half_ulp

module = sys.argv[1] if len(sys.argv) > 1 else "./libgpuagg"
seed = int(os.environ.get("GPUAGG_SEED") or random.randrange(1 << 32))
rng = random.Random(seed)
failures = 0


def fail(msg):
    global failures
    failures += 1
    if failures <= 20:
        print(f"FAIL: {msg} (GPUAGG_SEED={seed})")


def same(a, b):
    """Same SQL value: NULL, or the same double bit for bit."""
    if a is None or b is None:
        return a is None and b is None
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def pct_ref(values, frac, disc):
    """percentile.c's answer over the numbers of values (None without any)."""
    a = sorted((float(v) for v in values if v is not None), key=lambda x: (x, math.copysign(1, x)))
    n = len(a)
    if n == 0:
        return None
    ix = frac * float(n - 1)
    i1 = int(ix)
    if disc:
        return a[i1]
    i2 = i1 if ix == float(i1) or i1 == n - 1 else i1 + 1
    return a[i1] + (a[i2] - a[i1]) * (ix - float(i1))


def profile(kind, n):
    if kind == "uniform":
        return [rng.uniform(-1e6, 1e6) for _ in range(n)]
    if kind == "ties":
        return [rng.choice((None, -2, 0.0, -0.0, 3.5, 7, 7.0)) for _ in range(n)]
    if kind == "bigints":      # past 2^53: read as doubles, as percentile.c does
        return [rng.choice((None, rng.randint(-(1 << 63), (1 << 63) - 1), rng.randint(-5, 5))) for _ in range(n)]
    if kind == "wide":
        return [rng.choice((-1, 1)) * math.ldexp(1 + rng.random(), rng.randint(-1074, 1023)) for _ in range(n)]
    raise ValueError(kind)


def check_percentiles(con, values, what):
    con.execute("DROP TABLE IF EXISTS t")
    con.execute("CREATE TABLE t(x)")
    con.executemany("INSERT INTO t VALUES (?)", [(v,) for v in values])
    p = rng.choice((0, 100, 50, 25, 99.9, rng.uniform(0, 100)))
    f = rng.choice((0.0, 1.0, 0.5, 0.75, rng.random()))
    got = con.execute("SELECT gpu_median(x), gpu_percentile(x, ?), gpu_percentile_cont(x, ?), gpu_percentile_disc(x, ?)"
                      " FROM t", (p, f, f)).fetchone()
    want = (pct_ref(values, 0.5, False), pct_ref(values, p / 100.0, False), pct_ref(values, f, False),
            pct_ref(values, f, True))
    for name, g, w in zip(("median", f"percentile {p!r}", f"percentile_cont {f!r}", f"percentile_disc {f!r}"), got, want):
        if not same(g, w):
            fail(f"{what}: gpu_{name} {g!r}, expected {w!r}")


FRAMES = (
    "ORDER BY o ROWS BETWEEN 3 PRECEDING AND CURRENT ROW",
    "ORDER BY o ROWS BETWEEN 2 FOLLOWING AND 9 FOLLOWING",
    "ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    "ORDER BY o RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
    "ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES",
    "ORDER BY o ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING EXCLUDE CURRENT ROW",
    "PARTITION BY p ORDER BY o ROWS BETWEEN 4 PRECEDING AND 1 FOLLOWING",
    "PARTITION BY p",
)


def check_windows(con, kind, n):
    values = profile(kind, n)
    con.execute("DROP TABLE IF EXISTS t")
    con.execute("CREATE TABLE t(i INTEGER PRIMARY KEY, p, o, x)")
    con.executemany("INSERT INTO t VALUES (?,?,?,?)",
                    [(i, rng.randint(1, 9), rng.randint(0, n // 3), v) for i, v in enumerate(values)])
    f = rng.random()
    for frame in FRAMES:
        rows = con.execute(
            "SELECT gpu_median(x) OVER w, gpu_percentile_cont(x, ?) OVER w, gpu_percentile_disc(x, ?) OVER w,"
            " gpu_percentile(x, ?) OVER w, gpu_var_samp(x) OVER w, gpu_var_pop(x) OVER w, gpu_stddev_pop(x) OVER w,"
            " group_concat(i) OVER w FROM t WINDOW w AS (" + frame + ")", (f, f, 100 * f)).fetchall()
        for r in rows:
            frame_vals = [values[int(i)] for i in r[7].split(",")] if r[7] else []
            want = (pct_ref(frame_vals, 0.5, False), pct_ref(frame_vals, f, False), pct_ref(frame_vals, f, True),
                    pct_ref(frame_vals, 100 * f / 100.0, False))
            for k in range(4):
                if not same(r[k], want[k]):
                    fail(f"{kind}, {frame}: percentile form {k} {r[k]!r}, expected {want[k]!r}")
            xs = [number(v) for v in frame_vals if v is not None]
            vs, vp = variances(xs)
            for g, w, name in ((r[4], vs, "var_samp"), (r[5], vp, "var_pop")):
                if not same(g, None if w is None else rounded(w)):
                    fail(f"{kind}, {frame}: gpu_{name} {g!r}, exact {w}")
            if (vp is None) != (r[6] is None) or (vp is not None and not within_half_ulp(r[6], vp)):
                fail(f"{kind}, {frame}: gpu_stddev_pop {r[6]!r}")


ERRORS = (
    ("SELECT gpu_percentile(x, 101) FROM t", "the fraction argument to gpu_percentile() is not between 0.0 and 100.0"),
    ("SELECT gpu_percentile(x, -0.5) FROM t", "the fraction argument to gpu_percentile() is not between 0.0 and 100.0"),
    ("SELECT gpu_percentile_cont(x, 1.5) FROM t", "the fraction argument to gpu_percentile_cont() is not between 0.0 and 1.0"),
    ("SELECT gpu_percentile_disc(x, NULL) FROM t", "the fraction argument to gpu_percentile_disc() is not between 0.0 and 1.0"),
    ("SELECT gpu_percentile(x, 'abc') FROM t", "the fraction argument to gpu_percentile() is not between 0.0 and 100.0"),
    ("SELECT gpu_percentile(x, rowid) FROM t", "the fraction argument to gpu_percentile() is not the same for all input rows"),
    ("SELECT gpu_median(x) FROM (SELECT x FROM t UNION ALL SELECT 'a')", "input to gpu_median() is not numeric"),
    ("SELECT gpu_median(x) FROM (SELECT x FROM t UNION ALL SELECT x'00')", "input to gpu_median() is not numeric"),
    ("SELECT gpu_percentile_cont(x, 0.5) FROM (SELECT x FROM t UNION ALL SELECT 9e999)",
     "Inf input to gpu_percentile_cont()"),
    ("SELECT gpu_median(x, 1) FROM t", "wrong number of arguments to function gpu_median()"),
    ("SELECT gpu_percentile(x) FROM t", "wrong number of arguments to function gpu_percentile()"),
    ("SELECT gpu_var_samp(x, 1) FROM t", "wrong number of arguments to function gpu_var_samp()"),
)


def check_errors(con):
    con.execute("DROP TABLE IF EXISTS t")
    con.execute("CREATE TABLE t(x)")
    con.executemany("INSERT INTO t VALUES (?)", [(v,) for v in (1, 2.5, None, 4)])
    for sql, msg in ERRORS:
        try:
            con.execute(sql).fetchall()
            fail(f"{sql}: no error, expected '{msg}'")
        except sqlite3.Error as e:
            if str(e) != msg:
                fail(f"{sql}: error '{e}', expected '{msg}'")
    got = con.execute("SELECT gpu_percentile(x, '50'), gpu_percentile(x, 50 + (rowid > 1) * 0.05) FROM t").fetchone()
    if got != (2.5, 2.5):
        fail(f"text and nearly equal fractions: {got!r}")


def check_drift(con, n, width, decades, levels=False):
    """Exact sliding sums of values of magnitude 10^-decades .. 10^decades
    (levels: only 10^-decades, 1 and 10^decades, in turn): scaled to
    integers (by the largest denominator), summed exactly, rounded once by
    int division."""
    if levels:
        xs = [rng.choice((-1, 1)) * rng.uniform(1, 2) * 10.0 ** (decades * (i % 3 - 1)) for i in range(n)]
    else:
        xs = [rng.choice((-1, 1)) * 10.0 ** rng.uniform(-decades, decades) for _ in range(n)]
    con.execute("DROP TABLE IF EXISTS d")
    con.execute("CREATE TABLE d(i INTEGER PRIMARY KEY, x REAL)")
    con.executemany("INSERT INTO d VALUES (?,?)", enumerate(xs))
    ratios = [x.as_integer_ratio() for x in xs]
    scale = max(b.bit_length() - 1 for _, b in ratios)
    ints = [a << (scale - (b.bit_length() - 1)) for a, b in ratios]
    rows = con.execute(f"SELECT gpu_sum(x) OVER w, sum(x) OVER w FROM d"
                       f" WINDOW w AS (ORDER BY i ROWS {width - 1} PRECEDING) ORDER BY i").fetchall()
    s, bad, drifted, worst = 0, 0, 0, 0.0
    for i, (ours, builtin) in enumerate(rows):
        s += ints[i]
        if i >= width:
            s -= ints[i - width]
        exact = s / (1 << scale)
        if not same(ours, exact):
            bad += 1
            if bad <= 3:
                fail(f"sliding sum at row {i}: {ours!r}, exact {exact!r}")
        if builtin != exact:
            drifted += 1
            worst = max(worst, abs(Fraction(builtin) - Fraction(s, 1 << scale)))
    if len(rows) != n:
        fail(f"sliding sum: {len(rows)} rows of {n}")
    print(f"drift: {n} rows of {'three levels, ' if levels else ''}1e-{decades}..1e{decades}, ROWS {width - 1} PRECEDING: gpu_sum equals the exact frame"
          f" sum at {n - bad} rows; the builtin sum (SQLite {sqlite3.sqlite_version}) differs at {drifted},"
          f" by up to {float(worst):.3g}")


con = connect(module)
backends = find_backends(con)
checked = 0
for backend in backends:
    con.execute("SELECT gpuagg_backend(?)", (backend,))
    for threshold in (0, 65536):
        con.execute("SELECT gpuagg_config('threshold', ?)", (threshold,))
        before = con.execute("SELECT json_extract(gpuagg_info(), '$.chunks_flushed')").fetchone()[0]
        for kind in ("uniform", "ties", "bigints", "wide"):
            for n in (0, 1, 2, 3, 10, 1000, 70000):
                check_percentiles(con, profile(kind, n), f"{backend}, threshold {threshold}, {kind}, {n} values")
                checked += 1
        after = con.execute("SELECT json_extract(gpuagg_info(), '$.chunks_flushed')").fetchone()[0]
        if backend == "cuda" and after == before:
            fail(f"cuda, threshold {threshold}: no percentile was ranked on the device")
    for kind in ("uniform", "ties", "bigints"):
        check_windows(con, kind, 300)
    check_errors(con)
con.execute("SELECT gpuagg_backend('auto')")
check_drift(con, int(os.environ.get("GPUAGG_TEST_DRIFT_ROWS") or 200_000), 1000, 10)
check_drift(con, 100_000, 1000, 100)
check_drift(con, 100_000, 1000, 200, levels=True)
print(f"aggregates: {checked} percentile inputs and {len(FRAMES) * 3 * len(backends)} windows checked on"
      f" {', '.join(backends)} (GPUAGG_SEED={seed})")
sys.exit(1 if failures else 0)
