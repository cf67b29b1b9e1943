"""Collapse a generic's loop dims that it reads through an `expand_shape`, so reshapes stop splitting rows.

Why: after the unit-batch rewrite (rewrites/unit_batch.py) a batch-2 transformer's projection is a
`[34, 64]` matmul whose result is expanded to `[2, 17, 64]`; IREE's reshape propagation
(`iree-dispatch-creation-sink-reshapes`) makes the elementwise consumers 2-D but stops at reductions,
so a LayerNorm came out with its two reductions in `[2, 17, 64]` and its elementwise ops in
`[34, 64]`, a reshape between each: four groups, as reshapes are left outside dispatches (a CLIP-style
text layer, docs/reliability.md batch 8; IREE's own formation of the same graph: one dispatch). Here a
`linalg.generic` reading an operand through an `expand_shape` whose split dims are one run of loop
dims of one iterator type, which every operand's map holds whole and in order or not at all, is
rebuilt over the collapsed run (MLIR's `collapseOpIterationDims`, written out here: the Python
bindings do not expose it); the result is expanded back and the propagation run again, until no such
op is left. The arithmetic is unchanged: a loop nest merged, not reordered.
"""
from __future__ import annotations

from ..ir import ir

MAX_ROUNDS = 16  # each round collapses every op it can; a LayerNorm needs 3


def _dims(m: ir.AffineMap) -> list[int] | None:
    """The dims a map's results read, in order, or None when a result is not a plain dim."""
    out = []
    for e in m.results:
        d = e.maybe_downcast()
        if not isinstance(d, ir.AffineDimExpr):
            return None
        out.append(d.position)
    return out


def _run(op: ir.Operation) -> tuple[int, int] | None:
    """(first dim, last dim): a run of loop dims of `op` read through an expand_shape."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    dims = [_dims(m) for m in maps]
    if any(d is None for d in dims):
        return None
    n_in = len(op.operands) - len(op.results)
    for k in range(n_in):
        src = op.operands[k].owner
        if not isinstance(src, ir.OpView | ir.Operation) or src.operation.name != "tensor.expand_shape":
            continue
        groups = [[ir.IntegerAttr(i).value for i in g] for g in ir.ArrayAttr(src.operation.attributes["reassociation"])]
        for g in groups:
            if len(g) < 2:
                continue
            run = [dims[k][p] for p in g]
            first, last = run[0], run[-1]
            if run != list(range(first, last + 1)) or len({iters[d] for d in run}) != 1:
                continue
            if all(_whole_or_absent(d, first, last) for d in dims):
                return first, last
    return None


def _whole_or_absent(dims: list[int], first: int, last: int) -> bool:
    inside = [i for i, d in enumerate(dims) if first <= d <= last]
    if not inside:
        return True
    return [dims[i] for i in inside] == list(range(first, last + 1)) and inside == list(range(inside[0], inside[-1] + 1))


def _collapsed_map(dims: list[int], n: int, first: int, last: int) -> ir.AffineMapAttr:
    width = last - first
    new = []
    for d in dims:
        if first < d <= last:
            continue
        new.append(d if d <= first else d - width)
    return ir.AffineMapAttr.get(ir.AffineMap.get(n - width, 0, [ir.AffineDimExpr.get(d) for d in new]))


def _groups(rank: int, pos: list[int]) -> list[list[int]]:
    """Reassociation of a rank-`rank` tensor whose consecutive dims `pos` merge into one."""
    return [[i] for i in range(pos[0])] + [pos] + [[i] for i in range(pos[-1] + 1, rank)]


def _collapse_value(v: ir.Value, dims: list[int], first: int, last: int) -> ir.Value:
    """`v` (read through the map results `dims`) with the run [first, last] merged."""
    from .im2col import _collapse

    pos = [i for i, d in enumerate(dims) if first <= d <= last]
    return _collapse(v, _groups(ir.RankedTensorType(v.type).rank, pos)) if pos else v


def _has_index(op: ir.Operation) -> bool:
    return any(o.operation.name == "linalg.index" for o in op.regions[0].blocks[0].operations)


def collapse_op(op: ir.Operation, first: int, last: int) -> None:
    """Rebuild `op` over its loop dims [first, last] merged into one; its results expanded back."""
    from iree.compiler.dialects import linalg, tensor

    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    dims = [_dims(m) for m in maps]
    iters = list(ir.ArrayAttr(op.attributes["iterator_types"]))
    n = len(iters)
    n_in = len(op.operands) - len(op.results)
    with op.context, op.location, ir.InsertionPoint(op):
        operands = [_collapse_value(op.operands[i], dims[i], first, last) for i in range(len(op.operands))]
        new = linalg.GenericOp([o.type for o in operands[n_in:]], operands[:n_in], operands[n_in:],
                               ir.ArrayAttr.get([_collapsed_map(d, n, first, last) for d in dims]),
                               ir.ArrayAttr.get(iters[:first + 1] + iters[last + 1:]))
        old = op.regions[0].blocks[0]
        blk = new.regions[0].blocks.append(*[a.type for a in old.arguments])
        for a, b in zip(old.arguments, blk.arguments):
            a.replace_all_uses_with(b)
        ip = ir.InsertionPoint(blk)
        for inner in [o.operation for o in old.operations]:
            inner.detach_from_parent()
            ip.insert(inner)
        results = []
        for j, r in enumerate(op.results):
            t = ir.RankedTensorType(r.type)
            v = new.results[j]
            if ir.RankedTensorType(v.type).shape != t.shape:
                pos = [i for i, d in enumerate(dims[n_in + j]) if first <= d <= last]
                v = tensor.ExpandShapeOp(t, v, _groups(t.rank, pos), [], list(t.shape)).result
            results.append(v)
    for r, v in zip(op.results, results):
        r.replace_all_uses_with(v)
    op.erase()


def collapse_expanded_reads(fn: ir.Operation) -> int:
    """Collapse every generic of `fn` reading a split run through an expand_shape, propagating the
    reshapes between rounds; returns how many ops were rebuilt."""
    from .im2col import propagate_reshapes

    total = 0
    for _ in range(MAX_ROUNDS):
        found: list[tuple[ir.Operation, tuple[int, int]]] = []

        def visit(o: ir.Operation) -> ir.WalkResult:
            if o.name == "linalg.generic" and not _has_index(o) and (run := _run(o)) is not None:
                found.append((o, run))
            return ir.WalkResult.ADVANCE

        fn.walk(visit)
        if not found:
            break
        for o, (first, last) in found:
            collapse_op(o, first, last)
        total += len(found)
        propagate_reshapes(fn)
    return total


def propagate_and_collapse(fn: ir.Operation) -> None:
    """IREE's reshape propagation, then the collapse above: what every rewrite that leaves reshapes
    behind (unit batches, im2col) finishes with. After the unit-batch collapse, im2col's propagation alone
    bubbled a batch-2 QKV projection's head split back above its bias add (the add then a group apart)."""
    from .im2col import propagate_reshapes

    propagate_reshapes(fn)
    collapse_expanded_reads(fn)
