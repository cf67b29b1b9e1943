"""Shrink a failing graph to a minimal reproducer, and save it.

Why graph-level moves rather than text reduction: every candidate stays a valid graph with a float64
reference (a cut node becomes an argument holding its own reference value), so a shrunk graph fails
for the same reason and not because the reduction broke its IR. Moves, biggest first: keep one
output; drop an output; cut a node (everything only it needed goes); bypass a node by one of its
same-shaped inputs. The first candidate that still shows the finding is taken, until none does or
the budget of checks is spent (greedy delta debugging).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from .differential import MODES, Finding
from .graph import Graph
from .ops import Arg

Predicate = Callable[[Graph], bool]


def _size(g: Graph) -> tuple[int, int, int]:
    return g.n_ops(), len(g.nodes), len(g.outputs)


def candidates(g: Graph) -> Iterator[Graph]:
    if len(g.outputs) > 1:
        for o in g.outputs:
            yield g.with_outputs([o])
        for k in range(len(g.outputs)):
            yield g.with_outputs(g.outputs[:k] + g.outputs[k + 1:])
    for i in range(len(g.nodes) - 1, -1, -1):
        n = g.nodes[i]
        if isinstance(n, Arg):
            continue
        yield g.cut(i)
        for by in dict.fromkeys(n.inputs):
            if g.nodes[by].shape == n.shape:
                yield g.bypass(i, by)


def shrink(graph: Graph, fails: Predicate, budget: int = 60) -> tuple[Graph, int]:
    """The smallest graph found that still `fails`, and how many checks it took."""
    best, checks = graph, 0
    progress = True
    while progress and checks < budget:
        progress = False
        for cand in candidates(best):
            if _size(cand) >= _size(best):
                continue
            checks += 1
            if fails(cand):
                best, progress = cand, True
                break
            if checks >= budget:
                break
    return best, checks


def modes_for(finding: Finding) -> list[str]:
    """The modes a check must run to see `finding` again (bitwise compares against fusion=none)."""
    modes = {finding.mode} | ({"none"} if finding.kind == "bitwise" else set())
    return sorted(modes, key=MODES.index)


def isolated_predicate(finding: Finding, target: str = "llvm-cpu", timeout: float = 120.0) -> Predicate:
    """Check candidates in a child process (a crash or hang is then seen, not suffered)."""
    from .worker import run_isolated

    modes = modes_for(finding)

    def fails(g: Graph) -> bool:
        try:
            res = run_isolated([g], [finding.seed], modes, target, timeout)[0]
        except Exception:  # noqa: BLE001 - a candidate whose reference cannot be evaluated is no reproducer
            return False
        return any(f.kind == finding.kind and f.mode == finding.mode for f in res.findings)

    return fails


def save_reproducer(graph: Graph, finding: Finding, out_dir: Path, original_ops: int | None = None) -> Path:
    """`out_dir/seedS-MODE-KIND.mlir` (with the finding and the commands in its header) and the `.npz`
    beside it: the inputs (`arg0`, ...), the float64 reference (`ref0`, ...) and its bounds (`bound0`, ...)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"seed{finding.seed}-{finding.mode}-{finding.kind}"
    path = out_dir / f"{stem}.mlir"
    shrunk = f", shrunk from {original_ops} ops" if original_ops is not None else ""
    header = [f"fusion-bench fuzz reproducer: seed {finding.seed}, {graph.n_ops()} ops{shrunk}",
              f"fusion={finding.mode}: {finding.kind}: {' '.join(finding.detail.split())}",
              f"inputs, float64 reference and bounds: {stem}.npz",
              f"rerun: fusion-opt {path.name} --fusion={finding.mode} --emit=vmfb -o /tmp/r.vmfb",
              *graph.describe()]
    path.write_text(graph.module_text(header=header))
    ref = graph.reference()
    arrays = {f"arg{k}": a for k, a in enumerate(graph.inputs())}
    arrays.update({f"ref{k}": r.v for k, r in enumerate(ref)})
    arrays.update({f"bound{k}": r.e for k, r in enumerate(ref)})
    np.savez(out_dir / f"{stem}.npz", **arrays)
    return path
