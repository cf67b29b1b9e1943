"""Baseline plans: no fusion at all, and "let IREE decide" (no regions written)."""
from __future__ import annotations

from ..analysis.opdesc import DataflowGraph
from .plan import Decision, FusionPlan, Group


def plan_none(graph: DataflowGraph) -> FusionPlan:
    """One group per dispatchable op: the unfused reference for differential tests and benchmarks."""
    placed = [op for op in graph.ops if op.dispatchable]
    groups = tuple(Group(gid, (op.index,), op.index, op.kind.value, ("strategy 'none': one dispatch per op",))
                   for gid, op in enumerate(placed))
    decisions = tuple(sorted({Decision(e.producer, e.consumer, False, "refused: strategy 'none' fuses nothing")
                              for e in graph.edges}, key=lambda d: (d.producer, d.consumer)))
    unplaced = tuple(op.index for op in graph.ops if not op.dispatchable)
    return FusionPlan(graph.function, "none", groups, decisions, unplaced)


def plan_iree(graph: DataflowGraph) -> FusionPlan:
    """No groups: IREE's own dispatch formation decides (the baseline we compare against)."""
    return FusionPlan(graph.function, "iree", (), (), tuple(op.index for op in graph.ops))
