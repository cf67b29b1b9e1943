"""Standard ONNX ops the importer has no lowering for, replaced by the function bodies ONNX defines them by.

Why: recent opsets add ops as functions of older ones (Attention, RMSNormalization, Swish, SwiGLU,
RotaryEmbedding, AffineGrid, ...), and exporters emit them (torch's dynamo exporter at opset 23 writes
`Attention` and `RMSNormalization`); torch-mlir's ONNX conversion knows few of them ("unsupported ONNX op
'onnx.Attention'": 93 of onnx's own test cases). Their schema carries the body, plain or built for the
node's attributes and input types (a context-dependent function), which the importer then takes op by op.
The node becomes a call of a model-local function holding that body, and onnx's inliner splices it in
with fresh value names, so the rest of the graph is untouched.
"""
from __future__ import annotations

from collections.abc import Iterable

import onnx
import onnx.inliner
from onnx import defs, helper

from .onnx_fold import default_opset

DOMAIN = "fusion_opt.expanded"


def expandable(op_type: str, opset: int) -> bool:
    """Does ONNX define `op_type` (default domain, at `opset`) by a function body?"""
    try:
        schema = defs.get_schema(op_type, opset, "")
    except defs.SchemaError:
        return False
    return schema.has_function or schema.has_context_dependent_function


def expand_function_ops(proto: onnx.ModelProto, ops: Iterable[str], depth: int = 0) -> tuple[onnx.ModelProto, int]:
    """(model, nodes expanded): the top-level nodes of the default domain whose op is in `ops` replaced by
    their function bodies. A node whose body cannot be built (input types unknown) is left as it is.
    `proto` must be shape-inferred: a context-dependent body depends on its inputs' types."""
    ops = set(ops)
    opset = default_opset(proto)
    if opset is None or not ops:
        return proto, 0
    types = {v.name: v.type for v in (*proto.graph.input, *proto.graph.value_info, *proto.graph.output)}
    types.update((t.name, helper.make_tensor_type_proto(t.data_type, list(t.dims))) for t in proto.graph.initializer)
    for n in proto.graph.node:  # Constant outputs are typed by their value
        if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value":
            t = n.attribute[0].t
            types.setdefault(n.output[0], helper.make_tensor_type_proto(t.data_type, list(t.dims)))
    functions: list[onnx.FunctionProto] = []
    for k, node in enumerate(proto.graph.node):
        if node.domain not in ("", "ai.onnx") or node.op_type not in ops:
            continue
        body = _body(node, opset, types)
        if body is None:
            continue
        _spell_defaults(node, opset)
        body.name, body.domain = f"{node.op_type}_{k}", DOMAIN
        node.op_type, node.domain = body.name, DOMAIN
        functions.append(body)
    if not functions:
        return proto, 0
    proto.functions.extend(functions)
    proto.opset_import.append(helper.make_opsetid(DOMAIN, 1))
    inlined = onnx.inliner.inline_local_functions(proto)
    del inlined.opset_import[:]
    inlined.opset_import.extend(o for o in proto.opset_import if o.domain != DOMAIN)
    nested = any(n.domain in ("", "ai.onnx") and n.op_type in ops for n in inlined.graph.node)
    if nested and depth < 3:  # a body may use another such op (SwiGLU's uses Swish)
        inlined = onnx.shape_inference.infer_shapes(inlined, data_prop=True)
        inlined, more = expand_function_ops(inlined, ops, depth + 1)
        return inlined, len(functions) + more
    return inlined, len(functions)


def _body(node: onnx.NodeProto, opset: int, types: dict[str, onnx.TypeProto]) -> onnx.FunctionProto | None:
    """The node's function body, from the newest definition not newer than the model's opset, declared at
    the model's opset (onnx's inliner takes only bodies of the model's own version; the ops of these
    bodies mean the same in the versions between)."""
    try:
        schema = defs.get_schema(node.op_type, opset, "")
        body: onnx.FunctionProto | None = None
        if schema.has_function:
            v = max((v for v in schema.function_opset_versions if v <= opset), default=None)
            raw = schema.get_function_with_opset_version(v) if v is not None else schema.function_body
            body = onnx.FunctionProto.FromString(raw) if isinstance(raw, bytes) else _copy(raw)
        elif schema.has_context_dependent_function:
            v = max((v for v in schema.context_dependent_function_opset_versions if v <= opset), default=opset)
            ins = [types[i] if i else onnx.TypeProto() for i in node.input]
            raw = schema.get_context_dependent_function_with_opset_version(
                v, node.SerializeToString(), [t.SerializeToString() for t in ins])
            body = onnx.FunctionProto.FromString(raw) if raw else None
    except (KeyError, RuntimeError, defs.SchemaError):
        return None
    if body is None:
        return None
    for o in body.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = opset
    return body


def _spell_defaults(node: onnx.NodeProto, opset: int) -> None:
    """Give the node every attribute it leaves at its default: the body refers to them by name (`@alpha`),
    and the inliner resolves a reference only from the calling node."""
    given = {a.name for a in node.attribute}
    for name, attr in defs.get_schema(node.op_type, opset, "").attributes.items():
        if name not in given and attr.default_value is not None and attr.default_value.type:
            default = onnx.AttributeProto.FromString(attr.default_value.SerializeToString())
            default.name = name
            node.attribute.append(default)


def _copy(f: onnx.FunctionProto) -> onnx.FunctionProto:
    out = onnx.FunctionProto()
    out.CopyFrom(f)
    return out
