"""importers/onnx_dft.py: DFT and STFT (no importer lowering) as matmuls by constant cosine / sine tables,
through compile_onnx against onnx's reference evaluator (numpy's FFT) in every mode."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import fusion_opt as fo
from fusion_opt.importers.onnx_dft import MAX_TABLE, tables

RNG = np.random.default_rng(7)


def _run(node, x: np.ndarray, inits: list, opset: int, dtype: int = TensorProto.FLOAT) -> tuple[np.ndarray, np.ndarray]:
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", dtype, list(x.shape))],
                          [helper.make_tensor_value_info("y", dtype, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    want = ReferenceEvaluator(m).run(None, {"x": x})[0]
    return fo.compile_onnx(m)(x), want


def _i64(name: str, v: int):
    return numpy_helper.from_array(np.array(v, np.int64), name)


@pytest.mark.parametrize("shape,attrs,length", [
    ([2, 12, 5, 1], dict(axis=1), None),                       # real signal, axis moved last and back
    ([2, 12, 5, 1], dict(axis=1, onesided=1), None),           # rfft: 7 bins
    ([3, 6, 10, 2], dict(axis=2), 16),                         # complex, zero-padded to 16
    ([3, 6, 10, 2], dict(axis=2, inverse=1), 8),               # inverse, truncated to 8
    ([1, 7, 5, 2], dict(axis=1, inverse=1, onesided=1), None),  # irfft: 12 real samples
    ([1, 7, 5, 2], dict(axis=1, inverse=1, onesided=1), 11),    # irfft of odd length
])
def test_dft_opset17_matches_numpy(shape: list[int], attrs: dict, length: int | None) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    ins, inits = ["x"], []
    if length is not None:
        ins.append("n")
        inits.append(_i64("n", length))
    got, want = _run(helper.make_node("DFT", ins, ["y"], **attrs), x, inits, 17)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5 * max(shape))


def test_dft_opset20_axis_input_and_float64() -> None:
    """Opset 20 takes the axis as an input (an initializer here); f64 stays f64."""
    x = RNG.standard_normal([4, 9, 2]).astype(np.float64)
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"])
    got, want = _run(node, x, [_i64("axis", -2)], 20, TensorProto.DOUBLE)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("window", [False, True])
def test_stft_frames_windows_and_transforms(window: bool) -> None:
    x = RNG.standard_normal([2, 100, 1]).astype(np.float32)
    inits = [_i64("step", 10)]
    ins = ["x", "step"]
    if window:
        w = np.hanning(16).astype(np.float32)
        inits.append(numpy_helper.from_array(w, "w"))
        ins.append("w")
    else:
        inits.append(_i64("len", 16))
        ins += ["", "len"]
    got, want = _run(helper.make_node("STFT", ins, ["y"]), x, inits, 17)
    assert got.shape == want.shape == (2, 9, 9, 2)  # 1 + (100 - 16) // 10 frames, one-sided bins
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_tables_are_bounded_and_exact_in_phase() -> None:
    a, b, chans = tables(3, 2**20, False, False)
    assert chans == 2 and a.shape == (3, 2**20) and a.size <= MAX_TABLE
    k = 2**20 - 1  # t * k mod length keeps the angle exact where t * k itself would lose bits
    assert abs(a[2, k] - np.cos(2 * np.pi * ((2 * k) % 2**20) / 2**20)) < 1e-15
