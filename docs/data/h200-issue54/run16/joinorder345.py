# Rows of random joins without ORDER BY through gpu_query against the host's
# own SQLite (3.45 on the GPU host), compared in order.
import sqlite3, random, sys, json, os
lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), '.libs', 'libgpuagg.so')
seed = int(sys.argv[1]) if len(sys.argv) > 1 else random.randrange(1 << 30)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
rng = random.Random(seed)
print('sqlite', sqlite3.sqlite_version, 'seed', seed)
cols = ['a', 'b', 's', 'n', 'u', 'c', 'r']
types = ['INTEGER', 'REAL', 'TEXT', 'NUMERIC', '', 'TEXT COLLATE NOCASE', 'TEXT COLLATE RTRIM']
pool = [None, 0, 1, -1, 2, 3, 7, 0.5, 2.5, '12', 'abc', '', 'A', 'a', 'a  ', 'B', 'b', b'AB', -3.25, 100000000000]
def val(): return rng.choice(pool) if rng.random() < 0.6 else rng.randint(-20, 20)
lits = ["0", "1", "2", "-1", "0.5", "'a'", "'A'", "'12'", "NULL", "'abc'", "1.0", "3", "'x'", "2.5", "'a  '", "7"]
bad = engine = total = 0
for rnd in range(4):
    db = sqlite3.connect(':memory:' if rnd % 2 == 0 else '/tmp/jo345.db')
    db.enable_load_extension(True); db.load_extension(lib)
    for k, nr in enumerate([150, 30, 12, 5]):
        db.execute('DROP TABLE IF EXISTS j%d' % k)
        db.execute('CREATE TABLE j%d(id INTEGER PRIMARY KEY, %s)' % (k, ', '.join('%s %s' % (c, t) for c, t in zip(cols, types))))
        db.executemany('INSERT INTO j%d VALUES(%s)' % (k, ','.join('?' * 8)), [(i + 1,) + tuple(val() for _ in cols) for i in range(nr)])
        for j in range(rng.randrange(3)):
            db.execute('CREATE INDEX j%di%d ON j%d(%s)' % (k, j, k, ', '.join(
                rng.choice(cols) + (' COLLATE NOCASE' if rng.random() < .2 else '') + (' DESC' if rng.random() < .3 else '')
                for _ in range(1 + rng.randrange(3)))))
    if rnd == 2: db.execute('ANALYZE')
    db.commit()
    for i in range(n // 4):
        nt = 2 + rng.randrange(3)
        col = lambda: 'x%d.%s' % (1 + rng.randrange(nt), 'id' if rng.random() < .1 else rng.choice(cols))
        sql = 'SELECT ' + ', '.join(col() for _ in range(1 + rng.randrange(4))) + ' FROM j%d AS x1' % rng.randrange(4)
        w = []
        for t in range(2, nt + 1):
            how, other = rng.randrange(6), 1 + rng.randrange(t - 1)
            if how == 0:
                sql += ' LEFT JOIN j%d AS x%d ON x%d.%s = x%d.%s' % (1 + rng.randrange(3), t, t, rng.choice(cols), other, rng.choice(cols))
            else:
                sql += ', j%d AS x%d' % (1 + rng.randrange(3), t)
                if how > 1: w.append('x%d.%s = x%d.%s' % (t, rng.choice(cols + ['id']), other, rng.choice(cols)))
        for t in range(1, nt + 1):
            if rng.random() < .4: continue
            c = 'x%d.%s' % (t, rng.choice(cols + ['id']))
            k = rng.randrange(3)
            w.append(c + rng.choice([' = ', ' > ', ' <= ']) + rng.choice(lits) if k == 0 else
                     c + ' IN (%s)' % ', '.join(rng.choice(lits) for _ in range(3)) if k == 1 else
                     c + ' BETWEEN %s AND %s' % (rng.choice(lits), rng.choice(lits)))
        if w: sql += ' WHERE ' + ' AND '.join(w)
        if rng.random() < .2: sql += ' LIMIT %d' % (1 + rng.randrange(20))
        try: want = db.execute(sql).fetchall()
        except sqlite3.Error: continue
        db.execute('DROP TABLE IF EXISTS temp.q')
        db.execute('CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))' % sql)
        e0 = json.loads(db.execute('SELECT gpuagg_info()').fetchone()[0])['query']['engine']
        got = db.execute('SELECT * FROM q').fetchall()
        e1 = json.loads(db.execute('SELECT gpuagg_info()').fetchone()[0])['query']['engine']
        total += 1; engine += e1 > e0
        if [tuple(map(repr, r)) for r in got] != [tuple(map(repr, r)) for r in want]:
            bad += 1
            if bad <= 3: print('DIFF', sql, '\n got', got[:5], '\n want', want[:5])
    db.close()
print('reads %d, on the engine %d, differing %d' % (total, engine, bad))
sys.exit(1 if bad else 0)
