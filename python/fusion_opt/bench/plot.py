"""SVG plot of fusion-bench records, written by hand (no matplotlib dependency).

Two panels of grouped bars, one group per model, both on log axes (ratios span 0.5x to 20x, fractions of
roofline 0.1% to 100%): latency relative to onnxruntime (lower is better) for ours / iree / iree_best, and
the fraction of the roofline bound each engine reaches (roofline_ms / engine_ms, higher is better). A dashed
line marks 1 in both: onnxruntime's latency, and the bound itself.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any
from xml.sax.saxutils import escape

COLORS = {"ours": "#1f77b4", "iree": "#ff7f0e", "iree_best": "#2ca02c", "ort": "#7f7f7f"}
RATIO_ENGINES = ("ours", "iree", "iree_best")
ROOFLINE_ENGINES = ("ours", "iree", "iree_best", "ort")
_LEFT, _RIGHT, _TOP, _PANEL_H, _LABEL_H, _GAP = 70, 130, 40, 220, 70, 50
_BAR_W, _GROUP_GAP = 12, 18
_SLOTS = len(ROOFLINE_ENGINES)  # bar slots per model group


def _ratio(num: Any, den: Any) -> float | None:
    ok = all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in (num, den))
    return num / den if ok else None


def over_ort(rec: dict[str, Any], engine: str) -> float | None:
    """engine latency / onnxruntime latency."""
    return _ratio(rec.get(f"{engine}_ms"), rec.get("ort_ms"))


def roofline_fraction(rec: dict[str, Any], engine: str) -> float | None:
    """roofline_ms / engine latency: 1.0 would be the bound itself."""
    return _ratio(rec.get("roofline_ms"), rec.get(f"{engine}_ms"))


def _nice(v: float, up: bool) -> float:
    """The nearest 1, 2 or 5 x 10^k at or above (up) / at or below v."""
    k = math.floor(math.log10(v))
    steps = [m * 10.0 ** e for e in (k - 1, k, k + 1) for m in (1, 2, 5)]
    return min(t for t in steps if t >= v * (1 - 1e-9)) if up else max(t for t in steps if t <= v * (1 + 1e-9))


def _log_range(values: Sequence[float], include: float | None) -> tuple[float, float]:
    vals = [*values, *([include] if include else [])] or [1.0]
    lo, hi = _nice(min(vals), False), _nice(max(vals), True)
    return (lo, hi * 2) if hi <= lo else (lo, hi)


def _ticks(lo: float, hi: float) -> list[float]:
    """1, 2, 5 x 10^k within [lo, hi]."""
    out, k = [], math.floor(math.log10(lo))
    while 10 ** k <= hi:
        out += [m * 10 ** k for m in (1, 2, 5) if lo * (1 - 1e-9) <= m * 10 ** k <= hi * (1 + 1e-9)]
        k += 1
    return out


def _fmt(v: float, pct: bool) -> str:
    if pct:
        return f"{v:.0%}" if v >= 0.01 else f"{v:.2%}"
    return f"{v:.3g}"


def _panel(y0: float, title: str, records: Sequence[dict[str, Any]], engines: Sequence[str],
           value: Callable[[dict[str, Any], str], float | None], ref: float | None, pct: bool) -> list[str]:
    """SVG elements of one panel whose plot area starts at y0."""
    vals = [v for r in records for e in engines if (v := value(r, e)) is not None]
    lo, hi = _log_range(vals, ref)
    group_w = _BAR_W * _SLOTS + _GROUP_GAP  # the same in both panels, so the models line up
    width = group_w * len(records)

    def y(v: float) -> float:
        return y0 + _PANEL_H * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    out = [f'<text x="{_LEFT}" y="{y0 - 12}" font-size="14" font-weight="bold">{escape(title)}</text>',
           f'<rect x="{_LEFT}" y="{y0}" width="{width}" height="{_PANEL_H}" fill="none" stroke="#999"/>']
    for t in _ticks(lo, hi):
        out.append(f'<line x1="{_LEFT}" x2="{_LEFT + width}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#ddd"/>')
        label = _fmt(t, pct)
        out.append(f'<text x="{_LEFT - 6}" y="{y(t) + 4:.1f}" font-size="11" text-anchor="end">{label}</text>')
    if ref is not None:
        out.append(f'<line x1="{_LEFT}" x2="{_LEFT + width}" y1="{y(ref):.1f}" y2="{y(ref):.1f}" '
                   'stroke="#000" stroke-dasharray="4 3"/>')
    for i, r in enumerate(records):
        gx = _LEFT + i * group_w + _GROUP_GAP / 2 + (_SLOTS - len(engines)) * _BAR_W / 2
        for j, e in enumerate(engines):
            v = value(r, e)
            if v is None:
                continue
            top = min(y(v), y0 + _PANEL_H)
            out.append(f'<rect x="{gx + j * _BAR_W:.1f}" y="{top:.1f}" width="{_BAR_W - 1}" '
                       f'height="{y0 + _PANEL_H - top:.1f}" fill="{COLORS.get(e, "#333")}">'
                       f'<title>{escape(str(r.get("model")))} {e}: {_fmt(v, pct)}</title></rect>')
        cx, cy = gx + _BAR_W * len(engines) / 2, y0 + _PANEL_H + 12
        out.append(f'<text x="{cx:.1f}" y="{cy}" font-size="11" text-anchor="end" '
                   f'transform="rotate(-35 {cx:.1f} {cy})">{escape(str(r.get("model")))}</text>')
    for j, e in enumerate(engines):
        ly = y0 + 14 + 18 * j
        out.append(f'<rect x="{_LEFT + width + 14}" y="{ly - 10}" width="12" height="12" fill="{COLORS[e]}"/>')
        out.append(f'<text x="{_LEFT + width + 32}" y="{ly}" font-size="12">{e}</text>')
    return out


def svg(records: Sequence[dict[str, Any]], title: str = "fusion-bench") -> str:
    """The two-panel SVG document for `records` (models with errors and no timings still get a slot)."""
    recs = [r for r in records if "model" in r]
    width = max(560, _LEFT + max(1, len(recs)) * (_BAR_W * _SLOTS + _GROUP_GAP) + _RIGHT)  # room for titles
    y1 = _TOP + 30
    y2 = y1 + _PANEL_H + _LABEL_H + _GAP
    height = y2 + _PANEL_H + _LABEL_H
    body = [f'<text x="{_LEFT}" y="24" font-size="16" font-weight="bold">{escape(title)}</text>',
            *_panel(y1, "latency / onnxruntime (lower is better)", recs, RATIO_ENGINES, over_ort, 1.0, False),
            *_panel(y2, "fraction of roofline: roofline_ms / engine ms (higher is better)", recs,
                    ROOFLINE_ENGINES, roofline_fraction, 1.0, True)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")
