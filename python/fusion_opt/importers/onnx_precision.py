"""float16 and bfloat16 models computed in float32 on CPU targets, rounded to their type at their outputs.

Why: x86 CPUs without AVX512-FP16 have no f16 arithmetic: IREE converts every f16 operand to f32 and back
around each op, and none of the conv strategies (im2col, Winograd, data tiling's f32 mmt4d tiles) apply.
An f16 ResNet-50 ran 496 ms against 53 ms for the f32 model (onnxruntime's f16 build: 74 ms); SqueezeNet
61 ms against 7. Computed in f32, each op rounds once, to f32, instead of to f16: the results are those
of the f32 model rounded to f16 at the interface, closer to exact than f16 arithmetic (for a single
+, -, *, / or sqrt they are equal: f32's 24 bits make rounding twice to f16 exact). GPU targets keep f16.
bfloat16 likewise (no bf16 arithmetic either): onnx's bf16 Attention cases were one bf16 ulp (3.9e-3) off
their reference, which computes in f32 and rounds once.

The model's interface is unchanged: f16 inputs are cast to f32 where they enter, f16 outputs cast back.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .onnx_fold import subgraphs

F16, BF16, F32 = TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.FLOAT
HALF = frozenset({F16, BF16})
# Attributes naming an element type that a node produces.
_TYPE_ATTRS = {"Cast": "to", "EyeLike": "dtype", "RandomNormal": "dtype", "RandomUniform": "dtype",
               "RandomNormalLike": "dtype", "RandomUniformLike": "dtype", "Multinomial": "dtype",
               "Bernoulli": "dtype"}


def promote_f16(proto: onnx.ModelProto) -> int:
    """Rewrite `proto` in place so that every f16 tensor inside it is f32; returns how many tensors,
    attributes and interface casts changed (0: nothing to do, or an f16 output that is itself a graph
    input or initializer, which a cast could not rename: the model is left as it is)."""
    g = proto.graph
    inits = {t.name for t in g.initializer}
    f16_out = [v for v in g.output if _is_f16(v)]
    if any(v.name in inits or v.name in {i.name for i in g.input} for v in f16_out):
        return 0
    changed = _promote_graph(g)
    used = {o for n in g.node for o in (*n.input, *n.output)} | {v.name for v in g.input} | inits
    head: list[onnx.NodeProto] = []
    renamed: dict[str, str] = {}
    for v in g.input:
        if v.name not in inits and _is_f16(v):
            renamed[v.name] = _fresh(used, f"{v.name}__f32")
            head.append(helper.make_node("Cast", [v.name], [renamed[v.name]], to=F32))
    for v in f16_out:
        renamed[v.name] = _fresh(used, f"{v.name}__f32")
    _rename(g, renamed)
    tail = [helper.make_node("Cast", [renamed[v.name]], [v.name], to=v.type.tensor_type.elem_type) for v in f16_out]
    if not changed and not head and not tail:
        return 0
    nodes = [*head, *g.node, *tail]
    del g.node[:]
    g.node.extend(nodes)
    del g.value_info[:]  # shape inference writes them again, in f32
    return changed + len(head) + len(tail)


def _rename(g: onnx.GraphProto, renamed: dict[str, str]) -> None:
    """Node inputs and outputs renamed, subgraphs' reads of outer values included."""
    for n in g.node:
        for k, name in enumerate(n.input):
            n.input[k] = renamed.get(name, name)
        for k, name in enumerate(n.output):
            n.output[k] = renamed.get(name, name)
        for sub in subgraphs(n):
            _rename(sub, renamed)


def _promote_graph(g: onnx.GraphProto) -> int:
    changed = 0
    for t in g.initializer:
        if t.data_type in HALF:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float32), t.name))
            changed += 1
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type in HALF:
                a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float32), a.t.name))
                changed += 1
            elif a.name == _TYPE_ATTRS.get(n.op_type) and a.type == onnx.AttributeProto.INT and a.i in HALF:
                a.i = F32
                changed += 1
        changed += sum(_promote_graph(s) + _promote_values(s) for s in subgraphs(n))
    return changed


def _promote_values(g: onnx.GraphProto) -> int:
    """A subgraph's declared inputs and outputs (its interface is internal to the model)."""
    n = 0
    for v in [*g.input, *g.output, *g.value_info]:
        if _is_f16(v):
            v.type.tensor_type.elem_type = F32
            n += 1
    return n


def _is_f16(v: onnx.ValueInfoProto) -> bool:
    return v.type.HasField("tensor_type") and v.type.tensor_type.elem_type in HALF


def _fresh(used: set[str], base: str) -> str:
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}{k}"
    used.add(name)
    return name
