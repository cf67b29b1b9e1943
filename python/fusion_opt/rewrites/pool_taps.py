"""Window reductions (max/sum pooling, LRN's channel-window sums) as one elementwise op over their taps.

Why: IREE 3.13's llvm-cpu code for a pooling generic (a reduction over window loops, the input read
at `out * stride + tap`) is not vectorized along the output row: ResNet-50's 3x3 stride-2 max pool
(64x56x56 out of 64x112x112, 3.2 MB read) took 0.4-0.7 ms, against ~0.08 ms for streaming its input
once. Written as `out = init (op) x[tap 1] (op) ... (op) x[tap k]`,
each tap a strided `tensor.extract_slice` of the input, it is one elementwise op that IREE vectorizes
along the row (the same shape as `depthwise-taps`, without the filter).

The arithmetic per output element is the reduction's: the body op applied to the init and the
taps in loop order. Matched by structure: a `linalg.generic` whose reduction loops are all window
taps, whose input 0 reads every dim either as an output loop or as `out * stride + tap * dilation`,
whose other inputs are unread (the window-shape tensor of a named pooling op), with a body of one
`arith.maximumf`/`arith.minimumf`/`arith.addf`, f32, at most `MAX_TAPS` taps, and the input's
innermost dim read with stride 1: a stride-2 row makes every tap slice a gather (SqueezeNet's first
3x3 stride-2 max pool, 64x55x55 out of 64x111x111: 1.55 ms as taps against 0.32 ms as IREE's
reduction), while stride-1 pools (Inception's 3x3 ones, LRN's channel windows) stream. Chosen per site
by the cost model (rewrites/choice.py). The dense form `depthwise-taps` uses for strided convs (taps at
stride 1, then one strided slice) was measured here too and not kept: SqueezeNet's first pool as dense
taps (64x109x109) took 157 us plus the slice's dispatch, about what IREE's reduction takes (SqueezeNet
paired 1.04x, Inception-v2 1.00x, DenseNet-121 1.00x).
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
from .taps import MAX_TAPS, affine_map, affine_terms, fold_into_init, strided_slice, tap_points

NAME = "pool-taps"
BODY_OPS = ("arith.maximumf", "arith.minimumf", "arith.addf")


@dataclass(frozen=True)
class Pool:
    """Input dim k reads output loop `reads[k][0]` with stride `[1]`, plus tap loop `[2]` x dilation `[3]`
    (tap loop -1: no window along that dim)."""

    reads: tuple[tuple[int, int, int, int], ...]
    out_dims: tuple[int, ...]   # the output map's loops, in output order
    taps: tuple[int, ...]       # reduction loops, in loop order
    body: str


def pool(op: OpDesc, strided_rows: bool = False) -> Pool | None:
    """The op's Pool when it is a window reduction this rewrite handles (`strided_rows`: also one whose
    innermost dim is read at a stride, which `pool-conv-swap` moves but this rewrite does not take)."""
    if (op.name != "linalg.generic" or op.kind is not OpKind.REDUCTION or len(op.result_shapes) != 1
            or len(op.body_ops) != 1 or op.body_ops[0] not in BODY_OPS
            or any(t != "f32" for t in op.element_types) or op.num_dps_inputs < 1):
        return None
    maps = [map_results(m) for m in op.indexing_maps]
    outs = [affine_terms(r) for r in maps[-1]]
    if any(t is None or len(t) != 1 or next(iter(t.values())) != 1 for t in outs):
        return None
    out_dims = tuple(next(iter(t)) for t in outs)
    taps = tuple(d for d, it in enumerate(op.iterator_types) if it == "reduction")
    if not taps or sorted(out_dims) != [d for d, it in enumerate(op.iterator_types) if it == "parallel"]:
        return None
    # other inputs: only the window-shape tensor of named pooling ops (indexed by taps alone)
    if any(not set(op.map_dims[k]) <= set(taps) for k in range(1, op.num_dps_inputs)):
        return None
    reads = []
    for r in maps[0]:
        t = affine_terms(r)
        if t is None:
            return None
        par = [(d, s) for d, s in t.items() if d in out_dims]
        tap = [(d, s) for d, s in t.items() if d in taps]
        if len(par) != 1 or len(tap) > 1 or len(par) + len(tap) != len(t):
            return None
        reads.append((par[0][0], par[0][1], *(tap[0] if tap else (-1, 0))))
    if {rd[2] for rd in reads if rd[2] >= 0} != set(taps) or len({rd[2] for rd in reads if rd[2] >= 0}) != \
            sum(1 for rd in reads if rd[2] >= 0) or {rd[0] for rd in reads} != set(out_dims):
        return None
    if numel(tuple(op.loop_ranges[d] for d in taps)) > MAX_TAPS or (reads[-1][1] != 1 and not strided_rows):
        return None  # a strided innermost read is a gather per element (see module docstring)
    return Pool(tuple(reads), out_dims, taps, op.body_ops[0])


def taps_desc(op: OpDesc, p: Pool) -> OpDesc:
    """What the rewrite makes of `op`, for the cost model: one elementwise op over the output reading a
    window slice per tap, into the init."""
    out_shape = op.result_shapes[0]
    n_taps = numel(tuple(op.loop_ranges[d] for d in p.taps))
    n = len(out_shape)
    ident = f"({', '.join(f'd{k}' for k in range(n))}) -> ({', '.join(f'd{k}' for k in range(n))})"
    eb = elem_bytes(op.element_types[0])
    return OpDesc(index=-1, name="linalg.generic", loc=op.loc, kind=OpKind.ELEMENTWISE, loop_ranges=out_shape,
                  iterator_types=("parallel",) * n, indexing_maps=(ident,) * (n_taps + 1),
                  map_dims=(tuple(range(n)),) * (n_taps + 1), element_types=("f32",) * (n_taps + 2),
                  operand_shapes=(out_shape,) * (n_taps + 1), result_shapes=(out_shape,),
                  operands=(op.operands[0],) * n_taps + (op.operands[-1],), num_dps_inputs=n_taps,
                  body_ops=(p.body,) * n_taps, flops=op.flops,
                  bytes_read=(numel(op.operand_shapes[0]) + numel(out_shape)) * eb,
                  bytes_written=numel(out_shape) * eb)


def decide(op: OpDesc, p: Pool, target: TargetDesc) -> Choice:
    """Pure: the window reduction against its taps form, each priced as its own dispatch."""
    return Choice(NAME, f"op {op.index} ({op.loc})", "window reduction", "taps", estimate([op], target).time_s,
                  estimate([taps_desc(op, p)], target).time_s)


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[tuple[int, Pool]]:
    return [(i, p) for i, op in enumerate(graph.ops) if i not in skip and (p := pool(op)) is not None]


def apply(op: ir.Operation, desc: OpDesc, p: Pool) -> None:
    """Replace the window reduction `op` (described by `desc`) by its taps form, in place."""
    from iree.compiler.dialects import arith

    x, init = op.operands[0], op.operands[len(op.operands) - 1]
    ranges = desc.loop_ranges
    body = {"arith.maximumf": arith.MaximumFOp, "arith.minimumf": arith.MinimumFOp, "arith.addf": arith.AddFOp}[p.body]
    with op.context, op.location, ir.InsertionPoint(op):
        slices = [strided_slice(x, [(at[t] * dil if t >= 0 else 0, ranges[o], s) for o, s, t, dil in p.reads])
                  for at in tap_points(ranges, p.taps)]
        in_map = affine_map(len(p.out_dims), [p.out_dims.index(o) for o, _, _, _ in p.reads])  # slices follow the input

    def fold(acc: ir.Value, args: list[ir.Value]) -> ir.Value:
        for a in args:  # the reduction's order: init, then taps in loop order
            acc = body(acc, a).result
        return acc

    fold_into_init(op, slices, [in_map] * len(slices), init, fold)


REWRITE = Rewrite(NAME, lambda graph, ops, skip: find(graph, skip),
                  lambda graph, site, target: decide(graph.ops[site[0]], site[1], target),
                  lambda graph, ops, site: apply(ops[site[0]], graph.ops[site[0]], site[1]))
