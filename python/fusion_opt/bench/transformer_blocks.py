"""Transformer building blocks as ONNX graphs (opset 17, static shapes, seeded random weights).

The ops are spelled the way PyTorch/BERT exporters spell them (GELU as Div/Erf/Add/Mul/Mul, LayerNorm as
ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add), because those are the patterns the fusion planner has to
recognise in real exports, not the fused ONNX ops that no exporter emits at opset 17.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


class _Graph:
    """Small builder: unique value names, initializers from numpy, seeded weights."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, hint: str, value: np.ndarray) -> str:
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), n))
        return n

    def scalar(self, value: float) -> str:
        return self.const("c", np.array(value, dtype=np.float32))

    def shape(self, dims: list[int]) -> str:
        return self.const("shape", np.array(dims, dtype=np.int64))

    def op(self, op_type: str, *inputs: str, **attrs: object) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=out, **attrs))
        return out

    def normal(self, *shape: int, std: float) -> np.ndarray:
        return (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    # -- layers -----------------------------------------------------------------------------------------
    def linear(self, x: str, k: int, n: int) -> str:
        """MatMul + Add with weights N(0, 1/k) so activations keep unit variance."""
        w = self.const("weight", self.normal(k, n, std=1.0 / math.sqrt(k)))
        b = self.const("bias", self.normal(n, std=0.02))
        return self.op("Add", self.op("MatMul", x, w), b)

    def gelu(self, x: str) -> str:
        """Exact (erf) GELU as BERT exports it: x * (1 + erf(x / sqrt 2)) * 0.5."""
        e = self.op("Erf", self.op("Div", x, self.scalar(math.sqrt(2.0))))
        return self.op("Mul", self.op("Mul", x, self.op("Add", e, self.scalar(1.0))), self.scalar(0.5))

    def layernorm(self, x: str, width: int, eps: float = 1e-12) -> str:
        """Decomposed LayerNorm over the last axis (the form in HuggingFace BERT exports)."""
        mean = self.op("ReduceMean", x, axes=[-1], keepdims=1)
        d = self.op("Sub", x, mean)
        var = self.op("ReduceMean", self.op("Pow", d, self.scalar(2.0)), axes=[-1], keepdims=1)
        std = self.op("Sqrt", self.op("Add", var, self.scalar(eps)))
        gamma = self.const("ln_gamma", (1.0 + self.normal(width, std=0.1)).astype(np.float32))
        beta = self.const("ln_beta", self.normal(width, std=0.1))
        return self.op("Add", self.op("Mul", self.op("Div", d, std), gamma), beta)

    def attention(self, x: str, seq: int, hidden: int, heads: int) -> str:
        """Multi-head self-attention: projections, heads split, softmax(QK^T/sqrt d) V, output projection."""
        dh = hidden // heads
        split = self.shape([1, seq, heads, dh])
        q = self.op("Transpose", self.op("Reshape", self.linear(x, hidden, hidden), split), perm=[0, 2, 1, 3])
        k = self.op("Transpose", self.op("Reshape", self.linear(x, hidden, hidden), split), perm=[0, 2, 3, 1])
        v = self.op("Transpose", self.op("Reshape", self.linear(x, hidden, hidden), split), perm=[0, 2, 1, 3])
        scores = self.op("Div", self.op("MatMul", q, k), self.scalar(math.sqrt(dh)))
        ctx = self.op("MatMul", self.op("Softmax", scores, axis=-1), v)
        merged = self.op("Reshape", self.op("Transpose", ctx, perm=[0, 2, 1, 3]), self.shape([1, seq, hidden]))
        return self.linear(merged, hidden, hidden)

    def model(self, name: str, x_shape: list[int], x: str, y: str, y_shape: list[int]) -> onnx.ModelProto:
        self.nodes.append(helper.make_node("Identity", [y], ["output"], name="output"))
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(x, TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, y_shape)],
            initializer=self.inits,
        )
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="fusion-opt.bench")
        m.ir_version = IR_VERSION
        return m


def mlp_gelu(rng: np.random.Generator, batch: int = 128, width: int = 768, ffn: int = 3072) -> onnx.ModelProto:
    g = _Graph(rng)
    y = g.linear(g.gelu(g.linear("input", width, ffn)), ffn, width)
    return g.model("mlp_gelu", [batch, width], "input", y, [batch, width])


def layernorm(rng: np.random.Generator, batch: int = 8, seq: int = 128, width: int = 768) -> onnx.ModelProto:
    g = _Graph(rng)
    y = g.layernorm("input", width)
    return g.model("layernorm", [batch, seq, width], "input", y, [batch, seq, width])


def attention(rng: np.random.Generator, seq: int = 128, hidden: int = 256, heads: int = 4) -> onnx.ModelProto:
    g = _Graph(rng)
    y = g.attention("input", seq, hidden, heads)
    return g.model("attention", [1, seq, hidden], "input", y, [1, seq, hidden])


def bert_layer(rng: np.random.Generator, seq: int = 128, hidden: int = 768, heads: int = 12,
               ffn: int = 3072) -> onnx.ModelProto:
    """One post-LN BERT encoder layer: LN(x + Attn(x)), then LN(h + FFN(h)) with a GELU FFN."""
    g = _Graph(rng)
    h = g.layernorm(g.op("Add", "input", g.attention("input", seq, hidden, heads)), hidden)
    f = g.linear(g.gelu(g.linear(h, hidden, ffn)), ffn, hidden)
    y = g.layernorm(g.op("Add", h, f), hidden)
    return g.model("bert_layer", [1, seq, hidden], "input", y, [1, seq, hidden])


def mlp4(rng: np.random.Generator, batch: int = 128, width: int = 1024, layers: int = 4) -> onnx.ModelProto:
    """Plain MLP: (MatMul + Add + Relu) x (layers - 1), then a final MatMul + Add."""
    g = _Graph(rng)
    x = "input"
    for i in range(layers):
        # He-scaled weights behind a ReLU keep the activations O(1) through the stack.
        w = g.const("weight", g.normal(width, width, std=math.sqrt((2.0 if i else 1.0) / width)))
        x = g.op("Add", g.op("MatMul", x, w), g.const("bias", g.normal(width, std=0.02)))
        if i + 1 < layers:
            x = g.op("Relu", x)
    return g.model("mlp4", [batch, width], "input", x, [batch, width])


BUILDERS: dict[str, Callable[[np.random.Generator], onnx.ModelProto]] = {
    "mlp_gelu": mlp_gelu,
    "layernorm": layernorm,
    "attention": attention,
    "bert_layer": bert_layer,
    "mlp4": mlp4,
}
