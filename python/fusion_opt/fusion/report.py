"""A plan as JSON (for tools and tests) or as a readable table (for people), with every reason.

Every producer -> consumer edge that crosses a group boundary is listed with the rule that refused it
(illegal) or the predicted times that declined it (unprofitable): the boundary set is computed from
the groups themselves, not trusted to the planner's decision list, so nothing unfused goes unexplained.
"""
from __future__ import annotations

import re
from typing import Any

from ..analysis.opdesc import DataflowGraph, OpDesc
from .plan import Decision, FusionPlan, fmt_time

# Rule names for reasons written before refusals carried one (`refused: illegal [rule]: ...` does).
_RULE_WORDS: tuple[tuple[str, str], ...] = (
    ("unprofitable", "unprofitable"),
    ("barrier", "barrier"),
    ("max_fusions", "max-fusions"),
    ("max-fusions", "max-fusions"),
    ("cycle", "cycle"),
    ("not dispatchable", "dispatchable"),
    ("outside any group", "outside-consumer"),
    ("heavy roots", "one-root"),
    ("dispatch of its own", "own-dispatch"),
    ("prologue into a", "contraction-prologue"),
    ("broadcasts the reduction", "reduction"),
    ("kept for the epilogue", "epilogue-claim"),
    ("different space", "root-space"),
    ("different groups", "multi-consumer"),
    ("strategy 'none'", "strategy"),
)
_TAGGED = re.compile(r"\[([\w-]+)\]")


def rule_of(d: Decision | None) -> str:
    """The rule a refusal names: a `rule` field, a `[rule]` tag in the reason, or a known phrase."""
    if d is None:
        return "unexplained"
    rule = getattr(d, "rule", None)
    if rule:
        return str(rule)
    m = _TAGGED.search(d.reason)
    if m and "unprofitable" not in d.reason:
        return m.group(1)
    return next((r for word, r in _RULE_WORDS if word in d.reason), "other")


def boundary(plan: FusionPlan, graph: DataflowGraph) -> list[tuple[int, int, Decision | None]]:
    """Every distinct producer -> consumer pair in different groups (or with an op outside all
    groups), with the planner's decision about it. Fills cloned into their consumers are not cut."""
    of, cloned = plan.group_of(), set(plan.cloned)
    decided = {(d.producer, d.consumer): d for d in plan.decisions}
    pairs = sorted({(e.producer, e.consumer) for e in graph.edges})
    out = []
    for p, c in pairs:
        if p in cloned or (p in of and of.get(c) == of[p]):
            continue
        d = decided.get((p, c))
        if d is not None and d.fused and (p not in of or c not in of):  # a group given back after planning
            d = Decision(p, c, False, f"refused: [hand-off] left to IREE's own formation by a hand-off rule "
                                      f"(the plan's notes say which; the planner had fused it: {d.reason})")
        elif d is not None and d.fused:  # a planner that says "fused" across groups: show it anyway
            d = Decision(p, c, False, f"refused: placed in different groups (decision said: {d.reason})")
        out.append((p, c, d))
    return out


def _op(op: OpDesc) -> dict[str, Any]:
    """`source_op`: the name a generic of `.mlir` input was written with (`linalg.map`, `arith.addf`)."""
    source = dict(op.attrs).get("source_op")
    return {"index": op.index, "name": op.name, "loc": op.loc, "kind": op.kind.value,
            **({"source_op": source} if source else {})}


def plan_to_json(plan: FusionPlan, graph: DataflowGraph) -> dict[str, Any]:
    """`{"name", "strategy", "groups": [{"id", "kind", "root", "ops", "reasons"}], "unfused": [...]}`."""
    ops = graph.ops
    groups = [{
        "id": g.id,
        "kind": g.kind,
        "root": {"name": ops[g.root].name, "loc": ops[g.root].loc, "index": g.root},
        "ops": [_op(ops[i]) for i in g.ops],
        "reasons": list(g.reasons),
        "predicted_us": None if g.predicted_s is None else round(g.predicted_s * 1e6, 3),
        "bound": g.bound,
    } for g in plan.groups]
    unfused = [{
        "producer": _op(ops[p]),
        "consumer": _op(ops[c]),
        "rule": rule_of(d),
        "reason": d.reason if d is not None else "no decision recorded",
    } for p, c, d in boundary(plan, graph)]
    return {
        "name": plan.function,
        "strategy": plan.strategy,
        "target": plan.target,
        "predicted_us": None if plan.predicted_s is None else round(plan.predicted_s * 1e6, 3),
        "groups": groups,
        "unfused": unfused,
        "unplaced": [_op(ops[i]) for i in plan.unplaced],
        "cloned": [_op(ops[i]) for i in plan.cloned],
        "notes": list(plan.notes),
        "patterns": dict(plan.patterns),
    }


def short(op: OpDesc) -> str:
    return f"{op.index}:{op.name.removeprefix('linalg.')}"


def compact_ops(indices: tuple[int, ...], graph: DataflowGraph) -> str:
    """`1:fill 2:conv_2d_nchw_fchw 3-9:generic`: runs of consecutive ops of one name collapsed."""
    parts: list[str] = []
    run: list[int] = []
    for i in list(indices) + [-2]:
        if run and (i != run[-1] + 1 or graph.ops[i].name != graph.ops[run[0]].name):
            name = graph.ops[run[0]].name.removeprefix("linalg.")
            parts.append(f"{run[0]}:{name}" if len(run) == 1 else f"{run[0]}-{run[-1]}:{name}")
            run = []
        if i >= 0:
            run.append(i)
    return " ".join(parts)


def plan_to_text(plan: FusionPlan, graph: DataflowGraph) -> str:
    """Group table (id, kind, #ops, predicted, bound, root@loc, ops), ops outside groups, then every
    cut edge grouped by producer and reason, each with its rule, and a count per rule."""
    ops = graph.ops
    priced = plan.predicted_s is not None
    pred = f", predicted {fmt_time(plan.predicted_s)} on {plan.target}" if priced else ""
    lines = [f"function @{plan.function}: strategy {plan.strategy}, {len(plan.groups)} groups, "
             f"{len(plan.unplaced)} ops outside groups{pred}"]
    if plan.groups:
        rows = [(str(g.id), g.kind, str(len(g.ops)),
                 *((fmt_time(g.predicted_s), g.bound or "") if priced else ()),
                 f"{short(ops[g.root])}@{ops[g.root].loc}",
                 compact_ops(g.ops, graph)) for g in plan.groups]
        head = ("group", "kind", "#ops", *(("predicted", "bound") if priced else ()), "root", "ops")
        widths = [max(len(r[k]) for r in rows + [head]) for k in range(len(head) - 1)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        lines.append(fmt.format(*head))
        lines.extend(fmt.format(*r).rstrip() for r in rows)
    outside = [i for i in plan.unplaced if i not in set(plan.cloned)]
    if outside:
        lines.append("outside groups: " + ", ".join(f"{short(ops[i])}@{ops[i].loc}" for i in outside))
    if plan.cloned:
        lines.append("cloned into consumers: " + ", ".join(f"{short(ops[i])}@{ops[i].loc}" for i in plan.cloned))
    lines.extend(f"note: {n}" for n in plan.notes)
    if plan.patterns:
        lines.append("patterns: " + ", ".join(f"{k} {v}" for k, v in plan.patterns if v) if any(
            v for _, v in plan.patterns) else "patterns: none")
    cut = boundary(plan, graph)
    if cut:
        counts: dict[str, int] = {}
        for _, _, d in cut:
            counts[rule_of(d)] = counts.get(rule_of(d), 0) + 1
        summary = ", ".join(f"{r} {n}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
        lines.append(f"not fused ({len(cut)}): {summary}")
        lines.extend(_refusal_lines(cut, graph))
    return "\n".join(lines) + "\n"


def _refusal_lines(cut: list[tuple[int, int, Decision | None]], graph: DataflowGraph) -> list[str]:
    """One line per (producer, reason): a producer refused by all its consumers for one reason is
    listed once with every consumer, which keeps a 300-op model's list readable."""
    ops = graph.ops
    merged: dict[tuple[int, str], list[int]] = {}
    for p, c, d in cut:
        merged.setdefault((p, d.reason if d is not None else "no decision recorded"), []).append(c)
    decided = {(p, c): d for p, c, d in cut}
    tags = {key: f"[{rule_of(decided[(key[0], cs[0])])}]" for key, cs in merged.items()}
    width = max(len(t) for t in tags.values())
    out = []
    for (p, reason), cs in merged.items():
        consumers = ", ".join(f"{short(ops[c])}@{ops[c].loc}" for c in cs)
        out.append(f"  {tags[(p, reason)]:<{width}} {short(ops[p])}@{ops[p].loc} -> {consumers}: {reason}")
    return out
