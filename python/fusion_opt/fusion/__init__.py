"""Fusion planners: pure functions from a DataflowGraph (and a target description) to a FusionPlan."""
from __future__ import annotations

from collections.abc import Callable

from ..analysis.opdesc import DataflowGraph
from ..errors import PlanError
from .constraints import Constraints
from .greedy import plan_greedy
from .plan import Decision, FusionPlan, Group
from .trivial import plan_iree, plan_none

# Planners that need no cost model; "cost" is added in `plan` because it needs the target.
STRATEGIES: dict[str, Callable[[DataflowGraph], FusionPlan]] = {
    "greedy": plan_greedy,
    "none": plan_none,
    "iree": plan_iree,
}
STRATEGY_NAMES = ("cost", *STRATEGIES)
DEFAULT_STRATEGY = "cost"


class UnknownStrategyError(PlanError, ValueError):
    """A strategy name no planner answers to (a ValueError too, for API callers)."""


# The rules of fusion/handoff.py the other strategies take after planning (`cost` takes them all): those
# that keep IREE 3.13 from failing, not the ones that only gain speed. `lone-fill`: two equal zero-fill
# regions, each a matmul's init, were accumulated into one buffer (fuzz seed 29632, `none`); `constant`:
# a region of splat arithmetic, folded by IREE into returned splats, failed to compile ("'vector.store' op
# write affecting operations on global resources", seeds 22255 and 25794, `greedy`).
STRATEGY_HANDOFFS: dict[str, tuple[str, ...]] = {"none": ("lone-fill",), "greedy": ("constant", "lone-fill")}


def plan(graph: DataflowGraph, strategy: str = DEFAULT_STRATEGY, target=None,
         constraints: Constraints | None = None, split_epilogues: bool = True) -> FusionPlan:
    """Plan one function with the named strategy; with a TargetDesc, every group is priced on it.

    "cost" (default): the search planner (fusion/search.py), never predicted slower than greedy with
    its merges gated by the cost model; needs a target (host if None). Its groups are then post-processed:
    contraction epilogues whose result is padded for a conv are handed to IREE where the cost model says
    so (`split_epilogues`, fusion/epilogue_split.py; part of pattern `pad-conv`), and groups better left to
    IREE are handed back (fusion/handoff.py). "none" and "greedy" take the hand-off rules of
    `STRATEGY_HANDOFFS` only (and "greedy" on SPIR-V `spirv-outer-reduction`).
    `constraints`: pins, barriers and a merge cap (see fusion/constraints.py) the plan obeys.
    """
    from .costed import annotate
    from .search import plan_search

    if constraints is not None and not constraints.empty:
        from .control import obey, takes_constraints

        if not takes_constraints(plan_search if strategy == "cost" else STRATEGIES.get(strategy)):
            # stop-gap for a planner that does not take constraints yet: plan, then rebuild to obey
            return obey(plan(graph, strategy, target), graph, constraints, target)
        kw = {"constraints": constraints}
    else:
        kw = {}
    if strategy == "cost":
        if target is None:
            from ..cost import get_target_desc

            target = get_target_desc("host")
        from .epilogue_split import split_padded_epilogues
        from .handoff import hand_padded_groups_to_iree

        found = plan_search(graph, target, **kw)
        if split_epilogues and (constraints is None or constraints.max_fusions is None):  # not while bisecting
            found = split_padded_epilogues(found, graph, target, constraints)
        return hand_padded_groups_to_iree(found, graph, constraints, target.data_tiling, target.packed_cols,
                                          spirv=target.spirv)
    try:
        planner = STRATEGIES[strategy]
    except KeyError:
        raise UnknownStrategyError(
            f"unknown fusion strategy '{strategy}' (choose from {', '.join(STRATEGY_NAMES)})") from None
    result = planner(graph, **kw)
    only = STRATEGY_HANDOFFS.get(strategy, ())
    spirv = target is not None and target.spirv and strategy == "greedy"  # the miscompile of handoff.py
    if only or spirv:
        from .handoff import hand_padded_groups_to_iree

        result = hand_padded_groups_to_iree(result, graph, constraints, only=only, spirv=spirv)
    return annotate(result, graph, target) if target is not None else result


__all__ = ["DEFAULT_STRATEGY", "Decision", "FusionPlan", "Group", "STRATEGIES", "STRATEGY_NAMES",
           "UnknownStrategyError", "plan", "plan_greedy", "plan_iree", "plan_none"]
