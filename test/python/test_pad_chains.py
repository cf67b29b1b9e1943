"""A pad of a pad (importers/pad_chains.py): ONNX's explicit Pad before a ceil-mode max pool failed to compile
in every mode, IREE's own formation included ("write affecting operations on global resources are restricted
to workgroup distributed contexts"); folded into one pad (plus a masked select where the values differ) it
compiles and matches onnxruntime."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper as oh, numpy_helper

import fusion_opt as fo


def _conv_pad_pool(value: float) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((24, 16, 3, 3)) * 0.2).astype(np.float32), "w")
    pads = numpy_helper.from_array(np.array([0, 0, 0, 1, 0, 0, 1, 2], np.int64), "pads")
    v = numpy_helper.from_array(np.array(value, np.float32), "v")
    nodes = [oh.make_node("Conv", ["x", "w"], ["c"], strides=[1, 2], pads=[1, 1, 1, 1]),
             oh.make_node("Pad", ["c", "pads", "v"], ["p"]),
             oh.make_node("MaxPool", ["p"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 16, 40, 40])],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [w, pads, v])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])


@pytest.mark.parametrize("value", [0.5, 0.0])
@pytest.mark.parametrize("fusion", ["cost", "iree"])
def test_pad_before_ceil_mode_pool_compiles_and_matches(value: float, fusion: str) -> None:
    ort = pytest.importorskip("onnxruntime")
    model = _conv_pad_pool(value)
    x = np.random.default_rng(1).standard_normal((1, 16, 40, 40)).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    m = fo.compile_onnx(model, fusion=fusion)
    assert not m.fallbacks
    np.testing.assert_allclose(np.asarray(m(x)), ref, rtol=1e-4, atol=1e-4)
