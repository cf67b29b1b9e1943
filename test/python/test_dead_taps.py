"""Conv window taps that read only zero padding, dropped (rewrites/dead_taps.py): which taps are live,
where the rewrite applies, where it must not, and that results stay those of onnxruntime."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import fusion_opt as fo
from fusion_opt.rewrites.dead_taps import live_taps
from ir_helpers import rewritten_like_ort


@pytest.mark.parametrize("lo, extent, outs, stride, taps, dilation, expected", [
    (24, 14, 14, 1, 3, 24, (1, 1)),   # DeepLabV3's ASPP rate 24 on 14x14: the centre tap only
    (36, 14, 14, 1, 3, 36, (1, 1)),
    (12, 14, 14, 1, 3, 12, (0, 2)),   # rate 12: the outer taps reach rows 0-1 and 12-13
    (3, 4, 4, 1, 7, 1, (0, 6)),       # a 7x7 'same' conv on 4x4: every tap reads some input
    (2, 5, 1, 0, 3, 3, (1, 2)),       # one output row: tap 0 reads padding, taps 1-2 rows 1 and 4
    (8, 7, 4, 2, 3, 8, (1, 1)),       # strided
    (6, 5, 5, 1, 3, 20, (1, 0)),      # none (first > last)
])
def test_live_taps(lo, extent, outs, stride, taps, dilation, expected):
    assert live_taps(lo, extent, outs, stride, taps, dilation) == expected


def _conv(c, f, h, w, kernel, dilations, pads, strides, group=1, batch=1, filt=None) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    wv = filt if filt is not None else rng.standard_normal((f, c // group, *kernel)).astype(np.float32)
    inits = [numpy_helper.from_array(wv, "w"), numpy_helper.from_array(rng.standard_normal(f).astype(np.float32), "b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=list(kernel), dilations=list(dilations),
                              pads=list(pads), strides=list(strides), group=group),
             helper.make_node("Relu", ["y"], ["z"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, c, h, w])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("args, hits", [
    ((16, 8, 14, 14, (3, 3), (24, 24), (24, 24, 24, 24), (1, 1)), 1),            # centre tap: a 1x1 conv
    ((8, 4, 5, 7, (3, 5), (6, 2), (6, 3, 6, 5), (1, 1)), 1),                      # rows narrowed, columns kept
    ((8, 4, 5, 5, (3, 1), (3, 1), (2, 0, 0, 0), (1, 1)), 1),                      # a crop instead of a pad
    ((8, 4, 7, 7, (3, 3), (8, 8), (8, 8, 8, 8), (2, 2)), 1),                      # strided
    ((8, 8, 5, 5, (3, 3), (6, 6), (6, 6, 6, 6), (1, 1), 8), 1),                   # depthwise
    ((8, 4, 5, 6, (3, 3), (6, 6), (6, 6, 6, 6), (1, 1), 1, 2), 1),                # batch 2
    ((16, 8, 14, 14, (3, 3), (12, 12), (12, 12, 12, 12), (1, 1)), 0),            # every tap live
])
def test_matches_onnxruntime(args, hits):
    rewritten_like_ort(_conv(*args), "dead-taps", hits, tol=1e-5)


def test_non_finite_dead_tap_is_kept():
    """0 * inf is NaN: a filter with inf in a tap that reads only padding keeps that tap, so the outputs
    are NaN exactly where IREE's own build of the module makes them (onnxruntime skips the padding and
    gives none: the rewrite only drops what is exactly zero in the module as written)."""
    filt = np.random.default_rng(0).standard_normal((4, 8, 3, 3)).astype(np.float32)
    filt[1, 2, 0, 0] = np.inf
    model = _conv(8, 4, 5, 5, (3, 3), (6, 6), (6, 6, 6, 6), (1, 1), filt=filt)
    x = np.random.default_rng(1).standard_normal((1, 8, 5, 5)).astype(np.float32)
    m = fo.compile_onnx(model)
    assert dict(m.plan.patterns).get("dead-taps", 0) == 0
    got, iree = m(x), fo.compile_onnx(model, fusion="iree")(x)
    assert np.isnan(iree[0, 1]).all() and not np.isnan(iree[0, [0, 2, 3]]).any()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(iree))


def test_nonzero_padding_is_kept():
    """Taps reading a pad of ones contribute: the same conv padded with 1.0 is left as it is."""
    ours = fo.compile_mlir(_ONES)
    assert dict(ours.plan.patterns).get("dead-taps", 0) == 0
    x = np.random.default_rng(0).standard_normal((2, 5, 5)).astype(np.float32)
    padded = np.pad(x, ((0, 0), (6, 6), (6, 6)), constant_values=1.0)
    w = np.arange(1, 19, dtype=np.float32).reshape(2, 3, 3)
    expected = np.zeros((1, 5, 5), np.float32)
    for a in range(3):
        for b in range(3):
            expected[0] += np.einsum("chw,c->hw", padded[:, 6 * a:6 * a + 5, 6 * b:6 * b + 5], w[:, a, b])
    np.testing.assert_allclose(ours(x), expected, rtol=1e-5)


_ONES = """
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4 * 6, d2 + d5 * 6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>
#o = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @ones(%x: tensor<2x5x5xf32>) -> tensor<1x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                              [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]]]> : tensor<1x2x3x3xf32>
  %p = tensor.pad %x low[0, 6, 6] high[0, 6, 6] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %one : f32
  } : tensor<2x5x5xf32> to tensor<2x17x17xf32>
  %e = tensor.empty() : tensor<1x5x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5xf32>) -> tensor<1x5x5xf32>
  %c = linalg.generic {indexing_maps = [#x, #w, #o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w : tensor<2x17x17xf32>, tensor<1x2x3x3xf32>) outs(%init : tensor<1x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x5xf32>
  return %c : tensor<1x5x5xf32>
}
"""
