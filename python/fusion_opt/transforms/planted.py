"""Planted fusion bugs (test-only, fusion_opt.testhooks.PLANTED): what each class of fusion bug does to
the code of a dispatch, written into the region so the differential fuzzer has something to catch.

Why rewrite the region and not only switch off the legality rule: IREE compiles whatever region it is
handed either correctly (it recomputes a fused reduction per tile) or not at all, so a planner that
fuses across a reduction here yields a fallback or a slower dispatch, never a wrong number. In a
compiler that generates the fused loops itself, the same planner bug reads a partial accumulator or
indexes a broadcast operand as if it were full-size. The rewrites below are those wrong loops, in
Linalg: they make each planted bug produce the wrong values it would produce there, and show that
the fuzzer's numeric check sees them. Each applies only inside a group the planner formed (a region).

- `fuse-across-reduction`: a consumer of a reduction in the same region reads the reduction's
  accumulator (its `outs` init) instead of its result: the value before the reduction completed.
- `ignore-broadcast`: a consumer reading a producer of the same region through a broadcasting map
  (fewer results than loops) reads it at index 0 everywhere: the broadcast stride taken as zero.
"""
from __future__ import annotations

from ..ir import block_ops, defining_op, ir


def read_partial_reductions(region: ir.Operation) -> int:
    """`fuse-across-reduction`: reduction results used inside the region are replaced by their inits."""
    ops = block_ops(region)
    inside = set(ops)
    changed = 0
    for r in ops:
        iters = r.attributes["iterator_types"] if "iterator_types" in r.attributes else None
        if iters is None or "reduction" not in str(iters) or len(r.results) != 1:
            continue
        init = r.operands[len(r.operands) - 1]  # a single-result reduction: its one `outs` operand
        for c in ops:
            if c == r or c.name == "flow.return":  # the group's own results stay right
                continue
            for k, v in enumerate(list(c.operands)):
                d = defining_op(v)
                if d is not None and d == r:
                    c.operands[k] = init
                    changed += 1
    return changed


def drop_broadcasts(region: ir.Operation) -> int:
    """`ignore-broadcast`: broadcasting reads of in-region producers become reads at index 0."""
    ops = block_ops(region)
    inside = set(ops)
    changed = 0
    for c in ops:
        if c.name != "linalg.generic":
            continue
        with c.context:
            changed += _zero_broadcast_reads(c, inside)
    return changed


def _zero_broadcast_reads(c: ir.Operation, inside: set[ir.Operation]) -> int:
    maps = list(ir.ArrayAttr(c.attributes["indexing_maps"]))
    n_in = len(maps) - len(c.results)
    new, changed = [], 0
    for k, attr in enumerate(maps):
        amap = ir.AffineMapAttr(attr).value
        d = defining_op(c.operands[k]) if k < n_in else None
        if d is not None and d in inside and 0 < len(amap.results) < amap.n_dims:
            zero = ir.AffineConstantExpr.get(0)
            amap = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [zero] * len(amap.results))
            changed += 1
        new.append(ir.AffineMapAttr.get(amap))
    if changed:
        c.attributes["indexing_maps"] = ir.ArrayAttr.get(new)
    return changed


def plant_in_region(region: ir.Operation, planted: set[str]) -> None:
    if "fuse-across-reduction" in planted:
        read_partial_reductions(region)
    if "ignore-broadcast" in planted:
        drop_broadcasts(region)
