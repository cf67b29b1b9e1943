"""Function arguments updated in place (transforms/argument_copies.py): in each of our modes the op
works on a copy (a multiply-accumulate: on zeros, the argument added after), so a returned argument comes
back as it was passed and the update is right. Without it IREE 3.13 returned the argument holding the
matmul's result (fuzz seed 20449: 9.4 off)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo

ACCUMULATE = """
func.func @main(%a: tensor<9x13xf32>, %b: tensor<13x9xf32>, %c: tensor<9x9xf32>) -> (tensor<9x9xf32>, tensor<9x9xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<9x13xf32>, tensor<13x9xf32>) outs(%c : tensor<9x9xf32>) -> tensor<9x9xf32>
  return %c, %r : tensor<9x9xf32>, tensor<9x9xf32>
}
"""
RUNNING_MAX = """
func.func @main(%x: tensor<9x13xf32>, %m: tensor<9xf32>) -> (tensor<9xf32>, tensor<9xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<9x13xf32>) outs(%m : tensor<9xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %o : f32
    linalg.yield %t : f32
  } -> tensor<9xf32>
  return %m, %r : tensor<9xf32>, tensor<9xf32>
}
"""
INSERT = """
func.func @main(%x: tensor<3x9xf32>, %d: tensor<9x9xf32>) -> (tensor<9x9xf32>, tensor<9x9xf32>) {
  %r = tensor.insert_slice %x into %d[2, 0] [3, 9] [1, 1] : tensor<3x9xf32> into tensor<9x9xf32>
  return %d, %r : tensor<9x9xf32>, tensor<9x9xf32>
}
"""


@pytest.mark.parametrize("fusion", ["none", "greedy", "cost"])
def test_returned_argument_survives_an_accumulation(fusion: str) -> None:
    rng = np.random.default_rng(20449)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((9, 13), (13, 9), (9, 9)))
    m = fo.compile_mlir(ACCUMULATE, fusion=fusion)
    got_c, got_r = (np.asarray(v) for v in m(a, b, c.copy()))
    np.testing.assert_array_equal(got_c, c)
    np.testing.assert_allclose(got_r, a.astype(np.float64) @ b + c, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fusion", ["none", "greedy", "cost"])
def test_returned_argument_survives_a_running_max(fusion: str) -> None:
    """Not a multiply-accumulate: the reduction updates a copy (fused into its region by greedy and cost)."""
    rng = np.random.default_rng(7)
    x, mx = rng.standard_normal((9, 13)).astype(np.float32), rng.standard_normal(9).astype(np.float32)
    m = fo.compile_mlir(RUNNING_MAX, fusion=fusion)
    got_m, got_r = (np.asarray(v) for v in m(x, mx.copy()))
    np.testing.assert_array_equal(got_m, mx)
    np.testing.assert_array_equal(got_r, np.maximum(x.max(axis=1), mx))


@pytest.mark.parametrize("fusion", ["none", "cost"])
def test_returned_argument_survives_an_insert(fusion: str) -> None:
    rng = np.random.default_rng(3)
    x, d = rng.standard_normal((3, 9)).astype(np.float32), rng.standard_normal((9, 9)).astype(np.float32)
    m = fo.compile_mlir(INSERT, fusion=fusion)
    got_d, got_r = (np.asarray(v) for v in m(x, d.copy()))
    np.testing.assert_array_equal(got_d, d)
    want = d.copy()
    want[2:5] = x
    np.testing.assert_array_equal(got_r, want)


RESHAPED = """
func.func @main(%a: tensor<12x8xf32>, %b: tensor<8x16xf32>, %c: tensor<12x16xf32>) -> (tensor<12x16xf32>, tensor<12x1x16xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<12x8xf32>, tensor<8x16xf32>) outs(%c : tensor<12x16xf32>) -> tensor<12x16xf32>
  %v = tensor.expand_shape %c [[0], [1, 2]] output_shape [12, 1, 16] : tensor<12x16xf32> into tensor<12x1x16xf32>
  return %r, %v : tensor<12x16xf32>, tensor<12x1x16xf32>
}
"""


@pytest.mark.parametrize("fusion", ["none", "cost"])
def test_argument_returned_through_a_reshape(fusion: str) -> None:
    """A reshape shares its source's buffer: returned through one, the argument came back holding the
    matmul's result (fuzz seed 25073)."""
    rng = np.random.default_rng(25073)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((12, 8), (8, 16), (12, 16)))
    got_r, got_v = (np.asarray(v) for v in fo.compile_mlir(RESHAPED, fusion=fusion)(a, b, c.copy()))
    np.testing.assert_array_equal(got_v, c.reshape(12, 1, 16))
    np.testing.assert_allclose(got_r, a.astype(np.float64) @ b + c, rtol=1e-5, atol=1e-5)
