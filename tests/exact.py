"""What the Python tests share: a connection with the module, the backends
to test, and exact references (values as SQLite's sum() reads them,
rational totals rounded once, square roots judged to half an ulp)."""
import math
import os
import sqlite3
import sys
from fractions import Fraction


def connect(module):
    """A :memory: connection with the module loaded."""
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(module)
    con.enable_load_extension(False)
    return con


def backends(con):
    """['cpu'], and 'cuda' where it is usable; exits when CUDA is required
    (GPUAGG_TEST_REQUIRE_CUDA) and not usable."""
    found = ["cpu"]
    try:
        con.execute("SELECT gpuagg_backend('cuda')")
        found.append("cuda")
    except sqlite3.Error:
        if os.environ.get("GPUAGG_TEST_REQUIRE_CUDA"):
            print("FAIL: CUDA is required and not usable")
            sys.exit(1)
    return found


def number(v):
    """The value sum() sees, exactly."""
    if isinstance(v, str):
        try:
            return Fraction(int(v))
        except ValueError:
            try:
                return Fraction(float(v))
            except ValueError:
                return Fraction(0)
    if isinstance(v, bytes):
        return Fraction(0)
    return Fraction(v)


def rounded(q):
    """The rational q rounded to the nearest double (±inf past the range)."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def within_half_ulp(r, q):
    """Is r the square root of the rational q, rounded to the nearest double?"""
    if q == 0 or r == 0:
        return q == 0 and r == 0
    if math.isinf(r):
        return Fraction(math.nextafter(math.inf, 0)) ** 2 < q
    lo = (Fraction(r) + Fraction(math.nextafter(r, 0))) / 2
    hi = (Fraction(r) + Fraction(math.nextafter(r, math.inf))) / 2
    return lo * lo <= q <= hi * hi


def variances(xs):
    """(var_samp, var_pop) of the exact numbers xs as rationals, None where undefined."""
    n, s = len(xs), sum(xs)
    num = n * sum(x * x for x in xs) - s * s
    return tuple(None if n == 0 or d == 0 else num / (n * d) for d in (n - 1, n))
