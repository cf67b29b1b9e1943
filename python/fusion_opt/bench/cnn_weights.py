"""Real-weight versions of the CNNs that ship with the onnx package (`onnx/backend/test/data/light`).

The shipped models carry every weight as `ConstantOfShape(0.02)` (plus a few small float initializers). IREE
constant-folds those splats, so the compiled model does not do the real work and benchmarks are meaningless. We keep
the graph as it is (opset 9; the compiler's importer upgrades it) and replace every float weight by seeded random
values of the same shape, chosen so activations stay O(1) through the depth:
  * Conv/Gemm weights: N(0, gain / fan_in) with gain 2 behind a ReLU (He), 1 otherwise;
  * BatchNorm: scale ~ U(0.5, 1.5), bias and mean ~ N(0, 0.1^2), var ~ U(0.5, 1.5); the Caffe-style Scale layers
    (Unsqueeze -> Mul/Add after a BN) get the same scale/shift laws;
  * the last BN of a residual branch (its output feeds Sum/Add with another activation) is scaled down by
    RESIDUAL_GAIN, so ResNet/ShuffleNet do not double their variance at every block;
  * biases ~ N(0, 0.02^2).
Finally `calibrate_logits` rescales the classifier so the logits have a fixed std, making the softmax neither
one-hot nor uniform (either would hide numerical errors in a comparison).
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

# suite name -> file stem in onnx/backend/test/data/light
LIGHT_MODELS = {
    "resnet50": "resnet50", "squeezenet": "squeezenet", "densenet121": "densenet121",
    "inception_v2": "inception_v2", "shufflenet": "shufflenet", "vgg19": "vgg19",
    "inception_v1": "inception_v1", "alexnet": "bvlc_alexnet", "zfnet512": "zfnet512",
}
RESIDUAL_GAIN = 0.4
LOGIT_STD = 2.0
# Ops that carry "this is a ReLU output" through, and through which the classifier is found from the output.
_PASS_THROUGH = {"MaxPool", "AveragePool", "GlobalAveragePool", "Reshape", "Flatten", "Transpose", "Dropout",
                 "Concat", "LRN", "Identity", "Relu"}


def light_path(name: str) -> Path:
    """Path of the shipped opset-9 model for a suite name."""
    return Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / f"light_{LIGHT_MODELS[name]}.onnx"


class _Reweighter:
    def __init__(self, model: onnx.ModelProto, rng: np.random.Generator) -> None:
        self.m = model
        self.rng = rng
        g = model.graph
        self.inits = {i.name: i for i in g.initializer}
        self.producer = {o: n for n in g.node for o in n.output}
        self.consumers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
        for n in g.node:
            for x in n.input:
                self.consumers[x].append(n)
        self.shapes: dict[str, tuple[int, ...]] = {}
        for n in g.node:
            if n.op_type == "ConstantOfShape" and n.input[0] in self.inits:
                self.shapes[n.output[0]] = tuple(int(d) for d in numpy_helper.to_array(self.inits[n.input[0]]))
        for i in g.initializer:
            if i.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16):
                self.shapes[i.name] = tuple(i.dims)
        self._relu_memo: dict[str, bool] = {}

    def after_relu(self, t: str) -> bool:
        """Whether a tensor is (a pooled/reshaped/concatenated view of) ReLU outputs: picks the He gain."""
        if t not in self._relu_memo:
            p = self.producer.get(t)
            if p is None or p.op_type not in _PASS_THROUGH:
                self._relu_memo[t] = False
            elif p.op_type == "Relu":
                self._relu_memo[t] = True
            else:
                ins = list(p.input) if p.op_type == "Concat" else [p.input[0]]
                self._relu_memo[t] = all(self.after_relu(i) for i in ins)
        return self._relu_memo[t]

    def residual_end(self, t: str) -> bool:
        """Whether a BN output feeds a residual sum (Sum/Add of two activations)."""
        return any(c.op_type in ("Sum", "Add") and all(x not in self.shapes for x in c.input)
                   for c in self.consumers[t])

    def value(self, name: str) -> np.ndarray:
        shape = self.shapes[name]
        r = self.rng
        uniform = lambda: r.uniform(0.5, 1.5, shape).astype(np.float32)  # noqa: E731
        normal = lambda s: (r.standard_normal(shape, dtype=np.float32) * np.float32(s))  # noqa: E731
        for c in self.consumers[name]:
            if c.op_type == "Unsqueeze":  # Caffe Scale layer: x * unsqueeze(w) + unsqueeze(b)
                kinds = {cc.op_type for cc in self.consumers[c.output[0]]}
                return uniform() if "Mul" in kinds else normal(0.1)
            idx = list(c.input).index(name)
            if c.op_type in ("Conv", "Gemm") and idx == 1:
                gain = 2.0 if self.after_relu(c.input[0]) else 1.0
                trans_b = any(a.name == "transB" and a.i for a in c.attribute)
                fan_in = (math.prod(shape[1:]) if c.op_type == "Conv" or trans_b else shape[0])
                return normal(math.sqrt(gain / fan_in))
            if c.op_type in ("Conv", "Gemm") and idx == 2:
                return normal(0.02)
            if c.op_type == "BatchNormalization":
                if idx == 1:
                    s = uniform()
                    return s * np.float32(RESIDUAL_GAIN) if self.residual_end(c.output[0]) else s
                return uniform() if idx == 4 else normal(0.1)
        return normal(0.1)

    def run(self) -> onnx.ModelProto:
        g = self.m.graph
        new_inits: list[onnx.TensorProto] = []
        done: set[str] = set()
        nodes = [n for n in g.node if not (n.op_type == "ConstantOfShape" and n.output[0] in self.shapes)]
        for n in nodes:  # graph order: deterministic draw order
            for x in n.input:
                if x in done:
                    continue
                done.add(x)
                if x in self.shapes:
                    new_inits.append(numpy_helper.from_array(self.value(x), x))
                elif x in self.inits:
                    new_inits.append(self.inits[x])  # int64 shapes for Reshape etc.
        weights = {i.name for i in new_inits}
        inputs = [i for i in g.input if i.name not in weights and i.name not in self.inits]
        del g.node[:], g.initializer[:], g.input[:]
        g.node.extend(nodes)
        g.initializer.extend(new_inits)
        g.input.extend(inputs)
        self.m.ir_version = max(self.m.ir_version, 4)  # IR >= 4: initializers need not be graph inputs
        return self.m


def reweight(model: onnx.ModelProto, rng: np.random.Generator) -> onnx.ModelProto:
    """Return a copy of `model` whose splat/placeholder float weights are seeded random tensors."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    return _Reweighter(m, rng).run()


def _classifier(model: onnx.ModelProto) -> tuple[str, onnx.NodeProto | None]:
    """The logits tensor (Softmax input, else the graph output) and the Conv/Gemm that produces it."""
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    logits = g.output[0].name
    p = producer.get(logits)
    if p is not None and p.op_type == "Softmax":
        logits = p.input[0]
    t = logits
    while (p := producer.get(t)) is not None and p.op_type in _PASS_THROUGH - {"Concat"}:
        t = p.input[0]  # every pass-through op here is positively homogeneous: scaling commutes
    return logits, p if p is not None and p.op_type in ("Conv", "Gemm") else None


def calibrate_logits(model: onnx.ModelProto, inputs: dict[str, np.ndarray],
                     run: Callable[[onnx.ModelProto, dict[str, np.ndarray]], list[np.ndarray]]) -> float:
    """Scale the classifier in place so the logits std is LOGIT_STD; returns the std before scaling."""
    logits, node = _classifier(model)
    if node is None:
        return float("nan")
    outputs = model.graph.output
    probing = logits != outputs[0].name
    if probing:  # expose the logits in place (no copy: VGG-19 is 575 MB), and take them away again
        outputs.insert(0, onnx.helper.make_tensor_value_info(logits, onnx.TensorProto.FLOAT, None))
    try:
        std = float(np.std(run(model, inputs)[0]))
    finally:
        if probing:
            del outputs[0]
    if not math.isfinite(std) or std == 0.0:
        raise ValueError(f"degenerate logits (std={std}) in {model.graph.name}")
    factor = np.float32(LOGIT_STD / std)
    inits = {i.name: i for i in model.graph.initializer}
    for name in node.input[1:3]:
        if name in inits:
            inits[name].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(inits[name]) * factor, name))
    return std
