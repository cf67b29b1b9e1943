"""importers/onnx_upgrade.py: old opsets upgraded with the meaning onnx's version converter drops,
checked against onnxruntime running the original (old-opset) model."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo

X = np.random.default_rng(0).standard_normal((1, 2, 5, 6)).astype(np.float32)


def _old_model(node: onnx.NodeProto, opset: int, inits: list[onnx.TensorProto] = ()) -> onnx.ModelProto:
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(X.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


def _matches_onnxruntime(m: onnx.ModelProto) -> None:
    ref = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": X})[0]
    np.testing.assert_allclose(fo.compile_onnx(m)(X), ref, rtol=1e-5, atol=1e-6)


def _scales(*s: float) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(s, np.float32), "sc")


@pytest.mark.parametrize("op,opset,mode,scales", [
    ("Upsample", 9, "linear", (1, 1, 2, 2)),      # was 0.95 off: sampled at half pixels
    ("Upsample", 9, "linear", (1, 1, 1.5, 2.5)),
    ("Upsample", 9, "nearest", (1, 1, 1.7, 2.3)),
    ("Resize", 10, "linear", (1, 1, 2, 1.5)),     # was 0.91 off
    ("Resize", 10, "linear", (1, 1, 0.6, 0.5)),   # was 1.2 off
    ("Resize", 10, "nearest", (1, 1, 1.7, 2.5)),  # upsampled axes truncate
    ("Resize", 10, "nearest", (1, 1, 0.6, 0.5)),  # downsampled ones round up
    ("Resize", 10, "nearest", (1, 1, 1.7, 0.6)),  # one of each: two Resizes
])
def test_old_resizes_sample_asymmetrically(op: str, opset: int, mode: str, scales: tuple[float, ...]) -> None:
    _matches_onnxruntime(_old_model(helper.make_node(op, ["x", "sc"], ["y"], mode=mode), opset, [_scales(*scales)]))


def test_upsample_7_scales_attribute() -> None:
    _matches_onnxruntime(_old_model(helper.make_node("Upsample", ["x"], ["y"], mode="linear", scales=[1.0, 1.0, 2.0, 2.0]), 7))


@pytest.mark.parametrize("axis", [0, 1, 2, 3])
def test_old_hardmax_is_over_the_flattened_trailing_dims(axis: int) -> None:
    """Axis 1 and 2 were wrong (or crashed the lowering), 0 was rejected."""
    _matches_onnxruntime(_old_model(helper.make_node("Hardmax", ["x"], ["y"], axis=axis), 11))


def test_a_model_at_the_importers_opset_is_untouched() -> None:
    from fusion_opt.importers.onnx_upgrade import upgrade

    m = _old_model(helper.make_node("Hardmax", ["x"], ["y"], axis=1), 17)
    assert upgrade(m, 17) is m


def test_a_conversion_that_changes_the_interface_is_refused() -> None:
    """onnx's version converter takes Scan-8's batch axis out of the graph inputs (1x2 -> 2): compiled, the
    model failed at its first call with a shape error; now one line at compile time names the input."""
    from fusion_opt.bench.conformance import run_case

    rec = run_case("node:test_scan_sum")
    assert rec["outcome"] == "rejected", rec
    assert "changed graph input 'initial' from 1x2 to 2" in rec["error"]
