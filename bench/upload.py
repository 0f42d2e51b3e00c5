#!/usr/bin/env python3
# Issue 57: the copy of host-kept columns to the device, alone. A fresh
# connection reads a TPC-H query with the backend 'cpu' (its columns recorded
# and kept in host memory only: an explicit budget), then the same query in
# 'auto': that read's "columns" part (gpuagg_info's query.last.columns_ms) is
# the copy of those columns to the device, the context made beforehand.
#
#   python3 bench/upload.py DB MODULE [REPEATS]
#
# DB: a TPC-H file (bench/first_reads.py's); MODULE: libgpuagg.so. Prints one
# line a read: its ms, the device bytes kept and their rate, and whether the
# device's rows equal the CPU's.
import json, sqlite3, sys, time

QUERIES = {
    'Q1': "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),"
          " sum(l_extendedprice*(1-l_discount)), sum(l_extendedprice*(1-l_discount)*(1+l_tax)),"
          " avg(l_quantity), count(*) FROM lineitem WHERE l_shipdate <= '1998-09-02' GROUP BY 1, 2 ORDER BY 1, 2",
    'Q6': "SELECT sum(l_extendedprice*l_discount) FROM lineitem WHERE l_shipdate >= '1994-01-01'"
          " AND l_shipdate < '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
}

def main():
    db, mod = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    w = sqlite3.connect(':memory:')
    w.enable_load_extension(True)
    w.load_extension(mod)
    t0 = time.perf_counter()
    w.execute("SELECT gpuagg_config('chunk', 4096), gpuagg_config('threshold', 0)")
    w.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<5000)"
              " SELECT gpu_sum(x) FROM c").fetchall()
    print('context: %.0f ms' % ((time.perf_counter() - t0) * 1000))
    for rep in range(reps):
        for name, sql in QUERIES.items():
            c = sqlite3.connect(db)
            c.enable_load_extension(True)
            c.load_extension(mod)
            c.execute("SELECT gpuagg_backend('cpu'), gpuagg_config('cache', 1<<34)")
            c.execute("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))" % sql)
            t0 = time.perf_counter()
            r1 = c.execute("SELECT * FROM q").fetchall()
            a = (time.perf_counter() - t0) * 1000
            c.execute("SELECT gpuagg_backend('auto')")
            t0 = time.perf_counter()
            r2 = c.execute("SELECT * FROM q").fetchall()
            b = (time.perf_counter() - t0) * 1000
            info = json.loads(c.execute("SELECT gpuagg_info()").fetchone()[0])
            last, dev = info['query']['last'], info['cache']['device_bytes']
            print('%s rep %d: read 1 (host) %.0f ms, read 2 %.0f ms on %s, columns %.1f ms, device bytes %d'
                  ' (%.1f GB/s), same %s' % (name, rep, a, b, last['on'], last['columns_ms'], dev,
                                             dev / last['columns_ms'] / 1e6, r1 == r2))
            c.close()

if __name__ == '__main__':
    main()
