#!/usr/bin/env python3
"""Plots a `tidepool --bench-json` file as an SVG: milliseconds per step, and milliseconds
per step per 1000 particles, against the particle count, on log-log axes, one line per
solver / backend / threads (and scene, when the file has several).

    python3 scripts/plot_bench.py bench.json [out.svg]

Standard library only. Rows that were skipped or failed, or ran no steps, are left out.
"""
import html
import json
import math
import sys

WIDTH, HEIGHT = 480, 360          # one panel
MARGIN = dict(left=70, right=20, top=40, bottom=55)
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]


def load_series(path):
    """Returns ({label: [(particles, ms_per_step)]}, title) from a bench JSON file."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("tidepool_bench") != 1:
        raise ValueError(f"{path}: not a tidepool bench file (no \"tidepool_bench\": 1)")
    runs = [r for r in doc.get("runs", [])
            if r.get("status") in ("ok", "interrupted") and r.get("steps", 0) > 0
            and r.get("particles", 0) > 0 and r.get("ms_per_step", 0) > 0]
    scenes = {r["scene"] for r in runs}
    series = {}
    for r in runs:
        parts = [r["solver"], r["backend"]]
        if r.get("threads"):
            parts.append(f"{r['threads']} thread" + ("s" if r["threads"] != 1 else ""))
        if len(scenes) > 1:
            parts.insert(0, r["scene"])
        series.setdefault(", ".join(parts), []).append((r["particles"], r["ms_per_step"]))
    for points in series.values():
        points.sort()
    machine = doc.get("machine", {})
    title = f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores, {doc.get('date', '')}"
    return series, title


def nice(v, up):
    """The 1, 2 or 5 times a power of ten next below (up=False) or above v."""
    e = math.floor(math.log10(v))
    steps = [m * 10 ** k for k in (e - 1, e, e + 1) for m in (1, 2, 5)]
    return min(s for s in steps if s >= v * 0.9999) if up else max(s for s in steps if s <= v * 1.0001)


def log_range(values):
    lo, hi = nice(min(values), False), nice(max(values), True)
    if hi <= lo:
        hi = nice(lo * 1.5, True)
    return lo, hi


def ticks(lo, hi):
    """Decades, and 2 and 5 between them when the axis spans at most two decades."""
    decades = math.log10(hi / lo)
    out = []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in ([1] if decades > 2 else [1, 2, 5]):
            v = m * 10 ** e
            if lo * 0.9999 <= v <= hi * 1.0001:
                out.append(v)
    for end in (lo, hi):  # the axis ends are labelled too
        if all(abs(v / end - 1) > 1e-3 for v in out):
            out.append(end)
    return sorted(out)


def label(v):
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def panel(x0, series, ylabel, transform):
    """SVG elements of one panel at horizontal offset x0."""
    xs = [p for pts in series.values() for p, _ in pts]
    ys = [transform(p, m) for pts in series.values() for p, m in pts]
    xlo, xhi = log_range(xs)
    ylo, yhi = log_range(ys)
    left, top = x0 + MARGIN["left"], MARGIN["top"]
    w = WIDTH - MARGIN["left"] - MARGIN["right"]
    h = HEIGHT - MARGIN["top"] - MARGIN["bottom"]

    def px(x):
        return left + w * math.log10(x / xlo) / math.log10(xhi / xlo)

    def py(y):
        return top + h - h * math.log10(y / ylo) / math.log10(yhi / ylo)

    out = [f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#444"/>']
    for v in ticks(xlo, xhi):
        x = px(v)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + h}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{top + h + 16}" text-anchor="middle">{label(v)}</text>')
    for v in ticks(ylo, yhi):
        y = py(v)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label(v)}</text>')
    out.append(f'<text x="{left + w / 2}" y="{top + h + 38}" text-anchor="middle">'
               'fluid particles</text>')
    out.append(f'<text transform="translate({x0 + 18},{top + h / 2}) rotate(-90)" '
               f'text-anchor="middle">{html.escape(ylabel)}</text>')
    for k, (name, pts) in enumerate(series.items()):
        color = COLORS[k % len(COLORS)]
        coords = " ".join(f"{px(p):.1f},{py(transform(p, m)):.1f}" for p, m in pts)
        if len(pts) > 1:
            out.append(f'<polyline points="{coords}" fill="none" stroke="{color}" '
                       'stroke-width="2"/>')
        for p, m in pts:
            out.append(f'<g><title>{html.escape(name)}: {p} particles, {m:.3g} ms/step</title>'
                       f'<circle cx="{px(p):.1f}" cy="{py(transform(p, m)):.1f}" r="3.5" '
                       f'fill="{color}"/></g>')
    return out


def svg(series, title):
    total_w = 2 * WIDTH
    legend_h = 18 * len(series) + 10
    total_h = HEIGHT + legend_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
           f'viewBox="0 0 {total_w} {total_h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{total_w}" height="{total_h}" fill="white"/>',
           f'<text x="{total_w / 2}" y="20" text-anchor="middle" font-size="14">'
           f'Tidepool: time per step ({html.escape(title)})</text>']
    out += panel(0, series, "ms per step", lambda p, m: m)
    out += panel(WIDTH, series, "ms per step per 1000 particles", lambda p, m: 1000.0 * m / p)
    for k, name in enumerate(series):
        y = HEIGHT + 10 + 18 * k
        color = COLORS[k % len(COLORS)]
        out.append(f'<line x1="{MARGIN["left"]}" y1="{y}" x2="{MARGIN["left"] + 24}" y2="{y}" '
                   f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{MARGIN["left"] + 32}" y="{y + 4}">{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    source = argv[1]
    target = argv[2] if len(argv) == 3 else source.rsplit(".", 1)[0] + ".svg"
    try:
        series, title = load_series(source)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_bench.py: {e}", file=sys.stderr)
        return 2
    if not series:
        print(f"plot_bench.py: {source} has no finished runs to plot", file=sys.stderr)
        return 2
    with open(target, "w", encoding="utf-8") as f:
        f.write(svg(series, title))
    print(f"plot_bench.py: wrote {target} ({len(series)} lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
