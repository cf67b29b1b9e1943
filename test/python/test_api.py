"""The Python API on a small ONNX model: call, plan, report, save and reload, errors."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
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
    assert repr(model) == ("<CompiledModel (x) -> (y): fusion='cost' target='llvm-cpu', 1 groups, 1 dispatches>")


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


def test_graph_interfaces_onnxruntime_accepts() -> None:
    """Outputs that are inputs, initializers or also read inside, an unused input, bool and int64 values,
    and an empty (size-0) input, which was refused as a dynamic dimension '?'."""
    from onnx import TensorProto as T
    from onnx import helper, numpy_helper

    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Exp", ["r"], ["e"]),
             helper.make_node("Greater", ["r", "x"], ["b"]), helper.make_node("Add", ["i", "i"], ["j"])]
    g = helper.make_graph(nodes, "g", [vi("x", T.FLOAT, [2, 3]), vi("i", T.INT64, [4]), vi("unused", T.FLOAT, [5]),
                                       vi("empty", T.FLOAT, [0, 3])],
                          [vi("e", T.FLOAT, [2, 3]), vi("r", T.FLOAT, [2, 3]), vi("x", T.FLOAT, [2, 3]),
                           vi("w", T.FLOAT, [3]), vi("b", T.BOOL, [2, 3]), vi("j", T.INT64, [4]),
                           vi("empty", T.FLOAT, [0, 3])],
                          [numpy_helper.from_array(np.arange(3, dtype=np.float32), "w")])
    proto = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((2, 3)).astype(np.float32), "i": np.arange(4, dtype=np.int64),
             "unused": np.ones(5, np.float32), "empty": np.zeros((0, 3), np.float32)}
    refs = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    got = fo.compile_onnx(proto)(*feeds.values())
    assert len(got) == len(refs)
    for a, b in zip(got, refs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_sequence_input_is_named_as_such() -> None:
    """onnx's sequence and optional cases were refused as "has no shape", which sent users to --input-shape."""
    from onnx import TensorProto as T
    from onnx import helper

    seq = helper.make_tensor_sequence_value_info("s", T.FLOAT, [2])
    g = helper.make_graph([helper.make_node("SequenceLength", ["s"], ["n"])], "g", [seq],
                          [helper.make_tensor_value_info("n", T.INT64, [])])
    with pytest.raises(fo.UnsupportedError, match="graph input 's' is a sequence; only tensors are supported"):
        fo.compile_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))


def test_a_torch_op_without_lowering_is_named_not_printed() -> None:
    """Unique along an axis lowers to torch ops one of which (`aten.scatter.src`, marked illegal) has no
    Linalg lowering: the error names the op; the op's IR text (a page for an op with many operands, after
    "failed to legalize operation '...': ") is not in the message. (NegativeLogLikelihoodLoss and then
    DFT, the examples before, are now expanded or written as matmuls.)"""
    from onnx import TensorProto as T
    from onnx import helper

    outs = ["y", "indices", "inverse_indices", "counts"]
    node = helper.make_node("Unique", ["x"], outs, axis=1, sorted=1)  # onnx's test_unique_sorted_with_axis_3d
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", T.FLOAT, [2, 4, 2])],
                          [helper.make_tensor_value_info(o, T.FLOAT if o == "y" else T.INT64, None) for o in outs])
    with pytest.raises(fo.UnsupportedError) as e:
        fo.compile_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    msg = str(e.value)
    assert "failed to legalize operation 'torch.aten.scatter.src' " in msg, msg
    assert "!torch.vtensor" not in msg and len(msg.splitlines()) == 1


def test_local_functions_are_inlined_and_contrib_ops_named() -> None:
    """A model-local function (how torch's exporter can write a module) was "unsupported ONNX op
    'onnx.Gelu2'"; onnxruntime's com.microsoft ops (its QOperator quantization) were read as standard ops
    of the same name."""
    from onnx import TensorProto as T
    from onnx import helper

    fn = helper.make_function("my.dom", "Gelu2", ["x"], ["y"], [helper.make_node("Mul", ["x", "x"], ["t"]),
                              helper.make_node("Add", ["t", "x"], ["y"])], [helper.make_opsetid("", 17)])
    io = [helper.make_tensor_value_info("a", T.FLOAT, [4])], [helper.make_tensor_value_info("c", T.FLOAT, [4])]
    g = helper.make_graph([helper.make_node("Gelu2", ["a"], ["b"], domain="my.dom"),
                           helper.make_node("Relu", ["b"], ["c"])], "g", *io)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("my.dom", 1)],
                          functions=[fn])
    x = np.array([-2, -0.5, 0.5, 2], np.float32)
    np.testing.assert_allclose(fo.compile_onnx(m)(x), np.maximum(x * x + x, 0))
    g = helper.make_graph([helper.make_node("QLinearConcat", ["a"], ["c"], domain="com.microsoft")], "g", *io)
    ms = helper.make_opsetid("com.microsoft", 1)
    with pytest.raises(fo.UnsupportedError, match=r"the node computing 'c' is QLinearConcat, an op of domain "
                                                   r"'com.microsoft', not standard ONNX; it is not supported"):
        fo.compile_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), ms]))


def test_a_crash_in_the_importer_is_an_error_not_the_callers_death() -> None:
    """run_isolated: results, our own errors and C++ crashes of the stage, each as the caller should see them."""
    from fusion_opt.importers.isolate import run_isolated
    from fusion_opt.testhooks import isolated_stage

    assert run_isolated(isolated_stage, ("ok",), "stage", "m.onnx") == b"linalg"
    with pytest.raises(fo.InputError, match="bad initializer"):
        run_isolated(isolated_stage, ("refuse",), "stage", "m.onnx")
    with pytest.raises(fo.UnsupportedError, match=r"^m.onnx: error: stage crashed \(signal SIGSEGV\)"):
        run_isolated(isolated_stage, ("segfault",), "stage", "m.onnx")
    with pytest.raises(fo.UnsupportedError, match=r"SIGABRT: LLVM ERROR: out of memory"):
        run_isolated(isolated_stage, ("abort",), "stage", "m.onnx")


def _one_node(op: str, elem: int, shapes: list[list[int]], **attrs) -> onnx.ModelProto:
    from onnx import helper
    ins = [helper.make_tensor_value_info(f"x{k}", elem, s) for k, s in enumerate(shapes)]
    out = helper.make_tensor_value_info("y", elem, None)
    node = helper.make_node(op, [i.name for i in ins], ["y"], **attrs)
    return helper.make_model(helper.make_graph([node], "g", ins, [out]), opset_imports=[helper.make_opsetid("", 17)])


def test_types_the_importer_cannot_take_are_refused_and_f64_keeps_its_type() -> None:
    """Found by `fusion-bench conformance`: a UINT16 add aborted the process in torch-mlir; an f64 add
    aborted IREE (its f64 -> f32 demotion) once our regions were in the module."""
    with pytest.raises(fo.UnsupportedError, match="UINT16; unsigned integers wider than 8 bits"):
        fo.compile_onnx(_one_node("Add", onnx.TensorProto.UINT16, [[2, 3], [2, 3]]))
    m = fo.compile_onnx(_one_node("Add", onnx.TensorProto.DOUBLE, [[2, 3], [3]]))
    a, b = np.arange(6, dtype=np.float64).reshape(2, 3) / 7, np.array([1e-12, 2.0, 3.0])
    out = m(a, b)
    assert out.dtype == np.float64 and np.array_equal(out, a + b)


def test_the_depthtospace_expansion_that_crashed_torch_mlir_imports() -> None:
    """onnx's DepthToSpace expansion segfaulted convert-torch-to-linalg (also under IREE's iree-opt) on the
    reshapes it computes from `Shape`; with that shape arithmetic folded (importers/onnx_fold.py) it imports
    and matches. The crash path itself: test_a_crash_in_the_importer_is_an_error_not_the_callers_death."""
    from fusion_opt.bench.conformance import _node_cases  # onnx collects its cases once per process: share them

    case = _node_cases()["test_depthtospace_example_expanded"]
    (x,), (want,) = case.data_sets[0]
    np.testing.assert_array_equal(fo.compile_onnx(case.model)(x), want)


SCALARS = """
func.func @scalars(%x: tensor<8x8xf32>, %s: f32, %n: i32) -> (tensor<8x8xf32>, i32) {
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = linalg.elementwise <mul> ins(%x, %f : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = arith.muli %n, %n : i32
  return %y, %m : tensor<8x8xf32>, i32
}
"""


def test_scalar_arguments_and_results() -> None:
    """Non-tensor arguments go to IREE as numbers (a 0-d array was refused: "variant at index 1 is not a
    value type"), Python numbers are taken at the argument's type, and scalar results come back 0-d."""
    m = fo.compile_mlir(SCALARS)
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    for s, n in [(2.0, 3), (np.float32(2.0), np.int32(3)), (np.array(2.0, np.float32), 3)]:
        y, sq = m(x, s, n)
        np.testing.assert_array_equal(y, x * 2)
        assert sq.shape == () and sq.dtype == np.int32 and int(sq) == 9
    with pytest.raises(fo.FusionOptError, match="expected an integer"):
        m(x, 2.0, 3.5)


BRANCH = """
func.func @branch(%x: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %r = scf.if %c -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %y = linalg.elementwise <exp> ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %y : tensor<8xf32>
  } else {
    scf.yield %x : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""


def test_an_i1_argument_takes_a_bool() -> None:
    """IREE refuses a Python bool for an i1 ("could not convert python value to VM"): passed as 0 / 1."""
    m = fo.compile_mlir(BRANCH)
    x = np.linspace(0, 1, 8, dtype=np.float32)
    np.testing.assert_allclose(m(x, True), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(m(x, np.bool_(False)), x)


def test_bf16_inputs_are_ml_dtypes_arrays() -> None:
    """A bf16 argument takes an ml_dtypes bfloat16 array; any other dtype is refused with one line (it was
    IREE's multi-line buffer-view assertion)."""
    import ml_dtypes

    m = fo.compile_mlir("""
func.func @scale(%x: tensor<4xf32>, %y: tensor<4xbf16>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x, %y : tensor<4xf32>, tensor<4xbf16>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: bf16, %o: f32):
    %bb = arith.extf %b : bf16 to f32
    %s = arith.mulf %a, %bb : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}""")
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(m(x, np.full(4, 2.0, ml_dtypes.bfloat16)), 2 * x)
    with pytest.raises(fo.FusionOptError, match="expected dtype bfloat16, got float32"):
        m(x, np.full(4, 2.0, np.float32))
