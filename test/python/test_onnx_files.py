"""ONNX files as users have them, through the CLI and the API: a graph with no name (IREE's module had an
export with no name: "exports[0] missing local_name" at load), weights in an external data file next to the
model (the CLI parsed the bytes and handed a copy to the import child in a temporary directory, where the
external file is not)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo

RNG = np.random.default_rng(3)


def _mlp(name: str) -> onnx.ModelProto:
    w = numpy_helper.from_array(RNG.standard_normal((64, 32)).astype(np.float32), "w")
    b = numpy_helper.from_array(RNG.standard_normal(32).astype(np.float32), "b")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["a"]),
                           helper.make_node("Relu", ["a"], ["y"])], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 32])], [w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("fusion-opt")
    return subprocess.run([str(exe), *args], capture_output=True, text=True)


def _check(path: Path, model: onnx.ModelProto, tmp_path: Path) -> None:
    x = RNG.standard_normal((8, 64)).astype(np.float32)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(fo.compile_onnx(path)(x), want, rtol=1e-5, atol=1e-5)
    out = tmp_path / "m.vmfb"
    r = _cli(str(path), "--emit=vmfb", "-o", str(out))
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr


def test_graph_without_a_name(tmp_path: Path) -> None:
    model = _mlp("")
    path = tmp_path / "noname.onnx"
    onnx.save(model, path)
    _check(path, model, tmp_path)
    assert "func.func @main(" in _cli(str(path), "--emit=linalg").stdout


def test_weights_in_an_external_data_file(tmp_path: Path) -> None:
    model = _mlp("ext")
    path = tmp_path / "ext.onnx"
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="ext.weights",
              size_threshold=0)
    assert (tmp_path / "ext.weights").exists()
    _check(path, onnx.load(str(path)), tmp_path)  # saving moved the weights out of `model`
