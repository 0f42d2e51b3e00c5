# gpu_explain's tree of TPC-H queries after reads that keep their columns
# (the third read on kept columns): which operators run on the device.
import sqlite3, re, sys, time, os
src = open(os.path.join(os.path.dirname(__file__), 'tpch22.h')).read()
qs = {}
for m in re.finditer(r'/\* Q(\d+) \*/\n((?:\s*"(?:[^"\\]|\\.)*"\n?)+)', src):
    qs[int(m.group(1))] = ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))).replace('\\"', '"')
db = sqlite3.connect(sys.argv[1])
db.enable_load_extension(True)
db.load_extension(os.path.join(os.path.dirname(os.path.abspath(__file__)), '.libs/libgpuagg.so'))
print('sqlite', sqlite3.sqlite_version)
for n in map(int, sys.argv[2:]):
    db.execute("CREATE VIRTUAL TABLE temp.q%d USING gpu_query((%s))" % (n, qs[n]))
    for i in range(3):
        t = time.time(); db.execute("SELECT * FROM temp.q%d" % n).fetchall(); ms = (time.time() - t) * 1e3
        print('Q%d read %d: %.1f ms' % (n, i + 1, ms))
    print(db.execute("SELECT gpu_explain(?, 'text')", (qs[n],)).fetchone()[0])
