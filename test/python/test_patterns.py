"""The pattern registry: hits on the suite models, Conv-BN folding numerics (incl. a conv with its own
bias), and what disabling a pattern does."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.bench.models import ensure_model
from fusion_opt.errors import InputError
from fusion_opt.importers import import_onnx
from fusion_opt.ir import new_session
from fusion_opt.patterns import PATTERN_NAMES, PATTERNS
from fusion_opt.pipelines import plan_module


def _vec(values: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.5f}" for v in values) + "]"


def _dense(a: np.ndarray) -> str:
    return _vec(a) if a.ndim == 1 else "[" + ", ".join(_dense(x) for x in a) + "]"


def conv_bn_mlir(bias: bool, seed: int = 0) -> str:
    """conv (4 output channels, optionally accumulating into its bias) + BatchNorm + relu, with
    per-channel constants that differ across channels (a channel mix-up changes the numbers)."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(-1, 1, (4, 3, 3, 3))
    wtxt = _dense(w)
    mean, rstd, gamma, beta, b = (rng.uniform(lo, hi, 4) for lo, hi in
                                  ((-0.5, 0.5), (0.5, 2), (0.5, 1.5), (-0.3, 0.3), (-1, 1)))
    init = ("%init = linalg.generic {indexing_maps = [#ch3, #id3], iterator_types = [\"parallel\", \"parallel\", "
            "\"parallel\"]} ins(%bias : tensor<4xf32>) outs(%e : tensor<4x8x8xf32>) {\n"
            "  ^bb0(%a: f32, %o: f32):\n    linalg.yield %a : f32\n  } -> tensor<4x8x8xf32>" if bias else
            "%init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>")

    def step(name: str, src: str, c: str, op: str) -> str:
        return (f"%{name} = linalg.generic {{indexing_maps = [#id3, #ch3, #id3], iterator_types = [\"parallel\", "
                f"\"parallel\", \"parallel\"]}} ins(%{src}, %{c} : tensor<4x8x8xf32>, tensor<4xf32>) outs(%e : "
                f"tensor<4x8x8xf32>) {{\n  ^bb0(%a: f32, %b: f32, %o: f32):\n    %r = {op} %a, %b : f32\n"
                f"    linalg.yield %r : f32\n  }} -> tensor<4x8x8xf32>")

    return f"""#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ch3 = affine_map<(d0, d1, d2) -> (d0)>
func.func @cbr(%x: tensor<3x10x10xf32>) -> tensor<4x8x8xf32> {{
  %w = arith.constant dense<{wtxt}> : tensor<4x3x3x3xf32>
  %mean = arith.constant dense<{_vec(mean)}> : tensor<4xf32>
  %rstd = arith.constant dense<{_vec(rstd)}> : tensor<4xf32>
  %gamma = arith.constant dense<{_vec(gamma)}> : tensor<4xf32>
  %beta = arith.constant dense<{_vec(beta)}> : tensor<4xf32>
  %bias = arith.constant dense<{_vec(b)}> : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  {init}
  %c = linalg.generic {{indexing_maps = [affine_map<(f, h, w, c, kh, kw) -> (c, h + kh, w + kw)>,
                                        affine_map<(f, h, w, c, kh, kw) -> (f, c, kh, kw)>,
                                        affine_map<(f, h, w, c, kh, kw) -> (f, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}}
      ins(%x, %w : tensor<3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<4x8x8xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }} -> tensor<4x8x8xf32>
  {step("s1", "c", "mean", "arith.subf")}
  {step("s2", "s1", "rstd", "arith.mulf")}
  {step("s3", "s2", "gamma", "arith.mulf")}
  {step("s4", "s3", "beta", "arith.addf")}
  return %s4 : tensor<4x8x8xf32>
}}
"""


@pytest.mark.parametrize("bias", [False, True])
def test_conv_bn_fold_matches_the_unfolded_module(bias: bool) -> None:
    text = conv_bn_mlir(bias)
    x = np.random.default_rng(3).uniform(-1, 1, (3, 10, 10)).astype(np.float32)
    folded = fo.compile_mlir(text)
    kept = fo.compile_mlir(text, disable_patterns=["conv-bn"])
    assert dict(folded.plan.patterns)["conv-bn"] == 1 and "conv-bn" not in dict(kept.plan.patterns)
    np.testing.assert_allclose(np.asarray(folded(x)), np.asarray(kept(x)), rtol=1e-5, atol=1e-5)


def test_fold_leaves_one_epilogue_op_and_no_subtraction() -> None:
    m = fo.compile_mlir(conv_bn_mlir(True), disable_patterns=["conv-strategy"])  # keep the conv a conv
    ops = [m.graphs[0].ops[i].body_ops for g in m.plan.groups for i in g.ops]
    assert ("arith.subf",) not in ops
    conv_group = next(g for g in m.plan.groups if g.kind.startswith("convolution"))
    members = [m.graphs[0].ops[i] for i in conv_group.ops]
    # the conv accumulating into a zero fill (its own bias folded into the shift) and one bias add
    assert [o.name for o in members].count("linalg.fill") == 1 and len(members) == 3
    assert [o.body_ops for o in members if o.kind.value != "convolution" and o.name != "linalg.fill"] == [("arith.addf",)]


def _plan(name: str, **kw):
    sess = new_session()
    module, _ = import_onnx(ensure_model(name), sess.context)
    planned = plan_module(module, "cost", name, **kw)
    return sess, dict(planned[0].plan.patterns), planned[0]


def test_hits_on_suite_models() -> None:
    _, resnet, p = _plan("resnet50")
    # 16 padded 3x3 convs: 13 of stride 1 are Winograd sites (their pad feeds the input transform when
    # taken: the 56x56, 28x28 and 14x14 ones; the 7x7 ones stay im2col), the rest stay pad-conv
    taken = sum(": winograd (predicted" in n for n in p.plan.notes)
    assert resnet["conv-bn"] == 53 and resnet["softmax"] == 1 and resnet["winograd"] == 13
    assert taken >= 8 and resnet["pad-conv"] + taken >= 16
    assert not any(p.graph.ops[i].body_ops == ("arith.subf",) for g in p.plan.groups for i in g.ops)
    _, bert, _ = _plan("bert_layer")
    assert bert["layernorm"] == 2 and bert["linear-gelu"] == 1 and bert["attention"] == 1
    assert bert["sibling-matmuls"] == 1 and bert["softmax"] == 1


def test_disabling_a_grouping_pattern_keeps_its_ops_apart() -> None:
    from fusion_opt.fusion.control import ControlSpec
    _, on, p_on = _plan("layernorm")
    _, off, p_off = _plan("layernorm", control=ControlSpec.from_options(disable_patterns=["layernorm"]))
    assert on["layernorm"] == 1 and "layernorm" not in off
    assert len(p_on.plan.groups) == 1 and len(p_off.plan.groups) > 3


def test_registry_is_complete_and_unknown_names_are_refused() -> None:
    assert len(set(PATTERN_NAMES)) == len(PATTERNS) >= 10
    assert all(p.why and p.strategy for p in PATTERNS)
    with pytest.raises(InputError, match="unknown pattern 'nope'"):
        fo.compile_mlir(conv_bn_mlir(False), disable_patterns=["nope"])
