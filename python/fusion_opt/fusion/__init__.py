"""Fusion planners: pure functions from a DataflowGraph to a FusionPlan."""
from __future__ import annotations

from collections.abc import Callable

from ..analysis.opdesc import DataflowGraph
from ..errors import PlanError
from .greedy import plan_greedy
from .plan import Decision, FusionPlan, Group
from .trivial import plan_iree, plan_none

STRATEGIES: dict[str, Callable[[DataflowGraph], FusionPlan]] = {
    "greedy": plan_greedy,
    "none": plan_none,
    "iree": plan_iree,
}


class UnknownStrategyError(PlanError, ValueError):
    """A strategy name no planner answers to (a ValueError too, for API callers)."""


def plan(graph: DataflowGraph, strategy: str = "greedy") -> FusionPlan:
    """Plan one function with the named strategy ("greedy" | "none" | "iree")."""
    try:
        planner = STRATEGIES[strategy]
    except KeyError:
        raise UnknownStrategyError(f"unknown fusion strategy '{strategy}' (choose from {', '.join(STRATEGIES)})") from None
    return planner(graph)


__all__ = ["Decision", "FusionPlan", "Group", "STRATEGIES", "UnknownStrategyError", "plan", "plan_greedy", "plan_iree", "plan_none"]
