"""Window taps over a padded 1x1 conv result read from a flat padded buffer (transforms/flat_taps.py): the
matmul's region stores into the flat buffer in place (no copy dispatch), and the column-masked flat
taps compute the padded pool exactly (IREE against numpy), for zero and -inf padding, symmetric and not."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.backends.flow_ir import copy_dispatches

from ir_helpers import matmul_pool_mlir


@pytest.mark.parametrize("low, high, body, pad", [(1, 1, "arith.addf", "0.0"),
                                                  (0, 2, "arith.maximumf", "0xFF800000")])
def test_flat_taps_no_copy_and_exact(low: int, high: int, body: str, pad: str) -> None:
    f, c, h = 16, 24, 20
    rng = np.random.default_rng(low + high)
    x = rng.standard_normal((c, h * h)).astype(np.float32)
    w1 = (rng.standard_normal((f, c)) * 0.3).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32) - 0.5
    text = matmul_pool_mlir(f, c, h, low, high, body, pad)
    ours = fo.compile_mlir(text)
    assert copy_dispatches(ours.artifact.sites) == 0, ours.report()
    y = np.maximum(w1.astype(np.float64) @ x + b[:, None], 0).reshape(f, h, h)
    fill = 0.0 if body == "arith.addf" else -np.inf
    padded = np.pad(y, ((0, 0), (low, high), (low, high)), constant_values=fill)
    taps = [padded[:, i:i + h + low + high - 2, j:j + h + low + high - 2] for i in range(3) for j in range(3)]
    ref = sum(taps) if body == "arith.addf" else np.maximum.reduce(taps)
    np.testing.assert_allclose(np.asarray(ours(x, w1, b)), ref, rtol=1e-4, atol=1e-4)
    # without writing pads into regions (pattern pad-conv off) the pad is IREE's copy again
    plain = fo.compile_mlir(text, disable_patterns=("pad-conv",))
    assert copy_dispatches(plain.artifact.sites) == 1, plain.report()
    np.testing.assert_allclose(np.asarray(plain(x, w1, b)), ref, rtol=1e-4, atol=1e-4)
