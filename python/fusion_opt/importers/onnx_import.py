"""ONNX -> torch dialect -> Linalg on tensors, in process (recipe verified in shared/ARCHITECTURE.md)."""
from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import onnx

from ..errors import InputError, UnsupportedError
from ..ir import PassManager, bytecode, ir, new_session
from .constant_gathers import slice_constant_gathers
from .constant_reads import drop_constant_reads
from .isolate import run_isolated
from .mlir_normalize import fold_copy_generics
from .pad_chains import fold_pad_chains
from .onnx_precision import promote_f16 as f16_to_f32
from .onnx_fold import default_opset, fold_shape_arithmetic, sort_nodes, subgraphs
from .onnx_functions import expand_function_ops, expandable
from .onnx_legalize import legalize
from .onnx_upgrade import upgrade
from .onnx_weights import weightless, without_data

MIN_OPSET = 17

# Standard ops torch-mlir has no lowering for that ONNX defines as functions (onnx's own test cases), expanded
# before the first import; any other such op the importer refuses is expanded on a second try.
PREEXPAND = frozenset({"Attention", "RMSNormalization", "Swish", "SwiGLU", "AffineGrid", "LinearAttention",
                       "CausalConvWithState", "RotaryEmbedding",
                       # lowered, but weighted means came out inf and 3-D+ inputs or ignore_index failed
                       "SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"})
TORCH_TO_LINALG = (
    "builtin.module(torch-lower-to-backend-contract,func.func(torch-scalarize-shapes),"
    "torch-backend-to-linalg-on-tensors-backend-pipeline)"
)
# IREE's global optimization runs these before it forms dispatches, and the planner must see the ops
# IREE would: unused results dropped (softmax's max lowers with an unused argmax) and weight
# transposes folded into their matmul's indexing maps (a transpose left in a dispatch of its own
# re-transposes the weights on every call).
GLOBAL_OPT = ("builtin.module(iree-global-opt-erase-unused-linalg-operands,"
              "func.func(iree-global-opt-propagate-linalg-transpose,canonicalize,cse))")
# Exporters keep reduced dims (ReduceMean keepdims=1): the reduction then writes `(d0, d1, 0)`, which
# IREE cannot fuse with its broadcasting consumers. Dropping unit dims everywhere but the function
# boundary (as IREE's own dispatch creation does) turns LayerNorm into one row-wise multi-reduction
# group; the reshapes it leaves are moved to the edges, and softmax, now in one shape, is raised to
# `linalg.softmax` (one dispatch in IREE; the per-function variant of the pass left a softmax on
# [1, 1000] split by reshapes into four).
FOLD_UNIT_DIMS = ("builtin.module(func.func(iree-dispatch-creation-fold-unit-extent-dims-for-func,"
                  "iree-dispatch-creation-bubble-up-expand-shapes,iree-dispatch-creation-sink-reshapes,canonicalize,cse),"
                  "func.func(iree-global-opt-generalize-linalg-named-ops),iree-dispatch-creation-fold-unit-extent-dims,"
                  "func.func(canonicalize,cse,iree-global-opt-raise-special-ops,"
                  "iree-dispatch-creation-bubble-up-expand-shapes,iree-dispatch-creation-sink-reshapes,canonicalize,cse))")


def load_onnx(model: str | os.PathLike[str] | onnx.ModelProto) -> tuple[onnx.ModelProto, str]:
    """Read a model (path or proto); malformed files become one-line InputErrors."""
    if isinstance(model, onnx.ModelProto):
        return model, model.graph.name or "<model>"
    path = Path(model)
    if not path.is_file():
        raise InputError("no such file", str(path))
    try:
        proto = onnx.load(str(path))
    except Exception as e:  # protobuf DecodeError, truncated external data, ...
        raise InputError(f"cannot parse ONNX protobuf: {type(e).__name__}: {e}", str(path)) from None
    if not proto.graph.node and not proto.graph.output:
        raise InputError("not an ONNX model (empty graph)", str(path))
    return proto, str(path)


def set_input_shapes(proto: onnx.ModelProto, shapes: Mapping[str, Sequence[int]]) -> None:
    """Pin graph input dimensions, e.g. a symbolic batch size, before shape inference."""
    names = {i.name for i in proto.graph.input}
    for name, dims in shapes.items():
        if name not in names:
            raise InputError(f"--input-shape names '{name}', which is not a graph input")
        inp = next(i for i in proto.graph.input if i.name == name)
        tshape = inp.type.tensor_type.shape
        del tshape.dim[:]
        for d in dims:
            tshape.dim.add().dim_value = int(d)


def drop_unsettled_value_info(graph: onnx.GraphProto) -> None:
    """Forget intermediate shapes that shape inference should recompute: a `value_info` entry naming a
    graph input (onnx.utils.extract_model writes one, with the symbolic dims of the model it was cut
    from: inference kept those over the pinned input's, and the import failed with "type of return operand
    0 ('!torch.vtensor<[?,32,?,?],f32>') doesn't match function result type") and every entry with a
    symbolic or unknown dim (an export with dynamic axes, then pinned)."""
    inputs = {i.name for i in graph.input}

    def settled(v: onnx.ValueInfoProto) -> bool:
        t = v.type.tensor_type if v.type.HasField("tensor_type") else None
        return (v.name not in inputs and t is not None and t.HasField("shape")
                and all(d.HasField("dim_value") for d in t.shape.dim))

    kept = [v for v in graph.value_info if settled(v)]
    if len(kept) != len(graph.value_info):
        del graph.value_info[:]
        graph.value_info.extend(kept)


def prepare(proto: onnx.ModelProto, where: str, input_shapes: Mapping[str, Sequence[int]] | None = None,
            expand: frozenset[str] = PREEXPAND, promote_f16: bool = False, copy: bool = True) -> onnx.ModelProto:
    """Opset upgrade (older opsets fail in IREE on BatchNorm/MaxPool), input pinning, shape inference, the
    ops in `expand` replaced by their ONNX function bodies (importers/onnx_functions.py), and the rewrites
    of importers/onnx_legalize.py (nodes the importer cannot lower, as equal graphs it can). With
    `promote_f16` (CPU targets), f16 is computed in f32 (importers/onnx_precision.py). `copy=False`: the
    caller's proto is prepared in place (the import child, which read it itself: no copy of the weights)."""
    if copy:
        proto_copy = onnx.ModelProto()
        proto_copy.CopyFrom(proto)
        proto = proto_copy
    if not proto.graph.name:  # the function's name: empty, IREE's module has an export with no name
        proto.graph.name = "main"
    if input_shapes:
        set_input_shapes(proto, input_shapes)
    drop_unsettled_value_info(proto.graph)
    try:
        proto = upgrade(proto, MIN_OPSET)
        if proto.functions:  # model-local functions (torch's exporter writes modules as them): not imported
            proto = onnx.inliner.inline_local_functions(proto)
        sort_nodes(proto.graph)
        if promote_f16:
            f16_to_f32(proto)
        proto = weightless(_infer_shapes, proto)
        proto, expanded = expand_function_ops(proto, expand)
        if expanded:
            proto = weightless(_infer_shapes, proto)
        for _ in range(3):  # a rewrite can expose more (an inlined If branch's shape arithmetic, a nested If)
            if not fold_shape_arithmetic(proto) + legalize(proto):
                break
            sort_nodes(proto.graph)
            proto = weightless(_infer_shapes, proto)
    except UnsupportedError as e:
        raise UnsupportedError(e.message, where) from None
    except Exception as e:
        raise InputError(f"ONNX opset conversion or shape inference failed: {e}", where) from None
    initializers = {i.name for i in proto.graph.initializer}
    for inp in proto.graph.input:
        if inp.name in initializers:
            continue
        kind = inp.type.WhichOneof("value")
        if kind != "tensor_type":
            what = {"sequence_type": "a sequence", "optional_type": "an optional", "map_type": "a map",
                    "sparse_tensor_type": "a sparse tensor"}.get(kind or "", "of no type")
            raise UnsupportedError(f"graph input '{inp.name}' is {what}; only tensors are supported", where)
        t = inp.type.tensor_type
        if not t.HasField("shape"):
            raise UnsupportedError(f"graph input '{inp.name}' has no shape", where)
        for d in t.shape.dim:
            if not d.HasField("dim_value") or d.dim_value < 0:  # a declared 0 is an empty tensor, not dynamic
                dim = d.dim_param or "?"
                raise UnsupportedError(
                    f"graph input '{inp.name}' has dynamic dimension '{dim}'; pin it with "
                    f"--input-shape {inp.name}=1x... (API: input_shapes={{'{inp.name}': (...)}})",
                    where,
                )
    check_tensors(proto, where)
    check_domains(proto.graph, where)
    raw_16bit_data(proto.graph)
    return proto


def _infer_shapes(proto: onnx.ModelProto) -> onnx.ModelProto:
    return onnx.shape_inference.infer_shapes(proto, data_prop=True)


def raw_16bit_data(graph: onnx.GraphProto) -> None:
    """bfloat16 / float16 constants held in `int32_data` (onnx.helper.make_tensor's default encoding) as
    `raw_data`: the importer reads only the raw form ("Unhandled ONNX TensorProto data ... data_type: 16")."""
    half = (onnx.TensorProto.BFLOAT16, onnx.TensorProto.FLOAT16)
    tensors = list(graph.initializer) + [a.t for n in graph.node if n.op_type == "Constant" for a in n.attribute
                                         if a.name == "value"]
    for t in tensors:
        if t.data_type in half and not t.HasField("raw_data") and t.data_location != onnx.TensorProto.EXTERNAL:
            t.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(t), t.name))


def check_domains(graph: onnx.GraphProto, where: str) -> None:
    """Refuse, naming it, a node of another domain than ONNX's (onnxruntime's `com.microsoft` contrib ops
    of its QOperator quantization format, ONNX-ML's classifiers): the importer read it as a standard op
    of the same name ("unsupported ONNX op 'onnx.QLinearConcat'")."""
    for n in graph.node:
        if n.domain not in ("", "ai.onnx"):
            what = "an ONNX-ML op" if n.domain == "ai.onnx.ml" else f"an op of domain '{n.domain}', not standard ONNX"
            node = f"node '{n.name}'" if n.name else f"the node computing '{n.output[0]}'" if n.output else "a node"
            raise UnsupportedError(f"{node} is {n.op_type}, {what}; it is not supported", where)
        for sub in subgraphs(n):
            check_domains(sub, where)


# Element types the importer lowers; others (STRING, complex, float8, undefined) abort it (LLVM fatal error).
_NUMERIC = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16,
            onnx.TensorProto.BOOL, onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32,
            onnx.TensorProto.INT64, onnx.TensorProto.UINT8, onnx.TensorProto.UINT16, onnx.TensorProto.UINT32,
            onnx.TensorProto.UINT64}


# The torch importer aborts the process on these (LLVM fatal error "Unhandled type in
# getScalarTypeForType: ui16", torch-mlir#3720), wherever they appear: inputs, intermediates, casts.
_ABORTS_IMPORTER = {onnx.TensorProto.UINT16, onnx.TensorProto.UINT32, onnx.TensorProto.UINT64}


def _type_name(et: int) -> str:
    return onnx.TensorProto.DataType.Name(et) if et in onnx.TensorProto.DataType.values() else str(et)


def check_tensors(proto: onnx.ModelProto, where: str) -> None:
    """Refuse what crashes the importer instead of failing in it (found by `fusion-bench fuzz --malformed`
    and `fusion-bench conformance`): a graph input or output of a non-numeric element type, an unsigned
    type wider than 8 bits anywhere in the graph, an initializer whose data is shorter or longer than its
    dims say (the importer reads past the buffer)."""
    for v in list(proto.graph.input) + list(proto.graph.output):
        et = v.type.tensor_type.elem_type
        if v.type.HasField("tensor_type") and et not in _NUMERIC:
            raise UnsupportedError(f"graph {'input' if v in proto.graph.input else 'output'} '{v.name}' has "
                                   f"element type {_type_name(et)}, which is not supported", where)
    typed = [(v.name, v.type.tensor_type.elem_type) for v in [*proto.graph.input, *proto.graph.output,
                                                              *proto.graph.value_info] if v.type.HasField("tensor_type")]
    typed += [(t.name, t.data_type) for t in proto.graph.initializer]
    typed += [(n.output[0] if n.output else n.name, a.i) for n in proto.graph.node if n.op_type == "Cast"
              for a in n.attribute if a.name == "to"]
    for name, et in typed:
        if et in _ABORTS_IMPORTER:
            raise UnsupportedError(f"tensor '{name}' has element type {_type_name(et)}; unsigned integers wider "
                                   "than 8 bits are not supported by the ONNX importer", where)
    for t in proto.graph.initializer:
        if t.data_type not in _NUMERIC:
            raise UnsupportedError(f"initializer '{t.name}' has an unsupported element type", where)
        n = 1
        for d in t.dims:
            n *= d
        if t.HasField("raw_data"):
            size = onnx.helper.tensor_dtype_to_np_dtype(t.data_type).itemsize
            got = len(t.raw_data) // size if t.data_type != onnx.TensorProto.BOOL else len(t.raw_data)
        elif t.data_location == onnx.TensorProto.EXTERNAL:
            continue
        else:
            got = len(onnx.numpy_helper.to_array(t).reshape(-1)) if n else 0
        if got != n or any(d < 0 for d in t.dims):
            raise InputError(f"initializer '{t.name}' holds {got} values but its dims {list(t.dims)} say {n}", where)


def _first_unconverted(module: ir.Module) -> tuple[str, str] | None:
    """An ONNX node the torch-onnx conversion could not legalize: (op name, location)."""
    found: list[tuple[str, str]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "torch.operator":
            found.append((ir.StringAttr(op.attributes["name"]).value, str(op.location)))
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0] if found else None


def _to_linalg(proto: onnx.ModelProto, where: str, out: str) -> bytes:
    """ONNX -> torch -> Linalg, as MLIR bytecode (`_global_opt` continues). Runs in a child process
    (importers/isolate.py): torch-mlir and IREE's passes crash on some valid models (a segfault in
    convert-torch-to-linalg on onnx's DepthToSpace expansion, also under iree-opt; intermittent ones in
    the global-opt steps on its attention expansions, found by `fusion-bench conformance`)."""
    from iree.compiler.extras import onnx_importer

    staging = new_session()
    try:
        info = onnx_importer.ModelInfo(proto)
        module = info.create_module(context=staging.context)
        onnx_importer.NodeImporter.define_function(info.main_graph, module.operation).import_all()
    except Exception as e:
        raise UnsupportedError(f"ONNX import failed: {type(e).__name__}: {e}", where) from None
    try:
        _run(module, "builtin.module(func.func(convert-torch-onnx-to-torch))", staging.context, where)
    except UnsupportedError:
        _refuse_shape_from_input(proto.graph, where)
        raise
    bad = _first_unconverted(module)
    if bad:
        node = bad[1][len('loc("'):-2] if bad[1].startswith('loc("') else bad[1]
        raise UnsupportedError(f"unsupported ONNX op '{bad[0]}' (node '{node}')", where)
    try:
        _run(module, TORCH_TO_LINALG, staging.context, where)
    except UnsupportedError:
        _refuse_shape_from_input(proto.graph, where)
        raise
    # Bytecode, with every location (the ONNX node names are the ops' locations: pins and reports name
    # them), to a file the next child reads, not passed through the parent. Text took VGG-19 31 s to
    # print and 26 s to parse (1.1 GB), bytecode 0.9 and 0.5 s.
    with open(out, "wb") as f:
        module.operation.write_bytecode(f)
    return b""


def _read_and_lower(path: str, from_proto: bool, where: str, input_shapes: Mapping[str, Sequence[int]] | None,
                    promote_f16: bool, out: str) -> bytes:
    """The model read, prepared and lowered (`_to_linalg`) in one child: the weights are read from the file
    here, never copied or pickled by the parent (VGG-19: loading 2 s, pickling 6 s and unpickling 7 s
    before). An op the importer does not lower but ONNX defines by a function body is expanded, and the
    model read and prepared again. Returns the prepared model without its weights' values
    (`onnx_weights.without_data`)."""
    expand = PREEXPAND
    while True:
        original = onnx.load(path) if from_proto else load_onnx(path)[0]
        proto = prepare(original, where, input_shapes, expand, promote_f16, copy=False)
        try:
            _to_linalg(proto, where, out)
            return without_data(proto).SerializeToString()
        except UnsupportedError as e:
            op = _unlowered_op(e.message)
            if op is None or op in expand or not expandable(op, default_opset(proto) or 0):
                raise
            expand = expand | {op}
        del original, proto


def _global_opt(path: str, where: str, via_text: bool = False) -> bytes:
    """IREE's global-opt steps on the Linalg module, as MLIR bytecode, in a child process of their own:
    in the process the torch passes had run in, `iree-global-opt-propagate-linalg-transpose` segfaulted
    on every try on torchvision's ViT-B/16 and ConvNeXt blocks (in a fresh context too). It once did in a
    fresh process on the module read from bytecode as well, not on the module printed as text and parsed
    again (as `iree-opt` reads it): `via_text` is that form, the retry after a crash (`import_onnx`); it
    costs VGG-19 57 s more. The pass's likelier fault, reading a constant in a map as a dim position
    (uninitialized memory, so it crashed on one machine and not another), is avoided by
    `drop_constant_reads` first (importers/constant_reads.py)."""
    linalg = new_session()
    with open(path, "rb") as f:
        module = ir.Module.parse(f.read(), linalg.context)
    if via_text:
        text = module.operation.get_asm(large_elements_limit=None, enable_debug_info=True)
        del module
        linalg = new_session()
        module = ir.Module.parse(text, linalg.context)
        del text
    drop_constant_reads(module)  # a constant in a map crashes the transpose propagation (constant_reads)
    _run(module, GLOBAL_OPT, linalg.context, where)
    _run(module, FOLD_UNIT_DIMS, linalg.context, where)
    slice_constant_gathers(module)  # a recurrence's per-step `x[t]` gathers: views (constant_gathers)
    return bytecode(module)


def import_onnx(model: str | os.PathLike[str] | onnx.ModelProto, context: ir.Context,
                input_shapes: Mapping[str, Sequence[int]] | None = None, source_name: str | None = None,
                promote_f16: bool = False) -> tuple[ir.Module, onnx.ModelProto]:
    """Import an ONNX model as a Linalg-on-tensors module in `context` (the session's context);
    `promote_f16`: compute f16 in f32 (what the CPU targets want, `onnx_precision.py`). Also returns the
    prepared model, its initializers without their values (the weights stay in the child that read them)."""
    with tempfile.TemporaryDirectory(prefix="fusion-opt-import-") as d:
        linalg = os.path.join(d, "linalg.mlirbc")
        if isinstance(model, onnx.ModelProto):  # handed to the child as a file, as a path would be
            path, where = os.path.join(d, "model.onnx"), source_name or model.graph.name or "<model>"
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
        else:
            path = str(model)
            where = source_name or path
        shell = run_isolated(_read_and_lower, (path, isinstance(model, onnx.ModelProto), where, input_shapes,
                                               promote_f16, linalg), "the ONNX-to-Linalg lowering", where)
        proto = onnx.ModelProto.FromString(shell)
        try:
            code = run_isolated(_global_opt, (linalg, where), "the ONNX-to-Linalg lowering", where, retries=0,
                                crash=_GlobalOptCrash)
        except _GlobalOptCrash:
            code = run_isolated(_global_opt, (linalg, where, True), "the ONNX-to-Linalg lowering", where)
    module = ir.Module.parse(code, context)
    fold_copy_generics(module)  # a broadcast (`Expand`) read through its readers' maps, as IREE fuses it
    fold_pad_chains(module)  # a Pad before a padded conv or pool: one pad (importers/pad_chains.py)
    return module, proto



class _GlobalOptCrash(UnsupportedError):
    """The global-opt child died on the module read from bytecode: retried from text."""


def _unlowered_op(message: str) -> str | None:
    """The ONNX op an importer error names as not lowered, if any."""
    m = re.search(r"unsupported ONNX op 'onnx\.(\w+)'|ONNX op (\w+) at node .* is not supported", message)
    return (m.group(1) or m.group(2)) if m else None


# Operands that must be known when compiling: output shapes (what a node produces) and axes (which dims
# a node reduces, squeezes or scans). Read from a graph input, they depend on its values at run time,
# which static-shape compilation cannot express (torch-mlir fails far from the cause: "failed to
# legalize operation 'torch.aten.broadcast_to'" on an Expand, "marked as backend illegal" on a Reduce*).
SHAPE_OPERANDS = {"Expand": (1,), "Reshape": (1,), "ConstantOfShape": (0,), "Range": (0, 1, 2),
                   "Resize": (2, 3), "Upsample": (1,), "Slice": (1, 2, 3, 4), "Pad": (1, 3), "TopK": (1,),
                   "OneHot": (1,), "Tile": (1,), "AffineGrid": (1,), "CenterCropPad": (1,), "Col2Im": (1, 2),
                   "DFT": (1,), "STFT": (1, 3)}
AXES_OPERANDS = {op: (1,) for op in ("ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean", "ReduceProd",
                                      "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                                      "ReduceSumSquare", "Squeeze", "Unsqueeze", "CumSum", "CumProd", "Split")}
AXES_OPERANDS["DFT"] = (2,)


def _refuse_shape_from_input(graph: onnx.GraphProto, where: str) -> None:
    """Where a lowering failed and a node takes its output shape or axes from a graph input's values,
    directly or computed from them (a function body's Unsqueeze of a Slice of AffineGrid's `size`), say
    that instead of the lowering's message (a torch op marked illegal, far from the cause). Shapes of
    inputs are static: `Shape` and `Size` stop the dependence."""
    inputs = {v.name for v in graph.input} - {t.name for t in graph.initializer}
    source = {name: name for name in inputs}  # value -> the graph input it is computed from
    for n in graph.node:
        for what, plural, table in (("output shape", "shapes", SHAPE_OPERANDS),
                                    ("axes", "axes", AXES_OPERANDS)):
            for i in table.get(n.op_type, ()):
                if i < len(n.input) and n.input[i] in source:
                    node = f"node '{n.name}'" if n.name else f"the node computing '{n.output[0]}'"
                    via = "" if n.input[i] in inputs else f" (through '{n.input[i]}')"
                    raise UnsupportedError(f"{n.op_type} ({node}) takes its {what} from graph input "
                                           f"'{source[n.input[i]]}'{via}: {plural} that depend on input values "
                                           "are not supported (make it an initializer)", where)
        origin = next((source[x] for x in n.input if x in source), None)
        if origin is not None and n.op_type not in ("Shape", "Size"):
            source.update((o, origin) for o in n.output if o)


def _run(module: ir.Module, pipeline: str, context: ir.Context, where: str) -> None:
    try:
        PassManager.parse(pipeline, context=context).run(module.operation)
    except ir.MLIRError as e:
        diags = e.error_diagnostics
        if diags and (op := _UNLOWERED.search(diags[0].message)):
            attrs = ", ".join(f"{k}={v}" for k, v in _ONNX_ATTR.findall(diags[0].message))
            raise UnsupportedError(f"ONNX op {op.group(1)} at node {_node_name(diags[0].location)} is not "
                                   f"supported with its attributes ({attrs or 'none'}): the importer has no "
                                   "lowering for it", where) from None
        # The op's whole IR text follows "explicitly marked illegal: " or "failed to legalize operation
        # 'X': " (a page for a torch op with many operands); its name already says what failed.
        msg = f"{_ILLEGAL_OP_TEXT.sub(_KEEP_HEAD, diags[0].message)} at {diags[0].location}" if diags \
            else str(e).splitlines()[-1]
        raise UnsupportedError(f"lowering to Linalg failed: {msg}", where) from None


# A node torch-mlir's ONNX conversion left as `torch.operator "onnx.X"` (the whole op was the message).
_UNLOWERED = re.compile(r"'torch\.operator' that was explicitly marked illegal: .*?name = \"onnx\.(\w+)\"")
_ILLEGAL_OP_TEXT = re.compile(r"(explicitly marked illegal|failed to legalize operation '[\w.]+'): .*", re.S)
_KEEP_HEAD = r"\1"
_ONNX_ATTR = re.compile(r"torch\.onnx\.(\w+) = (\"[^\"]*\"|[-\w.]+)")


def _node_name(loc: object) -> str:
    text = str(loc)
    m = re.match(r'loc\("([^"]*)"', text)
    return f"'{m.group(1)}'" if m else text
