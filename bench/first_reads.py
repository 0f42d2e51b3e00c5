#!/usr/bin/env python3
# Issue 57's first reads: TPC-H's 22 (bench/tpch22.h, as the tests and bench_sql's
# tpch22 part run them) or the Star Schema Benchmark's 13 (bench_sql.c's ssb part)
# through gpu_query, reads 1, 2, 3 ... on a fresh connection each, against the
# builtin's one run (stopped after CAP seconds) on the same file.
#
#   python3 bench/first_reads.py DB MODULE [QUERIES [READS [CAP]]]
#
# DB: a TPC-H file with the spec's keys (bench_sql's BENCH_TPCH_KEYS=1 makes one),
# or an SSB file (bench_sql's ssb part makes one: BENCH_SSB_DB, BENCH_SSB_SF);
# MODULE: libgpuagg.so; QUERIES: TPC-H's "1,3,6" (default all 22), or "ssb" (all
# 13) or "ssb:1.1,4.3"; READS: reads a connection makes (default 5: the median of
# reads 3 on is "repeated"); CAP: the builtin's seconds (default 20; 0: not run).
# The connection's settings are the defaults a user meets. Every read's rows are
# checked against the builtin's where it finished (same; close: REAL sums within
# 1e-9), and against read 1's. Prints a markdown table, then one line a query on
# stderr as it goes.
import json, os, re, sqlite3, statistics, sys, time

def cStrings(text):
    """The C string literals that follow one another in text, joined."""
    return ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', text)).replace('\\"', '"')

def queries(kind):
    """[(name, SQL)] of TPC-H's 22 (kind 'tpch') or SSB's 13 ('ssb')."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    if kind == 'ssb':
        src = open(os.path.join(here, 'bench_sql.c')).read()
        for m in re.finditer(r'\{ "q(\d\.\d)", "ssb", "(?:[^"\\]|\\.)*",\s*((?:"(?:[^"\\]|\\.)*"\s*)+),', src):
            out.append((m.group(1), cStrings(m.group(2))))
        return out
    src = open(os.path.join(here, 'tpch22.h')).read()
    body = src[src.index('azTpch22[22] = {'):]
    for m in re.finditer(r'/\* Q(\d+) \*/\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', body):
        out.append((m.group(1), cStrings(m.group(2))))
    return out

def close(a, b):
    """Rows alike but for the last bits of REAL sums: the builtin's sum() adds
    doubles in row order, gpu_query's is correctly rounded (exact sums)."""
    if a is None or b is None or len(a) != len(b):
        return False
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            if x != y and not (isinstance(x, float) and isinstance(y, float)
                               and abs(x - y) <= 1e-9 * max(abs(x), abs(y))):
                return False
    return True

def builtin(db, sql, cap):
    """The builtin's rows and ms, or (None, ms) where the cap stopped it."""
    c = sqlite3.connect(db)
    t0 = time.perf_counter()
    c.set_progress_handler(lambda: 1 if time.perf_counter() - t0 > cap else 0, 100000)
    try:
        rows = c.execute(sql).fetchall()
    except sqlite3.OperationalError:
        rows = None
    ms = (time.perf_counter() - t0) * 1000
    c.close()
    return rows, ms

def main():
    db, mod = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else ''
    kind = 'ssb' if arg.startswith('ssb') else 'tpch'
    arg = arg[4:] if kind == 'ssb' else arg
    want = arg.split(',') if arg else None
    nRead = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    cap = float(sys.argv[5]) if len(sys.argv) > 5 else 20.0
    lines = []
    for n, sql in queries(kind):
        if want is not None and n not in want:
            continue
        ref, bms = builtin(db, sql, cap) if cap > 0 else (None, float('nan'))
        c = sqlite3.connect(db)
        c.enable_load_extension(True)
        c.load_extension(mod)
        c.execute("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))" % sql)
        ms, on, same, near, parts = [], [], True, True, []
        first = None
        for r in range(nRead):
            t0 = time.perf_counter()
            rows = c.execute("SELECT * FROM q").fetchall()
            ms.append((time.perf_counter() - t0) * 1000)
            info = json.loads(c.execute("SELECT gpuagg_info()").fetchone()[0])
            last = info['query']['last']
            on.append(last['on'])
            parts.append('/'.join('%.0f' % last[k] for k in
                                  ('plan_ms', 'columns_ms', 'compile_ms', 'operators_ms', 'finish_ms')))
            first = rows if first is None else first
            same = same and rows == first and (ref is None or rows == ref)
            near = near and rows == first and (ref is None or close(rows, ref))
        c.close()
        rep = statistics.median(ms[2:]) if nRead > 2 else float('nan')
        b = '> %.0f' % (cap * 1000) if ref is None and cap > 0 else '%.1f' % bms
        lines.append('| Q%s | %s | %.1f | %.1f | %.1f | %.2f | %s | %.2fx | %s | %s | %s |' % (
            n, b, ms[0], ms[1], ms[2] if nRead > 2 else float('nan'), rep,
            '%.1fx' % (bms / ms[0]) if ref is not None else '-', ms[1] / ms[0],
            ' / '.join(on[:3]), ' ; '.join(parts[:2]), 'same' if same else 'close' if near else 'DIFFER'))
        print(lines[-1], file=sys.stderr, flush=True)
    print('| query | builtin ms | read 1 ms | read 2 ms | read 3 ms | median of reads 3-%d ms | builtin/read 1 '
          '| read 2/read 1 | path of reads 1-3 | reads 1 ; 2: plan/columns/compile/operators/finish ms | answers |' % nRead)
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |')
    print('\n'.join(lines))

main()
