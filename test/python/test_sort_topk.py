"""ONNX TopK as IREE's top-k op instead of a full sort (rewrites/sort_topk.py): the same values and
indices as onnxruntime, ties and infinities included."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo


def _topk_model(shape: tuple[int, ...], k: int, axis: int, largest: int):
    """y = x * 1 (so the sort's input is computed), TopK over `axis`; both outputs returned."""
    out = list(shape)
    out[axis] = k
    n = helper.make_node
    g = helper.make_graph(
        [n("Mul", ["x", "one"], ["m"]), n("TopK", ["m", "k"], ["v", "i"], axis=axis, largest=largest)], "topk",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("v", TensorProto.FLOAT, out), helper.make_tensor_value_info("i", TensorProto.INT64, out)],
        [numpy_helper.from_array(np.array([k], np.int64), "k"), numpy_helper.from_array(np.float32(1.0), "one")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("shape,k,axis,largest", [((2, 16, 64), 8, 2, 1), ((2, 16, 64), 5, 2, 0),
                                                   ((3, 40, 6), 7, 1, 1), ((100,), 1, 0, 1)])
def test_topk_matches_onnxruntime_with_ties_and_infinities(shape, k, axis, largest):
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(0)
    x = rng.integers(-4, 5, shape).astype(np.float32)          # many ties
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, flat.size // 5, replace=False)] = -np.inf if largest else np.inf  # masked entries
    x = flat.reshape(shape)
    model = _topk_model(shape, k, axis, largest)
    m = fo.compile_onnx(model)
    assert dict(m.plan.patterns).get("sort-topk") == 1
    v, i = (np.asarray(a) for a in m(x))
    rv, ri = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    np.testing.assert_array_equal(v, rv)
    np.testing.assert_array_equal(i, ri)
    off = fo.compile_onnx(model, disable_patterns=["sort-topk"])
    ov, oi = (np.asarray(a) for a in off(x))
    np.testing.assert_array_equal(i, oi)


def test_rows_that_are_mostly_masked():
    """A row with fewer finite entries than k: the masked entries' own indices, in order (an initial
    value of -inf with a strict comparator would report index 0 for them)."""
    ort = pytest.importorskip("onnxruntime")
    x = np.full((2, 12), -np.inf, np.float32)
    x[0, 5], x[1, 9], x[1, 2] = 1.0, 3.0, 2.0
    model = _topk_model((2, 12), 4, 1, 1)
    v, i = (np.asarray(a) for a in fo.compile_onnx(model)(x))
    rv, ri = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    np.testing.assert_array_equal(v, rv)
    np.testing.assert_array_equal(i, ri)
