"""An average pool projected by a 1x1 conv computed as the conv first (rewrites/pool_conv.py): where it
applies, where it must not (a max pool, more output channels, a divisor that reads the channel, a pool
read twice), and that the compiled module computes the same as numpy and as the unswapped build."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.rewrites import pool_conv
from ir_helpers import describe_text

TEXT = (Path(__file__).resolve().parents[1] / "lit" / "patterns" / "pool-conv-swap.mlir").read_text()


def _reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, include_pad: bool = False) -> np.ndarray:
    c, h, _ = x.shape
    p = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    s = sum(p[:, i:i + h, j:j + h] for i in range(3) for j in range(3))
    ones = np.pad(np.ones((h, h)), 1)
    count = np.full((h, h), 9.0) if include_pad else sum(ones[i:i + h, j:j + h] for i in range(3) for j in range(3))
    y = np.einsum("fc,chw->fhw", w, s / count) + b[:, None, None]
    return np.maximum(y, 0).astype(np.float32)


def _args(c: int = 16, f: int = 8):
    rng = np.random.default_rng(7)
    return (rng.standard_normal((c, 6, 6)).astype(np.float32), rng.standard_normal((f, c)).astype(np.float32),
            rng.standard_normal(f).astype(np.float32))


def _sites(text: str) -> list:
    sess, module, _, graph, _ = describe_text(text)
    return pool_conv.find(graph)


def _applied(text: str) -> int:
    sess, module, _, graph, ops = describe_text(text)   # the session owns the IR: keep it alive
    return pool_conv.swap_pools(graph, ops)


def test_swapped_and_numerics_hold() -> None:
    swapped = fo.compile_mlir(TEXT)
    kept = fo.compile_mlir(TEXT, disable_patterns=["pool-conv-swap"])
    assert dict(swapped.plan.patterns).get("pool-conv-swap") == 1 and "pool-conv-swap" not in dict(kept.plan.patterns)
    args = _args()
    np.testing.assert_allclose(np.asarray(swapped(*args)), _reference(*args), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(swapped(*args)), np.asarray(kept(*args)), rtol=1e-5, atol=1e-5)


def test_a_constant_divisor_swaps_too() -> None:
    """count_include_pad=1: the sum divided by 9 everywhere; the padded taps are zero on both sides."""
    body = TEXT[TEXT.index("    %y = linalg.index 1"):TEXT.index("    %d = arith.divf")]
    text = TEXT.replace(body, "    %nf = arith.constant 9.0 : f32\n")
    assert _applied(text) == 1
    args = _args()
    np.testing.assert_allclose(np.asarray(fo.compile_mlir(text)(*args)), _reference(*args, include_pad=True),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("why, old, new", [
    ("a max pool is not linear", "%a = arith.addf %o, %in : f32", "%a = arith.maximumf %o, %in : f32"),
    ("more output channels than input ones", "tensor<8x", "tensor<32x"),
    ("the pool's result read twice", "return %relu : tensor<8x6x6xf32>",
     "return %relu, %avg : tensor<8x6x6xf32>, tensor<16x6x6xf32>"),
])
def test_not_found(why: str, old: str, new: str) -> None:
    text = TEXT.replace(old, new)
    if "%avg : tensor" in new:
        text = text.replace("-> tensor<8x6x6xf32> {\n  %z", "-> (tensor<8x6x6xf32>, tensor<16x6x6xf32>) {\n  %z")
    assert _sites(TEXT) and not _sites(text), why


def test_a_divisor_reading_the_channel_is_refused() -> None:
    """Found by structure, refused on the IR: dividing channel k by its own count does not commute with
    mixing the channels."""
    text = TEXT.replace("%y = linalg.index 1 : index", "%y = linalg.index 0 : index")
    assert _sites(text) and _applied(text) == 0


AFTER = (Path(__file__).resolve().parents[1] / "lit" / "patterns" / "pool-conv-swap-after.mlir").read_text()


def test_pool_after_the_conv_runs_first_and_numerics_hold() -> None:
    """DenseNet's transition: conv 16 -> 8 channels, 2x2 stride-2 average pool; swapped, the conv sees a
    quarter of the pixels."""
    swapped = fo.compile_mlir(AFTER)
    kept = fo.compile_mlir(AFTER, disable_patterns=["pool-conv-swap"])
    assert dict(swapped.plan.patterns).get("pool-conv-swap") == 1
    rng = np.random.default_rng(11)
    x = rng.standard_normal((16, 8, 8)).astype(np.float32)
    w = rng.standard_normal((8, 16)).astype(np.float32)
    y = np.einsum("fc,chw->fhw", w.astype(np.float64), x)
    want = y.reshape(8, 4, 2, 4, 2).mean(axis=(2, 4))
    np.testing.assert_allclose(np.asarray(swapped(x, w)), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(kept(x, w)), want, rtol=1e-5, atol=1e-5)


def test_pool_after_the_conv_stays_where_it_saves_nothing() -> None:
    """64 -> 2 channels then a 3x3 stride-1 pool: the pool over 64 channels would add more than the conv's
    products saved on the border pixels; and a conv result read twice is not moved."""
    few = AFTER.replace("tensor<8x16xf32>", "tensor<2x64xf32>").replace("16x8x8", "64x8x8")
    few = few.replace("tensor<8x8x8xf32>", "tensor<2x8x8xf32>").replace("tensor<8x4x4xf32>", "tensor<2x6x6xf32>")
    few = few.replace("d1 * 2 + d3, d2 * 2 + d4", "d1 + d3, d2 + d4").replace("tensor<2x2xf32>", "tensor<3x3xf32>")
    assert _sites(AFTER) and not _sites(few)
    twice = AFTER.replace("-> tensor<8x4x4xf32> {\n  %z", "-> (tensor<8x4x4xf32>, tensor<8x8x8xf32>) {\n  %z")
    twice = twice.replace("return %avg : tensor<8x4x4xf32>", "return %avg, %conv : tensor<8x4x4xf32>, tensor<8x8x8xf32>")
    assert not _sites(twice)
