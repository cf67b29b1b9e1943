"""Groups better left to IREE: those whose result is padded for a convolution.

IREE's own dispatch formation writes a producer's result straight into the padded buffer (a splat
plus an in-place dispatch), so the pad costs nothing. A region of ours that ends before the pad
costs an extra copy dispatch per pad (ResNet-50: 17), and a region that includes the pad computes
wrong values in IREE 3.13 (max error 90 on a relu + pad + conv test, verified). So such a group is
handed back to IREE, with the reason in the plan.
"""
from __future__ import annotations

from dataclasses import replace

from ..analysis.opdesc import DataflowGraph, OpKind
from .constraints import Constraints
from .plan import FusionPlan

REASON = ("left to IREE: its result is padded, and IREE writes a producer straight into the padded buffer "
          "(a region ending at a pad costs a copy dispatch; one holding the pad miscompiles in IREE 3.13)")


def hand_padded_groups_to_iree(plan: FusionPlan, graph: DataflowGraph,
                               constraints: Constraints | None = None) -> FusionPlan:
    """Drop every group with a member consumed by a `tensor.pad`; its ops go to `unplaced`."""
    pinned = set().union(*constraints.pins) if constraints is not None and constraints.pins else set()
    keep, handed = [], []
    for g in plan.groups:
        padded = any(graph.ops[c].kind is OpKind.PAD for i in g.ops for c in graph.consumers(i))
        (handed if padded and not pinned & set(g.ops) else keep).append(g)
    if not handed:
        return plan
    groups = tuple(replace(g, id=k) for k, g in enumerate(keep))
    unplaced = tuple(sorted({*plan.unplaced, *(i for g in handed for i in g.ops)}))
    notes = plan.notes + tuple(f"ops {', '.join(map(str, g.ops))} ({g.kind}): {REASON}" for g in handed)
    return replace(plan, groups=groups, unplaced=unplaced, notes=notes)
