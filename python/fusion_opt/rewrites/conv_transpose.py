"""Transposed convolutions as one stride-1 conv over the input per output phase, stacked (pattern
`conv-transpose-phases`).

Why: ONNX ConvTranspose imports (torch-mlir) as a stride-1 conv over the input spread out with zeros: a
`tensor.insert_slice` with strides s into a zero fill, then the flipped filter slid over every position. At
stride 2 three of every four products of a 2-D one multiply an inserted zero. An output pixel y = s*q + r
(its phase r) only meets filter taps `ky = t_r + s*j` (t_r = (o - r) mod s, o the insert's offset) and input
rows `q + j + d_r`, so each phase is a stride-1 conv of the input itself with a `ceil(k / s)`-tap slice of the
filter. The phases are stacked as output channels of one conv (`[s*s*F, C, J, J]`, phase-major), whose rows are
shifted so that all phases read the same input window (phases past `o mod s` read one row further: their
rows are numbered from one later and the interleaved result cropped by `s - 1 - o mod s`); the result is
interleaved back by a transpose (depth-to-space) and cropped. The stacked conv is an ordinary conv: the conv
strategies (channels-last, im2col + matmul, Winograd) then choose its form; a k = s kernel (a U-Net's 2x2
stride-2 up-conv) becomes a 1x1 conv, a matmul. Same products, each output summed over the same taps in the
same order (results equal up to the conv strategies' own reassociation). 1/s^2 of the products for the price
of one transpose of the output, a dispatch: chosen per conv by the cost model (`decide`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product

from ..analysis.classify import map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, reassociation, static_ints
from ..ir import (add_generic, attach_units, constant_value, defining_op, erase_dead_empty, ir, mul_add_generic,
                  static_pad, transpose)
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from .choice import Choice, Rewrite
from .layout import transpose_desc
from .taps import affine_terms, strided_slice

NAME = "conv-transpose-phases"


# Named convs of the same form (stride and dilation 1 read as `y + ky` in their maps): `.mlir` input keeps them.
NAMED = ("linalg.conv_1d_ncw_fcw", "linalg.conv_2d_nchw_fchw", "linalg.conv_3d_ncdhw_fcdhw")


@dataclass(frozen=True)
class Dim:
    """One spatial dim of a transposed conv: the insert's stride and offset, the kernel's taps, the input's and
    the output's extents."""

    s: int
    o: int
    k: int
    h: int
    out: int

    @property
    def taps(self) -> int:          # J: taps per phase
        return -(-self.k // self.s)

    @property
    def crop(self) -> int:          # where the output starts in the interleaved result
        return self.s - 1 - self.o % self.s

    @property
    def rows(self) -> int:          # Q: rows per phase of the stacked conv
        return -(-(self.out + self.crop) // self.s)

    @property
    def pad(self) -> tuple[int, int]:   # zeros before and after the input
        low = self.o // self.s
        return low, max(0, self.rows + self.taps - 1 - low - self.h)

    def phase_taps(self, rp: int) -> range:
        """The filter taps of stacked phase `rp` (original phase (rp + o mod s + 1) mod s)."""
        r = (rp + self.o % self.s + 1) % self.s
        return range((self.o - r) % self.s, self.k, self.s)


@dataclass(frozen=True)
class Site:
    conv: int
    nb: int                  # batch loops leading input and output
    dims: tuple[Dim, ...]


def _map_dims(op: OpDesc) -> tuple[list[int], list[int], list[dict[int, int]]] | None:
    """(output dims, filter dims, input terms) when every output and filter result is one loop."""
    try:
        res = [map_results(m) for m in op.indexing_maps]
        out = [int(e.strip()[1:]) for e in res[2]]
        flt = [int(e.strip()[1:]) for e in res[1]]
    except ValueError:
        return None
    terms = [affine_terms(e) for e in res[0]]
    return None if any(t is None for t in terms) else (out, flt, terms)  # type: ignore[return-value]


def site(graph: DataflowGraph, i: int) -> Site | None:
    """Pure: op `i` as a transposed conv (a stride-1 f32 conv `out[b.., f, y..] += x[b.., c, y + ky..] *
    w[f, c, ky..]` over a strided `tensor.insert_slice` into a fill), or None. Every phase needs a tap (k >= s).
    The fill's value is checked on the IR (`find`)."""
    op = graph.ops[i]
    if (op.name not in ("linalg.generic", *NAMED) or op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2
            or len(op.indexing_maps) != 3 or len(op.result_shapes) != 1
            or tuple(op.body_ops) != ("arith.mulf", "arith.addf") or any(t != "f32" for t in op.element_types)):
        return None
    parsed = _map_dims(op)
    if parsed is None:
        return None
    out, flt, inp = parsed
    nsp = len(flt) - 2
    nb = len(out) - 1 - nsp
    if nsp < 1 or nb < 0 or len(inp) != len(out) or flt[0] != out[nb] or inp[nb] != {flt[1]: 1}:
        return None
    if any(inp[b] != {out[b]: 1} for b in range(nb)):
        return None
    if any(inp[nb + 1 + k] != {out[nb + 1 + k]: 1, flt[2 + k]: 1} for k in range(nsp)):
        return None
    spread = _spread(graph, op.operands[0], len(out))
    if spread is None:
        return None
    offs, strides, src = spread
    if any(offs[d] != 0 or strides[d] != 1 for d in range(nb + 1)):
        return None
    dims = tuple(Dim(strides[nb + 1 + k], offs[nb + 1 + k], op.loop_ranges[flt[2 + k]], src[nb + 1 + k],
                     op.result_shapes[0][nb + 1 + k]) for k in range(nsp))
    if all(d.s == 1 for d in dims) or any(d.k < d.s for d in dims):
        return None
    return Site(i, nb, dims)


def _spread(graph: DataflowGraph, p: int | None, rank: int) -> tuple[list[int], list[int], list[int]] | None:
    """(offsets, strides, source extents), one per conv input dim, of the strided `tensor.insert_slice` into a
    fill that produces value `p`, directly or through a `collapse_shape` dropping unit dims (the import folds a
    unit batch after the insert: `[C, H, W]` into `[1, C, H', W']`); None otherwise."""
    if p is None or p < 0:
        return None
    groups = [[d] for d in range(rank)]
    if graph.ops[p].name == "tensor.collapse_shape":
        groups = reassociation(graph.ops[p]) or []
        p = graph.ops[p].operands[0] if graph.ops[p].operands else None
        if p is None or p < 0 or len(groups) != rank:
            return None
    ins = graph.ops[p]
    if ins.name != "tensor.insert_slice" or len(ins.operands) != 2 or ins.operands[1] is None or ins.operands[1] < 0 \
            or graph.ops[ins.operands[1]].name != "linalg.fill":
        return None
    offs, sizes, strides = (static_ints(ins, a) for a in ("static_offsets", "static_sizes", "static_strides"))
    dest = ins.result_shapes[0]
    if not (len(offs) == len(sizes) == len(strides) == len(dest) == sum(map(len, groups))):
        return None
    keep = []
    for g in groups:  # one dim of each group is the conv's; the others unit dims the slice does not move
        k = next((d for d in g if dest[d] != 1), g[-1])
        if any(offs[d] != 0 or strides[d] != 1 or sizes[d] != 1 for d in g if d != k):
            return None
        keep.append(k)
    if [n for n in sizes if n != 1] != [n for n in ins.operand_shapes[0] if n != 1]:
        return None
    return [offs[k] for k in keep], [strides[k] for k in keep], [sizes[k] for k in keep]


def _insert_of(conv: ir.Operation) -> tuple[ir.Operation, ir.Operation | None]:
    """The conv's spread input: its insert_slice, and the collapse_shape between them if any."""
    v = defining_op(conv.operands[0])
    if v is not None and v.name == "tensor.collapse_shape":
        return defining_op(v.operands[0]), v
    return v, None


def find(graph: DataflowGraph, ops: Sequence[ir.Operation] | None = None, skip: set[int] = frozenset()) -> list[Site]:
    """Sites (with `ops`: only where the spread input's fill is zero)."""
    out = [s for i in range(len(graph.ops)) if i not in skip and (s := site(graph, i)) is not None]
    if ops is None:
        return out
    return [s for s in out if constant_value(defining_op(_insert_of(ops[s.conv])[0].operands[1]).operands[0]) == 0.0]


def _stacked_filter(w: ir.Value, dims: Sequence[Dim]) -> ir.Value:
    """`[P*F, C, J..]`: per stacked phase (row-major over the spatial dims), the filter's taps of that phase,
    zero-padded to J taps (a phase of a k % s != 0 kernel has fewer), concatenated along the output
    channels. (Stacked as `[P, F, ..]` and collapsed, a one-channel filter of one-tap phases was reshapes of
    all-unit tensors, which IREE 3.13 failed to compile: "expected rank to be smaller or equal to the other
    rank", fuzz seed 35043.)"""
    from iree.compiler.dialects import tensor

    t = ir.RankedTensorType(w.type)
    f, c = t.shape[0], t.shape[1]
    zero = _f32_zero()
    parts = []
    for phase in product(*(range(d.s) for d in dims)):
        taps = [d.phase_taps(rp) for d, rp in zip(dims, phase)]
        part = strided_slice(w, [(0, f, 1), (0, c, 1), *((r.start, len(r), r.step) for r in taps)])
        if any(len(r) < d.taps for r, d in zip(taps, dims)):
            part = static_pad(part, [0] * (2 + len(dims)), [0, 0, *(d.taps - len(r) for r, d in zip(taps, dims))], zero)
        parts.append(part)
    shape = [len(parts) * f, c, *(d.taps for d in dims)]
    return tensor.ConcatOp(ir.RankedTensorType.get(shape, t.element_type), 0, parts).result


def _f32_zero() -> ir.Value:
    from iree.compiler.dialects import arith

    f32 = ir.F32Type.get()
    return arith.ConstantOp(f32, ir.FloatAttr.get(f32, 0.0)).result


def apply(conv: ir.Operation, desc: OpDesc, s: Site) -> None:
    """Replace transposed conv `conv` by the stacked phase conv, the interleave and the crop, in place."""
    from iree.compiler.dialects import linalg, tensor

    ins, collapse = _insert_of(conv)
    x, w, init = ins.operands[0], conv.operands[1], conv.operands[2]
    out_t = ir.RankedTensorType(conv.results[0].type)
    elt, nb, dims = out_t.element_type, s.nb, s.dims
    nsp, f = len(dims), out_t.shape[nb]
    batch = list(out_t.shape[:nb])
    phases = math.prod(d.s for d in dims)
    with conv.context, conv.location, ir.InsertionPoint(conv):
        zero = _f32_zero()
        x = _reshaped(x, [*batch, *ir.RankedTensorType(conv.operands[0].type).shape[nb:nb + 1], *(d.h for d in dims)])
        xp = static_pad(x, [0] * (nb + 1) + [d.pad[0] for d in dims], [0] * (nb + 1) + [d.pad[1] for d in dims], zero)
        g_shape = [*batch, phases * f, *(d.rows for d in dims)]
        g_init = linalg.fill(zero, outs=[tensor.EmptyOp(g_shape, elt).result])
        maps = [ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{m}>")) for m in desc.indexing_maps]
        g = mul_add_generic([xp, _stacked_filter(w, dims)], g_init, maps, desc.iterator_types)
        # [b.., (r1.., f), q1..] -> [b.., r1.., f, q1..] -> [b.., f, q1, r1, q2, r2..] -> [b.., f, q1*r1, ..]
        split = [*batch, *(d.s for d in dims), f, *(d.rows for d in dims)]
        g6 = tensor.ExpandShapeOp(ir.RankedTensorType.get(split, elt), g,
                                  [[k] for k in range(nb)] + [list(range(nb, nb + nsp + 1))]
                                  + [[nb + nsp + 1 + k] for k in range(nsp)], [], split).result
        inter = transpose(g6, _perm(nb, nsp))
        full = [*batch, f, *(d.rows * d.s for d in dims)]
        y = tensor.CollapseShapeOp(ir.RankedTensorType.get(full, elt), inter,
                                   [[k] for k in range(nb + 1)] + [[nb + 1 + 2 * k, nb + 2 + 2 * k] for k in range(nsp)]).result
        if any(d.crop or d.rows * d.s != d.out for d in dims):
            y = strided_slice(y, [*((0, n, 1) for n in out_t.shape[:nb + 1]), *((d.crop, d.out, 1) for d in dims)])
        if not _zero_fill(init):
            y = add_generic(y, init)  # the conv's own init (a bias broadcast), added after the phases
    conv.results[0].replace_all_uses_with(y)
    conv.erase()
    if collapse is not None and not list(collapse.results[0].uses):
        collapse.erase()
    if not list(ins.results[0].uses):
        fill = defining_op(ins.operands[1])
        ins.erase()
        if fill is not None and not list(fill.results[0].uses):
            empty = fill.operands[1]
            fill.erase()
            erase_dead_empty(empty)


def _reshaped(x: ir.Value, shape: list[int]) -> ir.Value:
    """`x` as `shape`, the same extents less or more unit dims (the insert's source may keep a unit batch the
    conv's input lost, or the reverse)."""
    from iree.compiler.dialects import tensor

    t = ir.RankedTensorType(x.type)
    if list(t.shape) == shape:
        return x

    def groups(s: list[int]) -> list[list[int]]:
        return attach_units(len(s), [d for d, n in enumerate(s) if n != 1] or [len(s) - 1])

    flat = tensor.CollapseShapeOp(ir.RankedTensorType.get([n for n in t.shape if n != 1] or [1], t.element_type), x,
                                  groups(list(t.shape))).result
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, t.element_type), flat, groups(shape), [], shape).result


def _zero_fill(v: ir.Value) -> bool:
    op = defining_op(v)
    return op is not None and op.name == "linalg.fill" and constant_value(op.operands[0]) == 0.0


def decide(graph: DataflowGraph, s: Site, target: TargetDesc) -> Choice:
    """Pure: the spread conv as priced (the model does not see its zeros) against the stacked conv, its time
    scaled by the products kept (launch apart), plus the interleaving transpose as a dispatch of its own. Why
    priced, not always taken: the transpose is a dispatch, and a small decoder's convs cost less than that on
    this VM (a VAE decoder's 4x4 stride-2 up-convs at 8-32 pixels: 13 dispatches against 7, 1.28x slower)."""
    op = graph.ops[s.conv]
    nb, nsp = s.nb, len(s.dims)
    split = [*op.result_shapes[0][:nb], *(d.s for d in s.dims), op.result_shapes[0][nb], *(d.rows for d in s.dims)]
    t = transpose_desc(split, _perm(nb, nsp), op.element_types[-1], op.loc)
    after = estimate([stacked_desc(graph, s)], target).time_s + estimate([t], target).time_s
    return Choice(NAME, f"op {op.index} ({op.loc})", "spread", "phases", estimate([op], target).time_s, after)


def stacked_desc(graph: DataflowGraph, s: Site) -> OpDesc:
    """Pure: the stacked phase conv as the describer would see it (same maps, new extents)."""
    op = graph.ops[s.conv]
    out, flt, _ = _map_dims(op)
    nb, nsp = s.nb, len(s.dims)
    ranges = list(op.loop_ranges)
    ranges[out[nb]] *= math.prod(d.s for d in s.dims)
    for k, d in enumerate(s.dims):
        ranges[out[nb + 1 + k]], ranges[flt[2 + k]] = d.rows, d.taps
    x = (*op.operand_shapes[0][:nb + 1], *(d.rows + d.taps - 1 for d in s.dims))
    w = (ranges[out[nb]], op.operand_shapes[1][1], *(d.taps for d in s.dims))
    y = (*op.result_shapes[0][:nb], ranges[out[nb]], *(d.rows for d in s.dims))
    eb = 4
    return replace(op, loop_ranges=tuple(ranges), operand_shapes=(x, w, y), result_shapes=(y,),
                   flops=2 * math.prod(ranges), bytes_read=eb * (math.prod(x) + math.prod(w)),
                   bytes_written=eb * math.prod(y))


def _perm(nb: int, nsp: int) -> list[int]:
    """`[b.., r.., F, q..]` -> `[b.., F, q1, r1, q2, r2..]`."""
    return [*range(nb), nb + nsp, *(j for k in range(nsp) for j in (nb + nsp + 1 + k, nb + k))]


def rewrite(target: TargetDesc) -> Rewrite:
    """The rewrite for a CPU `target`: sites whose phase convs have at least a vector of f32 lanes of rows in
    every spatial dim. Why: IREE's direct conv over narrower images ran far below its price, a batch-2 VAE
    decoder's 2x2 phase convs over 5x5 and 9x9 rows at 25 GFLOP/s (130 and 121 us, against 58 and 36 us for
    the spread convs they replaced: 13 dispatches against 7, the model 1.28x slower; 2026-12-06)."""
    lanes = target.lanes_f32

    def sites(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int]) -> list[Site]:
        return [s for s in find(graph, ops, skip) if all(d.rows >= lanes for d in s.dims)]

    return Rewrite(NAME, sites, decide, lambda graph, ops, site: apply(ops[site.conv], graph.ops[site.conv], site))
