#!/bin/sh
# `pip install ./python` as the README says, checked in a fresh venv of
# Debian's python3 with no package index (the venv sees Debian's setuptools
# and wheel): gpuagg.load(conn) loads the module the package built, and an
# interpreter whose sqlite3 cannot load extensions gets the error that names
# the fix. Run in the top of a tree (built or not: the package builds it).
set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh
packages="python3-venv python3-setuptools python3-wheel"
need_packages
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$d/venv"
"$d/venv/bin/pip" install -q --no-build-isolation --no-index ./python
rm -rf python/build python/*.egg-info
cd "$d"
"$d/venv/bin/python" - <<'PY'
import os, sqlite3, sys, gpuagg
db = sqlite3.connect(':memory:')
gpuagg.load(db)
got = db.execute('SELECT gpu_sum(x) FROM (SELECT 1 AS x UNION ALL SELECT 2)').fetchone()[0]
assert got == 3, got
assert os.path.exists(gpuagg.loadable_path() + '.so'), gpuagg.loadable_path()
assert gpuagg.loadable_path().startswith(sys.prefix), (sys.prefix, gpuagg.loadable_path())   # (the venv's copy)
class NoExtensions:                  # a sqlite3 built without loadable extensions
    pass
try:
    gpuagg.load(NoExtensions())
    raise SystemExit('python-check: gpuagg.load took a connection that cannot load extensions')
except RuntimeError as e:
    assert 'enable-loadable-sqlite-extensions' in str(e), str(e)
print('python-check: pip install ./python in a fresh venv, gpuagg.load(conn): gpu_sum %d, %s.so'
      % (got, gpuagg.loadable_path()))
PY
