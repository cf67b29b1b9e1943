"""Depthwise convolutions as a sum of shifted slices: one elementwise op, chosen by the cost model.

Why: IREE 3.13's llvm-cpu code for a depthwise conv (no channel reduction, so no matmul form for
im2col) runs at about 2 GFLOP/s here whatever the layout: ShuffleNet's 136x28x28 3x3 depthwise conv
took 0.9-1.1 ms as `depthwise_conv_2d_nchw_chw` and as `depthwise_conv_2d_nhwc_hwc` between transposes.
Written as `out = init + sum_k x[window k] * w[:, k]` over the KH*KW window taps (each tap a strided
`tensor.extract_slice` of the input, each filter column a `[C]` slice), it is one elementwise op that
IREE vectorizes along the output row: 0.32 ms for the same conv (iree-benchmark-module medians).

The arithmetic per output element is the conv's: the same products accumulated into the init in the
filter's (kh, kw) order. Only f32 depthwise convs with at most `MAX_TAPS` window taps are rewritten
(a 7x7 window would be 49 slices feeding one op).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from ..analysis.classify import map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..cost.group import elem_bytes
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from ..fusion.legality import numel
from ..ir import ir
from .choice import Choice, Rewrite

NAME = "depthwise-taps"
MAX_TAPS = 25
_TERM = re.compile(r"^d(\d+)(?:\s*\*\s*(\d+))?$")


@dataclass(frozen=True)
class Window:
    """Input dim k reads the channel loop alone (`reads[k]` None) or `out * stride + tap * dilation`."""

    channel: int                                     # the loop shared by input, filter and output
    reads: tuple[tuple[int, int, int, int] | None, ...]  # per input dim: (out loop, stride, tap loop, dilation)
    taps: tuple[int, ...]                            # reduction loops in filter order


def _terms(expr: str) -> dict[int, int] | None:
    """`d1 * 2 + d3` -> {1: 2, 3: 1}; None for anything else (constants, mod, ...)."""
    out: dict[int, int] = {}
    for t in expr.split("+"):
        m = _TERM.fullmatch(t.strip())
        if m is None:
            return None
        out[int(m[1])] = int(m[2] or 1)
    return out


def window(op: OpDesc) -> Window | None:
    """The op's Window when it is a depthwise conv this rewrite handles."""
    if (op.name != "linalg.generic" or op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2
            or len(op.indexing_maps) != 3 or tuple(op.body_ops) != ("arith.mulf", "arith.addf")
            or any(t != "f32" for t in op.element_types)):
        return None
    x_res, w_res, o_res = (map_results(m) for m in op.indexing_maps)
    o = [_terms(r) for r in o_res]
    w = [_terms(r) for r in w_res]
    if any(t is None or len(t) != 1 or next(iter(t.values())) != 1 for t in (*o, *w)):
        return None
    out_dims = [next(iter(t)) for t in o]
    w_dims = [next(iter(t)) for t in w]
    red = [d for d, it in enumerate(op.iterator_types) if it == "reduction"]
    if sorted(out_dims) != [d for d, it in enumerate(op.iterator_types) if it == "parallel"]:
        return None
    shared = [d for d in w_dims if d in out_dims]
    taps = tuple(d for d in w_dims if d not in out_dims)
    if len(shared) != 1 or sorted(taps) != red or not taps:
        return None
    chan = shared[0]
    reads: list[tuple[int, int, int, int] | None] = []
    for r in x_res:
        t = _terms(r)
        if t is None:
            return None
        if t == {chan: 1}:
            reads.append(None)
            continue
        par = [(d, s) for d, s in t.items() if d in out_dims and d != chan]
        tap = [(d, s) for d, s in t.items() if d in taps]
        if len(t) != 2 or len(par) != 1 or len(tap) != 1:
            return None
        reads.append((par[0][0], par[0][1], tap[0][0], tap[0][1]))
    used = {rd[2] for rd in reads if rd} | {rd[0] for rd in reads if rd}
    if reads.count(None) != 1 or set(taps) - used or set(out_dims) - used - {chan}:
        return None
    if numel(tuple(op.loop_ranges[d] for d in taps)) > MAX_TAPS:
        return None
    return Window(chan, tuple(reads), taps)


def taps_desc(op: OpDesc, win: Window) -> OpDesc:
    """What the rewrite makes of `op`, for the cost model: one elementwise op over the output with a
    window slice and a filter column per tap, accumulating into the init."""
    out_shape = op.operand_shapes[2]
    n_taps = numel(tuple(op.loop_ranges[d] for d in win.taps))
    o_res = map_results(op.indexing_maps[2])
    loops = tuple(op.loop_ranges[int(r.strip()[1:])] for r in o_res)
    n = len(loops)
    ident = f"({', '.join(f'd{k}' for k in range(n))}) -> ({', '.join(f'd{k}' for k in range(n))})"
    cpos = [int(r.strip()[1:]) for r in o_res].index(win.channel)
    col = f"({', '.join(f'd{k}' for k in range(n))}) -> (d{cpos})"
    eb = elem_bytes(op.element_types[0])
    c = op.loop_ranges[win.channel]
    return OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.BROADCAST, loop_ranges=loops,
                  iterator_types=("parallel",) * n, indexing_maps=(ident,) * n_taps + (col,) * n_taps + (ident,),
                  map_dims=((tuple(range(n)),) * n_taps + ((cpos,),) * n_taps + (tuple(range(n)),)),
                  element_types=("f32",) * (2 * n_taps + 2),
                  operand_shapes=(loops,) * n_taps + ((c,),) * n_taps + (out_shape,), result_shapes=(out_shape,),
                  operands=(op.operands[0],) * n_taps + (op.operands[1],) * n_taps + (op.operands[2],),
                  num_dps_inputs=2 * n_taps, body_ops=("arith.mulf", "arith.addf") * n_taps, flops=op.flops,
                  bytes_read=(numel(op.operand_shapes[0]) + numel(op.operand_shapes[1]) + numel(out_shape)) * eb,
                  bytes_written=numel(out_shape) * eb)


def decide(op: OpDesc, win: Window, target: TargetDesc) -> Choice:
    """Pure: the depthwise conv against its taps form, each priced as its own dispatch."""
    return Choice(NAME, f"op {op.index} ({op.loc})", "direct", "window taps", estimate([op], target).time_s,
                  estimate([taps_desc(op, win)], target).time_s)


def find_depthwise(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[tuple[int, Window]]:
    return [(i, w) for i, op in enumerate(graph.ops) if i not in skip and (w := window(op)) is not None]


def apply_taps(op: ir.Operation, desc: OpDesc, win: Window) -> None:
    """Replace depthwise conv `op` (described by `desc`) by its taps form, in place."""
    from iree.compiler.dialects import arith, linalg, tensor

    x, w, init = op.operands[0], op.operands[1], op.operands[2]
    out_t = ir.RankedTensorType(op.results[0].type)
    elt = out_t.element_type
    o_dims = [int(r.strip()[1:]) for r in map_results(desc.indexing_maps[2])]
    w_dims = [int(r.strip()[1:]) for r in map_results(desc.indexing_maps[1])]
    n = len(o_dims)
    cpos = o_dims.index(win.channel)
    ranges = desc.loop_ranges
    with op.context, op.location, ir.InsertionPoint(op):
        xs, ws = [], []
        for tap in itertools.product(*(range(ranges[d]) for d in win.taps)):
            at = dict(zip(win.taps, tap))
            # per input dim (offset, size, stride): the whole channel dim, or the tap's strided window
            dims = [(0, ranges[win.channel], 1) if rd is None else (at[rd[2]] * rd[3], ranges[rd[0]], rd[1])
                    for rd in win.reads]
            offs, sizes, strides = (list(v) for v in zip(*dims))
            # the slice's dims follow the input's; the output orders its loops its own way
            order = [win.channel if rd is None else rd[0] for rd in win.reads]
            sl_t = ir.RankedTensorType.get(sizes, elt)
            xs.append((tensor.ExtractSliceOp(sl_t, x, [], [], [], offs, sizes, strides).result, order))
            w_offs = [0 if d == win.channel else at[d] for d in w_dims]
            w_sizes = [ranges[win.channel] if d == win.channel else 1 for d in w_dims]
            col_t = ir.RankedTensorType.get([ranges[win.channel]], elt)
            ws.append(tensor.ExtractSliceOp(col_t, w, [], [], [], w_offs, w_sizes, [1] * len(w_dims)).result)
        par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        maps = []
        for _, order in xs:
            res = ", ".join(f"d{o_dims.index(d)}" for d in order)
            maps.append(ir.AffineMapAttr(ir.Attribute.parse(
                f"affine_map<({', '.join(f'd{k}' for k in range(n))}) -> ({res})>")))
        col = ir.AffineMapAttr(ir.Attribute.parse(
            f"affine_map<({', '.join(f'd{k}' for k in range(n))}) -> (d{cpos})>"))
        maps += [col] * len(ws) + [ir.AffineMapAttr.get(ir.AffineMap.get_identity(n))]
        gen = linalg.GenericOp([out_t], [v for v, _ in xs] + ws, [init], ir.ArrayAttr.get(maps),
                               ir.ArrayAttr.get([par] * n))
        t = len(xs)
        blk = gen.regions[0].blocks.append(*([elt] * (2 * t + 1)))
        with ir.InsertionPoint(blk):
            acc = blk.arguments[2 * t]
            for k in range(t):  # out += x * w, tap by tap in the filter's order (the conv's body order)
                acc = arith.AddFOp(acc, arith.MulFOp(blk.arguments[k], blk.arguments[t + k]).result).result
            linalg.YieldOp([acc])
    op.results[0].replace_all_uses_with(gen.result)
    op.erase()


REWRITE = Rewrite(NAME, lambda graph, ops, skip: find_depthwise(graph, skip),
                  lambda graph, site, target: decide(graph.ops[site[0]], site[1], target),
                  lambda graph, ops, site: apply_taps(ops[site[0]], graph.ops[site[0]], site[1]))
