"""Batch matmuls IREE would tile scalar get its peeled register tile (rewrites/bmm_tiles.py): which
shapes, that only CPU targets and enabled runs attach it, and that the compiled result is unchanged."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.cost.tiling import divisor_at_most
from fusion_opt.rewrites.bmm_tiles import scalar_tiled


def test_which_shapes_iree_tiles_scalar():
    assert divisor_at_most(197, 8) == 1 and divisor_at_most(50, 8) == 5 and divisor_at_most(128, 16) == 16
    assert scalar_tiled(197, 197) and scalar_tiled(197, 64) and scalar_tiled(64, 394)   # 394 = 2 x 197
    assert not scalar_tiled(128, 128) and not scalar_tiled(50, 50) and not scalar_tiled(77, 64)
    assert not scalar_tiled(3, 3)             # shorter than a useful vector anyway


def _bmm(b: int, m: int, k: int, n: int) -> str:
    return f"""
func.func @f(%a: tensor<{b}x{m}x{k}xf32>, %w: tensor<{b}x{k}x{n}xf32>) -> tensor<{b}x{m}x{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{b}x{m}x{n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{b}x{m}x{n}xf32>) -> tensor<{b}x{m}x{n}xf32>
  %s = linalg.batch_matmul ins(%a, %w : tensor<{b}x{m}x{k}xf32>, tensor<{b}x{k}x{n}xf32>) outs(%f : tensor<{b}x{m}x{n}xf32>) -> tensor<{b}x{m}x{n}xf32>
  return %s : tensor<{b}x{m}x{n}xf32>
}}
"""


@pytest.mark.parametrize("disable", [False, True])
def test_prime_length_batch_matmul_computes_the_same(disable: bool):
    b, m, k, n = 2, 37, 16, 41
    text = _bmm(b, m, k, n)
    mod = fo.compile_mlir(text, disable_patterns=["bmm-tiles"] if disable else [])
    assert dict(mod.plan.patterns).get("bmm-tiles") == (None if disable else 1), mod.report()
    rng = np.random.default_rng(1)
    a, w = rng.standard_normal((b, m, k), dtype=np.float32), rng.standard_normal((b, k, n), dtype=np.float32)
    np.testing.assert_allclose(np.asarray(mod(a, w)), a.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)


def test_gpu_targets_get_no_cpu_tiles():
    from fusion_opt.ir import new_session
    from fusion_opt.importers.mlir_import import parse_mlir
    from fusion_opt.pipelines import plan_module

    sess = new_session()
    planned = plan_module(parse_mlir(_bmm(2, 37, 16, 41), sess.context), "cost", target="sm_80")
    assert "bmm-tiles" not in dict(planned[0].plan.patterns)
    assert "compilation_info" not in str(planned[0].func_op)


def test_vit_length_attention_from_onnx_matches_onnxruntime():
    """ONNX MatMul over [B, 197, 64] imports as a batch matmul: the pattern fires on the scores and the
    PV product, and the compiled model matches onnxruntime."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    b, s, d = 2, 197, 16
    g = helper.make_graph(
        [helper.make_node("MatMul", ["q", "kt"], ["s"]), helper.make_node("Softmax", ["s"], ["p"], axis=-1),
         helper.make_node("MatMul", ["p", "v"], ["o"])], "vit_attention",
        [helper.make_tensor_value_info("q", TensorProto.FLOAT, [b, s, d]),
         helper.make_tensor_value_info("kt", TensorProto.FLOAT, [b, d, s]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [b, s, d])],
        [helper.make_tensor_value_info("o", TensorProto.FLOAT, [b, s, d])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m = fo.compile_onnx(model)
    assert dict(m.plan.patterns).get("bmm-tiles") == 2, m.report()
    rng = np.random.default_rng(2)
    q, kt, v = (rng.standard_normal(sh, dtype=np.float32) for sh in ((b, s, d), (b, d, s), (b, s, d)))
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"q": q, "kt": kt, "v": v})[0]
    np.testing.assert_allclose(np.asarray(m(q, kt, v)), want, rtol=1e-4, atol=1e-5)


def test_small_padded_windows_are_kept_unpacked_in_a_data_tiled_module():
    """A windowed attention's batch matmuls (64 windows of 49 tokens) ran 1.05-2.30x slower packed than in
    IREE's own tile; in a module that data-tiles (a plain matmul asks for it) they get the tile, which
    keeps them unpacked. 128-token attention and small batches stay packed."""
    from fusion_opt.importers.mlir_import import parse_mlir
    from fusion_opt.ir import new_session
    from fusion_opt.pipelines import compile_levers, plan_module
    from fusion_opt.rewrites.bmm_tiles import small_padded_windows

    assert small_padded_windows(64, 49, 49, 16) and small_padded_windows(192, 49, 32, 49)
    assert not small_padded_windows(64, 49, 49, 64)      # K = 64: packing won (0.89)
    assert not small_padded_windows(32, 49, 49, 32)      # batch 32: packing won (0.93)
    assert not small_padded_windows(4, 128, 128, 64)     # attention rows: packing won (0.36)
    assert not small_padded_windows(64, 64, 64, 16)      # rows a multiple of the register tile
    # a projection big enough that the module is data-tiled (levers.packing_pays: >= 2^20 multiply-adds)
    matmul = ("func.func @proj(%x: tensor<512x64xf32>, %w: tensor<64x64xf32>, %c: tensor<512x64xf32>) -> "
              "tensor<512x64xf32> {\n  %r = linalg.matmul ins(%x, %w : tensor<512x64xf32>, tensor<64x64xf32>) "
              "outs(%c : tensor<512x64xf32>) -> tensor<512x64xf32>\n  return %r : tensor<512x64xf32>\n}\n")
    for (b, m, k, n), unpacked in (((64, 49, 16, 49), True), ((4, 49, 16, 49), False)):
        sess = new_session()
        module = parse_mlir(matmul + _bmm(b, m, k, n), sess.context)  # kept alive: the plan holds its ops
        planned = plan_module(module, "cost", target="host")
        flags = compile_levers(planned, "cost", "host")
        assert "--iree-opt-data-tiling" in flags
        bmm = [op for p in planned for d, op in zip(p.graph.ops, p.ops) if d.name == "linalg.batch_matmul"]
        assert len(bmm) == 1 and ("compilation_info" in bmm[0].attributes) == unpacked, (b, m, k, n)
    rng = np.random.default_rng(2)
    a, w = rng.standard_normal((64, 49, 16), dtype=np.float32), rng.standard_normal((64, 16, 49), dtype=np.float32)
    mod = fo.compile_mlir(_bmm(64, 49, 16, 49) + matmul.replace("@proj", "@proj2"), fusion="cost")
    np.testing.assert_allclose(np.asarray(mod(a, w)), a.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)
