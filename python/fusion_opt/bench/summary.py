"""Suite-level summaries of fusion-bench records: geometric means of the ratios and how noisy the run was.

Why the noise line: the machine is shared, so a 10% difference means nothing when the run's timings wander
by 10%; the coefficient of variation (stdev / median of the timed rounds) per model and engine says so.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

# Ratios whose geometric means the report carries (ours / X), and those also measured round by round
# (`ours_over_X_paired`: median of the per-round ratios, runner.paired_ratio).
RATIOS = ("iree", "iree_best", "ort", "greedy", "nchw", "nhwc", "roofline")
PAIRED = ("iree", "iree_best", "ort", "greedy", "nchw", "nhwc")


def _engines(rec: dict[str, Any]) -> list[str]:
    """Timed engines of a record: those with `<engine>_stdev_ms` (the roofline is computed, not timed)."""
    return [k[: -len("_stdev_ms")] for k in rec if k.endswith("_stdev_ms")]


def geomean(values: Sequence[float | None]) -> float | None:
    """Geometric mean of the positive finite values; None when there are none."""
    vals = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def geomeans(records: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """{"ours_over_X": geomean over the models that have it} for X in RATIOS."""
    means = {f"ours_over_{o}": geomean([r.get(f"ours_over_{o}") for r in records]) for o in RATIOS}
    means.update({f"ours_over_{o}_paired": geomean([r.get(f"ours_over_{o}_paired") for r in records])
                  for o in PAIRED})
    return {k: (round(v, 4) if v is not None else None) for k, v in means.items()}


def noise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """CV = stdev / median per (model, engine) with timings; the median over all of them and the worst."""
    cvs: list[tuple[float, str, str]] = []
    for r in records:
        for engine in _engines(r):
            sd, med = r.get(f"{engine}_stdev_ms"), r.get(f"{engine}_ms")
            if isinstance(med, (int, float)) and med > 0 and isinstance(sd, (int, float)):
                cvs.append((sd / med, str(r.get("model")), engine))
    if not cvs:
        return {"median_cv": None, "worst_cv": None, "worst_model": None, "worst_engine": None, "samples": 0}
    worst = max(cvs)
    return {"median_cv": round(statistics.median(c for c, _, _ in cvs), 4), "worst_cv": round(worst[0], 4),
            "worst_model": worst[1], "worst_engine": worst[2], "samples": len(cvs)}


def noise_line(n: dict[str, Any]) -> str:
    """`noise: median CV x.x%, worst y.y% (model, engine)`."""
    if not n.get("samples"):
        return "noise: no timings"
    return (f"noise: median CV {100 * n['median_cv']:.1f}%, worst {100 * n['worst_cv']:.1f}% "
            f"({n['worst_model']}, {n['worst_engine']})")


def beats_roofline(records: Sequence[dict[str, Any]]) -> list[str]:
    """`model:engine` pairs that ran faster than their roofline bound. Any such pair means the measured peak
    or bandwidth underestimates the machine (numpy's OpenBLAS sgemm is not the fastest kernel on every CPU;
    weights that stay in the LLC beat DRAM bandwidth), so the bound is not one for that model."""
    out = []
    for r in records:
        bound = r.get("roofline_ms")
        if not isinstance(bound, (int, float)) or bound <= 0:
            continue
        for engine in _engines(r):
            v = r.get(f"{engine}_ms")
            if isinstance(v, (int, float)) and 0 < v < bound:
                out.append(f"{r.get('model')}:{engine}")
    return out
