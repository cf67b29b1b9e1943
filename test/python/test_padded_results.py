"""Pads written into their producer's region (transforms/padded_results.py): the reshape helper, where
it applies (the copy dispatch gone or kept) and that the compiled module still computes the padded conv
(IREE, numpy)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.backends.flow_ir import copy_dispatches
from fusion_opt.transforms.padded_results import attach_units

from ir_helpers import conv3x3_ref, matmul_pad_conv_mlir, relu_pad_conv_mlir


def test_attach_units() -> None:
    assert attach_units(4, [1, 2, 3]) == [[0, 1], [2], [3]]             # a leading unit batch
    assert attach_units(4, [0, 1, 3]) == [[0], [1, 2], [3]]
    assert attach_units(3, [0, 1, 2]) == [[0], [1], [2]]


@pytest.mark.parametrize("h, copies", [(14, 1), (7, 0)])
def test_matmul_result_split_into_rows(h: int, copies: int) -> None:
    """A 1x1 conv's matmul reaching its pad through an expand_shape (greedy keeps matmul and epilogue one
    region). Split into rows of 14, its data-tiled stores into the padded buffer cost more than the copy
    (ResNet-50's 14x14 stage), so the pad stays a copy; a 7x7 image is one tile and is stored in place
    (tiling.image_in_one_tile): no copy. Both compute the padded conv."""
    f, c = 32, 48
    rng = np.random.default_rng(f + h)
    x = rng.standard_normal((c, h * h)).astype(np.float32)
    w1 = (rng.standard_normal((f, c)) * 0.2).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    w = (rng.standard_normal((f, f, 3, 3)) * 0.1).astype(np.float32)
    text = matmul_pad_conv_mlir(f, c, h)
    ours = fo.compile_mlir(text, layout="nchw", fusion="greedy")
    assert copy_dispatches(ours.artifact.sites) == copies, ours.report()
    a = np.maximum(w1.astype(np.float64) @ x + b[:, None], 0).reshape(1, f, h, h)
    np.testing.assert_allclose(np.asarray(ours(x, w1, b, w)), conv3x3_ref(a, w), rtol=1e-4, atol=1e-4)


RELU_PAD_CONV = relu_pad_conv_mlir(16, 16, 12)


def test_unit_batch_result_goes_through_a_buffer_without_the_unit_dim() -> None:
    """Greedy keeps the relu as a region of its own: a 4-D result with a unit batch. Inserted into a 4-D
    buffer IREE 3.13 computes wrong values (max error 8.6, measured); the pass drops the unit dim."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
    w = (rng.standard_normal((16, 16, 3, 3)) * 0.1).astype(np.float32)
    m = fo.compile_mlir(RELU_PAD_CONV, fusion="greedy")
    kept = fo.compile_mlir(RELU_PAD_CONV, fusion="greedy", disable_patterns=["pad-conv"])
    assert m.dispatch_count == 2 and copy_dispatches(m.artifact.sites) == 0, m.report()
    assert copy_dispatches(kept.artifact.sites) == 1   # the copy this removes
    ref = conv3x3_ref(np.maximum(x, 0), w)
    np.testing.assert_allclose(np.asarray(m(x, w)), ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(kept(x, w)), ref, rtol=1e-4, atol=1e-4)


POOL_PAD_ADD = """
func.func @main(%x: tensor<1x8x6x7xf32>) -> tensor<1x8x6x7xf32> {
  %e = tensor.empty() : tensor<1x8x4x7xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x4x7xf32>) -> tensor<1x8x4x7xf32>
  %w = tensor.empty() : tensor<3x1xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x6x7xf32>, tensor<3x1xf32>) outs(%f : tensor<1x8x4x7xf32>) -> tensor<1x8x4x7xf32>
  %z = arith.constant 0.0 : f32
  %pad = tensor.pad %p low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x4x7xf32> to tensor<1x8x6x7xf32>
  %e2 = tensor.empty() : tensor<1x8x6x7xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pad : tensor<1x8x6x7xf32>) outs(%e2 : tensor<1x8x6x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %a, %one : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x7xf32>
  return %y : tensor<1x8x6x7xf32>
}
"""


@pytest.mark.parametrize("fusion", ["none", "greedy", "cost"])
def test_pool_into_a_padded_buffer_keeps_its_values(fusion: str) -> None:
    """A max pool, a zero pad, an add. With `fusion=none` the pool's -inf fill is a dispatch of its own,
    and IREE 3.13 stored the pool inserted into the padded buffer as -inf everywhere (fuzz seed 19429): a
    region whose accumulator comes from another dispatch keeps its pad a copy."""
    x = np.random.default_rng(0).standard_normal((1, 8, 6, 7)).astype(np.float32)
    pooled = np.maximum(np.maximum(x[:, :, 0:4], x[:, :, 1:5]), x[:, :, 2:6])
    ref = np.pad(pooled, ((0, 0), (0, 0), (1, 1), (0, 0))) + 1
    np.testing.assert_array_equal(np.asarray(fo.compile_mlir(POOL_PAD_ADD, fusion=fusion)(x)), ref)
