"""Write a region's result straight into the padded buffer its consumer reads (issue 6's pad copies).

A `tensor.pad` left between two of our dispatch regions becomes a splat plus a `slow_memcpy` dispatch
in IREE 3.13: a copy of the whole activation (ResNet-50: 16 of them, each after a 1x1 conv whose
matmul result reaches the pad through an `expand_shape`). IREE's own formation avoids the copy for
producers it forms itself by storing the producer's tile at the pad's offsets into a read-write
binding tied to the splat; it does so for a region of ours too when the region ends with a
`tensor.insert_slice` into a fill defined outside it (verified on IREE 3.13: the region becomes one
dispatch whose store has the pad's offsets). So the pad is rewritten here, after the regions are
written, as `fill(pad value)` outside the region plus `expand_shape` + `insert_slice` inside it.

Only where the region's own result has no unit dimension: a 4-D elementwise result with a unit batch
inserted this way computes wrong values in IREE 3.13 (its in-dispatch unit-dim folding collapses the
result before the offset store; max error 8.6 on a relu + pad + conv test), while a matmul result
expanded into the padded NCHW shape is exact (checked for 64..512 channels, 7..56 pixels, with and
without data tiling). Such elementwise producers are left to IREE by the planner (handoff `padded`).
"""
from __future__ import annotations

from ..ir import arith, ir, linalg, tensor
from .dispatch_regions import unwrap_region, wrap_group

_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def _owner(v: ir.Value) -> ir.Operation | None:
    o = v.owner
    return None if isinstance(o, ir.Block) else (o.operation if hasattr(o, "operation") else o)


def _single_use(v: ir.Value) -> bool:
    return len(list(v.uses)) == 1


def expand_reassociation(src: tuple[int, ...], dst: tuple[int, ...]) -> list[list[int]] | None:
    """Groups of `dst` dims whose products are `src`'s dims, in order (an `expand_shape` from src to
    dst); None when dst is no such expansion. Neither shape has unit dims (see `attach_units`)."""
    groups: list[list[int]] = []
    j = 0
    for d in src:
        grp, prod = [], 1
        while j < len(dst) and prod < d:
            grp.append(j)
            prod *= dst[j]
            j += 1
        if prod != d or not grp:
            return None
        groups.append(grp)
    return groups if j == len(dst) else None


def attach_units(rank: int, keep: list[int]) -> list[list[int]]:
    """Reassociation that drops the dims of `rank` not in `keep` (unit dims): each kept dim with the
    dropped dims after it; leading dropped dims join the first group."""
    groups = [[k] for k in keep]
    for j in range(rank):
        if j not in keep:
            before = [g for g in groups if g[0] < j]
            (before[-1] if before else groups[0]).append(j)
    return [sorted(g) for g in groups]


def _terminator(op: ir.Operation) -> ir.Operation:
    ops = op.regions[0].blocks[0].operations
    return ops[len(ops) - 1].operation


def _pad_value(pad: ir.Operation, elt: ir.Type) -> ir.Attribute | None:
    """The constant a pad yields, as an attribute of `elt` to rebuild outside it; None when not a
    constant. Casts of a float constant count (ONNX's max pool pads with an f64 -inf truncated)."""
    o = _owner(_terminator(pad).operands[0])
    while o is not None and o.name in ("arith.truncf", "arith.extf"):
        o = _owner(o.operands[0])
    if o is None or o.name != "arith.constant":
        return None
    attr = o.attributes["value"]
    if isinstance(attr, ir.FloatAttr) and isinstance(elt, ir.FloatType):
        return ir.FloatAttr.get(elt, attr.value)
    return attr if attr.type == elt else None


def _static(pad: ir.Operation, name: str) -> list[int] | None:
    vals = list(ir.DenseI64ArrayAttr(pad.attributes[name]))
    return None if any(v < 0 for v in vals) else vals


def write_pads_into_regions(func_op: ir.Operation) -> int:
    """Rewrite every eligible top-level `tensor.pad` of `func_op` into its producer region; returns
    how many. Eligible: static padding by a constant, source reached from a region result through
    single-use reshapes only, and a region result without unit dims."""
    body = func_op.regions[0].blocks[0]
    pads = [o.operation for o in body.operations if o.operation.name == "tensor.pad"]
    return sum(_rewrite(pad) for pad in pads)


def _rewrite(pad: ir.Operation) -> bool:
    low, high = _static(pad, "static_low"), _static(pad, "static_high")
    with pad.location:
        value = _pad_value(pad, ir.RankedTensorType(pad.results[0].type).element_type)
    if low is None or high is None or value is None or not any(low + high):
        return False
    chain: list[ir.Operation] = []
    v = pad.operands[0]
    while (o := _owner(v)) is not None and o.name in _RESHAPES and _single_use(v):
        chain.append(o)
        v = o.operands[0]
    region = _owner(v)
    if region is None or region.name != "flow.dispatch.region" or not _single_use(v):
        return False
    k = next(i for i, r in enumerate(region.results) if r == v)
    src_t, dst_t, out_t = (ir.RankedTensorType(t) for t in (v.type, pad.operands[0].type, pad.results[0].type))
    if not (src_t.has_static_shape and dst_t.has_static_shape and out_t.has_static_shape):
        return False
    src, dst, out = tuple(src_t.shape), tuple(dst_t.shape), tuple(out_t.shape)
    # Unit dims the pad leaves alone are dropped from the padded buffer and the stored value alike.
    keep = [j for j in range(len(dst)) if dst[j] != 1 or low[j] or high[j]]
    src_keep = [j for j in range(len(src)) if src[j] != 1]
    if not src_keep or any(dst[j] == 1 for j in keep):
        return False
    src_nu, dst_nu = tuple(src[j] for j in src_keep), tuple(dst[j] for j in keep)
    expand = None if src_nu == dst_nu else expand_reassociation(src_nu, dst_nu)
    if src_nu != dst_nu and expand is None:
        return False
    loc = region.location
    inner = _terminator(region).operands[k]
    members = [o.operation for o in region.regions[0].blocks[0].operations][:-1]
    elt = out_t.element_type
    with loc, ir.InsertionPoint(region):
        buf_t = ir.RankedTensorType.get([out[j] for j in keep], elt)
        scalar = arith.ConstantOp(elt, value).result
        dest = linalg.fill(scalar, outs=[tensor.EmptyOp(list(buf_t.shape), elt).result])
    unwrap_region(region)
    added: list[ir.Operation] = []
    with loc, ir.InsertionPoint.after(members[-1]):
        val = inner
        if src_nu != src:
            op = tensor.CollapseShapeOp(ir.RankedTensorType.get(list(src_nu), elt), val,
                                        attach_units(len(src), src_keep))
            added.append(op.operation)
            val = op.result
        if expand is not None:
            op = tensor.ExpandShapeOp(ir.RankedTensorType.get(list(dst_nu), elt), val, expand, [], list(dst_nu))
            added.append(op.operation)
            val = op.result
        ins = tensor.InsertSliceOp(val, dest, [], [], [], [low[j] for j in keep], list(dst_nu), [1] * len(keep))
        added.append(ins.operation)
        result = ins.result
        if buf_t.shape != list(out):  # the unit dims back, outside the region: a free reshape
            result = tensor.ExpandShapeOp(out_t, result, attach_units(len(out), keep), [], list(out)).result
    pad.results[0].replace_all_uses_with(result)
    pad.erase()
    for o in chain:  # pad's source first: each was used only by the next
        o.erase()
    wrap_group(members + added, loc)
    return True
