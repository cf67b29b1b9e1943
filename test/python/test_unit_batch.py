"""Unit-batch batch matmuls as 2-D matmuls (rewrites/unit_batch.py): where it applies and that the numbers
do not change (through IREE, against numpy and the unrewritten build)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import fusion_opt as fo

LIT = Path(__file__).resolve().parents[1] / "lit" / "patterns" / "unit-batch-matmul.mlir"


def test_flattened_matmul_matches_numpy_and_the_batch_matmul():
    text = LIT.read_text()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 16, 32), dtype=np.float32)
    w = rng.standard_normal((1, 32, 64), dtype=np.float32)
    b = rng.standard_normal(64, dtype=np.float32)
    flat = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["unit-batch-matmul"])
    assert dict(flat.plan.patterns).get("unit-batch-matmul") == 1
    assert flat.dispatch_count == 1                      # the bias add and ReLU stay with the matmul
    names = {op.name for op in flat.graphs[0].ops}
    assert "linalg.matmul" in names and "linalg.batch_matmul" not in names
    want = np.maximum(x @ w + b, 0)
    np.testing.assert_allclose(np.asarray(flat(x, w, b)), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(kept(x, w, b)), np.asarray(flat(x, w, b)), rtol=1e-6, atol=1e-6)


def test_a_real_batch_is_left_alone():
    text = LIT.read_text().replace("1x16x32", "2x16x32").replace("1x32x64", "2x32x64").replace(
        "1x16x64", "2x16x64")
    m = fo.compile_mlir(text)
    assert dict(m.plan.patterns).get("unit-batch-matmul") == 0
    assert any(op.name == "linalg.batch_matmul" for op in m.graphs[0].ops)


def test_shared_weight_batch_matmul_becomes_one_matmul_on_the_weight():
    """The broadcast weight's batch folds into M: one 2-D matmul on the weight itself, same numbers."""
    text = (LIT.parent / "unit-batch-shared-weight.mlir").read_text().replace("math.erf", "math.tanh")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 8), dtype=np.float32)
    w = rng.standard_normal((8, 16), dtype=np.float32)
    flat = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["unit-batch-matmul"])
    assert dict(flat.plan.patterns).get("unit-batch-matmul") == 1
    names = [op.name for op in flat.graphs[0].ops]
    assert "linalg.batch_matmul" not in names and names.count("linalg.generic") == 1  # the broadcast is gone
    np.testing.assert_allclose(np.asarray(flat(x, w)), np.tanh(x @ w), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(kept(x, w)), np.asarray(flat(x, w)), rtol=1e-6, atol=1e-6)


def test_transposed_shared_weight_becomes_one_matmul_reading_it_transposed():
    """torch-mlir's GRU / LSTM input projection broadcasts `W^T` ([N, K] read at (k, n)) over the time steps:
    one [T*B, K] x [N, K]^T contraction on the weight itself (bidirectional GRU of hidden 64 over 50 steps:
    its two projections 318 -> 78 us, the model 2.09 -> 1.66 ms, per-dispatch profile)."""
    text = (LIT.parent / "unit-batch-shared-weight.mlir").read_text().replace("math.erf", "math.tanh").replace(
        "affine_map<(d0, d1, d2) -> (d1, d2)>", "affine_map<(d0, d1, d2) -> (d2, d1)>").replace(
        "%w: tensor<8x16xf32>", "%w: tensor<16x8xf32>").replace("ins(%w : tensor<8x16xf32>)", "ins(%w : tensor<16x8xf32>)")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6, 8), dtype=np.float32)
    w = rng.standard_normal((16, 8), dtype=np.float32)
    flat = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["unit-batch-matmul"])
    assert dict(flat.plan.patterns).get("unit-batch-matmul") == 1
    ops = flat.graphs[0].ops
    assert "linalg.batch_matmul" not in [op.name for op in ops]
    (mm,) = [op for op in ops if op.kind.value == "contraction"]
    assert mm.operand_shapes[:2] == ((24, 8), (16, 8))  # the weight itself, read transposed
    np.testing.assert_allclose(np.asarray(flat(x, w)), np.tanh(x @ w.T), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(kept(x, w)), np.asarray(flat(x, w)), rtol=1e-6, atol=1e-6)


def test_layernorm_after_a_batch_2_projection_is_one_group_and_exact():
    """rewrites/collapse_dims.py: the LayerNorm's reductions rebuilt over the collapsed [34, 64] rows (one
    group, 2 dispatches in all); the numbers equal numpy's and the build without the rewrite."""
    lit = LIT.with_name("unit-batch-matmul-layernorm.mlir")
    rng = np.random.default_rng(1)
    x, r = (rng.standard_normal((2, 17, 64), dtype=np.float32) for _ in range(2))
    flat = fo.compile_mlir(lit)
    kept = fo.compile_mlir(lit, disable_patterns=["unit-batch-matmul"])
    assert flat.dispatch_count == 2
    s = x @ np.full((64, 64), 0.01, np.float32) + r
    c = s - s.mean(-1, keepdims=True)
    want = c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(flat(x, r)), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(kept(x, r)), np.asarray(flat(x, r)), rtol=1e-5, atol=1e-5)


SHARED_4D = """
func.func @linear4d(%x: tensor<3x4x5x8xf32>) -> tensor<12x5x6xf32> {
  %z = arith.constant 0.0 : f32
  %w = arith.constant dense<[[0.5, -1.0, 0.25, 2.0, -0.5, 1.5], [1.0, 0.0, -2.0, 0.5, 0.75, -1.25],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [-0.6, -0.5, -0.4, -0.3, -0.2, -0.1],
                             [2.0, 1.0, 0.0, -1.0, -2.0, 3.0], [0.3, -0.3, 0.3, -0.3, 0.3, -0.3],
                             [1.1, 1.2, 1.3, 1.4, 1.5, 1.6], [-1.0, 1.0, -1.0, 1.0, -1.0, 1.0]]> : tensor<8x6xf32>
  %eb = tensor.empty() : tensor<3x4x8x6xf32>
  %wb = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<8x6xf32>) outs(%eb : tensor<3x4x8x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<3x4x8x6xf32>
  %wc = tensor.collapse_shape %wb [[0, 1], [2], [3]] : tensor<3x4x8x6xf32> into tensor<12x8x6xf32>
  %xc = tensor.collapse_shape %x [[0, 1], [2], [3]] : tensor<3x4x5x8xf32> into tensor<12x5x8xf32>
  %e = tensor.empty() : tensor<12x5x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<12x5x6xf32>) -> tensor<12x5x6xf32>
  %r = linalg.batch_matmul ins(%xc, %wc : tensor<12x5x8xf32>, tensor<12x8x6xf32>) outs(%f : tensor<12x5x6xf32>) -> tensor<12x5x6xf32>
  return %r : tensor<12x5x6xf32>
}
"""


def test_a_weight_broadcast_over_several_dims_then_collapsed_is_shared():
    """torch's MatMul of a [B, H, W, C] activation by a weight at batch > 1: a 4-D broadcast collapsed to
    the batch matmul's [B*H, K, N]; rewritten to one [60, 8] x [8, 6] matmul, broadcast and collapse gone."""
    m = fo.compile_mlir(SHARED_4D)
    assert dict(m.plan.patterns).get("unit-batch-matmul") == 1
    names = [op.name for op in m.graphs[0].ops]
    assert "linalg.matmul" in names and "linalg.batch_matmul" not in names
    assert not any(op.kind.value == "broadcast" and op.result_shapes[0] == (3, 4, 8, 6) for op in m.graphs[0].ops)
    x = np.random.default_rng(2).standard_normal((3, 4, 5, 8)).astype(np.float32)
    w = np.array([[0.5, -1.0, 0.25, 2.0, -0.5, 1.5], [1.0, 0.0, -2.0, 0.5, 0.75, -1.25], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                  [-0.6, -0.5, -0.4, -0.3, -0.2, -0.1], [2.0, 1.0, 0.0, -1.0, -2.0, 3.0], [0.3, -0.3, 0.3, -0.3, 0.3, -0.3],
                  [1.1, 1.2, 1.3, 1.4, 1.5, 1.6], [-1.0, 1.0, -1.0, 1.0, -1.0, 1.0]], np.float32)
    np.testing.assert_allclose(np.asarray(m(x)), (x @ w).reshape(12, 5, 6), rtol=1e-5, atol=1e-5)


def test_layer_scaled_linear_on_channels_last_keeps_its_weight_unbroadcast():
    """ConvNeXt's `gamma * Linear(x)` on a `[1, H, W, C]` activation: the weight broadcast over H, the
    scale after the bias. With conv-bn first, the scale was folded into the broadcast weight, which then
    was no shared weight but a product recomputed on every call (torchvision ConvNeXt-T: 7 x 768 x 3072
    floats per block, 19-24 ms each; the model 218 -> 52.9 ms once unit-batch-matmul runs first)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from ir_helpers import compiled_and_ort

    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((32, 96)).astype(np.float32) * 0.2, "w"),
             numpy_helper.from_array(rng.standard_normal(96).astype(np.float32), "b"),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, 96).astype(np.float32), "g")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Mul", ["a", "g"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 7, 9, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m, got, ref = compiled_and_ort(onnx.shape_inference.infer_shapes(model))
    assert dict(m.plan.patterns).get("unit-batch-matmul") == 1
    shapes = {s for op in m.graphs[0].ops for s in (*op.operand_shapes, *op.result_shapes)}
    assert (7, 32, 96) not in shapes  # no broadcast (nor scaled broadcast) of the weight
    assert not any(op.name == "linalg.batch_matmul" for op in m.graphs[0].ops)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
