"""Named pipeline stages shared by the CLI and the API: describe -> plan -> write dispatch regions."""
from __future__ import annotations

from dataclasses import dataclass

from .analysis.describe import describe_function
from .analysis.opdesc import DataflowGraph
from .fusion import plan as make_plan
from .fusion.plan import FusionPlan
from .ir import functions, ir
from .transforms.dispatch_regions import apply_plan

FUSION_MODES = ("greedy", "iree", "none")


@dataclass
class PlannedFunction:
    """A function's pure description and plan, plus the IR ops the plan's indices refer to."""

    graph: DataflowGraph
    plan: FusionPlan
    func_op: ir.Operation
    ops: list[ir.Operation]


def plan_module(module: ir.Module, fusion: str, source_name: str = "-") -> list[PlannedFunction]:
    """Describe and plan every function of `module` (pure after description; the IR is untouched)."""
    if fusion not in FUSION_MODES:
        raise ValueError(f"unknown fusion mode '{fusion}' (choose from {', '.join(FUSION_MODES)})")
    out = []
    for f in functions(module):
        graph, ops = describe_function(f, source_name)
        out.append(PlannedFunction(graph, make_plan(graph, fusion), f, ops))
    return out


def write_regions(planned: list[PlannedFunction]) -> int:
    """The only IR mutation of the pipeline: one flow.dispatch.region per group. Returns the count."""
    return sum(apply_plan(p.func_op, p.ops, p.plan) for p in planned)
