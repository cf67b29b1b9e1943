"""Scaled dot-product attention as IREE's fused attention op, where the target's cost model says it pays.

Why: split, attention is three dispatches (QK^T with its scale, the softmax, PV) and the score matrix
(batch x M x K2) makes a round trip through memory between each. `iree_linalg_ext.attention` is one
dispatch that IREE tiles with an online softmax, never materializing the scores: the flash-attention
schedule GPUs are built for. But the choice is the target's: IREE 3.13's llvm-cpu tiles for the op
(one query row per step) ran the suite's 4x128x128x64 attention 7-11x slower than split in three; with
the tiles `apply_for` attaches on CPU targets (backends/lowering.py) it runs with the split form
(0.88-1.06x), and faster where the split form's matmuls tile badly (197 keys: 0.16x). Its Vulkan/SPIR-V
codegen fails on it. So it is priced like any rewrite (rewrites/choice.py): the split groups against
the fused op, whose efficiency key is `attention` (`attention.cpu` on CPUs; 0 = IREE cannot compile
it for the target, never taken).

Matched by structure on the Linalg graph: a `linalg.matmul`/`linalg.batch_matmul` with default maps and
a zero-filled init (QK^T), optionally an elementwise multiply or divide of its result by a constant
scalar (the scale), a `linalg.softmax` over the last dim, and a matmul of the softmax (as its left
operand) with V into a zero-filled init; every intermediate used once, all f32. The op computes
softmax(scale * Q K) V with K read as given ([.., K1, K2], the transposed key the graph already made).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.classify import ATTENTION_OP, NAMED_MATMUL_DIMS, attention_flops
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..backends.lowering import cpu_attention_compilation_info, native_vector_bytes
from ..cost.group import elem_bytes
from ..cost.model import estimate
from ..cost.targets import TargetDesc
from ..fusion.legality import numel
from ..ir import constant_value, ir
from .choice import Choice, Rewrite

NAME = "attention-op"
_SCALE_OPS = ("arith.mulf", "arith.divf")


@dataclass(frozen=True)
class Site:
    qk: int
    scale: int | None   # the elementwise scale op, if any
    softmax: int
    pv: int
    factor: float = 1.0  # the score multiplier (1/c for a divide by c)

    @property
    def ops(self) -> tuple[int, ...]:
        return tuple(i for i in (self.qk, self.scale, self.softmax, self.pv) if i is not None)


def _matmul(op: OpDesc) -> bool:
    return NAMED_MATMUL_DIMS.get(op.name) == tuple(op.map_dims) and all(t == "f32" for t in op.element_types)


def _only_use(graph: DataflowGraph, producer: int, consumer: int) -> bool:
    return set(graph.consumers(producer)) == {consumer} and producer not in graph.outputs


def _zero_filled(graph: DataflowGraph, op: OpDesc) -> bool:
    init = op.operands[-1]
    return init is not None and init >= 0 and graph.ops[init].name == "linalg.fill"


def candidates(graph: DataflowGraph) -> list[Site]:
    """Pure: attention chains by structure (the scale's constant is read from the IR by `find`)."""
    out = []
    for sm in graph.ops:
        if (sm.name != "linalg.softmax" or not sm.operands or sm.operands[0] is None or sm.operands[0] < 0
                or dict(sm.attrs).get("dimension") != f"{len(sm.result_shapes[0]) - 1} : i64"):
            continue  # the op's softmax is over the key dim, the scores' last
        src, scale = sm.operands[0], None
        if graph.ops[src].name == "linalg.generic":
            op = graph.ops[src]
            if (tuple(op.body_ops) not in ((s,) for s in _SCALE_OPS) or op.kind not in (OpKind.ELEMENTWISE,
                                                                                          OpKind.BROADCAST)
                    or not op.operands or op.operands[0] is None or op.operands[0] < 0
                    or not _only_use(graph, src, sm.index)):
                continue
            scale, src = src, op.operands[0]
        qk = graph.ops[src]
        pvs = graph.consumers(sm.index)
        if (not _matmul(qk) or not _zero_filled(graph, qk) or len(set(pvs)) != 1
                or not _only_use(graph, src, scale if scale is not None else sm.index)
                or sm.index in graph.outputs):
            continue
        pv = graph.ops[pvs[0]]
        if (pv.name != qk.name or not _matmul(pv) or pv.operands[0] != sm.index or pv.operands[1] == sm.index
                or not _zero_filled(graph, pv)):
            continue
        out.append(Site(qk.index, scale, sm.index, pv.index))
    return out


def scale_factor(op: ir.Operation) -> float | None:
    """What an elementwise `x * c` / `x / c` (c a constant scalar, as an input or captured) multiplies
    its first input by; None for anything else (c / x, a non-constant c)."""
    body = op.regions[0].blocks[0]
    inner = [o for o in body.operations if o.operation.name != "linalg.yield"]
    if len(inner) != 1:
        return None
    a, b = inner[0].operands[0], inner[0].operands[1]

    def arg(v: ir.Value) -> int | None:
        return ir.BlockArgument(v).arg_number if isinstance(v.owner, ir.Block) else None

    def const(v: ir.Value) -> float | None:
        k = arg(v)
        return constant_value(op.operands[k]) if k is not None else constant_value(v)

    name = inner[0].operation.name
    if arg(a) == 0:
        c = const(b)
    elif name == "arith.mulf" and arg(b) == 0:
        c = const(a)
    else:
        return None
    if c is None or c == 0.0:
        return None
    return c if name == "arith.mulf" else 1.0 / c


def find(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int]) -> list[Site]:
    out = []
    for s in candidates(graph):
        if set(s.ops) & skip:
            continue
        factor = 1.0 if s.scale is None else scale_factor(ops[s.scale])
        if factor is not None:
            out.append(Site(s.qk, s.scale, s.softmax, s.pv, factor))
    return out


def _attention_dims(batched: bool) -> tuple[tuple[int, ...], ...]:
    """Loop dims of (Q, K, V, scale, out) over (batch?, m, n, k1, k2)."""
    if batched:
        return (0, 1, 3), (0, 3, 4), (0, 4, 2), (), (0, 1, 2)
    return (0, 2), (2, 3), (3, 1), (), (0, 1)


def _map_text(n: int, dims: Sequence[int]) -> str:
    return f"({', '.join(f'd{k}' for k in range(n))}) -> ({', '.join(f'd{d}' for d in dims)})"


def attention_desc(graph: DataflowGraph, s: Site) -> OpDesc:
    """The fused op the rewrite writes, for the cost model."""
    qk, pv = graph.ops[s.qk], graph.ops[s.pv]
    batched = qk.name == "linalg.batch_matmul"
    q_shape, k_shape, v_shape, o_shape = qk.operand_shapes[0], qk.operand_shapes[1], pv.operand_shapes[1], \
        pv.result_shapes[0]
    ranges = (*o_shape, q_shape[-1], k_shape[-1])  # (batch?, m, n, k1, k2)
    dims = _attention_dims(batched)
    n = len(ranges)
    eb = elem_bytes("f32")
    return OpDesc(index=-1, name=ATTENTION_OP, loc=pv.loc, kind=OpKind.OPAQUE, loop_ranges=ranges,
                  iterator_types=("parallel",) * (n - 2) + ("reduction",) * 2,
                  indexing_maps=tuple(_map_text(n, d) for d in dims), map_dims=dims,
                  element_types=("f32",) * 5, operand_shapes=(q_shape, k_shape, v_shape, (), o_shape),
                  result_shapes=(o_shape,), operands=(qk.operands[0], qk.operands[1], pv.operands[1], None, None),
                  num_dps_inputs=4, flops=attention_flops(dims, ranges),
                  bytes_read=(numel(q_shape) + numel(k_shape) + numel(v_shape)) * eb,
                  bytes_written=numel(o_shape) * eb)


def decide(graph: DataflowGraph, s: Site, target: TargetDesc) -> Choice:
    """Pure: the split form as the planner groups it (QK^T with its scale, softmax, PV) against the op."""
    qk_group = [graph.ops[s.qk]] + ([graph.ops[s.scale]] if s.scale is not None else [])
    before = sum(estimate(g, target).time_s for g in (qk_group, [graph.ops[s.softmax]], [graph.ops[s.pv]]))
    after = estimate([attention_desc(graph, s)], target).time_s
    return Choice(NAME, f"ops {', '.join(map(str, s.ops))} ({graph.ops[s.pv].loc})", "split",
                  "attention op", before, after)


def apply(graph: DataflowGraph, ops: Sequence[ir.Operation], s: Site) -> ir.Operation:
    """Replace the chain by one `iree_linalg_ext.attention` in place (dead fills go with it); returns it."""
    from iree.compiler.dialects import arith, tensor

    qk, pv = ops[s.qk], ops[s.pv]
    out_t = ir.RankedTensorType(pv.results[0].type)
    batched = graph.ops[s.qk].name == "linalg.batch_matmul"
    dims = _attention_dims(batched)
    n = 5 if batched else 4
    with pv.context, pv.location, ir.InsertionPoint(pv):
        f32 = ir.F32Type.get()
        scale = arith.ConstantOp(f32, ir.FloatAttr.get(f32, s.factor)).result
        init = tensor.EmptyOp(list(out_t.shape), f32).result
        maps = ir.ArrayAttr.get([ir.AffineMapAttr.get(ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in m]))
                                 for m in dims])
        att = ir.Operation.create(ATTENTION_OP, results=[out_t],
                                  operands=[qk.operands[0], qk.operands[1], pv.operands[1], scale, init],
                                  attributes={"indexing_maps": maps}, regions=1)
        block = att.regions[0].blocks.append(f32)
        with ir.InsertionPoint(block):
            ir.Operation.create("iree_linalg_ext.yield", operands=[block.arguments[0]])
    pv.results[0].replace_all_uses_with(att.results[0])
    fills = [qk.operands[2].owner]
    if pv.operands[2].owner != fills[0]:
        fills.append(pv.operands[2].owner)
    for i in (s.pv, s.softmax, s.scale, s.qk):
        if i is not None:
            ops[i].erase()
    for f in fills:
        if not any(True for _ in f.results[0].uses):
            f.erase()
    return att


def apply_for(target: TargetDesc):
    """`apply`, then on a CPU target the op's tile sizes (backends/lowering.py: IREE's own ran 7-11x slower)."""
    def go(graph: DataflowGraph, ops: Sequence[ir.Operation], s: Site) -> None:
        att = apply(graph, ops, s)
        if target.kind == "cpu":
            ranges = attention_desc(graph, s).loop_ranges
            with att.context:
                info = cpu_attention_compilation_info(ranges, native_vector_bytes(target))
                att.attributes["compilation_info"] = ir.Attribute.parse(info)
    return go


def rewrite(target: TargetDesc) -> Rewrite[Site]:
    return Rewrite(NAME, find, decide, apply_for(target))

