"""Window taps over a padded `[.., H*W]` region result read from a flat padded buffer (issue 6's pad copies).

A 1x1 conv's matmul writes `[F, H*W]`; an `expand_shape` splits it into rows `[F, H, W]` and a
`tensor.pad` pads the rows and columns for a stride-1 window (Inception-v2's average pools, moved after
their 1x1 convs by `pool-conv-swap`; a depthwise conv after a 1x1 conv). IREE 3.13 cannot store the
matmul's result into the padded buffer through the reshape, so the pad became a `slow_memcpy` dispatch
of its own (Inception-v2: 6 of its 9 copies); storing the matmul's data-tiled tiles through the reshape
instead was measured slower than the copy (transforms/padded_results.py).

Padded flat, the buffer needs no reshape: `[F, lo + H*W + hi]` with `lo = low_h * W + low_w` (and `hi`
alike; channels-last, `[lo + H*W + hi, F]`: the split dim may be any one), into which the matmul's region stores its own tiles at an offset (padded_results.py, a box of
its result), and each window tap `(dh, dw)` is the flat slice at `lo + dh * W + dw`, reshaped to rows
inside the taps' region. Rows above and below the image read the buffer's padding; a column shift reads
the neighbouring row's edge instead of the padding, so the taps' op reads such a slice through a select
on its column index (`w + dw` outside `[0, W)` -> the pad value): every element of every tap is the one
the padded slice held. Measured (2026-12-03, this 2-core AVX-512 VM, 400 interleaved calls of the
matmul + 3x3 average pool + ReLU): 32x784 (K 192) 98.1 -> 97.9 us, 128x196 (K 576) 257 -> 260 us, one
dispatch fewer and no copy; a flat slice read through a linearized map (`d1 * W + d2`) instead of the
in-region reshape ran 15-20% slower.
"""
from __future__ import annotations

from ..ir import arith, block_ops, defining_op, indexing_maps, ir, linalg, static_pad, tensor, use_owner
from .padded_results import pad_constant, single_use, static_amounts, write_pad_into_region


def _ints(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _row_split(exp: ir.Operation) -> int | None:
    """The dim `k` an `expand_shape` splits in two (`[.., H*W, ..]` -> `[.., H, W, ..]`: dims k, k+1 of its
    result), when it splits that one dim only; else None."""
    groups = [[ir.IntegerAttr(i).value for i in g] for g in ir.ArrayAttr(exp.attributes["reassociation"])]
    split = [j for j, g in enumerate(groups) if len(g) != 1]
    if len(split) != 1 or len(groups[split[0]]) != 2:
        return None
    return groups[split[0]][0]


def _identity_readers(s: ir.Operation, region: ir.Operation, rank: int) -> list[tuple[ir.Operation, int]] | None:
    """(generic, operand number) of each use of slice `s`: a `linalg.generic` in `region` reading it through
    the identity map of `rank` loops; None when any use is something else."""
    out = []
    ident = ir.AffineMap.get_identity(rank)
    for use in s.results[0].uses:
        g = use_owner(use)
        if g.name != "linalg.generic" or g.parent is None or g.parent.operation != region.operation:
            return None
        maps = indexing_maps(g)
        if maps[use.operand_number] != ident:
            return None
        out.append((g, use.operand_number))
    return out


def _mask_column(g: ir.Operation, operand: int, col: int, dw: int, width: int, value: ir.Attribute) -> None:
    """In generic `g`'s body, read operand `operand` as the pad value where its column `w + dw` is outside
    `[0, width)` (loop `col` is the column: the operand is read through the identity map)."""
    blk = g.regions[0].blocks[0]
    arg = blk.arguments[operand]
    uses = [(u.owner, u.operand_number) for u in arg.uses]
    first = next(iter(blk.operations))
    with g.location, ir.InsertionPoint(first):
        w = linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), col)).result
        bound = arith.ConstantOp(ir.IndexType.get(), -dw if dw < 0 else width - dw).result
        ok = arith.CmpIOp(arith.CmpIPredicate.uge if dw < 0 else arith.CmpIPredicate.ult, w, bound).result
        pad = arith.ConstantOp(arg.type, value).result
        sel = arith.SelectOp(ok, arg, pad).result
    for owner, k in uses:
        owner.operands[k] = sel


def rewrite_flat_taps(func_op: ir.Operation) -> int:
    """Rewrite every eligible top-level `tensor.pad` of `func_op` (see the module docstring); returns how
    many. Eligible: the pad of a row-splitting `expand_shape` of a region result used only by them,
    static, by a constant, along the last two dims only; every reader a unit-stride slice of the source's
    shape inside one region, read by generics of that region through the identity map."""
    with func_op.context:
        return sum(_rewrite(op) for op in block_ops(func_op) if op.name == "tensor.pad")


def _rewrite(pad: ir.Operation) -> bool:
    low, high = static_amounts(pad, "static_low"), static_amounts(pad, "static_high")
    src = pad.operands[0]
    exp = defining_op(src)
    if low is None or high is None or exp is None or exp.name != "tensor.expand_shape" or not single_use(src):
        return False
    flat = exp.operands[0]
    producer = defining_op(flat)
    k = _row_split(exp)
    if producer is None or producer.name != "flow.dispatch.region" or not single_use(flat) or k is None:
        return False
    src_t, flat_t = ir.RankedTensorType(src.type), ir.RankedTensorType(flat.type)
    if not (src_t.has_static_shape and flat_t.has_static_shape):
        return False
    n = src_t.rank
    rest = [j for j in range(n) if j not in (k, k + 1)]
    if any(low[j] or high[j] for j in rest) or not any(low + high):
        return False
    with pad.location:
        value = pad_constant(pad, src_t.element_type)
    if value is None:
        return False
    shape = list(src_t.shape)
    h, w = shape[k], shape[k + 1]
    slices = [use_owner(u) for u in pad.results[0].uses]
    taps: list[tuple[ir.Operation, int, list[tuple[ir.Operation, int, int]]]] = []
    for s in slices:
        if s.name != "tensor.extract_slice" or s.parent is None or s.parent.name != "flow.dispatch.region":
            return False
        if len(s.operands) != 1 or _ints(s, "static_sizes") != shape or set(_ints(s, "static_strides")) != {1}:
            return False
        offs = _ints(s, "static_offsets")
        if any(offs[j] for j in rest) or s.parent.operation != slices[0].parent.operation:
            return False
        readers = _identity_readers(s, s.parent, n)
        if readers is None:
            return False
        dh, dw = offs[k] - low[k], offs[k + 1] - low[k + 1]
        taps.append((s, dh * w + dw, [(g, k, dw) for g, k in readers] if dw else []))
    lo, hi = low[k] * w + low[k + 1], high[k] * w + high[k + 1]
    at = [0] * (n - 1)
    with pad.location, ir.InsertionPoint(pad):
        buf = static_pad(flat, at[:k] + [lo] + at[k:-1], at[:k] + [hi] + at[k:-1],
                         arith.ConstantOp(src_t.element_type, value).result)
    reassoc = [[j] for j in range(k)] + [[k, k + 1]] + [[j] for j in range(k + 2, n)]
    for s, shift, readers in taps:
        with s.location, ir.InsertionPoint(s):
            part = tensor.ExtractSliceOp(flat_t, buf, [], [], [], at[:k] + [lo + shift] + at[k:-1],
                                         list(flat_t.shape), [1] * (n - 1)).result
            rows = tensor.ExpandShapeOp(src_t, part, reassoc, [], shape).result
        s.results[0].replace_all_uses_with(rows)
        s.erase()
        for g, j, dw in readers:
            _mask_column(g, j, k + 1, dw, w, value)
    pad.erase()
    exp.erase()
    write_pad_into_region(defining_op(buf))
    return True
