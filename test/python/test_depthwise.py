"""Depthwise convs as window taps (rewrites/depthwise.py): which ops qualify, what the cost model picks,
and that the rewritten module computes what the depthwise conv computes (through IREE, random inputs)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.analysis.opdesc import OpDesc, OpKind
from fusion_opt.cost import get_target_desc
from fusion_opt.cost.model import estimate
from fusion_opt.rewrites.depthwise import channels_innermost, decide, dense_ranges, taps_desc, window
from fusion_opt.rewrites.layout import nhwc_desc, perms

# ShuffleNet's form after unit-dim folding: loops (oh, ow, c, kh, kw), the channel loop last of the output's.
DW_MAPS = ("(d0, d1, d2, d3, d4) -> (d2, d0 * {s} + d3, d1 * {s} + d4)", "(d0, d1, d2, d3, d4) -> (d2, d3, d4)",
           "(d0, d1, d2, d3, d4) -> (d2, d0, d1)")


def dw_desc(c: int, hw: int, k: int, s: int = 1) -> OpDesc:
    o = (hw - k) // s + 1
    maps = tuple(m.format(s=s).replace("d0 * 1", "d0").replace("d1 * 1", "d1") for m in DW_MAPS)
    return OpDesc(index=0, name="linalg.generic", loc="t", kind=OpKind.CONVOLUTION, loop_ranges=(o, o, c, k, k),
                  iterator_types=("parallel",) * 3 + ("reduction",) * 2, indexing_maps=maps,
                  map_dims=((2, -1, -1), (2, 3, 4), (2, 0, 1)), element_types=("f32",) * 4,
                  operand_shapes=((c, hw, hw), (c, k, k), (c, o, o)), result_shapes=((c, o, o),),
                  operands=(-1, None, None), num_dps_inputs=2, body_ops=("arith.mulf", "arith.addf"),
                  flops=2 * c * o * o * k * k, bytes_read=4 * (c * hw * hw + c * k * k), bytes_written=4 * c * o * o)


def test_window_of_a_depthwise_conv_and_what_it_is_not() -> None:
    win = window(dw_desc(136, 30, 3))
    assert win is not None and win.channel == 2 and win.taps == (3, 4)
    assert win.reads == (None, (0, 1, 3, 1), (1, 1, 4, 1))
    assert window(dw_desc(136, 57, 3, 2)).reads == (None, (0, 2, 3, 1), (1, 2, 4, 1))
    plain = OpDesc(**{**dw_desc(8, 10, 3).__dict__,  # the filter reads no output dim: a channel reduction
                      "indexing_maps": ("(d0, d1, d2, d3, d4) -> (d3, d0 + d4, d1)", "(d0, d1, d2, d3, d4) -> (d3, d4)",
                                        "(d0, d1, d2, d3, d4) -> (d2, d0, d1)")})
    assert window(plain) is None
    assert window(dw_desc(8, 20, 7)) is None  # 49 taps: over MAX_TAPS
    assert window(OpDesc(**{**dw_desc(8, 10, 3).__dict__, "body_ops": ("arith.mulf", "arith.subf")})) is None


def test_taps_desc_and_the_cost_models_choice() -> None:
    op = dw_desc(136, 30, 3)
    d = taps_desc(op, window(op))
    assert d.num_dps_inputs == 18 and d.flops == op.flops and d.result_shapes == ((136, 28, 28),)
    c = decide(op, window(op), get_target_desc("host"))
    assert c.take and c.after_s < c.before_s
    # a GPU: IREE's conv is the same stencil (H200: ShuffleNet equal either way, 3 dispatches fewer direct)
    g = decide(op, window(op), get_target_desc("sm_90"))
    assert not g.take and g.before_s <= g.after_s
    # stride 2: priced as the dense taps (55x55 positions for a 28x28 output) its rewrite computes
    s2 = dw_desc(112, 57, 3, 2)
    d2 = taps_desc(s2, window(s2))
    assert d2.result_shapes == ((112, 55, 55),) and d2.loop_ranges == (112, 55, 55)
    assert d2.flops == round(s2.flops * 55 * 55 / (28 * 28))


def test_taps_count_the_vector_lanes_their_rows_fill() -> None:
    """Channels-first taps over a 7-wide image run 7 of 16 lanes (EfficientNet's 1152x7x7 5x5: 69 us
    measured, 22 priced at full vectors): priced as 16 / 7 of their FLOPs; a 14-wide row as 16 / 14; no
    lanes given (a GPU) or a whole vector: as computed."""
    op = dw_desc(1152, 11, 5)
    win = window(op)
    assert taps_desc(op, win, 16).flops == round(op.flops * 16 / 7)
    assert taps_desc(op, win).flops == op.flops
    wide = dw_desc(64, 18, 3)
    assert taps_desc(wide, window(wide), 16).flops == round(wide.flops * 16 / 16)
    mid = dw_desc(64, 16, 3)
    assert taps_desc(mid, window(mid), 16).flops == round(mid.flops * 16 / 14)
    host = get_target_desc("host")
    assert decide(op, win, host).after_s > estimate([taps_desc(op, win)], host).time_s


def test_channels_last_strided_taps_have_no_dense_form() -> None:
    """Channels innermost, a stride-2 conv's taps slice whole rows of channels with the stride (IREE
    vectorizes along the channels), so they run over the output only: no dense form, no strided slice."""
    op = dw_desc(112, 57, 3, 2)
    nhwc = nhwc_desc(op, perms(op))
    win = window(nhwc)
    assert win is not None and channels_innermost(win) and not channels_innermost(window(op))
    assert dense_ranges(nhwc, win) == nhwc.loop_ranges == (28, 28, 112, 3, 3)
    d = taps_desc(nhwc, win)
    assert d.result_shapes == ((28, 28, 112),) and d.flops == nhwc.flops


def dw_mlir(c: int, hw: int, k: int, s: int) -> str:
    o = (hw - k) // s + 1
    m = [x.format(s=s) for x in DW_MAPS]
    return f"""
func.func @dw(%x: tensor<{c}x{hw}x{hw}xf32>, %w: tensor<{c}x{k}x{k}xf32>, %b: tensor<{c}xf32>) -> tensor<{c}x{o}x{o}xf32> {{
  %e = tensor.empty() : tensor<{c}x{o}x{o}xf32>
  %i = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]}} ins(%b : tensor<{c}xf32>) outs(%e : tensor<{c}x{o}x{o}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }} -> tensor<{c}x{o}x{o}xf32>
  %y = linalg.generic {{indexing_maps = [affine_map<{m[0]}>, affine_map<{m[1]}>, affine_map<{m[2]}>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}}
      ins(%x, %w : tensor<{c}x{hw}x{hw}xf32>, tensor<{c}x{k}x{k}xf32>) outs(%i : tensor<{c}x{o}x{o}xf32>) {{
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %p = arith.mulf %a, %bb : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  }} -> tensor<{c}x{o}x{o}xf32>
  return %y : tensor<{c}x{o}x{o}xf32>
}}
"""


@pytest.mark.parametrize("c,hw,k,s", [(24, 30, 3, 1), (16, 33, 3, 2), (8, 21, 5, 2)])
def test_taps_compute_what_the_depthwise_conv_computes(c: int, hw: int, k: int, s: int) -> None:
    """With a bias init (the conv accumulates into it), stride 1 and 2, 3x3 and 5x5 windows."""
    text = dw_mlir(c, hw, k, s)
    rng = np.random.default_rng(c + k + s)
    x = rng.standard_normal((c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((c, k, k)).astype(np.float32)
    b = rng.standard_normal((c,)).astype(np.float32)
    ours = fo.compile_mlir(text)
    direct = fo.compile_mlir(text, disable_patterns=["depthwise-taps"])
    assert dict(ours.plan.patterns).get("depthwise-taps") == 1, ours.report()
    assert "depthwise-taps" not in dict(direct.plan.patterns)
    o = (hw - k) // s + 1
    ref = np.broadcast_to(b[:, None, None], (c, o, o)).astype(np.float64).copy()
    for i in range(k):
        for j in range(k):
            ref += x[:, i:i + s * (o - 1) + 1:s, j:j + s * (o - 1) + 1:s] * w[:, i, j][:, None, None]
    np.testing.assert_allclose(np.asarray(ours(x, w, b)), ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(ours(x, w, b)), np.asarray(direct(x, w, b)), rtol=1e-4, atol=1e-5)
