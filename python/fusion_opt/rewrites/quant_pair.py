"""A quantize feeding a dequantize (QDQ models' fake quantization) as one elementwise op.

Why: QDQ models (onnxruntime's `quantize_static` default, TensorRT's explicit quantization) wrap every
activation in QuantizeLinear -> DequantizeLinear. Imported, that is an elementwise f32 -> i8 op, often a
reshape (the importer drops the unit batch dim), and an elementwise i8 -> f32 op reading it. The planner
keeps the i8 tensor between them wherever the dequantize feeds a conv or matmul (a prologue is not fused
into a contraction) or the quantize reads a concat: one more dispatch and a round trip through memory per
activation (SqueezeNet QDQ: 30 extra dispatches). Written as one op (the quantize's body, then the
dequantize's on its value) the pair becomes an ordinary epilogue of the op before it.

Exact: the same scalar ops on the same values in the same order; only the i8 tensor between them is
gone. Where the quantized tensor has other readers the quantize stays for them (it is cheap elementwise
work: a divide, a round, a clamp). Applied to any elementwise op with a narrow integer result (at most 16
bits) read by an elementwise op whose other inputs are scalars, so the dynamic quantization's
`uint8 -> i32 - zero point` is folded the same way.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.classify import is_pointwise
from ..analysis.opdesc import RESHAPE_OPS, DataflowGraph
from ..ir import clone_body, ir

NAME = "quant-pair"
NARROW_TYPES = frozenset({"i1", "i8", "i16"})


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[tuple[int, int | None, int]]:
    """(quantize, reshape or None, dequantize) triples: an elementwise op with a narrow integer result,
    read (directly or through one reshape) as the first input of an elementwise op whose other inputs
    are scalars (rank-0 maps)."""
    out = []
    for c in graph.ops:
        if not is_pointwise(c) or c.index in skip or c.num_dps_inputs < 1:
            continue
        if c.map_dims[0] != c.map_dims[-1] or any(m for m in c.map_dims[1:c.num_dps_inputs]):
            continue
        p, reshape = c.operands[0], None
        if p is not None and p >= 0 and graph.ops[p].name in RESHAPE_OPS:
            reshape, p = p, graph.ops[p].operands[0]
        if p is None or p < 0 or p in skip or p in c.operands[1:]:
            continue
        q = graph.ops[p]
        if is_pointwise(q) and q.element_types[-1] in NARROW_TYPES:
            out.append((p, reshape, c.index))
    return out


def apply(ops: Sequence[ir.Operation], q_i: int, reshape_i: int | None, c_i: int) -> list[int]:
    """Replace dequantize `c_i` by one op over the quantize's domain computing both bodies (then the
    reshape, if one sat between them); the quantize is erased if nothing else reads it. Returns the
    indices of the ops erased (none where a body reads its output's old value: not a plain map)."""
    from iree.compiler.dialects import linalg, tensor

    q, c = ops[q_i], ops[c_i]
    reshape = ops[reshape_i] if reshape_i is not None else None
    q_blk, c_blk = q.regions[0].blocks[0], c.regions[0].blocks[0]
    if any(True for _ in q_blk.arguments[len(q_blk.arguments) - 1].uses) or \
            any(True for _ in c_blk.arguments[len(c_blk.arguments) - 1].uses):
        return []
    q_out = ir.RankedTensorType(q.results[0].type)
    c_out = ir.RankedTensorType(c.results[0].type)
    n_q = len(q.operands) - 1
    q_maps = list(ir.ArrayAttr(q.attributes["indexing_maps"]))
    rank = q_out.rank
    others = list(c.operands)[1:len(c.operands) - 1]
    with c.context, c.location, ir.InsertionPoint(c):
        scalar = ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, []))
        empty = tensor.EmptyOp(list(q_out.shape), c_out.element_type).result
        maps = q_maps[:n_q] + [scalar] * len(others) + [q_maps[-1]]
        fused = linalg.GenericOp([ir.RankedTensorType.get(list(q_out.shape), c_out.element_type)],
                                 list(q.operands)[:n_q] + others, [empty], ir.ArrayAttr.get(maps),
                                 q.attributes["iterator_types"])
        types = [a.type for a in list(q_blk.arguments)[:n_q]] + \
            [a.type for a in list(c_blk.arguments)[1:len(others) + 1]] + [c_out.element_type]
        blk = fused.regions[0].blocks.append(*types)
        mapping = {q_blk.arguments[k]: blk.arguments[k] for k in range(n_q)}
        with ir.InsertionPoint(blk):
            q_value = clone_body(q_blk, mapping)
            mapping = {c_blk.arguments[0]: q_value}
            mapping.update({c_blk.arguments[1 + k]: blk.arguments[n_q + k] for k in range(len(others))})
            linalg.YieldOp([clone_body(c_blk, mapping)])
        result = fused.result
        if reshape is not None:
            reassoc = reshape.attributes["reassociation"]
            if reshape.name == "tensor.collapse_shape":
                result = tensor.CollapseShapeOp(c_out, result, reassoc).result
            else:
                result = tensor.ExpandShapeOp(c_out, result, reassoc, [], list(c_out.shape)).result
    c.results[0].replace_all_uses_with(result)
    c.erase()
    erased = [c_i]
    if reshape is not None and not list(reshape.results[0].uses):
        reshape.erase()
        erased.append(reshape_i)
    if not list(q.results[0].uses):
        q.erase()
        erased.append(q_i)
    return erased


def fold_quant_pairs(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many (the caller describes the function again when > 0). A site
    touching an op an earlier one erased (a chain of narrow ops) waits for the next run."""
    erased: set[int] = set()
    done = 0
    for q, r, c in find(graph, skip):
        if erased & {q, r, c}:
            continue
        gone = apply(ops, q, r, c)
        erased.update(gone)
        done += bool(gone)
    return done
