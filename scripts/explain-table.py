#!/usr/bin/env python3
"""gpu_explain of bench_sql's SSB and TPC-H join queries, in brief, as a
Markdown table (docs/query.md's): for each, the path, the scanned table and its
filter, the joined tables in the plan's order (kind, key, own filter), and
what is left over the joined rows.

  scripts/explain-table.py SSB.db TPCH.db [libgpuagg]

The databases are bench_sql's (BENCH_SSB_DB, BENCH_TPCH_DB: any scale
factor plans alike); the module is loaded by the sqlite3 shell (Python's
sqlite3 may not load extensions)."""
import json, re, subprocess, sys

def queries(path):
    """(id, part, SQL) of bench_sql.c's aQueryDef entries of parts ssb and tpchj."""
    src = open(path).read()
    a = src.index('static const QueryDef aQueryDef[] = {')
    b = src.index('\n};\n', a)
    ents = re.findall(r'\{\s*"([^"]+)",\s*"(ssb|tpchj)",\s*"[^"]*",\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', src[a:b])
    for qid, part, sql in ents:
        yield qid, part, ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', sql)).replace('\\"', '"')

def explain(db, lib, sql):
    out = subprocess.run(['sqlite3', db], capture_output=True, text=True, check=True,
                         input=".load %s\nSELECT gpu_explain('%s');\n" % (lib, sql.replace("'", "''"))).stdout
    return json.loads(out)

def conj(x, most=90):
    z = ' AND '.join(x) if x else '-'
    return z if len(z) <= most else z[:60].rstrip() + ' ...'

def chain(plan):
    """The plan's nodes from the top down its first inputs (the scan's rows,
    which each join probes with), and each join's build."""
    node = plan
    while node:
        yield node
        kids = node.get('children', [])
        node = kids[0] if kids else None

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dbs = {'ssb': sys.argv[1], 'tpchj': sys.argv[2]}
    lib = sys.argv[3] if len(sys.argv) > 3 else './.libs/libgpuagg'
    print("| query | path | scan: table (its filter) | then, in the plan's order: table (kind) on key (its own filter) | after the joins |")
    print('| --- | --- | --- | --- | --- |')
    for qid, part, sql in queries('bench/bench_sql.c'):
        e = explain(dbs[part], lib, sql)
        nodes = list(chain(e.get('plan')))
        scan = nodes[-1] if nodes else {}
        joins = '; '.join('%s (%s) on %s (%s)' % (j['table'], j['kind'], conj(j['on']),
                                                  conj(j['children'][1].get('filter')))
                          for j in reversed([n for n in nodes if n['op'] == 'join']))
        post = [n for n in nodes if n['op'] == 'filter']
        path = e['path'] + ('' if e['why'] is None else ': ' + e['why'])
        print('| %s | %s | %s (%s) | %s | %s |' % (qid, path, scan.get('table'), conj(scan.get('filter'), 200), joins,
                                                   conj(post[0]['conditions'] if post else None)))

if __name__ == '__main__':
    main()
