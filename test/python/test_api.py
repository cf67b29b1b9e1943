"""The Python API on a small ONNX model: call, plan, report, save and reload, errors."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

import fusion_opt as fo
from fusion_opt.backends.runtime import load_file

INPUTS = Path(__file__).parents[1] / "lit" / "inputs"


def reference(x: np.ndarray) -> np.ndarray:
    m = onnx.load(str(INPUTS / "linear_relu.onnx"))
    w, b = (onnx.numpy_helper.to_array(t) for t in m.graph.initializer)
    return np.maximum(x @ w + b, 0)


@pytest.fixture(scope="module")
def model() -> fo.CompiledModel:
    return fo.compile_onnx(INPUTS / "linear_relu.onnx")


def test_call_plan_report(model: fo.CompiledModel) -> None:
    x = np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)
    np.testing.assert_allclose(model(x), reference(x), rtol=1e-5, atol=1e-5)
    assert model.input_names == ("x",) and model.output_names == ("y",)
    assert model.plan.strategy == "cost" and len(model.plan.groups) == 1
    assert model.dispatch_count == 1
    data = json.loads(model.report(format="json"))
    assert data["dispatch_count"] == 1 and data["functions"][0]["groups"][0]["kind"] == "contraction+epilogue"
    assert "1 IREE dispatches" in model.report()
    with pytest.raises(ValueError):
        model.report(format="yaml")


def test_save_and_reload(model: fo.CompiledModel, tmp_path: Path) -> None:
    path = model.save(tmp_path / "m.vmfb")
    x = np.ones((4, 16), np.float32)
    np.testing.assert_allclose(load_file(path)(x), model(x), rtol=0, atol=0)


def test_model_proto_and_modes() -> None:
    proto = onnx.load(str(INPUTS / "linear_relu.onnx"))
    x = np.ones((4, 16), np.float32)
    outs = {f: fo.compile_onnx(proto, fusion=f) for f in ("greedy", "none", "iree")}
    for f, m in outs.items():
        np.testing.assert_allclose(m(x), reference(x), rtol=1e-5, atol=1e-5, err_msg=f)
    assert outs["none"].dispatch_count >= outs["greedy"].dispatch_count


def test_errors_are_one_line() -> None:
    with pytest.raises(fo.InputError) as e:
        fo.compile_onnx(INPUTS / "truncated.onnx")
    assert "\n" not in str(e.value)
    with pytest.raises(fo.UnsupportedError, match="dynamic dimension 'N'"):
        fo.compile_onnx(INPUTS / "dynamic_batch.onnx")
    m = fo.compile_onnx(INPUTS / "dynamic_batch.onnx", input_shapes={"x": (4, 16)})
    with pytest.raises(fo.RuntimeFailure):
        m(np.ones((3, 16), np.float32))
    with pytest.raises(ValueError):
        fo.compile_onnx(INPUTS / "linear_relu.onnx", fusion="bogus")
