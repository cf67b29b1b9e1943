"""Conv/matmul bias as an epilogue add: accumulate into zeros, add the bias vector after.

Why: ONNX importers write `Conv(x, w, b)` and `Gemm(a, b, c)` as a contraction accumulating into the
bias broadcast to the whole output (`init[f, oh, ow] = b[f]`). That init is a tensor of the output's
size: IREE's const-eval precomputes it when it is small and then every call reads it from memory (as
much traffic as the output itself), and when it is large (above const-eval's size-increase limit, e.g.
SqueezeNet's first conv, 64x111x111) it is a broadcast dispatch of its own on every call, plus, with
data tiling, a packing dispatch for the accumulator (0.70 + 0.17 ms of SqueezeNet's ~11 ms, profiled).
Accumulating into a zero fill instead (which IREE fuses into the contraction's dispatch and packs for
free) and adding `b[f]` in an elementwise epilogue (which joins the contraction's group, rule
`root-space`) reads F values instead of F x OH x OW. Never more work, so applied without a cost
comparison, like Conv-BN folding (it runs after it: a folded conv keeps its scaled bias in the init).

Numerics: `b + sum(products)` becomes `sum(products) + b`, a different rounding order (~1 ulp).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.opdesc import DataflowGraph, OpKind
from ..ir import add_generic, ir

MAC = ("arith.mulf", "arith.addf")


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[tuple[int, int]]:
    """(contraction/conv, its broadcast init) pairs: an f32 multiply-accumulate whose init is a
    `linalg.generic` copying one smaller input over the output space, used by nothing else."""
    out = []
    for op in graph.ops:
        if (op.kind not in (OpKind.CONTRACTION, OpKind.CONVOLUTION) or tuple(op.body_ops) != MAC
                or len(op.result_shapes) != 1 or any(t != "f32" for t in op.element_types) or op.index in skip):
            continue
        b = op.operands[-1]
        if b is None or b < 0 or b in skip or b in op.operands[:-1]:
            continue
        bc = graph.ops[b]
        if (bc.name != "linalg.generic" or bc.kind is not OpKind.BROADCAST or bc.num_dps_inputs != 1
                or bc.body_ops or bc.result_shapes != op.result_shapes or set(graph.consumers(b)) != {op.index}
                or b in graph.outputs or -1 in bc.map_dims[0]):
            continue
        out.append((op.index, b))
    return out


def zero_init_then_add(root: ir.Operation, n: int, addend: ir.Value,
                       addend_map: ir.Attribute | None = None) -> None:
    """Make `root` accumulate into a zero fill instead of its init operand `n`, and add `addend` (read
    through `addend_map`, identity when None) to its result in an elementwise epilogue, in place."""
    from iree.compiler.dialects import arith, linalg, tensor

    out_t = ir.RankedTensorType(root.results[0].type)
    elt = out_t.element_type
    with root.context, root.location:
        with ir.InsertionPoint(root):
            zero = arith.ConstantOp(elt, ir.FloatAttr.get(elt, 0.0)).result
            fill = linalg.fill(zero, outs=[tensor.EmptyOp(list(out_t.shape), elt).result])
        root.operands[n] = fill
        with ir.InsertionPoint.after(root):
            added = add_generic(root.results[0], addend, addend_map)
    root.results[0].replace_all_uses_except(added, added.owner.operation)


def apply(ops: Sequence[ir.Operation], root_i: int, bcast_i: int) -> None:
    """Zero-fill `ops[root_i]`'s init and add the broadcast's input after it, in place."""
    root, bc = ops[root_i], ops[bcast_i]
    zero_init_then_add(root, len(root.operands) - 1, bc.operands[0],
                       ir.ArrayAttr(bc.attributes["indexing_maps"])[0])
    bc.erase()


def bias_to_epilogue(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many (the caller describes the function again when > 0)."""
    sites = find(graph, skip)
    for root, b in sites:
        apply(ops, root, b)
    return len(sites)
