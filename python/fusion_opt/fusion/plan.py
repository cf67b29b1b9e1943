"""The planner's output: groups of ops that become one dispatch each, with a reason for every decision."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Decision:
    """One merge or refusal between a producer and a consumer (op indices), and why."""

    producer: int
    consumer: int
    fused: bool
    reason: str


@dataclass(frozen=True)
class Group:
    """Ops (indices into the DataflowGraph, program order) placed in one dispatch region."""

    id: int
    ops: tuple[int, ...]
    root: int                 # the op that decides the iteration space (matmul/conv/reduction or last op)
    kind: str                 # "contraction+epilogue", "elementwise", "reduction", ... (root kind + role)
    reasons: tuple[str, ...] = ()
    predicted_s: float | None = None   # cost-model time on the plan's target (None: not priced)
    bound: str | None = None           # the term that bounds it: compute | memory | launch | spill


@dataclass(frozen=True)
class FusionPlan:
    """Plan for one function. Ops in no group (e.g. reshapes) are left to IREE outside any region."""

    function: str
    strategy: str             # "greedy" | "none" | "iree"
    groups: tuple[Group, ...]
    decisions: tuple[Decision, ...] = ()
    unplaced: tuple[int, ...] = field(default_factory=tuple)
    # Cheap splats (linalg.fill) shared by several groups: left outside every region (so also in
    # `unplaced`); IREE clones them into each consumer's dispatch (isClonableIntoDispatchOp).
    cloned: tuple[int, ...] = field(default_factory=tuple)
    target: str | None = None          # the cost model's target the groups were priced on
    notes: tuple[str, ...] = ()        # plan-level decisions, e.g. groups handed back to IREE
    # pattern registry hits: (name, occurrences) -- rewrites: applied; grouping patterns: found
    patterns: tuple[tuple[str, int], ...] = ()

    @property
    def predicted_s(self) -> float | None:
        """Plan cost = sum over groups (None when the plan was not priced)."""
        times = [g.predicted_s for g in self.groups]
        return None if not times or any(t is None for t in times) else sum(times)

    def group_of(self) -> dict[int, int]:
        return {op: g.id for g in self.groups for op in g.ops}


def fmt_time(seconds: float) -> str:
    """A predicted time as people read it in plans: microseconds below 1 ms, else milliseconds; an
    infinite one (a form the target's code cannot run well: never chosen) as "not offered"."""
    if seconds == float("inf"):
        return "not offered"
    return f"{seconds * 1e6:.1f}us" if seconds < 1e-3 else f"{seconds * 1e3:.3f}ms"
