"""Batch matmuls over a batch of one, or of one shared weight, as plain 2-D matmuls.

Why: ONNX MatMul of a `[1, S, H]` activation by an `[H, N]` weight imports as `linalg.batch_matmul`
over `[1, S, H] x [1, H, N]`. IREE's data tiling packs only plain matmuls (one M, N and K loop, no
batch: `cost.model.data_tileable`), so the transformer projections ran as unpacked batch matmuls
(`contraction` efficiency) while the same shapes as matmuls get mmt4d tiles. Collapsing the unit
batch dim (operands viewed as 2-D, the result expanded back, the expand moved below the epilogue by
the same reshape propagation as the conv strategy) changes no arithmetic, so it is applied whenever
it matches.

The same holds where the batch matmul's right operand is one `[K, N]` weight broadcast over the batch
(torch's exporter writes a Linear over a 4-D channels-last activation, ConvNeXt's `[1, H, W, C] x [C, 4C]`,
as broadcast + `batch_matmul` over `[H, W, C] x [H, C, 4C]`): the batch folds into M (`[H*W, C] x [C, 4C]`)
and the broadcast, a copy of the weight per batch on every call, is gone. IREE 3.13 also failed to compile
those batch matmuls with their GELU epilogue in one dispatch ("vector.store op write affecting operations
on global resources ...").
A weight broadcast transposed (torch-mlir's GRU / LSTM input projection of all time steps, `W^T` over T)
is shared the same way; the 2-D op is then a contraction reading the `[N, K]` weight transposed.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.classify import NAMED_MATMUL_DIMS
from ..analysis.opdesc import DataflowGraph
from ..ir import ir, mul_add_generic
from .taps import map_attr


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[int]:
    """Named `linalg.batch_matmul`s with default maps whose batch is 1 or whose right operand is a
    broadcast weight (`shared_weight`), not pinned or barred."""
    return [op.index for op in graph.ops
            if op.name == "linalg.batch_matmul" and tuple(op.map_dims) == NAMED_MATMUL_DIMS[op.name]
            and op.index not in skip and all(len(s) == 3 for s in op.operand_shapes)
            and ((op.loop_ranges[0] == 1 and all(s[0] == 1 for s in op.operand_shapes))
                 or shared_weight(graph, op.operands[1]))]


def shared_weight(graph: DataflowGraph, producer: int | None) -> bool:
    """Whether `producer` is a plain broadcast of a 2-D `[K, N]` value over a leading batch dim, or a
    `collapse_shape` merging the leading dims of one over several (a Linear on `[B, H, W, C]`: torch's
    MatMul of a 4-D activation imports as a `[B, H, K, N]` broadcast collapsed to `[B*H, K, N]`; at batch 1
    the unit dim was folded and the plain form matched, at batch 3 ConvNeXt-V2's MLPs stayed batch matmuls)."""
    if producer is None or producer < 0:
        return False
    b = graph.ops[producer]
    if b.name == "tensor.collapse_shape" and b.operands and isinstance(b.operands[0], int) and b.operands[0] >= 0:
        src = graph.ops[b.operands[0]]
        n = len(src.loop_ranges)
        return (src.name == "linalg.generic" and src.num_dps_inputs == 1 and not src.body_ops and n >= 4
                and tuple(src.map_dims) == ((n - 2, n - 1), tuple(range(n))) and set(src.iterator_types) == {"parallel"}
                and len(graph.consumers(producer)) == 1)
    return (b.name == "linalg.generic" and b.num_dps_inputs == 1 and not b.body_ops
            and tuple(b.map_dims) in (((1, 2), (0, 1, 2)), ((2, 1), (0, 1, 2))) and set(b.iterator_types) == {"parallel"})


def _transposed(broadcast: ir.Operation) -> bool:
    """A broadcast reading its weight `[N, K]` at `(k, n)`: torch-mlir's GRU / LSTM input projection over
    all time steps (`W^T` broadcast over T, then a batch matmul of T x [B, I] by [I, 3H])."""
    from ..ir import indexing_maps

    src = indexing_maps(broadcast)[0]
    return [str(e) for e in src.results] == ["d2", "d1"]


def apply(op: ir.Operation) -> None:
    """Replace one unit-batch batch_matmul by collapse -> linalg.matmul -> expand, in place."""
    from iree.compiler.dialects import linalg, tensor

    out_t = ir.RankedTensorType(op.results[0].type)

    def flat(v: ir.Value) -> ir.Value:
        t = ir.RankedTensorType(v.type)
        return tensor.CollapseShapeOp(ir.RankedTensorType.get(list(t.shape[1:]), t.element_type), v,
                                      [[0, 1], [2]]).result

    shared, collapse = None, None
    rhs = op.operands[1].owner
    if out_t.shape[0] != 1 and isinstance(rhs, ir.OpView | ir.Operation):
        shared = rhs.operation  # the broadcast (`find` checked it): its input is the 2-D weight
        if shared.name == "tensor.collapse_shape":  # ... or the collapse of one over several dims
            collapse, shared = shared, shared.operands[0].owner.operation
    with op.context, op.location, ir.InsertionPoint(op):
        if shared is None:
            a, b, init = (flat(op.operands[k]) for k in range(3))
        else:
            t = ir.RankedTensorType(op.operands[0].type)
            o = ir.RankedTensorType(op.operands[2].type)
            a = tensor.CollapseShapeOp(ir.RankedTensorType.get([t.shape[0] * t.shape[1], t.shape[2]], t.element_type),
                                       op.operands[0], [[0, 1], [2]]).result
            init = tensor.CollapseShapeOp(ir.RankedTensorType.get([o.shape[0] * o.shape[1], o.shape[2]],
                                                                  o.element_type), op.operands[2], [[0, 1], [2]]).result
            b = shared.operands[0]
        if shared is not None and collapse is None and _transposed(shared):  # b is [N, K]: a x b^T
            mm = mul_add_generic([a, b], init, [map_attr(3, r) for r in (["d0", "d2"], ["d1", "d2"], ["d0", "d1"])],
                                 ["parallel", "parallel", "reduction"])
        else:
            mm = linalg.matmul(a, b, outs=[init])
        res = tensor.ExpandShapeOp(out_t, mm, [[0, 1], [2]], [], list(out_t.shape)).result
    op.results[0].replace_all_uses_with(res)
    op.erase()
    for dead in (collapse, shared):
        if dead is not None and not list(dead.results[0].uses):
            dead.erase()


def flatten_unit_batches(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site, then move the reshapes past the epilogues; returns how many."""
    from .choice import func_of
    from .collapse_dims import propagate_and_collapse

    sites = find(graph, skip)
    if not sites:
        return 0
    fn = func_of(ops[sites[0]])
    for i in sites:
        apply(ops[i])
    propagate_and_collapse(fn)  # reductions the propagation stops at (LayerNorm after a batch-2 matmul)
    return len(sites)
