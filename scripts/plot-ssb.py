#!/usr/bin/env python3
"""The SSB plot of docs/BENCHMARKS.md: each query's builtin, DuckDB, first-run
and repeated times (ms, log scale) from bench_sql's query table, as an SVG.

    scripts/plot-ssb.py RUN.md OUT.svg [TITLE]

RUN.md: bench_sql's output with the SSB rows (`| q1.1 SSB: ...`); plain
Python, no plotting library. A figure the run did not make (`nan`, `-`: the
builtin at scale factors where it takes minutes) has no bar, and its series
is marked "not run" where no query has it."""
import math
import re
import sys

SERIES = [("builtin SQL", 2, "#9e9e9e"), ("DuckDB (16 threads)", 8, "#f2a900"),
          ("gpu_query, first run", 3, "#6fa8dc"), ("gpu_query, repeated", 5, "#1c4587")]


def rows(path):
    out = []
    for line in open(path):
        if not re.match(r"\| q\d\.\d ", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = cells[0].split()[0].upper()
        vals = [float(m.group()) if (m := re.match(r"[\d.]+", cells[k])) else None for _, k, _ in SERIES]
        out.append((name, vals))
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "SSB, scale factor 1"
    data = rows(src)
    if not data:
        sys.exit("no SSB rows in %s" % src)
    lo, hi = 0.1, 10000.0                       # the axis: decades of ms
    w, h, left, top, bottom = 900, 420, 70, 50, 60
    ph = h - top - bottom
    group = (w - left - 20) / len(data)
    bar = group * 0.8 / len(SERIES)

    def y(ms):
        ms = min(max(ms, lo), hi)
        return top + ph * (1 - (math.log10(ms) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (w, h), '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="15">%s (ms, log scale; lower is faster)</text>' % (left, title)]
    for d in range(int(math.log10(lo)), int(math.log10(hi)) + 1):
        yy = y(10.0 ** d)
        svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, w - 20, yy, yy))
        svg.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (left - 6, yy + 4, 10.0 ** d))
    for i, (name, vals) in enumerate(data):
        x0 = left + i * group + group * 0.1
        for k, ((label, _, color), v) in enumerate(zip(SERIES, vals)):
            if v is None:
                continue
            yy = y(v)
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %g ms</title>'
                       '</rect>' % (x0 + k * bar, yy, bar - 1, top + ph - yy, color, name, label, v))
        svg.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (left + (i + 0.5) * group, h - bottom + 18,
                                                                             name))
    for k, (label, _, color) in enumerate(SERIES):
        svg.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (left + k * 200, h - 24, color))
        run = any(vals[k] is not None for _, vals in data)
        svg.append('<text x="%d" y="%d">%s</text>' % (left + k * 200 + 16, h - 14, label if run else label + " (not run)"))
    svg.append('</svg>')
    open(dst, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
