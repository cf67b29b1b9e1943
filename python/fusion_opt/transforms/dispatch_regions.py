"""IREE hand-off: write one `flow.dispatch.region` per fusion group into a function.

IREE 3.13 respects pre-formed `flow.dispatch.region`s as dispatch boundaries (verified in
shared/ARCHITECTURE.md) and has no transform op that forms them, so they are built here from Python.
Groups must be convex (the planner's cycle check guarantees it); the block is first reordered so
every group is contiguous, then each group is moved into a region that yields its escaping values.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence

from ..errors import PlanError
from ..fusion.plan import FusionPlan
from ..ir import flow, ir
from ..testhooks import PLANTED
from .planted import plant_in_region


# Each region is named after its group, so per-dispatch profiles map back to groups: IREE copies a
# region's location onto the outlined executable and its `flow.dispatch` call site, and executable
# deduplication rewrites only the callee. Names do not take part in deduplication or codegen.
GROUP_LOC_PREFIX = "fusion_group_"


def group_location(group_id: int, loc: ir.Location) -> ir.Location:
    return ir.Location.name(f"{GROUP_LOC_PREFIX}{group_id}", childLoc=loc, context=loc.context)


def _top_level(op: ir.Operation, block_ops: dict[ir.Operation, int]) -> ir.Operation | None:
    """The op of the function block that contains `op` (itself, or an ancestor)."""
    while op is not None and op not in block_ops:
        parent = op.parent
        op = parent.operation if parent is not None else None
    return op


def _units(block: list[ir.Operation], op_group: dict[ir.Operation, int]) -> list[tuple]:
    """Each op's scheduling unit: its group, or the op alone."""
    return [("g", op_group[o]) if o in op_group else ("o", i) for i, o in enumerate(block)]


def reorder_block(block: list[ir.Operation], terminator: ir.Operation,
                  op_group: dict[ir.Operation, int]) -> list[ir.Operation]:
    """Topologically order units so each group's ops are contiguous; stable by first position.

    Raises PlanError when the groups form a cycle (the planner must never produce one).
    """
    pos = {o: i for i, o in enumerate(block)}
    unit = _units(block, op_group)
    members: dict[tuple, list[int]] = {}
    for i, u in enumerate(unit):
        members.setdefault(u, []).append(i)
    deps: dict[tuple, set[tuple]] = {u: set() for u in members}
    for i, o in enumerate(block):
        stack = [o]
        while stack:  # operands of nested ops count too (values captured by generic bodies)
            cur = stack.pop()
            for v in cur.operands:
                owner = v.owner
                if isinstance(owner, ir.Block) or not hasattr(owner, "name"):
                    continue  # block argument
                top = _top_level(owner.operation if hasattr(owner, "operation") else owner, pos)
                if top is not None and top in pos and unit[pos[top]] != unit[i]:
                    deps[unit[i]].add(unit[pos[top]])
            for r in cur.regions:
                for b in r.blocks:
                    stack.extend(x.operation for x in b.operations)
    indeg = {u: len(d) for u, d in deps.items()}
    users: dict[tuple, list[tuple]] = {u: [] for u in members}
    for u, d in deps.items():
        for p in d:
            users[p].append(u)
    ready = [(members[u][0], u) for u, n in indeg.items() if n == 0]
    heapq.heapify(ready)
    order: list[ir.Operation] = []
    while ready:
        _, u = heapq.heappop(ready)
        order.extend(block[i] for i in members[u])
        for c in users[u]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(ready, (members[c][0], c))
    if len(order) != len(block):
        raise PlanError("fusion groups form a cycle: cannot schedule them as dispatches")
    for o in order:
        o.move_before(terminator)
    return order


def nested_ops(op: ir.Operation) -> list[ir.Operation]:
    """`op` and every op nested in it, in walk order."""
    out: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        out.append(o)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return out


def escaping_results(group_ops: Sequence[ir.Operation]) -> list[ir.Value]:
    """Results of `group_ops` used by an op outside them."""
    inside = set(group_ops)
    return [r for o in group_ops for r in o.results if any(_outside(use.owner, inside) for use in r.uses)]


def wrap_group(group_ops: Sequence[ir.Operation], loc: ir.Location) -> ir.Operation | None:
    """Move contiguous `group_ops` into a new `flow.dispatch.region` yielding every escaping result. None,
    and the ops left as they are, when nothing outside reads them (dead code in the input, left for IREE
    to erase): a region yielding nothing prints without its `flow.return`, which does not parse back."""
    escaping = escaping_results(group_ops)
    if not escaping:
        return None
    with loc:
        region = flow.DispatchRegionOp([v.type for v in escaping], [], [], ip=ir.InsertionPoint(group_ops[0]))
        body = region.body.blocks.append()
        ip = ir.InsertionPoint(body)
        for o in group_ops:
            o.detach_from_parent()
            ip.insert(o)
        ret = flow.ReturnOp(escaping, ip=ip)
    keep = nested_ops(region.operation)
    for v, new in zip(escaping, region.results):
        v.replace_all_uses_except(new, keep)
    del ret
    return region.operation


def _outside(owner: ir.Operation, inside: set[ir.Operation]) -> bool:
    op = owner.operation if hasattr(owner, "operation") else owner
    while op is not None:
        if op in inside:
            return False
        parent = op.parent
        op = parent.operation if parent is not None else None
    return True


def apply_plan(func_op: ir.Operation, ops: Sequence[ir.Operation], plan: FusionPlan) -> int:
    """Write `plan`'s groups into `func_op` as dispatch regions; returns the number written."""
    if not plan.groups:
        return 0
    block = list(func_op.regions[0].blocks[0].operations)
    block = [o.operation for o in block]
    terminator, body = block[-1], block[:-1]
    op_group = {ops[i]: g.id for g in plan.groups for i in g.ops}
    ordered = reorder_block(body, terminator, op_group)
    by_group: dict[int, list[ir.Operation]] = {}
    for o in ordered:
        if o in op_group:
            by_group.setdefault(op_group[o], []).append(o)
    written = 0
    for g in plan.groups:
        members = by_group.get(g.id, [])
        region = wrap_group(members, group_location(g.id, ops[g.root].location)) if members else None
        if region is not None:
            written += 1
            if PLANTED:  # test-only planted bugs (fusion_opt.testhooks); empty unless a test sets them
                plant_in_region(region, PLANTED)
    return written


def unwrap_region(region: ir.Operation) -> None:
    """Inverse of `wrap_group`: move the region's ops back before it and drop the region.

    Used when IREE cannot compile a group: its ops are then left to IREE's own dispatch formation.
    """
    body = region.regions[0].blocks[0]
    inner = [o.operation for o in body.operations]
    ret, members = inner[-1], inner[:-1]
    for o in members:
        o.move_before(region)
    for res, val in zip(region.results, list(ret.operands)):
        res.replace_all_uses_with(val)
    region.erase()


def regions_of_group(module: ir.Module, group_id: int) -> list[ir.Operation]:
    """`flow.dispatch.region`s stamped with `group_id` (see `group_location`), in every function."""
    return regions_where(module, lambda region: f'"{GROUP_LOC_PREFIX}{group_id}"' in str(region.location))


def regions_holding_loc(module: ir.Module, loc_text: str) -> list[ir.Operation]:
    """Regions holding an op whose location mentions `loc_text` (IREE sometimes reports a codegen
    failure at an op's own location rather than at its dispatch's)."""
    def holds(region: ir.Operation) -> bool:
        return any(loc_text in str(o.location) for o in nested_ops(region))

    return regions_where(module, holds)


def regions_where(module: ir.Module, pred) -> list[ir.Operation]:
    found: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        if o.name == "flow.dispatch.region":
            if pred(o):
                found.append(o)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found
