"""`fusion-bench ablation`: which lever bought what. Each lever of our `cost` mode is switched off in
turn, every variant compiled from the same model and timed interleaved with the others in one process
(runner.measure), each checked against the model's reference first.

Levers (issue 8): Winograd for 3x3 convs (rewrites/winograd.py), the conv strategy (im2col + matmul
per conv, rewrites/im2col.py), pooling as window taps (rewrites/pool_taps.py), IREE's data tiling
(backends/levers.py), Conv-BN folding (patterns/conv_bn.py), our grouping vs IREE's dispatch formation
(`fusion="iree"`, which also drops the rewrites above: they belong to our planner) and the runtime driver
(`local-task`, IREE's multi-threaded driver, vs `local-sync`, one thread, no task system). Every other
variant runs on local-task, not on the driver a CompiledModel picks for itself (`driver="auto"`), so
that each row differs from `all` by one lever.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import models, runner


@dataclass(frozen=True)
class Variant:
    name: str
    what: str
    fusion: str = "cost"
    disable_patterns: tuple[str, ...] = ()
    extra_flags: tuple[str, ...] = ()
    driver: str = "local-task"


VARIANTS: tuple[Variant, ...] = (
    Variant("all", "every lever on (fusion=cost)"),
    Variant("-winograd", "3x3 stride-1 convs never Winograd (im2col or direct)", disable_patterns=("winograd",)),
    Variant("-conv-strategy", "convs kept direct (no im2col, no Winograd)", disable_patterns=("conv-strategy", "winograd")),
    Variant("-pool-taps", "window reductions kept as IREE's pooling code", disable_patterns=("pool-taps",)),
    Variant("-data-tiling", "IREE's data tiling off", extra_flags=("--iree-opt-data-tiling=false",)),
    Variant("-conv-bn", "BatchNorm not folded into the weights", disable_patterns=("conv-bn",)),
    Variant("-our-grouping", "IREE forms the dispatches (fusion=iree; no rewrites, no data tiling)", fusion="iree"),
    Variant("-local-task", "run on local-sync (one thread) instead of local-task", driver="local-sync"),
)


def ablate(path: Path, repeat: int, warmup: int, variants: Sequence[Variant] = VARIANTS,
           target: str = "llvm-cpu", seed: int = 0) -> dict[str, Any]:
    """One record: per variant its median ms, ratio to `all`, max abs error, dispatches (or its error)."""
    import fusion_opt as fo
    from ..backends.runtime import load

    inputs, refs = models.load_inputs(path, seed)
    if refs is None:  # no reference beside the model: onnxruntime's outputs
        refs = runner.as_outputs(models.ort_session(path).run(None, inputs))
    rec: dict[str, Any] = {"model": path.stem, "variants": {}}
    fns: dict[str, Callable[[], Any]] = {}
    for v in variants:
        row: dict[str, Any] = {"what": v.what}
        rec["variants"][v.name] = row
        try:
            m = fo.compile_onnx(str(path), target=target, fusion=v.fusion, extra_flags=v.extra_flags,
                                disable_patterns=v.disable_patterns)
            fn: Callable[..., Any] = load(m.artifact, driver=v.driver)
            args = [inputs[n] for n in m.input_names]
            row["dispatches"] = m.dispatch_count
            if refs is not None:
                row["max_abs_err"] = runner.max_abs_err(runner.as_outputs(fn(*args)), refs)
            fns[v.name] = (lambda fn=fn, args=args: fn(*args))
        except Exception as e:  # noqa: BLE001 - one failing variant must not stop the others
            row["error"] = runner.short_error(e, 200)
    for name, t in runner.measure(fns, repeat, warmup).items():
        rec["variants"][name].update({"ms": round(t["ms"], 3), "stdev_ms": round(t["stdev_ms"], 3)})
    base = rec["variants"].get("all", {}).get("ms")
    for row in rec["variants"].values():
        if base and row.get("ms"):
            row["over_all"] = round(row["ms"] / base, 3)
    return rec


def table(records: Sequence[dict[str, Any]]) -> str:
    names = [v.name for v in VARIANTS if any(v.name in r["variants"] for r in records)]
    lines = [f"{'model':14s}" + "".join(f"{n:>16s}" for n in names)]
    for r in records:
        cells = []
        for n in names:
            row = r["variants"].get(n, {})
            cells.append(f"{row['ms']:9.2f} ({row.get('over_all', math.nan):4.2f})" if "ms" in row else
                         f"{'failed' if 'error' in row else '-':>16s}")
        lines.append(f"{r['model'][:14]:14s}" + "".join(f"{c:>16s}" for c in cells))
    return "\n".join(lines)
