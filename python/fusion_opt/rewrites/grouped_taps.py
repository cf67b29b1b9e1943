"""Grouped convs with few input channels per group as chained window-tap sums (pattern `grouped-taps`).

Why: IREE 3.13 has no fast CPU code for a grouped conv whose groups are narrow. ResNeXt-50's layer-1 3x3
conv (32 groups of 4 -> 4 channels over 56x56, 58 MFLOP) ran 3.5 ms as IREE's direct grouped conv, 4.2 ms
channels-last (`conv_2d_nhwgc_gfhwc`), 2.4 ms for the layer-2 shape as im2col + a matmul batched over the
groups (its M is the group's 4-8 output channels), 2.5 ms as one tap generic with the group's input
channels as a reduction loop, and 0.27 ms as one elementwise op per input channel of the group, each
adding 9 taps (a shifted input slice times a filter column) to the previous one's result, which the planner
fuses into one dispatch (2026-12-05, 2-core AVX-512; onnxruntime's NCHWc kernel: 0.79 ms). The depthwise
form (`depthwise-taps`) is the case of one input channel per group.

Matched on the generic form our import leaves: input `[G, C, Hp, Wp]` read at `(g, c, h + kh * t, w + kw * u)`
(stride 1), filter `[G, F, C, KH, KW]`, output `[G, F, H, W]`, mul-add body, f32, with 2 to
`MAX_GROUP_CHANNELS` input channels per group and at most `MAX_TAPS` taps. Same products; the sum runs over
the group's channels outermost, then the taps in the filter's order (rounding differs in the last bits).
Chosen per conv by the cost model against the better of the direct conv and im2col + matmul; CPU targets
only (IREE's GPU conv code for these is unmeasured).
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.classify import map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..cost.group import elem_bytes
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from ..fusion.legality import numel
from ..ir import ir
from . import im2col
from .choice import Choice, Rewrite
from .taps import MAX_TAPS, affine_map, affine_terms, fold_into_init, parallel_generic, strided_slice

NAME = "grouped-taps"
MAX_GROUP_CHANNELS = 8  # one chained op per input channel of a group: 8 measured-sized chains at most


@dataclass(frozen=True)
class Site:
    """A narrow grouped conv: its op and the dilations of its two window dims."""

    conv: int
    dilation: tuple[int, int]


def site(i: int, op: OpDesc) -> Site | None:
    """Pure: `op` as a grouped conv this rewrite handles, or None."""
    if (op.name != "linalg.generic" or op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2
            or len(op.map_dims) != 3 or len(op.result_shapes) != 1
            or tuple(op.body_ops) != ("arith.mulf", "arith.addf") or any(t != "f32" for t in op.element_types)):
        return None
    inp, flt, out = op.map_dims
    if len(inp) != 4 or len(flt) != 5 or len(out) != 4 or -1 in flt or -1 in out:
        return None
    g, f, c, kh, kw = flt
    kinds = [op.iterator_types[d] for d in (g, f, c, kh, kw)]
    if tuple(out[:2]) != (g, f) or kinds != ["parallel", "parallel", "reduction", "reduction", "reduction"]:
        return None
    oh, ow = out[2], out[3]
    terms = [affine_terms(e) for e in map_results(op.indexing_maps[0])]
    if terms[0] != {g: 1} or terms[1] != {c: 1} or terms[2] is None or terms[3] is None:
        return None
    if set(terms[2]) != {oh, kh} or set(terms[3]) != {ow, kw} or terms[2][oh] != 1 or terms[3][ow] != 1:
        return None  # strided convs keep their strategies
    cs, taps = op.loop_ranges[c], op.loop_ranges[kh] * op.loop_ranges[kw]
    if not 2 <= cs <= MAX_GROUP_CHANNELS or taps > MAX_TAPS or op.loop_ranges[g] < 2:
        return None
    return Site(i, (terms[2][kh], terms[3][kw]))


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[Site]:
    return [s for i, op in enumerate(graph.ops) if i not in skip and (s := site(i, op)) is not None]


def chain_desc(op: OpDesc) -> OpDesc:
    """One op of the chain, for the cost model: elementwise over the output `[G, F, H, W]`, a `[G, H, W]`
    input slice and a `[G, F]` filter column per tap, accumulating into the previous result."""
    *_, kh, kw = op.map_dims[1]
    loops = tuple(op.result_shapes[0])
    taps = op.loop_ranges[kh] * op.loop_ranges[kw]
    xs, ws = (loops[0], loops[2], loops[3]), (loops[0], loops[1])
    eb = elem_bytes(op.element_types[0])
    n = numel(loops)
    ident, x_map, w_map = "(d0, d1, d2, d3) -> (d0, d1, d2, d3)", "(d0, d1, d2, d3) -> (d0, d2, d3)", \
        "(d0, d1, d2, d3) -> (d0, d1)"
    return OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.BROADCAST, loop_ranges=loops,
                  iterator_types=("parallel",) * 4, indexing_maps=(x_map,) * taps + (w_map,) * taps + (ident,),
                  map_dims=((0, 2, 3),) * taps + ((0, 1),) * taps + ((0, 1, 2, 3),),
                  element_types=("f32",) * (2 * taps + 2), operand_shapes=(xs,) * taps + (ws,) * taps + (loops,),
                  result_shapes=(loops,), operands=(op.operands[0],) * taps + (op.operands[1],) * taps + (op.operands[2],),
                  num_dps_inputs=2 * taps, body_ops=("arith.mulf", "arith.addf") * taps, flops=2 * taps * n,
                  bytes_read=(numel(xs) + numel(ws) * taps + n) * eb, bytes_written=n * eb)


def decide(op: OpDesc, target: TargetDesc) -> Choice:
    """Pure: the conv's better standing strategy (direct, or im2col + matmul where `conv-strategy` could
    take it) against the chain, each op of it priced as its own dispatch (an upper bound: they fuse)."""
    kept = estimate([op], target).time_s
    lay = im2col.layout(op, batched=True)
    if lay is not None:
        kept = min(kept, im2col.decide(op, lay, target).after_s)
    chain = op.loop_ranges[op.map_dims[1][2]] * estimate([chain_desc(op)], target).time_s
    return Choice(NAME, f"op {op.index} ({op.loc})", "kept", "channel chain of window taps", kept, chain)


def apply(op: ir.Operation, desc: OpDesc, s: Site) -> None:
    """Replace the grouped conv by one elementwise op per input channel of a group, in place."""
    from iree.compiler.dialects import arith

    _, _, c, kh, kw = desc.map_dims[1]
    ng, nf, nh, nw = desc.result_shapes[0]
    x, w, acc = op.operands[0], op.operands[1], op.operands[2]
    taps = list(itertools.product(range(desc.loop_ranges[kh]), range(desc.loop_ranges[kw])))
    with op.context:
        maps = [affine_map(4, [0, 2, 3])] * len(taps) + [affine_map(4, [0, 1])] * len(taps)

    def fold(acc: ir.Value, args: Sequence[ir.Value]) -> ir.Value:
        for k in range(len(taps)):  # out += x * w, tap by tap in the filter's order
            acc = arith.AddFOp(acc, arith.MulFOp(args[k], args[len(taps) + k]).result).result
        return acc

    channels = desc.loop_ranges[c]
    for ch in range(channels):
        with op.context, op.location, ir.InsertionPoint(op):
            xs = [strided_slice(x, [(0, ng, 1), (ch, 1, 1), (a * s.dilation[0], nh, 1), (b * s.dilation[1], nw, 1)],
                                [ng, nh, nw]) for a, b in taps]
            ws = [strided_slice(w, [(0, ng, 1), (0, nf, 1), (ch, 1, 1), (a, 1, 1), (b, 1, 1)], [ng, nf])
                  for a, b in taps]
        if ch < channels - 1:
            acc = parallel_generic(op, xs + ws, maps, acc, fold)
        else:
            fold_into_init(op, xs + ws, maps, acc, fold)


REWRITE = Rewrite(NAME, lambda graph, ops, skip: find(graph, skip),
                  lambda graph, s, target: decide(graph.ops[s.conv], target),
                  lambda graph, ops, s: apply(ops[s.conv], graph.ops[s.conv], s))
