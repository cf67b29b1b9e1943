"""conv-transpose-phases (rewrites/conv_transpose.py): which ONNX ConvTranspose convs become one stacked phase
conv + interleave, and that results stay onnxruntime's and the spread conv's (strides, kernels not a multiple of
the stride, pads that crop, output padding, a bias, BatchNorm folded first, a batch, 1-D)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.rewrites.conv_transpose import Dim, find
from ir_helpers import compiled_and_ort, conv_relu_model, describe_text


def _convt(x_shape, c, f, kernel, strides, pads, out_pad=None, bn=False):
    """`x -> ConvTranspose(w, b) [-> BatchNormalization] -> Relu`, seeded weights."""
    w = np.random.default_rng(1).standard_normal((c, f, *kernel)) / 4
    attrs = {"output_padding": list(out_pad)} if out_pad else {}
    return conv_relu_model(x_shape, w, bn, op_type="ConvTranspose", kernel_shape=list(kernel), strides=list(strides),
                           pads=list(pads), **attrs)


@pytest.mark.parametrize("x_shape, c, f, kernel, strides, pads, extra", [
    ((1, 32, 16, 16), 32, 16, (2, 2), (2, 2), (0, 0, 0, 0), {}),               # a U-Net up-conv: 1x1 phases
    ((1, 32, 32, 32), 32, 16, (4, 4), (2, 2), (1, 1, 1, 1), {"bn": True}),     # DCGAN's: phases cropped by 1
    ((1, 16, 16, 16), 16, 8, (3, 3), (2, 2), (1, 1, 1, 1), {"out_pad": (1, 1)}),  # k % s != 0: zero taps
    ((2, 16, 16, 20), 16, 8, (2, 2), (2, 2), (0, 0, 0, 0), {}),                # a batch
    ((1, 16, 40), 16, 8, (5,), (2,), (2, 2), {}),                              # 1-D
    ((1, 8, 16, 16), 8, 4, (3, 3), (3, 3), (0, 0, 0, 0), {}),                  # stride 3
])
def test_matches_onnxruntime_and_the_spread_conv(x_shape, c, f, kernel, strides, pads, extra):
    model = _convt(x_shape, c, f, kernel, strides, pads, **extra)
    m, got, ref = compiled_and_ort(model)
    notes = [n for n in m.plan.notes if n.startswith("conv-transpose-phases:")]
    assert len(notes) == 1 and ": phases (" in notes[0], m.plan.notes
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    assert not m.fallbacks
    off = fo.compile_onnx(model, disable_patterns=["conv-transpose-phases"])
    assert "conv-transpose-phases" not in dict(off.plan.patterns)
    x = np.random.default_rng(2).standard_normal(x_shape).astype(np.float32)
    np.testing.assert_allclose(np.asarray(m(x)), np.asarray(off(x)), rtol=1e-5, atol=1e-5)


def test_phase_geometry() -> None:
    """DCGAN's 4x4 stride-2 pad-1 conv on 16 rows: torch-mlir inserts at offset k - 1 - p = 2; each phase has 2
    taps, the phases past o mod s start a row later, so the stacked conv computes 17 rows, cropped by 1."""
    d = Dim(s=2, o=2, k=4, h=16, out=32)
    assert (d.taps, d.crop, d.rows, d.pad) == (2, 1, 17, (1, 1))
    assert [list(d.phase_taps(r)) for r in range(2)] == [[1, 3], [0, 2]]
    u = Dim(s=2, o=1, k=2, h=16, out=32)                      # a U-Net's 2x2: one tap, no crop, no pad
    assert (u.taps, u.crop, u.rows, u.pad) == (1, 0, 16, (0, 0))


SPREAD = """
func.func @f(%x: tensor<8x16x16xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<4x31x31xf32> {
  %z = arith.constant 0.0 : f32
  %v = arith.constant SPREAD_VALUE : f32
  %e = tensor.empty() : tensor<8x33x33xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8x33x33xf32>) -> tensor<8x33x33xf32>
  %s = tensor.insert_slice %x into %f[0, 1, 1] [8, 16, 16] [1, 2, STRIDE] : tensor<8x16x16xf32> into tensor<8x33x33xf32>
  %o = tensor.empty() : tensor<4x31x31xf32>
  %i = linalg.fill ins(%z : f32) outs(%o : tensor<4x31x31xf32>) -> tensor<4x31x31xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(f, y, x, c, i, j) -> (c, y + i, x + j)>,
                                        affine_map<(f, y, x, c, i, j) -> (f, c, i, j)>,
                                        affine_map<(f, y, x, c, i, j) -> (f, y, x)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%s, %w : tensor<8x33x33xf32>, tensor<4x8x3x3xf32>) outs(%i : tensor<4x31x31xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<4x31x31xf32>
  return %c : tensor<4x31x31xf32>
}"""


@pytest.mark.parametrize("stride, value, found", [
    ("2", "0.0", True),
    ("1", "0.0", True),            # one strided dim is enough
    ("2", "1.0", False),           # spread into a fill of ones: not zeros between the inputs
])
def test_sites_need_a_strided_insert_into_zeros(stride, value, found):
    sess, module, _, graph, ops = describe_text(SPREAD.replace("STRIDE", stride).replace("SPREAD_VALUE", value))  # noqa: F841 (ops live with them)
    sites = find(graph, ops)
    assert bool(sites) is found
    assert len(find(graph)) == 1  # the pure match does not read the fill's value
    if found:
        assert [d.s for d in sites[0].dims] == [2, int(stride)] and sites[0].nb == 0
