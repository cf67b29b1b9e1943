"""Conv/matmul biases moved from the accumulator to an epilogue add (rewrites/bias_epilogue.py), and the
window copies handed to IREE when the compile data-tiles their matmul (fusion/handoff.py packed-copy)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import fusion_opt as fo
from fusion_opt.pipelines import plan_module
from fusion_opt.rewrites import bias_epilogue
from ir_helpers import parse_module

LIT = Path(__file__).resolve().parents[1] / "lit" / "patterns"


def conv_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    f, c, kh, kw = w.shape
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((f, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("fc,chw->fhw", w[:, :, i, j], x[:, i:i + oh, j:j + ow])
    return np.maximum(out + b[:, None, None], 0).astype(np.float32)


def test_bias_moves_to_the_epilogue_and_numerics_hold():
    text = (LIT / "bias-epilogue.mlir").read_text()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 10, 10), dtype=np.float32)
    w = rng.standard_normal((16, 8, 3, 3), dtype=np.float32)
    b = np.arange(1, 17, dtype=np.float32) / 10
    moved = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["bias-epilogue"])
    assert dict(moved.plan.patterns).get("bias-epilogue") == 1 and "bias-epilogue" not in dict(kept.plan.patterns)
    want = conv_ref(x, w, b)
    np.testing.assert_allclose(np.asarray(moved(x, w)), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(kept(x, w)), np.asarray(moved(x, w)), rtol=1e-5, atol=1e-5)


def _planned(text: str, data_tiling: bool, control=None, function: int = 0):
    sess, module = parse_module(text)
    return plan_module(module, "cost", "t.mlir", "host", data_tiling=data_tiling, control=control)[function]


def test_a_broadcast_used_elsewhere_stays_the_init():
    text = (LIT / "bias-epilogue.mlir").read_text().replace(
        "-> tensor<16x8x8xf32> {\n  %z", "-> (tensor<16x8x8xf32>, tensor<16x8x8xf32>) {\n  %z").replace(
        "return %r : tensor<16x8x8xf32>", "return %r, %i : tensor<16x8x8xf32>, tensor<16x8x8xf32>")
    p = _planned(text, data_tiling=True)
    assert bias_epilogue.find(p.graph) == [] and dict(p.plan.patterns).get("bias-epilogue") == 0


def test_window_copies_go_to_iree_only_when_their_matmul_is_data_tiled_and_rows_are_whole_tiles():
    """@conv's 28-wide rows are not whole packed tiles (8 columns on the reference host): its copy stays
    ours either way; @conv_whole_rows' 32-wide rows are, and its copy goes to IREE when data-tiled."""
    from fusion_opt.fusion.control import ControlSpec

    text = (LIT / "conv-strategy.mlir").read_text()
    no_winograd = ControlSpec.from_options(disable_patterns=["winograd"], layout="nchw")  # it takes these 3x3 convs
    for function, handed in ((0, False), (1, True)):
        tiled, plain = (_planned(text, data_tiling=t, control=no_winograd, function=function) for t in (True, False))
        for p in (tiled, plain):
            assert any(": im2col + matmul (" in n for n in p.plan.notes)
        copy = next(op.index for op in tiled.graph.ops if op.kind.value == "injective" and op.name == "linalg.generic")
        note = any("window copy feeding a data-tiled matmul" in n for n in tiled.plan.notes)
        assert (copy in tiled.plan.unplaced and note) == handed and note == handed
        assert any("kept: a window copy whose" in n for n in tiled.plan.notes) == (not handed)
        assert not any("window copy feeding" in n for n in plain.plan.notes)
        assert any(copy in g.ops for g in plain.plan.groups)


def test_window_copies_compile_right_either_way():
    """Both copies data-tiled: ours with IREE's packing dispatch (28-wide rows), IREE's own (32-wide)."""
    text = (LIT / "conv-strategy.mlir").read_text()
    cut = text.index("func.func @conv_whole_rows(")
    rng = np.random.default_rng(1)
    w = rng.standard_normal((32, 32, 3, 3), dtype=np.float32)
    for one, side in ((text[:cut], 30), (text[cut:], 34)):
        x = rng.standard_normal((32, side, side), dtype=np.float32)
        m = fo.compile_mlir(one, disable_patterns=["winograd"], layout="nchw")
        assert m.fallbacks == ()
        np.testing.assert_allclose(np.asarray(m(x, w)), conv_ref(x, w, np.zeros(32, np.float32)),
                                   rtol=1e-4, atol=1e-4)


def test_packed_in_copy_reads_the_image_row():
    """Rows walked by the innermost loop decide; a channels-last copy (innermost loop a channel) is
    packed in its own dispatch whatever its width."""
    from fusion_opt.analysis.classify import image_row, packed_in_copy
    from fusion_opt.analysis.opdesc import OpDesc, OpKind

    def copy(in_map: str, ranges: tuple[int, ...]) -> OpDesc:
        return OpDesc(0, "linalg.generic", "t", OpKind.INJECTIVE, loop_ranges=ranges, num_dps_inputs=1,
                      indexing_maps=(in_map, "(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)"))

    nchw = "(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)"
    assert image_row(copy(nchw, (32, 3, 3, 28, 28))) == 28
    assert not packed_in_copy(copy(nchw, (32, 3, 3, 28, 28)), 8)
    assert packed_in_copy(copy(nchw, (32, 3, 3, 32, 32)), 16)
    strided = "(d0, d1, d2) -> (d0, d1 * 2, d2 * 2)"
    assert image_row(OpDesc(0, "linalg.generic", "t", OpKind.INJECTIVE, loop_ranges=(256, 28, 28),
                            indexing_maps=(strided, "(d0, d1, d2) -> (d0, d1, d2)"))) == 28
    nhwc = "(d0, d1, d2, d3, d4) -> (d0 + d2, d1 + d3, d4)"
    assert image_row(copy(nhwc, (28, 28, 3, 3, 32))) is None and packed_in_copy(copy(nhwc, (28, 28, 3, 3, 30)), 16)
