"""The "cost" planner: a bounded search over merges, priced by the cost model, never worse than greedy.

Candidates are merges of adjacent groups (vertical edges; through a path, the convex hull of both:
e.g. softmax's exp with both the sum and the divide) checked by the legality table, so it finds the
row-wise multi-reduction groups (LayerNorm, softmax) and multi-output groups greedy's policy refuses.
Merges are taken best predicted gain first (a priority queue, lazily revalidated), from two starts:
the cost-gated greedy plan and singletons. The cheapest plan under the model wins, the greedy-cost
plan included, so the result is never predicted slower than greedy. Each merge is priced once per
pair of group versions: O(E log E) merges and pricing, near-linear in graph size.

Fills (splats) are not searched: each joins its consumer's group, or IREE clones it into several.
Cloning other cheap producers (broadcasts, pads) needs dispatch_regions to copy them into each
region (see the report); until then only fills are duplicated.
"""
from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import replace

from ..analysis.opdesc import DataflowGraph, OpKind
from ..cost import TargetDesc, estimate, group_view, plan_cost
from ..errors import PlanError
from .constraints import NO_CONSTRAINTS, Constraints
from .costed import annotate, fmt_time, plan_by_cost
from .legality import (MATRIX, LEGAL, IndexedGraph, Partition, Verdict, check_group, check_merge, group_root,
                       group_verdict, indexed, is_fill_like, splat_reader)
from .plan import Decision, FusionPlan, Group

EPS = 1e-12
SINGLETON_START_MAX = 2000  # graphs up to this size are also searched from singletons (2x the time)


class Pricer:
    """Memoized time of a group on a target, its fills counted as recomputed copies."""

    def __init__(self, graph: IndexedGraph, target: TargetDesc, fills: frozenset[int]) -> None:
        self.g, self.t, self.fills = graph, target, fills
        self.memo: dict[frozenset[int], float] = {}

    def __call__(self, members: frozenset[int]) -> float:
        t = self.memo.get(members)
        if t is None:
            f = {p for i in members for p in self.g.producers(i) if p in self.fills}
            t = estimate(group_view(self.g, sorted(members | f), duplicated=f), self.t).time_s
            self.memo[members] = t
        return t


def _detached_fills(g: IndexedGraph, c: Constraints) -> frozenset[int]:
    """Fills placed after the search: consumed only by dispatchable ops, not returned, not constrained."""
    pinned = set().union(*c.pins) if c.pins else set()
    return frozenset(op.index for op in g.ops
                     if op.dispatchable and is_fill_like(op) and g.consumers(op.index) and op.index not in g.outputs
                     and op.index not in pinned and op.index not in c.barriers
                     and all(g.ops[x].dispatchable and x not in c.barriers for x in g.consumers(op.index))
                     and all(e.operand >= g.ops[e.consumer].num_dps_inputs and not e.captured  # only accumulator inits
                             for c in g.consumers(op.index) for e in g.in_edges[c] if e.producer == op.index))


class _Search:
    def __init__(self, g: IndexedGraph, pricer: Pricer, c: Constraints, start: Iterable[frozenset[int]],
                 fills: frozenset[int], budget: int | None) -> None:
        self.g, self.price, self.c, self.fills, self.budget = g, pricer, c, fills, budget
        self.part = Partition(g, start)
        # Every searchable op is a node with its own key. Pads are not: pad + conv regions compiled on
        # ResNet-50 but failed llvm-cpu codegen on many Inception-v2 convs (IREE 3.13), so pads stay
        # with IREE, as IREE's own default does.
        for op in g.ops:
            if op.dispatchable and op.index not in fills and op.index not in self.part.gid:
                self.part.members[op.index] = frozenset({op.index})
                self.part.gid[op.index] = op.index
        self.version: dict[int, int] = {}
        self.reasons: dict[tuple[int, int], str] = {}
        self.heap: list[tuple[float, int, int, int, int]] = []

    def neighbours(self, k: int) -> set[int]:
        part, out = self.part, set()
        for i in part.members[k]:
            for j in (*self.g.consumers(i), *self.g.producers(i)):
                kj = part.gid.get(j)
                if kj is not None and kj != k:
                    out.add(kj)
        return out

    def gain(self, a: frozenset[int], b: frozenset[int]) -> tuple[float, float, float]:
        apart, merged = self.price(a) + self.price(b), self.price(a | b)
        return apart - merged, apart, merged

    def push(self, a: int, b: int) -> None:
        ma, mb = self.part.members[a], self.part.members[b]
        if (ma | mb) & self.c.barriers:
            return
        gain = self.gain(ma, mb)[0]
        if gain > EPS:
            a, b = min(a, b), max(a, b)
            heapq.heappush(self.heap, (-gain, a, b, self.version.get(a, 0), self.version.get(b, 0)))

    def hull(self, a: frozenset[int], b: frozenset[int]) -> frozenset[int] | None:
        """a | b plus every group on a path between them, or None when an unplaced op is on one."""
        g, part = self.g, self.part
        lo, hi = min(a | b), max(a | b)
        fwd, stack = set(a | b), list(a | b)
        while stack:
            for c in g.consumers(stack.pop()):
                if c not in fwd and c <= hi and c not in self.fills:
                    fwd.add(c)
                    stack.append(c)
        back, stack = set(a | b), list(a | b)
        while stack:
            for p in g.producers(stack.pop()):
                if p not in back and p >= lo and p not in self.fills:
                    back.add(p)
                    stack.append(p)
        between = fwd & back
        if any(i not in part.gid for i in between):
            return None
        return frozenset().union(*(part.members[part.gid[i]] for i in between))

    def run(self) -> None:
        for k in list(self.part.members):
            for n in self.neighbours(k):
                if n > k:
                    self.push(k, n)
        while self.heap and (self.budget is None or self.budget > 0):
            _, a, b, va, vb = heapq.heappop(self.heap)
            if a not in self.part.members or b not in self.part.members:
                continue
            if self.version.get(a, 0) != va or self.version.get(b, 0) != vb:
                continue
            ma, mb = self.part.members[a], self.part.members[b]
            v = check_merge(self.part, ma, mb)
            union = ma | mb
            if not v and v.rule == "cycle":
                h = self.hull(ma, mb)
                if h is None or h & self.c.barriers or not check_group_in(self.part, h):
                    continue
                union = h
            elif not v:
                continue
            parts = {self.part.gid[i] for i in union}
            apart = sum(self.price(self.part.members[k]) for k in parts)
            merged = self.price(union)
            if merged >= apart - EPS:
                continue
            self.take(parts, union, apart, merged)

    def take(self, parts: set[int], union: frozenset[int], apart: float, merged: float) -> None:
        g, part = self.g, self.part
        nreds = sum(g.ops[i].kind is OpKind.REDUCTION for i in union)
        kind = "multi-reduction" if nreds > 1 else ("hull" if len(parts) > 2 else "vertical")
        why = f"fused ({kind}): predicted {fmt_time(apart)} apart -> {fmt_time(merged)} fused"
        for i in union:
            for c in g.consumers(i):
                if c in union and part.gid[c] != part.gid[i]:
                    self.reasons[(i, c)] = why
        for k in parts:
            del part.members[k]
        k = min(union)
        part.members[k] = union
        part.gid.update((i, k) for i in union)
        self.version[k] = self.version.get(k, 0) + 1
        if self.budget is not None:
            self.budget -= len(parts) - 1
        for n in self.neighbours(k):
            self.push(k, n)


def check_group_in(part: Partition, members: frozenset[int]) -> bool:
    """The rule table and the cycle rule for `members` (whole groups of `part`) merged into one."""
    v = check_merge(part, members, frozenset())
    return bool(v)


def _finish(s: _Search, fills: frozenset[int], target: TargetDesc) -> FusionPlan:
    """Place fills, name groups, and give every edge a reason (fused, illegal rule, or predicted times)."""
    g, part = s.g, s.part
    cloned = []
    for f in sorted(fills):
        ks = {part.gid[c] for c in g.consumers(f)}
        k = next(iter(ks))
        if len(ks) == 1 and group_verdict(g, part.members[k] | {f}):
            part.members[k] = part.members[k] | {f}
            part.gid[f] = k
        elif len(ks) == 1 or splat_reader(g, f) is not None:
            part.members[f] = frozenset({f})
            part.gid[f] = f
        else:
            cloned.append(f)
    for k, ms in list(part.members.items()):  # a pad that found no convolution stays with IREE
        if all(g.ops[i].kind is OpKind.PAD for i in ms):
            del part.members[k]
            for i in ms:
                del part.gid[i]
    groups, order = [], sorted(part.members.values(), key=min)
    for gid, ms in enumerate(order):
        ops = tuple(sorted(ms))
        groups.append(Group(gid, ops, group_root(g, ops), _kind(g, ms),
                            tuple(sorted({s.reasons[(i, c)] for i in ops for c in g.consumers(i) if (i, c) in s.reasons}))))
    decisions, verdicts = [], {}
    for e in sorted({(e.producer, e.consumer) for e in g.edges}):
        p, c = e
        if p in cloned:
            decisions.append(Decision(p, c, True, f"fused: {g.ops[p].name} cloned into each consumer group"))
        elif p in part.gid and c in part.gid and part.gid[p] == part.gid[c]:
            decisions.append(Decision(p, c, True, s.reasons.get(e, "fused: pinned or placed with its consumer")))
        else:
            key = (part.gid.get(p, -1 - p), part.gid.get(c, -1 - c))
            if key not in verdicts:
                verdicts[key] = _why_not(s, part.group(p), part.group(c))
            decisions.append(Decision(p, c, False, verdicts[key]))
    unplaced = tuple(sorted({op.index for op in g.ops if op.index not in part.gid} | set(cloned)))
    return FusionPlan(g.function, "cost", tuple(groups), tuple(decisions), unplaced, tuple(cloned), target.name)


def _why_not(s: _Search, a: frozenset[int], b: frozenset[int]) -> str:
    hit = sorted((a | b) & s.c.barriers)
    if hit:
        return f"refused: barrier: op {hit[0]} is marked no-fuse"
    v: Verdict = check_merge(s.part, a, b) if all(i in s.part.gid for i in a | b) else \
        Verdict(False, "dispatchable", "an op is left to IREE outside every dispatch")
    if not v:
        return v.refusal()
    if s.budget is not None and s.budget <= 0:
        return f"refused: merge cap reached (max_fusions={s.c.max_fusions})"
    gain, apart, merged = s.gain(a, b)
    return f"refused: unprofitable (predicted {fmt_time(apart)} apart -> {fmt_time(merged)} fused)"


def _kind(g: IndexedGraph, ms: frozenset[int]) -> str:
    """`contraction+epilogue`, `reduction+multi-reduction+prologue+epilogue`, `elementwise`, ..."""
    ops = tuple(sorted(ms))
    root = group_root(g, ops)
    rk = g.ops[root].kind
    if rk not in MATRIX | {OpKind.REDUCTION, OpKind.PAD, OpKind.OPAQUE}:
        kinds = {g.ops[i].kind for i in ms}
        return rk.value if len(ms) == 1 else ("injective" if kinds == {OpKind.INJECTIVE} else "elementwise")
    real = [i for i in ops if not is_fill_like(g.ops[i])]
    kind = rk.value
    if sum(g.ops[i].kind is OpKind.REDUCTION for i in ms) > 1:
        kind += "+multi-reduction"
    if any(i < root for i in real):
        kind += "+prologue"
    if any(i > root for i in real):
        kind += "+epilogue"
    escaping = [i for i in ms if i in g.outputs or any(c not in ms for c in g.consumers(i))]
    return kind + ("+multi-output" if len(escaping) > 1 else "")


def plan_search(graph: DataflowGraph, target: TargetDesc, constraints: Constraints = NO_CONSTRAINTS) -> FusionPlan:
    """Best plan under the cost model among the cost-gated greedy plan and two merge searches.

    Bound: graphs over SINGLETON_START_MAX (2,000) ops run only the search that starts from the
    cost-gated greedy plan (the from-scratch restart is skipped); the result is still never predicted
    slower than that plan. Every phase is near-linear in graph size (docs/planner.md, "Scaling").
    """
    g = indexed(graph)
    base = plan_by_cost(g, target, constraints)  # validates pins (PlanError names the rule)
    fills = _detached_fills(g, constraints) if constraints.max_fusions is None else frozenset()
    pricer = Pricer(g, target, fills)
    pins = [frozenset(p) for p in constraints.pins]
    cap = constraints.max_fusions
    starts = [[frozenset(x for x in gr.ops if x not in fills) for gr in base.groups]]
    if len(g.ops) <= SINGLETON_START_MAX:  # small graphs: also search from scratch (escapes greedy's basin)
        starts.append(pins)
    best, best_cost = base, plan_cost(g, base, target)
    for start in starts:
        start = _merge_overlaps([m for m in start if m])
        used = sum(len(m) - 1 for m in start) - sum(len(p) - 1 for p in pins)
        s = _Search(g, pricer, constraints, start, fills, None if cap is None else cap - max(0, used))
        s.run()
        cand = _finish(s, fills, target)
        cost = plan_cost(g, cand, target)
        if cost < best_cost - EPS:
            best, best_cost = cand, cost
    if best is not base:
        best = annotate(best, g, target)
    return replace(best, strategy="cost")


def _merge_overlaps(sets: list[frozenset[int]]) -> list[frozenset[int]]:
    """Union overlapping pins into disjoint groups."""
    out: dict[int, frozenset[int]] = {}  # insertion ordered: a merged set moves to the end
    owner: dict[int, int] = {}
    for n, s in enumerate(sets):
        for k in {owner[x] for x in s if x in owner}:
            s = s | out.pop(k)
        out[n] = s
        owner.update((x, n) for x in s)
    return list(out.values())


__all__ = ["LEGAL", "PlanError", "Pricer", "check_group", "plan_search"]
