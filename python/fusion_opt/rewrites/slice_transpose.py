"""Moving transposes where IREE's propagation does not: above slices of one tensor and above pads (part of
`conv-layout`'s propagation).

Why: `conv3d-slices` makes a 3-D conv one 2-D conv per kernel plane, each reading a depth slice of the
same padded input; made channels-last, each plane's conv gets its own input transpose, and IREE's
transpose propagation does not move a transpose above a `tensor.extract_slice`: three transpose
dispatches per 3-D conv over almost the same data (C3D's [3, 8, 34, 34] planes of a [3, 10, 34, 34]
input). As slices of one transpose of the whole input they are views again, and the one transpose moves
above the input's pad (made anew in the new layout, as `layout.convert` does for a conv's own input), where
IREE's propagation can take it on to meet the previous conv's transpose back and cancel.

Only where every use of the tensor is such a slice-then-transpose with the same permutation (at least
two): the one transpose then covers what the several did, never a small slice of a big tensor.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..ir import block_ops, defining_op, ir, pad_value, static_pad, transpose, use_owner


def _value_outside(pad: ir.Operation) -> bool:
    """The pad's padding value is defined outside its region (so the pad can be made anew elsewhere)."""
    value = defining_op(pad_value(pad))
    return value is None or value.parent != pad


def movable_pad(op: ir.Operation | None, v: ir.Value) -> bool:
    """A static `tensor.pad` whose only use is `v`'s conv and whose padding value is defined outside it
    (IREE's propagation moves transposes through elementwise ops but not through pads)."""
    return (op is not None and op.name == "tensor.pad" and len(op.operands) == 1 and len(list(v.uses)) == 1
            and _value_outside(op))


def repad(pad: ir.Operation, src: ir.Value, perm: Sequence[int]) -> ir.Value:
    """`pad` applied to `src`, the pad's source transposed by `perm`."""
    low, high = (list(ir.DenseI64ArrayAttr(pad.attributes[k])) for k in ("static_low", "static_high"))
    return static_pad(src, [low[k] for k in perm], [high[k] for k in perm], pad_value(pad))


def _static(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _perm(op: ir.Operation) -> tuple[int, ...]:
    return tuple(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _pairs(src: ir.Value) -> list[tuple[ir.Operation, ir.Operation]] | None:
    """(slice, transpose) per use of `src`, when every use is a static, rank-keeping slice used only by a
    `linalg.transpose`, all with one permutation; else None."""
    pairs = []
    for use in src.uses:
        sl = use_owner(use)
        if sl.name != "tensor.extract_slice" or len(sl.operands) != 1 or \
                ir.RankedTensorType(sl.results[0].type).rank != ir.RankedTensorType(src.type).rank:
            return None
        users = [use_owner(u) for u in sl.results[0].uses]
        if len(users) != 1 or users[0].name != "linalg.transpose":
            return None
        pairs.append((sl, users[0]))
    if len(pairs) < 2 or len({_perm(t) for _, t in pairs}) != 1:
        return None
    return pairs


def _hoist(src: ir.Value, pairs: Sequence[tuple[ir.Operation, ir.Operation]], order: Sequence[ir.Operation]) -> None:
    from iree.compiler.dialects import tensor

    perm = _perm(pairs[0][1])
    anchor = next(op for op in order if any(op == sl for sl, _ in pairs))  # the first slice in block order
    pad = defining_op(src)
    with anchor.context, anchor.location, ir.InsertionPoint(anchor):
        if pad is not None and pad.name == "tensor.pad" and len(pad.operands) == 1 and _value_outside(pad):
            # the pad made anew after the transpose, which can then meet the producer's own
            whole = repad(pad, transpose(pad.operands[0], perm), perm)
        else:
            whole = transpose(src, perm)
    for sl, tr in pairs:
        offs, sizes, strides = (_static(sl, k) for k in ("static_offsets", "static_sizes", "static_strides"))
        with tr.context, tr.location, ir.InsertionPoint(tr):
            new = tensor.ExtractSliceOp(tr.results[0].type, whole, [], [], [], [offs[k] for k in perm],
                                        [sizes[k] for k in perm], [strides[k] for k in perm]).result
        tr.results[0].replace_all_uses_with(new)
        tr.erase()
        sl.erase()


def hoist_transposes(fn: ir.Operation) -> int:
    """Rewrite every tensor whose uses are all slice-then-transpose (see the module docstring); returns
    how many tensors."""
    order = block_ops(fn)
    sources: list[ir.Value] = []
    for op in order:
        sl = defining_op(op.operands[0]) if op.name == "linalg.transpose" else None
        if sl is not None and sl.name == "tensor.extract_slice" and not any(v == sl.operands[0] for v in sources):
            sources.append(sl.operands[0])
    done = 0
    for src in sources:  # found first: a rewrite erases ops of the walk
        pairs = _pairs(src)
        if pairs is not None:
            _hoist(src, pairs, order)
            done += 1
    return done
