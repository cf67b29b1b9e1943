"""3-D convolutions as 2-D ones over depth slices (pattern `conv3d-slices`).

Why: IREE 3.13 has no fast CPU path for a 3-D conv. A 16 -> 32 3x3x3 conv over an 8x16x16 output (56.6 MFLOP)
took 7.8 ms as its named channels-first op and 6.4 ms channels-last (7-9 GFLOP/s); as our im2col + matmul
0.82 ms, the window copy alone 0.55 (2026-12-05, 2-core AVX-512). The same conv as three 2-D convs, each
over the 8 output depths as a batch, reading the depth slice its kernel plane sees and accumulating into
the previous one's result, ran in 0.36 ms channels-last. So every 3-D conv becomes one 2-D conv per kernel
plane: a strided `tensor.extract_slice` of the input (a view, no copy), the filter's plane (a new constant
when the filter is one), and the
conv's own loops less the kernel's depth loop. The 2-D convs then get every strategy 2-D convs get
(channels-last, im2col + matmul, Winograd: `conv-layout`, `conv-strategy`, chosen by the cost model).
Same products; the sum over the kernel's depth runs outermost instead of interleaved (rounding differs
in the last bits). Applied wherever it matches: the split does no more work than the conv.

Matched on the generic form our import leaves (unit batch folded): input `[C, D, H, W]` read at
`(c, od * s + kd * t, oh * s + kh * t, ow * s + kw * t)`, filter `[F, C, KD, KH, KW]`, output `[F, OD, OH, OW]`.
A batch, groups or a depthwise conv keep their form (a 2-D conv with two batch loops is no conv IREE knows).
A depth-only kernel (R(2+1)D's temporal (3, 1, 1) conv) has 1x1 planes: they are made matmuls over the input
moved channels-last (`_apply_flat`), only at depth stride 1 (a strided depth slice is no matrix).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..analysis.classify import DIM, map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..ir import ir, mul_add_generic, transpose
from .dead_taps import filter_values
from .taps import affine_terms, map_attr, strided_slice

NAME = "conv3d-slices"


@dataclass(frozen=True)
class Site:
    """A 3-D conv: its op, the input dim read through the kernel's depth, that depth loop and the output
    depth loop, the depth's stride and dilation, and where the depth loop sits in the filter."""

    conv: int
    in_dim: int
    kd: int
    od: int
    stride: int
    dilation: int
    flt_dim: int
    flat: bool = False  # a depth-only kernel over whole rows: planes as matmuls over `[D, H*W, C]`


def site(i: int, op: OpDesc) -> Site | None:
    """Pure: `op` as a 3-D conv the split applies to, or None. The import folds a kernel's unit dims away:
    R(2+1)D's temporal (3, 1, 1) conv reads `(c, od + kd, oh, ow)` with a filter `[F, C, KD]` (its planes are
    1x1 convs); a (1, 3, 3) conv has no depth loop and is a 2-D conv already (the depth a batch loop)."""
    if (op.name != "linalg.generic" or op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2
            or len(op.map_dims) != 3 or len(op.result_shapes) != 1
            or tuple(op.body_ops) != ("arith.mulf", "arith.addf") or any(t != "f32" for t in op.element_types)):
        return None
    inp, flt, out = op.map_dims
    reds = {d for d, it in enumerate(op.iterator_types) if it == "reduction"}
    if len(inp) != 4 or not 3 <= len(flt) <= 5 or len(out) != 4 or -1 in flt or -1 in out or set(out) & reds:
        return None
    chans = [d for d in inp if d in reds and d in flt]
    window = [d for d in flt if d in reds and d not in inp]
    if len(chans) != 1 or len(window) != len(flt) - 2 or flt[0] not in out or flt[0] in inp:
        return None
    reads = []
    for j, expr in enumerate(map_results(op.indexing_maps[0])):
        terms = affine_terms(expr)
        if inp[j] == chans[0]:
            continue
        if terms is None or not 1 <= len(terms) <= 2:
            return None
        if len(terms) == 1:  # a dim without a kernel loop: read at `o * s`
            ((o, s),) = terms.items()
            if o not in out:
                return None
            reads.append((j, o, s, None, 0))
            continue
        (a, ca), (b, cb) = terms.items()
        (o, s), (k, t) = ((a, ca), (b, cb)) if b in window else ((b, cb), (a, ca))
        if k not in window or o not in out:
            return None
        reads.append((j, o, s, k, t))
    if len(reads) != 3 or {k for *_, k, _ in reads} - {None} != set(window):
        return None
    j, o, s, k, t = reads[0]  # the outermost spatial dim: the depth
    if k is None:
        return None
    # (c, od * s + kd * t, oh, ow) into (f, od, oh, ow) with whole rows: each plane is a 1x1 conv, which as a
    # 4-D generic took the layout propagation's transposes on its output and not its input (IREE then
    # exceeded its stack limit); over `[D, H*W, C]` (`_apply_flat`) it is a matmul whatever the layout around it.
    flat = (len(flt) == 3 and j == 1 and inp[0] == chans[0] and [r[1:] for r in reads[1:]] == [(out[2], 1, None, 0),
            (out[3], 1, None, 0)] and out[1] == o and tuple(op.operand_shapes[0][2:]) == tuple(op.result_shapes[0][2:]))
    if len(window) != 3 and not (flat and s == 1):  # a strided depth slice of `[D, H*W, C]` is no matrix:
        return None  # IREE ran its planes at 15 GFLOP/s (R(2+1)D's 230 -> 128 (3, 1, 1) stride-2 conv: 3 ms each)
    return Site(i, j, k, o, s, t, flt.index(k), flat)


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[Site]:
    return [s for i, op in enumerate(graph.ops) if i not in skip and (s := site(i, op)) is not None]


def apply(ops: Sequence[ir.Operation], desc: OpDesc, s: Site) -> None:
    """Replace the conv by one 2-D conv per kernel plane, chained through their inits, in place."""
    if s.flat:
        return _apply_flat(ops, desc, s)
    conv = ops[s.conv]
    x, w, init = conv.operands[0], conv.operands[1], conv.operands[2]
    n = len(desc.loop_ranges)
    keep = [d for d in range(n) if d != s.kd]
    renum = {d: k for k, d in enumerate(keep)}
    x_res = [f"d{renum[s.od]}" if j == s.in_dim else DIM.sub(lambda m: f"d{renum[int(m[1])]}", e)
             for j, e in enumerate(map_results(desc.indexing_maps[0]))]
    x_shape, w_shape = desc.operand_shapes[0], desc.operand_shapes[1]
    depth = desc.loop_ranges[s.od]
    acc = init
    values = filter_values(w)
    with conv.context, conv.location, ir.InsertionPoint(conv):
        maps = [map_attr(n - 1, x_res), map_attr(n - 1, [f"d{renum[d]}" for d in desc.map_dims[1] if d != s.kd]),
                map_attr(n - 1, [f"d{renum[d]}" for d in desc.map_dims[2]])]
        its = [desc.iterator_types[d] for d in keep]
        for plane in range(desc.loop_ranges[s.kd]):
            xs = strided_slice(x, [(plane * s.dilation, depth, s.stride) if j == s.in_dim else (0, size, 1)
                                   for j, size in enumerate(x_shape)])
            ws = _plane(w, values, plane, s.flt_dim, w_shape)
            acc = mul_add_generic([xs, ws], acc, maps, its)
    conv.results[0].replace_all_uses_with(acc)
    conv.erase()


def _apply_flat(ops: Sequence[ir.Operation], desc: OpDesc, s: Site) -> None:
    """A depth-only kernel, channels-last: input `[C, D, H, W]` moved to `[D, H, W, C]` and viewed
    `[D, H*W, C]`, whose depth slices are contiguous; per plane `[OD * H*W, C] x [C, F]`, a plain matmul (no
    copy), accumulated into `[OD, H*W, F]`, expanded and moved back once. The moves are transposes that
    `conv-layout`'s propagation cancels against a channels-last neighbour (R(2+1)D's spatial convs)."""
    from iree.compiler.dialects import tensor

    from .layout import moved

    conv = ops[s.conv]
    x, w, init = conv.operands[0], conv.operands[1], conv.operands[2]
    c, dp, h, wd = desc.operand_shapes[0]
    f, depth = desc.result_shapes[0][:2]
    values = filter_values(w)
    last = [1, 2, 3, 0]
    with conv.context, conv.location, ir.InsertionPoint(conv):
        elt = ir.RankedTensorType(x.type).element_type
        groups = [[0], [1, 2], [3]]
        xc = tensor.CollapseShapeOp(ir.RankedTensorType.get([dp, h * wd, c], elt), moved(x, last), groups).result
        acc = tensor.CollapseShapeOp(ir.RankedTensorType.get([depth, h * wd, f], elt), moved(init, last), groups).result
        maps = [map_attr(4, ["d0", "d1", "d3"]), map_attr(4, ["d2", "d3"]), map_attr(4, ["d0", "d1", "d2"])]
        for plane in range(desc.loop_ranges[s.kd]):
            xs = strided_slice(xc, [(plane * s.dilation, depth, s.stride), (0, h * wd, 1), (0, c, 1)])
            ws = _plane(w, values, plane, s.flt_dim, desc.operand_shapes[1])
            acc = mul_add_generic([xs, ws], acc, maps, ["parallel"] * 3 + ["reduction"])
        nhwc = tensor.ExpandShapeOp(ir.RankedTensorType.get([depth, h, wd, f], elt), acc, groups, [],
                                    [depth, h, wd, f]).result
        out = transpose(nhwc, [3, 0, 1, 2])
    conv.results[0].replace_all_uses_with(out)
    conv.erase()


def _plane(w: ir.Value, values: np.ndarray | None, plane: int, dim: int, shape: Sequence[int]) -> ir.Value:
    """The filter's kernel plane `plane`: a new constant when the filter is one (IREE kept a slice of a
    constant inside the consuming dispatch, and failed on a 1 MB one: rewrites/dead_taps.py), else a slice."""
    from iree.compiler.dialects import arith

    if values is None:
        return strided_slice(w, [(plane, 1, 1) if j == dim else (0, size, 1) for j, size in enumerate(shape)],
                             [size for j, size in enumerate(shape) if j != dim])
    part = np.ascontiguousarray(values.take(plane, axis=dim).astype(np.float32))
    f32 = ir.F32Type.get()
    return arith.ConstantOp(ir.RankedTensorType.get(list(part.shape), f32),
                            ir.DenseElementsAttr.get(part, type=f32)).result


def split_3d_convs(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many (the caller describes the function again when > 0)."""
    sites = find(graph, skip)
    for s in sites:
        apply(ops, graph.ops[s.conv], s)
    return len(sites)
