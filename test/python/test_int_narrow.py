"""Integer matmuls narrowed to i16 x i16 -> i32 (rewrites/int_narrow.py), and quantized weights evaluated
at compile time (backends/levers.const_expr_flags): where they apply, and that results stay exact."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo
from fusion_opt.analysis.describe import describe_function
from fusion_opt.backends.levers import CONST_EXPR_THRESHOLD
from fusion_opt.importers.mlir_import import parse_mlir
from fusion_opt.ir import functions, new_session
from fusion_opt.rewrites.int_narrow import find

LIT = Path(__file__).resolve().parents[1] / "lit" / "patterns"


def _graphs(name: str):
    m = parse_mlir((LIT / name).read_text(), new_session().context, name)
    return [describe_function(f, name)[0] for f in functions(m)]


def test_found_only_where_exact():
    [narrow] = _graphs("int-matmul-narrow.mlir")
    assert [narrow.ops[i].name for i in find(narrow)] == ["linalg.matmul"]
    assert [find(g) for g in _graphs("int-matmul-narrow-kept.mlir")] == [[], []]


def test_narrowed_matmul_is_bitwise_exact_at_the_extremes():
    """u8 255 - zero point 0 times i8 -128 - zero point 127: the largest products (255 x -255), and
    random bytes; against numpy's int64 product truncated to int32 and the unnarrowed build."""
    text = (LIT / "int-matmul-narrow.mlir").read_text()
    ours, plain = fo.compile_mlir(text), fo.compile_mlir(text, disable_patterns=["int-matmul-narrow"])
    assert dict(ours.plan.patterns).get("int-matmul-narrow") == 1
    rng = np.random.default_rng(0)
    cases = [(np.full((16, 64), -1, np.int8), np.full((64, 32), -128, np.int8), np.int8(0), np.int8(127)),
             (rng.integers(-128, 128, (16, 64)).astype(np.int8), rng.integers(-128, 128, (64, 32)).astype(np.int8),
              np.int8(-3), np.int8(5))]
    for a, b, za, zb in cases:
        want = ((a.view(np.uint8).astype(np.int64) - np.int64(za.view(np.uint8)))
                @ (b.astype(np.int64) - np.int64(zb))).astype(np.int32)
        got = np.asarray(ours(a, b, np.array(za), np.array(zb)))
        assert got.dtype == np.int32 and np.array_equal(got, want)
        assert np.array_equal(np.asarray(plain(a, b, np.array(za), np.array(zb))), want)


def _mlp(k: int = 64, n: int = 48) -> onnx.ModelProto:
    rng = np.random.default_rng(1)
    w1, w2 = (rng.standard_normal(s).astype(np.float32) for s in ((k, n), (n, k)))
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, k])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_dynamically_quantized_mlp_matches_onnxruntime(tmp_path: Path):
    """onnxruntime's dynamic quantization (DynamicQuantizeLinear + MatMulInteger): both integer matmuls
    narrowed, the weights' zero-point subtraction evaluated at compile time, the numbers onnxruntime's
    own (unfused) kernels give."""
    ort = pytest.importorskip("onnxruntime")
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src, dst = tmp_path / "mlp.onnx", tmp_path / "mlp_int8.onnx"
    onnx.save(_mlp(), src)
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)
    assert "MatMulInteger" in {n.op_type for n in onnx.load(dst).graph.node}
    x = np.random.default_rng(2).standard_normal((8, 64)).astype(np.float32)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(str(dst), so, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    m = fo.compile_onnx(dst)
    assert dict(m.plan.patterns).get("int-matmul-narrow") == 2
    assert any(f.startswith(CONST_EXPR_THRESHOLD) for f in m.artifact.flags)
    np.testing.assert_allclose(np.asarray(m(x)), want, rtol=1e-5, atol=1e-5)


def test_dequantized_weights_are_evaluated_at_compile_time():
    """A QDQ conv (int8 weight -> DequantizeLinear -> Conv): the ONNX importer computes the f32 weight
    (importers/onnx_legalize.py), so no dequantize runs per call. In Linalg input (an i8 constant widened
    by an elementwise op feeding a matmul, 4x its bytes, past IREE's default size-increase limit) the
    const-expr threshold is raised so IREE evaluates it at compile time."""
    from fusion_opt.backends.levers import const_expr_flags

    rng = np.random.default_rng(3)
    wq = rng.integers(-127, 128, (256, 256, 3, 3)).astype(np.int8)        # 576 KiB int8, 2.25 MiB as f32
    nodes = [helper.make_node("DequantizeLinear", ["wq", "ws"], ["w"]),
             helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])]
    g = helper.make_graph(nodes, "qconv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 256, 8, 8])],
                          [numpy_helper.from_array(wq, "wq"), numpy_helper.from_array(np.float32(0.01), "ws")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m = fo.compile_onnx(model)
    assert not [s for s in m.artifact.sites if "DequantizeLinear" in s.loc]
    x = rng.standard_normal((1, 256, 8, 8)).astype(np.float32)
    ref = fo.compile_onnx(model, fusion="iree")
    np.testing.assert_allclose(np.asarray(m(x)), np.asarray(ref(x)), rtol=1e-4, atol=1e-4)

    text = """
    #id = affine_map<(d0, d1) -> (d0, d1)>
    func.func @dq_matmul(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
      %wq = arith.constant dense<3> : tensor<1024x1024xi8>
      %s = arith.constant 0.01 : f32
      %z = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<1024x1024xf32>
      %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%wq : tensor<1024x1024xi8>) outs(%e : tensor<1024x1024xf32>) {
      ^bb0(%a: i8, %o: f32):
        %f = arith.sitofp %a : i8 to f32
        %m = arith.mulf %f, %s : f32
        linalg.yield %m : f32
      } -> tensor<1024x1024xf32>
      %e2 = tensor.empty() : tensor<8x1024xf32>
      %i = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
      %y = linalg.matmul ins(%x, %w : tensor<8x1024xf32>, tensor<1024x1024xf32>) outs(%i : tensor<8x1024xf32>) -> tensor<8x1024xf32>
      return %y : tensor<8x1024xf32>
    }"""
    module = parse_mlir(text, new_session().context, "dq.mlir")
    graphs = [describe_function(f, "dq.mlir")[0] for f in functions(module)]
    assert const_expr_flags(graphs) == (f"{CONST_EXPR_THRESHOLD}={4 << 20}",)
    assert const_expr_flags(graphs, (f"{CONST_EXPR_THRESHOLD}=1",)) == ()


def test_i8_kept_on_vnni_hosts_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a CPU with VNNI a named i8 matmul into i32 is left as written and an i64 accumulator narrows
    with its i8 operands kept; without (the reference host) both widen to i16. Exact either way."""
    from fusion_opt.cost import get_target_desc
    from fusion_opt.rewrites.int_narrow import keeps_i8

    [as_written, wide] = _graphs("int-matmul-narrow-vnni.mlir")
    assert not keeps_i8(get_target_desc("host")) and not keeps_i8(get_target_desc("sm_80"))
    assert (find(as_written, keep_i8=True), len(find(wide, keep_i8=True))) == ([], 1)
    assert (len(find(as_written)), len(find(wide))) == (1, 1)
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (16, 64)).astype(np.int8)
    b = rng.integers(-128, 128, (64, 32)).astype(np.int8)
    want = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
    text = (LIT / "int-matmul-narrow-vnni.mlir").read_text().replace("@i8_wide_accumulator", "@main")
    for desc in (None, LIT.parent / "inputs" / "host-vnni.json"):
        if desc is not None:
            monkeypatch.setenv("FUSION_OPT_HOST_DESC", str(desc))
            assert keeps_i8(get_target_desc("host"))
        m = fo.compile_mlir(text)
        np.testing.assert_array_equal(m(a, b), want)
        assert dict(m.plans[1].patterns).get("int-matmul-narrow") == 1  # the operand types: the lit twin
