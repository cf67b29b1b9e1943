"""Gathers at constant indices read only by slices made slices: `x[t]` of a computed tensor is a view.

Why: torch-mlir lowers a recurrence (ONNX `GRU`, `LSTM`) unrolled, and reads each step's input
projection `[T, 1, 3H]` at a constant step `t` as a generic whose body is `tensor.extract %proj[%t, %j]`
(the index a 0-d constant input, the rest `linalg.index`). Such a gather of a computed tensor is no
constant, reads no input through a map, and its consumers (slices of the gates) go to IREE, so it was a
dispatch of its own per step: 80 of the 567 of a 2-layer LSTM + bidirectional GRU over 40 steps
(unseen `seqlstm`), each a few microseconds. As `tensor.extract_slice` it is a view IREE folds into its
readers. Numbers are unchanged: the same elements are read.
"""
from __future__ import annotations

from ..ir import FUSE_ATTR, NO_FUSE_ATTR, all_ops, defining_op, indexing_maps, ir, tensor, use_owner


def slice_constant_gathers(root: ir.Module | ir.Operation) -> int:
    """Rewrite every `gather_slice` generic in `root` as a slice; returns how many."""
    with root.context, ir.Location.unknown():
        found = [(op, s) for op in all_ops(root.operation) if op.name == "linalg.generic" and _read_by_slices(op)
                 and (s := gather_slice(op)) is not None]
        for op, (src, offsets, sizes) in found:
            with ir.InsertionPoint(op), op.location:
                t = ir.RankedTensorType(src.type)
                out = tensor.ExtractSliceOp(op.results[0].type, src, [], [], [], offsets, sizes, [1] * t.rank)
            op.results[0].replace_all_uses_with(out.result)
            op.erase()
    return len(found)


def _read_by_slices(op: ir.Operation) -> bool:
    """Only a gather whose every reader is a slice (a GRU step splitting its row into gates): such a gather
    can join no group and was a dispatch of its own. A gather an elementwise op reads (an LSTM or Elman RNN
    step adding its row) joins the matmul's epilogue as it is (legality `side-input`, `_row_gather`); made
    a slice, an unseen Elman RNN planned 154 dispatches instead of 100."""
    uses = list(op.results[0].uses)
    return bool(uses) and all(use_owner(u).name == "tensor.extract_slice" for u in uses)


def gather_slice(op: ir.Operation) -> tuple[ir.Value, list[int], list[int]] | None:
    """(source, offsets, sizes) when generic `op` only yields `tensor.extract %src[i0, ...]` of a tensor
    defined outside it, each index a constant (an index literal, or a 0-d integer constant input) or
    `linalg.index k` with the k increasing along the source's dims, every loop not read of extent 1, and
    the result the slice with its unit dims dropped or kept as the output has them; else None. Not a
    gather of a copy (`_moves_elements`)."""
    if len(op.results) != 1 or any("parallel" not in str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])) \
            or FUSE_ATTR in op.attributes or NO_FUSE_ATTR in op.attributes:  # pinned: left as written
        return None
    maps = indexing_maps(op)
    n_in = len(op.operands) - 1
    if maps[-1] != ir.AffineMap.get_identity(maps[-1].n_dims):
        return None
    out_t = ir.RankedTensorType(op.results[0].type)
    block = op.regions[0].blocks[0]
    consts = {block.arguments[k]: c for k in range(n_in) if len(maps[k].results) == 0
              and (c := _int_constant(op.operands[k])) is not None}
    values: dict = {}  # body value -> ("const", c) | ("loop", k)
    body = list(block.operations)
    *steps, ret = body
    extract = None
    for o in steps:
        o = o.operation
        if o.name == "arith.index_cast" and o.operands[0] in consts:
            values[o.results[0]] = ("const", consts[o.operands[0]])
        elif o.name == "arith.constant" and isinstance(o.attributes["value"], ir.IntegerAttr):
            values[o.results[0]] = ("const", ir.IntegerAttr(o.attributes["value"]).value)
        elif o.name == "linalg.index":
            values[o.results[0]] = ("loop", ir.IntegerAttr(o.attributes["dim"]).value)
        elif o.name == "tensor.extract" and extract is None:
            extract = o
        else:
            return None
    if extract is None or ret.operation.name != "linalg.yield" or ret.operation.operands[0] != extract.results[0]:
        return None
    src = extract.operands[0]
    if not isinstance(src.type, ir.RankedTensorType) or _inside(src, op) or _moves_elements(defining_op(src)):
        return None
    src_t = ir.RankedTensorType(src.type)
    if not src_t.has_static_shape or not out_t.has_static_shape or src_t.element_type != out_t.element_type:
        return None
    reads = [values.get(v) for v in list(extract.operands)[1:]]
    if any(r is None for r in reads):
        return None
    loops = [r[1] for r in reads if r[0] == "loop"]
    if loops != sorted(set(loops)) or any(out_t.shape[k] != 1 for k in range(out_t.rank) if k not in loops):
        return None
    offsets = [r[1] if r[0] == "const" else 0 for r in reads]
    sizes = [1 if r[0] == "const" else out_t.shape[r[1]] for r in reads]
    if any(not 0 <= o < n for o, n in zip(offsets, src_t.shape)) or any(s > n for s, n in zip(sizes, src_t.shape)):
        return None
    return (src, offsets, sizes) if _drops_unit_dims(sizes, list(out_t.shape)) else None


def _moves_elements(op: ir.Operation | None) -> bool:
    """A transpose or another copy-only generic: its gathers are left to rewrites/transposed_gather.py,
    which reads them from the copy's source and erases the copy (a slice of it would keep the copy)."""
    from .mlir_normalize import copy_only  # it imports this module

    return op is not None and (op.name == "linalg.transpose" or copy_only(op))


def _int_constant(v: ir.Value) -> int | None:
    """The value of a 0-d integer `arith.constant` tensor, else None."""
    op = defining_op(v)
    if op is None or op.name != "arith.constant":
        return None
    try:
        dense = ir.DenseIntElementsAttr(op.attributes["value"])
    except ValueError:
        return None
    return int(dense[0]) if len(dense) == 1 else None


def _inside(v: ir.Value, op: ir.Operation) -> bool:
    """`v` is defined inside `op`'s body (a block argument or an op of it)."""
    owner = defining_op(v)
    if owner is None:
        return v.owner == op.regions[0].blocks[0]
    parent = owner.parent
    while parent is not None:
        if parent == op:
            return True
        parent = parent.parent
    return False


def _drops_unit_dims(sizes: list[int], out: list[int]) -> bool:
    """`out` is `sizes` with some of its unit dims dropped (a rank-reducing slice's result type)."""
    j = 0
    for s in sizes:
        if j < len(out) and s == out[j]:
            j += 1
        elif s != 1:
            return False
    return j == len(out)
