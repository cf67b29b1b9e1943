"""Ops that update a returned function argument in place work on a copy of it.

Why: IREE 3.13 ties a dispatch's result to the buffer of a destination it reads and writes (a
contraction or reduction accumulating into its init, an insert into a tensor), and when that
destination is a function argument it writes into the caller's input buffer: a returned argument
comes back holding the op's result (fuzz seed 20449: `matmul(a, b, outs %c)` returning `%c` and the
product; 9.4 off in every mode, `--fusion=iree` included). Only arguments the function also returns, as
they are or reshaped: otherwise the write is seen only by a caller passing the same device buffer again
(IREE's own compile does the same; our callables copy numpy inputs in), and hand-written `.mlir`
accumulating into an argument (`outs(%c)`, MLIR's test idiom) keeps its form. A `linalg.copy` of the
argument (a copy survives canonicalization, an identity `linalg.generic` does not) gives the op a
destination of its own: one extra copy dispatch, only where a returned argument is written in place, which
the ONNX importer never writes (hand-written or other importers' `.mlir`).

Not needed where the payload never reads the init (IREE replaces that destination with an empty
tensor; checked: returned argument exact).

A float multiply-accumulate (a matmul, a conv) accumulates into zeros instead and adds the argument in an
epilogue, the form of rewrites/bias_epilogue.py: with data tiling IREE packs a contraction's accumulator
and fused that packing into the copy's region, which then failed to compile ("'iree_linalg_ext.map_store'
op write affecting operations on global resources", fuzz seed 21220); the epilogue joins the contraction's
group and reads the argument, no copy dispatch. Rounding: `c + sum` becomes `sum + c` (~1 ulp).
"""
from __future__ import annotations

from ..ir import block_ops, ir, linalg, tensor
from ..rewrites.bias_epilogue import zero_init_then_add

# Ops whose destination is the given operand (the rest of DPS ops: their trailing inits).
DEST_OPERAND = {"tensor.insert_slice": 1, "tensor.insert": 1}


def writes_in_place(op: ir.Operation, operand: int) -> bool:
    """Whether `op` reads and overwrites its operand `operand` as its destination."""
    if op.name in DEST_OPERAND:
        return operand == DEST_OPERAND[op.name]
    if not op.name.startswith(("linalg.", "iree_linalg_ext.")) or not op.results:
        return False
    first_init = len(op.operands) - len(op.results)  # inits are the last operands (analysis/describe.py)
    if operand < first_init:
        return False
    if op.name.startswith("iree_linalg_ext.") or not op.regions or not op.regions[0].blocks:
        return True  # sort, scatter, top-k update their outputs in place
    body = op.regions[0].blocks[0]
    n_in = len(body.arguments) - len(op.results)
    return bool(list(body.arguments[n_in + operand - first_init].uses))


def accumulates_products(op: ir.Operation) -> bool:
    """A one-result float multiply-accumulate (`out + a * b`): matmuls, convs and their generic forms."""
    if not op.name.startswith("linalg.") or len(op.results) != 1 or not op.regions or not op.regions[0].blocks:
        return False
    body = [o.operation.name for o in op.regions[0].blocks[0].operations]
    t = ir.RankedTensorType(op.results[0].type)
    return body == ["arith.mulf", "arith.addf", "linalg.yield"] and isinstance(t.element_type, ir.FloatType)


VIEWS = ("tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape", "tensor.cast", "tensor.bitcast")


def _through_views(v: ir.Value) -> ir.Value:
    """The value `v` is a view of: reshapes share their source's buffer in IREE (fuzz seed 25073: an argument
    returned through an expand_shape came back holding the matmul's result too)."""
    while not isinstance(v, ir.BlockArgument) and v.owner.name in VIEWS:
        v = v.owner.operands[0]
    return v


def copy_written_arguments(func_op: ir.Operation) -> int:
    """Give every in-place update of an argument of `func_op` a destination of its own; returns how many."""
    ops = block_ops(func_op)
    returned = [v for v in (_through_views(v) for v in ops[-1].operands) if isinstance(v, ir.BlockArgument)] \
        if ops else []
    sites = [(op, n) for op in ops for n, v in enumerate(op.operands)
             if any(v == a for a in returned) and writes_in_place(op, n)]
    for op, n in sites:
        if accumulates_products(op):
            zero_init_then_add(op, n, op.operands[n])
            continue
        arg = op.operands[n]
        t = ir.RankedTensorType(arg.type)
        with op.context, op.location, ir.InsertionPoint(op):
            empty = tensor.EmptyOp(list(t.shape), t.element_type).result
            copy = linalg.copy(arg, outs=[empty])
        op.operands[n] = copy if isinstance(copy, ir.Value) else copy.results[0]
    return len(sites)
