"""conv3d-slices (rewrites/conv3d.py): which 3-D convs split into 2-D ones per kernel plane, and that results
stay those of onnxruntime (strides, dilations, pads, a bias, BatchNorm folded into the filter first)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.rewrites.conv3d import find, site
from ir_helpers import conv_relu_model, describe_text, rewritten_like_ort


def _conv3d(c, f, dhw, kernel, strides=(1, 1, 1), dilations=(1, 1, 1), pads=(1,) * 6, group=1, batch=1, bn=False):
    w = np.random.default_rng(0).standard_normal((f, c // group, *kernel))
    return conv_relu_model([batch, c, *dhw], w, bn, kernel_shape=list(kernel), strides=list(strides),
                           dilations=list(dilations), pads=list(pads), group=group)


@pytest.mark.parametrize("args, kw, hits", [
    ((8, 16, (6, 12, 12), (3, 3, 3)), {}, 1),
    ((3, 8, (7, 16, 16), (3, 3, 3)), {"strides": (2, 1, 1), "bn": True}, 1),          # C = 3, depth stride 2, BN
    ((4, 8, (9, 10, 10), (2, 3, 3)), {"dilations": (3, 1, 1), "pads": (0, 1, 1, 2, 1, 1)}, 1),  # dilated depth
    ((8, 8, (5, 9, 9), (1, 3, 3)), {"pads": (0, 1, 1, 0, 1, 1)}, 0),   # one plane: the import folds the unit loop
    ((8, 16, (6, 10, 10), (3, 3, 3)), {"strides": (1, 2, 2)}, 1),                      # spatial stride
    ((8, 8, (6, 10, 10), (3, 3, 3)), {"group": 2}, 0),                                 # grouped: kept
    ((4, 8, (6, 10, 10), (3, 3, 3)), {"batch": 2}, 0),                                 # a batch: kept
    # R(2+1)D's temporal (3, 1, 1) conv: planes as channels-last matmuls over [D, H*W, C]; BN folded first
    ((16, 24, (8, 7, 7), (3, 1, 1)), {"pads": (1, 0, 0, 1, 0, 0), "bn": True}, 1),
    ((8, 16, (9, 6, 6), (2, 1, 1)), {"pads": (0,) * 6, "dilations": (3, 1, 1)}, 1),    # dilated depth
    ((8, 16, (8, 7, 7), (3, 1, 1)), {"pads": (1, 0, 0, 1, 0, 0), "strides": (2, 1, 1)}, 0),  # strided: kept
])
def test_matches_onnxruntime(args, kw, hits):
    model = _conv3d(*args, **kw)
    rewritten_like_ort(model, "conv3d-slices", hits)
    off = fo.compile_onnx(model, disable_patterns=["conv3d-slices"])
    assert "conv3d-slices" not in dict(off.plan.patterns)


TEXT = """
func.func @f(%x: tensor<4x11x10x10xf32>, %w: tensor<8x4x3x3x3xf32>, %o: tensor<8x3x8x8xf32>) -> tensor<8x3x8x8xf32> {
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d1 * 2 + d5 * 3, d2 + d6, d3 + d7)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d4, d5, d6, d7)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<4x11x10x10xf32>, tensor<8x4x3x3x3xf32>) outs(%o : tensor<8x3x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x3x8x8xf32>
  return %c : tensor<8x3x8x8xf32>
}"""


def _conv_desc():
    return describe_text(TEXT)[3]


def test_site_reads_depth_stride_and_dilation():
    graph = _conv_desc()
    (s,) = find(graph)
    assert (s.in_dim, s.kd, s.od, s.stride, s.dilation, s.flt_dim) == (1, 5, 1, 2, 3, 2)


@pytest.mark.parametrize("x_map", [
    "(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d1 + d5 + d6, d2, d3 + d7)",   # three terms in one read
    "(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d1 + d5, d2 + d6, d3)",        # a window loop no read offsets
    "(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d1 + d5, d2 + d6, d3 mod 4 + d7)",  # not affine terms
])
def test_not_a_3d_conv(x_map):
    """site() is pure: the described conv with its input map changed is refused."""
    op = next(o for o in _conv_desc().ops if o.kind.name == "CONVOLUTION")
    assert site(0, op) is not None
    assert site(0, replace(op, indexing_maps=(x_map, *op.indexing_maps[1:]))) is None


SLICED = """
func.func @f(%x: tensor<3x10x6x6xf32>) -> (tensor<8x6x6x3xf32>, tensor<8x6x6x3xf32>) {{
  %a = tensor.extract_slice %x[0, 0, 0, 0] [3, 8, 6, 6] [1, 1, 1, 1] : tensor<3x10x6x6xf32> to tensor<3x8x6x6xf32>
  %b = tensor.extract_slice %x[0, 2, 0, 0] [3, 8, 6, 6] [1, 1, 1, 1] : tensor<3x10x6x6xf32> to tensor<3x8x6x6xf32>
  %e = tensor.empty() : tensor<8x6x6x3xf32>
  %ta = linalg.transpose ins(%a : tensor<3x8x6x6xf32>) outs(%e : tensor<8x6x6x3xf32>) permutation = [1, 2, 3, 0]
  %tb = linalg.transpose ins(%b : tensor<3x8x6x6xf32>) outs(%e : tensor<8x6x6x3xf32>) permutation = [{p}]
  return %ta, %tb : tensor<8x6x6x3xf32>, tensor<8x6x6x3xf32>
}}"""


@pytest.mark.parametrize("p, hoisted", [("1, 2, 3, 0", 1), ("1, 3, 2, 0", 0)])
def test_slices_of_one_tensor_share_one_transpose(p, hoisted):
    """conv-layout's propagation (rewrites/slice_transpose.py): the planes' input transposes become slices of
    one transpose of the whole input; not with two permutations."""
    from fusion_opt.ir import block_ops
    from fusion_opt.rewrites.slice_transpose import hoist_transposes

    _, module, f, _, _ = describe_text(SLICED.format(p=p))
    assert hoist_transposes(f) == hoisted
    assert f.verify()
    names = [op.name for op in block_ops(f)]
    assert names.count("linalg.transpose") == 2 - hoisted and names.count("tensor.extract_slice") == 2
    if not hoisted:
        return
    text = str(f)
    assert "linalg.transpose ins(%arg0 : tensor<3x10x6x6xf32>)" in text
    assert "[2, 0, 0, 0] [8, 6, 6, 3] [1, 1, 1, 1] : tensor<10x6x6x3xf32> to tensor<8x6x6x3xf32>" in text


def test_a_slice_used_otherwise_keeps_its_transpose():
    from fusion_opt.rewrites.slice_transpose import hoist_transposes

    text = SLICED.format(p="1, 2, 3, 0").replace(
        "(tensor<8x6x6x3xf32>, tensor<8x6x6x3xf32>) {", "(tensor<8x6x6x3xf32>, tensor<8x6x6x3xf32>, tensor<3x10x6x6xf32>) {"
    ).replace("return %ta, %tb : tensor<8x6x6x3xf32>, tensor<8x6x6x3xf32>",
              "return %ta, %tb, %x : tensor<8x6x6x3xf32>, tensor<8x6x6x3xf32>, tensor<3x10x6x6xf32>")
    _, module, f, _, _ = describe_text(text)
    assert hoist_transposes(f) == 0  # %x is also returned: one transpose of it would not replace the two


def test_the_one_transpose_moves_above_the_pad():
    """The planes read a padded input: the transpose goes above the pad, which is made anew channels-last
    (IREE's propagation then carries the transpose on up; it does not cross a pad itself)."""
    from fusion_opt.ir import block_ops
    from fusion_opt.rewrites.slice_transpose import hoist_transposes

    text = SLICED.format(p="1, 2, 3, 0").replace("%x: tensor<3x10x6x6xf32>", "%y: tensor<3x8x4x4xf32>").replace(
        "  %a = tensor.extract_slice", """  %z = arith.constant 0.0 : f32
  %x = tensor.pad %y low[0, 1, 1, 1] high[0, 1, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<3x8x4x4xf32> to tensor<3x10x6x6xf32>
  %a = tensor.extract_slice""", 1)
    _, module, f, _, _ = describe_text(text)
    assert hoist_transposes(f) == 1 and f.verify()
    out = str(f)
    assert "linalg.transpose ins(%arg0 : tensor<3x8x4x4xf32>)" in out
    assert "low[1, 1, 1, 0] high[1, 1, 1, 0]" in out and "tensor<8x4x4x3xf32> to tensor<10x6x6x3xf32>" in out


FLAT = """
func.func @f(%x: tensor<4x10x7x7xf32>, %w: tensor<8x4x3xf32>, %o: tensor<8x8x7x7xf32>) -> tensor<8x8x7x7xf32> {
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d1 + d5, d2, d3)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<4x10x7x7xf32>, tensor<8x4x3xf32>) outs(%o : tensor<8x8x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x8x7x7xf32>
  return %c : tensor<8x8x7x7xf32>
}"""


def test_depth_only_kernel_splits_flat_into_matmuls():
    """R(2+1)D's (3, 1, 1) conv (the import folds the unit kernel dims: filter [F, C, KD]): its planes are 2-D
    matmuls over contiguous depth slices of the input made channels-last `[D, H*W, C]`, not 4-D generics
    (which took the layout propagation's transposes on one side only: IREE exceeded its stack limit)."""
    from fusion_opt.rewrites.conv3d import split_3d_convs

    _, module, f, graph, ops = describe_text(FLAT)
    (s,) = find(graph)
    assert s.flat and (s.kd, s.od, s.stride) == (5, 1, 1)
    assert split_3d_convs(graph, ops) == 1
    f.verify()
    text = str(f)
    assert text.count("linalg.generic") == 3  # one per plane (each filter plane a slice: a non-constant filter)
    assert text.count("tensor<8x49x4xf32> to tensor<8x49x4xf32>") == 0  # slices of [10, 49, 4], never copies
    assert text.count("tensor<10x49x4xf32> to tensor<8x49x4xf32>") == 3
    assert "tensor<8x49x8xf32>" in text and text.count("linalg.transpose") == 3  # input, init, result moved once
    strided = FLAT.replace("d1 + d5", "d1 * 2 + d5").replace("4x10x7x7", "4x17x7x7")
    assert find(describe_text(strided)[3]) == []  # a strided depth slice is no matrix: kept
