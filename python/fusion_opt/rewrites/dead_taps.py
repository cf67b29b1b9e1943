"""Convolution window taps that read only zero padding, dropped.

Why: atrous (dilated) convolutions pad their input by the dilation, and on a small image the outer taps
of the window fall wholly in that padding: DeepLabV3's ASPP convs (3x3, dilation 24 and 36, padding 24
and 36, on a 14x14 feature map) read real input only through their centre tap. Computed as written each
is a 960 -> 256 3x3 conv (an im2col copy of 9x its input and a K = 8640 matmul: 4.5 + 2.4-3.0 ms here)
whose eight outer taps multiply zeros; as its one live tap it is a 1x1 conv (a K = 960 matmul). The same
holds for any conv whose padding exceeds what its windows reach (a large kernel on a small image).

The rule, per window dim that reads `out * s + tap * d` of an input padded by `lo` (source extent `H`,
`O` outputs): tap `k` reads real input for some output iff `k*d <= lo + H - 1` and `k*d + (O-1)*s >= lo`,
an interval `[k0, k1]` of taps. The conv is rebuilt over those taps: the filter sliced to them, the
input re-padded (or cropped) so that tap `k0` reads where it read before, and a dim left with one tap
dropped from the loop nest (so later rewrites see a 1x1 conv). Exact up to the sign of a zero sum: every
dropped product is `0 * w` with `w` finite (checked on the constant filter; a filter that is not a
constant is left alone) and the kept products are summed in the same order.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..analysis.classify import map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, static_ints
from ..ir import ir, static_pad, zero_pad
from .taps import affine_terms, map_attr

NAME = "dead-taps"
FLOAT_TYPES = frozenset({"f16", "f32", "f64"})  # bf16: no numpy type to rebuild its constant
_NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


@dataclass(frozen=True)
class Site:
    conv: int                                # the conv's op index
    pad: int                                 # the tensor.pad feeding its input
    live: tuple[tuple[int, int, int], ...]   # (tap loop, first live tap, last live tap) per narrowed tap loop


@dataclass(frozen=True)
class _Read:
    """Input dim `dim` reads `out * stride + tap * dilation` (no `out`: a window dim whose output extent is
    one, dropped at import; a channel dim reads its tap alone, with nothing padded)."""

    dim: int
    out: int | None
    stride: int
    tap: int
    dilation: int


def _window_reads(op: OpDesc) -> list[_Read] | None:
    """The input dims that read a reduction loop the filter indexes (with at most one output loop);
    None if some input dim reads anything else than that or one loop plainly."""
    x_res, w_res = map_results(op.indexing_maps[0]), op.map_dims[1]
    parallel = {d for d, it in enumerate(op.iterator_types) if it == "parallel"}
    reads = []
    for j, r in enumerate(x_res):
        t = affine_terms(r)
        if t is None:
            return None
        outs = [(d, c) for d, c in t.items() if d in parallel]
        taps = [(d, c) for d, c in t.items() if d not in parallel and d in w_res]
        if not taps and len(outs) == 1 and outs[0][1] == 1:
            continue
        if len(taps) != 1 or len(outs) > 1 or len(t) != len(taps) + len(outs):
            return None
        out, stride = outs[0] if outs else (None, 0)
        reads.append(_Read(j, out, stride, taps[0][0], taps[0][1]))
    return reads if len({r.tap for r in reads}) == len(reads) else None  # a tap loop in two dims: not a window


def live_taps(lo: int, extent: int, outs: int, stride: int, taps: int, dilation: int) -> tuple[int, int]:
    """Pure: the first and last tap that reads real input for some output (first > last: none does)."""
    first = max(0, math.ceil((lo - (outs - 1) * stride) / dilation))
    last = min(taps - 1, (lo + extent - 1) // dilation)
    return first, last


def _pad_of(graph: DataflowGraph, i: int) -> int | None:
    """The static `tensor.pad` conv `i` reads its input from directly, if any."""
    p = graph.ops[i].operands[0] if graph.ops[i].operands else None
    if p is None or p < 0 or graph.ops[p].name != "tensor.pad" or "static_low" not in dict(graph.ops[p].attrs):
        return None
    return p


def filter_values(w: ir.Value) -> np.ndarray | None:
    """The values of a constant filter (a splat broadcast), else None."""
    owner = w.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    try:
        dense = ir.DenseFPElementsAttr(owner.attributes["value"])
    except ValueError:
        return None
    shape = ir.RankedTensorType(w.type).shape
    if dense.is_splat:
        return np.full(shape, ir.FloatAttr(dense.get_splat_value()).value, np.float64)
    return np.array(dense).reshape(shape)


def _live_filter(w: ir.Value, op: OpDesc, live: Sequence[tuple[int, int, int]]) -> np.ndarray | None:
    """The filter's live taps (`live`, by loop), if it is a constant whose dropped taps are all finite
    (0 * inf is NaN); one-tap dims dropped."""
    values = filter_values(w)
    if values is None:
        return None
    kept = [slice(None)] * values.ndim
    for tap, first, last in live:
        kept[op.map_dims[1].index(tap)] = slice(first, last + 1) if first < last else first
    dropped = np.ones(values.shape, bool)
    dropped[tuple(kept)] = False
    return values[tuple(kept)] if np.isfinite(values[dropped]).all() else None


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[Site]:
    """Float convs (mul-add body, plain filter and output maps, a constant filter) reading a static pad,
    not pinned or barred, with at least one tap no output reads real input through, and at least one that
    does. The pad's value and the filter's values are checked on the IR (`drop_dead_taps`)."""
    sites = []
    for op in graph.ops:
        if (op.index in skip or op.kind is not OpKind.CONVOLUTION or op.name != "linalg.generic"
                or op.num_dps_inputs != 2 or len(op.result_shapes) != 1
                or tuple(op.body_ops) != ("arith.mulf", "arith.addf")
                or not set(op.element_types) <= FLOAT_TYPES or -1 in op.map_dims[1] or -1 in op.map_dims[2]
                or op.operands[1] is not None):
            continue
        p = _pad_of(graph, op.index)
        reads = _window_reads(op) if p is not None else None
        if not reads:
            continue
        low = list(static_ints(graph.ops[p], "static_low"))
        src_shape = graph.ops[p].operand_shapes[0]
        live, dead = [], False
        for r in reads:
            k = op.loop_ranges[r.tap]
            outs = op.loop_ranges[r.out] if r.out is not None else 1
            first, last = live_taps(low[r.dim], src_shape[r.dim], outs, r.stride, k, r.dilation)
            if first > last:
                break
            dead |= (first, last) != (0, k - 1)
            live.append((r.tap, first, last))
        else:
            if dead:
                sites.append(Site(op.index, p, tuple(live)))
    return sites


def apply(ops: Sequence[ir.Operation], desc: OpDesc, site: Site, live_filter: np.ndarray) -> None:
    """Rebuild conv `site.conv` over its live taps (see the module docstring), in place; `live_filter`:
    the filter's values at those taps (`_live_filter`), a new constant (IREE kept a slice of the old one
    inside the matmul's dispatch: a 1 MB stack allocation it refused)."""
    from iree.compiler.dialects import arith, linalg, tensor

    conv, pad = ops[site.conv], ops[site.pad]
    live = {tap: (first, last) for tap, first, last in site.live}
    reads = {r.dim: r for r in _window_reads(desc) or ()}
    gone = {tap for tap, (first, last) in live.items() if first == last}  # one tap left: no loop
    keep = [d for d in range(len(desc.loop_ranges)) if d not in gone]
    renum = {d: k for k, d in enumerate(keep)}
    src = pad.operands[0]
    src_t = ir.RankedTensorType(src.type)
    elt = src_t.element_type
    low, high = (list(ir.DenseI64ArrayAttr(pad.attributes[k])) for k in ("static_low", "static_high"))
    x_res = []
    for j, expr in enumerate(map_results(desc.indexing_maps[0])):
        r = reads.get(j)
        if r is None or r.tap not in live:
            x_res.append(" + ".join(f"d{renum[d]} * {c}" for d, c in (affine_terms(expr) or {}).items()))
            continue
        first, last = live[r.tap]
        low[j] -= first * r.dilation  # tap `first` now reads the new input's start
        outs = desc.loop_ranges[r.out] if r.out is not None else 1
        high[j] = (outs - 1) * r.stride + (last - first) * r.dilation + 1 - low[j] - src_t.shape[j]
        terms = ([] if r.out is None else [f"d{renum[r.out]} * {r.stride}"]) + \
            ([] if r.tap in gone else [f"d{renum[r.tap]} * {r.dilation}"])
        x_res.append(" + ".join(terms) or "0")
    w_dims = desc.map_dims[1]
    with conv.context, conv.location, ir.InsertionPoint(conv):
        x = src
        crop = [(max(0, -lo), src_t.shape[j] - max(0, -lo) - max(0, -hi)) for j, (lo, hi) in enumerate(zip(low, high))]
        if any(off or size != src_t.shape[j] for j, (off, size) in enumerate(crop)):
            x = tensor.ExtractSliceOp(ir.RankedTensorType.get([s for _, s in crop], elt), x, [], [], [],
                                      [o for o, _ in crop], [s for _, s in crop], [1] * len(crop)).result
        low, high = [max(0, v) for v in low], [max(0, v) for v in high]
        if any(low) or any(high):
            x = static_pad(x, low, high, arith.ConstantOp(elt, 0.0).result)
        w_t = ir.RankedTensorType(conv.operands[1].type)
        w = arith.ConstantOp(ir.RankedTensorType.get(list(live_filter.shape), w_t.element_type),
                             ir.DenseElementsAttr.get(np.ascontiguousarray(live_filter.astype(_NP[str(w_t.element_type)])),
                                                      type=w_t.element_type)).result
        n = len(keep)
        maps = [map_attr(n, x_res), map_attr(n, [f"d{renum[d]}" for d in w_dims if d not in gone]),
                map_attr(n, [f"d{renum[d]}" for d in desc.map_dims[2]])]
        its = ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{desc.iterator_types[d]}>") for d in keep])
        out_t = ir.RankedTensorType(conv.results[0].type)
        gen = linalg.GenericOp([out_t], [x, w], [conv.operands[2]], ir.ArrayAttr.get(maps), its)
        old = conv.regions[0].blocks[0]
        mul, add = old.operations[0], old.operations[1]
        blk = gen.regions[0].blocks.append(*(a.type for a in old.arguments))
        args = {old.arguments[k]: blk.arguments[k] for k in range(3)}
        with ir.InsertionPoint(blk):
            prod = arith.MulFOp(*(args[v] for v in mul.operands)).result
            linalg.YieldOp([arith.AddFOp(*(prod if v == mul.results[0] else args[v] for v in add.operands)).result])
    old_filter = conv.operands[1].owner
    conv.results[0].replace_all_uses_with(gen.result)
    conv.erase()
    for dead in (pad, old_filter):
        if not list(dead.results[0].uses):
            dead.erase()


def drop_dead_taps(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many."""
    done = 0
    for s in find(graph, skip):
        w = _live_filter(ops[s.conv].operands[1], graph.ops[s.conv], s.live) if zero_pad(ops[s.pad]) else None
        if w is not None:
            apply(ops, graph.ops[s.conv], s, w)
            done += 1
    return done
