"""Convolution strategy: direct, or im2col + matmul, chosen per conv by the cost model.

Why: IREE 3.13's llvm-cpu code for a direct NCHW convolution (a `linalg.generic` with window reads)
is not vectorized along a contiguous dim and cannot use data tiling; the same work as one matmul can
(packed `mmt4d` tiles). Measured on this 2-core AVX2 VM: ResNet-50 took 729 ms with IREE's default
build and 95 ms with IREE's own im2col + data tiling. But im2col materializes every window: a 3x3
conv writes and reads 9x its input, which can cost more than it saves (IREE's flag made VGG-19 slower
on an AVX-512 machine). So the choice is made per conv, by comparing predicted times (`decide`,
pure): the conv as it is, against the window copy plus the matmul (rewrites/choice.py runs it).

The rewrite works on the generic form our import produces (named convs generalized, unit batch
folded): input `[C, H, W]` read at `(c, oh*s + kh, ow*s + kw)`, filter `[F, C, KH, KW]`, output
`[F, OH, OW]`. It writes
  cols = generic copy: `[C, KH, KW, OH, OW]` (the window reads, all loops parallel), viewed as
         `[C*KH*KW, OH, OW]`
  out  = contraction(filter as `[F, C*KH*KW]`, cols) into the conv's own init, `[F, OH, OW]`
which is the form of a 1x1 conv (left as it is): the output keeps its spatial dims, so the conv's
epilogue (bias, BatchNorm folded by `conv-bn`, ReLU, residual add) joins the contraction's group as
before. (A 2-D `[F, OH*OW]` matmul needs an expand_shape before the epilogue, which then cannot join
it; it also gave wrong ResNet-50 numbers once an epilogue landed in another conv's dispatch.) The arithmetic per output element is unchanged
(same products, same accumulation order over the reduction loops): results match the direct conv.
Grouped convs (a group dim leading input, filter and output) become a matmul batched over the groups:
a generic that IREE's data tiling packs for windowed ones, a named `linalg.batch_matmul` in IREE's own
tiles for 1x1 ones (see `apply_im2col`). A 1x1 conv over a batch of images (`pointwise_over_batch`) becomes a
transpose of its input to `[C, N, S..]`, a named 2-D matmul and a transpose back, which cancel between consecutive
ones (`_finish`). Depthwise convs (no channel reduction) are not matmuls:
rewrites/depthwise.py.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.classify import DIM, map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..backends.lowering import iree_bmm_compilation_info, window_copy_compilation_info
from ..cost.group import elem_bytes
from ..cost.model import estimate, is_free
from ..cost.targets import TargetDesc
from ..cost.tiling import MAX_DIST_TILE
from ..fusion.legality import numel
from ..ir import all_ops, defining_op, ir, transpose
from .choice import Choice, Rewrite
from .collapse_dims import propagate_and_collapse

NAME = "conv-strategy"



@dataclass(frozen=True)
class ConvLayout:
    """Where the loops of a conv-like op sit: the conv groups (leading dims of input, filter and output
    alike; none for a plain conv), the output channel, the reductions (in filter order) and the
    output's spatial dims (in output order)."""

    f: int
    red: tuple[int, ...]
    spatial: tuple[int, ...]
    copy: bool = True      # False: a 1x1 stride-1 conv, whose input needs no window copy
    groups: tuple[int, ...] = ()
    batch: int | None = None  # an image batch loop (output `[N, F, ...]`): also `spatial[0]`, see `layout`


def layout(op: OpDesc, batched: bool = False) -> ConvLayout | None:
    """The op's ConvLayout when it is a conv (or 1x1 conv) im2col can turn into one 2-D matmul.

    `batched`: also an ungrouped windowed conv over a batch of images (`out[n, f, ...]`, what a batch > 1
    keeps after unit dims are folded): the batch joins the matmul's spatial side, `[F, C*K] x [C*K, N*OH*OW]`,
    and the result is transposed back to `[N, F, ...]` (`apply_im2col`). Without it such convs stayed
    IREE's direct conv: a wav2vec-style Conv1d stack at batch 3 ran its 64 -> 64 k3 s2 conv at 8 GFLOP/s
    (14 ms), the same conv at batch 1 as im2col + matmul in 1.2 ms."""
    if (op.name != "linalg.generic" or op.kind not in (OpKind.CONVOLUTION, OpKind.CONTRACTION)
            or op.num_dps_inputs != 2 or len(op.map_dims) != 3 or len(op.result_shapes) != 1
            or tuple(op.body_ops) not in (("arith.mulf", "arith.addf"),)
            or any(t != "f32" for t in op.element_types)):
        return None
    inp, w, out = op.map_dims
    nb = 0  # grouped convs: the group dims lead all three maps (`(g, c, ...)`, `(g, f, c, ...)`, `(g, f, ...)`)
    while nb < min(len(inp), len(w), len(out)) - 1 and inp[nb] == w[nb] == out[nb] != -1:
        nb += 1
    groups, inp, w, out = tuple(out[:nb]), inp[nb:], w[nb:], out[nb:]
    batch = None
    if batched and not nb and len(out) >= 3 and -1 not in out and w and out[1] == w[0] and out[0] in inp \
            and out[0] not in w and (op.kind is OpKind.CONVOLUTION or pointwise_over_batch(op)):
        batch, out = out[0], (out[1], out[0], *out[2:])  # the batch as the first spatial dim
    if -1 in w or -1 in out or not out or not w or w[0] != out[0] or out[0] in inp:
        return None
    f, spatial, red = out[0], tuple(out[1:]), tuple(w[1:])
    reductions = {d for d, it in enumerate(op.iterator_types) if it == "reduction"}
    if (not spatial or set(red) != reductions or set(red) & set(out) or set(spatial) & set(w)
            or len(op.operand_shapes[0]) != len(inp) + nb):
        return None
    if tuple(inp) == red + spatial:  # a 1x1 stride-1 conv: no copy, its input is viewed as `[C, H*W]`
        return ConvLayout(f, red, spatial, copy=False, groups=groups) if len(spatial) > 1 and nb <= 1 else None
    if batch is not None and op.kind is OpKind.CONVOLUTION and (len(red) < 2 or all(op.loop_ranges[d] == 1 for d in red[1:])):
        return None  # a 1x1 conv over a batch: a batch matmul as imported, no window to copy
    if nb and op.kind is not OpKind.CONVOLUTION:
        return None
    if op.kind is not OpKind.CONVOLUTION and "*" not in op.indexing_maps[0] and batch is None:
        return None  # a contraction in another order (e.g. a plain matmul): not ours to change
    used = {int(m) for m in DIM.findall(op.indexing_maps[0].split("->")[1])}
    if not used <= set(red) | set(spatial) | set(groups) or not set(red) <= used:
        return None
    return ConvLayout(f, red, spatial, groups=groups, batch=batch)


def pointwise_over_batch(op: OpDesc) -> bool:
    """A 1x1 stride-1 conv over a batch of images, as imported: `out[n, f, s..] += x[n, c, s..] * w[f, c]`, a
    contraction with two M loops (n and the spatial ones) that the channel loop separates in the input, so
    IREE 3.13 neither packs it (data tiling takes one M, N and K loop) nor vectorizes it well: a batch-2 PointNet's
    128 -> 256 one over 512 points ran at 37 GFLOP/s (1.8 ms). Its rewrite is a transpose of the input to
    `[C, N, S..]`, a 2-D matmul `[F, C] x [C, N*S]` and the result transposed back (`apply_im2col`)."""
    if op.kind is not OpKind.CONTRACTION or len(op.map_dims) != 3:
        return False
    inp, w, out = op.map_dims
    reds = tuple(d for d, it in enumerate(op.iterator_types) if it == "reduction")
    return (len(out) >= 3 and len(w) == 1 + len(reds) and w == (out[1], *reds)
            and inp == (out[0], *reds, *out[2:]) and all(op.loop_ranges[d] > 1 for d in out[:1]))


def _renamed_input_map(op: OpDesc, lay: ConvLayout) -> str:
    """The input map over the copy's loops (reductions, then spatial dims), as map text."""
    order = (*lay.groups, *lay.red, *lay.spatial)
    new = {old: k for k, old in enumerate(order)}
    results = op.indexing_maps[0].split("->", 1)[1]
    body = DIM.sub(lambda m: f"e{new[int(m[1])]}", results).replace("e", "d")
    return f"({', '.join(f'd{k}' for k in range(len(order)))}) -> {body.strip()}"


def _copy_desc(op: OpDesc, lay: ConvLayout) -> OpDesc:
    """The window copy `[C, KH, KW, OH, OW]`: reads the input once, writes every window."""
    loops = tuple(op.loop_ranges[d] for d in (*lay.groups, *lay.red, *lay.spatial))
    n, eb = len(loops), elem_bytes(op.element_types[0])
    ident = f"({', '.join(f'd{j}' for j in range(n))}) -> ({', '.join(f'd{j}' for j in range(n))})"
    in_map = _renamed_input_map(op, lay)
    in_dims = tuple(int(e.strip()[1:]) if re.fullmatch(r"d\d+", e.strip()) else -1 for e in map_results(in_map))
    return OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.INJECTIVE, loop_ranges=loops,
                  iterator_types=("parallel",) * n, indexing_maps=(in_map, ident),
                  map_dims=(in_dims, tuple(range(n))), element_types=("f32", "f32"),
                  operand_shapes=(op.operand_shapes[0], loops), result_shapes=(loops,),
                  operands=(op.operands[0], None), num_dps_inputs=1,
                  bytes_read=numel(op.operand_shapes[0]) * eb, bytes_written=numel(loops) * eb)


def _matmul_maps(nb: int) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """Maps (text) and map dims of the (batch-)matmul `out[b, f, p] += W[b, f, k] * cols[b, k, p]`."""
    bs = tuple(range(nb))
    f, p, k = nb, nb + 1, nb + 2
    dims = ((*bs, f, k), (*bs, k, p), (*bs, f, p))
    head = f"({', '.join(f'd{j}' for j in range(nb + 3))}) -> "
    return tuple(head + "(" + ", ".join(f"d{j}" for j in m) + ")" for m in dims), dims


def im2col_descs(op: OpDesc, lay: ConvLayout) -> tuple[OpDesc, ...]:
    """Descriptions of what the rewrite makes of `op`: the window copy and the matmul."""
    r = op.loop_ranges
    fdim, k, p = r[lay.f], numel(tuple(r[d] for d in lay.red)), numel(tuple(r[d] for d in lay.spatial))
    eb = elem_bytes(op.element_types[0])
    out = [_copy_desc(op, lay)] if lay.copy else []
    b = tuple(r[d] for d in lay.groups)
    maps, dims = _matmul_maps(len(b))
    out.append(OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.CONTRACTION,
                      loop_ranges=(*b, fdim, p, k), iterator_types=("parallel",) * (len(b) + 2) + ("reduction",),
                      indexing_maps=maps, map_dims=dims, element_types=("f32",) * 4,
                      operand_shapes=((*b, fdim, k), (*b, k, p), (*b, fdim, p)), result_shapes=((*b, fdim, p),),
                      operands=(op.operands[1], None, op.operands[2]), num_dps_inputs=2, body_ops=op.body_ops,
                      flops=op.flops, bytes_read=numel(b) * (fdim * k + k * p) * eb,
                      bytes_written=numel(b) * fdim * p * eb))
    return tuple(out)


def input_pad(graph: DataflowGraph, i: int) -> OpDesc | None:
    """The tensor.pad conv `i` reads its input from (through reshapes: `cost.model.is_free`), if any. A direct conv takes its
    pad into its own dispatch (pattern pad-conv); a window copy or a Winograd input transform cannot, so
    the pad is a copy dispatch of its own (IREE's `slow_memcpy`: ResNet-50's 16 before its 3x3 convs)."""
    p = graph.ops[i].operands[0] if graph.ops[i].operands else None
    while isinstance(p, int) and 0 <= p < len(graph.ops) and is_free(graph.ops[p]):
        p = graph.ops[p].operands[0] if graph.ops[p].operands else None
    return graph.ops[p] if isinstance(p, int) and 0 <= p < len(graph.ops) and graph.ops[p].kind is OpKind.PAD \
        else None


def decide(op: OpDesc, lay: ConvLayout, target: TargetDesc, pad: OpDesc | None = None) -> Choice:
    """Pure: the conv alone against its rewrite, each op priced as its own dispatch; the rewrite also
    pays for `pad` (the conv's input pad, see `input_pad`) as a dispatch of its own. On a GPU the direct
    conv is IREE's implicit GEMM (`--iree-codegen-llvmgpu-use-igemm`, on by default in 3.13): it costs
    at most the matmul the rewrite would make, without the window copy, so the rewrite is never taken
    there. Measured on an H200 (sm_90, 2026-12-04): SqueezeNet 3.45 ms with its 1x1 and 3x3 convs
    rewritten, 2.65 without; ShuffleNet (grouped 1x1 convs as batch matmuls) 2.24 against 1.48."""
    parts = im2col_descs(op, lay)
    direct = estimate([op], target).time_s
    if target.kind != "cpu":
        direct = min(direct, estimate([parts[-1]], target).time_s)
    after = sum(estimate([d], target).time_s for d in (*parts, *((pad,) if pad else ()), *_transposed_back(op, lay)))
    return Choice(NAME, f"op {op.index} ({op.loc})", "direct", "im2col + matmul", direct, after)


def _transposed_back(op: OpDesc, lay: ConvLayout) -> tuple[OpDesc, ...]:
    """The transpose of a batched 1x1 conv's `[F, N, S..]` result back to `[N, F, S..]`, a dispatch of its own
    unless it meets the next such conv's input transpose (`_finish`): priced as paid, so a chain's inner
    convs are priced high. (A windowed conv's transpose back has never been priced.)"""
    if lay.batch is None or not pointwise_over_batch(op):
        return ()
    from .layout import transpose_desc

    shape = op.result_shapes[0]
    return (transpose_desc((shape[1], shape[0], *shape[2:]), [1, 0, *range(2, len(shape))], op.element_types[-1],
                           op.loc),)


def find_convs(graph: DataflowGraph, skip: set[int] = frozenset(), min_k: int = 0) -> list[tuple[int, ConvLayout]]:
    """Conv sites; a batched 1x1 conv only with at least `min_k` input channels (a CPU's f32 lanes): with fewer,
    the matmul is a few FMAs per output between two transposes, and it ran slower than the direct form
    (PointNet's 3 -> 64 over 3 x 512 points: 105 against 60 us, predicted a 5% gain)."""
    return [(i, lay) for i, op in enumerate(graph.ops)
            if i not in skip and (lay := layout(op, batched=True)) is not None
            and not (lay.batch is not None and pointwise_over_batch(op)
                     and numel(tuple(op.loop_ranges[d] for d in lay.red)) < min_k)]


# ---- the IR rewrite ------------------------------------------------------------------------------

def _collapse(v: ir.Value, groups: Sequence[Sequence[int]]) -> ir.Value:
    from iree.compiler.dialects import tensor

    t = ir.RankedTensorType(v.type)
    if all(len(g) == 1 for g in groups):  # nothing to collapse (a 1x1 filter's single reduction dim)
        return v
    shape = [numel(tuple(t.shape[d] for d in g)) for g in groups]
    return tensor.CollapseShapeOp(ir.RankedTensorType.get(shape, t.element_type), v,
                                  [list(g) for g in groups]).result


def _spans(sizes: Sequence[int]) -> list[list[int]]:
    """[[0..a-1], [a..a+b-1], ...]: reassociation groups of consecutive dims."""
    out, k = [], 0
    for n in sizes:
        out.append(list(range(k, k + n)))
        k += n
    return out


def window_tiles(lay: ConvLayout, loops: Sequence[int]) -> list[int] | None:
    """Workgroup tiles for a window copy over `loops` (groups, reductions, spatial dims) whose output row
    is longer than IREE's 64-element distribution tile, or whose window has one dim (1x7 / 7x1 convs):
    one group, one input channel, the whole kernel window, one output row at a time, the whole row
    (`backends.lowering.window_copy_compilation_info`). None for other copies with shorter rows, which
    keep IREE's own tiles. Why the 1-D windows: Inception-v3's [C, 7, 17, 17] copies, with the data
    tiling's packing in their dispatch, took 0.7-1.8 ms each in IREE's tiles and 0.2-0.3 ms in these
    (their sum 10.5 -> 5.8 ms, profiled in the model, 2026-12-02; whole model paired 0.96x); for 2-D
    windows with short rows these tiles measured the same or slower (ZFNet's 12x12, SqueezeNet's 13x13)."""
    if not lay.spatial or (loops[-1] <= MAX_DIST_TILE and len(lay.red) != 2):
        return None
    nb, nr = len(lay.groups), len(lay.red)
    return [1] * (nb + 1) + list(loops[nb + 1:nb + nr]) + [1] * (len(lay.spatial) - 1) + [loops[-1]]


def apply_im2col(op: ir.Operation, desc: OpDesc, lay: ConvLayout, lanes: int | None = None) -> None:
    """Replace conv `op` (described by `desc`) by the window copy and the matmul, in place. With `lanes`
    (a CPU target's f32 vector width), a copy with long rows gets its own tiles (`window_tiles`) and a
    grouped 1x1 conv's batch matmul IREE's llvm-cpu tiles; without (a GPU target) no op gets any: a CPU
    `lowering_config` fails the GPU pipelines ("failed to build pass pipeline", ShuffleNet on sm_90)."""
    from iree.compiler.dialects import arith, linalg, tensor

    x, w, init = op.operands[0], op.operands[1], op.operands[2]
    out_t = ir.RankedTensorType(op.results[0].type)
    elt = out_t.element_type
    nr, ns = len(lay.red), len(lay.spatial)
    with op.context, op.location, ir.InsertionPoint(op):
        par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        red = ir.Attribute.parse("#linalg.iterator_type<reduction>")
        nb = len(lay.groups)
        pointwise = lay.copy and lay.batch is not None and pointwise_over_batch(desc)
        if pointwise:  # no window: a transpose
            cols = _collapse(transpose(x, [*range(1, nr + 1), 0, *range(nr + 1, out_t.rank + nr - 1)]),
                             _spans([nr, ns]))
        elif lay.copy:
            loops = [desc.loop_ranges[d] for d in (*lay.groups, *lay.red, *lay.spatial)]
            cols_t = ir.RankedTensorType.get(loops, elt)
            empty = tensor.EmptyOp(loops, elt).result
            in_map = ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{_renamed_input_map(desc, lay)}>"))
            copy = linalg.GenericOp([cols_t], [x], [empty],
                                    ir.ArrayAttr.get([in_map, ir.AffineMapAttr.get(ir.AffineMap.get_identity(len(loops)))]),
                                    ir.ArrayAttr.get([par] * len(loops)))
            blk = copy.regions[0].blocks.append(elt, elt)
            with ir.InsertionPoint(blk):
                linalg.YieldOp([blk.arguments[0]])
            tiles = window_tiles(lay, loops) if lanes else None
            if tiles is not None:
                copy.operation.attributes["compilation_info"] = ir.Attribute.parse(
                    window_copy_compilation_info(tiles, lanes))
            cols = _collapse(copy.result, _spans([1] * nb + [nr, ns]))
        else:  # 1x1 stride 1: the input itself, viewed as [C, H*W] (per group)
            cols = _collapse(x, _spans([1] * nb + [nr, ns]))
        # A 2-D matmul (batched over conv groups), as IREE's own im2col makes: its data tiling packs it
        # into mmt4d tiles (the same contraction kept 3-D, `[F, OH, OW]`, ran 632 ms on ResNet-50 against
        # 140 ms as 2-D). The expand_shape after it is moved below the epilogue (`propagate_reshapes`).
        w2 = _collapse(w, _spans([1] * (nb + 1) + [nr]))
        swap = [1, 0, *range(2, out_t.rank)]  # [N, F, ...] <-> [F, N, ...] for a batched conv
        fn_shape = [out_t.shape[k] for k in swap]
        if lay.batch is not None:
            init = transpose(init, swap)
        init2 = _collapse(init, _spans([1] * (nb + 1) + [ns]))
        if nb == 1 and not lay.copy:  # grouped 1x1: a named batch matmul in IREE's own tiles, not data-tiled
            # (ShuffleNet's 4x34x784x34: 0.12 ms against 0.17 packed and 0.33 as IREE's generic; paired A/B
            # of the model 0.72x). Windowed grouped convs keep the generic, which IREE packs: AlexNet's
            # (K = 1200-2304) ran slower in these tiles (ours/onnxruntime 1.49 against 1.39).
            mm_out = linalg.batch_matmul(w2, cols, outs=[init2])
            _, m, n = ir.RankedTensorType(init2.type).shape
            if lanes is not None:
                mm_out.owner.attributes["compilation_info"] = ir.Attribute.parse(iree_bmm_compilation_info(m, n))
        elif pointwise:  # named: IREE's transpose propagation moves transposes through it, not into it
            mm_out = linalg.matmul(w2, cols, outs=[init2])
        else:
            maps_text, _ = _matmul_maps(nb)
            maps = [ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{m}>")) for m in maps_text]
            mm = linalg.GenericOp([ir.RankedTensorType(init2.type)], [w2, cols], [init2], ir.ArrayAttr.get(maps),
                                  ir.ArrayAttr.get([par] * (nb + 2) + [red]))
            body = mm.regions[0].blocks.append(elt, elt, elt)
            with ir.InsertionPoint(body):
                prod = arith.MulFOp(body.arguments[1], body.arguments[0]).result  # input * filter, as the conv
                linalg.YieldOp([arith.AddFOp(body.arguments[2], prod).result])
            mm_out = mm.result
        if lay.batch is None:
            res = tensor.ExpandShapeOp(out_t, mm_out, _spans([1] * (nb + 1) + [ns]), [], list(out_t.shape)).result
        else:
            fn = tensor.ExpandShapeOp(ir.RankedTensorType.get(fn_shape, elt), mm_out, _spans([1, ns]), [],
                                      fn_shape).result
            res = transpose(fn, swap)
            if pointwise:
                defining_op(res).attributes[TRANSPOSED_BACK] = ir.UnitAttr.get()
    op.results[0].replace_all_uses_with(res)
    op.erase()


# IREE's own reshape propagation, as its dispatch creation runs it: the expand_shape after each 2-D
# matmul moves below the conv's elementwise epilogue (which becomes 2-D too), so the epilogue joins the
# matmul's group again. ResNet-50: 130 -> 95 dispatches (IREE's own im2col build has 95), 131 -> 108 ms.
PROPAGATE = ("func.func(iree-dispatch-creation-bubble-up-expand-shapes,iree-dispatch-creation-sink-reshapes,"
             "canonicalize,cse)")


def propagate_reshapes(fn: ir.Operation) -> None:
    from iree.compiler.passmanager import PassManager

    PassManager.parse(PROPAGATE, context=fn.context).run(fn)


def rewrite(target: TargetDesc) -> Rewrite:
    """The rewrite for `target`: on a CPU its window copies with long rows carry their tiles."""
    lanes = target.lanes_f32 if target.kind == "cpu" else None
    return Rewrite(NAME, lambda graph, ops, skip: find_convs(graph, skip, lanes or 0),
                   lambda graph, site, t: decide(graph.ops[site[0]], site[1], t, input_pad(graph, site[0])),
                   lambda graph, ops, site: apply_im2col(ops[site[0]], graph.ops[site[0]], site[1], lanes),
                   finish=_finish)


# Marks the transposes back of batched 1x1 convs (`apply_im2col`) until `_finish` has propagated them.
TRANSPOSED_BACK = "fusion_opt.transposed_back"


def _finish(fn: ir.Operation) -> None:
    """Reshapes propagated; where batched 1x1 convs were rewritten, transposes too: a chain of them with
    elementwise ops between stays in the `[C, N, S..]` layout, the transposes back and forth cancelling
    (`layout.propagate`). Only there: propagating transposes after other im2col rewrites moves fills and
    reshapes of plans measured without it (AlexNet's)."""
    from .layout import propagate

    propagate_and_collapse(fn)
    marked = [o for o in all_ops(fn) if TRANSPOSED_BACK in o.attributes]
    if marked:
        for o in marked:
            del o.attributes[TRANSPOSED_BACK]
        propagate(fn)
        propagate_and_collapse(fn)
