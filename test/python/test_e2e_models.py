"""End-to-end numerics: real-weight models compiled by IREE with our plan match onnxruntime.

Every model of the issue's list, under our cost-driven plan (the default), the greedy plan and IREE's
own fusion, against the
onnxruntime reference stored beside the model (rtol 1e-3, atol 1e-4).
"""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.bench.models import ensure_model, load_inputs

pytest.importorskip("onnxruntime")

MODELS = ["resnet50", "squeezenet", "densenet121", "inception_v2", "shufflenet", "vgg19",
          "mlp_gelu", "layernorm", "attention", "bert_layer"]
RTOL, ATOL = 1e-3, 1e-4


@pytest.mark.parametrize("fusion", ["cost", "greedy", "iree"])
@pytest.mark.parametrize("name", MODELS)
def test_model_matches_onnxruntime(name: str, fusion: str) -> None:
    path = ensure_model(name)
    inputs, refs = load_inputs(path)
    assert refs, f"{name}: no reference outputs recorded"
    m = fo.compile_onnx(path, target="llvm-cpu", fusion=fusion)
    out = m(*[inputs[n] for n in m.input_names])
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(refs)
    for got, ref in zip(outs, refs):
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_allclose(got, ref, rtol=RTOL, atol=ATOL)
    assert m.dispatch_count > 0
    if fusion != "iree":
        assert m.plan.groups, f"{fusion} planning produced no groups"
        placed = {i for g in m.plan.groups for i in g.ops}
        assert len(placed) == sum(len(g.ops) for g in m.plan.groups), "an op is in two groups"
    else:
        assert not m.plan.groups
