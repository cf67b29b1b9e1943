"""Conv-BN folding: a per-channel affine chain after a convolution/matmul folded into its weights.

Why: inference BatchNorm is `(y - mean) * rsqrt(var + eps) * gamma + beta`, four elementwise ops on
every output element, and a bias add is one more. All are `y op c[channel]` with constant `c`, so
their composition is `y * s[f] + b[f]`; scaling the filter's output channel `f` by `s` (conv is linear
in its weights) leaves one bias add. `s`, `b` and the scaled weights are computed from constants only:
IREE's const-eval evaluates them at compile time (the planner leaves such ops outside regions, rule
`constant`), so at run time the conv keeps one epilogue op instead of four or five.

Matched by structure, never by op names: the root is any contraction/convolution whose weight
(operand 1) is a constant and whose output channel is one loop read by the weight and the output but
not the input; each chain step is a `linalg.generic` over the root's output space with exactly one
body op (addf, subf, mulf, divf) between the running value and a constant indexed by that channel.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.opdesc import DataflowGraph, OpKind
from ..fusion.legality import constant_ops, indexed
from ..ir import constant_value, indexing_maps, ir

STEP_OPS = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf")


@dataclass(frozen=True)
class AffineChain:
    root: int                       # the conv/matmul op index
    steps: tuple[int, ...]          # chain op indices, in order
    weight_pos: int                 # position of the output-channel loop in the weight's map
    out_pos: int                    # ... and in the root's output map


def _channel(op) -> tuple[int, int] | None:  # noqa: ANN001 - OpDesc
    if len(op.map_dims) != 3:
        return None
    inp, w, out = op.map_dims
    f = (set(w) & set(out)) - set(inp) - {-1}
    if len(f) != 1:
        return None
    d = f.pop()
    return w.index(d), out.index(d)


def _step(graph: DataflowGraph, cur: int, out_pos: int, const: frozenset[int]) -> int | None:
    """The op continuing the chain from op `cur`, or None."""
    cons = graph.consumers(cur)
    if len(cons) != 1 or cur in graph.outputs:
        return None
    u = graph.ops[cons[0]]
    if (u.name != "linalg.generic" or u.kind not in (OpKind.ELEMENTWISE, OpKind.BROADCAST)
            or u.num_dps_inputs != 2 or len(u.body_ops) != 1 or u.body_ops[0] not in STEP_OPS
            or u.result_shapes[0] != graph.ops[cur].result_shapes[0] or u.is_reduction):
        return None
    rank = len(u.loop_ranges)
    ident = tuple(range(rank))
    if u.map_dims[-1] != ident or cur not in u.operands[:2]:
        return None
    k = 1 - u.operands[:2].index(cur)                     # the constant operand
    if u.map_dims[1 - k] != ident or u.map_dims[k] != (out_pos,):
        return None
    p = u.operands[k]
    if p is not None and p not in const:
        return None
    return u.index


def find_chains(graph: DataflowGraph) -> list[AffineChain]:
    g = indexed(graph)
    const = constant_ops(g)
    chains = []
    for op in g.ops:
        if op.kind not in (OpKind.CONVOLUTION, OpKind.CONTRACTION) or len(op.operands) < 2:
            continue
        w = op.operands[1]
        pos = _channel(op)
        if pos is None or (w is not None and w not in const):
            continue
        steps, cur = [], op.index
        while (nxt := _step(g, cur, pos[1], const)) is not None:
            steps.append(nxt)
            cur = nxt
        if len(steps) > 1 or (steps and g.ops[steps[0]].body_ops[0] != "arith.addf"):  # a lone bias add is done
            chains.append(AffineChain(op.index, tuple(steps), *pos))
    return chains


# ---- the rewrite -----------------------------------------------------------------------------------

def _body_order_ok(u: ir.Operation, x_arg: int) -> bool:
    """The step's body computes `x op c` (x first) or a commutative op: checked on the IR."""
    body = u.regions[0].blocks[0]
    ops = list(body.operations)
    first = ops[0]
    if first.name in ("arith.addf", "arith.mulf"):
        return True
    a = first.operands[0]
    return isinstance(a.owner, ir.Block) and a.arg_number == x_arg


def _init_kind(init: ir.Value, out_pos: int) -> str | None:
    """The root's accumulator: "zero" (a fill of 0), "bias" (a per-channel constant broadcast: the
    conv's own bias, which the scale must also multiply), or None (anything else: not folded)."""
    owner = init.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)):
        return None
    if owner.name == "linalg.fill":
        return "zero" if constant_value(owner.operands[0]) == 0.0 else None
    if owner.name == "linalg.generic" and len(owner.operands) == 2:
        body = list(owner.regions[0].blocks[0].operations)
        maps = indexing_maps(owner)
        src = owner.operands[0].owner
        if (len(body) == 1 and body[0].name == "linalg.yield" and len(maps[0].results) == 1
                and ir.AffineDimExpr(maps[0].results[0]).position == out_pos
                and isinstance(src, (ir.Operation, ir.OpView)) and src.name == "arith.constant"):
            return "bias"
    return None


def fold_chain(ops: Sequence[ir.Operation], graph: DataflowGraph, chain: AffineChain) -> bool:
    """Rewrite one chain in place; False (untouched) when a step's body is `c - x` or `c / x`, or the
    root accumulates into something other than zero or its own per-channel bias."""
    from iree.compiler.dialects import arith, linalg, tensor

    root = ops[chain.root]
    steps = [ops[i] for i in chain.steps]
    xs = [graph.ops[i].operands[:2].index(prev) for i, prev in zip(chain.steps, (chain.root, *chain.steps))]
    init = root.operands[len(root.operands) - 1]
    init_kind = _init_kind(init, chain.out_pos)
    if init_kind is None or not all(_body_order_ok(u, x) for u, x in zip(steps, xs)):
        return False
    last = steps[-1]
    rtype = ir.RankedTensorType(root.results[0].type)
    wtype = ir.RankedTensorType(root.operands[1].type)
    elt = rtype.element_type
    nch = rtype.shape[chain.out_pos]
    with root.context, last.location, ir.InsertionPoint(last):
        par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        vec_t = ir.RankedTensorType.get([nch], elt)

        def generic(out_t: ir.RankedTensorType, ins: list[ir.Value], maps: list[ir.AffineMap], body_op: str) -> ir.Value:
            empty = tensor.EmptyOp(list(out_t.shape), elt).result
            op = linalg.GenericOp([out_t], ins, [empty], ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                                  ir.ArrayAttr.get([par] * out_t.rank))
            blk = op.regions[0].blocks.append(*([elt] * (len(ins) + 1)))
            with ir.InsertionPoint(blk):
                a = blk.arguments
                if body_op == "neg":
                    v = arith.NegFOp(a[0]).result
                elif body_op == "recip":
                    one = arith.ConstantOp(elt, 1.0).result
                    v = arith.DivFOp(one, a[0]).result
                else:
                    v = {"add": arith.AddFOp, "sub": arith.SubFOp, "mul": arith.MulFOp,
                         "div": arith.DivFOp}[body_op](a[0], a[1]).result
                linalg.YieldOp([v])
            return op.result

        vid = ir.AffineMap.get_identity(1)

        def vec(a: ir.Value, b: ir.Value | None, how: str) -> ir.Value:
            return generic(vec_t, [a] if b is None else [a, b], [vid] * (2 if b is None else 3), how)

        scale: ir.Value | None = None
        shift: ir.Value | None = None
        for u, x in zip(steps, xs):
            c = u.operands[1 - x]
            kind = u.regions[0].blocks[0].operations[0].name
            if kind == "arith.addf":
                shift = c if shift is None else vec(shift, c, "add")
            elif kind == "arith.subf":
                shift = vec(c, None, "neg") if shift is None else vec(shift, c, "sub")
            elif kind == "arith.mulf":
                scale = c if scale is None else vec(scale, c, "mul")
                shift = None if shift is None else vec(shift, c, "mul")
            else:  # divf
                scale = vec(c, None, "recip") if scale is None else vec(scale, c, "div")
                shift = None if shift is None else vec(shift, c, "div")
        weight = root.operands[1]
        if scale is not None:
            wid = ir.AffineMap.get_identity(wtype.rank)
            wch = ir.AffineMap.get(wtype.rank, 0, [ir.AffineDimExpr.get(chain.weight_pos)])
            weight = generic(wtype, [weight, scale], [wid, wch, wid], "mul")
        zero_init = None
        if init_kind == "bias":  # (conv + bias) * s + t = conv(W * s) + (bias * s + t): one add, zero init
            bias = init.owner.operands[0]
            bias = vec(bias, scale, "mul") if scale is not None else bias
            shift = bias if shift is None else vec(bias, shift, "add")
            zero = arith.ConstantOp(elt, ir.FloatAttr.get(elt, 0.0)).result
            zero_init = linalg.fill(zero, outs=[tensor.EmptyOp(list(rtype.shape), elt).result])
        new_root = root.clone()
        new_root.operands[1] = weight
        if zero_init is not None:
            new_root.operands[len(root.operands) - 1] = zero_init
        result = new_root.results[0]
        if shift is not None:
            oid = ir.AffineMap.get_identity(rtype.rank)
            och = ir.AffineMap.get(rtype.rank, 0, [ir.AffineDimExpr.get(chain.out_pos)])
            result = generic(rtype, [result, shift], [oid, och, oid], "add")
    last.results[0].replace_all_uses_with(result)
    for u in reversed(steps):
        u.erase()
    root.erase()
    old_init = init.owner
    if init_kind == "bias" and not list(old_init.results[0].uses):
        old_init.erase()  # folded into the one bias add; dead ops would become empty groups
    return True


def fold_conv_bn(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset(),
                 ) -> list[AffineChain]:
    """Fold every chain whose ops are not in `skip` (pinned/barred); returns the chains folded."""
    done = []
    for ch in find_chains(graph):
        if skip & {ch.root, *ch.steps}:
            continue
        if fold_chain(ops, graph, ch):
            done.append(ch)
    return done
