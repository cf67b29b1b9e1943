"""Named pipeline stages shared by the CLI and the API: describe -> plan -> write dispatch regions."""
from __future__ import annotations

from dataclasses import dataclass

from .analysis.describe import describe_function
from .analysis.opdesc import DataflowGraph
from .fusion import DEFAULT_STRATEGY, STRATEGY_NAMES
from .fusion import plan as make_plan
from .fusion.plan import FusionPlan
from .ir import functions, ir
from .transforms.dispatch_regions import apply_plan

FUSION_MODES = STRATEGY_NAMES
DEFAULT_FUSION = DEFAULT_STRATEGY


@dataclass
class PlannedFunction:
    """A function's pure description and plan, plus the IR ops the plan's indices refer to."""

    graph: DataflowGraph
    plan: FusionPlan
    func_op: ir.Operation
    ops: list[ir.Operation]


def plan_module(module: ir.Module, fusion: str, source_name: str = "-",
                target: str = "host") -> list[PlannedFunction]:
    """Describe and plan every function of `module` (pure after description; the IR is untouched).

    Groups are priced with the cost model of `target` whatever the strategy, so plans compare.
    """
    from .cost import get_target_desc

    if fusion not in FUSION_MODES:
        raise ValueError(f"unknown fusion mode '{fusion}' (choose from {', '.join(FUSION_MODES)})")
    desc = get_target_desc(target)
    out = []
    for f in functions(module):
        graph, ops = describe_function(f, source_name)
        out.append(PlannedFunction(graph, make_plan(graph, fusion, desc), f, ops))
    return out


def write_regions(planned: list[PlannedFunction]) -> int:
    """The only IR mutation of the pipeline: one flow.dispatch.region per group. Returns the count."""
    return sum(apply_plan(p.func_op, p.ops, p.plan) for p in planned)
