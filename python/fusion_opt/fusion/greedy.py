"""XLA-style greedy fusion: visit producers consumers-first and merge each into its consumers' group.

Pure: reads only OpDesc data. A group holds at most one heavy op (contraction, convolution,
reduction, pad, opaque), its root; light ops (elementwise, broadcast, injective, fill) sit before it
as a prologue or after it as an epilogue. Each rule below returns a one-line reason, kept as a
Decision for every producer -> consumer edge, so a user can ask why two ops were (not) fused.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..analysis.classify import HEAVY, LIGHT
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, describe
from ..errors import PlanError
from .constraints import NO_CONSTRAINTS, Constraints
from .legality import (Partition, check_group, group_root, group_verdict, indexed, is_fill_like, numel,
                       splat_reader)
from .plan import Decision, FusionPlan, Group

# Heavy kinds that can take an epilogue (and so "claim" the light chain that follows them).
ANCHORS = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION, OpKind.REDUCTION})
MATMUL_LIKE = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION})


def out_numel(op: OpDesc) -> int:
    return numel(op.result_shapes[0]) if op.result_shapes else 0


class _State:
    """Union of ops into groups, plus the heavy op each group is committed to ("anchor")."""

    def __init__(self, graph: DataflowGraph) -> None:
        self.g = graph = indexed(graph)
        self.ops = graph.ops
        self.cons = {i: set(graph.consumers(i)) for i in range(len(graph.ops))}
        self.prods = {i: set(graph.producers(i)) for i in range(len(graph.ops))}
        self.in_edges = graph.in_edges
        self.gid = {op.index: op.index for op in graph.ops if op.dispatchable}
        self.members = {i: {i} for i in self.gid}
        self.root = {i: (i if self.ops[i].kind in HEAVY else None) for i in self.gid}
        self.anchor = {i: (i if self.ops[i].kind in ANCHORS else None) for i in self.gid}
        self.anchors = self._anchors()
        self.lo = {i: i for i in self.gid}

    def _anchors(self) -> dict[int, frozenset[int]]:
        """Heavy ops a light op could be an epilogue of: reached through single-consumer light ops
        iterating over the heavy op's output space. Such an op is kept for that epilogue rather than
        taken as a prologue by another heavy op's group (both save one tensor; this keeps each conv
        with its own BatchNorm)."""
        out: dict[int, frozenset[int]] = {}
        for op in self.ops:  # program order: producers first
            found: set[int] = set()
            if op.kind in LIGHT and op.dispatchable:
                for q in self.prods[op.index]:
                    qd = self.ops[q]
                    if self.cons[q] != {op.index} or not qd.dispatchable:
                        continue
                    if qd.kind in ANCHORS and out_numel(qd) == numel(op.loop_ranges):
                        found.add(q)
                    elif qd.kind in LIGHT and numel(qd.loop_ranges) == numel(op.loop_ranges):
                        found |= out.get(q, frozenset())
            out[op.index] = frozenset(found)
        return out

    def downstream(self, sources: set[int], within: set[int]) -> set[int]:
        """Ops of `within` reachable from `sources` through edges inside `within`."""
        seen, stack = set(), list(sources)
        while stack:
            for c in self.cons[stack.pop()]:
                if c in within and c not in seen:
                    seen.add(c)
                    stack.append(c)
        return seen

    def node(self, op: int) -> tuple[str, int]:
        """A node of the group graph: an op's group, or the op itself when it is in none."""
        return ("g", self.gid[op]) if op in self.gid else ("o", op)

    def cycle_via(self, a: int, b: int) -> int | None:
        """First op outside groups a and b on a group-graph path between them, or None.

        Merging a and b is illegal when such a path exists: the merged group would both feed and
        consume that outside node (two dispatches waiting on each other).
        """
        for src, dst in ((a, b), (b, a)):
            ends, hi = {("g", a), ("g", b)}, max(self.members[dst])
            seen: set[tuple[str, int]] = set()
            stack: list[tuple[tuple[str, int], int]] = []
            for m in self.members[src]:
                for c in self.cons[m]:
                    n = self.node(c)
                    if n not in ends and n not in seen:
                        seen.add(n)
                        stack.append((n, c))
            while stack:
                (kind, key), via = stack.pop()
                for m in (self.members[key] if kind == "g" else {key}):
                    for c in self.cons[m]:
                        n = self.node(c)
                        if n == ("g", dst):
                            return via
                        # program order is topological: a node starting after dst's last op can't reach it
                        if n not in ends and n not in seen and self.first(n) < hi:
                            seen.add(n)
                            stack.append((n, via))
        return None

    def first(self, n: tuple[str, int]) -> int:
        return self.lo[n[1]] if n[0] == "g" else n[1]

    def merge(self, a: int, b: int) -> None:
        keep, gone = (a, b) if len(self.members[a]) >= len(self.members[b]) else (b, a)
        for m in self.members[gone]:
            self.gid[m] = keep
        self.members[keep] |= self.members.pop(gone)
        self.lo[keep] = min(self.lo[keep], self.lo.pop(gone))
        self.root[keep] = self.root[keep] if self.root[keep] is not None else self.root.pop(gone)
        self.root.pop(gone, None)
        self.anchor[keep] = self.anchor[keep] if self.anchor[keep] is not None else self.anchor[gone]
        self.anchor.pop(gone, None)


def _check(st: _State, p: int, g: int) -> tuple[bool, str]:
    """Greedy's policy, then the legality table (fusion/legality.py) on the merged set."""
    ok, reason = _policy(st, p, g)
    if ok:
        v = group_verdict(st.g, frozenset(st.members[st.gid[p]] | st.members[g]))
        if not v:
            return False, v.refusal()
    return ok, reason


def _policy(st: _State, p: int, g: int) -> tuple[bool, str]:
    """Greedy's rules for merging producer p's group into group g, first failing rule wins: one heavy
    root per group, epilogues over the root's space, BatchNorm kept with its own conv."""
    ops, a = st.ops, st.gid[p]
    pd = ops[p]
    ra, rg = st.root[a], st.root[g]
    if ra is not None and rg is not None:
        return False, f"refused: both are heavy roots ({ops[ra].kind.value}, {ops[rg].kind.value})"
    for r in (ra, rg):
        if r is not None and ops[r].kind not in ANCHORS:
            return False, f"refused: {ops[r].kind.value} op {r} ({ops[r].name}) is kept in a dispatch of its own"
    if ra is not None:  # p's group becomes the root, g its epilogue
        size = out_numel(ops[ra])
        for q in sorted(st.downstream(st.members[a], st.members[g])):
            if numel(ops[q].loop_ranges) != size:
                what = ("broadcasts the reduction result over the reduced dims"
                        if ops[ra].kind is OpKind.REDUCTION else "iterates over a different space than the root")
                return False, f"refused: epilogue {describe(ops[q])} {what}"
        chk = st.cycle_via(a, g)
        if chk is not None:
            return False, f"refused: would create a cycle via {describe(ops[chk])}"
        return True, f"fused: {pd.kind.value} root takes its {'/'.join(_kinds(st, g))} epilogue"
    # p's group is light: a prologue of g (or part of a light chain).
    into_root = [e for e in st.in_edges[rg] if e.producer == p] if rg is not None else []
    if into_root and ops[rg].kind in MATMUL_LIKE:
        init_only = all(e.operand >= ops[rg].num_dps_inputs and not e.captured for e in into_root)
        if not (init_only and is_fill_like(pd)):
            return False, (f"refused: prologue into a {ops[rg].kind.value} input "
                           "(only a fill of its init is fused)")
    anchors, ga = st.anchors.get(p, frozenset()), st.anchor[g]
    if anchors and ga is not None and ga not in anchors:
        h = min(anchors)
        return False, f"refused: kept for the epilogue of its own {ops[h].kind.value} {describe(ops[h])}"
    if anchors and ga is None and len(anchors) == 1:
        h = next(iter(anchors))
        for q in sorted(st.downstream({p}, st.members[g])):
            if numel(ops[q].loop_ranges) != out_numel(ops[h]):
                return False, (f"refused: kept for the epilogue of {ops[h].kind.value} {describe(ops[h])}; "
                               f"consumer op {q} iterates over a different space")
    chk = st.cycle_via(a, g)
    if chk is not None:
        return False, f"refused: would create a cycle via {describe(ops[chk])}"
    if rg is not None and into_root:
        role = "fill into the init of" if ops[rg].kind in MATMUL_LIKE else f"{pd.kind.value} prologue into"
        return True, f"fused: {role} {ops[rg].kind.value} root"
    where = f"{ops[rg].kind.value} group" if rg is not None else "chain"
    return True, f"fused: {pd.kind.value} producer into {'/'.join(_kinds(st, g))} {where}"


def _kinds(st: _State, g: int) -> list[str]:
    return sorted({st.ops[m].kind.value for m in st.members[g] if st.ops[m].kind in LIGHT}) or ["light"]


# A profitability gate: (members of the producer's group, members of the consumer's group) ->
# (take the merge?, text appended to the decision's reason). Legality is decided before it is asked.
Gate = Callable[[frozenset[int], frozenset[int]], tuple[bool, str]]


def apply_pins(st: _State, constraints: Constraints) -> None:
    """Merge each pin's ops into one group before planning; an illegal pin is a PlanError naming the rule."""
    for pin in constraints.pins:
        bad = sorted(pin & constraints.barriers)
        if bad:
            raise PlanError(f"pin {sorted(pin)} contains op {bad[0]}, which is also marked no-fuse")
        missing = sorted(i for i in pin if i not in st.gid)
        if missing and not all(st.ops[i].name == "tensor.pad" for i in missing):
            raise PlanError(f"illegal pin {sorted(pin)}: [dispatchable] op {missing[0]} "
                            f"({st.ops[missing[0]].name}) is left to IREE outside every dispatch")
        for i in missing:  # a pad pinned with its conv: placed like any op
            st.gid[i], st.members[i], st.lo[i] = i, {i}, i
            st.root[i], st.anchor[i] = i, None
        v = check_group(st.g, pin)
        if not v:
            raise PlanError(f"illegal pin {sorted(pin)}: [{v.rule}] {v.reason}")
        first = min(pin)
        for i in sorted(pin):
            if st.gid[i] != st.gid[first]:
                st.merge(st.gid[i], st.gid[first])
    if constraints.pins:  # pins are legal alone; together they must still leave the group graph acyclic
        part = Partition(st.g, (ms for ms in st.members.values() if len(ms) > 1))
        for k, ms in st.members.items():
            via = part.cycle_via(frozenset(ms)) if len(ms) > 1 else None
            if via is not None:
                raise PlanError(f"illegal pins: [cycle] pinned group {sorted(ms)} and others form a cycle "
                                f"via op {via} ({st.ops[via].name})")


# Greedy grows a group by one producer per merge and checks and prices the whole group each time:
# O(group size) per merge, so one group of n ops costs O(n^2) (a 2,000-op elementwise chain: 21 s).
# Past this size it stops (TVM's FuseOps bounds its groups the same way, max_fuse_depth = 256); the
# cost planner's search, whose merges pair groups best gain first, joins such groups further.
MAX_GROUP_OPS = 256


def plan_greedy(graph: DataflowGraph, gate: Gate | None = None, strategy: str = "greedy",
                constraints: Constraints = NO_CONSTRAINTS) -> FusionPlan:
    """Greedy producer-into-consumer fusion; every dispatchable op ends in exactly one group, except
    fills shared by several groups, which IREE clones into each of them (`FusionPlan.cloned`).

    With a `gate` (the cost planner's), a legal merge is taken only when the gate accepts it.
    `constraints`: pins are merged first (PlanError when illegal), barrier ops are never merged, and
    at most `max_fusions` merges (fill clones included; pins not) are taken."""
    st, ops = _State(graph), graph.ops
    apply_pins(st, constraints)
    barriers, cap = constraints.barriers, constraints.max_fusions
    decisions: list[Decision] = []
    cloned: list[int] = []
    fusions = 0

    def blocked(p: int, gids: Iterable[int]) -> str | None:
        groups = [st.members[st.gid[p]]] + [st.members[k] for k in gids]
        hit = sorted({i for m in groups for i in m if i in barriers})
        if hit:
            return f"refused: barrier: op {hit[0]} is marked no-fuse"
        if cap is not None and fusions >= cap:
            return f"refused: merge cap reached (max_fusions={cap})"
        size = sum(len(m) for m in groups)
        if size > MAX_GROUP_OPS:
            return f"refused: the group would have {size} ops (greedy grows one to {MAX_GROUP_OPS} at most)"
        return None

    def decide(p: int, cs: Iterable[int], fused: bool, reason: str) -> None:
        decisions.extend(Decision(p, c, fused, reason) for c in sorted(cs))

    for p in reversed(range(len(ops))):
        cs = st.cons[p]
        if not cs:
            continue
        if not ops[p].dispatchable:
            decide(p, cs, False, f"refused: {ops[p].name} is not dispatchable (left to IREE)")
            continue
        outside = sorted(c for c in cs if not ops[c].dispatchable and c not in st.gid)
        if outside:
            decide(p, cs, False, f"refused: producer also feeds {describe(ops[outside[0]])}, outside any group")
            continue
        groups = {st.gid[c] for c in cs}
        if st.gid[p] in groups:  # pinned together with a consumer already
            decide(p, [c for c in cs if st.gid[c] == st.gid[p]], True, "fused: pinned by the user")
            cs = {c for c in cs if st.gid[c] != st.gid[p]}
            groups.discard(st.gid[p])
            if not cs:
                continue
        why = blocked(p, groups)
        if why is not None:
            decide(p, cs, False, why)
            continue
        if len(groups) > 1:
            red = splat_reader(st.g, p) if is_fill_like(ops[p]) else None
            if red is not None:
                decide(p, cs, False, f"refused: illegal [splat-reduction]: reduction op {red} reads splat "
                       f"op {p} as its input (not cloned into it)")
            elif is_fill_like(ops[p]) and len(st.members[st.gid[p]]) == 1:
                fusions += 1
                cloned.append(p)
                decide(p, cs, True, f"fused: {ops[p].name} cloned into each of its {len(groups)} consumer groups")
            else:  # a cycle is the more fundamental reason (a diamond around an unfusable op)
                cyc = [(g, v) for g in sorted(groups) if (v := st.cycle_via(st.gid[p], g)) is not None]
                decide(p, cs, False, f"refused: would create a cycle via {describe(ops[cyc[0][1]])} "
                       f"(fusing into the group of op {min(st.members[cyc[0][0]])})" if cyc
                       else f"refused: producer has {len(cs)} consumers in {len(groups)} different groups")
            continue
        g = groups.pop()
        ok, reason = _check(st, p, g)
        if ok and gate is not None:
            ok, why = gate(frozenset(st.members[st.gid[p]]), frozenset(st.members[g]))
            reason = f"{reason} {why}" if ok else f"refused: unprofitable {why}"
        decide(p, cs, ok, reason)
        if ok:
            fusions += 1
            st.merge(st.gid[p], g)

    return _finish(graph, st, decisions, cloned, strategy)


def _finish(graph: DataflowGraph, st: _State, decisions: list[Decision], cloned: list[int],
            strategy: str) -> FusionPlan:
    ops, clone_set = graph.ops, set(cloned)
    members = sorted((sorted(m) for k, m in st.members.items() if not (m <= clone_set)), key=lambda m: m[0])
    groups = []
    where = {i: gid for gid, m in enumerate(members) for i in m}
    inside: list[list[str]] = [[] for _ in members]  # fused decisions within each group, in decision order
    for d in decisions:
        k = where.get(d.producer)
        if d.fused and k is not None and where.get(d.consumer) == k:
            inside[k].append(d.reason)
    for gid, m in enumerate(members):
        ms = set(m)
        heavy = [i for i in m if ops[i].kind in HEAVY]
        root = group_root(graph, m)
        reasons = tuple(inside[gid])
        groups.append(Group(gid, tuple(m), root, _group_kind(st, root, ms, bool(heavy)), reasons))
    unplaced = tuple(sorted({op.index for op in ops if not op.dispatchable and op.index not in where}
                            | clone_set))
    decisions.sort(key=lambda d: (d.producer, d.consumer))
    return FusionPlan(graph.function, strategy, tuple(groups), tuple(decisions), unplaced,
                      cloned=tuple(sorted(clone_set)))


def _group_kind(st: _State, root: int, ms: set[int], heavy: bool) -> str:
    """`convolution+epilogue`, `reduction+prologue`, `elementwise`, `pad`, ..."""
    ops = st.ops
    if not heavy:
        kinds = {ops[i].kind for i in ms}
        return ops[root].kind.value if len(ms) == 1 else ("injective" if kinds == {OpKind.INJECTIVE}
                                                         else "elementwise")
    # Prologue: ops feeding the root (a fill of its init aside); side inputs of epilogue ops are
    # part of the epilogue (e.g. BatchNorm's rsqrt(var + eps) read by a conv's epilogue).
    after = st.downstream({root}, ms)
    before, stack = set(), [root]
    while stack:
        for q in st.prods[stack.pop()]:
            if q in ms and q not in before:
                before.add(q)
                stack.append(q)
    before = {i for i in before if not is_fill_like(ops[i])}
    return ops[root].kind.value + ("+prologue" if before else "") + ("+epilogue" if after else "")
