"""Unit dims read at a constant index dropped from elementwise generics, before IREE's transpose propagation.

Why: `iree-global-opt-propagate-linalg-transpose` (IREE 3.13) reads every input map of an elementwise
generic next to a transpose as dims (`getSingleTransposedInputOperand` casts each result to
`AffineDimExpr`). torch-mlir writes a broadcast from a kept unit dim as a constant, `(d0, d1, d2) ->
(d0, d1, 0)` (every LayerNorm and softmax of an export with keepdims), and on those the pass reads
uninitialized memory as a dim position (valgrind: "use of uninitialised value" in that function, the
value allocated as an AffineDimExprStorage) and indexes the permutation with it. Whether that segfaults
depends on the heap: torch's TransformerEncoder export passed on this machine and crashed on every one of
four tries on the CI machine. Reading the operand through `tensor.collapse_shape` without those unit dims
(`(d0, d1, d2) -> (d0, d1)`) leaves only dims in the maps; IREE's unit-dim folding, which runs next
(onnx_import.FOLD_UNIT_DIMS), removes the same dims anyway. A constant index into a longer dim (not a
torch-mlir form, but valid Linalg) becomes a slice at that index. The `.mlir` path (mlir_normalize)
and the conv layout rewrite (rewrites/layout.py), which run the same pass in this process, call it too.
Numbers are unchanged: the same elements are read.
"""
from __future__ import annotations

from ..ir import affine_constant, indexing_maps, ir, tensor


def drop_constant_reads(root: ir.Module | ir.Operation) -> int:
    """Rewrite each all-parallel generic in `root` (a module, or a function) whose input maps have
    constant results; returns how many inputs were rewritten."""
    n = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal n
        if op.name == "linalg.generic":
            n += _rewrite(op)
        return ir.WalkResult.ADVANCE

    with root.context, ir.Location.unknown():
        root.operation.walk(visit)
    return n


def _rewrite(op: ir.Operation) -> int:
    """Only generics the pass could take as elementwise (parallel loops, permutation outputs)."""
    iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    maps = indexing_maps(op)
    n_in = len(op.operands) - len(op.results)
    if not all("parallel" in t for t in iters) or not all(m.is_permutation for m in maps[n_in:]):
        return 0
    done = 0
    for k in range(n_in):
        at = _constants(maps[k], op.operands[k].type)
        if not at:
            continue
        with ir.InsertionPoint(op), op.location:
            op.operands[k] = _without(op.operands[k], at)
        maps[k] = ir.AffineMap.get(maps[k].n_dims, maps[k].n_symbols,
                                   [e for d, e in enumerate(maps[k].results) if d not in at])
        done += 1
    if done:
        op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])
    return done


def _constants(m: ir.AffineMap, ty: ir.Type) -> dict[int, int]:
    """The operand dims read at a constant index, and the index (static shapes only)."""
    if not isinstance(ty, ir.RankedTensorType) or not ir.RankedTensorType(ty).has_static_shape:
        return {}
    at = {}
    for d, e in enumerate(m.results):
        c = affine_constant(e)
        if c is not None:
            at[d] = c
    return at


def _without(v: ir.Value, at: dict[int, int]) -> ir.Value:
    """`v` without the dims in `at`: a collapse when each is a unit dim read at 0 (a reshape, free in
    IREE), else a rank-reducing slice at those indices."""
    t = ir.RankedTensorType(v.type)
    keep = [d for d in range(t.rank) if d not in at]
    result = ir.RankedTensorType.get([t.shape[d] for d in keep], t.element_type)
    if all(t.shape[d] == 1 and c == 0 for d, c in at.items()):
        return tensor.CollapseShapeOp(result, v, _groups(t.rank, keep)).result
    offsets = [at.get(d, 0) for d in range(t.rank)]
    sizes = [1 if d in at else t.shape[d] for d in range(t.rank)]
    return tensor.ExtractSliceOp(result, v, [], [], [], offsets, sizes, [1] * t.rank).result


def _groups(rank: int, keep: list[int]) -> list[list[int]]:
    """collapse_shape's reassociation: each dropped dim joins the next kept dim's group (the last
    kept dim's after it); no groups when nothing is kept (a rank-0 result)."""
    if not keep:
        return []
    groups: list[list[int]] = []
    pending: list[int] = []
    for d in range(rank):
        pending.append(d)
        if d in keep:
            groups.append(pending)
            pending = []
    groups[-1].extend(pending)
    return groups
