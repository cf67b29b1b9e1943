"""`--emit=dot`: a plan as a Graphviz digraph, one `subgraph cluster_N` per group.

Nodes are ops (label: index:short name, kind, location), edges are producer -> consumer; edges cut
by the plan are dashed and labelled with the rule that refused them, so the picture answers "why are
these two not fused" without the text report. Output is deterministic (sorted ids, no hashes), so it
can be diffed and checked by FileCheck.
"""
from __future__ import annotations

from ..analysis.opdesc import DataflowGraph, OpDesc
from .plan import FusionPlan
from .report import boundary, fmt_time, rule_of, short

_FILL = {"compute": "#f4cccc", "memory": "#cfe2f3", "launch": "#fff2cc", "spill": "#ead1dc"}


def quote(text: str) -> str:
    """A DOT double-quoted string (labels use `\\n` for line breaks, added by the caller)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _node(op: OpDesc, prefix: str, style: str = "") -> str:
    label = "\\n".join(quote(x)[1:-1] for x in (short(op), op.kind.value, op.loc))
    return f'  {prefix}{op.index} [label="{label}"{style}];'


def short_reason(rule: str, reason: str) -> str:
    """Edge label: the rule, plus the predicted times for an unprofitable merge."""
    if rule == "unprofitable" and "predicted" in reason:
        times = reason[reason.index("predicted") + len("predicted"):].strip(" )")
        return f"unprofitable: {times.replace(' apart -> ', ' -> ')}"
    return rule


def plan_to_dot(plan: FusionPlan, graph: DataflowGraph) -> str:
    """One `digraph` per function; `dot -Tsvg` renders several in one file."""
    ops, prefix = graph.ops, "op"
    of = plan.group_of()
    lines = [f"digraph {quote(plan.function)} {{",
             f"  label={quote(f'@{plan.function}: strategy {plan.strategy}, {len(plan.groups)} groups')};",
             "  labelloc=t;", "  compound=true;", "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="monospace", fontsize=10];',
             '  edge [fontname="monospace", fontsize=9];']
    for g in plan.groups:
        cost = f", {fmt_time(g.predicted_s)} {g.bound or ''}".rstrip() if g.predicted_s is not None else ""
        fill = _FILL.get(g.bound or "", "#eeeeee")
        lines += [f"  subgraph cluster_{g.id} {{",
                  f"    label={quote(f'group {g.id}: {g.kind}{cost}')};",
                  f'    style="rounded,filled"; fillcolor="{fill}";']
        lines += ["  " + _node(ops[i], prefix) for i in g.ops]
        lines.append("  }")
    cloned = set(plan.cloned)
    for op in ops:
        if op.index not in of:
            style = ", style=dashed" if op.index in cloned else ", style=\"rounded,dotted\""
            lines.append(_node(op, prefix, style))
    cut = {(p, c): d for p, c, d in boundary(plan, graph)}
    for p, c in sorted({(e.producer, e.consumer) for e in graph.edges}):
        if (p, c) in cut:
            d = cut[(p, c)]
            label = short_reason(rule_of(d), d.reason if d is not None else "")
            lines.append(f"  {prefix}{p} -> {prefix}{c} [style=dashed, color=red, label={quote(label)}];")
        elif p in cloned:
            lines.append(f"  {prefix}{p} -> {prefix}{c} [style=dotted, label=\"cloned\"];")
        else:
            lines.append(f"  {prefix}{p} -> {prefix}{c};")
    lines.append("}")
    return "\n".join(lines) + "\n"
