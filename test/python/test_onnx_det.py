"""`Det` with partial pivoting (importers/onnx_det.py): the importer's own lowering gave NaN for a matrix
whose leading entry is 0; these are numpy's (LAPACK's) determinants."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import fusion_opt as fo
from fusion_opt.importers.onnx_det import MAX_N, det
from fusion_opt.importers.onnx_legalize import _Graph


def _model(shape: list[int]):
    g = helper.make_graph([helper.make_node("Det", ["x"], ["y"], name="det0")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape[:-2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("x", [
    # a zero leading entry in every matrix: swaps of every kind, a singular matrix, all zeros, random
    np.array([[[0, -1, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 2], [0, 3, 0], [5, 0, 0]],
              [[0, 2, 3], [0, 4, 6], [1, 0, 1]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]], np.float32),
    np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32) * np.float32([0, 1, 1, 1, 1, 1]),
], ids=["3x3-cases", "batched-6x6"])
def test_det_pivots_and_matches_numpy(x: np.ndarray) -> None:
    got = fo.compile_onnx(_model(list(x.shape)))(x)
    want = np.linalg.det(x.astype(np.float64))
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_det_forms_left_to_the_importer() -> None:
    """Dynamic, non-square or larger than MAX_N: not rewritten."""
    for shape in ([MAX_N + 1, MAX_N + 1], [2, 3], ["n", 3, 3]):
        m = _model(shape)
        assert det(_Graph(m), m.graph.node[0]) is None
