"""Batch matmuls over a batch of one as plain 2-D matmuls.

Why: ONNX MatMul of a `[1, S, H]` activation by an `[H, N]` weight imports as `linalg.batch_matmul`
over `[1, S, H] x [1, H, N]`. IREE's data tiling packs only plain matmuls (one M, N and K loop, no
batch: `cost.model.data_tileable`), so the transformer projections ran as unpacked batch matmuls
(`contraction` efficiency) while the same shapes as matmuls get mmt4d tiles. Collapsing the unit
batch dim (operands viewed as 2-D, the result expanded back, the expand moved below the epilogue by
the same reshape propagation as the conv strategy) changes no arithmetic, so it is applied whenever
it matches.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.classify import NAMED_MATMUL_DIMS
from ..analysis.opdesc import DataflowGraph
from ..ir import ir


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[int]:
    """Named `linalg.batch_matmul`s with default maps whose batch is 1, not pinned or barred."""
    return [op.index for op in graph.ops
            if op.name == "linalg.batch_matmul" and tuple(op.map_dims) == NAMED_MATMUL_DIMS[op.name]
            and op.loop_ranges[0] == 1 and op.index not in skip
            and all(len(s) == 3 and s[0] == 1 for s in op.operand_shapes)]


def apply(op: ir.Operation) -> None:
    """Replace one unit-batch batch_matmul by collapse -> linalg.matmul -> expand, in place."""
    from iree.compiler.dialects import linalg, tensor

    out_t = ir.RankedTensorType(op.results[0].type)

    def flat(v: ir.Value) -> ir.Value:
        t = ir.RankedTensorType(v.type)
        return tensor.CollapseShapeOp(ir.RankedTensorType.get(list(t.shape[1:]), t.element_type), v,
                                      [[0, 1], [2]]).result

    with op.context, op.location, ir.InsertionPoint(op):
        a, b, init = (flat(op.operands[k]) for k in range(3))
        mm = linalg.matmul(a, b, outs=[init])
        res = tensor.ExpandShapeOp(out_t, mm, [[0, 1], [2]], [], list(out_t.shape)).result
    op.results[0].replace_all_uses_with(res)
    op.erase()


def flatten_unit_batches(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site, then move the reshapes past the epilogues; returns how many."""
    from .choice import func_of
    from .im2col import propagate_reshapes

    sites = find(graph, skip)
    if not sites:
        return 0
    fn = func_of(ops[sites[0]])
    for i in sites:
        apply(ops[i])
    propagate_reshapes(fn)
    return len(sites)
