"""A contraction's epilogue handed to IREE where its result is padded for a conv (fusion/epilogue_split.py):
where the cost model splits it (the copy dispatch gone, the matmul left collapsible), where it keeps the
group whole, that pins and `--disable-pattern=pad-conv` keep it whole, and that the compiled module
still computes the padded conv (IREE against numpy)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.backends.flow_ir import copy_dispatches
from fusion_opt.cost.model import data_tileable
from fusion_opt.fusion import plan as plan_with
from fusion_opt.fusion.epilogue_split import epilogue, light, pad_of

from ir_helpers import (conv3x3_ref, describe_text, matmul_pad_conv_mlir, matmul_pool_mlir,
                        pad_conv3x3_tail)


def _channels_last(c: int, f: int, h: int, out_map: str = "(h, w, f)") -> str:
    """A 1x1 conv read from NCHW, written channels-last (what the layout rewrite leaves between two
    convs), bias + relu, padded straight into a channels-last 3x3 conv."""
    return f"""
func.func @f(%x: tensor<{c}x{h}x{h}xf32>, %w1: tensor<{f}x{c}xf32>, %b: tensor<{f}xf32>, %w: tensor<3x3x{f}x{f}xf32>) -> tensor<1x{h}x{h}x{f}xf32> {{
  %z = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<{h}x{h}x{f}xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<{h}x{h}x{f}xf32>) -> tensor<{h}x{h}x{f}xf32>
  %mm = linalg.generic {{indexing_maps = [affine_map<(h, w, f, c) -> (c, h, w)>, affine_map<(h, w, f, c) -> (f, c)>,
      affine_map<(h, w, f, c) -> {out_map}>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}}
      ins(%x, %w1 : tensor<{c}x{h}x{h}xf32>, tensor<{f}x{c}xf32>) outs(%f3 : tensor<{h}x{h}x{f}xf32>) {{
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }} -> tensor<{h}x{h}x{f}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(h, w, f) -> (h, w, f)>, affine_map<(h, w, f) -> (f)>, affine_map<(h, w, f) -> (h, w, f)>],
      iterator_types = ["parallel", "parallel", "parallel"]}} ins(%mm, %b : tensor<{h}x{h}x{f}xf32>, tensor<{f}xf32>) outs(%e3 : tensor<{h}x{h}x{f}xf32>) {{
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  }} -> tensor<{h}x{h}x{f}xf32>
  %ex = tensor.expand_shape %r [[0, 1], [2], [3]] output_shape [1, {h}, {h}, {f}] : tensor<{h}x{h}x{f}xf32> into tensor<1x{h}x{h}x{f}xf32>
""" + pad_conv3x3_tail(f, h, nhwc=True) + "}\n"


def _notes(m: fo.CompiledModel) -> list[str]:
    return [n for p in m.plans for n in p.notes if "(epilogue of group" in n]


def _nchw_case(f: int, c: int, h: int):
    rng = np.random.default_rng(f + h)
    x = rng.standard_normal((c, h * h)).astype(np.float32)
    w1 = (rng.standard_normal((f, c)) * 0.2).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    w = (rng.standard_normal((f, f, 3, 3)) * 0.1).astype(np.float32)
    ref = conv3x3_ref(np.maximum(w1.astype(np.float64) @ x + b[:, None], 0).reshape(1, f, h, h), w)
    return (x, w1, b, w), ref


def test_collapsible_multi_dim_matmul_is_data_tileable() -> None:
    """(H, W) x F x C with H, W adjacent in the input and the output: IREE collapses them, then data-tiles."""
    graph = describe_text(_channels_last(8, 16, 6))[3]
    assert data_tileable(next(op for op in graph.ops if op.kind.value == "contraction"))
    swapped = describe_text(_channels_last(8, 16, 6, out_map="(w, h, f)"))[3]
    assert not data_tileable(next(op for op in swapped.ops if op.kind.value == "contraction"))   # W, H in the output, H, W in the input: no single M loop


def test_epilogue_and_pad_found_through_the_reshape() -> None:
    graph = describe_text(matmul_pad_conv_mlir(32, 48, 16))[3]
    mm = next(i for i, op in enumerate(graph.ops) if op.name == "linalg.matmul")
    relu = graph.consumers(mm)[0]
    pad, split = pad_of(graph, relu)
    assert graph.ops[pad].name == "tensor.pad" and split       # [F, H*W] -> [1, F, H, W]: rows split
    plan = plan_with(graph, "greedy")
    g = next(g for g in plan.groups if mm in g.ops)
    assert epilogue(graph, g) == (relu,)


def test_split_removes_the_copy_dispatch() -> None:
    """Rows of 16 (no masked tail): the epilogue's own dispatch is priced below the group's copy, so it goes
    to IREE, which writes it into the padded buffer; no copy dispatch is left."""
    args, ref = _nchw_case(32, 48, 16)
    m = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 16), layout="nchw")
    assert len(_notes(m)) == 1 and copy_dispatches(m.artifact.sites) == 0, m.report()
    np.testing.assert_allclose(np.asarray(m(*args)), ref, rtol=1e-4, atol=1e-4)
    kept = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 16), layout="nchw", disable_patterns=["pad-conv"])
    assert not _notes(kept) and copy_dispatches(kept.artifact.sites) == 1
    np.testing.assert_allclose(np.asarray(kept(*args)), ref, rtol=1e-4, atol=1e-4)


def test_masked_rows_split_too() -> None:
    """Rows of 14 (the collapsed [F, 196] epilogue would run masked tiles): IREE vectorizes the in-place
    epilogue along the image row, so it is priced as the copy it replaces and split; no copy dispatch is
    left (ResNet-50's 14x14 stage: 6 copies before)."""
    args, ref = _nchw_case(32, 48, 14)
    m = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 14), layout="nchw")
    assert len(_notes(m)) == 1 and copy_dispatches(m.artifact.sites) == 0, m.report()
    np.testing.assert_allclose(np.asarray(m(*args)), ref, rtol=1e-4, atol=1e-4)


def test_one_tile_image_stays_whole() -> None:
    """A 7x7 image is one tile: the whole group is stored through the reshape into the padded buffer
    (transforms/padded_results.py), which the model prices below matmul + epilogue as two dispatches; no
    split, no copy, one dispatch fewer than the split."""
    args, ref = _nchw_case(32, 48, 7)
    m = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 7), layout="nchw")
    assert not _notes(m) and copy_dispatches(m.artifact.sites) == 0, m.report()
    np.testing.assert_allclose(np.asarray(m(*args)), ref, rtol=1e-4, atol=1e-4)
    kept = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 7), layout="nchw", disable_patterns=["pad-conv"])
    assert copy_dispatches(kept.artifact.sites) == 1 and kept.dispatch_count == m.dispatch_count + 1


def test_pinned_group_stays_whole() -> None:
    m = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 16), layout="nchw", fuse=[["linalg.matmul", "linalg.generic"]])
    assert not _notes(m) and copy_dispatches(m.artifact.sites) == 1, m.report()


def test_nothing_is_split_while_bisecting() -> None:
    m = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 16), layout="nchw", max_fusions=5)
    assert not _notes(m), m.report()


def test_direct_pad_of_channels_last_matmul() -> None:
    """The pad reads the epilogue directly (up to a unit dim): kept whole, IREE would store the matmul
    into the padded buffer uncollapsed (DenseNet-121's 1x1 convs: 266 against 440 GFLOP/s); split, the
    matmul stays ours and the epilogue is written in place."""
    c, f, h = 64, 64, 28
    rng = np.random.default_rng(7)
    x = rng.standard_normal((c, h, h)).astype(np.float32)
    w1 = (rng.standard_normal((f, c)) * 0.2).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    w = (rng.standard_normal((3, 3, f, f)) * 0.1).astype(np.float32)
    m = fo.compile_mlir(_channels_last(c, f, h), layout="nchw")
    assert len(_notes(m)) == 1 and copy_dispatches(m.artifact.sites) == 0, m.report()
    a = np.maximum(np.einsum("chw,fc->hwf", x.astype(np.float64), w1) + b, 0)
    ref = conv3x3_ref(a.transpose(2, 0, 1)[None], w.transpose(3, 2, 0, 1)).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(np.asarray(m(x, w1, b, w)), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fusion", ["greedy", "none"])
def test_only_the_cost_planner_splits(fusion: str) -> None:
    m = fo.compile_mlir(matmul_pad_conv_mlir(32, 48, 16), fusion=fusion, layout="nchw")
    assert not _notes(m)


def _shuffle(perm_map: str) -> str:
    """A batch matmul per group, bias, then the channel shuffle as a generic reading `[G, C, N]` through
    `perm_map`, written into `[C, G, N]` (ShuffleNet's grouped 1x1 conv and shuffle)."""
    return f"""
func.func @f(%x: tensor<4x8x32xf32>, %w: tensor<4x8x8xf32>, %b: tensor<4x8xf32>) -> tensor<8x4x32xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %mm = linalg.batch_matmul ins(%w, %x : tensor<4x8x8xf32>, tensor<4x8x32xf32>) outs(%f : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %e2 = tensor.empty() : tensor<8x4x32xf32>
  %s = linalg.generic {{indexing_maps = [affine_map<{perm_map}>, affine_map<(c, g, n) -> (g, c)>, affine_map<(c, g, n) -> (c, g, n)>],
      iterator_types = ["parallel", "parallel", "parallel"]}} ins(%mm, %b : tensor<4x8x32xf32>, tensor<4x8xf32>) outs(%e2 : tensor<8x4x32xf32>) {{
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %t = arith.addf %a, %bb : f32
    linalg.yield %t : f32
  }} -> tensor<8x4x32xf32>
  return %s : tensor<8x4x32xf32>
}}
"""


def test_row_keeping_shuffle_is_light() -> None:
    """A permutation of outer dims that keeps each row (the bias operand has no row: broadcast along it)
    streams like a copy, so it may travel in the epilogue IREE writes in place (ShuffleNet: 13 copies
    of its 16 gone); one that moves the row dim may not."""
    keep = describe_text(_shuffle("(c, g, n) -> (g, c, n)"))[3]
    assert light(next(op for op in keep.ops if op.kind.value == "injective"))
    moved = describe_text("""
func.func @t(%x: tensor<8x16xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(a, b) -> (b, a)>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}
""")[3]
    inj = [op for op in moved.ops if op.kind.value == "injective"]
    assert inj and not light(inj[0])


def test_no_split_where_window_taps_read_the_pad_interior() -> None:
    """A pad read by window taps: IREE folds the centre tap's slice into the pad's source, so the taps read
    the unpadded value too and an epilogue split off would not be written in place, only add its dispatch.
    The epilogue stays in the matmul's group, whose result is then padded flat (transforms/flat_taps.py):
    no copy; numerics hold."""
    f, c, h = 32, 48, 16
    m = fo.compile_mlir(matmul_pool_mlir(f, c, h, 1, 1, "arith.addf", "0.0"), layout="nchw")
    assert not _notes(m) and copy_dispatches(m.artifact.sites) == 0, m.report()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((c, h * h)).astype(np.float32)
    w1 = (rng.standard_normal((f, c)) * 0.2).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    act = np.pad(np.maximum(w1.astype(np.float64) @ x + b[:, None], 0).reshape(f, h, h), ((0, 0), (1, 1), (1, 1)))
    ref = sum(act[:, i:i + h, j:j + h] for i in range(3) for j in range(3))
    np.testing.assert_allclose(np.asarray(m(x, w1, b)), ref, rtol=1e-4, atol=1e-4)
