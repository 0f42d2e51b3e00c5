#!/usr/bin/env python3
"""gpu_explain of TPC-H's 22 queries (bench/tpch22.h) as a Markdown page:
for each, three reads on one connection (the first over the file, the next
ones over kept columns where the plan takes them), then gpu_explain's
tree of the plan the next read runs, each operator with what runs it.

  scripts/explain-tpch22.py TPCH.db [libgpuagg] > plans.md

TPCH.db is bench_sql's (BENCH_TPCH_DB, with or without BENCH_TPCH_KEYS). The
module is loaded by Python's sqlite3, which must be able to load
extensions."""
import os, re, sqlite3, sys, time

def queries(path):
    """{n: SQL} of bench/tpch22.h's 22 queries."""
    src = open(path).read()
    qs = {}
    for m in re.finditer(r'/\* Q(\d+) \*/\n((?:\s*"(?:[^"\\]|\\.)*"\n?)+)', src):
        qs[int(m.group(1))] = ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))).replace('\\"', '"')
    return qs

def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    lib = sys.argv[2] if len(sys.argv) > 2 else './.libs/libgpuagg.so'
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    qs = queries(os.path.join(top, 'bench', 'tpch22.h'))
    db = sqlite3.connect(sys.argv[1])
    db.enable_load_extension(True)
    db.load_extension(lib)
    print('# gpu_explain of TPC-H\'s 22\n')
    print('%s, SQLite %s, `%s`. Three reads of each query on one connection, the queries in turn (a\n'
          'first read may find columns an earlier query kept); then the tree of the plan the next read runs,\n'
          'each operator with what runs it.\n' % (os.path.basename(sys.argv[1]), sqlite3.sqlite_version,
                                                   ' '.join(os.path.basename(a) for a in sys.argv)))
    for n in sorted(qs):
        db.execute('CREATE VIRTUAL TABLE temp.q%d USING gpu_query((%s))' % (n, qs[n]))
        ms = []
        for _ in range(3):
            t = time.time()
            db.execute('SELECT * FROM temp.q%d' % n).fetchall()
            ms.append('%.1f' % ((time.time() - t) * 1e3))
        plan = db.execute("SELECT gpu_explain(?, 'text')", (qs[n],)).fetchone()[0]
        print('## Q%d\n\nreads: %s ms\n\n```\n%s```\n' % (n, ', '.join(ms), plan))

if __name__ == '__main__':
    main()
