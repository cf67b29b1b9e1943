"""A pad of a pad becomes one pad (plus a select where the two padding values differ).

Why: IREE 3.13 writes a producer's result straight into the padded buffer of the `tensor.pad` that reads
it, fusing the pad into the producer's dispatch; with two pads in a row (ONNX's explicit `Pad` before a
ceil-mode max pool, which adds its own `-inf` pad) that dispatch fails its codegen ("'linalg.generic' op
write affecting operations on global resources are restricted to workgroup distributed contexts"), in
IREE's own formation too (`fusion="iree"`), so no fallback could save the model (found 2026-12-03, sixth
unseen-model batch: a conv with stride (1, 2), `F.pad(..., value=0.5)`, `max_pool2d(ceil_mode=True)`).

With one padding value the two pads are one (amounts added). With two, the outer value pads the whole
ring and an elementwise select writes the inner value back into the inner ring: the same tensor, one
pad for IREE to fuse, and the select fuses into the reader like any elementwise op.
"""
from __future__ import annotations

import numpy as np

from ..ir import arith, block_ops, defining_op, functions, ir, linalg, static_pad, tensor
from ..transforms.padded_results import pad_constant, single_use, static_amounts


def fold_pad_chains(module: ir.Module) -> int:
    """Rewrite every static, constant-valued pad of such a pad (used only by it) in `module`; returns how many."""
    n = 0
    with module.context:
        for f in functions(module):
            n += sum(_fold(op) for op in block_ops(f) if op.name == "tensor.pad")
    return n


def _fold(outer: ir.Operation) -> bool:
    inner = defining_op(outer.operands[0])
    if inner is None or inner.name != "tensor.pad" or not single_use(outer.operands[0]):
        return False
    amounts = [static_amounts(p, k) for p in (inner, outer) for k in ("static_low", "static_high")]
    if any(a is None for a in amounts):
        return False
    lo1, hi1, lo2, hi2 = amounts
    src = inner.operands[0]
    src_t, out_t = ir.RankedTensorType(src.type), ir.RankedTensorType(outer.results[0].type)
    if not (src_t.has_static_shape and out_t.has_static_shape):
        return False
    elt = out_t.element_type
    with outer.location:
        v_in, v_out = pad_constant(inner, elt), pad_constant(outer, elt)
        if v_in is None or v_out is None:
            return False
        with ir.InsertionPoint(outer):
            cst_out = arith.ConstantOp(elt, v_out).result
            merged = static_pad(src, [a + b for a, b in zip(lo1, lo2)], [a + b for a, b in zip(hi1, hi2)], cst_out)
            if v_in != v_out:
                ring_box = [(lo2[k], lo2[k] + lo1[k] + src_t.shape[k] + hi1[k]) for k in range(src_t.rank)]
                src_box = [(lo2[k] + lo1[k], lo2[k] + lo1[k] + src_t.shape[k]) for k in range(src_t.rank)]
                merged = _fill_ring(merged, ring_box, src_box, arith.ConstantOp(elt, v_in).result)
    outer.results[0].replace_all_uses_with(merged)
    outer.erase()
    inner.erase()
    return True


def _fill_ring(padded: ir.Value, ring_box: list[tuple[int, int]], src_box: list[tuple[int, int]],
               value: ir.Value) -> ir.Value:
    """`padded` with `value` wherever an element is in `ring_box` but not in `src_box` (the inner pad's ring).
    The ring is a constant i8 mask over the padded dims, not `linalg.index` arithmetic, which may not fuse
    into the pool reading it through a window (legality rule `tile-fuse`: IREE 3.13 recomputes such tiles
    with the wrong indices) and would cost a dispatch of its own."""
    t = ir.RankedTensorType(padded.type)
    dims = [k for k in range(t.rank) if ring_box[k] != (0, t.shape[k]) or src_box[k] != (0, t.shape[k])]
    grids = np.meshgrid(*[np.arange(t.shape[k]) for k in dims], indexing="ij")
    inside = lambda box: np.logical_and.reduce(  # noqa: E731
        [(g >= box[k][0]) & (g < box[k][1]) for g, k in zip(grids, dims)])
    mask = (inside(ring_box) & ~inside(src_box)).astype(np.int8)
    i8 = ir.IntegerType.get_signless(8)
    mask_v = arith.ConstantOp(ir.RankedTensorType.get(list(mask.shape), i8),
                              ir.DenseElementsAttr.get(mask, type=i8)).result
    ident = ir.AffineMap.get_identity(t.rank)
    proj = ir.AffineMap.get(t.rank, 0, [ir.AffineDimExpr.get(k) for k in dims])
    gen = linalg.GenericOp([t], [padded, mask_v], [tensor.EmptyOp(list(t.shape), t.element_type).result],
                           ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in (ident, proj, ident)]),
                           ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * t.rank))
    body = gen.regions[0].blocks.append(t.element_type, i8, t.element_type)
    with ir.InsertionPoint(body):
        ring = arith.TruncIOp(ir.IntegerType.get_signless(1), body.arguments[1]).result
        linalg.YieldOp([arith.SelectOp(ring, value, body.arguments[0]).result])
    return gen.results[0]
