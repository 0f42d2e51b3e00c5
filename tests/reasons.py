#!/usr/bin/env python3
"""Every reason gpu_query's engine gives for sending a read to SQLite (what
gpu_explain's "why", the kept reason and gpuagg_info()'s notes say), and
its wording: the format of each, from the engine's sources (qpWhy, why,
q_run_error(..., QE_BAIL, ...) and the reasons made by sqlite3_mprintf into
a zWhy), must be the one tests/reasons.txt lists, so that a reason added or
reworded shows in review; and none may name the engine's insides (a source
file, an internal function or constant). A format of "%s" alone hands on a
reason worded elsewhere (an inner plan's, the device's error).

  tests/reasons.py            check (make check runs it)
  tests/reasons.py --write    write tests/reasons.txt from the sources
"""
import glob, os, re, sys

SRC = os.environ.get('GPUAGG_SRCDIR') or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(SRC, 'tests', 'reasons.txt')
CALL = re.compile(r'\b(?:qpWhy|why)\(\s*\w+\s*,\s*((?:"(?:[^"\\]|\\.)*"\s*)+)'
                  r'|\bq_run_error\(\s*[\w>.-]+\s*,\s*QE_BAIL\s*,\s*((?:"(?:[^"\\]|\\.)*"\s*)+)'
                  r'|\bz\w*Why\s*=\s*sqlite3_mprintf\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
# What a reason may not say: the engine's files and names (a user reads it)
BAD = [(re.compile(r'\b\w+\.[ch]\b'), 'names a source file'),
       (re.compile(r'\b(?:qp|qx|q_|ga_)\w+|\b[EAQ]_[A-Z]+\b'), 'names an internal function or constant')]

def reasons():
    """(file, format) of every reason in the engine's sources, sorted."""
    out = set()
    for path in sorted(glob.glob(os.path.join(SRC, 'ext', 'query', '*.c'))):
        for m in CALL.finditer(open(path).read()):
            lits = next(g for g in m.groups() if g is not None)
            out.add((os.path.basename(path), ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', lits))))
    return sorted(out)

def main():
    got = ['%s\t%s' % r for r in reasons()]
    if sys.argv[1:] == ['--write']:
        with open(LIST, 'w') as f:
            f.write('# Every reason of gpu_query\'s engine, its file and format (tests/reasons.py --write).\n')
            f.write(''.join(line + '\n' for line in got))
        print('%d reasons written to %s' % (len(got), LIST))
        return 0
    want = [l.rstrip('\n') for l in open(LIST) if not l.startswith('#')]
    fail = 0
    for line in sorted(set(got) - set(want)):
        print('FAIL: a reason not in tests/reasons.txt (new or reworded): %s' % line); fail = 1
    for line in sorted(set(want) - set(got)):
        print('FAIL: tests/reasons.txt lists a reason the sources no longer give: %s' % line); fail = 1
    for f, z in reasons():
        for rx, what in BAD:
            if rx.search(z):
                print('FAIL: %s: "%s" %s' % (f, z, what)); fail = 1
    print('%d reasons, %s' % (len(got), 'each as tests/reasons.txt lists it' if not fail else 'see above'))
    return fail

if __name__ == '__main__':
    sys.exit(main())
