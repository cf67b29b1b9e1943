"""IR -> pure data: one OpDesc per top-level op of a function, and the dataflow between them.

This is the only place the planner's view of a function is read from IR. Indexing maps come from the
LinalgOp interface (`linalg.get_indexing_maps`, which also answers for named ops such as
linalg.matmul or linalg.conv_2d_nchw_fchw without generalizing them), so describing ResNet-50 is fast.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from ..ir import SOURCE_ATTR, block_ops, ir, linalg, signature_has_f64, symbol_name
from ..testhooks import DISABLED_RULES
from .classify import ATTENTION_OP, WINOGRAD_FLOPS_PER_TILE, attention_flops, explain, winograd_flops
from .opdesc import CAPTURED, DataflowGraph, Edge, OpDesc, OpKind

# Free values: rematerialized anywhere, never a graph node (operands they define read as None).
FREE_OPS = frozenset({"arith.constant", "tensor.empty", "func.return"})
# Metadata-only or left to IREE: IREE turns reshapes into no-op flow.tensor.reshape. tensor.pad too:
# IREE rewrites it (fill + insert_slice); a region holding a lone tensor.pad fails llvm-cpu codegen
# in IREE 3.13 (checked on ResNet-50), while pad + conv in one region compiles.
NOT_DISPATCHABLE = frozenset({
    "tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape", "tensor.cast", "tensor.bitcast",
    "tensor.concat", "tensor.pad",
    # Constant filters: IREE evaluates the transform at compile time, which it cannot inside a region.
    "iree_linalg_ext.winograd.filter_transform",
})
DISPATCH_DIALECTS = frozenset({"linalg", "tensor", "iree_linalg_ext"})
# Body ops that move or convert data but do no arithmetic: not counted as FLOPs.
NO_FLOP = frozenset({
    "arith.constant", "arith.index_cast", "arith.index_castui", "arith.bitcast", "arith.extf", "arith.truncf",
    "arith.extsi", "arith.extui", "arith.trunci", "arith.sitofp", "arith.uitofp", "arith.fptosi",
    "arith.fptoui", "linalg.index",
})
# Body ops IREE expands into polynomial approximations: counted as this many FLOPs each. Measured on
# this CPU over 1.14M f32 elements (one elementwise dispatch, 2 threads): a multiply 0.88 ms (memory-
# bound), exp/log/erf/tanh 1.29-1.43 ms, powf 2.14 ms: ~0.5 ns (40 FLOPs at the 94 GFLOP/s peak) and
# ~1.1 ns (100 FLOPs) per element more; sqrt/rsqrt cost no more than the multiply.
TRANSCENDENTAL_FLOPS = {"math.powf": 100, "math.exp": 40, "math.exp2": 40, "math.expm1": 40, "math.log": 40,
                        "math.log1p": 40, "math.log2": 40, "math.erf": 40, "math.tanh": 40, "math.sin": 40,
                        "math.cos": 40, "math.atan": 40, "math.atan2": 40}
TERMINATORS = frozenset({"linalg.yield", "tensor.yield"})
KEPT_ATTRS = ("strides", "dilations", "static_low", "static_high", "reassociation", "dimensions", "dimension",
              "permutation", "static_offsets", "static_sizes", "static_strides", "dim")
_ITER = re.compile(r"<(\w+)>")
_FILE_LOC = re.compile(r'loc\("([^"]*)":(\d+):(\d+)')
_NAME_LOC = re.compile(r'loc\("([^"]*)"\)')


def format_loc(loc: ir.Location, source_name: str = "-") -> str:
    """`file:line:col` for file locations (parser's "-" -> source_name), the node name for NameLoc.

    Fused locations (ONNX importers fuse node names with file positions) give their first name, as
    that is what a user can find in the model; else their first file position.
    """
    if isinstance(loc, ir.FileLineColLoc):
        fn = source_name if loc.filename == "-" else loc.filename
        return f"{fn}:{loc.start_line}:{loc.start_col}"
    if isinstance(loc, ir.NameLoc):
        return loc.name_str
    if isinstance(loc, ir.FusedLoc):
        parts = list(loc.locations)
        names = [p for p in parts if isinstance(p, ir.NameLoc)]
        for p in names + [p for p in parts if p not in names]:
            text = format_loc(p, source_name)
            if text != source_name:
                return text
        return source_name
    if isinstance(loc, ir.CallSiteLoc):
        return format_loc(loc.callee, source_name)
    text = str(loc)  # bindings without downcasting: read the printed form
    m = _FILE_LOC.search(text)
    if m:
        return f"{source_name if m.group(1) == '-' else m.group(1)}:{m.group(2)}:{m.group(3)}"
    m = _NAME_LOC.search(text)
    return m.group(1) if m else source_name


def _pad_boundary_dropped(name: str) -> bool:
    """Planted bug `drop-pad-boundary` (fusion_opt.testhooks): pads planned like any op. False unless set."""
    return name == "tensor.pad" and "lone-pad" in DISABLED_RULES


def _shape(t: ir.Type) -> tuple[int, ...]:
    return tuple(t.shape) if isinstance(t, ir.RankedTensorType) else ()


def _elem(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def _bytes(t: ir.Type) -> int:
    """Static size of a ranked tensor in bytes; 0 for scalars (they travel as push constants)."""
    if not isinstance(t, ir.RankedTensorType):
        return 0
    et = _elem(t)
    bits = et.width if hasattr(et, "width") else 64  # index and other widthless types
    return math.prod(t.shape) * max(1, (bits + 7) // 8)


def _map_dims(maps: Sequence[ir.AffineMap]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(r.position if isinstance(r, ir.AffineDimExpr) else -1 for r in m.results) for m in maps)


def _loop_ranges(n_loops: int, map_dims: Sequence[Sequence[int]], shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """Static loop ranges: a loop's range is the size of any operand dim it indexes directly."""
    ranges = [0] * n_loops
    for dims, shape in zip(map_dims, shapes):
        for d, size in zip(dims, shape):
            if d >= 0 and ranges[d] == 0:
                ranges[d] = size
    return tuple(r if r > 0 else 1 for r in ranges)


def _iterators(op: ir.Operation, n_loops: int, map_dims: Sequence[Sequence[int]], n_inits: int) -> tuple[str, ...]:
    """From `iterator_types` when the op has it; else a loop no output map indexes is a reduction."""
    if "iterator_types" in op.attributes:
        return tuple(_ITER.search(str(a)).group(1) for a in ir.ArrayAttr(op.attributes["iterator_types"]))
    out_dims = {d for m in map_dims[len(map_dims) - n_inits:] for d in m}
    return tuple("parallel" if d in out_dims else "reduction" for d in range(n_loops))


def _body(op: ir.Operation) -> tuple[tuple[str, ...], list[bool]]:
    """Scalar body op names, and per block argument whether the body reads it."""
    if not op.regions or not op.regions[0].blocks:
        return (), []
    block = op.regions[0].blocks[0]
    names = tuple(o.operation.name for o in block.operations if o.operation.name not in TERMINATORS)
    used = [any(True for _ in a.uses) for a in block.arguments]
    return names, used


def describe_op(op: ir.Operation, index: int, operands: tuple[int | None, ...], source_name: str,
                demotes_f64: bool = False) -> OpDesc:
    """One op as plain data (see OpDesc for the meaning of each field)."""
    name = op.name
    in_types = [v.type for v in op.operands]
    out_types = [r.type for r in op.results]
    operand_shapes = tuple(_shape(t) for t in in_types)
    result_shapes = tuple(_shape(t) for t in out_types)
    body_ops, body_used = _body(op)
    maps_attr = (linalg.get_indexing_maps(op) if name.startswith("linalg.")
                 else op.attributes["indexing_maps"] if name == ATTENTION_OP else None)
    if maps_attr is not None:
        maps = [ir.AffineMapAttr(a).value for a in maps_attr]
        map_text = tuple(str(m) for m in maps)
        map_dims = _map_dims(maps)
        n_loops = maps[0].n_dims if maps else 0
        n_inits = len(out_types)
        num_inputs = len(in_types) - n_inits
        loop_ranges = _loop_ranges(n_loops, map_dims, operand_shapes)
        iterators = _iterators(op, n_loops, map_dims, n_inits)
        # An operand is read only when the body uses its block argument: accumulators are, fresh
        # outs and pooling's window-shape tensor are not.
        read = body_used if len(body_used) == len(in_types) else [True] * len(in_types)
    else:
        map_text, map_dims = (), ()
        num_inputs = 1 if name == "tensor.insert_slice" else len(in_types)
        loop_ranges = result_shapes[0] if result_shapes else ()
        iterators = ("parallel",) * len(loop_ranges)
        read = [True] * len(in_types)
    kind, why = explain(iterators, map_dims, num_inputs, body_ops, name, map_text)
    n_flop_ops = sum(TRANSCENDENTAL_FLOPS.get(b, 1) for b in body_ops
                     if b.split(".")[0] in ("arith", "math") and b not in NO_FLOP)
    flops = math.prod(loop_ranges) * n_flop_ops if loop_ranges else n_flop_ops
    if name == ATTENTION_OP:  # two contractions and a softmax in one op: its own kind of work
        kind, why = OpKind.OPAQUE, "fused attention (QK^T, softmax, PV in one op)"
        flops = attention_flops(map_dims, loop_ranges)
    elif name in WINOGRAD_FLOPS_PER_TILE:  # small dense transforms per 8x8 tile (rewrites/winograd.py)
        kind, why = OpKind.OPAQUE, "Winograd transform (dense products per 8x8 tile)"
        flops = winograd_flops(name, operand_shapes, result_shapes)
    has_tensor_result = any(isinstance(t, ir.RankedTensorType) for t in out_types)
    # A data-dependent shape (ONNX Tile with its repeats as a graph input) stays with IREE, which forms
    # dynamic dispatches itself; a region of ours around it crashed IREE 3.13 (`fusion-bench conformance`).
    static = all(t.has_static_shape for t in in_types + out_types if isinstance(t, ir.ShapedType))
    # An f64 value where the compile demotes f64 to f32 (backends/compile.abi_flags: the function's own
    # signature has none) stays with IREE: its demotion's type conversion segfaulted on the block of a
    # region of ours holding f64 values (onnx's attention expansions compute their mask in double).
    demoted = demotes_f64 and any(str(_elem(t)) == "f64" for t in in_types + out_types if isinstance(t, ir.ShapedType))
    dispatchable = (has_tensor_result and static and not demoted
                    and (name not in NOT_DISPATCHABLE or _pad_boundary_dropped(name))
                    and name.split(".")[0] in DISPATCH_DIALECTS)
    attrs = tuple((k, str(op.attributes[k])) for k in KEPT_ATTRS if k in op.attributes)
    if SOURCE_ATTR in op.attributes:  # the op's name in the user's .mlir (importers/mlir_normalize)
        attrs += (("source_op", ir.StringAttr(op.attributes[SOURCE_ATTR]).value),)
    return OpDesc(
        index=index, name=name, loc=format_loc(op.location, source_name), kind=kind,
        loop_ranges=tuple(loop_ranges), iterator_types=iterators, indexing_maps=map_text, map_dims=map_dims,
        element_types=tuple(str(_elem(t)) for t in in_types + out_types),
        operand_shapes=operand_shapes, result_shapes=result_shapes, operands=operands,
        num_dps_inputs=num_inputs, body_ops=body_ops,
        flops=flops,
        bytes_read=sum(_bytes(t) for t, r in zip(in_types, read) if r),
        bytes_written=sum(_bytes(t) for t in out_types),
        dispatchable=dispatchable, attrs=attrs + (("kind_reason", why),),
    )


def _producer(v: ir.Value, index: dict[ir.Operation, int]) -> int | None:
    """The graph op defining `v`; None for a block argument or a free op (constants, reshapes)."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return index.get(owner.operation if hasattr(owner, "operation") else owner)


def _captured(op: ir.Operation, index: dict[ir.Operation, int],
              args: Sequence[ir.Value]) -> tuple[list[tuple[int, int]], tuple[int, ...]]:
    """(graph op, result) pairs whose values `op`'s body reads from outside (a gather's tensor.extract):
    dataflow like an operand, which the cycle rule and the region order must see; and the numbers of the
    function arguments (`args`) it reads so, which make it no constant."""
    found: list[tuple[int, int]] = []
    from_args: list[int] = []
    stack = [b for region in op.regions for b in region.blocks]
    while stack:
        for inner in stack.pop().operations:
            for v in inner.operands:
                p = _producer(v, index)
                if p is not None and (p, ir.OpResult(v).result_number) not in found:
                    found.append((p, ir.OpResult(v).result_number))
                elif p is None and isinstance(v.owner, ir.Block) and v in args:
                    from_args.append(ir.BlockArgument(v).arg_number)
            stack += [b for region in inner.regions for b in region.blocks]
    return found, tuple(sorted(set(from_args)))


def describe_function(func_op: ir.Operation | ir.OpView, source_name: str = "-",
                      ) -> tuple[DataflowGraph, list[ir.Operation]]:
    """Describe every top-level op of `func_op` except free ones; list[i] is the IR op of OpDesc i."""
    func_op = func_op.operation
    body = block_ops(func_op)
    graph_ops = [o for o in body if o.name not in FREE_OPS]
    demotes_f64 = not signature_has_f64(func_op)
    args = list(func_op.regions[0].blocks[0].arguments)
    index = {o: i for i, o in enumerate(graph_ops)}
    descs: list[OpDesc] = []
    edges: list[Edge] = []
    for i, op in enumerate(graph_ops):
        operands: list[int | None] = []
        for pos, v in enumerate(op.operands):
            if isinstance(v.owner, ir.Block):  # function argument (only the entry block has them here)
                operands.append(-1 - ir.BlockArgument(v).arg_number)
                continue
            p = _producer(v, index)
            operands.append(p)
            if p is not None:
                edges.append(Edge(p, i, pos, ir.OpResult(v).result_number))
        captured, from_args = _captured(op, index, args)
        edges += [Edge(p, i, CAPTURED, r) for p, r in captured]
        desc = describe_op(op, i, tuple(operands), source_name, demotes_f64)
        descs.append(replace(desc, captured_args=from_args) if from_args else desc)
    returned = (_producer(v, index) for ret in body if ret.name == "func.return" for v in ret.operands)
    outputs = {p for p in returned if p is not None}
    graph = DataflowGraph(symbol_name(func_op), tuple(descs), tuple(edges), frozenset(outputs))
    return graph, graph_ops
