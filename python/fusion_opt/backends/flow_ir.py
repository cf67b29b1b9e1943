"""Reading the flow-level IR of a compile: dispatch call sites, their count and their fusion groups."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..ir import ir
from ..transforms.dispatch_regions import GROUP_LOC_PREFIX

_GROUP_RE = re.compile(r'"' + GROUP_LOC_PREFIX + r'(\d+)"')
_CALLEE_RE = re.compile(r"@[\w$.-]+::@([\w$.-]+)")


@dataclass(frozen=True)
class FlowSite:
    """A `flow.dispatch` in the entry function, program order: the export it calls and its location."""

    index: int
    key: str
    loc: str
    group: int | None   # from a `fusion_group_N` name location, when regions were stamped


def flow_sites(flow_module: ir.Module, entry: str | None = None) -> tuple[FlowSite, ...]:
    """Dispatch call sites in program order of `entry` (default: every function) in a module after `flow`.

    `compile_module` calls it where the flow phase ends and keeps the result on the Artifact as
    `sites`; initializers (run once at load) are skipped.
    """
    out: list[FlowSite] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        if o.name == "flow.dispatch":
            m = _CALLEE_RE.search(str(o.attributes["entry_points"]))
            loc = str(o.location)
            g = _GROUP_RE.search(loc)
            out.append(FlowSite(len(out), m.group(1) if m else "?", loc, int(g.group(1)) if g else None))
        return ir.WalkResult.ADVANCE

    for top in flow_module.body.operations:
        op = top.operation
        name = ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else None
        if op.name != "util.initializer" and (entry is None or name == entry):
            op.walk(visit)
    return tuple(out)


def count_flow_dispatches(module: ir.Module) -> int:
    """`flow.dispatch` ops in functions, not in `util.initializer`s.

    Initializers run once at load: with weights in an .irpa, IREE cannot constant-fold weight
    preprocessing (BN folding, transposes) and moves it there, which would inflate the count.
    """
    n = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal n
        n += op.name == "flow.dispatch"
        return ir.WalkResult.ADVANCE

    for top in module.body.operations:
        if top.operation.name != "util.initializer":
            top.operation.walk(visit)
    return n


# IREE's dispatch for a copy it cannot do as a transfer (a pad's interior, a strided slice).
COPY_KERNEL = "slow_memcpy"


def copy_dispatches(sites: tuple[FlowSite, ...] | None) -> int | None:
    """Call sites that only copy: IREE's `slow_memcpy` dispatches (a pad whose producer could not be
    written into the padded buffer, a strided slice), the pad-only dispatches issue 6 counts."""
    return None if sites is None else sum(s.key.endswith(COPY_KERNEL) for s in sites)
