"""gpuagg: SQL aggregates and queries on NVIDIA GPUs, a loadable SQLite
extension, for Python's sqlite3.

    import sqlite3, gpuagg
    db = sqlite3.connect("my.db")
    gpuagg.load(db)
    db.execute("SELECT gpu_sum(x), gpu_avg(x) FROM t")
"""
import os

__all__ = ['load', 'loadable_path']


def loadable_path():
    """The module's path without its suffix, as load_extension() and the
    sqlite3 shell's .load take it."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'libgpuagg')


def load(conn):
    """Load gpuagg into the sqlite3 connection conn. Extension loading is
    enabled for the call alone. RuntimeError where this Python's sqlite3
    cannot load extensions."""
    if not hasattr(conn, 'enable_load_extension'):
        raise RuntimeError(
            "gpuagg: this Python's sqlite3 cannot load extensions (it was built without "
            "--enable-loadable-sqlite-extensions). Use a Python that can: Debian's and Ubuntu's "
            "/usr/bin/python3 can, and pyenv builds one with "
            "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions.")
    conn.enable_load_extension(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        conn.enable_load_extension(False)
