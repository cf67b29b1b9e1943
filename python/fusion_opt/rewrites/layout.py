"""Conv layout: each windowed or depthwise NCHW conv channels-last where the cost model predicts a gain
(`layout="auto"`, the default; pattern `conv-layout`), or every named NCHW conv (`layout="nhwc"`).

Why: on this CPU (AVX-512) IREE 3.13's direct channels-last conv code runs near the machine's peak
where the output rows are long (a 3x3 64->64 conv at 56x56: 517 us, ~450 GFLOP/s on 2 cores), which
none of the NCHW strategies reach (Winograd, im2col + matmul), and falls far below them on small or
odd-width images (3x3 at 7x7: 1689 against 978 us of im2col; SqueezeNet's 13x13: 795 against 173).
Measured 2026-11-30 with every conv converted (paired NHWC / NCHW, whole model): Inception-v2 0.87x,
DenseNet-121 0.91x, ShuffleNet 1.00x; ResNet-50 1.07x, VGG-19 1.28x, SqueezeNet 1.66x, Inception-v1 1.92x.
Hence the per-conv choice (`choose`, pure): channels-last time (`convolution.nhwc`, cost/model.py) plus
the transposes a conv needs, against its best NCHW strategy; transposes between two converted convs
are not paid (IREE's `iree-global-opt-propagate-linalg-transpose` cancels them, `propagate`).

`layout="nhwc"` runs IREE's own `iree-preprocessing-convert-conv-to-channels-last` on the whole function
first (it has no per-op filter), then the same propagation, canonicalize + cse.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..analysis.classify import DIM, map_results
from ..analysis.describe import describe_function
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, reassociation
from ..cost.group import elem_bytes
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from ..errors import PlanError
from ..fusion.legality import numel
from ..importers.constant_reads import drop_constant_reads
from ..ir import PassManager, defining_op, ir, mul_add_generic, transpose
from . import depthwise, im2col, winograd
from .choice import Choice, Rewrite
from .collapse_dims import collapse_expanded_reads
from .slice_transpose import hoist_transposes, movable_pad, repad

LAYOUTS = ("nchw", "nhwc", "auto")
_PROPAGATION = "iree-global-opt-propagate-linalg-transpose,canonicalize,cse"
PIPELINE = f"func.func(iree-preprocessing-convert-conv-to-channels-last,{_PROPAGATION})"
PROPAGATE = f"func.func({_PROPAGATION})"


def channels_first(op: OpDesc) -> bool:
    """A convolution (named or generic) whose output channel, the loop only the filter and the output
    read, is not the output's innermost dim: what the conversion rewrites."""
    if op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2 or len(op.map_dims) < 3:
        return False
    inp, flt, out = op.map_dims[0], op.map_dims[1], op.map_dims[-1]
    chans = [k for k, d in enumerate(out) if d >= 0 and d in flt and d not in inp]
    return len(out) >= 3 and bool(chans) and chans[0] < len(out) - 1


def nchw_convs(graph: DataflowGraph) -> int:
    """Channels-first convolutions of a described function."""
    return sum(channels_first(op) for op in graph.ops)


def to_channels_last(func_op: ir.Operation, graph: DataflowGraph) -> int:
    """Rewrite the channels-first convolutions of `func_op` (described by `graph`) to channels-last in
    place; returns how many were rewritten (counted on the function described again after)."""
    n = nchw_convs(graph)
    if n == 0:
        return 0
    drop_constant_reads(func_op)
    _run(PIPELINE, func_op, "the channels-last conversion")
    return n - nchw_convs(describe_function(func_op, "-")[0])


def _run(pipeline: str, fn: ir.Operation, what: str) -> None:
    """Run an IREE pass pipeline on `fn` in place; a failure is our bug, reported as one line."""
    try:
        PassManager.parse(pipeline, fn.context).run(fn)
    except ir.MLIRError as e:
        raise PlanError(f"internal error: {what} failed: {' '.join(str(e).split())}") from None


# ---- per conv (`layout="auto"`): the cost model chooses each conv's layout -----------------------

AUTO_NAME = "conv-layout"
# A conv goes channels-last only when predicted at least 10% faster: the channels-last / direct time
# ratio is off by 1.76x rms on 230 random convs (`tools/sweeps/conv_rates.py`, 2026-12-05); on them a
# margin of 0.85 / 0.9 / 0.95 / 1.0 left 16 / 9 / 11 / 11 choices more than 10% slower than the better
# layout (0.85 since 2026-12-01, when the pricing was fitted on 12 convs: ZFNet's 5x5/2 at 25x25 taken
# at a predicted 1% gain ran 1.07x slower)
MARGIN = 0.9


@dataclass(frozen=True)
class Perms:
    """Where a channels-first conv's operands move to be channels-last (`linalg.transpose`
    permutations: result dim k is operand dim perm[k]): input `[.., C, ..] -> [.., C]`, filter
    `[F, C, KH, KW] -> [KH, KW, C, F]`, output `[.., F, ..] -> [.., F]`."""

    inp: tuple[int, ...]
    flt: tuple[int, ...]
    out: tuple[int, ...]
    loops: tuple[int, ...]  # the conv's loops in the new order: output dims as stored, then KH, KW, C


def _last(dims: Sequence[int], d: int) -> tuple[int, ...]:
    """The permutation moving loop `d`'s position of `dims` to the end."""
    return tuple(k for k, x in enumerate(dims) if x != d) + (dims.index(d),)


def perms(op: OpDesc) -> Perms | None:
    """The permutations that make windowed conv `op` (named or generic, with or without its batch dim)
    channels-last, or None where the rewrite does not apply: not a plain f32 2-D conv or depthwise conv
    with a window (1x1 convs stay matmuls, grouped convs keep their own strategies), or already
    channels-last."""
    if (op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2 or len(op.map_dims) != 3
            or len(op.result_shapes) != 1 or tuple(op.body_ops) != ("arith.mulf", "arith.addf")
            or any(t != "f32" for t in op.element_types)):
        return None
    if not channels_first(op):
        return depthwise_perms(op)
    inp, flt, out = op.map_dims
    reds = {d for d, it in enumerate(op.iterator_types) if it == "reduction"}
    chans = [d for d in inp if d in reds and d in flt]
    outs = [d for d in out if d in flt]
    window = [d for d in flt if d in reds and d not in inp]
    if (len(chans) != 1 or len(outs) != 1 or -1 in flt or -1 in out or len(window) != 2
            or set(flt) != {*chans, *outs, *window} or set(out) & reds or set(inp) & set(flt) - set(chans)):
        return None
    c, f = chans[0], outs[0]
    p_out = _last(out, f)
    p_flt = tuple(k for k, x in enumerate(flt) if x not in (c, f)) + (flt.index(c), flt.index(f))
    loops = tuple(out[k] for k in p_out) + tuple(flt[k] for k in p_flt[:-1])
    if sorted(loops) != list(range(len(op.loop_ranges))):
        return None
    return Perms(_last(inp, c), p_flt, p_out, loops)


def depthwise_perms(op: OpDesc) -> Perms | None:
    """The permutations that make depthwise conv `op` (one channel loop read by input, filter and output,
    a 2-D window read by the filter only) channels-last: input `[.., C, ..] -> [.., C]`, filter
    `[C, KH, KW] -> [KH, KW, C]`, output likewise, loops in the order of IREE's named
    `depthwise_conv_2d_nhwc_hwc` (batch, OH, OW, C, KH, KW). None when not such a conv or already
    channels-last. Why: IREE 3.13 vectorizes a depthwise conv along its loop order's channel loop, a
    strided gather when channels come first: a 96x56x56 7x7 one took 8.7 ms channels-first, 0.74 ms
    channels-last (iree-benchmark-module; 3x3 and 5x5, strides 1 and 2: 6-23x)."""
    inp, flt, out = op.map_dims
    reds = {d for d, it in enumerate(op.iterator_types) if it == "reduction"}
    chans = [d for d in out if d >= 0 and d in flt and d in inp and d not in reds]
    window = [d for d in flt if d in reds]
    if (len(chans) != 1 or len(window) != 2 or set(flt) != {chans[0], *window} or len(flt) != 3
            or -1 in out or set(out) & reds or set(inp) & reds or out[-1] == chans[0]):
        return None
    c = chans[0]
    p_flt = tuple(flt.index(d) for d in window) + (flt.index(c),)
    p_out = _last(out, c)
    loops = tuple(out[k] for k in p_out) + tuple(window)
    if sorted(loops) != list(range(len(op.loop_ranges))):
        return None
    return Perms(_last(inp, c), p_flt, p_out, loops)


def _new_map(text: str, perm: Sequence[int], loops: Sequence[int]) -> str:
    """Map `text` with its results in `perm` order and its loops renumbered to the order `loops`."""
    new = {old: k for k, old in enumerate(loops)}
    res = [DIM.sub(lambda m: f"d{new[int(m[1])]}", r) for r in map_results(text)]
    return f"({', '.join(f'd{k}' for k in range(len(loops)))}) -> ({', '.join(res[q] for q in perm)})"


def nhwc_desc(op: OpDesc, p: Perms) -> OpDesc:
    """Pure: `op` as the channels-last conv the rewrite makes: the same arithmetic in the loop order of
    IREE's named `conv_2d_nhwc_hwcf` (batch, OH, OW, F, KH, KW, C; no batch once unit dims are folded),
    the one IREE's CPU backend recognises as a conv (in the old loop order a channels-last generic
    ran 19.6 ms where the named order ran 0.5 ms: ResNet-50's first conv)."""
    ps = (p.inp, p.flt, p.out)
    new = {old: k for k, old in enumerate(p.loops)}
    return replace(op, indexing_maps=tuple(_new_map(m, q, p.loops) for m, q in zip(op.indexing_maps, ps)),
                   loop_ranges=tuple(op.loop_ranges[d] for d in p.loops),
                   iterator_types=tuple(op.iterator_types[d] for d in p.loops),
                   map_dims=tuple(tuple(new.get(d[k], -1) if d[k] >= 0 else -1 for k in q)
                                  for d, q in zip(op.map_dims, ps)),
                   operand_shapes=tuple(tuple(s[k] for k in q) for s, q in zip(op.operand_shapes, ps)),
                   result_shapes=(tuple(op.result_shapes[0][k] for k in p.out),), name="linalg.generic")


def nhwc_taps_time(new: OpDesc, target: TargetDesc) -> float | None:
    """Pure: the window taps of `new`, a channels-last conv (`nhwc_desc`), when it is a depthwise conv
    (`depthwise-taps` then takes them), else None. Channels innermost, the taps of a strided conv read
    every row of channels they need and no more: no dense form, no strided slice (MobileNet-V2's
    144x56x56 3x3/2 one 82 us against 87 + 155 us of dense taps and slice channels-first)."""
    win = depthwise.window(new)
    return None if win is None else depthwise.taps_time(new, win, target)


def pointwise(op: OpDesc) -> bool:
    """A plain 1x1 stride-1 conv or a matmul-form one (no groups): a matmul, which takes a transposed
    operand or result in its own packing (IREE's transpose propagation moves a transpose into it;
    MobileNet-V2's expand convs then wrote `[H*W, F]` directly, its project convs read `[H*W, C]`)."""
    lay = im2col.layout(op)
    return lay is not None and not lay.copy and not lay.groups


def inverse(perm: Sequence[int]) -> list[int]:
    """The permutation that undoes `perm`."""
    return [list(perm).index(j) for j in range(len(perm))]


def transpose_desc(shape: Sequence[int], perm: Sequence[int], elt: str, loc: str) -> OpDesc:
    """Pure: a `linalg.transpose` of a `shape` tensor by `perm`, as the describer sees one."""
    n = len(shape)
    out = tuple(shape[k] for k in perm)
    inv = inverse(perm)
    lhs = f"({', '.join(f'd{j}' for j in range(n))})"
    nbytes = numel(shape) * elem_bytes(elt)
    return OpDesc(index=-1, name="linalg.transpose", loc=loc, kind=OpKind.INJECTIVE, loop_ranges=out,
                  iterator_types=("parallel",) * n,
                  indexing_maps=(f"{lhs} -> ({', '.join(f'd{inv[j]}' for j in range(n))})", f"{lhs} -> {lhs}"),
                  map_dims=(tuple(inv), tuple(range(n))), element_types=(elt, elt),
                  operand_shapes=(tuple(shape), out), result_shapes=(out,), operands=(None, None),
                  num_dps_inputs=1, bytes_read=nbytes, bytes_written=nbytes)


def landed_transpose_s(graph: DataflowGraph, i: int, p: Perms, target: TargetDesc) -> float | None:
    """Pure: what conv `i`'s input transpose costs where IREE's transpose propagation moves it: up through
    the input's pad and a collapse_shape into the elementwise generic producing it (its only user), which
    then writes the channels-last order itself: that generic's time so, less its time as it is. None where
    the input does not come so. Why: an FPN's upsample-and-add, [48, 16, 2, 2, 16, 2, 2] collapsed to
    [48, 64, 64], ran 819 us written channels-last against 67 as it was; priced as a plain 48x64x64
    transpose (82 us) it made the conv channels-last at 1.27x the model's time (2026-12-05)."""
    k = graph.ops[i].operands[0]
    while k is not None and k >= 0 and graph.ops[k].name == "tensor.pad" and len(graph.consumers(k)) == 1:
        k = graph.ops[k].operands[0]
    if k is None or k < 0 or graph.ops[k].name != "tensor.collapse_shape" or len(graph.consumers(k)) != 1:
        return None
    groups = reassociation(graph.ops[k])
    src = graph.ops[k].operands[0]
    if groups is None or src is None or src < 0 or len(graph.consumers(src)) != 1:
        return None
    prod = graph.ops[src]
    n = len(prod.loop_ranges)
    if (prod.name != "linalg.generic" or prod.kind not in (OpKind.ELEMENTWISE, OpKind.BROADCAST)
            or len(prod.result_shapes) != 1 or not prod.map_dims or prod.map_dims[-1] != tuple(range(n))
            or len(groups) != len(p.inp) or sorted(d for g in groups for d in g) != list(range(n))):
        return None
    order = tuple(d for g in (groups[j] for j in p.inp) for d in g)
    lhs = f"({', '.join(f'd{j}' for j in range(n))})"
    shape = tuple(prod.loop_ranges[d] for d in order)
    moved = replace(prod, indexing_maps=(*prod.indexing_maps[:-1], f"{lhs} -> ({', '.join(f'd{d}' for d in order)})"),
                    map_dims=(*prod.map_dims[:-1], order), result_shapes=(shape,),
                    operand_shapes=(*prod.operand_shapes[:-1], shape))
    return estimate([moved], target).time_s - estimate([prod], target).time_s


def nchw_best(graph: DataflowGraph, ops: Sequence[ir.Operation], i: int, target: TargetDesc) -> tuple[str, float]:
    """The conv's best channels-first strategy and its predicted time, as the later rewrites would
    choose: direct, im2col + matmul or Winograd (each paying its input pad where it cannot take it), or
    for a depthwise conv direct or window taps."""
    op = graph.ops[i]
    win = depthwise.window(op)
    if win is not None:  # a depthwise conv: direct or its window taps (rewrites/depthwise.py)
        return depthwise.decide(op, win, target).chosen
    lay = im2col.layout(op, batched=True)  # as `conv-strategy` finds them (`im2col.find_convs`)
    if lay is None:  # a form the NCHW rewrites do not take: direct
        return "direct", estimate([op], target).time_s
    wlay = winograd.site(graph, ops, i)
    c = winograd.price(graph, (i, wlay), target) if wlay is not None else \
        im2col.decide(op, lay, target, im2col.input_pad(graph, i))
    return c.chosen


# Ops a transpose moves through on its way to the next conv (IREE's propagation): elementwise and
# broadcasting ops, pads, pooling windows and concats.
_TRANSPARENT = (OpKind.ELEMENTWISE, OpKind.BROADCAST, OpKind.PAD)


def _transparent(op: OpDesc) -> bool:
    return op.kind in _TRANSPARENT or op.name == "tensor.concat" or (
        op.kind is OpKind.REDUCTION and op.num_dps_inputs <= 2 and any("+" in m for m in op.indexing_maps[:1]))


def _full_inputs(op: OpDesc) -> list[int]:
    """Producers of `op`'s inputs of its result's rank (not a broadcast bias or scale): where a transpose
    moving up through `op` goes."""
    ins = op.operands[:op.num_dps_inputs] if op.num_dps_inputs else op.operands
    return [p for p, s in zip(ins, op.operand_shapes) if p is not None and len(s) == len(op.result_shapes[0])]


def _matmul_chain(graph: DataflowGraph, start: int, up: bool) -> bool:
    """Whether op `start`'s input (`up`) or result reaches a 1x1 conv (`pointwise`) through a chain of
    transparent ops each used once: IREE's propagation moves the transpose along such a chain into the
    matmul; a value used twice stops it (MobileViT's SiLU `x * sigmoid(x)` after its expand conv: the
    transpose stayed in the SiLU and the expand conv's dispatch, a transposed write, ran 342 us against 54)."""
    k = start
    while True:
        if up:
            srcs = [graph.ops[k].operands[0]] if k == start else _full_inputs(graph.ops[k])
            if len(srcs) != 1 or srcs[0] is None or srcs[0] < 0 or len(graph.consumers(srcs[0])) != 1:
                return False
            k = srcs[0]
        else:
            users = graph.consumers(k)
            if len(users) != 1 or k in graph.outputs:
                return False
            k = next(iter(users))
        op = graph.ops[k]
        if pointwise(op):
            return True
        if not _transparent(op):
            return False


def _reach(graph: DataflowGraph, start: int, up: bool, convs: set[int]) -> set[int] | None:
    """The convs of `convs` met walking from op `start` up (producers of its input) or down (its
    consumers) through transparent ops; None when the walk meets anything else (an argument, a result
    of the function, a matmul, a reshape): there a transpose stays whatever the convs choose."""
    seen, found = set(), set()
    todo = list(graph.ops[start].operands[:1]) if up else list(graph.consumers(start))
    if not up and start in graph.outputs:
        return None
    while todo:
        k = todo.pop()
        if k is None or k in seen:
            continue
        if k < 0:
            return None
        seen.add(k)
        op = graph.ops[k]
        if k in convs:
            found.add(k)
            continue
        if not _transparent(op) or (not up and k in graph.outputs):
            return None
        if up:
            todo += _full_inputs(op)
        else:
            todo += list(graph.consumers(k))
    return found


def whole_vectors(op: OpDesc, p: Perms, target: TargetDesc) -> bool:
    """Pure: the channels-last conv's output channels, the dim IREE vectorizes it along, are whole vectors
    of the target (a depthwise conv, vectorized along its channels, always qualifies). Measured 2026-12-03
    on an AVX2 host (8 lanes), channels-last against IREE's channels-first conv: F = 36 at 3x3/2 1650 us
    against 615, F = 3 377 against 127, F = 18 96 against 80 (per dispatch, unseen HRNet-style and VAE
    models); the pricing (`convolution.nhwc`) has no term for a masked output vector and predicted them
    2-15x faster. No suite conv has such an F (all are multiples of 8). An F dividing the vector (4 or 8
    of 16 lanes: no mask, a part-filled vector, priced by its fill in `model.vector_utilisation`) is
    taken: measured 2026-12-04 on AVX-512, [1, 256, 28, 28] -> 8 channels 3x3 ran 255 us channels-last
    with its transposes against 1052 direct; [2, 256, 16, 16] -> 4 channels 130 against 300."""
    if depthwise.window(op) is not None:
        return True
    f = op.result_shapes[0][p.out[-1]]
    return f % target.lanes_f32 == 0 or target.lanes_f32 % f == 0


def choose(graph: DataflowGraph, ops: Sequence[ir.Operation], target: TargetDesc,
           skip: set[int] = frozenset()) -> list[tuple[int, Perms, Choice]]:
    """Pure (reads `ops` only for fill values): every windowed channels-first conv's layout. A conv is
    made channels-last when its channels-last time plus the transposes it needs is below `MARGIN` x its best
    channels-first time. A transpose is saved where every conv the walk from the conv's input (or
    output) meets through elementwise ops, pads, pools and concats is channels-last too (IREE's
    propagation then cancels the pair): decided to a fixpoint, first with both transposes paid."""
    sites = {i: p for i, op in enumerate(graph.ops) if i not in skip and (p := perms(op)) is not None
             and whole_vectors(op, p, target)}
    if not sites:
        return []
    conv_ids = set(sites)
    price = {}
    for i, p in sites.items():
        op = graph.ops[i]
        kept, kept_s = nchw_best(graph, ops, i, target)
        elt = op.element_types[0]
        t_in = max(estimate([transpose_desc(op.operand_shapes[0], p.inp, elt, op.loc)], target).time_s,
                   landed_transpose_s(graph, i, p, target) or 0.0)
        t_out = estimate([transpose_desc(tuple(op.result_shapes[0][k] for k in p.out), inverse(p.out), elt,
                                         op.loc)], target).time_s
        new = nhwc_desc(op, p)
        price[i] = (kept, kept_s, estimate([new], target).time_s, t_in, t_out, nhwc_taps_time(new, target))
    ups = {i: _reach(graph, i, True, conv_ids) for i in sites}
    downs = {i: _reach(graph, i, False, conv_ids) for i in sites}
    absorbed = {i: (_matmul_chain(graph, i, True), _matmul_chain(graph, i, False))
                for i in sites if price[i][5] is not None}
    chosen: set[int] = set()

    def channels_last_s(i: int) -> float:
        """The conv channels-last plus the transposes the convs chosen so far do not cancel. A depthwise
        conv's window taps are offered only between 1x1 convs (`_matmul_chain`) or converted convs on
        both sides, which take the transposes: elsewhere the result's transpose back stayed in the
        taps' dispatch (ShuffleNet's grouped-conv neighbours: 14x14x136 taps 136 us against 16 + 28 us
        channels-first)."""
        _, _, nhwc_s, t_in, t_out, taps_s = price[i]
        up, down = ups[i], downs[i]
        moved_in, moved_out = bool(up) and up <= chosen, bool(down) and down <= chosen
        direct = nhwc_s + (0 if moved_in else t_in) + (0 if moved_out else t_out)
        if taps_s is None:
            return direct
        taken_in, taken_out = moved_in or absorbed[i][0], moved_out or absorbed[i][1]
        if taken_in and taken_out:
            return min(taps_s, direct)
        return min(taps_s + (0 if taken_in else t_in) + (0 if taken_out else t_out), direct)

    changed = True
    while changed:
        changed = False
        for i in sites:
            if i not in chosen and channels_last_s(i) < price[i][1] * MARGIN:
                chosen.add(i)
                changed = True
    return [(i, p, Choice(AUTO_NAME, f"op {i} ({graph.ops[i].loc})", price[i][0], "channels-last", price[i][1],
                          channels_last_s(i), MARGIN)) for i, p in sites.items()]


def moved(v: ir.Value, perm: Sequence[int]) -> ir.Value:
    """`v` permuted by `perm` at the insertion point: a fill made anew, a movable pad made anew around its moved
    source (so the transpose can meet the previous conv's), else a transpose."""
    from iree.compiler.dialects import linalg, tensor

    t = ir.RankedTensorType(v.type)
    shape, elt = t.shape, t.element_type
    src = defining_op(v)
    if src is not None and src.name == "linalg.fill":  # a fill in the new layout: nothing to move
        return linalg.fill(src.operands[0], outs=[tensor.EmptyOp([shape[k] for k in perm], elt).result])
    if movable_pad(src, v):
        return repad(src, moved(src.operands[0], perm), perm)
    return transpose(v, perm)


def convert(op: ir.Operation, desc: OpDesc, p: Perms) -> None:
    """Replace conv `op` (named or generic) by a channels-last generic conv between transposes, in
    place: input and filter transposed in, the result transposed back (a fill init is made anew in the
    new layout). `propagate` then moves the transposes until pairs cancel."""
    x, w, init = op.operands[0], op.operands[1], op.operands[2]
    new = nhwc_desc(desc, p)
    with op.context, op.location, ir.InsertionPoint(op):
        x2, w2, init2 = moved(x, p.inp), moved(w, p.flt), moved(init, p.out)
        conv = mul_add_generic([x2, w2], init2, [ir.Attribute.parse(f"affine_map<{m}>") for m in new.indexing_maps],
                               new.iterator_types)
        res = transpose(conv, inverse(p.out))
    op.results[0].replace_all_uses_with(res)
    op.erase()


def propagate(fn: ir.Operation) -> None:
    """IREE's transpose propagation, then canonicalize + cse: transposes move through elementwise ops,
    pads and pools until a pair meets and cancels."""
    drop_constant_reads(fn)  # the pass reads a constant in a map as a dim (importers/constant_reads.py)
    _run(PROPAGATE, fn, "transpose propagation")
    if hoist_transposes(fn):  # conv3d-slices' planes: one transpose of their input, which moves on up
        _run(PROPAGATE, fn, "transpose propagation")
    collapse_expanded_reads(fn)  # it moves head-split reshapes above bias adds (rewrites/collapse_dims.py)


def auto_rewrite(target: TargetDesc) -> Rewrite:
    """The `conv-layout` rewrite for `choice.run`: sites are `choose`'s decisions for `target` (made
    together, since a conv's transposes depend on its neighbours'), applied by `convert`, then
    `propagate` once."""
    return Rewrite(AUTO_NAME, lambda graph, ops, skip: choose(graph, ops, target, skip),
                   lambda graph, site, _: site[2],
                   lambda graph, ops, site: convert(ops[site[0]], graph.ops[site[0]], site[1]), finish=propagate)
