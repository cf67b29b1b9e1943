"""The opset upgrade to the importer's opset, with the semantics onnx's version converter drops.

Why: older models (the ONNX model zoo's opset 7-12 detectors and segmenters) are upgraded by
`onnx.version_converter`, which renames some ops without carrying over what their old form meant:
- Upsample (opsets 7-9) and Resize-10 sample at `x_out / scale` (asymmetric); the converter writes a
  Resize with no `coordinate_transformation_mode`, i.e. half_pixel: bilinear upsampling came out wrong
  by up to 0.95 on N(0, 1) inputs.
  Their nearest mode is onnxruntime's: the index truncated along an upsampled axis, rounded up along a
  downsampled one (Resize-10 only: Upsample refuses scales below 1); an axis of each kind at once is
  two Resizes.
- Hardmax before opset 13 flattens its input to 2-D at `axis` (argmax over all the trailing dims); the
  converter keeps the node as is, which means the one `axis` since opset 13 (Softmax and LogSoftmax it
  does rewrite: Flatten, the op on the last axis, Reshape back; Hardmax gets the same here).
The old semantics are marked by output name before the conversion (names survive it) and restored after.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..errors import UnsupportedError
from .onnx_fold import default_opset, node_attrs
from .onnx_legalize import legacy_prelu_slopes
from .onnx_weights import weightless

ASYMMETRIC = "asymmetric"   # a resize that samples at x_out / scale
COERCED = "coerced"         # a Hardmax over its input flattened to 2-D at the axis


def upgrade(proto: onnx.ModelProto, target: int) -> onnx.ModelProto:
    """`proto` at opset `target` (proto itself when it is not older), meaning what it meant before;
    `proto` is the caller's own copy: its PReLU slopes are reshaped and the converted model is written
    into it (`weightless`), so an older `proto` is returned too."""
    opset = default_opset(proto)
    if opset is None or opset >= target:
        return proto
    legacy_prelu_slopes(proto)
    marks = _old_semantics(proto.graph, opset)
    before = _interface(proto.graph)
    proto = weightless(lambda p: onnx.version_converter.convert_version(p, target), proto)
    _same_interface(before, _interface(proto.graph), opset, target)
    if marks:
        _restore(proto.graph, marks)
    return proto


def _interface(graph: onnx.GraphProto) -> dict[str, tuple[str, tuple[int | str, ...] | None]]:
    """{'input x' / 'output y': (element type, dims or None)} of the graph's inputs and outputs."""
    def dims(v: onnx.ValueInfoProto) -> tuple[int | str, ...] | None:
        t = v.type.tensor_type
        return tuple(d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim) \
            if t.HasField("shape") else None
    out = {f"input '{v.name}'": (str(v.type.tensor_type.elem_type), dims(v)) for v in graph.input}
    out.update({f"output '{v.name}'": (str(v.type.tensor_type.elem_type), dims(v)) for v in graph.output})
    return out


def _same_interface(before: dict, after: dict, opset: int, target: int) -> None:
    """onnx's version converter must not change what the model takes and returns: Scan-8's batch axis
    came out dropped from the graph inputs (1x3x2 -> 3x2), a shape error at the first call."""
    for what, (elem, shape) in before.items():
        got = after.get(what)
        if got is None or got[0] != elem or (shape is not None and got[1] is not None and (
                len(got[1]) != len(shape) or any(isinstance(a, int) and isinstance(b, int) and a and b and a != b
                                                 for a, b in zip(shape, got[1])))):
            now = "gone" if got is None else "x".join(map(str, got[1] or ())) or "a scalar"
            was = "x".join(map(str, shape or ())) or "a scalar"
            raise UnsupportedError(f"converting the model from opset {opset} to {target} (onnx's version converter) "
                                   f"changed graph {what} from {was} to {now}: this model's opset is not supported")


def _old_semantics(graph: onnx.GraphProto, opset: int) -> dict[str, tuple[str, int]]:
    """{output name: (mark, Hardmax axis)} of the nodes whose meaning the converter loses."""
    marks: dict[str, tuple[str, int]] = {}
    for n in graph.node:
        if n.op_type == "Upsample" or (n.op_type == "Resize" and opset == 10):
            marks[n.output[0]] = (ASYMMETRIC, 0)
        elif n.op_type == "Hardmax" and opset < 13:
            marks[n.output[0]] = (COERCED, int(node_attrs(n).get("axis", 1)))
    return marks


def _constant_scales(graph: onnx.GraphProto, name: str) -> np.ndarray | None:
    for t in graph.initializer:
        if t.name == name:
            return numpy_helper.to_array(t)
    for n in graph.node:
        if n.op_type == "Constant" and n.output[0] == name and n.attribute and n.attribute[0].name == "value":
            return numpy_helper.to_array(n.attribute[0].t)
    return None


def _asymmetric_resizes(graph: onnx.GraphProto, n: onnx.NodeProto) -> list[onnx.NodeProto]:
    """`n` (a converted Resize with scales) sampling at x_out / scale; for nearest, one Resize per
    rounding (floor where scales are at least 1, ceil below)."""
    def resize(node: onnx.NodeProto, nearest_mode: str | None) -> onnx.NodeProto:
        kept = [a for a in node.attribute if a.name not in ("coordinate_transformation_mode", "nearest_mode")]
        del node.attribute[:]
        node.attribute.extend(kept + [helper.make_attribute("coordinate_transformation_mode", ASYMMETRIC)])
        if nearest_mode:
            node.attribute.append(helper.make_attribute("nearest_mode", nearest_mode))
        return node

    if node_attrs(n).get("mode", b"nearest") not in (b"nearest", "nearest"):
        return [resize(n, None)]
    scales = _constant_scales(graph, n.input[2]) if len(n.input) > 2 and n.input[2] else None
    if scales is None or (scales >= 1).all():
        return [resize(n, "floor")]
    if (scales <= 1).all():
        return [resize(n, "ceil")]
    y, up, down = n.output[0], np.maximum(scales, 1).astype(np.float32), np.minimum(scales, 1).astype(np.float32)
    graph.initializer.extend([numpy_helper.from_array(up, f"{y}__up_scales"),
                              numpy_helper.from_array(down, f"{y}__down_scales")])
    first = onnx.NodeProto()
    first.CopyFrom(n)
    first.input[2], first.output[0] = f"{y}__up_scales", f"{y}__upsampled"
    n.input[0], n.input[2] = f"{y}__upsampled", f"{y}__down_scales"
    return [resize(first, "floor"), resize(n, "ceil")]


def _restore(graph: onnx.GraphProto, marks: dict[str, tuple[str, int]]) -> None:
    nodes: list[onnx.NodeProto] = []
    for n in list(graph.node):
        mark, axis = marks.get(n.output[0], ("", 0)) if n.output else ("", 0)
        if mark == ASYMMETRIC and n.op_type == "Resize":
            nodes += _asymmetric_resizes(graph, n)
        elif mark == COERCED and n.op_type == "Hardmax":
            y = n.output[0]
            shape, flat, top = f"{y}__shape", f"{y}__flat", f"{y}__flat_hardmax"
            nodes += [helper.make_node("Shape", [n.input[0]], [shape]),
                      helper.make_node("Flatten", [n.input[0]], [flat], axis=axis),
                      helper.make_node("Hardmax", [flat], [top], axis=-1, name=n.name),
                      helper.make_node("Reshape", [top, shape], [y])]
        else:
            nodes.append(n)
    del graph.node[:]
    graph.node.extend(nodes)
