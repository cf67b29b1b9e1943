"""Single import hub for the MLIR Python bindings shipped in iree-base-compiler.

Every module that touches IR imports from here, so the binding source is pinned in one place
(the PyPI `mlir-python-bindings` package is an empty placeholder and must not be used).
"""
from __future__ import annotations

from collections.abc import Sequence

from iree.compiler import ir  # noqa: F401
from iree.compiler.api import Output, Session  # noqa: F401
from iree.compiler.dialects import arith, flow, func, linalg, tensor  # noqa: F401
from iree.compiler.passmanager import PassManager  # noqa: F401


def new_session() -> Session:
    """A compiler session whose context has every dialect loaded.

    IREE 3.13 segfaults when a module built in a foreign `ir.Context` is handed to
    `Invocation.import_module`, or when dialects are not loaded first: always build IR here.
    """
    sess = Session()
    sess.context.load_all_available_dialects()
    return sess


# IR pins and barriers a user writes on ops (read by pipelines.read_marks, kept by importers/mlir_normalize).
FUSE_ATTR, NO_FUSE_ATTR = "fusion_opt.fuse", "fusion_opt.no_fuse"
# The op name a generic had in the user's `.mlir` before normalization made it one (`linalg.map`,
# `arith.addf`), so `--fuse=linalg.map` still finds it; set by importers/mlir_normalize, read by
# analysis/describe, dropped before IR is printed (`strip_source_names`).
SOURCE_ATTR = "fusion_opt.source_op"


def all_ops(root: ir.Operation) -> list[ir.Operation]:
    """Every op under `root` (itself included), nested ones too, in walk order: a list, so callers may
    change attributes while they go (a walk callback may not)."""
    found: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        found.append(o)
        return ir.WalkResult.ADVANCE

    with root.context:
        root.walk(visit)
    return found


def strip_source_names(module: ir.Module) -> None:
    """The planner's bookkeeping attribute off every op: printed IR shows what the user wrote or IREE reads."""
    with module.context:
        for o in all_ops(module.operation):
            if SOURCE_ATTR in o.attributes:
                del o.attributes[SOURCE_ATTR]


def bytecode(module: ir.Module) -> bytes:
    """The module as MLIR bytecode (locations kept): how a module is copied into another context or a
    child process."""
    import io

    buf = io.BytesIO()
    module.operation.write_bytecode(buf)
    return buf.getvalue()


def op_name(op: ir.Operation | ir.OpView) -> str:
    return op.operation.name


def use_owner(use: ir.OpOperand) -> ir.Operation:
    """The operation holding a use (the bindings give an OpView for registered ops)."""
    return use.owner.operation if hasattr(use.owner, "operation") else use.owner


def indexing_maps(op: ir.Operation | ir.OpView) -> list[ir.AffineMap]:
    """A linalg op's `indexing_maps` attribute as affine maps."""
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]


def affine_constant(e: ir.AffineExpr) -> int | None:
    """The value of a constant map result (`(d0, d1) -> (d0, 0)`), else None (a dim or an expression)."""
    try:
        return ir.AffineConstantExpr(e).value
    except ValueError:
        return None


def block_ops(func_op: ir.Operation | ir.OpView) -> list[ir.Operation]:
    """Top-level operations of a function's entry block (or of any one-block region op: a
    `flow.dispatch.region`, a `tensor.pad`), as `ir.Operation`s."""
    return [o.operation for o in func_op.regions[0].blocks[0].operations]


def pad_value(pad: ir.Operation) -> ir.Value:
    """The value a `tensor.pad` pads with (its region's yielded operand)."""
    return block_ops(pad)[-1].operands[0]


def zero_pad(pad: ir.Operation) -> bool:
    """Whether `pad` has static sizes and pads with zero (a conv's dropped products are `0 * w`, a
    linear map of the padding is zero)."""
    return len(pad.operands) == 1 and constant_value(pad_value(pad)) == 0.0


def clone_body(block: ir.Block, mapping: dict) -> ir.Value:
    """Clone `block`'s ops at the insertion point with operands renamed by `mapping` (block arguments
    and earlier results); returns the value its yield yields."""
    ops = list(block.operations)
    for op in ops[:-1]:
        new = op.operation.clone()
        for k, v in enumerate(new.operands):
            if v in mapping:
                new.operands[k] = mapping[v]
        for old_r, new_r in zip(op.operation.results, new.results):
            mapping[old_r] = new_r
    y = ops[-1].operation.operands[0]
    return mapping.get(y, y)


def static_pad(src: ir.Value, low: list[int], high: list[int], value: ir.Value) -> ir.Value:
    """`tensor.pad` of `src` by static `low` / `high` amounts with `value`, at the current insertion point."""
    t = ir.RankedTensorType(src.type)
    shape = [s + lo + hi for s, lo, hi in zip(t.shape, low, high)]
    new = tensor.PadOp(ir.RankedTensorType.get(shape, t.element_type), src, [], [], low, high)
    body = new.regions[0].blocks.append(*([ir.IndexType.get()] * len(shape)))
    with ir.InsertionPoint(body):
        tensor.YieldOp(value)
    return new.result


def attach_units(rank: int, keep: list[int]) -> list[list[int]]:
    """Reassociation that drops the dims of `rank` not in `keep` (unit dims): each kept dim with the
    dropped dims after it; leading dropped dims join the first group."""
    groups = [[k] for k in keep]
    for j in range(rank):
        if j not in keep:
            before = [g for g in groups if g[0] < j]
            (before[-1] if before else groups[0]).append(j)
    return [sorted(g) for g in groups]


def add_generic(a: ir.Value, b: ir.Value, b_map: ir.Attribute | None = None) -> ir.Value:
    """A `linalg.generic` adding `b` (read through `b_map`, identity when None) to `a` elementwise, into a new
    empty tensor of `a`'s type, at the current insertion point; its result."""
    t = ir.RankedTensorType(a.type)
    ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))
    par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    gen = linalg.GenericOp([t], [a, b], [tensor.EmptyOp(list(t.shape), t.element_type).result],
                           ir.ArrayAttr.get([ident, b_map or ident, ident]), ir.ArrayAttr.get([par] * t.rank))
    body = gen.regions[0].blocks.append(t.element_type, t.element_type, t.element_type)
    with ir.InsertionPoint(body):
        linalg.YieldOp([arith.AddFOp(body.arguments[0], body.arguments[1]).result])
    return gen.result


def mul_add_generic(inputs: Sequence[ir.Value], init: ir.Value, maps: Sequence[ir.Attribute],
                    iterator_types: Sequence[str]) -> ir.Value:
    """A `linalg.generic` accumulating `inputs[0] * inputs[1]` into `init` through `maps` (the body of a
    matmul or conv: init + a * b), at the current insertion point; its result."""
    its = [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterator_types]
    out_t = ir.RankedTensorType(init.type)
    gen = linalg.GenericOp([out_t], list(inputs), [init], ir.ArrayAttr.get(list(maps)), ir.ArrayAttr.get(its))
    elt = out_t.element_type
    body = gen.regions[0].blocks.append(elt, elt, elt)
    with ir.InsertionPoint(body):
        prod = arith.MulFOp(body.arguments[0], body.arguments[1]).result
        linalg.YieldOp([arith.AddFOp(body.arguments[2], prod).result])
    return gen.result


def transpose(v: ir.Value, perm: Sequence[int]) -> ir.Value:
    """`linalg.transpose` of `v` by `perm` into a new empty tensor, at the current insertion point; its result
    (IREE 3.13's builder returns the op)."""
    t = ir.RankedTensorType(v.type)
    op = linalg.transpose(v, outs=[tensor.EmptyOp([t.shape[k] for k in perm], t.element_type).result],
                          permutation=list(perm))
    return op if isinstance(op, ir.Value) else op.results[0]


def defining_op(v: ir.Value) -> ir.Operation | None:
    """The op that defines `v`, or None for a block argument."""
    owner = v.owner
    return None if isinstance(owner, ir.Block) else (owner.operation if hasattr(owner, "operation") else owner)


def erase_dead_empty(v: ir.Value) -> None:
    """Erase the `tensor.empty` defining `v` once nothing reads it (the init of an op a rewrite erased).
    Empties are not ops of the dataflow graph, so the graph's op indices stay valid."""
    op = defining_op(v)
    if op is not None and op.name == "tensor.empty" and not list(op.results[0].uses):
        op.erase()


def functions(module: ir.Module) -> list[ir.Operation]:
    """Every `func.func` with a body at the top level of `module`."""
    return [
        o.operation
        for o in module.body.operations
        if o.operation.name == "func.func" and len(o.operation.regions[0].blocks) > 0
    ]


def signature_has_f64(func_op: ir.Operation | ir.OpView) -> bool:
    """A function taking or returning f64 tensors: IREE's f64 -> f32 demotion is turned off for it
    (backends/compile.abi_flags), and only then may f64 ops share our dispatches (analysis/describe)."""
    ftype = ir.FunctionType(ir.TypeAttr(func_op.operation.attributes["function_type"]).value)
    return any(isinstance(t, ir.ShapedType) and str(t.element_type) == "f64" for t in (*ftype.inputs, *ftype.results))


def symbol_name(func_op: ir.Operation | ir.OpView) -> str:
    return ir.StringAttr(func_op.operation.attributes["sym_name"]).value


def constant_value(v: ir.Value) -> float | None:
    """The value of an f32 scalar or splat `arith.constant`, else None (rewrites read fills and scales)."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value
    try:
        dense = ir.DenseFPElementsAttr(attr)
    except ValueError:
        return None
    return ir.FloatAttr(dense.get_splat_value()).value if dense.is_splat else None
