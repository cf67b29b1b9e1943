"""A last-dim concat of slices of one tensor (each maybe through one elementwise op) as one gathering op.

Why: rotary position embeddings (Llama, Qwen, Mistral, GPT-NeoX, ...) compute `rotate_half(x) =
cat(-x[..., h:], x[..., :h], -1)`. Imported, that is two slices, a negate and a `tensor.concat` along
the innermost dim, which IREE 3.13 lowers by transposing every piece so the concat runs along the
outermost dim and transposing the result back: per rotary site a negate dispatch, three transposing
copies, and the `x * cos + rotate_half(x) * sin` arithmetic split around them (a Llama block with
grouped-query attention: 7 dispatches for each of q and k). One `linalg.generic` over the concat's
result reading the slices' source at `i + s_k - o_k` (`tensor.extract`: piece k covers `[o_k, o_k + h_k)`
of the output and starts at `s_k` of the source) with each piece's elementwise body selected by
`linalg.index` is an elementwise op the planner fuses with the rotary multiply-add: one dispatch after the
source is materialized.

Exact: every output element is the same scalar op on the same source element. Only the innermost dim:
there the gather walks the source row the output walks; along an outer dim IREE writes each piece in
place (no copy) and the concat is free.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.classify import is_pointwise
from ..analysis.opdesc import DataflowGraph
from ..ir import clone_body, erase_dead_empty, ir

NAME = "slice-concat"


@dataclass(frozen=True)
class Site:
    concat: int
    pieces: tuple[tuple[int, int | None], ...]    # per concat input: (extract_slice, elementwise op or None)


def _slice_of(graph: DataflowGraph, i: int | None) -> tuple[int, int | None] | None:
    """(slice, elementwise op or None) when value `i` is a slice, or a one-input pointwise op of a slice."""
    if i is None or i < 0:
        return None
    op = graph.ops[i]
    if op.name == "tensor.extract_slice":
        return i, None
    if (is_pointwise(op) and op.num_dps_inputs == 1 and op.map_dims[0] == op.map_dims[-1]
            and isinstance(op.operands[0], int) and op.operands[0] >= 0
            and graph.ops[op.operands[0]].name == "tensor.extract_slice"):
        return op.operands[0], i
    return None


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[Site]:
    """Innermost-dim `tensor.concat`s of two or more inputs, each a slice (maybe through one elementwise
    op) of one common source (as the graph sees it: constants all look alike there, so `apply` checks the
    IR values, offsets and strides)."""
    out = []
    for op in graph.ops:
        if op.name != "tensor.concat" or op.index in skip or len(op.operands) < 2:
            continue
        pieces = [_slice_of(graph, p) for p in op.operands]
        if any(p is None for p in pieces) or any(i in skip for p in pieces for i in p if i is not None):
            continue
        sources = {graph.ops[s].operands[0] for s, _ in pieces}
        if len(sources) == 1 and len({s for s, _ in pieces}) == len(pieces):
            out.append(Site(op.index, tuple(pieces)))
    return out


def _attr_list(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _plan(concat: ir.Operation, slices: list[ir.Operation]) -> tuple[int, list[int], list[int]] | None:
    """(source axis, per piece its output start, per piece its source start) when the pieces tile the
    concat's innermost dim and differ from each other only in their source offset along one axis."""
    out_t = ir.RankedTensorType(concat.results[0].type)
    rank = out_t.rank
    if int(ir.IntegerAttr(concat.attributes["dim"]).value) != rank - 1 or rank == 0:
        return None
    src_t = ir.RankedTensorType(slices[0].operands[0].type)
    if not out_t.has_static_shape or not src_t.has_static_shape:
        return None
    first_sizes = _attr_list(slices[0], "static_sizes")
    offsets = [_attr_list(s, "static_offsets") for s in slices]
    if any(len(s.operands) != 1 or s.operands[0] != slices[0].operands[0] for s in slices) \
            or any(_attr_list(s, "static_strides") != [1] * src_t.rank for s in slices) \
            or any(_attr_list(s, "static_sizes") != first_sizes for s in slices):
        return None
    piece_t = ir.RankedTensorType(slices[0].results[0].type)
    if piece_t.shape[-1] != first_sizes[-1]:
        return None  # the pieces' innermost dim must be the source's (a non-unit size is never dropped)
    axis = src_t.rank - 1
    if any(o[:axis] != offsets[0][:axis] for o in offsets):
        return None
    h = first_sizes[axis]
    if h < 2 or h * len(slices) != out_t.shape[-1] or any(o[axis] + h > src_t.shape[axis] for o in offsets):
        return None
    return axis, [k * h for k in range(len(slices))], [o[axis] for o in offsets]


def apply(ops: Sequence[ir.Operation], site: Site) -> list[int]:
    """Replace the concat by one gathering generic; erase the pieces nothing else reads. Returns the erased
    op indices (none when the offsets do not fit)."""
    from iree.compiler.dialects import arith, linalg, tensor

    concat = ops[site.concat]
    slices = [ops[s] for s, _ in site.pieces]
    plan = _plan(concat, slices)
    if plan is None:
        return []
    elems = [ops[e] if e is not None else None for _, e in site.pieces]
    for e in elems:
        if e is not None:
            blk = e.regions[0].blocks[0]
            if any(True for _ in blk.arguments[1].uses):
                return []
    axis, starts, srcs = plan
    out_t = ir.RankedTensorType(concat.results[0].type)
    src_t = ir.RankedTensorType(slices[0].operands[0].type)
    sizes = _attr_list(slices[0], "static_sizes")
    row_offsets = _attr_list(slices[0], "static_offsets")
    rank = out_t.rank
    with concat.context, concat.location, ir.InsertionPoint(concat):
        index = ir.IndexType.get()
        # The source rows the pieces read, as one view of the concat's rank: the pieces' view, whole rows.
        row_sizes = sizes[:axis] + [src_t.shape[axis]]
        row_offsets = row_offsets[:axis] + [0]
        row_t = ir.RankedTensorType.get(list(out_t.shape[:-1]) + [src_t.shape[axis]], src_t.element_type)
        row = tensor.ExtractSliceOp(row_t, slices[0].operands[0], [], [], [], row_offsets, row_sizes,
                                    [1] * src_t.rank).result
        empty = tensor.EmptyOp(list(out_t.shape), out_t.element_type).result
        ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))
        gen = linalg.GenericOp([out_t], [], [empty], ir.ArrayAttr.get([ident]),
                               ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank))
        blk = gen.regions[0].blocks.append(out_t.element_type)
        with ir.InsertionPoint(blk):
            idx = [linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result for d in range(rank)]
            i = idx[-1]

            consts: dict[int, ir.Value] = {}

            def const(v: int) -> ir.Value:
                if v not in consts:
                    consts[v] = arith.ConstantOp(index, v).result
                return consts[v]
            below = {k: arith.CmpIOp(arith.CmpIPredicate.ult, i, const(starts[k + 1])).result
                     for k in range(len(slices) - 1)}   # in piece k or an earlier one
            # piece k: output [starts[k], starts[k] + h) reads source column i - starts[k] + srcs[k]
            src_col = arith.AddIOp(i, const(srcs[-1] - starts[-1])).result
            for k in range(len(slices) - 2, -1, -1):
                src_col = arith.SelectOp(below[k], arith.AddIOp(i, const(srcs[k] - starts[k])).result, src_col).result
            v = tensor.ExtractOp(row, idx[:-1] + [src_col]).result
            values = [clone_body(e.regions[0].blocks[0], {e.regions[0].blocks[0].arguments[0]: v}) if e is not None else v
                      for e in elems]
            result = values[-1]
            for k in range(len(slices) - 2, -1, -1):
                if values[k] is not result:  # two plain slices yield the same `v`: no select between them
                    result = arith.SelectOp(below[k], values[k], result).result
            linalg.YieldOp([result])
    concat.results[0].replace_all_uses_with(gen.result)
    concat.erase()
    erased = [site.concat]
    for (s_i, e_i), s, e in zip(site.pieces, slices, elems):
        if e is not None and not list(e.results[0].uses):
            init = e.operands[1]
            e.erase()
            erased.append(e_i)
            erase_dead_empty(init)
        if not list(s.results[0].uses):
            s.erase()
            erased.append(s_i)
    return erased


def gather_slice_concats(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many."""
    done = 0
    erased: set[int] = set()
    for site in find(graph, skip):
        touched = {site.concat, *(i for p in site.pieces for i in p if i is not None)}
        if erased & touched:
            continue
        gone = apply(ops, site)
        erased.update(gone)
        done += bool(gone)
    return done
