"""Load gpuagg from Python's sqlite3 module and compare with the builtins."""
import random
import sqlite3
import sys

module = sys.argv[1] if len(sys.argv) > 1 else "./libgpuagg"
seed = random.randrange(1 << 32)
rng = random.Random(seed)
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(module)
con.enable_load_extension(False)
con.execute("CREATE TABLE t(x)")
con.executemany("INSERT INTO t VALUES (?)",
                [(rng.choice([None, rng.randint(-10**9, 10**9), rng.uniform(-1e6, 1e6), "12", "abc"]),)
                 for _ in range(100000)])
con.execute("SELECT gpuagg_config('threshold', 0), gpuagg_config('chunk', 1000)")
ok = True
for f in ("sum", "total", "avg", "count"):
    got, want = con.execute(f"SELECT gpu_{f}(x), {f}(x) FROM t").fetchone()
    exact = type(got) is int or type(want) is int
    if type(got) is not type(want) or (got != want if exact else abs(got - want) > 1e-9 * max(1.0, abs(want))):
        print(f"gpu_{f}: {got!r} != {f}: {want!r} (seed {seed})")
        ok = False
print("sqlite", sqlite3.sqlite_version, con.execute("SELECT gpuagg_info()").fetchone()[0])
sys.exit(0 if ok else 1)
