"""Named pipeline stages shared by the CLI and the API: describe -> plan -> write dispatch regions."""
from __future__ import annotations

from dataclasses import dataclass, replace

from .analysis.describe import describe_function
from .analysis.opdesc import DataflowGraph
from .errors import InputError, PlanError
from .fusion import DEFAULT_STRATEGY, STRATEGY_NAMES
from .fusion import plan as make_plan
from .fusion.control import ControlSpec, violations
from .fusion.plan import FusionPlan
from .ir import functions, ir
from .rewrites.siblings import stack_siblings
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


def plan_module(module: ir.Module, fusion: str, source_name: str = "-", target: str = "host",
                control: ControlSpec | None = None) -> list[PlannedFunction]:
    """Describe and plan every function of `module`. The IR is untouched except by the `cost`
    strategy's horizontal stacking of sibling matmuls (rewrites/siblings.py), taken only where the
    cost model predicts a gain and never on pinned, barred or --max-fusions runs; every set found is
    reported in the plan's notes, taken or not.

    Groups are priced with the cost model of `target` whatever the strategy, so plans compare.
    `control` carries the user's pins, barriers and merge cap; IR marks (`fusion_opt.fuse = "tag"`,
    `fusion_opt.no_fuse`) are read here whether or not it is given. The caller checks
    `control.check_matched()` once every module of the input was planned.
    """
    from .cost import get_target_desc

    if fusion not in FUSION_MODES:
        raise ValueError(f"unknown fusion mode '{fusion}' (choose from {', '.join(FUSION_MODES)})")
    desc = get_target_desc(target)
    control = control or ControlSpec()
    out = []
    for f in functions(module):
        graph, ops = describe_function(f, source_name)
        tags, barriers = read_marks(ops, graph)
        constraints = control.resolve(graph, tags, barriers)
        rewrites: list[str] = []
        if fusion == "cost" and constraints.max_fusions is None:
            rewrites, changed = stack_siblings(graph, ops, desc, set(constraints.barriers).union(*constraints.pins))
            if changed:  # op indices moved: describe and resolve the user's matchers again
                graph, ops = describe_function(f, source_name)
                tags, barriers = read_marks(ops, graph)
                constraints = control.resolve(graph, tags, barriers)
        if fusion == "iree" and (constraints.pins or constraints.barriers):
            raise InputError("fusion pins and barriers need one of our planners, not --fusion=iree "
                             "(IREE forms its own dispatches)")
        result = make_plan(graph, fusion, desc, constraints=constraints)
        broken = violations(result, constraints)
        if broken:
            raise PlanError(f"internal error: planner '{fusion}' did not obey the constraints on "
                            f"@{graph.function}: {'; '.join(broken)}")
        if rewrites:
            result = replace(result, notes=tuple(rewrites) + result.notes)
        out.append(PlannedFunction(graph, result, f, ops))
    return out


FUSE_ATTR, NO_FUSE_ATTR = "fusion_opt.fuse", "fusion_opt.no_fuse"


def read_marks(ops: list[ir.Operation], graph: DataflowGraph) -> tuple[dict[int, str], set[int]]:
    """IR pins and barriers: op index -> `fusion_opt.fuse` tag, and the ops with `fusion_opt.no_fuse`."""
    tags: dict[int, str] = {}
    barriers: set[int] = set()
    for i, op in enumerate(ops):
        attrs = op.attributes
        if FUSE_ATTR in attrs:
            a = attrs[FUSE_ATTR]
            if not isinstance(a, ir.StringAttr):
                raise InputError(f'{FUSE_ATTR} must be a string tag (ops sharing a tag are fused), got {a}',
                                 graph.ops[i].loc)
            tags[i] = a.value
        if NO_FUSE_ATTR in attrs:
            barriers.add(i)
    return tags, barriers


def write_regions(planned: list[PlannedFunction]) -> int:
    """The only IR mutation of the pipeline: one flow.dispatch.region per group. Returns the count."""
    return sum(apply_plan(p.func_op, p.ops, p.plan) for p in planned)
