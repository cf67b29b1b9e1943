"""A full sort whose results are only read through their first k entries, as IREE's top-k op.

Why: ONNX TopK imports (torch-mlir) as `tm_tensor.sort` of the whole row with an iota of indices, then
slices of the first k values and indices. IREE lowers the sort to a scalar sort of every row, quadratic in
its length: DGCNN's nearest-neighbour selection (k = 8 of 64 points, 128 rows) took 515 us per TopK, 80% of
the model. `iree_linalg_ext.topk` keeps only the k best per row in one pass over it (IREE's split-reduction
also parallelizes long rows).

Exact, ties and infinities included: IREE's top-k walks each row in order and inserts an element before
slot j where the comparator holds strictly, so of equal values the earlier index comes first, the order
ONNX TopK defines and torch-mlir's stable sort gave. The slots start as NaN and the comparator is
`ugt` (`ult` for the smallest): every real element beats an empty slot, so an element equal to the
usual -inf initial value is still placed with its own index. Applied only where the sort compares with
`oge` / `ole` (torch-mlir's TopK) and every use of both results is a head slice; the i32 indices are
widened back to the sort's i64. (A NaN input sorts first here; the sort's `oge` left it where the
comparisons happened to put it.)
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.opdesc import DataflowGraph
from ..ir import erase_dead_empty, ir, use_owner

NAME = "sort-topk"
_STRICT = {"oge": "ugt", "ole": "ult"}   # the sort's comparator -> the top-k's, its slots start NaN


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[int]:
    """`tm_tensor.sort`s with two results (values, indices), not pinned or barred; the rest is checked on
    the IR by `apply`."""
    return [op.index for op in graph.ops if op.name == "tm_tensor.sort" and op.index not in skip
            and len(op.result_shapes) == 2]


def _iota_along(v: ir.Value, dim: int) -> bool:
    """Whether `v` is a body-only generic yielding `index_cast(linalg.index dim)`."""
    op = v.owner
    if not isinstance(op, ir.OpView) or op.operation.name != "linalg.generic" or len(op.operands) != 1:
        return False
    body = [o.operation for o in op.regions[0].blocks[0].operations]
    return (len(body) == 3 and body[0].name == "linalg.index" and body[1].name == "arith.index_cast"
            and int(ir.IntegerAttr(body[0].attributes["dim"]).value) == dim)


def _comparator(sort: ir.Operation) -> str | None:
    """The predicate of a comparator that is one `arith.cmpf` of the first two block arguments, in order."""
    blk = sort.regions[0].blocks[0]
    body = [o.operation for o in blk.operations]
    if len(body) != 2 or body[0].name != "arith.cmpf":
        return None
    if body[0].operands[0] != blk.arguments[0] or body[0].operands[1] != blk.arguments[1]:
        return None
    return _predicate_name(body[0])


_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")


def _predicate_name(cmp: ir.Operation) -> str:
    """`oge`, `ole`, ...: the attribute prints as `#arith<cmpfpredicate oge>` or as its enum value."""
    text = str(cmp.attributes["predicate"])
    if "cmpfpredicate" in text:
        return text.split("cmpfpredicate")[1].strip(" >")
    return _CMPF[int(ir.IntegerAttr(cmp.attributes["predicate"]).value)]


def _heads(sort: ir.Operation, dim: int) -> int | None:
    """k when every use of both results is a unit-stride, non-rank-reducing slice of the first k entries
    along `dim` and whole along the other dims; None otherwise."""
    ks = set()
    for r in sort.results:
        t = ir.RankedTensorType(r.type)
        for u in r.uses:
            s = use_owner(u)
            if s.name != "tensor.extract_slice" or len(s.operands) != 1:
                return None
            offs = list(ir.DenseI64ArrayAttr(s.attributes["static_offsets"]))
            sizes = list(ir.DenseI64ArrayAttr(s.attributes["static_sizes"]))
            strides = list(ir.DenseI64ArrayAttr(s.attributes["static_strides"]))
            out = ir.RankedTensorType(s.results[0].type)
            if any(offs) or any(x != 1 for x in strides) or out.rank != t.rank or \
                    any(sizes[d] != t.shape[d] for d in range(t.rank) if d != dim):
                return None
            ks.add(sizes[dim])
    return ks.pop() if len(ks) == 1 else None


def apply(op: ir.Operation) -> bool:
    """Replace one sort + head slices by `iree_linalg_ext.topk` (indices widened back to i64); False
    where the sort is not of that form."""
    from iree.compiler.dialects import arith, linalg, tensor

    if len(op.operands) != 2 or len(op.results) != 2:
        return False
    dim = int(ir.IntegerAttr(op.attributes["dimension"]).value)
    vals, idx = op.operands
    vt, it = ir.RankedTensorType(vals.type), ir.RankedTensorType(idx.type)
    if not vt.has_static_shape or not isinstance(vt.element_type, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type)) or \
            str(it.element_type) not in ("i64", "i32") or not _iota_along(idx, dim):
        return False
    pred = _comparator(op)
    k = _heads(op, dim)
    if pred not in _STRICT or k is None or not 0 < k < vt.shape[dim]:
        return False
    strict, init = _STRICT[pred], float("nan")
    shape = list(vt.shape)
    shape[dim] = k
    i32 = ir.IntegerType.get_signless(32, op.context)
    with op.context, op.location, ir.InsertionPoint(op):
        v_out = ir.RankedTensorType.get(shape, vt.element_type)
        i_out = ir.RankedTensorType.get(shape, i32)
        fill_v = linalg.fill(arith.ConstantOp(vt.element_type, init).result,
                             outs=[tensor.EmptyOp(shape, vt.element_type).result])
        fill_i = linalg.fill(arith.ConstantOp(i32, 0).result, outs=[tensor.EmptyOp(shape, i32).result])
        topk = ir.Operation.create("iree_linalg_ext.topk", results=[v_out, i_out], operands=[vals, fill_v, fill_i],
                                   attributes={"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim),
                                               "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 2])},
                                   regions=1)
        blk = topk.regions[0].blocks.append(vt.element_type, vt.element_type)
        with ir.InsertionPoint(blk):
            cmp = arith.CmpFOp(getattr(arith.CmpFPredicate, strict.upper()), blk.arguments[0], blk.arguments[1]).result
            ir.Operation.create("iree_linalg_ext.yield", operands=[cmp])
        indices = topk.results[1]
        if str(it.element_type) != "i32":
            ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(len(shape)))
            wide_t = ir.RankedTensorType.get(shape, it.element_type)
            wide = linalg.GenericOp([wide_t], [indices], [tensor.EmptyOp(shape, it.element_type).result],
                                    ir.ArrayAttr.get([ident, ident]),
                                    ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * len(shape)))
            wb = wide.regions[0].blocks.append(i32, it.element_type)
            with ir.InsertionPoint(wb):
                linalg.YieldOp([arith.ExtSIOp(it.element_type, wb.arguments[0]).result])
            indices = wide.result
    for r, new in zip(op.results, (topk.results[0], indices)):
        for s in [use_owner(u) for u in r.uses]:
            s.results[0].replace_all_uses_with(new)
            s.erase()
    iota = idx.owner
    op.erase()
    if not list(iota.results[0].uses):
        init = iota.operands[0]
        iota.operation.erase()
        erase_dead_empty(init)
    return True


def sorts_to_topk(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many."""
    return sum(apply(ops[i]) for i in find(graph, skip))
