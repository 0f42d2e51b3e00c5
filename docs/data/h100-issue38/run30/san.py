# The many codes' join (test_fault's shape) under compute-sanitizer: four reads
# on the device, each compared with SQLite's own answer. argv: module, db path.
import sqlite3, sys
mod, path = sys.argv[1], sys.argv[2]
db = sqlite3.connect(path)
db.executescript("""
DROP TABLE IF EXISTS m1; DROP TABLE IF EXISTS m2; DROP TABLE IF EXISTS mf;
CREATE TABLE m1(id INTEGER PRIMARY KEY, a TEXT); CREATE TABLE m2(id INTEGER PRIMARY KEY, b INTEGER);
CREATE TABLE mf(k1 INTEGER, k2 INTEGER, v INTEGER, w REAL);
WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 800) INSERT INTO m1 SELECT v, 'a' || v FROM n;
WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 700) INSERT INTO m2 SELECT v, v * 3 FROM n;
WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 600000)
 INSERT INTO mf SELECT ((v * 2654435761) >> 7) % 810 + 1, ((v * 2797425387) >> 11) % 700 + 1,
 CASE WHEN v % 29 = 0 THEN NULL ELSE (v * 7919) % 100001 - 50000 END, (v % 1009) / 4.0 FROM n;
""")
db.commit()
q = ("SELECT m1.a, m2.b, count(*), sum(v), sum(v + 1), sum(v + 2), sum(v + 3), sum(v * 2), max(v), min(v),"
     " sum(v + 5), total(v + 6), sum(w) FROM mf, m1, m2 WHERE m1.id = mf.k1 AND m2.id = mf.k2 AND v % 5 <> 0"
     " GROUP BY m1.a, m2.b")
ref = sorted(db.execute(q).fetchall())
db.enable_load_extension(True)
db.load_extension(mod)
db.execute("SELECT gpuagg_backend('cuda'), gpuagg_config('threshold', 0), gpuagg_config('cache', 1<<31)").fetchall()
db.execute("CREATE VIRTUAL TABLE temp.qm USING gpu_query((%s))" % q)
bad = 0
for i in range(4):
    got = sorted(db.execute("SELECT * FROM qm").fetchall())
    on = db.execute("SELECT json_extract(gpuagg_info(), '$.query.last.on')").fetchone()[0]
    ok = got == ref
    bad += not ok
    print("read %d: %d groups, on %s, %s" % (i + 1, len(got), on, "same as SQLite" if ok else "DIFFERENT"))
print("san.py: %d of 4 reads differ" % bad)
sys.exit(1 if bad else 0)
