"""Write a region's result straight into the padded buffer its consumer reads (issue 6's pad copies).

A `tensor.pad` left between two of our dispatch regions becomes a splat plus a `slow_memcpy` dispatch
in IREE 3.13, a copy of the whole activation. IREE's own formation avoids the copy for producers it
forms itself by storing the producer's tile at the pad's offsets into a read-write binding tied to
the splat; it does the same for a region of ours that ends with a `tensor.insert_slice` into a fill
defined outside it (verified on IREE 3.13: one dispatch, its store at the pad's offsets). So such a
pad is rewritten here, after the regions are written: `fill(pad value)` outside the region, the
insert inside it.

Where it applies (measured, 2026-11-30, this 2-core AVX-512 VM):
- Where the region's own result already has the padded value's layout (up to unit dims): the
  stored tile is then a box of the producer's own tiles. A 1x1 conv's matmul result `[F, H*W]`
  needs an `expand_shape` to `[F, H, W]` before the insert; that form computes the right values, but
  the matmul dispatches (data-tiled, their tiles running across image rows) store into the padded
  buffer so much slower that the models lose more than the copies cost: per-dispatch profile of
  ResNet-50, copies -220 us, its matmuls +500 us; paired, ResNet-50 1.02x, Inception-v2 1.02x,
  DenseNet-121 1.04x and ShuffleNet 1.17x slower (its small-K batch matmuls: 34 -> 104 us). So the
  expanded form is written only where the whole image is one tile (`tiling.image_in_one_tile`: the
  7x7 stages, 38.3 us against 36.8 + 1.1 us for matmul and copy, one dispatch less); elsewhere the
  epilogue is split off instead (fusion/epilogue_split.py) or the pad stays a copy.
- Unit dims the pad leaves alone are dropped from the buffer (and from the stored value; put back by
  a reshape outside the region): inserting a 4-D result with a unit batch into a 4-D buffer computes
  wrong values in IREE 3.13 (max error 8.6 on a relu + pad + conv test, test_padded_results.py),
  the same insert into a buffer without the unit dim is exact.
"""
from __future__ import annotations

from ..analysis.opdesc import RESHAPE_OPS
from ..cost.tiling import image_in_one_tile
from ..ir import arith, attach_units, block_ops, defining_op, ir, linalg, pad_value, tensor
from .dispatch_regions import unwrap_region, wrap_group


def single_use(v: ir.Value) -> bool:
    return len(list(v.uses)) == 1


def pad_constant(pad: ir.Operation, elt: ir.Type) -> ir.Attribute | None:
    """The constant a pad yields, as an attribute of `elt` to rebuild outside it; None when not a
    constant. Casts of a float constant count (ONNX's max pool pads with an f64 -inf truncated)."""
    o = defining_op(pad_value(pad))
    while o is not None and o.name in ("arith.truncf", "arith.extf"):
        o = defining_op(o.operands[0])
    if o is None or o.name != "arith.constant":
        return None
    attr = o.attributes["value"]
    if isinstance(attr, ir.FloatAttr) and isinstance(elt, ir.FloatType):
        return ir.FloatAttr.get(elt, attr.value)
    return attr if attr.type == elt else None


def static_amounts(pad: ir.Operation, name: str) -> list[int] | None:
    vals = list(ir.DenseI64ArrayAttr(pad.attributes[name]))
    return None if any(v < 0 for v in vals) else vals


def init_from_another_dispatch(v: ir.Value, region: ir.Operation) -> bool:
    """Whether the op computing `v` in `region` (through reshapes) accumulates into a tensor with values
    made outside the region. IREE 3.13 then stores a wrong result into the padded buffer: with
    `--fusion=none` a max pool's -inf fill is a dispatch of its own, and the pool inserted into the
    zero-padded buffer came out -inf everywhere (fuzz seed 19429; test_padded_results.py). An empty init
    has no values; a fill is fine where the region holds it or IREE clones it in (a fill outside every
    region, as the plans leave fills shared by several groups)."""
    body = region.regions[0].blocks[0]
    op = defining_op(v)
    while op is not None and op.name in RESHAPE_OPS:
        op = defining_op(op.operands[0])
    if op is None or not op.name.startswith("linalg."):
        return False
    for init in list(op.operands)[len(op.operands) - len(op.results):]:  # a linalg op's inits come last
        src = defining_op(init)
        if src is None or (src.name not in ("tensor.empty", "linalg.fill") and src.parent != body.owner):
            return True
    return False


def write_pads_into_regions(func_op: ir.Operation) -> int:
    """Rewrite every eligible top-level `tensor.pad` of `func_op` into its producer region; returns
    how many. Eligible: static padding by a constant, its source a region result used only by it
    (through single-use reshapes), with the padded value's layout up to unit dims."""
    return sum(write_pad_into_region(op) for op in block_ops(func_op) if op.name == "tensor.pad")


def write_pad_into_region(pad: ir.Operation) -> bool:
    """Write one `tensor.pad` into its producer region (see `write_pads_into_regions`); False if not eligible."""
    low, high = static_amounts(pad, "static_low"), static_amounts(pad, "static_high")
    with pad.location:
        value = pad_constant(pad, ir.RankedTensorType(pad.results[0].type).element_type)
    if low is None or high is None or value is None or not any(low + high):
        return False
    chain: list[ir.Operation] = []
    v = pad.operands[0]
    while (o := defining_op(v)) is not None and o.name in RESHAPE_OPS and single_use(v):
        chain.append(o)
        v = o.operands[0]
    region = defining_op(v)
    if region is None or region.name != "flow.dispatch.region" or not single_use(v):
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
    expand = None
    if src_nu != dst_nu:  # the producer's layout differs from the padded one (see the module docstring)
        if not image_in_one_tile(src_nu, dst_nu):
            return False
        expand = [[j] for j in range(len(src_nu) - 1)] + [list(range(len(src_nu) - 1, len(dst_nu)))]
    loc = region.location
    *members, ret = block_ops(region)
    inner = ret.operands[k]
    if (o := defining_op(inner)) is not None and o.name == "tensor.insert_slice":
        # Already padded in the region (a pad of a pad: ONNX's explicit Pad before a ceil-mode pool's own):
        # a second insert of the padded buffer fails IREE 3.13's codegen ("write affecting operations on
        # global resources are restricted to workgroup distributed contexts"); the outer pad stays a copy.
        return False
    if init_from_another_dispatch(inner, region):
        return False
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
        if expand is not None:  # [F, H*W] -> [F, H, W]: a whole image, one tile (tiling.image_in_one_tile)
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
