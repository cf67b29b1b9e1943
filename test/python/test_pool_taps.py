"""pool-taps rewrite: window reductions (max/sum pooling, LRN's channel-window sums) as one elementwise
op over strided input slices (rewrites/pool_taps.py): matching, the decision, and numerics through IREE
against the reduction it replaces."""
from __future__ import annotations

import numpy as np
import pytest
from ir_helpers import describe_text

import fusion_opt as fo
from fusion_opt.cost import get_target_desc
from fusion_opt.rewrites import pool_taps
from fusion_opt.rewrites.choice import run


def maxpool_mlir(c: int = 16, hw: int = 23, k: int = 3, s: int = 2, body: str = "arith.maximumf",
                 init: str = "0xFF800000") -> str:
    """A k x k stride-s window reduction over [C, H, W], as our importer writes ONNX MaxPool."""
    o = (hw - k) // s + 1
    return f"""
func.func @pool(%x: tensor<{c}x{hw}x{hw}xf32>) -> tensor<{c}x{o}x{o}xf32> {{
  %z = arith.constant {init} : f32
  %e = tensor.empty() : tensor<{c}x{o}x{o}xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<{c}x{o}x{o}xf32>) -> tensor<{c}x{o}x{o}xf32>
  %k = tensor.empty() : tensor<{k}x{k}xf32>
  %y = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * {s} + d3, d2 * {s} + d4)>,
                                         affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>,
                                         affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}}
      ins(%x, %k : tensor<{c}x{hw}x{hw}xf32>, tensor<{k}x{k}xf32>) outs(%i : tensor<{c}x{o}x{o}xf32>) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = {body} %a, %acc : f32
    linalg.yield %m : f32
  }} -> tensor<{c}x{o}x{o}xf32>
  return %y : tensor<{c}x{o}x{o}xf32>
}}
"""


LRN_SUM = """
func.func @pool(%x: tensor<20x9x9xf32>) -> tensor<16x9x9xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x9x9xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<16x9x9xf32>) -> tensor<16x9x9xf32>
  %k = tensor.empty() : tensor<5xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0 + d3, d1, d2)>,
                                        affine_map<(d0, d1, d2, d3) -> (d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %k : tensor<20x9x9xf32>, tensor<5xf32>) outs(%i : tensor<16x9x9xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.addf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<16x9x9xf32>
  return %y : tensor<16x9x9xf32>
}
"""


CHANNELS_LAST = """
func.func @pool(%x: tensor<15x15x8xf32>) -> tensor<8x7x7xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x7x7xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<8x7x7xf32>) -> tensor<8x7x7xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1 * 2 + d3, d2 * 2 + d4, d0)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %k : tensor<15x15x8xf32>, tensor<3x3xf32>) outs(%i : tensor<8x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8x7x7xf32>
  return %y : tensor<8x7x7xf32>
}
"""


def _sites(text: str) -> list:
    sess, module, f, graph, ops = describe_text(text)
    return pool_taps.find(graph)


def test_what_is_a_window_reduction():
    (i, p), = _sites(maxpool_mlir(s=1))
    assert p.body == "arith.maximumf" and len(p.taps) == 2
    assert [r[1] for r in p.reads] == [1, 1, 1] and p.reads[0][2] == -1  # the channel, then the window dims
    (i, p), = _sites(CHANNELS_LAST)
    assert [r[1] for r in p.reads] == [2, 2, 1]                    # stride-2 rows and columns, contiguous channels
    assert _sites(maxpool_mlir(s=2)) == []                         # a stride-2 row: every tap a gather
    (i, p), = _sites(LRN_SUM)
    assert p.body == "arith.addf" and p.reads[0][2] >= 0 and p.reads[1][2] == -1
    assert _sites(maxpool_mlir(body="arith.mulf")) == []           # not a body we rewrite
    assert _sites(maxpool_mlir(k=7, s=1)) == []                    # 49 taps: past MAX_TAPS


def test_the_decision_is_the_cost_models():
    sess, module, f, graph, ops = describe_text(maxpool_mlir(64, 58, 3, 1))
    (i, p), = pool_taps.find(graph)
    c = pool_taps.decide(graph.ops[i], p, get_target_desc("host"))
    assert c.take, c.note()


@pytest.mark.parametrize("text", [maxpool_mlir(s=1), maxpool_mlir(8, 12, 2, 1, "arith.addf", "0.0"),
                                  maxpool_mlir(4, 10, 3, 1, "arith.minimumf", "0x7F800000"), LRN_SUM,
                                  CHANNELS_LAST],
                         ids=["max3x3", "sum2x2", "min3x3", "lrn-sum", "max3x3s2-channels-last"])
def test_taps_compute_what_the_reduction_computes(text):
    sess, module, f, graph, ops = describe_text(text)
    out = run(pool_taps.REWRITE, graph, ops, get_target_desc("host"), force="rewrite")
    assert out.taken == 1
    f.verify()
    taps_text = str(module)
    assert "tensor.extract_slice" in taps_text and '"reduction"' not in taps_text
    shape = tuple(int(d) for d in text.split("%x: tensor<")[1].split("xf32>")[0].split("x"))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    want = np.asarray(fo.compile_mlir(text, disable_patterns=["pool-taps"])(x))
    got = np.asarray(fo.compile_mlir(taps_text)(x))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
