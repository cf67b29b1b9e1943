"""Channels-last layout (`layout="nhwc"`, rewrites/layout.py): convs rewritten NHWC before planning, the
transposes between them cancelled, results unchanged (real-weight models against onnxruntime)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.bench.models import ensure_model, load_inputs
from fusion_opt.analysis.describe import describe_function
from fusion_opt.errors import InputError
from fusion_opt.ir import block_ops, functions, ir, new_session
from fusion_opt.rewrites.layout import nchw_convs, to_channels_last

from ir_helpers import relu_pad_conv_mlir

TWO_CONVS = relu_pad_conv_mlir(8, 16, 16, first_conv=True)


def test_conversion_leaves_two_activation_transposes() -> None:
    """Input and output only: the pair between the convs cancels through the relu and the pad."""
    with new_session().context:
        m = ir.Module.parse(TWO_CONVS)
        f = functions(m)[0]
        assert nchw_convs(describe_function(f)[0]) == 2
        assert to_channels_last(f, describe_function(f)[0]) == 2 and nchw_convs(describe_function(f)[0]) == 0
        ops = block_ops(f)
        assert sum(o.name == "linalg.conv_2d_nhwc_hwcf" for o in ops) == 2
        acts = [o for o in ops if o.name == "linalg.transpose" and "16x8x3x3" not in str(o.operands[0].type)
                and "16x16x3x3" not in str(o.operands[0].type)]
        assert len(acts) == 2, [str(o.operands[0].type) for o in acts]
        assert to_channels_last(f, describe_function(f)[0]) == 0  # nothing left to convert


def test_two_convs_compute_the_same_in_both_layouts() -> None:
    rng = np.random.default_rng(7)
    args = (rng.standard_normal((1, 8, 16, 16)).astype(np.float32),
            (rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(np.float32),
            (rng.standard_normal((16, 16, 3, 3)) * 0.2).astype(np.float32))
    nhwc = fo.compile_mlir(TWO_CONVS, layout="nhwc")
    nchw = fo.compile_mlir(TWO_CONVS)
    assert any("channels-last" in n for n in nhwc.plan.notes)
    np.testing.assert_allclose(np.asarray(nhwc(*args)), np.asarray(nchw(*args)), rtol=1e-4, atol=1e-4)


def test_layout_needs_the_cost_planner_and_a_known_name() -> None:
    with pytest.raises(InputError, match="layout nhwc"):
        fo.compile_mlir(TWO_CONVS, layout="nhwc", fusion="greedy")
    with pytest.raises(InputError, match="unknown layout"):
        fo.compile_mlir(TWO_CONVS, layout="nchwc")


@pytest.mark.parametrize("name", ["resnet50", "squeezenet"])
def test_channels_last_model_matches_onnxruntime(name: str) -> None:
    pytest.importorskip("onnxruntime")
    path = ensure_model(name)
    inputs, refs = load_inputs(path)
    m = fo.compile_onnx(path, layout="nhwc")
    assert any("channels-last" in n for n in m.plan.notes), m.report()
    out = m(*[inputs[n] for n in m.input_names])
    outs = out if isinstance(out, tuple) else (out,)
    for got, ref in zip(outs, refs):
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-4)
