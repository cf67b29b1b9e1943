"""The cost-driven planner: greedy's legality, but a merge is taken only when predicted time drops.

Every decision records the predicted time of the two groups apart and merged, on the named target,
so `--emit=plan` shows why a legal fusion was declined (e.g. the merged group spills registers, or
loses parallelism) as well as why an illegal one was refused.
"""
from __future__ import annotations

from dataclasses import replace

from ..analysis.opdesc import DataflowGraph
from ..cost import TargetDesc, estimate, group_view
from .constraints import NO_CONSTRAINTS, Constraints
from .greedy import plan_greedy
from .legality import indexed
from .plan import FusionPlan, fmt_time


class GroupPricer:
    """Memoized estimate(group) for one graph and target (the planner asks about the same sets often)."""

    def __init__(self, graph: DataflowGraph, target: TargetDesc) -> None:
        self.graph, self.target = indexed(graph), target
        self._memo: dict[frozenset[int], float] = {}

    def __call__(self, members: frozenset[int]) -> float:
        t = self._memo.get(members)
        if t is None:
            t = self._memo[members] = estimate(group_view(self.graph, sorted(members)), self.target).time_s
        return t

    def gate(self, a: frozenset[int], b: frozenset[int]) -> tuple[bool, str]:
        apart, merged = self(a) + self(b), self(a | b)
        return merged < apart, f"(predicted {fmt_time(apart)} apart -> {fmt_time(merged)} fused)"


def annotate(plan: FusionPlan, graph: DataflowGraph, target: TargetDesc) -> FusionPlan:
    """Price every group of `plan` on `target` (any strategy's plan; used for reports and comparison)."""
    groups, graph, cloned = [], indexed(graph), frozenset(plan.cloned)
    for g in plan.groups:
        c = estimate(group_view(graph, g.ops, duplicated=[i for i in g.ops if i in cloned]), target)
        groups.append(replace(g, predicted_s=c.time_s, bound=c.bound))
    return replace(plan, groups=tuple(groups), target=target.name)


def plan_by_cost(graph: DataflowGraph, target: TargetDesc, constraints: Constraints = NO_CONSTRAINTS) -> FusionPlan:
    """Greedy order and legality; merges gated by the cost model on `target`. The baseline (and
    fallback) of the search planner (`fusion/search.py`), which is what strategy "cost" runs."""
    graph = indexed(graph)
    pricer = GroupPricer(graph, target)
    return annotate(plan_greedy(graph, gate=pricer.gate, strategy="cost", constraints=constraints), graph, target)
