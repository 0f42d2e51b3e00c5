# A join by a direct index against the same join hashed (keys spread wide):
# fact f (N rows), dimension d (ids 1..M) and h (the same rows, ids
# i * (2^40 + 15) - 2^62). Each query on a fresh connection, read 6 times;
# the answers against SQLite's builtin. argv: module, db, N, M.
import sqlite3, sys, time, json
mod, path, n, m = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
db = sqlite3.connect(path)
t = time.time()
if not db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'f'").fetchone()[0]:
    db.executescript(f"""
    CREATE TABLE d(id INTEGER PRIMARY KEY, s TEXT, a INTEGER); CREATE TABLE h(id INTEGER PRIMARY KEY, s TEXT, a INTEGER);
    CREATE TABLE f(k INTEGER, kh INTEGER, v INTEGER);
    WITH RECURSIVE c(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM c WHERE i<{m})
      INSERT INTO d SELECT i, 's' || (i % 97), (i * 7919) % 100 FROM c;
    INSERT INTO h SELECT id * 1099511627791 - 4611686018427387904, s, a FROM d;
    WITH RECURSIVE c(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM c WHERE i<{n})
      INSERT INTO f SELECT ((i * 2654435761) % {m}) + 1, (((i * 2654435761) % {m}) + 1) * 1099511627791 - 4611686018427387904,
      (i * 31) % 2001 - 1000 FROM c;
    """)
    db.commit()
print("made in %.1f s" % (time.time() - t))
Q = {"direct": "SELECT d.s, count(*), sum(f.v) FROM f JOIN d ON f.k = d.id WHERE d.a < 50 GROUP BY d.s",
     "hashed": "SELECT h.s, count(*), sum(f.v) FROM f JOIN h ON f.kh = h.id WHERE h.a < 50 GROUP BY h.s"}
for name, q in Q.items():
    t = time.time(); ref = sorted(db.execute(q).fetchall()); tb = time.time() - t
    c = sqlite3.connect(path)
    c.enable_load_extension(True)
    c.load_extension(mod)
    c.execute("SELECT gpuagg_backend('%s')" % (sys.argv[5] if len(sys.argv) > 5 else 'auto')).fetchall()
    c.execute("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))" % q)
    ts, ons, ok = [], [], True
    for i in range(6):
        t = time.time(); got = sorted(c.execute("SELECT * FROM q").fetchall()); ts.append((time.time() - t) * 1e3)
        last = json.loads(c.execute("SELECT json_extract(gpuagg_info(), '$.query.last')").fetchone()[0])
        ons.append(last["on"]); ok = ok and got == ref
    rep = sorted(ts[2:])
    print("%s: builtin %.1f ms; reads %s ms on %s; repeated (median of reads 3-6) %.2f ms, operators %.3f ms; builtin/repeated %.0fx; %s"
          % (name, tb * 1e3, ", ".join("%.1f" % x for x in ts), ",".join(ons), (rep[1] + rep[2]) / 2, last["operators_ms"],
             tb * 1e3 / ((rep[1] + rep[2]) / 2), "same as SQLite" if ok else "DIFFERENT"))
    c.close()
