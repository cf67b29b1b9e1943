"""Fusion planners: pure functions from a DataflowGraph (and a target description) to a FusionPlan."""
from __future__ import annotations

from collections.abc import Callable

from ..analysis.opdesc import DataflowGraph
from ..errors import PlanError
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


def plan(graph: DataflowGraph, strategy: str = DEFAULT_STRATEGY, target=None) -> FusionPlan:
    """Plan one function with the named strategy; with a TargetDesc, every group is priced on it.

    "cost" (default) gates greedy's legal merges by predicted time and needs a target (host if None).
    """
    from .costed import annotate, plan_by_cost

    if strategy == "cost":
        if target is None:
            from ..cost import get_target_desc

            target = get_target_desc("host")
        return plan_by_cost(graph, target)
    try:
        planner = STRATEGIES[strategy]
    except KeyError:
        raise UnknownStrategyError(
            f"unknown fusion strategy '{strategy}' (choose from {', '.join(STRATEGY_NAMES)})") from None
    result = planner(graph)
    return annotate(result, graph, target) if target is not None else result


__all__ = ["DEFAULT_STRATEGY", "Decision", "FusionPlan", "Group", "STRATEGIES", "STRATEGY_NAMES",
           "UnknownStrategyError", "plan", "plan_greedy", "plan_iree", "plan_none"]
