"""A sum/average pool feeding a 1x1 conv computed after it: `conv1x1(avgpool(x)) = avgpool(conv1x1(x))`.

Why: Inception's pool branch pads a concat (`x`, 192-576 channels) for a 3x3 stride-1 average pool,
then projects it with a 1x1 conv to 32-128 channels. Both are linear maps, one per pixel across
channels, the other per channel across pixels, so they commute: the 1x1 conv runs first on the
unpadded concat (the same products: a stride-1 "same" pool keeps every pixel; as a matmul it reads the
concat beside the branch's other 1x1 convs), and the pad (a copy dispatch either way: IREE folds the
pool's centre tap into the pad's source, fusion/epilogue_split.py `reads_interior`) and the pool's
nine taps see `Cout` channels instead of `C`. Inception-v2: 7 sites, the pad copies 4.5x smaller,
paired 0.965-0.976x (docs/performance.md).

Exact in real arithmetic for any divisor that depends on the pixel only (count_include_pad either way:
padded taps are zero on both sides; the conv of a zero pixel is zero since the conv must accumulate into
zeros, its bias an epilogue after it, as `bias-epilogue` leaves it); rounding differs (~1 ulp per sum).
Applied where it never adds work: a zero pad, a sum pool (`arith.addf` over window taps) at stride 1
whose output has the input's pixels, a divisor op (optional) linear in the sum that never reads the
channel coordinate, at most as many output channels as input channels.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, reassociation
from ..fusion.legality import numel
from ..ir import clone_body, constant_value, defining_op, erase_dead_empty, ir, static_pad, zero_pad
from .bias_epilogue import MAC
from .pool_taps import Pool, pool
from .taps import zeros

NAME = "pool-conv-swap"
# Ops a divisor body may hold besides its one float op on the sum: integer/index arithmetic on the
# pixel's coordinates, converted to float once.
_INDEX_OPS = ("linalg.index", "arith.index_cast", "arith.addi", "arith.subi", "arith.muli", "arith.minsi",
              "arith.maxsi", "arith.divsi", "arith.constant", "arith.sitofp", "arith.uitofp")


@dataclass(frozen=True)
class Site:
    conv: int
    operand: int            # which input of the conv reads the pool
    scale: int | None       # the divisor op between pool and conv, if any
    pool: int
    reshape: int | None     # a collapse_shape between pad and pool, if any
    pad: int | None         # the pool's zero pad (pool before the conv), None for a pool after the conv


def _single_use(graph: DataflowGraph, i: int, consumer: int) -> bool:
    return graph.consumers(i) == (consumer,) and i not in graph.outputs


def _aligned(conv: OpDesc, a: int) -> int | None:
    """The result position where the conv's input `a` holds its (one) reduction loop and the output its
    channel loop, every other position reading the same loop in both; else None. The weight reads only
    those two loops."""
    if len(conv.map_dims) != 3 or conv.iterator_types.count("reduction") != 1:
        return None
    x, w, out = conv.map_dims[a], conv.map_dims[1 - a], conv.map_dims[2]
    red = conv.iterator_types.index("reduction")
    if len(x) != len(out) or -1 in x or -1 in out or x.count(red) != 1:
        return None
    k = x.index(red)
    if any(x[j] != out[j] for j in range(len(x)) if j != k) or out[k] in x:
        return None
    if sorted(w) != sorted((red, out[k])):
        return None
    return k


def _divisor_like(d: OpDesc) -> bool:
    """One input, one float op (a divide or multiply: `_checked` makes sure it scales the sum), the rest
    integer arithmetic on coordinates."""
    floats = [o for o in d.body_ops if o.startswith("arith.") and o.endswith("f")]
    return (d.num_dps_inputs == 1 and len(floats) == 1 and floats[0] in ("arith.divf", "arith.mulf")
            and all(o in floats or o in _INDEX_OPS for o in d.body_ops) and len(set(d.map_dims)) == 1)


def _channel_pool(s: OpDesc, k: int, strided_rows: bool) -> Pool | None:
    """`s` as a sum pool whose maps list the output dims in order and whose channel (position `k`) is read
    without a tap: what commutes with a 1x1 conv over that channel."""
    pl = pool(s, strided_rows=strided_rows)
    if pl is None or pl.body != "arith.addf" or pl.reads[k][2] >= 0 or \
            pl.out_dims != tuple(range(len(pl.out_dims))) or [rd[0] for rd in pl.reads] != list(pl.out_dims):
        return None
    return pl


def _site(graph: DataflowGraph, m: int, a: int) -> Site | None:
    conv = graph.ops[m]
    p = conv.operands[a]
    if p is None or p < 0 or not _single_use(graph, p, m):
        return None
    scale = None
    if graph.ops[p].kind is OpKind.ELEMENTWISE and graph.ops[p].name == "linalg.generic":
        d = graph.ops[p]
        if not _divisor_like(d):
            return None
        scale, p = p, d.operands[0]
        if p is None or p < 0 or not _single_use(graph, p, scale):
            return None
    s = graph.ops[p]
    k = _aligned(conv, a)
    pl = None if k is None else _channel_pool(s, k, strided_rows=False)
    if pl is None or s.result_shapes[0] != conv.operand_shapes[a] or any(st != 1 for _, st, _, _ in pl.reads):
        return None  # every dim at stride 1: the pool keeps the conv's pixels
    if numel(conv.result_shapes[0]) > numel(s.result_shapes[0]):
        return None  # more output channels than input ones: the pool would sum more
    q = s.operands[0]
    reshape = None
    if q is not None and q >= 0 and graph.ops[q].name == "tensor.collapse_shape" and _single_use(graph, q, p):
        reshape, q = q, graph.ops[q].operands[0]
    if q is None or q < 0 or graph.ops[q].name != "tensor.pad" or not _single_use(graph, q, reshape or p):
        return None
    src = graph.ops[q].operand_shapes[0]
    if reshape is not None:  # padded dims must not merge with others: each padded dim its own group
        groups = reassociation(graph.ops[reshape])
        if groups is None or any(len(g) > 1 and any(src[d] != graph.ops[q].result_shapes[0][d] for d in g)
                                 for g in groups):
            return None
        src = tuple(numel(tuple(src[d] for d in g)) for g in groups)
    if src != s.result_shapes[0]:
        return None  # the pool's output has exactly the unpadded input's pixels
    return Site(m, a, scale, p, reshape, q)


def _site_after(graph: DataflowGraph, m: int, a: int) -> Site | None:
    """The other direction: a strided sum pool (no pad) reading the conv's result, which has fewer pixels
    after it; the conv then runs on the pooled input (DenseNet's transitions: a 1x1 conv halving the
    channels, then a 2x2 stride-2 average pool: the conv's products / 4, the pool's adds x 2)."""
    conv = graph.ops[m]
    k = _aligned(conv, a)
    cons = graph.consumers(m)
    if k is None or len(cons) != 1 or m in graph.outputs:
        return None
    s = graph.ops[cons[0]]
    pl = _channel_pool(s, k, strided_rows=True)
    if pl is None or s.operands[0] != m:
        return None
    scale = None
    after = graph.consumers(s.index)
    if len(after) == 1 and s.index not in graph.outputs and graph.ops[after[0]].kind is OpKind.ELEMENTWISE \
            and graph.ops[after[0]].name == "linalg.generic" and _divisor_like(graph.ops[after[0]]):
        scale = after[0]
    c_in, c_out = conv.operand_shapes[a][k], conv.result_shapes[0][k]
    taps = numel(tuple(s.loop_ranges[t] for t in pl.taps))
    p_in, p_out = numel(conv.result_shapes[0]) // c_out, numel(s.result_shapes[0]) // c_out
    before = 2 * c_in * c_out * p_in + taps * c_out * p_out
    if 2 * c_in * c_out * p_out + taps * c_in * p_out >= before:
        return None  # the conv's products saved must outweigh the pool's adds over more channels
    return Site(m, a, scale, s.index, None, None)


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[Site]:
    out = []
    for op in graph.ops:
        if (op.kind is not OpKind.CONTRACTION or op.name != "linalg.generic" or tuple(op.body_ops) != MAC
                or op.num_dps_inputs != 2 or any(t != "f32" for t in op.element_types)):
            continue
        for a in (0, 1):
            site = _site(graph, op.index, a)
            if site is None:
                site = _site_after(graph, op.index, a)
            if site is not None and not {site.conv, site.pool, site.pad, site.scale, site.reshape} & skip:
                out.append(site)
                break
    return out


def _block(op: ir.Operation) -> ir.Block:
    return op.regions[0].blocks[0]


def _checked(ops: Sequence[ir.Operation], site: Site, k: int) -> bool:
    """What the graph does not show: a zero pad and a zero pool init, a conv accumulating products into
    zeros, a divisor linear in the sum that never reads the channel coordinate."""
    conv, s = ops[site.conv], ops[site.pool]
    pad = None if site.pad is None else ops[site.pad]
    init_of = (lambda op: defining_op(op.operands[len(op.operands) - 1]))
    for op in (conv, s):
        fill = init_of(op)
        if fill is None or fill.name != "linalg.fill" or constant_value(fill.operands[0]) != 0.0:
            return False
    if pad is not None and not zero_pad(pad):
        return False
    if not _accumulates_products(conv):
        return False
    if site.scale is None:
        return True
    blk = _block(ops[site.scale])
    x = blk.arguments[0]
    ops_in = list(blk.operations)
    uses = [u.owner for u in x.uses]
    if len(uses) != 1 or uses[0].name not in ("arith.divf", "arith.mulf"):
        return False
    if ops_in[-1].operands[0] != uses[0].result:  # the scaled sum is what the body yields
        return False
    if uses[0].name == "arith.divf" and uses[0].operands[0] != x:
        return False
    return not any(o.name == "linalg.index" and ir.IntegerAttr(o.attributes["dim"]).value == k
                   for o in ops_in)


def _accumulates_products(conv: ir.Operation) -> bool:
    """The body is `out + in0 * in1` (the graph shows only the op names)."""
    blk = _block(conv)
    body = list(blk.operations)
    if len(body) != 3:
        return False
    mul, add, y = body
    args = list(blk.arguments)
    return (mul.name == "arith.mulf" and set(mul.operands) == {args[0], args[1]} and args[0] != args[1]
            and add.name == "arith.addf" and set(add.operands) == {mul.results[0], args[2]}
            and y.operands[0] == add.results[0])


def _regenerate(op: ir.Operation, inputs: list[ir.Value], init: ir.Value) -> ir.Value:
    """`op` (a linalg.generic) again over new operands (same maps, iterators and body), before `op`'s
    consumers: its result type is the init's."""
    from iree.compiler.dialects import linalg

    old = _block(op)
    gen = linalg.GenericOp([init.type], inputs, [init], op.attributes["indexing_maps"],
                           op.attributes["iterator_types"])
    blk = gen.regions[0].blocks.append(*[a.type for a in old.arguments])
    with ir.InsertionPoint(blk):
        linalg.YieldOp([clone_body(old, dict(zip(old.arguments, blk.arguments)))])
    return gen.result


def apply(graph: DataflowGraph, ops: Sequence[ir.Operation], site: Site) -> bool:
    """Rewrite one site in place; False (IR untouched) where `_checked` refuses it."""
    from iree.compiler.dialects import arith, tensor

    k = _aligned(graph.ops[site.conv], site.operand)
    if k is None or not _checked(ops, site, k):
        return False
    if site.pad is None:
        _pool_first(ops, site, k)
        return True
    conv, s, pad = ops[site.conv], ops[site.pool], ops[site.pad]
    x = pad.operands[0]
    conv_t = ir.RankedTensorType(conv.results[0].type)
    elt = conv_t.element_type
    low = list(ir.DenseI64ArrayAttr(pad.attributes["static_low"]))
    high = list(ir.DenseI64ArrayAttr(pad.attributes["static_high"]))
    with conv.context, conv.location, ir.InsertionPoint(conv):
        if site.reshape is not None:
            groups = reassociation(graph.ops[site.reshape])
            xt = ir.RankedTensorType(x.type)
            shape = [numel(tuple(xt.shape[d] for d in g)) for g in groups]
            x = tensor.CollapseShapeOp(ir.RankedTensorType.get(shape, elt), x,
                                       ops[site.reshape].attributes["reassociation"]).result
            low = [sum(low[d] for d in g) for g in groups]
            high = [sum(high[d] for d in g) for g in groups]
        xs = ir.RankedTensorType(x.type).shape
        cout = conv_t.shape[k]
        inputs = list(conv.operands)[:2]
        inputs[site.operand] = x
        pixels = [cout if j == k else xs[j] for j in range(len(xs))]
        early = _regenerate(conv, inputs, zeros(pixels, elt))
        padded = static_pad(early, low, high, arith.ConstantOp(elt, 0.0).result)
        window = list(s.operands)[1:len(s.operands) - 1]
        result = _regenerate(s, [padded, *window], zeros(conv_t.shape, elt))
        if site.scale is not None:
            result = _regenerate(ops[site.scale], [result], tensor.EmptyOp(list(conv_t.shape), elt).result)
    _replace(ops, site, conv, result)
    return True


def _pool_first(ops: Sequence[ir.Operation], site: Site, k: int) -> None:
    """The strided pool (and its divisor) on the conv's input, then the conv on the pooled pixels."""
    from iree.compiler.dialects import tensor

    conv, s = ops[site.conv], ops[site.pool]
    last = ops[site.scale] if site.scale is not None else s
    out_t = ir.RankedTensorType(last.results[0].type)
    elt = out_t.element_type
    x = conv.operands[site.operand]
    with conv.context, s.location, ir.InsertionPoint(last):
        shape = list(out_t.shape)
        shape[k] = ir.RankedTensorType(x.type).shape[k]
        window = list(s.operands)[1:len(s.operands) - 1]
        pooled = _regenerate(s, [x, *window], zeros(shape, elt))
        if site.scale is not None:
            pooled = _regenerate(ops[site.scale], [pooled], tensor.EmptyOp(shape, elt).result)
        inputs = list(conv.operands)[:2]
        inputs[site.operand] = pooled
        result = _regenerate(conv, inputs, zeros(list(out_t.shape), elt))
    _replace(ops, site, last, result)


def _replace(ops: Sequence[ir.Operation], site: Site, last: ir.Operation, result: ir.Value) -> None:
    """`result` for `last`'s; the site's old ops erased, with the zero fills only they read (a fill
    shared with other convs stays)."""
    inits = [defining_op(ops[i].operands[len(ops[i].operands) - 1]) for i in (site.conv, site.pool)]
    last.results[0].replace_all_uses_with(result)
    order = (site.scale, site.pool, site.conv) if site.pad is None else \
        (site.conv, site.scale, site.pool, site.reshape, site.pad)
    for i in order:
        if i is not None:
            ops[i].erase()
    for fill in inits:
        if fill is not None and not list(fill.results[0].uses):
            empty = fill.operands[1]
            fill.erase()
            erase_dead_empty(empty)


def swap_pools(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many (the caller describes the function again when > 0)."""
    return sum(apply(graph, ops, site) for site in find(graph, skip))
