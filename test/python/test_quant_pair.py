"""QuantizeLinear -> DequantizeLinear pairs as one elementwise op (rewrites/quant_pair.py): fewer dispatches,
the same numbers (the same scalar ops in the same order)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo


def _qdq_model():
    """Conv -> Relu -> Q/DQ, a second branch Q/DQ, Concat -> Q/DQ -> 1x1 Conv: QDQ as onnxruntime writes it
    (uint8 activations, int8 weights dequantized)."""
    rng = np.random.default_rng(0)
    w1 = rng.integers(-127, 128, (8, 4, 3, 3)).astype(np.int8)
    w2 = rng.integers(-127, 128, (6, 16, 1, 1)).astype(np.int8)
    inits = [numpy_helper.from_array(w1, "w1q"), numpy_helper.from_array(w2, "w2q"),
             numpy_helper.from_array(np.float32(0.02), "ws"), numpy_helper.from_array(np.float32(0.05), "s"),
             numpy_helper.from_array(np.uint8(3), "z"), numpy_helper.from_array(np.float32(0.1), "s2"),
             numpy_helper.from_array(np.uint8(0), "z2")]
    n = helper.make_node
    nodes = [n("DequantizeLinear", ["w1q", "ws"], ["w1"]), n("DequantizeLinear", ["w2q", "ws"], ["w2"]),
             n("QuantizeLinear", ["x", "s", "z"], ["xq"]), n("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             n("Conv", ["xd", "w1"], ["c1"], pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"]),
             n("QuantizeLinear", ["r1", "s2", "z2"], ["r1q"]), n("DequantizeLinear", ["r1q", "s2", "z2"], ["r1d"]),
             n("Sigmoid", ["r1d"], ["g"]),
             n("QuantizeLinear", ["g", "s", "z"], ["gq"]), n("DequantizeLinear", ["gq", "s", "z"], ["gd"]),
             n("Concat", ["r1d", "gd"], ["cat"], axis=1),
             n("QuantizeLinear", ["cat", "s2", "z2"], ["catq"]), n("DequantizeLinear", ["catq", "s2", "z2"], ["catd"]),
             n("Conv", ["catd", "w2"], ["y"])]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 12, 12])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_qdq_pairs_fold_without_changing_results():
    model = _qdq_model()
    x = np.random.default_rng(1).standard_normal((1, 4, 12, 12)).astype(np.float32)
    folded = fo.compile_onnx(model)
    kept = fo.compile_onnx(model, disable_patterns=["quant-pair"])
    assert dict(folded.plan.patterns).get("quant-pair") == 4
    assert folded.dispatch_count < kept.dispatch_count
    np.testing.assert_array_equal(np.asarray(folded(x)), np.asarray(kept(x)))
    ort = pytest.importorskip("onnxruntime")
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(np.asarray(folded(x)), want, rtol=1e-5, atol=1e-4)
