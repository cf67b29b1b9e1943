"""3x3 stride-1 convolutions as IREE's Winograd F(6x6, 3x3), where the cost model says it pays.

Why: a 3x3 conv as im2col + matmul (rewrites/im2col.py) writes every window (9x its input) and
multiplies 9 x C per output; Winograd F(6x6, 3x3) transforms 8x8 input tiles (B^T d B), multiplies
per tile position as one batch matmul ([64, tiles, C] x [64, C, F]: 36 outputs from 64 products
instead of 324) and transforms back (A^T m A). Measured on this 2-core AVX2 VM, ResNet-50's
64x56x56 3x3 conv: im2col + data-tiled matmul 4.3 ms (the window copy alone 1.5-2.2 ms), Winograd
1.4 ms (input transform 0.50, batch matmul 0.48, output transform 0.27, bias/ReLU 0.06); the filter
transform (0.5 ms) runs once at compile time on constant weights. The price: fp32 rounding grows
with the transform's larger constants (relative error ~1e-5 per conv against ~1e-7 direct).

The rewrite writes the conv as a named `linalg.conv_2d_nchw_fchw` with IREE's `__winograd_conv`
mark and lets IREE's own pass (`iree-linalg-ext-convert-conv2d-to-winograd`) build the transforms, the
batch matmul and the output slice: the tile arithmetic and its constants stay IREE's. The batch
matmul then gets a `compilation_info` with IREE's own tile choice for it
(`backends.lowering.iree_bmm_compilation_info`):
that keeps IREE's data tiling (on for the module's plain matmuls) off it, which made it 1.3 ms
instead of 0.48 (packing the transformed input in a dispatch of its own, 0.46 ms).

Channel groups: IREE 3.13's input transform slows down far more than linearly once its working set
(input + transformed tiles) outgrows the core's L2: DenseNet-121's 128-channel 56x56 ones took 2.8 ms
each in the model (4.1 ms alone), the same transform as 4 groups of 32 channels 1.31 ms and as 8
groups of 16 0.78 ms (each group a contiguous channel slice of the input, its own transform; 64
channels 58x58: 0.78 ms alone, 0.25 ms as 2 groups, but even within ResNet-50). A conv whose
transform outgrows `SPLIT_ABOVE`, with at most C / 2 filters, is written as `groups(op)` Winograd
convs over channel slices of the input and filter, each into zeros, summed into the conv's init by one
elementwise op (which joins the epilogue's dispatch): more batch matmuls and output transforms
(small: F outputs each), a much cheaper input transform (DenseNet-121 paired 0.60x with the
`winograd.cpu.few` pricing of its 7x7 convs). The
grouping is structural (`groups`), the cost model prices its parts against the other strategies. A
cost-model term for the spill (time x working set / L2) was tried and dropped: it fits DenseNet's
transforms but priced VGG-19's (64-512 channels, up to 226x226) far too high, moving convs to
im2col, 1.48x slower; VGG-19's whole transforms do not show the slow-down.

Zero filters: the output transform reads a tile's 8x8 values from 64 planes of `tiles x F` elements;
where a plane's size is a multiple of 1 KiB those reads share a few L1 sets and evict each other
(Inception-v3's 192-filter 12x12-tile transform 4.6 ms alone, 0.9 with 200 filters). The conv then runs
with `padded_filters` filters (zero filters appended, their outputs sliced off: the same numbers). Winograd
parts profiled in the models (sum of transforms and batch matmuls, 2026-12-02): ResNet-50 1.77 -> 1.63
ms for its 56x56 convs (64 -> 72 filters), Inception-v2 8.1 -> 6.4, VGG-19 137 -> 121, DenseNet-121
5.3 -> 4.6.

Matched on the generic conv our import produces (rewrites/im2col.py `layout`): input `[C, H, W]`
read at `(c, oh + kh, ow + kw)` (stride and dilation 1, no groups), filter `[F, C, 3, 3]`, output
`[F, H - 2, W - 2]` accumulated into a zero fill (IREE's pass drops the conv's init: `bias-epilogue`
has already moved a bias out of it), all f32. Priced (`decide`, pure) against the better of the
conv's other strategies (direct, im2col + matmul), each part as its own dispatch.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from ..analysis.classify import (NAMED_MATMUL_DIMS, WINOGRAD_FILTER, WINOGRAD_INPUT, WINOGRAD_OUTPUT,
                                 map_results, winograd_flops)
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..backends.lowering import iree_bmm_compilation_info
from ..cost.group import elem_bytes
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from ..fusion.legality import constant_ops, numel
from ..ir import constant_value, ir, static_pad
from . import im2col
from .choice import Choice, Rewrite
from .taps import add_all, affine_map, fold_into_init, strided_slice, zeros

NAME = "winograd"
TILE, KERNEL = 6, 3          # F(6x6, 3x3): 6x6 outputs per 8x8 input tile
INPUT_TILE = TILE + KERNEL - 1
MARK = "__winograd_conv"     # IREE's pass converts only convs with this unit attribute
PASS = "func.func(iree-linalg-ext-convert-conv2d-to-winograd)"
_SUM = re.compile(r"^d(\d+) \+ d(\d+)$")
# The largest input-transform working set (input + transformed tiles, bytes) per channel group: the
# 16-channel groups of DenseNet's 56x56 transform (0.62 MB) ran at 33 GFLOP/s, 32-channel ones (1.25 MB)
# at 20, all 128 channels (5 MB) at 7.
GROUP_BYTES = 640 * 1024
# Split only past this working set: at 1.3 MB (DenseNet's 128-channel 28x28 transforms) two groups ran
# slower than one (2 x 55 us transforms and 2 x 64 us batch matmuls against 91 + 100 us), at 2.5 MB
# (ResNet-50's 64-channel 56x56 ones) four groups were even (model paired 1.005x), at 5 MB eight groups
# took 366 + 320 + 189 us against 2800 + 312 + 31 us (DenseNet-121 paired 0.68x).
SPLIT_ABOVE = 3 * 1024 * 1024  # and only when F <= C / 2 (see `groups`)
MIN_GROUP_CHANNELS = 8


def _zero_fill(ops: Sequence[ir.Operation], graph: DataflowGraph, init: int | None) -> bool:
    """Whether the conv's init is a `linalg.fill` of 0.0 (IREE's pass assumes a zero accumulator)."""
    return (init is not None and init >= 0 and graph.ops[init].name == "linalg.fill"
            and constant_value(ops[init].operands[0]) == 0.0)


def site(graph: DataflowGraph, ops: Sequence[ir.Operation], i: int) -> im2col.ConvLayout | None:
    """The conv's layout when op i is a 3x3 stride-1 dilation-1 f32 conv over an unbatched `[C, H, W]`
    input of exactly the window's extent, accumulating into a zero fill."""
    op = graph.ops[i]
    lay = im2col.layout(op)
    if lay is None or not lay.copy or lay.groups or len(lay.red) != 3 or len(lay.spatial) != 2:
        return None
    c, kh, kw = lay.red
    oh, ow = lay.spatial
    r = op.loop_ranges
    if (r[kh], r[kw]) != (KERNEL, KERNEL) or op.map_dims[1] != (lay.f, c, kh, kw):
        return None
    res = [x.strip() for x in map_results(op.indexing_maps[0])]
    sums = [_SUM.match(x) for x in res[1:]]
    if len(res) != 3 or res[0] != f"d{c}" or not all(sums) or \
            {int(sums[0][1]), int(sums[0][2])} != {oh, kh} or {int(sums[1][1]), int(sums[1][2])} != {ow, kw}:
        return None
    if op.operand_shapes[0] != (r[c], r[oh] + KERNEL - 1, r[ow] + KERNEL - 1):
        return None
    return lay if _zero_fill(ops, graph, op.operands[2]) else None


# The output transform reads each 8x8 tile position's value from a plane of `tiles x F` elements: when a
# plane's byte size is a multiple of this, its 64 reads per tile and filter fall in a few L1 sets and
# evict each other. Measured alone (iree-benchmark-module, 2026-12-02), output transforms of 12x12 tiles:
# 192 filters 4.60 ms (planes 4 KiB-aligned), 196 0.89, 200 0.96, 208 (1 KiB) 1.65; 64 filters 1.12, 65
# 0.33, 60 0.28; ResNet-50's 10x10 tiles of 64 (1 KiB) 0.51 ms, of 68 0.28.
ALIAS_BYTES = 1024


def padded_filters(f: int, th: int, tw: int, elt_bytes: int = 4) -> int:
    """The filter count the Winograd conv runs with: `f`, or the next multiple of 8 (IREE's register
    tile along N; else of 4, else any, up to 64 more) whose tile planes are not `ALIAS_BYTES`-aligned
    (zero filters added, their outputs dropped)."""
    plane = th * tw * elt_bytes
    if (plane * f) % ALIAS_BYTES:
        return f
    more = range(f + 1, f + 65)
    steps = (g for step in (8, 4, 1) for g in more if g % step == 0)  # a tile count with a factor of 32
    return next((g for g in steps if (plane * g) % ALIAS_BYTES), f)   # has no multiple of 8 that helps


def find(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()
         ) -> list[tuple[int, im2col.ConvLayout]]:
    return [(i, lay) for i in range(len(graph.ops)) if i not in skip and (lay := site(graph, ops, i)) is not None]


def tiles(op: OpDesc, lay: im2col.ConvLayout) -> tuple[int, int]:
    """Input tiles along the output's height and width."""
    return tuple(math.ceil(op.loop_ranges[d] / TILE) for d in lay.spatial)  # type: ignore[return-value]


def transform_bytes(op: OpDesc, lay: im2col.ConvLayout, channels: int) -> int:
    """The input transform's working set over `channels` input channels: input slice + 8x8 tiles."""
    th, tw = tiles(op, lay)
    _, h, w = op.operand_shapes[0]
    return channels * (h * w + INPUT_TILE * INPUT_TILE * th * tw) * elem_bytes(op.element_types[0])


def groups(op: OpDesc, lay: im2col.ConvLayout) -> int:
    """Channel groups the conv is split into: one up to `SPLIT_ABOVE` bytes of input-transform working
    set or with more than C / 2 filters (every group has an output transform over all F filters: VGG-19's
    F >= C convs split into 8-16 groups ran 1.9x slower), else the fewest (a power of two dividing C, each of at least `MIN_GROUP_CHANNELS` channels)
    whose transforms stay within `GROUP_BYTES` each."""
    c, f = op.loop_ranges[lay.red[0]], op.loop_ranges[lay.f]
    g = 1
    if transform_bytes(op, lay, c) <= SPLIT_ABOVE or 2 * f > c:
        return g  # each group adds an output transform over all F filters: only for F <= C / 2
    while transform_bytes(op, lay, c // g) > GROUP_BYTES and c % (2 * g) == 0 and c // (2 * g) >= MIN_GROUP_CHANNELS:
        g *= 2
    return g


def winograd_descs(op: OpDesc, lay: im2col.ConvLayout, constant_filter: bool = True,
                   n_groups: int = 1) -> tuple[OpDesc, ...]:
    """What the rewrite makes of `op`, as the planner will see it: per channel group the input
    transform, the batch matmul (its own group with its fill) and the output transform, then a pass
    over the output slices (the epilogue's dispatch: it cannot join an output transform's; it also sums
    the groups); the filter transforms only when the filter is not a constant (constant filters are
    transformed at compile time)."""
    r = op.loop_ranges
    th, tw = tiles(op, lay)
    t, eb = th * tw, elem_bytes(op.element_types[0])
    c, f = r[lay.red[0]] // n_groups, padded_filters(r[lay.f], th, tw, eb)
    tin = (INPUT_TILE, INPUT_TILE, 1, th, tw, c)
    tout = (INPUT_TILE, INPUT_TILE, 1, th, tw, f)
    padded = (1, f, th * TILE, tw * TILE)

    def transform(name: str, src: tuple[int, ...], dst: tuple[int, ...]) -> OpDesc:
        return OpDesc(index=-1, name=name, loc=op.loc, kind=OpKind.OPAQUE, loop_ranges=dst,
                      iterator_types=("parallel",) * len(dst), indexing_maps=(), map_dims=(),
                      element_types=("f32", "f32"), operand_shapes=(src, dst), result_shapes=(dst,),
                      operands=(None, None), num_dps_inputs=1,
                      flops=winograd_flops(name, (src, dst), (dst,)),
                      bytes_read=numel(src) * eb, bytes_written=numel(dst) * eb)

    maps = tuple("(d0, d1, d2, d3) -> (" + ", ".join(f"d{d}" for d in m) + ")"
                 for m in NAMED_MATMUL_DIMS["linalg.batch_matmul"])
    b = INPUT_TILE * INPUT_TILE
    bmm = OpDesc(index=-1, name="linalg.batch_matmul", loc=op.loc, kind=OpKind.CONTRACTION,
                 loop_ranges=(b, t, f, c), iterator_types=("parallel",) * 3 + ("reduction",),
                 indexing_maps=maps, map_dims=NAMED_MATMUL_DIMS["linalg.batch_matmul"],
                 element_types=("f32",) * 3, operand_shapes=((b, t, c), (b, c, f), (b, t, f)),
                 result_shapes=((b, t, f),), operands=(None, None, None), num_dps_inputs=2,
                 body_ops=("arith.mulf", "arith.addf"), flops=2 * b * t * f * c,
                 bytes_read=b * (t * c + c * f) * eb, bytes_written=b * t * f * eb)
    # the conv's output slice, read by its epilogue in a dispatch of its own (an epilogue joins a direct
    # or im2col conv's group, never the output transform's)
    out = op.result_shapes[0]
    dims = ", ".join(f"d{k}" for k in range(len(out)))
    ident = f"({dims}) -> ({dims})"
    g = n_groups
    slice_pass = OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.ELEMENTWISE, loop_ranges=out,
                        iterator_types=("parallel",) * len(out), indexing_maps=(ident,) * (g + 1),
                        map_dims=(tuple(range(len(out))),) * (g + 1), element_types=("f32",) * (g + 1),
                        operand_shapes=(out,) * (g + 1), result_shapes=(out,), operands=(None,) * (g + 1),
                        num_dps_inputs=g, body_ops=("arith.addf",) * (g - 1), flops=(g - 1) * numel(out),
                        bytes_read=g * numel(out) * eb, bytes_written=numel(out) * eb)
    src = (c, *op.operand_shapes[0][1:])
    group = [transform(WINOGRAD_INPUT, src, tin), bmm, transform(WINOGRAD_OUTPUT, tout, padded)]
    if not constant_filter:
        group.insert(0, transform(WINOGRAD_FILTER, (f, c, KERNEL, KERNEL), (INPUT_TILE, INPUT_TILE, c, f)))
    return (*group * g, slice_pass)


def decide(op: OpDesc, lay: im2col.ConvLayout, target: TargetDesc, constant_filter: bool = True,
           pad: OpDesc | None = None) -> Choice:
    """Pure: the conv's best other strategy (direct or im2col + matmul, as conv-strategy would choose)
    against the Winograd parts, each priced as its own dispatch; the input transform cannot take the
    conv's input `pad` either, which is then a copy dispatch of its own (as for im2col)."""
    other = im2col.decide(op, lay, target, pad)
    kept, kept_s = other.chosen
    g = groups(op, lay)
    parts = (*winograd_descs(op, lay, constant_filter, g), *((pad,) if pad else ()))
    after = sum(estimate([d], target).time_s for d in parts)
    label = "winograd" if g == 1 else f"winograd in {g} channel groups"
    return Choice(NAME, f"op {op.index} ({op.loc})", kept, label, kept_s, after)


# ---- the IR rewrite ------------------------------------------------------------------------------

def _reshape(v: ir.Value, shape: Sequence[int], groups: Sequence[Sequence[int]], expand: bool) -> ir.Value:
    from iree.compiler.dialects import tensor

    t = ir.RankedTensorType.get(list(shape), ir.RankedTensorType(v.type).element_type)
    if expand:
        return tensor.ExpandShapeOp(t, v, [list(g) for g in groups], [], list(shape)).result
    return tensor.CollapseShapeOp(t, v, [list(g) for g in groups]).result


def _pad_dim0(v: ir.Value, extra: int) -> ir.Value:
    """`v` with `extra` zero rows after its first dim's (a filter's zero filters)."""
    from iree.compiler.dialects import arith

    t = ir.RankedTensorType(v.type)
    rank = len(t.shape)
    return static_pad(v, [0] * rank, [extra] + [0] * (rank - 1), arith.ConstantOp(t.element_type, 0.0).result)


def apply(op: ir.Operation, n_groups: int = 1) -> None:
    """Replace the generic conv `op` by a marked named NCHW conv over a batch of one (IREE's pass
    rewrites it in `finish`); with channel groups, by one such conv per contiguous slice of the input's
    and the filter's channels, each into zeros, and their sum into the conv's init."""
    from iree.compiler.dialects import linalg

    x, w, init = op.operands[0], op.operands[1], op.operands[2]
    xs, os_ = list(ir.RankedTensorType(x.type).shape), list(ir.RankedTensorType(op.results[0].type).shape)
    ws = list(ir.RankedTensorType(w.type).shape)

    elt = ir.RankedTensorType(x.type).element_type
    fp = padded_filters(os_[0], math.ceil(os_[1] / TILE), math.ceil(os_[2] / TILE), elem_bytes(str(elt)))

    def marked(xv: ir.Value, wv: ir.Value, outv: ir.Value) -> ir.Value:
        x4 = _reshape(xv, [1, *ir.RankedTensorType(xv.type).shape], [[0, 1], [2], [3]], expand=True)
        if fp != os_[0]:  # zero filters against the output transform's cache conflicts (`padded_filters`)
            wv, outv = _pad_dim0(wv, fp - os_[0]), zeros([1, fp, *os_[1:]], elt)
        conv = linalg.conv_2d_nchw_fchw(x4, wv, outs=[outv], strides=[1, 1], dilations=[1, 1])
        conv.owner.attributes[MARK] = ir.UnitAttr.get()
        if fp != os_[0]:
            conv = strided_slice(conv, [(0, 1, 1), (0, os_[0], 1), (0, os_[1], 1), (0, os_[2], 1)])
        return _reshape(conv, os_, [[0, 1], [2], [3]], expand=False)

    with op.context, op.location, ir.InsertionPoint(op):
        if n_groups == 1:
            res = marked(x, w, _reshape(init, [1, *os_], [[0, 1], [2], [3]], expand=True))
        else:
            cs = xs[0] // n_groups
            zero = zeros([1, *os_], elt)
            parts = [marked(strided_slice(x, [(g * cs, cs, 1), (0, xs[1], 1), (0, xs[2], 1)]),
                            strided_slice(w, [(0, ws[0], 1), (g * cs, cs, 1), (0, ws[2], 1), (0, ws[3], 1)]), zero)
                     for g in range(n_groups)]
            ident = affine_map(len(os_), list(range(len(os_))))
    if n_groups == 1:
        op.results[0].replace_all_uses_with(res)
        op.erase()
        return
    fold_into_init(op, parts, [ident] * n_groups, init, add_all)  # init + group 0 + group 1 + ...


def finish(fn: ir.Operation, cpu_tiles: bool = True) -> None:
    """Run IREE's Winograd pass over the marked convs, then (`cpu_tiles`: a CPU target) pin the llvm-cpu
    tiles of the batch matmuls it made (those reading a reshaped input transform)."""
    from iree.compiler.passmanager import PassManager

    PassManager.parse(PASS, context=fn.context).run(fn)
    if not cpu_tiles:
        return
    for op in fn.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "linalg.batch_matmul":
            continue
        src = op.operands[0].owner
        src = src.operands[0].owner if getattr(src, "name", "") == "tensor.collapse_shape" else src
        if getattr(src, "name", "") != WINOGRAD_INPUT:
            continue
        _, m, n = ir.RankedTensorType(op.results[0].type).shape
        with fn.context:
            op.attributes["compilation_info"] = ir.Attribute.parse(iree_bmm_compilation_info(m, n))


def price(graph: DataflowGraph, s: tuple[int, im2col.ConvLayout], target: TargetDesc) -> Choice:
    """`decide`, knowing whether the filter is a constant expression (weights, BatchNorm-scaled weights)."""
    op = graph.ops[s[0]]
    return decide(op, s[1], target, op.operands[1] is None or op.operands[1] in constant_ops(graph),
                  im2col.input_pad(graph, s[0]))


REWRITE = Rewrite(NAME, lambda graph, ops, skip: find(graph, ops, skip), price,
                  lambda graph, ops, s: apply(ops[s[0]], groups(graph.ops[s[0]], s[1])),
                  finish=finish)


def rewrite(target: TargetDesc) -> Rewrite:
    """The rewrite for `target`: llvm-cpu tiles on the batch matmuls only for a CPU (a CPU
    `lowering_config` fails IREE's GPU pipelines)."""
    if target.kind == "cpu":
        return REWRITE
    return replace(REWRITE, finish=lambda fn: finish(fn, cpu_tiles=False))
