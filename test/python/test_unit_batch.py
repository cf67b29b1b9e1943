"""Unit-batch batch matmuls as 2-D matmuls (rewrites/unit_batch.py): where it applies and that the numbers
do not change (through IREE, against numpy and the unrewritten build)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import fusion_opt as fo

LIT = Path(__file__).resolve().parents[1] / "lit" / "patterns" / "unit-batch-matmul.mlir"


def test_flattened_matmul_matches_numpy_and_the_batch_matmul():
    text = LIT.read_text()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 16, 32), dtype=np.float32)
    w = rng.standard_normal((1, 32, 64), dtype=np.float32)
    b = rng.standard_normal(64, dtype=np.float32)
    flat = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["unit-batch-matmul"])
    assert dict(flat.plan.patterns).get("unit-batch-matmul") == 1
    assert flat.dispatch_count == 1                      # the bias add and ReLU stay with the matmul
    names = {op.name for op in flat.graphs[0].ops}
    assert "linalg.matmul" in names and "linalg.batch_matmul" not in names
    want = np.maximum(x @ w + b, 0)
    np.testing.assert_allclose(np.asarray(flat(x, w, b)), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(kept(x, w, b)), np.asarray(flat(x, w, b)), rtol=1e-6, atol=1e-6)


def test_a_real_batch_is_left_alone():
    text = LIT.read_text().replace("1x16x32", "2x16x32").replace("1x32x64", "2x32x64").replace(
        "1x16x64", "2x16x64")
    m = fo.compile_mlir(text)
    assert dict(m.plan.patterns).get("unit-batch-matmul") == 0
    assert any(op.name == "linalg.batch_matmul" for op in m.graphs[0].ops)


def test_shared_weight_batch_matmul_becomes_one_matmul_on_the_weight():
    """The broadcast weight's batch folds into M: one 2-D matmul on the weight itself, same numbers."""
    text = (LIT.parent / "unit-batch-shared-weight.mlir").read_text().replace("math.erf", "math.tanh")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 8), dtype=np.float32)
    w = rng.standard_normal((8, 16), dtype=np.float32)
    flat = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["unit-batch-matmul"])
    assert dict(flat.plan.patterns).get("unit-batch-matmul") == 1
    names = [op.name for op in flat.graphs[0].ops]
    assert "linalg.batch_matmul" not in names and names.count("linalg.generic") == 1  # the broadcast is gone
    np.testing.assert_allclose(np.asarray(flat(x, w)), np.tanh(x @ w), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(kept(x, w)), np.asarray(flat(x, w)), rtol=1e-6, atol=1e-6)


def test_layernorm_after_a_batch_2_projection_is_one_group_and_exact():
    """rewrites/collapse_dims.py: the LayerNorm's reductions rebuilt over the collapsed [34, 64] rows (one
    group, 2 dispatches in all); the numbers equal numpy's and the build without the rewrite."""
    lit = LIT.with_name("unit-batch-matmul-layernorm.mlir")
    rng = np.random.default_rng(1)
    x, r = (rng.standard_normal((2, 17, 64), dtype=np.float32) for _ in range(2))
    flat = fo.compile_mlir(lit)
    kept = fo.compile_mlir(lit, disable_patterns=["unit-batch-matmul"])
    assert flat.dispatch_count == 2
    s = x @ np.full((64, 64), 0.01, np.float32) + r
    c = s - s.mean(-1, keepdims=True)
    want = c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(flat(x, r)), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(kept(x, r)), np.asarray(flat(x, r)), rtol=1e-5, atol=1e-5)
