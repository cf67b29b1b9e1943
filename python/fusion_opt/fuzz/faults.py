"""Fault injection: make the IREE compile of one chosen group fail (or time out) and check the compile
falls back, says so, and still computes the right values.

Why every group of every graph: a fallback must work wherever the failing group sits (first, last, one
feeding several others, one whose ops IREE then fuses differently), so each group is failed in turn,
with each fault kind of fusion_opt.testhooks (FAULT_KINDS): `fail` (reported at the region),
`fail-at-op` (at one of its ops' own location), `timeout`.
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import testhooks
from .differential import compare
from .generate import random_graph

MAX_GROUPS_PER_GRAPH = 3


@dataclass(frozen=True)
class FaultResult:
    seed: int
    group: int
    kind: str
    survived: bool
    detail: str = ""


def inject_and_check(seed: int, group: int, kind: str, mode: str = "cost",
                     target: str = "llvm-cpu") -> FaultResult:
    """Compile graph `seed` with `kind` injected into `group`: survived when that group fell back (and no
    other, unless the fault named an op location other groups share), the report says so, and every
    output is within the float64 reference's bound."""
    import fusion_opt as fo
    from ..backends.runtime import load

    g = random_graph(seed)
    testhooks.inject({group: kind})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fo.FallbackWarning)
            m = fo.compile_mlir(g.function_text(), target=target, fusion=mode)
    except Exception as e:  # noqa: BLE001 - not surviving is the finding
        return FaultResult(seed, group, kind, False, f"compile raised {type(e).__name__}: {e}")
    finally:
        testhooks.inject()
    fell = [f.group for f in m.fallbacks]
    if group not in fell or (kind != "fail-at-op" and fell != [group]):
        return FaultResult(seed, group, kind, False, f"fallbacks {fell}, expected [{group}]")
    # An op's location can name several regions (sibling stacking gives its ops one location): all of
    # them are given back, which is still correct; say so.
    others = [g for g in fell if g != group]
    extra = f"; also gave back {others} (an op location they share)" if others else ""
    if f"fallback: group {group} failed to compile" not in m.report():
        return FaultResult(seed, group, kind, False, "the report does not mention the fallback")
    out = load(m.artifact)(*g.inputs())
    outs = out if isinstance(out, tuple) else (out,)
    for j, (got, ref) in enumerate(zip(outs, g.reference())):
        ok, _, why = compare(np.asarray(got), ref)
        if not ok:
            return FaultResult(seed, group, kind, False, f"output {j}: {why}")
    return FaultResult(seed, group, kind, True, f"{m.dispatch_count} dispatches after the fallback{extra}")


def run_faults(seed: int, count: int, kinds: Sequence[str] = testhooks.FAULT_KINDS, mode: str = "cost",
               target: str = "llvm-cpu", log: Callable[[str], None] = print) -> tuple[list[FaultResult], float]:
    """Faults in up to MAX_GROUPS_PER_GRAPH groups (first, middle, last) of graphs seed..seed+count-1."""
    import fusion_opt as fo

    t0 = time.perf_counter()
    results = []
    for s in range(seed, seed + count):
        plan = fo.compile_mlir(random_graph(s).function_text(), target=target, fusion=mode).plan
        ids = [gr.id for gr in plan.groups]
        chosen = sorted({ids[0], ids[len(ids) // 2], ids[-1]})[:MAX_GROUPS_PER_GRAPH] if ids else []
        for gid in chosen:
            for kind in kinds:
                r = inject_and_check(s, gid, kind, mode, target)
                results.append(r)
                if not r.survived:
                    log(f"  NOT SURVIVED: seed {s} group {gid} {kind}: {r.detail}")
        log(f"[{s - seed + 1}/{count}] {len(results)} faults injected, "
            f"{sum(r.survived for r in results)} survived ({time.perf_counter() - t0:.0f} s)")
    return results, time.perf_counter() - t0
