"""Depthwise convolutions as a sum of shifted slices: one elementwise op, chosen by the cost model.

Why: IREE 3.13's llvm-cpu code for a depthwise conv (no channel reduction, so no matmul form for
im2col) runs at about 2 GFLOP/s here whatever the layout: ShuffleNet's 136x28x28 3x3 depthwise conv
took 0.9-1.1 ms as `depthwise_conv_2d_nchw_chw` and as `depthwise_conv_2d_nhwc_hwc` between transposes.
Written as `out = init + sum_k x[window k] * w[:, k]` over the KH*KW window taps (each tap a strided
`tensor.extract_slice` of the input, each filter column a `[C]` slice), it is one elementwise op that
IREE vectorizes along the output row: 0.32 ms for the same conv (iree-benchmark-module medians).

A strided conv's taps are computed densely (stride 1 over the rows and columns its windows span) and
the output is one strided slice of that: IREE 3.13 reads a stride-2 slice along the vectorized output
row element by element, nine times per output. ShuffleNet's three stride-2 depthwise convs (with their
BatchNorm epilogues), profiled back to back: 282 + 64 + 34 us as strided taps, 97 + 108, 35 + 17 and
15 + 9 us as dense taps + slice (the slice's dispatch is now the slow part: one gather per output);
ShuffleNet paired A/B 0.98x (two runs of 80 interleaved rounds).

The arithmetic per output element is the conv's: the same products in the filter's (kh, kw) order (a
strided conv adds them to zero, then the sum to the init). Only f32 depthwise convs with at most
`MAX_TAPS` window taps are rewritten (a 7x7 window would be 49 slices feeding one op).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.classify import map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..cost.group import elem_bytes
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from ..fusion.legality import numel
from ..ir import ir
from .choice import Choice, Rewrite
from .taps import (MAX_TAPS, add_all, affine_map, affine_terms, fold_into_init, parallel_generic, strided_slice,
                   tap_points, zeros)

NAME = "depthwise-taps"


@dataclass(frozen=True)
class Window:
    """Input dim k reads the channel loop alone (`reads[k]` None) or `out * stride + tap * dilation`."""

    channel: int                                     # the loop shared by input, filter and output
    reads: tuple[tuple[int, int, int, int] | None, ...]  # per input dim: (out loop, stride, tap loop, dilation)
    taps: tuple[int, ...]                            # reduction loops in filter order


def window(op: OpDesc) -> Window | None:
    """The op's Window when it is a depthwise conv this rewrite handles."""
    if (op.name != "linalg.generic" or op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2
            or len(op.indexing_maps) != 3 or tuple(op.body_ops) != ("arith.mulf", "arith.addf")
            or any(t != "f32" for t in op.element_types)):
        return None
    x_res, w_res, o_res = (map_results(m) for m in op.indexing_maps)
    o = [affine_terms(r) for r in o_res]
    w = [affine_terms(r) for r in w_res]
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
        t = affine_terms(r)
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


def channels_innermost(win: Window) -> bool:
    """Whether the input's innermost dim is the channel (a channels-last conv from `conv-layout`)."""
    return win.reads[-1] is None


def dense_ranges(op: OpDesc, win: Window) -> tuple[int, ...]:
    """Loop ranges of the taps' dense form: an output loop read with stride s over n outputs spans
    (n - 1) * s + 1 input positions; unstrided loops keep their range. A conv whose input has its
    channels innermost has no dense form: its taps stride only outer dims, read whole rows of channels."""
    ranges = list(op.loop_ranges)
    if channels_innermost(win):
        return tuple(ranges)
    for rd in win.reads:
        if rd is not None and rd[1] > 1:
            ranges[rd[0]] = (op.loop_ranges[rd[0]] - 1) * rd[1] + 1
    return tuple(ranges)


def taps_desc(op: OpDesc, win: Window, lanes: int = 1) -> OpDesc:
    """What the rewrite makes of `op`, for the cost model: one elementwise op over the (dense) output with
    a window slice and a filter column per tap, accumulating into the init. The strided slice of a
    strided conv's dense result is not priced (a channels-last conv has none: `dense_ranges`). Its FLOPs
    count the whole `lanes`-wide vectors its innermost loop runs (the window slices keep IREE from
    collapsing it): channels-first, EfficientNet's 1152x7x7 5x5 taps fill 7 of 16 lanes (69 us measured,
    priced 22 at full vectors; channels-last, vectorized along the 1152 channels, IREE's conv took 23)."""
    dense = dense_ranges(op, win)
    o_res = map_results(op.indexing_maps[2])
    loops = tuple(dense[int(r.strip()[1:])] for r in o_res)
    row = loops[-1] if loops else 1
    lost = -(-row // lanes) * lanes / row
    n_taps = numel(tuple(op.loop_ranges[d] for d in win.taps))
    n = len(loops)
    ident = f"({', '.join(f'd{k}' for k in range(n))}) -> ({', '.join(f'd{k}' for k in range(n))})"
    cpos = [int(r.strip()[1:]) for r in o_res].index(win.channel)
    col = f"({', '.join(f'd{k}' for k in range(n))}) -> (d{cpos})"
    eb = elem_bytes(op.element_types[0])
    c = op.loop_ranges[win.channel]
    scale = numel(loops) / max(1, numel(op.operand_shapes[2]))
    return OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.BROADCAST, loop_ranges=loops,
                  iterator_types=("parallel",) * n, indexing_maps=(ident,) * n_taps + (col,) * n_taps + (ident,),
                  map_dims=((tuple(range(n)),) * n_taps + ((cpos,),) * n_taps + (tuple(range(n)),)),
                  element_types=("f32",) * (2 * n_taps + 2),
                  operand_shapes=(loops,) * n_taps + ((c,),) * n_taps + (loops,), result_shapes=(loops,),
                  operands=(op.operands[0],) * n_taps + (op.operands[1],) * n_taps + (op.operands[2],),
                  num_dps_inputs=2 * n_taps, body_ops=("arith.mulf", "arith.addf") * n_taps,
                  flops=round(op.flops * scale * lost),
                  bytes_read=(numel(op.operand_shapes[0]) + numel(op.operand_shapes[1]) + numel(loops)) * eb,
                  bytes_written=numel(loops) * eb)


def taps_time(op: OpDesc, win: Window, target: TargetDesc) -> float:
    """Pure: the predicted time of `op`'s taps on `target`, by the vector lanes its rows fill on a CPU."""
    return estimate([taps_desc(op, win, target.lanes_f32 if target.kind == "cpu" else 1)], target).time_s


def decide(op: OpDesc, win: Window, target: TargetDesc) -> Choice:
    """Pure: the depthwise conv against its taps form, each priced as its own dispatch. On a GPU IREE
    compiles the conv itself as such a stencil (no channel reduction to share): the direct conv costs at
    most its taps, so the taps, which fuse less (ShuffleNet 66 dispatches against 63), are not taken there.
    Measured on an H200 (sm_90, 2026-12-04): ShuffleNet 1.352 ms with taps, 1.346 without; BiFPN 0.1459 and
    0.1451 (the cost model had priced the conv at `convolution`'s 0.4 and the taps at 0.9)."""
    direct, taps = estimate([op], target).time_s, taps_time(op, win, target)
    if target.kind != "cpu":
        direct = min(direct, taps)
    return Choice(NAME, f"op {op.index} ({op.loc})", "direct", "window taps", direct, taps)


def find_depthwise(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[tuple[int, Window]]:
    return [(i, w) for i, op in enumerate(graph.ops) if i not in skip and (w := window(op)) is not None]


def apply_taps(op: ir.Operation, desc: OpDesc, win: Window) -> None:
    """Replace depthwise conv `op` (described by `desc`) by its taps form, in place; a strided conv by
    its dense taps (into zeros), one strided slice of them, and the init added."""
    from iree.compiler.dialects import arith

    x, w, init = op.operands[0], op.operands[1], op.operands[2]
    o_dims = [int(r.strip()[1:]) for r in map_results(desc.indexing_maps[2])]
    w_dims = [int(r.strip()[1:]) for r in map_results(desc.indexing_maps[1])]
    n, c = len(o_dims), desc.loop_ranges[win.channel]
    ranges, dense = desc.loop_ranges, dense_ranges(desc, win)
    stride = {rd[0]: rd[1] for rd in win.reads if rd is not None}
    strided = dense != ranges
    with op.context, op.location, ir.InsertionPoint(op):
        # the slices' dims follow the input's; the output orders its loops its own way
        x_map = affine_map(n, [o_dims.index(win.channel if rd is None else rd[0]) for rd in win.reads])
        xs, ws = [], []
        for at in tap_points(ranges, win.taps):
            # per input dim (offset, size, stride): the whole channel dim, or the tap's (dense) window
            xs.append(strided_slice(x, [(0, c, 1) if rd is None else
                                        (at[rd[2]] * rd[3], dense[rd[0]], 1 if strided else rd[1])
                                        for rd in win.reads]))
            ws.append(strided_slice(w, [(0, c, 1) if d == win.channel else (at[d], 1, 1) for d in w_dims], [c]))
        maps = [x_map] * len(xs) + [affine_map(n, [o_dims.index(win.channel)])] * len(ws)
        if strided:
            acc = zeros([dense[d] for d in o_dims], ir.RankedTensorType(init.type).element_type)

    def fold(acc: ir.Value, args: list[ir.Value]) -> ir.Value:
        t = len(xs)
        for k in range(t):  # out += x * w, tap by tap in the filter's order (the conv's body order)
            acc = arith.AddFOp(acc, arith.MulFOp(args[k], args[t + k]).result).result
        return acc

    if not strided:
        fold_into_init(op, xs + ws, maps, init, fold)
        return
    # the strided slice reads the dense sum from memory (legality rule strided-slice); read through a
    # strided map in the sum's own dispatch instead, ShuffleNet's three took 177 us against 115 us
    full = parallel_generic(op, xs + ws, maps, acc, fold)
    with op.context, op.location, ir.InsertionPoint(op):
        sub = strided_slice(full, [(0, ranges[d], stride.get(d, 1)) for d in o_dims])
        ident = affine_map(n, list(range(n)))
    fold_into_init(op, [sub], [ident], init, add_all)


REWRITE = Rewrite(NAME, lambda graph, ops, skip: find_depthwise(graph, skip),
                  lambda graph, site, target: decide(graph.ops[site[0]], site[1], target),
                  lambda graph, ops, site: apply_taps(ops[site[0]], graph.ops[site[0]], site[1]))
