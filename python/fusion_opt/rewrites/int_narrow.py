"""Integer matmuls at the width their values need: i16 operands, an i32 accumulator.

Why: quantized ONNX models multiply 8-bit values (`MatMulInteger`, the dynamic quantization of
onnxruntime's `quantize_dynamic`; `QLinearMatMul`). The importer subtracts the zero points in i32 and
lowers the product as torch's integer matmul: `i32 x i32 -> i64`, truncated to i32 after. IREE has no
fast code for either width (an i64 multiply-accumulate per product; 128x768x3072: 17 ms), while
`i16 x i16 -> i32` is data-tiled into mmt4d tiles (2.3 ms, onnxruntime's VNNI u8 x s8: ~1 ms).

Where the CPU has VNNI (`avx512_vnni`, `avx_vnni`), 8-bit operands stay 8-bit: IREE's i8 x i8 -> i32
tiles use it (128x768x3072 on an AMD EPYC with avx512_vnni: 2.1 ms as written, 3.9-5.8 widened to i16,
paired 0.51-0.55x; on the Intel VM of the first measurement, without it, i8 3.9 ms and i16 2.3), so a
named i8 matmul into i32 is left as written and an i64 accumulator narrows with i8 operands.

Exact, so applied wherever it matches: an operand narrowed to i16 is one whose values provably fit
(a bound on magnitudes through the elementwise ops that built it: extensions of 8/16-bit values,
additions, subtractions; nothing else is trusted), and an i64 accumulator is narrowed only when every
reader truncates it to i32 (sums of products modulo 2^32 do not depend on the width they were
accumulated in).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.classify import NAMED_MATMUL_DIMS, is_pointwise
from ..analysis.opdesc import RESHAPE_OPS, DataflowGraph
from ..cost.targets import TargetDesc
from ..ir import ir

NAME = "int-matmul-narrow"
NARROW = 16                                      # operand width: i16 x i16 -> i32 is data-tiled
EXACT_OPS = frozenset({"arith.extsi", "arith.extui"})
GROWING_OPS = frozenset({"arith.addi", "arith.subi"})   # each at most doubles the magnitude bound
INT_TYPES = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}


def magnitude_bound(graph: DataflowGraph, producer: int | None, elem: str, depth: int = 8) -> int:
    """B with |x| < B for every element of a tensor operand of element type `elem` produced by `producer`
    (an op index, a function argument < 0, or None: a constant). Narrow types bound themselves (their
    bits read signed or unsigned: < 2^w); elementwise ops of EXACT_OPS and GROWING_OPS bound their result
    from their inputs'; anything else is bounded only by its type."""
    width = INT_TYPES.get(elem)
    if width is None:
        return 1 << 64
    own = 1 << width
    if width <= NARROW or producer is None or producer < 0 or depth == 0:
        return own
    op = graph.ops[producer]
    if op.name in RESHAPE_OPS:
        return min(own, magnitude_bound(graph, op.operands[0], op.element_types[0], depth - 1))
    if not is_pointwise(op) or not set(op.body_ops) <= EXACT_OPS | GROWING_OPS:
        return own
    ins = [magnitude_bound(graph, p, t, depth - 1)
           for p, t in zip(op.operands[:op.num_dps_inputs], op.element_types[:op.num_dps_inputs])]
    grown = max(ins, default=own) << sum(b in GROWING_OPS for b in op.body_ops)
    return min(own, grown)


def truncating_readers(graph: DataflowGraph, i: int) -> list[int] | None:
    """The consumers of contraction `i`'s i64 result if each only truncates it to i32, else None."""
    readers = graph.consumers(i)
    if not readers or i in graph.outputs:
        return None
    for r in readers:
        op = graph.ops[r]
        if not (is_pointwise(op) and op.body_ops == ("arith.trunci",) and op.num_dps_inputs == 1
                and op.element_types[-1] == "i32" and op.map_dims[0] == op.map_dims[-1]):
            return None
    return readers


VNNI = frozenset({"avx512_vnni", "avx_vnni"})


def keeps_i8(target: TargetDesc) -> bool:
    """Whether i8 x i8 -> i32 runs faster than i16 x i16 on `target` (measured on CPUs only)."""
    return target.kind == "cpu" and bool(VNNI & set(target.features))


def _both_i8(graph: DataflowGraph, i: int) -> bool:
    return graph.ops[i].element_types[:2] == ("i8", "i8")


def find(graph: DataflowGraph, skip: set[int] = frozenset(), keep_i8: bool = False) -> list[int]:
    """Named integer matmuls (default maps) whose operands fit i16 and whose accumulator is i32, or i64
    read only through truncations to i32; not pinned or barred. `keep_i8` (`keeps_i8`): an i8 x i8 -> i32
    matmul is left as it is."""
    out = []
    for op in graph.ops:
        if op.name not in NAMED_MATMUL_DIMS or tuple(op.map_dims) != NAMED_MATMUL_DIMS[op.name] or op.index in skip:
            continue
        a, b, acc = op.element_types[0], op.element_types[1], op.element_types[-1]
        as_written = (a, b) == ("i16", "i16") or keep_i8 and _both_i8(graph, op.index)  # data-tiled as it is
        if acc not in ("i32", "i64") or (acc == "i32" and as_written):
            continue
        if acc == "i64" and truncating_readers(graph, op.index) is None:
            continue
        if all(magnitude_bound(graph, op.operands[k], op.element_types[k]) <= 1 << (NARROW - 1) for k in (0, 1)):
            out.append(op.index)
    return out


def _convert(v: ir.Value, elt: ir.Type) -> ir.Value:
    """`v` truncated (or sign-extended) elementwise to `elt`; a new generic before the insertion point."""
    from iree.compiler.dialects import arith, linalg, tensor

    t = ir.RankedTensorType(v.type)
    if t.element_type == elt:
        return v
    out_t = ir.RankedTensorType.get(list(t.shape), elt)
    ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))
    par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    op = linalg.GenericOp([out_t], [v], [tensor.EmptyOp(list(t.shape), elt).result],
                          ir.ArrayAttr.get([ident, ident]), ir.ArrayAttr.get([par] * t.rank))
    blk = op.regions[0].blocks.append(t.element_type, elt)
    with ir.InsertionPoint(blk):
        x = blk.arguments[0]
        wide = ir.IntegerType(t.element_type).width > ir.IntegerType(elt).width
        linalg.YieldOp([(arith.TruncIOp if wide else arith.ExtSIOp)(elt, x).result])
    return op.result


def apply(graph: DataflowGraph, ops: Sequence[ir.Operation], i: int, keep_i8: bool = False) -> None:
    """Rebuild matmul `i` over i16 operands (i8 ones kept with `keep_i8`) into an i32 accumulator (a zero
    fill when it was i64, whose truncating readers are then bypassed and erased)."""
    from iree.compiler.dialects import arith, linalg, tensor

    mm = ops[i]
    narrow_acc = graph.ops[i].element_types[-1] == "i64"
    readers = [ops[r] for r in truncating_readers(graph, i) or ()] if narrow_acc else []
    with mm.context, mm.location, ir.InsertionPoint(mm):
        width = 8 if keep_i8 and _both_i8(graph, i) else NARROW
        narrow, i32 = ir.IntegerType.get_signless(width), ir.IntegerType.get_signless(32)
        a, b = (_convert(mm.operands[k], narrow) for k in (0, 1))
        init = mm.operands[2]
        if narrow_acc:
            shape = list(ir.RankedTensorType(init.type).shape)
            zero = arith.ConstantOp(i32, ir.IntegerAttr.get(i32, 0)).result
            init = linalg.fill(zero, outs=[tensor.EmptyOp(shape, i32).result])
        build = linalg.matmul if mm.name == "linalg.matmul" else linalg.batch_matmul
        new = build(a, b, outs=[init])
    old_init = mm.operands[2].owner
    if narrow_acc:
        for r in readers:
            r.results[0].replace_all_uses_with(new)
            r.erase()
    else:
        mm.results[0].replace_all_uses_with(new)
    mm.erase()
    if isinstance(old_init, ir.OpView | ir.Operation) and not list(old_init.results[0].uses):
        old_init.operation.erase()


def narrow_int_matmuls(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset(),
                       keep_i8: bool = False) -> int:
    """Rewrite every site; returns how many (the caller describes the function again when > 0)."""
    sites = find(graph, skip, keep_i8)
    for i in sites:
        apply(graph, ops, i, keep_i8)
    return len(sites)
