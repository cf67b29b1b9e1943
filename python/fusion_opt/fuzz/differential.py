"""Differential testing: each graph compiled and run with each fusion mode, checked against float64.

What is checked, per graph and mode (`fusion="none"` is the unfused baseline, compiled the same way):
- `mismatch`: an output outside the error bound of the float64 reference (fuzz/ops.py) or not finite;
- `bitwise`: an output that depends on no reduction, contraction, convolution or window (fusion cannot
  reorder its arithmetic) differs bitwise from the unfused result;
- `error`: planning, compiling or running raised (a valid graph must compile);
- `crash` / `hang`: the compiling process died or stopped answering (fuzz/worker.py);
- `fallback`: IREE rejected one of our groups and it was left to IREE (the result is still checked;
  the plan had a group IREE cannot compile, which the legality rules should have known).

Why batches: a compile has a fixed cost (~0.4 s: session, IREE pipeline setup, linking) that dominates
for small graphs, so `batch` graphs are compiled as the functions of one module and each function is
run on its own. A batch that raises or falls back is compiled again graph by graph, so a finding is
always attributed to one graph and its reproducer holds one function.
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .graph import Graph
from .ops import Bounded

MODES: tuple[str, ...] = ("none", "greedy", "cost")
# crash / hang: the compiling child process died or stopped answering (fuzz/worker.py)
KINDS: tuple[str, ...] = ("mismatch", "bitwise", "error", "crash", "hang", "fallback")


@dataclass(frozen=True)
class Finding:
    """One problem of one graph under one mode; `reproducer` is the saved .mlir once shrunk."""

    seed: int
    mode: str
    kind: str
    detail: str
    reproducer: str | None = None

    def __str__(self) -> str:
        where = f" -> {self.reproducer}" if self.reproducer else ""
        return f"seed {self.seed} fusion={self.mode}: {self.kind}: {self.detail}{where}"


@dataclass
class Run:
    """Outputs of one graph under one mode, or the error that stopped it."""

    outputs: list[np.ndarray] | None = None
    error: str | None = None
    fallbacks: tuple[str, ...] = ()
    groups: int = 0


@dataclass
class GraphResult:
    seed: int
    n_ops: int
    findings: list[Finding] = field(default_factory=list)
    worst_ratio: float = 0.0       # max |f32 - float64| / bound over outputs and modes (<= 1 passes)
    bitwise_outputs: int = 0       # outputs required (and found) bitwise equal to the unfused run
    groups: dict[str, int] = field(default_factory=dict)


def _function_name(k: int) -> str:
    return f"g{k}"


def compile_and_run(graphs: Sequence[Graph], mode: str, target: str = "llvm-cpu") -> list[Run]:
    """One module holding every graph as a function, compiled once with `mode`; each function run alone."""
    import fusion_opt as fo
    from ..backends.runtime import load

    text = "\n".join(g.function_text(_function_name(k)) for k, g in enumerate(graphs))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fo.FallbackWarning)
            m = fo.compile_mlir(text, target=target, fusion=mode)
    except Exception as e:  # noqa: BLE001 - any failure of a valid graph is a finding
        return [Run(error=f"compile: {_short(e)}") for _ in graphs]
    fallbacks = tuple(_TARGET_ATTR.sub("#hal.executable.target<...>) ...", str(f))[:300] for f in m.fallbacks)
    runs = []
    for k, g in enumerate(graphs):
        try:
            out = load(m.artifact, entry=_function_name(k))(*g.inputs())
            outs = [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]
            runs.append(Run(outs, None, fallbacks, len(m.plans[k].groups)))
        except Exception as e:  # noqa: BLE001
            runs.append(Run(error=f"run: {_short(e)}", fallbacks=fallbacks))
    return runs


_TARGET_ATTR = re.compile(r"#hal\.executable\.target<.*")


def _short(e: BaseException) -> str:
    """One line; IREE's codegen errors print the whole target attribute, which says nothing here."""
    msg = _TARGET_ATTR.sub("#hal.executable.target<...>", " ".join(str(e).split()))
    return f"{type(e).__name__}: {msg[:400]}"


def run_modes(graphs: Sequence[Graph], modes: Sequence[str], target: str = "llvm-cpu") -> list[dict[str, Run]]:
    """Every graph under every mode; batches that raise or fall back are redone graph by graph."""
    results: list[dict[str, Run]] = [{} for _ in graphs]
    for mode in modes:
        runs = compile_and_run(graphs, mode, target)
        if len(graphs) > 1 and any(r.error or r.fallbacks for r in runs):
            runs = [compile_and_run([g], mode, target)[0] for g in graphs]
        for res, r in zip(results, runs):
            res[mode] = r
    return results


def compare(got: np.ndarray, ref: Bounded) -> tuple[bool, float, str]:
    """(within bound, worst |got - ref| / bound, what differs)."""
    if got.shape != ref.v.shape:
        return False, float("inf"), f"shape {got.shape}, expected {ref.v.shape}"
    g = got.astype(np.float64)
    if not np.all(np.isfinite(g)):
        return False, float("inf"), f"{int(np.sum(~np.isfinite(g)))} non-finite values"
    err = np.abs(g - ref.v)
    bound = ref.e + 1e-30
    ratio = err / bound
    k = int(np.argmax(ratio)) if ratio.size else 0
    worst = float(ratio.flat[k]) if ratio.size else 0.0
    if worst <= 1.0:
        return True, worst, ""
    idx = np.unravel_index(k, ref.v.shape) if ref.v.ndim else ()
    bad = int(np.sum(ratio > 1.0))
    return False, worst, (f"{bad}/{ratio.size} elements outside the bound; worst at {tuple(map(int, idx))}: "
                          f"got {g.flat[k]:.7g}, float64 {ref.v.flat[k]:.7g}, bound {ref.e.flat[k]:.3g}")


def check(graph: Graph, runs: dict[str, Run], seed: int) -> GraphResult:
    """Findings of one graph from its runs (the reference is computed here)."""
    res = GraphResult(seed, graph.n_ops(), groups={m: r.groups for m, r in runs.items()})
    ref = graph.reference()
    heavy = graph.heavy_upstream()
    base = runs.get("none")
    for mode, run in runs.items():
        if run.fallbacks:
            res.findings.append(Finding(seed, mode, "fallback", "; ".join(run.fallbacks)))
        if run.error is not None or run.outputs is None:
            res.findings.append(Finding(seed, mode, "error", run.error or "no outputs"))
            continue
        if len(run.outputs) != len(ref):
            res.findings.append(Finding(seed, mode, "error", f"{len(run.outputs)} outputs, expected {len(ref)}"))
            continue
        for j, (got, r) in enumerate(zip(run.outputs, ref)):
            ok, worst, why = compare(got, r)
            res.worst_ratio = max(res.worst_ratio, worst)
            if not ok:
                res.findings.append(Finding(seed, mode, "mismatch", f"output {j}: {why}"))
            elif mode != "none" and not heavy[j] and base is not None and base.outputs is not None:
                same = np.array_equal(got.view(np.uint32), base.outputs[j].view(np.uint32))
                if same:
                    res.bitwise_outputs += 1
                else:
                    diff = int(np.sum(got.view(np.uint32) != base.outputs[j].view(np.uint32)))
                    res.findings.append(Finding(seed, mode, "bitwise",
                                                f"output {j}: {diff} elements differ bitwise from fusion=none"))
    return res


def check_graphs(graphs: Sequence[Graph], seeds: Sequence[int], modes: Sequence[str] = MODES,
                 target: str = "llvm-cpu") -> list[GraphResult]:
    runs = run_modes(graphs, modes, target)
    return [check(g, r, s) for g, r, s in zip(graphs, runs, seeds)]
