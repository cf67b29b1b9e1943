"""A plan as JSON (for tools and tests) or as a readable table (for people), with every reason."""
from __future__ import annotations

from typing import Any

from ..analysis.opdesc import DataflowGraph, OpDesc
from .plan import FusionPlan


def _op(op: OpDesc) -> dict[str, Any]:
    return {"index": op.index, "name": op.name, "loc": op.loc, "kind": op.kind.value}


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
        "producer": _op(ops[d.producer]),
        "consumer": _op(ops[d.consumer]),
        "reason": d.reason,
    } for d in plan.decisions if not d.fused]
    return {
        "name": plan.function,
        "strategy": plan.strategy,
        "target": plan.target,
        "predicted_us": None if plan.predicted_s is None else round(plan.predicted_s * 1e6, 3),
        "groups": groups,
        "unfused": unfused,
        "unplaced": [_op(ops[i]) for i in plan.unplaced],
        "cloned": [_op(ops[i]) for i in plan.cloned],
    }


def _short(op: OpDesc) -> str:
    return f"{op.index}:{op.name.removeprefix('linalg.')}"


def plan_to_text(plan: FusionPlan, graph: DataflowGraph) -> str:
    """Group table (id, kind, #ops, root@loc, ops) followed by each refusal and its reason."""
    ops = graph.ops
    priced = plan.predicted_s is not None
    pred = f", predicted {plan.predicted_s * 1e6:.1f} us on {plan.target}" if priced else ""
    lines = [f"function @{plan.function}: strategy {plan.strategy}, {len(plan.groups)} groups, "
             f"{len(plan.unplaced)} ops outside groups{pred}"]
    if plan.groups:
        rows = [(str(g.id), g.kind, str(len(g.ops)),
                 *((f"{g.predicted_s * 1e6:.1f}us", g.bound or "") if priced else ()),
                 f"{ops[g.root].name}@{ops[g.root].loc}",
                 " ".join(_short(ops[i]) for i in g.ops)) for g in plan.groups]
        head = ("group", "kind", "#ops", *(("predicted", "bound") if priced else ()), "root", "ops")
        widths = [max(len(r[k]) for r in rows + [head]) for k in range(len(head) - 1)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        lines.append(fmt.format(*head))
        lines.extend(fmt.format(*r) for r in rows)
    outside = [i for i in plan.unplaced if i not in set(plan.cloned)]
    if outside:
        lines.append("outside groups: " + ", ".join(f"{_short(ops[i])}@{ops[i].loc}" for i in outside))
    if plan.cloned:
        lines.append("cloned into consumers: " + ", ".join(f"{_short(ops[i])}@{ops[i].loc}" for i in plan.cloned))
    refused = [d for d in plan.decisions if not d.fused]
    if refused:
        lines.append(f"not fused ({len(refused)}):")
        for d in refused:
            p, c = ops[d.producer], ops[d.consumer]
            lines.append(f"  {_short(p)}@{p.loc} -> {_short(c)}@{c.loc}: {d.reason}")
    return "\n".join(lines) + "\n"
