"""One shape for every rewrite the cost model chooses: find sites, price each as it is and rewritten,
apply the winners, note every decision.

Why one shape: conv-strategy, depthwise-taps, sibling-matmuls and attention-op make the same decision
(a site's predicted time unrewritten against rewritten, both priced by the target's cost model) and
must report it the same way (a note per site, taken or not), obey the same `force` switch for
measurements, and tell the pipeline whether the IR changed (the function is then described again).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..analysis.opdesc import DataflowGraph
from ..cost.targets import TargetDesc
from ..fusion.plan import fmt_time
from ..ir import ir

Site = TypeVar("Site")


@dataclass(frozen=True)
class Choice:
    """A site's two predicted times; the rewrite is taken when it is predicted faster."""

    pattern: str     # registry name, first word of the note
    site: str        # where: "op 12 (model.onnx:3:4)"
    kept: str        # the unrewritten form ("direct")
    rewritten: str   # the rewritten form ("im2col + matmul")
    before_s: float
    after_s: float
    margin: float = 1.0  # taken below before_s x margin: < 1 where the rewritten form's pricing is less sure

    @property
    def take(self) -> bool:
        return self.after_s < self.before_s * self.margin

    @property
    def chosen(self) -> tuple[str, float]:
        """The form the cost model takes and its predicted time."""
        return (self.rewritten, self.after_s) if self.take else (self.kept, self.before_s)

    def note(self, force: str | None = None) -> str:
        verdict = self.rewritten if (self.take if force is None else force == "rewrite") else self.kept
        return (f"{self.pattern}: {self.site}: {verdict} (predicted {self.kept} {fmt_time(self.before_s)}, "
                f"{self.rewritten} {fmt_time(self.after_s)})" + ("" if force is None else f" [forced {force}]"))


@dataclass(frozen=True)
class Rewrite(Generic[Site]):
    """A cost-chosen rewrite: `find` its sites, `price` one (pure), `apply` one to the IR in place, and
    `finish` the function once after any change (e.g. reshape propagation)."""

    name: str
    find: Callable[[DataflowGraph, Sequence[ir.Operation], set[int]], list[Site]]
    price: Callable[[DataflowGraph, Site, TargetDesc], Choice]
    apply: Callable[[DataflowGraph, Sequence[ir.Operation], Site], None]
    finish: Callable[[ir.Operation], None] | None = None


@dataclass(frozen=True)
class Outcome:
    notes: tuple[str, ...]  # one per site found, taken or not
    taken: int              # sites rewritten
    changed: bool           # the IR changed: the function's ops are stale

    @property
    def found(self) -> int:
        return len(self.notes)


def run(rw: Rewrite[Any], graph: DataflowGraph, ops: Sequence[ir.Operation], target: TargetDesc,
        skip: set[int] = frozenset(), force: str | None = None) -> Outcome:
    """Price every site of `rw` and apply the winners. `force` ("keep" | "rewrite") overrides the cost
    model (measurements, tests). Sites are found once, before any rewrite: a rewrite must not touch another site's ops."""
    if force not in (None, "keep", "rewrite"):
        raise ValueError(f"force must be 'keep' or 'rewrite', not {force!r}")
    notes, taken = [], 0
    func = func_of(ops[0]) if ops else None
    for site in rw.find(graph, ops, skip):
        c = rw.price(graph, site, target)
        notes.append(c.note(force))
        if c.take if force is None else force == "rewrite":
            rw.apply(graph, ops, site)
            taken += 1
    if taken and rw.finish is not None and func is not None:
        rw.finish(func)
    return Outcome(tuple(notes), taken, taken > 0)


def func_of(op: ir.Operation) -> ir.Operation:
    fn = op
    while fn.name != "func.func":
        fn = fn.parent
    return fn
