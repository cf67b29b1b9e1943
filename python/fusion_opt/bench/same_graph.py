"""How many dispatches IREE's own formation makes of the module our `cost` plan compiles.

Why: our rewrites change the graph (a conv becomes a window copy plus a matmul), so comparing our
dispatch count with IREE's default on the original graph mixes two things: what the rewrite adds and
how well the planner groups. IREE's formation on the same rewritten module, with the same data tiling
flag, isolates the planner: fusion-bench records it as `dispatches_iree_same_graph`.
"""
from __future__ import annotations

from pathlib import Path


def iree_dispatches_on_our_graph(path: Path, target: str = "llvm-cpu", layout: str = "auto") -> int:
    """Flow dispatches of IREE's formation on `path` after our `cost` mode's rewrites (no regions), with
    the conv `layout` the compile used."""
    from ..api import new_session
    from ..backends.compile import count_dispatches
    from ..backends.levers import module_flags
    from ..importers import import_onnx
    from ..fusion.control import ControlSpec
    from ..pipelines import plan_module

    session = new_session()
    module, _ = import_onnx(str(path), session.context, None, source_name=path.name)
    planned = plan_module(module, "cost", path.name, target, control=ControlSpec(layout=layout))
    flags = module_flags((p.graph for p in planned), "cost", target)
    return count_dispatches(module, session, target, flags, source_name=path.name)
