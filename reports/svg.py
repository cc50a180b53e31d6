"""Inline SVG plots: keyed-rotation deviation against passed(T), and a value over time.

Plain SVG strings with no script and no external reference, so the report stays static.
"""
from __future__ import annotations

import math
from html import escape

from ground.bounds import ROT_TOLERANCE, f32_ulp

W, H = 640, 260
PAD_L, PAD_R, PAD_T, PAD_B = 64, 16, 14, 36


def _fmt(x: float) -> str:
    if 1000 <= abs(x) < 1e7:
        return f"{x:.0f}"
    return f"{x:.3g}"


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        return [lo]
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


def _frame(xlo, xhi, ylo, yhi, xlabel, ylabel, log=False) -> tuple[list[str], callable, callable]:
    """Plot area, grid, tick labels and axis titles; with log=True, ylo/yhi are decades."""
    pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B
    xspan = (xhi - xlo) or 1.0
    yspan = (yhi - ylo) or 1.0

    def X(x):
        return PAD_L + (x - xlo) / xspan * pw

    def Y(y):
        return PAD_T + ph - (y - ylo) / yspan * ph
    out = [f'<rect x="{PAD_L}" y="{PAD_T}" width="{pw}" height="{ph}" class="plotbg"/>']
    yticks = range(int(ylo), int(yhi) + 1) if log else _ticks(ylo, yhi)
    for t in yticks:
        label = f"1e{t}" if log else _fmt(t)
        out.append(f'<line x1="{PAD_L}" x2="{PAD_L + pw}" y1="{Y(t):.1f}" y2="{Y(t):.1f}" '
                   'class="grid"/>')
        out.append(f'<text x="{PAD_L - 4}" y="{Y(t) + 4:.1f}" text-anchor="end">{label}</text>')
    for t in _ticks(xlo, xhi):
        out.append(f'<text x="{X(t):.1f}" y="{PAD_T + ph + 14}" text-anchor="middle">'
                   f'{_fmt(t)}</text>')
    out.append(f'<text x="{PAD_L + pw / 2}" y="{H - 4}" text-anchor="middle" class="axis">'
               f'{escape(xlabel)}</text>')
    out.append(f'<text x="12" y="{PAD_T + ph / 2}" text-anchor="middle" class="axis" '
               f'transform="rotate(-90 12 {PAD_T + ph / 2})">{escape(ylabel)}</text>')
    return out, X, Y


SCATTER_LIMIT = 4000


def rotation_scatter(samples, base: float, per_key: float, limit: int = SCATTER_LIMIT) -> str:
    """d against passed(T), log scale, with the bound base + per_key·passed (checks.md §3).

    samples: (passed, d, label) tuples; points over the bound are drawn red, each with its
    label; the others are dots of one path (reports/assets/report.css: .pts). When there are
    more than `limit`, half are the ones closest to (or over) the bound, half a stride sample. The y axis is
    logarithmic so that drift far below the bound (1e-7 against 1e-5) is still visible.
    """
    pts = list(samples)
    if not pts:
        return ""
    if len(pts) > limit:
        # the half closest to (or over) the bound, and an even stride through the rest so the
        # bulk of the distribution still shows; deterministic
        pts.sort(key=lambda p: -p[1] / (base + per_key * p[0]))
        top, rest = pts[:limit // 2], pts[limit // 2:]
        n = limit - len(top)
        pts = top + [rest[i * len(rest) // n] for i in range(n)]
    pmax = max(max(p[0] for p in pts), 1)
    positive = [p[1] for p in pts if p[1] > 0]
    lo_exp = math.floor(math.log10(min(positive + [base]))) if positive else math.floor(math.log10(base)) - 3
    hi_exp = math.ceil(math.log10(max([p[1] for p in pts] + [base + per_key * pmax]) * 1.05))
    if hi_exp <= lo_exp:
        hi_exp = lo_exp + 1
    floor_d = 10.0 ** lo_exp
    out, X, Yl = _frame(0, pmax, lo_exp, hi_exp, "passed(T): keys multiplied in",
                        "d = max |game − reference| (log)", log=True)

    def Y(d):
        return Yl(math.log10(max(d, floor_d)))
    curve = " ".join(f"{X(p):.1f},{Y(base + per_key * p):.1f}"
                     for p in [pmax * i / 24 for i in range(25)])
    out.append(f'<polyline points="{curve}" class="bound"/>')
    out.append(f'<text x="{X(pmax) - 4:.1f}" y="{Y(base + per_key * pmax) - 5:.1f}" '
               f'text-anchor="end" class="boundlbl">bound {base:g} + {per_key:g}·passed</text>')
    # Points under the bound are one path of round dots, one per drawn position (samples that
    # land on the same 0.1 px are drawn once); points over it are circles naming their sample.
    dots = {}
    for passed, d, label in pts:
        xy = f"{X(passed):.1f} {Y(d):.1f}"
        if d > base + per_key * passed:
            out.append(f'<circle cx="{xy.split()[0]}" cy="{xy.split()[1]}" r="3" class="over">'
                       f'<title>{escape(str(label))}: passed {passed}, d {d:.3g}</title></circle>')
        else:
            dots.setdefault(xy, 0)
            dots[xy] += 1
    if dots:
        out.append(f'<path class="pts" d="{"".join(f"M{xy}h0" for xy in dots)}">'
                   f'<title>{sum(dots.values()):,} samples under the bound</title></path>')
    return (f'<svg class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
            f'aria-label="keyed rotation deviation against passed keys">{"".join(out)}</svg>')


def tolerance_rule(points=(), base: float = ROT_TOLERANCE, lo_exp: int = -3, hi_exp: int = 5) -> str:
    """The playback 3x3 bound per element against the element's magnitude (docs/tolerances.md §1):
    the formula's flat line at keys = 0 and |s| <= 1 (dashed), one ulp of f32 (a staircase,
    dashed) and the bound, the larger of the two (solid). points: (|reference element|, d, label)
    of playback matrix mismatches, drawn red."""
    ylo, yhi = -9, -1
    out, X, Yl = _frame(lo_exp, hi_exp, ylo, yhi, "log10 |reference element|",
                        "bound, d (log)", log=True)

    def Y(d):
        return Yl(min(max(math.log10(max(d, 1e-300)), ylo), yhi))
    xs = [lo_exp + (hi_exp - lo_exp) * i / 400 for i in range(401)]
    ulp = " ".join(f"{X(x):.1f},{Y(f32_ulp(10.0 ** x)):.1f}" for x in xs)
    rule = " ".join(f"{X(x):.1f},{Y(max(base, f32_ulp(10.0 ** x))):.1f}" for x in xs)
    out.append(f'<polyline points="{X(lo_exp):.1f},{Y(base):.1f} {X(hi_exp):.1f},{Y(base):.1f}" '
               'class="part"/>')
    out.append(f'<polyline points="{ulp}" class="part"/>')
    out.append(f'<polyline points="{rule}" class="rule"/>')
    cross = 2.0 ** (math.floor(math.log2(base)) + 24)   # the first binade whose ulp passes the formula
    out.append(f'<text x="{X(lo_exp) + 4:.1f}" y="{Y(base) - 5:.1f}" class="boundlbl">'
               f'formula {base:g}·max(1, |s|)</text>')
    out.append(f'<text x="{X(hi_exp) - 4:.1f}" y="{Y(f32_ulp(10.0 ** hi_exp)) + 14:.1f}" text-anchor="end" '
               f'class="boundlbl">1 ulp of the element (binds from {cross:g})</text>')
    for mag, d, label in list(points)[:SCATTER_LIMIT]:
        if mag > 0:
            x = min(max(math.log10(mag), lo_exp), hi_exp)
            out.append(f'<circle cx="{X(x):.1f}" cy="{Y(d):.1f}" r="3" class="over">'
                       f'<title>{escape(str(label))}: |element| {mag:.4g}, d {d:.3g}</title></circle>')
    return (f'<svg class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
            f'aria-label="playback 3x3 bound against the element magnitude">{"".join(out)}</svg>')


def series_plot(s: dict, mark_time=None) -> str:
    """The reference value over time (line) with the game's values (dots) from a view's series."""
    xs = s["t"] + s["gt"]
    ys = s["ref"] + s["g"]
    xlo, xhi = min(xs), max(xs)
    ylo, yhi = min(ys), max(ys)
    if yhi == ylo:
        ylo, yhi = ylo - 1, yhi + 1
    pad = (yhi - ylo) * 0.05
    out, X, Y = _frame(xlo, xhi, ylo - pad, yhi + pad, "time (ticks)", s.get("label") or "value")
    if s["t"]:
        path = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in zip(s["t"], s["ref"]))
        out.append(f'<polyline points="{path}" class="ref"/>')
    if isinstance(mark_time, (int, float)) and xlo <= mark_time <= xhi:
        out.append(f'<line x1="{X(mark_time):.1f}" x2="{X(mark_time):.1f}" y1="{PAD_T}" '
                   f'y2="{H - PAD_B}" class="mark"/>')
    for x, y in zip(s["gt"], s["g"]):
        out.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" class="game">'
                   f'<title>game at t={x:g}: {y:.9g}</title></circle>')
    legend = "— reference (drawn for the report)   ● game" if s.get("derived") else "— reference   ● game"
    out.append(f'<text x="{W - PAD_R}" y="{H - 4}" text-anchor="end" class="legend">{legend}</text>')
    return (f'<svg class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
            f'aria-label="value over time">{"".join(out)}</svg>')
