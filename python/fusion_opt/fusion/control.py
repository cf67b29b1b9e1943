"""User control: turn `--fuse` / `--no-fuse` / `--max-fusions` (CLI), `fuse=` / `no_fuse=` /
`max_fusions=` (API) and `fusion_opt.fuse` / `fusion_opt.no_fuse` (IR attributes) into `Constraints`.

Matchers name ops the way a user sees them: by location (`file:line`, `file:line:col`, an ONNX node
name) or by op-name glob (`linalg.matmul`, `*conv*`). A matcher that matches nothing anywhere in the
input is an error (a typo must not silently plan without the pin), and so is a pin that breaks a
legality rule: the error names the rule and the ops, at the location of the first op it names, so
`--verify-diagnostics` tests can expect it on the pinned op's line.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase

from ..analysis.classify import HEAVY, LIGHT
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, describe
from ..errors import InputError, PlanError
from .constraints import Constraints
from .legality import group_root, groupable
from .plan import Decision, FusionPlan, Group

_FILE_LOC = re.compile(r"^(.*):(\d+):(\d+)$")
_USER_LOC = re.compile(r"^(.*?):(\d+)(?::(\d+))?$")
_GLOB = re.compile(r"[*?\[]")
MATCHER_HELP = ("a matcher is a location (file:line, file:line:col, an ONNX node name) "
                "or an op-name glob ('linalg.matmul', '*conv*')")
# Copy-only named ops `.mlir` normalization folds into the maps of the ops that read them: by name they
# can match nothing, so the error says what to name instead.
FOLDED_NAMES = ("linalg.broadcast", "linalg.transpose")


def _unmatched(flag: str, m: str) -> InputError:
    hint = next((f" ({n} ops of .mlir input are folded into the indexing maps of the ops that read them "
                 "before planning: name those)" for n in FOLDED_NAMES if fnmatchcase(n, m)), "")
    return InputError(f"{flag} matcher '{m}' matches no op{hint}; {MATCHER_HELP}")


def split_matchers(specs: Iterable[str | Sequence[str]]) -> list[tuple[str, ...]]:
    """`["a,b", ["c", "d"]]` -> `[("a", "b"), ("c", "d")]`: one tuple per pin, empty items dropped."""
    out = []
    for spec in specs:
        items = spec.split(",") if isinstance(spec, str) else [m for s in spec for m in s.split(",")]
        items = tuple(m.strip() for m in items if m.strip())
        if not items:
            raise InputError(f"empty op list in fuse/no-fuse option '{spec}'; {MATCHER_HELP}")
        out.append(items)
    return out


def _same_file(user: str, loc_file: str) -> bool:
    """`conv.mlir` names `/abs/test/conv.mlir`: a path suffix at a '/' boundary is enough."""
    return user == loc_file or loc_file.endswith("/" + user) or user.endswith("/" + loc_file)


def matches(pattern: str, op: OpDesc) -> bool:
    """Exact location, `file:line[:col]`, a glob over ONNX node names, or a glob over the op name (for a
    generic that normalization made of a named op, its name as written matches too)."""
    if pattern == op.loc:
        return True
    loc = _FILE_LOC.match(op.loc)
    user = _USER_LOC.match(pattern)
    if loc and user:
        if user.group(2) == loc.group(2) and user.group(3) in (None, loc.group(3)) \
                and _same_file(user.group(1), loc.group(1)):
            return True
    elif not loc and _GLOB.search(pattern) and fnmatchcase(op.loc, pattern):
        return True  # node-name globs ("Conv_*") only for name locations, never file paths
    source = dict(op.attrs).get("source_op")  # a generic of .mlir input by the name it was written with
    return fnmatchcase(op.name, pattern) or (source is not None and fnmatchcase(source, pattern))


@dataclass
class ControlSpec:
    """What the user asked for, before it meets a graph. `hits` counts matches across every function
    (and every `--split-input-file` chunk) so `check_matched` can reject matchers that hit nothing."""

    pins: tuple[tuple[str, ...], ...] = ()
    barriers: tuple[str, ...] = ()
    max_fusions: int | None = None
    fuse_flag: str = "--fuse"
    no_fuse_flag: str = "--no-fuse"
    hits: dict[str, int] = field(default_factory=dict)
    disabled_patterns: tuple[str, ...] = ()   # pattern registry names switched off (patterns/__init__.py)
    layout: str = "auto"                      # "auto": per conv by the cost model; "nhwc": all; "nchw": none (rewrites/layout.py)

    @classmethod
    def from_options(cls, fuse: Iterable[str | Sequence[str]] = (), no_fuse: Iterable[str | Sequence[str]] = (),
                     max_fusions: int | None = None, api: bool = False,
                     disable_patterns: Iterable[str] = (), layout: str = "auto") -> ControlSpec:
        from ..patterns import PATTERN_NAMES
        from ..rewrites.layout import LAYOUTS
        if layout not in LAYOUTS:
            raise InputError(f"unknown layout '{layout}' (choose from {', '.join(LAYOUTS)})")
        if max_fusions is not None and (not isinstance(max_fusions, int) or max_fusions < 0):
            raise InputError(f"max_fusions must be a non-negative integer, got {max_fusions!r}")
        if isinstance(disable_patterns, str):
            raise InputError("disable_patterns= takes a list of pattern names")
        off = tuple(n for v in disable_patterns for n in v.split(",") if n)
        unknown = [n for n in off if n not in PATTERN_NAMES]
        if unknown:
            raise InputError(f"unknown pattern '{unknown[0]}' (known: {', '.join(PATTERN_NAMES)})")
        if isinstance(fuse, str) or isinstance(no_fuse, str):
            raise InputError("fuse= and no_fuse= take a list of op lists, e.g. fuse=['n1,n2']")
        flags = ("fuse=", "no_fuse=") if api else ("--fuse", "--no-fuse")
        barriers = tuple(m for ms in split_matchers(no_fuse) for m in ms)
        return cls(tuple(split_matchers(fuse)), barriers, max_fusions, *flags, disabled_patterns=off, layout=layout)

    @property
    def empty(self) -> bool:
        return not self.pins and not self.barriers and self.max_fusions is None

    def _match(self, graph: DataflowGraph, pattern: str) -> set[int]:
        found = {op.index for op in graph.ops if matches(pattern, op)}
        self.hits[pattern] = self.hits.get(pattern, 0) + len(found)
        return found

    def resolve(self, graph: DataflowGraph, tags: Mapping[int, str] | None = None,
                ir_barriers: Iterable[int] = ()) -> Constraints:
        """Constraints for one function: CLI/API matchers plus IR marks (`tags`: op -> fuse tag),
        validated against the legality rules (raises PlanError at the offending op)."""
        named: list[tuple[frozenset[int], str]] = []
        for spec in self.pins:
            members = set().union(*(_computing(graph, self._match(graph, m)) for m in spec))
            if members:
                named.append((frozenset(members), f"{self.fuse_flag}={','.join(spec)}"))
        by_tag: dict[str, set[int]] = {}
        for i, tag in sorted((tags or {}).items()):
            by_tag.setdefault(tag, set()).add(i)
        named += [(frozenset(m), f'fusion_opt.fuse = "{t}"') for t, m in sorted(by_tag.items())]
        barriers = set(ir_barriers).union(*(self._match(graph, m) for m in self.barriers))
        pins = _merge_overlapping(named)
        validate(graph, pins, frozenset(barriers))
        return Constraints(tuple(p for p, _ in pins if len(p) > 1), frozenset(barriers), self.max_fusions)

    def check_matched(self) -> None:
        """After every function was resolved: a matcher that matched nothing is a user error."""
        for spec in self.pins:
            for m in spec:
                if not self.hits.get(m):
                    raise _unmatched(self.fuse_flag, m)
        for m in self.barriers:
            if not self.hits.get(m):
                raise _unmatched(self.no_fuse_flag, m)


def _computing(graph: DataflowGraph, found: set[int]) -> set[int]:
    """A pin's matched ops without the reshapes and other ops left to IREE outside dispatches, where the
    matcher also found ops that compute: an ONNX node name (`/Mul_6`) names the node's reshape as well as
    its generic, and pinning the name means the generic."""
    kept = {i for i in found if groupable(graph.ops[i])}
    return kept or found


def _merge_overlapping(named: list[tuple[frozenset[int], str]]) -> list[tuple[frozenset[int], str]]:
    """Pins sharing an op must all be one group: union them (their origins joined with ' and ')."""
    out: list[tuple[frozenset[int], str]] = []
    for members, origin in named:
        for other in [o for o in out if o[0] & members]:
            out.remove(other)
            members, origin = members | other[0], f"{other[1]} and {origin}"
        out.append((members, origin))
    return sorted(out, key=lambda p: min(p[0]))


def _fail(graph: DataflowGraph, first: int, origin: str, text: str) -> PlanError:
    return PlanError(f"cannot fuse {text} (pinned by {origin})", graph.ops[first].loc)


def validate(graph: DataflowGraph, pins: Sequence[tuple[frozenset[int], str]], barriers: frozenset[int]) -> None:
    """Every pin must be a legal group by itself, and all pins together must leave the group graph
    acyclic. Rules: 'barrier' (pinned and barred), 'cycle' (with the other pins),
    then the table of `fusion.legality.check_group` ('dispatchable' alone while that module is absent)."""
    ops = graph.ops
    part = Grouping(graph)
    for members, origin in pins:
        if len(members) < 2:
            continue
        both = sorted(members & barriers)
        if both:
            raise _fail(graph, both[0], origin, f"{describe(ops[both[0]])}: rule 'barrier': it is also "
                        "marked no-fuse (a barrier is kept alone)")
        verdict = _legality(graph, members)
        bad = [i for i in sorted(members) if not ops[i].dispatchable]
        if verdict is None and bad:  # the fallback rule, until fusion/legality.py has the table
            raise _fail(graph, bad[0], origin, f"{describe(ops[bad[0]])}: rule 'dispatchable': {ops[bad[0]].name} "
                        "is not dispatchable (left to IREE outside any group)")
        hit = part.cycle_via(members)
        if hit is not None:
            a, via, b = hit
            raise _fail(graph, a, origin, f"{describe(ops[a])} with {describe(ops[b])}: rule 'cycle': "
                        f"{describe(ops[via])} depends on the first and feeds the second but is not in "
                        "the group (pin it too, or unpin one)")
        if verdict is not None and not verdict.ok:
            names = ", ".join(describe(ops[i]) for i in sorted(members))
            raise _fail(graph, min(members), origin, f"{names}: rule '{verdict.rule}': {verdict.reason}")
        part.union(members)


def _legality(graph: DataflowGraph, members: frozenset[int]):
    """The planner's legality rules, when `fusion/legality.py` is there (it is being written)."""
    try:
        from .legality import check_group  # type: ignore[attr-defined]
    except ImportError:
        return None
    return check_group(graph, members)


class Grouping:
    """Ops partitioned into groups (union-find); every op starts alone. Answers whether a candidate
    group would make the group graph cyclic, walking other groups as single nodes, as dispatches are."""

    def __init__(self, graph: DataflowGraph) -> None:
        self.parent = list(range(len(graph.ops)))
        self.members: dict[int, set[int]] = {i: {i} for i in range(len(graph.ops))}
        self.cons: dict[int, list[int]] = {i: [] for i in range(len(graph.ops))}
        for e in sorted({(e.producer, e.consumer) for e in graph.edges}):
            self.cons[e[0]].append(e[1])

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, ops: Iterable[int]) -> int:
        roots = sorted({self.find(i) for i in ops})
        keep = roots[0]
        for r in roots[1:]:
            self.parent[r] = keep
            self.members[keep] |= self.members.pop(r)
        return keep

    def cycle_via(self, group: set[int] | frozenset[int]) -> tuple[int, int, int] | None:
        """(member a, first op outside, member b) for a path a -> outside -> b, else None."""
        seen: set[int] = set()
        stack = [(c, a, c) for a in sorted(group, reverse=True) for c in self.cons[a] if c not in group]
        while stack:
            op, origin, via = stack.pop()
            root = self.find(op)
            if root in seen:
                continue
            seen.add(root)
            for m in sorted(self.members[root]):
                for c in self.cons[m]:
                    if c in group:
                        return origin, via, c
                    stack.append((c, origin, via))
        return None


def obey(plan: FusionPlan, graph: DataflowGraph, c: Constraints, target=None) -> FusionPlan:
    """Stop-gap until every planner takes `constraints` itself: rebuild `plan` so it obeys `c`.

    Pins are merged first; then the plan's own merges are replayed in greedy's order (consumers
    first), skipping those that touch a barrier, that come after `max_fusions` merges, that would
    join two heavy roots or that would close a cycle with a pinned group. Each merge skipped keeps a
    decision saying which constraint split it. A clone of a fill counts as one merge.
    """
    ops, part = graph.ops, Grouping(graph)
    pinned = set().union(*c.pins) if c.pins else set()
    # Pinned ops are placed even where the planner left them out (a pinned pad under 'none').
    placed = {i for g in plan.groups for i in g.ops} | set(plan.cloned) | pinned
    cloned = set(plan.cloned) - pinned - c.barriers
    for pin in c.pins:
        part.union(pin)
    split: dict[tuple[int, int], str] = {}
    merges = 0
    by_producer: dict[int, list[int]] = {}
    for d in plan.decisions:
        if d.fused:
            by_producer.setdefault(d.producer, []).append(d.consumer)
    for p in sorted(by_producer, reverse=True):
        cs = by_producer[p]
        barrier = next((x for x in [p, *cs] if x in c.barriers), None)
        targets = {part.find(x) for x in cs if x in placed} - {part.find(p)}
        if barrier is not None:
            why = f"refused: barrier: {describe(ops[barrier])} is marked no-fuse"
        elif p not in cloned and not targets:
            continue  # already together (pinned)
        elif c.max_fusions is not None and merges >= c.max_fusions:
            why = f"refused: --max-fusions={c.max_fusions} reached"
        elif p in cloned:
            merges += 1
            continue
        else:
            new = set(part.members[part.find(p)]).union(*(part.members[t] for t in targets))
            sides = [part.members[r] for r in {part.find(p), *targets}]
            if sum(any(ops[i].kind in HEAVY for i in s) for s in sides) > 1:
                why = "refused: would join two heavy roots (after applying pins)"
            elif (hit := part.cycle_via(new)) is not None:
                why = f"refused: would create a cycle via {describe(ops[hit[1]])} (after applying pins)"
            else:
                part.union(new)
                merges += 1
                continue
        cloned.discard(p)
        split.update(((p, x), why) for x in cs)
    return _rebuild(plan, graph, part, placed - cloned, cloned, split, c, target)


def _rebuild(plan: FusionPlan, graph: DataflowGraph, part: Grouping, grouped: set[int], cloned: set[int],
             split: Mapping[tuple[int, int], str], c: Constraints, target) -> FusionPlan:
    ops = graph.ops
    sets = sorted((sorted(m & grouped) for r, m in part.members.items() if m & grouped), key=lambda m: m[0])
    gid = {i: k for k, m in enumerate(sets) for i in m}
    decisions = []
    for d in plan.decisions:
        together = d.producer in cloned or (d.producer in gid and gid.get(d.consumer, -1) == gid[d.producer])
        if together and not d.fused:
            d = Decision(d.producer, d.consumer, True, "fused: pinned (fuse constraint)")
        elif not together and d.fused:
            d = Decision(d.producer, d.consumer, False, split.get((d.producer, d.consumer),
                                                                  "refused: split by a constraint"))
        decisions.append(d)
    groups = []
    for k, m in enumerate(sets):
        heavy = [i for i in m if ops[i].kind in HEAVY]
        root = group_root(graph, m)
        reasons = tuple(d.reason for d in decisions if d.fused and gid.get(d.producer) == k == gid.get(d.consumer))
        if any(set(m) >= p for p in c.pins):
            reasons += ("pinned by a fuse constraint",)
        groups.append(Group(k, tuple(m), root, _kind(graph, part, set(m), root, bool(heavy)), reasons))
    unplaced = tuple(sorted(set(range(len(ops))) - grouped))
    out = replace(plan, groups=tuple(groups), decisions=tuple(decisions), unplaced=unplaced,
                  cloned=tuple(sorted(cloned)))
    if target is None and plan.target:
        from ..cost import get_target_desc

        target = get_target_desc(plan.target)
    if target is None:
        return out
    from .costed import annotate

    return annotate(out, graph, target)


def _kind(graph: DataflowGraph, part: Grouping, ms: set[int], root: int, heavy: bool) -> str:
    """Same vocabulary as the greedy planner: `convolution+epilogue`, `elementwise`, ..."""
    ops = graph.ops
    if not heavy:
        if len(ms) == 1:
            return ops[root].kind.value
        return "injective" if {ops[i].kind for i in ms} == {OpKind.INJECTIVE} else "elementwise"

    def reach(start: int, step) -> set[int]:
        seen, stack = set(), [start]
        while stack:
            for q in step(stack.pop()):
                if q in ms and q not in seen:
                    seen.add(q)
                    stack.append(q)
        return seen

    prods: dict[int, list[int]] = {}
    for p, cs in part.cons.items():
        for q in cs:
            prods.setdefault(q, []).append(p)
    after = reach(root, lambda i: part.cons[i])
    before = {i for i in reach(root, lambda i: prods.get(i, [])) if not _fill_like(ops[i])}
    return ops[root].kind.value + ("+prologue" if before else "") + ("+epilogue" if after else "")


def _fill_like(op: OpDesc) -> bool:
    return op.kind in LIGHT and all(p is None for p in op.operands) and op.flops == 0


def takes_constraints(planner) -> bool:
    """Does this planner obey `constraints=` itself (else `obey` rebuilds its plan)?"""
    import inspect

    return planner is not None and "constraints" in inspect.signature(planner).parameters


def violations(plan: FusionPlan, c: Constraints) -> list[str]:
    """What in `plan` breaks `c` (pins split, barriers not alone); empty when it obeys. Checked on
    every plan, so a planner bug shows up as an error instead of a silently ignored pin."""
    of, out = plan.group_of(), []
    for pin in c.pins:
        if len({of.get(i) for i in pin}) > 1:
            out.append(f"pinned ops {sorted(pin)} ended in groups {sorted({of.get(i, -1) for i in pin})}")
    sizes = {g.id: len(g.ops) for g in plan.groups}
    out += [f"barrier op {i} shares group {of[i]}" for i in sorted(c.barriers) if i in of and sizes[of[i]] > 1]
    return out
