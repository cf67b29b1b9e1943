"""Innermost-dim concats of slices of one tensor as one gathering op (rewrites/slice_concat.py): rotary
embeddings' rotate_half in one dispatch with its multiply-add, the same numbers."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo


def _rope_model(pieces: list[tuple[int, int, bool]], axis: int = -1):
    """q = x @ w, heads split and transposed, then q * cos + cat(pieces) * sin, where each piece is
    (start, end, negate) of q along `axis` (rotate_half: [(4, 8, True), (0, 4, False)])."""
    rng = np.random.default_rng(0)
    T, H, D = 6, 2, 8
    inits = [numpy_helper.from_array(rng.standard_normal((16, H * D)).astype(np.float32), "w"),
             numpy_helper.from_array(np.array([1, T, H, D], np.int64), "shape"),
             numpy_helper.from_array(np.cos(rng.standard_normal((T, D))).astype(np.float32), "cos"),
             numpy_helper.from_array(np.sin(rng.standard_normal((T, D))).astype(np.float32), "sin")]
    n = helper.make_node
    nodes = [n("MatMul", ["x", "w"], ["p"]), n("Reshape", ["p", "shape"], ["r"]),
             n("Transpose", ["r"], ["q"], perm=[0, 2, 1, 3]), n("Mul", ["q", "cos"], ["qc"])]
    names = []
    for k, (a, b, neg) in enumerate(pieces):
        inits += [numpy_helper.from_array(np.array([a], np.int64), f"a{k}"),
                  numpy_helper.from_array(np.array([b], np.int64), f"b{k}"),
                  numpy_helper.from_array(np.array([axis], np.int64), f"ax{k}")]
        nodes.append(n("Slice", ["q", f"a{k}", f"b{k}", f"ax{k}"], [f"s{k}"]))
        if neg:
            nodes.append(n("Neg", [f"s{k}"], [f"n{k}"]))
        names.append(f"n{k}" if neg else f"s{k}")
    nodes += [n("Concat", names, ["rot"], axis=axis), n("Mul", ["rot", "sin"], ["rs"]), n("Add", ["qc", "rs"], ["y"])]
    g = helper.make_graph(nodes, "rope", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, T, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, H, T, D])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _reference(model, x):
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


@pytest.mark.parametrize("pieces", [[(4, 8, True), (0, 4, False)],                    # rotate_half
                                    [(0, 4, False), (4, 8, True)],                    # in order, one negated
                                    [(6, 8, False), (0, 2, True), (2, 6, False)]],    # unequal: not taken
                         ids=["rotate-half", "in-order", "unequal"])
def test_rotate_half_is_one_op_with_the_same_numbers(pieces):
    model = _rope_model(pieces)
    x = np.random.default_rng(1).standard_normal((1, 6, 16)).astype(np.float32)
    on = fo.compile_onnx(model)
    off = fo.compile_onnx(model, disable_patterns=["slice-concat"])
    equal = len({b - a for a, b, _ in pieces}) == 1
    assert dict(on.plan.patterns).get("slice-concat", 0) == (1 if equal else 0)
    if equal:
        assert on.dispatch_count < off.dispatch_count, (on.dispatch_count, off.dispatch_count)
    np.testing.assert_array_equal(np.asarray(on(x)), np.asarray(off(x)))
    np.testing.assert_allclose(np.asarray(on(x)), _reference(model, x), rtol=1e-5, atol=1e-5)


def test_outer_dim_concat_is_left_to_iree():
    """Along an outer dim IREE writes each piece in place: no gather."""
    model = _rope_model([(1, 2, True), (0, 1, False)], axis=1)
    x = np.random.default_rng(2).standard_normal((1, 6, 16)).astype(np.float32)
    on = fo.compile_onnx(model)
    assert dict(on.plan.patterns).get("slice-concat", 0) == 0
    np.testing.assert_allclose(np.asarray(on(x)), _reference(model, x), rtol=1e-5, atol=1e-5)
