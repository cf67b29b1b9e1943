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
