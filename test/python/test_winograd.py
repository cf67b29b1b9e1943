"""winograd rewrite: 3x3 stride-1 convs as IREE's Winograd F(6x6, 3x3) where the cost model says so
(rewrites/winograd.py): which convs are sites, the per-target decision, the batch matmul's tiles, the
const-eval threshold lever, and numerics through IREE against the direct conv."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from ir_helpers import describe_text
from test_im2col import conv_mlir

import fusion_opt as fo
from fusion_opt.analysis.describe import describe_function
from fusion_opt.backends.lowering import iree_bmm_compilation_info
from fusion_opt.backends.levers import CONST_EXPR_THRESHOLD, const_expr_flags
from fusion_opt.cost import get_target_desc
from fusion_opt.rewrites import winograd
from fusion_opt.rewrites.choice import run


def _sites(text: str) -> list[int]:
    sess, module, f, graph, ops = describe_text(text)
    return [i for i, _ in winograd.find(graph, ops)]


def test_sites_are_3x3_stride_1_convs_into_a_zero_fill():
    assert len(_sites(conv_mlir(32, 32, 30, 3, 1))) == 1
    assert _sites(conv_mlir(16, 32, 33, 3, 2)) == []          # stride 2
    assert _sites(conv_mlir(8, 16, 23, 5, 1)) == []           # 5x5
    one = conv_mlir(32, 32, 30, 3, 1).replace("arith.constant 0.0 : f32", "arith.constant 1.0 : f32")
    assert _sites(one) == []                                  # IREE's pass would drop a non-zero init


def test_the_decision_is_the_cost_models():
    host = replace(get_target_desc("host"), data_tiling=True)  # as the cost mode compiles for the host
    big = describe_text(conv_mlir(64, 64, 58, 3, 1))
    deep = describe_text(conv_mlir(512, 512, 9, 3, 1))
    (i, lay), = winograd.find(big[3], big[4])
    c = winograd.decide(big[3].ops[i], lay, host)
    assert c.take and c.after_s < 0.8 * c.before_s, c.note()  # measured 1.4 vs 4.3 ms
    (j, lay2), = winograd.find(deep[3], deep[4])
    # 7x7 outputs: 4 tiles of 36 outputs for 49, and 64 MiB of transformed filter to stream per call
    assert not winograd.decide(deep[3].ops[j], lay2, host).take
    gpu = winograd.decide(big[3].ops[i], lay, get_target_desc("sm_80"))
    assert not gpu.take and gpu.after_s == float("inf")       # not offered until measured on a GPU
    # a filter that is not a constant expression is transformed at every call: priced in
    assert winograd.decide(big[3].ops[i], lay, host, constant_filter=False).after_s > c.after_s


@pytest.mark.parametrize("m,n,want", [(100, 64, "[1, 50, 64, 0]"), (25, 128, "[1, 25, 64, 0]"),
                                      (1444, 64, "[1, 38, 64, 0]"), (361, 128, "[1, 64, 64, 0]"),
                                      (4, 224, "[1, 4, 56, 0]"), (4, 32, "[1, 4, 32, 0]")])
def test_batch_matmul_tiles_are_irees_own_choice(m, n, want):
    """Read off IREE 3.13's `--compile-to=executable-configurations` for these Winograd matmuls."""
    info = iree_bmm_compilation_info(m, n)
    assert f"distribution = {want}" in info and f"cache_parallel = {want}" in info
    assert f"vector_common_parallel = [1, {min(8, m)}, 8, 0]" in info and "enable_loop_peeling" in info


def _forced(text: str) -> str:
    sess, module, f, graph, ops = describe_text(text)
    out = run(winograd.REWRITE, graph, ops, get_target_desc("host"), force="rewrite")
    assert out.taken == 1 and "[forced rewrite]" in out.notes[0]
    f.verify()
    graph, _ = describe_function(f)
    assert const_expr_flags([graph])[0].startswith(CONST_EXPR_THRESHOLD + "=")
    return str(module)


@pytest.mark.parametrize("c,f,hw", [(16, 24, 30), (8, 16, 16), (3, 8, 12)])
def test_winograd_computes_what_the_direct_conv_computes(c, f, hw):
    """Through IREE on this CPU: output sizes that are and are not multiples of the 6x6 tile."""
    text = conv_mlir(c, f, hw, 3, 1)
    rng = np.random.default_rng(c)
    x = rng.standard_normal((c, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((f, c, 3, 3)) / np.sqrt(c * 9)).astype(np.float32)
    wino_text = _forced(text)
    assert "iree_linalg_ext.winograd.input_transform" in wino_text and "compilation_info" in wino_text
    wino = fo.compile_mlir(wino_text)
    direct = fo.compile_mlir(text, disable_patterns=["conv-strategy", "winograd"])
    want = np.asarray(direct(x, w))
    np.testing.assert_allclose(np.asarray(wino(x, w)), want, rtol=1e-3, atol=1e-4 * np.abs(want).max())


def test_constant_filters_are_transformed_at_compile_time():
    """128 x 128 filters grow 7x (4 MiB) in the transform, past IREE's default const-eval threshold:
    with our threshold flag the compiled model has no filter-transform dispatch (4 = input transform,
    batch matmul, output transform, ReLU), and the numbers still match the direct conv."""
    rng = np.random.default_rng(1)
    w = (rng.standard_normal((128, 128, 3, 3)) / 34).astype(np.float32)
    x = rng.standard_normal((128, 16, 16)).astype(np.float32)
    body = conv_mlir(128, 128, 16, 3, 1)
    hexw = "0x04000000" + w.tobytes().hex().upper()
    text = (body.replace("func.func @conv(%x: tensor<128x16x16xf32>, %w: tensor<128x128x3x3xf32>)",
                         "func.func @conv(%x: tensor<128x16x16xf32>)")
            .replace("%z = arith.constant 0.0 : f32",
                     "%z = arith.constant 0.0 : f32\n  %w = arith.constant dense_resource<w> : tensor<128x128x3x3xf32>")
            + "\n{-#\n  dialect_resources: {\n    builtin: {\n      w: \"" + hexw + "\"\n    }\n  }\n#-}\n")
    wino_text = _forced(text)
    wino = fo.compile_mlir(wino_text)
    assert wino.dispatch_count == 4, wino.report()
    direct = fo.compile_mlir(text, disable_patterns=["conv-strategy", "winograd"])
    want = np.asarray(direct(x))
    np.testing.assert_allclose(np.asarray(wino(x)), want, rtol=1e-3, atol=1e-4 * np.abs(want).max())


def test_channel_groups_follow_the_input_transforms_working_set():
    """DenseNet's 128 -> 32 channel 56x56 conv (5 MB of input + tiles) is split into 8 groups of 16
    channels; ResNet-50's 64-channel 56x56 (2.5 MB), DenseNet's 128-channel 28x28 (1.3 MB) and a conv
    with as many filters as channels (VGG-19's: every group would add an output transform over all of
    them) stay whole."""
    def g(c, hw, f=32):
        sess, module, f_, graph, ops = describe_text(conv_mlir(c, f, hw, 3, 1))
        (i, lay), = winograd.find(graph, ops)
        return graph.ops[i], lay, winograd.groups(graph.ops[i], lay)

    dense, lay, n = g(128, 58)
    assert n == 8 and winograd.transform_bytes(dense, lay, 128 // n) <= winograd.GROUP_BYTES
    assert g(64, 58)[2] == 1 and g(128, 30)[2] == 1 and g(128, 58, f=128)[2] == 1
    whole, split = (winograd.winograd_descs(dense, lay, True, k) for k in (1, 8))
    assert len(whole) == 4 and len(split) == 8 * 3 + 1 and split[-1].num_dps_inputs == 8
    assert split[0].operand_shapes[0] == (16, 58, 58) and split[1].loop_ranges == (64, 100, 32, 16)
    c = winograd.decide(dense, lay, replace(get_target_desc("host"), data_tiling=True))
    assert c.rewritten == "winograd in 8 channel groups", c.note()


def test_few_tiles_input_transforms_have_their_own_efficiency():
    """A 7x7 image is 2x2 tiles of 6: IREE 3.13's input transform ran 8x slower per tile there."""
    from fusion_opt.cost.model import efficiency_key

    host = get_target_desc("host")
    small, big = (winograd.winograd_descs(g[3].ops[i], lay)[0]
                  for g in (describe_text(conv_mlir(128, 32, hw, 3, 1)) for hw in (9, 16))
                  for (i, lay) in [winograd.find(g[3], g[4])[0]])
    assert efficiency_key(small, host) == "winograd.cpu.few" and efficiency_key(big, host) == "winograd.cpu"
    assert efficiency_key(small, get_target_desc("sm_80")) == "winograd"


def test_channel_groups_compute_what_the_direct_conv_computes(monkeypatch):
    """The split form through IREE: 4 Winograd convs over channel slices, summed into the init."""
    monkeypatch.setattr(winograd, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(winograd, "GROUP_BYTES", 16 * 1024)
    text = conv_mlir(32, 16, 20, 3, 1)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((32, 20, 20)).astype(np.float32)
    w = (rng.standard_normal((16, 32, 3, 3)) / np.sqrt(32 * 9)).astype(np.float32)
    wino_text = _forced(text)
    assert wino_text.count("iree_linalg_ext.winograd.input_transform") == 4
    assert "tensor<1x8x20x20xf32>" in wino_text  # each group: a slice of 8 input channels
    want = np.asarray(fo.compile_mlir(text, disable_patterns=["conv-strategy", "winograd"])(x, w))
    got = np.asarray(fo.compile_mlir(wino_text)(x, w))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * np.abs(want).max())


def test_filters_are_padded_off_aligned_tile_planes():
    """The output transform's tile planes (tiles x F f32) are kept off 1 KiB multiples by appending zero
    filters, in steps of 8: Inception-v3's 192 filters at 12x12 tiles run as 200, ResNet-50's 64 at
    10x10 as 72; unaligned planes are left alone."""
    assert winograd.padded_filters(192, 12, 12) == 200
    assert winograd.padded_filters(64, 10, 10) == 72
    assert winograd.padded_filters(128, 5, 5) == 128      # 12800 bytes: 512-aligned
    assert winograd.padded_filters(256, 3, 3) == 264
    assert winograd.padded_filters(32, 4, 8) == 36         # 32 tiles: no multiple of 8 helps
    assert winograd.padded_filters(64, 8, 8) == 65         # 64 tiles: no multiple of 4 does
    assert winograd.padded_filters(64, 32, 32) == 64       # 1024 tiles (4 KiB per filter): nothing does
    for f, t in [(192, 12), (64, 10), (256, 3), (64, 2), (64, 8)]:
        assert (t * t * winograd.padded_filters(f, t, t) * 4) % winograd.ALIAS_BYTES != 0


@pytest.mark.parametrize("c,f,hw,split", [(16, 64, 14, False), (128, 64, 14, True)])
def test_padded_filters_compute_what_the_direct_conv_computes(c, f, hw, split, monkeypatch):
    """64 filters over 2x2 tiles (1 KiB planes) run as 72, alone and in 4 channel groups; the zero
    filters' outputs are sliced off and the numbers are the direct conv's."""
    if split:
        monkeypatch.setattr(winograd, "SPLIT_ABOVE", 0)
        monkeypatch.setattr(winograd, "GROUP_BYTES", 32 * 1024)
    text = conv_mlir(c, f, hw, 3, 1)
    rng = np.random.default_rng(f + c)
    x = rng.standard_normal((c, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((f, c, 3, 3)) / np.sqrt(c * 9)).astype(np.float32)
    wino_text = _forced(text)
    assert "8x8x1x2x2x72xf32" in wino_text and "8x8x1x2x2x64xf32" not in wino_text
    assert (wino_text.count("iree_linalg_ext.winograd.input_transform") > 1) == split
    want = np.asarray(fo.compile_mlir(text, disable_patterns=["conv-strategy", "winograd"])(x, w))
    got = np.asarray(fo.compile_mlir(wino_text)(x, w))
    assert got.shape == (f, hw - 2, hw - 2)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * np.abs(want).max())
