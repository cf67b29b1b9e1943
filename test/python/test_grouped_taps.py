"""grouped-taps (rewrites/grouped_taps.py): which grouped convs become chains of window-tap sums, that the
chain is one dispatch, and that results stay those of onnxruntime and of the unrewritten build."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.rewrites.grouped_taps import find
from ir_helpers import conv_relu_model, describe_text, rewritten_like_ort


def _grouped(c, f, group, hw, kernel=3, strides=1, dilations=1, pads=1, bn=False):
    w = np.random.default_rng(0).standard_normal((f, c // group, kernel, kernel)) * 0.3
    return conv_relu_model([1, c, hw, hw], w, bn, group=group, strides=[strides] * 2, dilations=[dilations] * 2,
                           pads=[pads] * 4)


@pytest.mark.parametrize("args, kw, hits", [
    ((64, 64, 16, 20), {}, 1),                                     # ResNeXt's 4 channels a group
    ((32, 64, 16, 12), {"bn": True}, 1),                           # 2 in, 4 out a group, BatchNorm folded first
    ((64, 64, 8, 14), {"dilations": 2, "pads": 2}, 1),             # 8 a group, dilated
    ((128, 128, 8, 10), {}, 0),                                    # 16 a group: too wide, kept
    ((64, 64, 16, 20), {"strides": 2}, 0),                         # strided: kept
    ((32, 32, 8, 12), {"kernel": 7, "pads": 3}, 0),                # 49 taps: kept
])
def test_matches_onnxruntime(args, kw, hits):
    model = _grouped(*args, **kw)
    m, got = rewritten_like_ort(model, "grouped-taps", hits)
    if hits:
        chain = args[0] // args[2]  # one op per input channel of a group; the planner fuses them, 4+ a dispatch
        assert m.dispatch_count <= 1 + (chain + 3) // 4  # and the input pad's copy
        off = fo.compile_onnx(model, disable_patterns=["grouped-taps"])
        assert "grouped-taps" not in dict(off.plan.patterns)
        x = np.random.default_rng(1).standard_normal([1, args[0], args[3], args[3]]).astype(np.float32)
        np.testing.assert_allclose(np.asarray(off(x)), got, rtol=1e-5, atol=1e-5)


def test_the_cost_model_takes_the_chain_for_resnext_layer1():
    """ResNeXt-50's layer-1 grouped conv: measured 3.5 ms direct, 0.27-0.30 ms as the chain."""
    text = """
func.func @f(%x: tensor<32x4x58x58xf32>, %w: tensor<32x4x4x3x3xf32>, %o: tensor<32x4x56x56xf32>) -> tensor<32x4x56x56xf32> {
  %c = linalg.generic {indexing_maps = [affine_map<(g, f, h, w, c, kh, kw) -> (g, c, h + kh, w + kw)>,
                                        affine_map<(g, f, h, w, c, kh, kw) -> (g, f, c, kh, kw)>,
                                        affine_map<(g, f, h, w, c, kh, kw) -> (g, f, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<32x4x58x58xf32>, tensor<32x4x4x3x3xf32>) outs(%o : tensor<32x4x56x56xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x4x56x56xf32>
  return %c : tensor<32x4x56x56xf32>
}"""
    from fusion_opt.cost import get_target_desc
    from fusion_opt.rewrites.grouped_taps import decide

    graph = describe_text(text)[3]
    (s,) = find(graph)
    assert s.dilation == (1, 1)
    assert decide(graph.ops[s.conv], get_target_desc("host")).take
    assert find(describe_text(text.replace("h + kh", "h * 2 + kh").replace("32x4x58x58", "32x4x113x58"))[3]) == []
