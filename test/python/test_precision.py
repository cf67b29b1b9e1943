"""float16 models computed in float32 on CPU targets (importers/onnx_precision.py): the interface stays f16,
nothing inside is f16, the conv strategies apply, and the numbers are the f32 model's rounded to f16."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo
from fusion_opt.importers.onnx_precision import promote_f16


def _net(dtype=np.float16) -> onnx.ModelProto:
    """Conv 3x3 -> ConstantOfShape-fed Add -> Relu -> Cast(to f16) -> Conv 1x1, in `dtype`."""
    rng = np.random.default_rng(0)
    et = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    w1 = (rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(dtype)
    w2 = (rng.standard_normal((4, 16, 1, 1)) * 0.2).astype(dtype)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]),
             n("Constant", [], ["shape"], value=numpy_helper.from_array(np.array([1, 16, 14, 14], np.int64))),
             n("ConstantOfShape", ["shape"], ["bias"], value=numpy_helper.from_array(np.array([0.5], dtype))),
             n("Add", ["c", "bias"], ["a"]), n("Relu", ["a"], ["r"]), n("Cast", ["r"], ["rc"], to=et),
             n("Conv", ["rc", "w2"], ["y"])]
    g = helper.make_graph(nodes, "f16net", [helper.make_tensor_value_info("x", et, [1, 8, 14, 14])],
                          [helper.make_tensor_value_info("y", et, [1, 4, 14, 14])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_nothing_inside_stays_f16():
    m = _net()
    assert promote_f16(m) > 0
    inner = [nd for nd in m.graph.node if not (nd.op_type == "Cast" and ("x" in nd.input or "y" in nd.output))]
    assert all(a.i != TensorProto.FLOAT16 for nd in inner for a in nd.attribute if a.name == "to")
    assert all(t.data_type == TensorProto.FLOAT for t in m.graph.initializer)
    assert all(a.t.data_type != TensorProto.FLOAT16 for nd in m.graph.node for a in nd.attribute if a.t.dims)
    assert m.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT16
    assert m.graph.output[0].type.tensor_type.elem_type == TensorProto.FLOAT16
    onnx.checker.check_model(onnx.shape_inference.infer_shapes(m), full_check=True)
    assert promote_f16(_net(np.float32)) == 0


def test_f16_model_runs_the_f32_strategies_and_rounds_once():
    model = _net()
    x = np.random.default_rng(1).standard_normal((1, 8, 14, 14)).astype(np.float16)
    m = fo.compile_onnx(model)
    y = np.asarray(m(x))
    assert y.dtype == np.float16 and y.shape == (1, 4, 14, 14)
    assert {"conv-strategy", "winograd"} & set(dict(m.plan.patterns))   # f16 convs got no strategy
    # the f32 model on the same (f16-valued) weights and input, rounded to f16 once
    ref32 = fo.compile_onnx(_f32_twin(model))
    want = np.asarray(ref32(x.astype(np.float32))).astype(np.float16)
    np.testing.assert_array_equal(y, want)


def _f32_twin(model: onnx.ModelProto) -> onnx.ModelProto:
    twin = onnx.ModelProto()
    twin.CopyFrom(model)
    promote_f16(twin)
    for v in [*twin.graph.input, *twin.graph.output]:
        v.type.tensor_type.elem_type = TensorProto.FLOAT
    nodes = [nd for nd in twin.graph.node if not (nd.op_type == "Cast" and ("x" in nd.input or "y" in nd.output))]
    for nd in nodes:
        nd.input[:] = ["x" if i.startswith("x__f32") else i for i in nd.input]
        nd.output[:] = ["y" if o.startswith("y__f32") else o for o in nd.output]
    del twin.graph.node[:]
    twin.graph.node.extend(nodes)
    return twin


def test_gpu_targets_keep_f16(tmp_path: Path):
    path = tmp_path / "f16net.onnx"
    onnx.save(_net(), path)
    exe = Path(sys.executable).with_name("fusion-opt")
    for target, f16 in (("host", False), ("vulkan", True)):
        out = subprocess.run([str(exe), str(path), "--emit=linalg", f"--target={target}"], capture_output=True,
                             text=True, check=True).stdout
        assert ("16x8x3x3xf16>" in out) == f16, target      # the 3x3 conv's weights
        assert ("16x8x3x3xf32>" in out) != f16, target


def test_bf16_model_is_computed_in_f32_and_rounds_once():
    """bfloat16 likewise: no bf16 arithmetic on these CPUs; one rounding at the output (onnx's bf16
    Attention cases were a bf16 ulp off their f32 reference with bf16 computed op by op)."""
    import ml_dtypes
    model = _net(ml_dtypes.bfloat16)
    assert promote_f16(_net(ml_dtypes.bfloat16)) > 0
    x = np.random.default_rng(1).standard_normal((1, 8, 14, 14)).astype(ml_dtypes.bfloat16)
    y = np.asarray(fo.compile_onnx(model)(x))
    assert y.dtype == ml_dtypes.bfloat16 and y.shape == (1, 4, 14, 14)
    want = np.asarray(fo.compile_onnx(_f32_twin(model))(x.astype(np.float32))).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(y.astype(np.float32), want.astype(np.float32))
