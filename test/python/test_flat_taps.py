"""Window taps over a padded 1x1 conv result read from a flat padded buffer (transforms/flat_taps.py): the
matmul's region stores into the flat buffer in place (no copy dispatch), and the column-masked flat
taps compute the padded pool exactly (IREE against numpy), for zero and -inf padding, symmetric and not; a
matmul group whose pad depthwise taps read is kept ours (handoff `padded`), written in place."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper as oh, numpy_helper

import fusion_opt as fo
from fusion_opt.backends.flow_ir import copy_dispatches

from ir_helpers import matmul_pool_mlir


@pytest.mark.parametrize("low, high, body, pad, last", [(1, 1, "arith.addf", "0.0", False),
                                                        (0, 2, "arith.maximumf", "0xFF800000", False),
                                                        (1, 1, "arith.maximumf", "0xFF800000", True)])
def test_flat_taps_no_copy_and_exact(low: int, high: int, body: str, pad: str, last: bool) -> None:
    """`last`: channels-last, the matmul's `[h*h, f]` split into `[h, h, f]` (the flat buffer pads dim 0)."""
    f, c, h = 16, 24, 20
    rng = np.random.default_rng(low + high)
    x = rng.standard_normal((c, h * h)).astype(np.float32)
    w1 = (rng.standard_normal((f, c)) * 0.3).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32) - 0.5
    text = matmul_pool_mlir(f, c, h, low, high, body, pad, channels_last=last)
    args = (np.ascontiguousarray(x.T), np.ascontiguousarray(w1.T), b) if last else (x, w1, b)
    ours = fo.compile_mlir(text)
    assert copy_dispatches(ours.artifact.sites) == 0, ours.report()
    y = np.maximum(w1.astype(np.float64) @ x + b[:, None], 0).reshape(f, h, h)
    fill = 0.0 if body == "arith.addf" else -np.inf
    padded = np.pad(y, ((0, 0), (low, high), (low, high)), constant_values=fill)
    taps = [padded[:, i:i + h + low + high - 2, j:j + h + low + high - 2] for i in range(3) for j in range(3)]
    ref = sum(taps) if body == "arith.addf" else np.maximum.reduce(taps)
    ref = ref.transpose(1, 2, 0) if last else ref
    np.testing.assert_allclose(np.asarray(ours(*args)), ref, rtol=1e-4, atol=1e-4)
    # without writing pads into regions (pattern pad-conv off) the pad is IREE's copy again
    plain = fo.compile_mlir(text, disable_patterns=("pad-conv",))
    assert copy_dispatches(plain.artifact.sites) == 1, plain.report()
    np.testing.assert_allclose(np.asarray(plain(*args)), ref, rtol=1e-4, atol=1e-4)


def _inverted_residual(c: int, e: int, h: int) -> onnx.ModelProto:
    """MobileNetV2's block: 1x1 expand + ReLU6, 3x3 depthwise (pad 1) + ReLU6, 1x1 project, residual add."""
    rng = np.random.default_rng(h)

    def w(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name)

    inits = [w("w1", e, c, 1, 1), w("b1", e), w("wd", e, 1, 3, 3), w("bd", e), w("w2", c, e, 1, 1), w("b2", c),
             numpy_helper.from_array(np.array(0, np.float32), "lo"), numpy_helper.from_array(np.array(6, np.float32), "hi")]
    nodes = [oh.make_node("Conv", ["x", "w1", "b1"], ["c1"]), oh.make_node("Clip", ["c1", "lo", "hi"], ["r1"]),
             oh.make_node("Conv", ["r1", "wd", "bd"], ["c2"], group=e, pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
             oh.make_node("Clip", ["c2", "lo", "hi"], ["r2"]), oh.make_node("Conv", ["r2", "w2", "b2"], ["c3"]),
             oh.make_node("Add", ["c3", "x"], ["y"])]
    io = [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [1, c, h, h]) for n in ("x", "y")]
    return oh.make_model(oh.make_graph(nodes, "block", io[:1], io[1:], inits), opset_imports=[oh.make_opsetid("", 17)])


def test_depthwise_after_matmul_keeps_the_matmul_group() -> None:
    """The expand conv's matmul group is not handed to IREE for its padded result (handoff `padded`): the
    depthwise taps read the pad's interior, so IREE's formation copied it into the padded buffer (4 dispatches,
    1 copy); our region stores into it in place (3 dispatches, no copy). Matches onnxruntime."""
    ort = pytest.importorskip("onnxruntime")
    model = _inverted_residual(16, 48, 28)
    m = fo.compile_onnx(model)
    assert copy_dispatches(m.artifact.sites) == 0 and len(m.artifact.sites) == 3, m.report()
    assert "its result is padded" not in m.report()
    x = np.random.default_rng(0).standard_normal((1, 16, 28, 28)).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    np.testing.assert_allclose(np.asarray(m(x)), ref, rtol=1e-4, atol=1e-4)
