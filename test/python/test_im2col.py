"""Conv strategy (rewrites/im2col.py): which convs qualify, what the cost model picks, and that the
rewritten module computes what the direct conv computes (through IREE, on random inputs)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from ir_helpers import describe_text
from fusion_opt.analysis.opdesc import OpDesc, OpKind
from fusion_opt.cost import get_target_desc
from fusion_opt.rewrites.im2col import decide, im2col_descs, layout, window_tiles

CONV_MAPS = ("(d0, d1, d2, d3, d4, d5) -> (d3, d1 * {s} + d4, d2 * {s} + d5)",
             "(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)", "(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)")


def conv_desc(f: int, c: int, hw: int, k: int, s: int = 1) -> OpDesc:
    o = (hw - k) // s + 1
    maps = tuple(m.format(s=s) for m in CONV_MAPS)
    return OpDesc(index=0, name="linalg.generic", loc="t", kind=OpKind.CONVOLUTION, loop_ranges=(f, o, o, c, k, k),
                  iterator_types=("parallel",) * 3 + ("reduction",) * 3, indexing_maps=maps,
                  map_dims=((3, -1, -1), (0, 3, 4, 5), (0, 1, 2)), element_types=("f32",) * 4,
                  operand_shapes=((c, hw, hw), (f, c, k, k), (f, o, o)), result_shapes=((f, o, o),),
                  operands=(-1, None, None), num_dps_inputs=2, body_ops=("arith.mulf", "arith.addf"),
                  flops=2 * f * o * o * c * k * k, bytes_read=4 * (c * hw * hw + f * c * k * k),
                  bytes_written=4 * f * o * o)


def test_layout_of_a_conv_and_what_it_is_not() -> None:
    lay = layout(conv_desc(64, 64, 58, 3))
    assert lay is not None and lay.f == 0 and lay.red == (3, 4, 5) and lay.spatial == (1, 2) and lay.copy
    grouped = conv_desc(64, 64, 58, 3)
    depthwise = OpDesc(**{**grouped.__dict__, "map_dims": ((0, -1, -1), (0, 4, 5), (0, 1, 2))})
    assert layout(depthwise) is None                  # a dim shared by input, filter and output
    assert layout(OpDesc(**{**grouped.__dict__, "body_ops": ("arith.mulf", "arith.addf", "math.exp")})) is None


def test_descs_keep_the_flops_and_copy_every_window() -> None:
    op = conv_desc(64, 64, 58, 3)
    copy, mm = im2col_descs(op, layout(op))
    assert mm.flops == op.flops and mm.loop_ranges == (64, 56 * 56, 64 * 9)
    assert copy.result_shapes == ((64, 3, 3, 56, 56),) and copy.bytes_written == 4 * 64 * 9 * 56 * 56


def test_a_window_copy_is_priced_per_element_not_per_byte() -> None:
    """IREE 3.13 runs im2col window copies at ~1 G elements/s on a CPU (`iteration.window`): SqueezeNet's
    [16, 3, 3, 55, 55] copy measured 0.57 ms, where its bytes at DRAM bandwidth say ~0.05 ms."""
    from fusion_opt.cost.model import estimate, iteration_key

    op = conv_desc(64, 16, 57, 3)
    copy, _ = im2col_descs(op, layout(op))
    host = get_target_desc("host")
    assert iteration_key(copy, host) == "iteration.window"
    assert iteration_key(copy, get_target_desc("sm_90")) is None          # GPUs: not measured, bytes only
    t = estimate([copy], host).time_s
    assert 0.25e-3 < t < 2e-3, t


def test_cost_model_prefers_im2col_for_a_resnet_3x3_conv() -> None:
    c = decide(conv_desc(64, 64, 58, 3), layout(conv_desc(64, 64, 58, 3)), get_target_desc("host"))
    assert c.take and c.after_s < c.before_s


def conv_mlir(c: int, f: int, hw: int, k: int, s: int) -> str:
    o = (hw - k) // s + 1
    m = [x.format(s=s) for x in CONV_MAPS]
    return f"""
func.func @conv(%x: tensor<{c}x{hw}x{hw}xf32>, %w: tensor<{f}x{c}x{k}x{k}xf32>) -> tensor<{f}x{o}x{o}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{f}x{o}x{o}xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<{f}x{o}x{o}xf32>) -> tensor<{f}x{o}x{o}xf32>
  %y = linalg.generic {{indexing_maps = [affine_map<{m[0]}>, affine_map<{m[1]}>, affine_map<{m[2]}>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}}
      ins(%x, %w : tensor<{c}x{hw}x{hw}xf32>, tensor<{f}x{c}x{k}x{k}xf32>) outs(%i : tensor<{f}x{o}x{o}xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  }} -> tensor<{f}x{o}x{o}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]}} ins(%y : tensor<{f}x{o}x{o}xf32>) outs(%e : tensor<{f}x{o}x{o}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  }} -> tensor<{f}x{o}x{o}xf32>
  return %r : tensor<{f}x{o}x{o}xf32>
}}
"""


@pytest.mark.parametrize("c,f,hw,k,s", [(32, 32, 30, 3, 1), (16, 32, 33, 3, 2), (8, 16, 23, 7, 2),
                                        (3, 16, 143, 7, 2)])   # rows of 69: the copy carries window_tiles
def test_im2col_computes_what_the_direct_conv_computes(c: int, f: int, hw: int, k: int, s: int) -> None:
    text = conv_mlir(c, f, hw, k, s)
    rng = np.random.default_rng(c + k)
    x = rng.standard_normal((c, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((f, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
    ours = fo.compile_mlir(text, disable_patterns=["winograd"], layout="nchw")  # winograd takes the 3x3 stride-1 one
    direct = fo.compile_mlir(text, disable_patterns=["conv-strategy", "winograd"], layout="nchw")
    assert dict(ours.plan.patterns).get("conv-strategy") == 1, ours.report()
    assert "conv-strategy" not in dict(direct.plan.patterns)
    np.testing.assert_allclose(np.asarray(ours(x, w)), np.asarray(direct(x, w)), rtol=1e-4, atol=1e-5)


def test_window_tiles_only_for_rows_longer_than_a_distribution_tile() -> None:
    """ZFNet-512's stem copy [C, KH, KW, OH, OW] = [3, 7, 7, 109, 109]: one channel, the whole window, one
    output row, the whole row per workgroup; rows of 64 or less keep IREE's tiles."""
    op = conv_desc(96, 3, 224, 7, 2)
    lay = layout(op)
    loops = im2col_descs(op, lay)[0].loop_ranges
    assert loops == (3, 7, 7, 109, 109) and window_tiles(lay, loops) == [1, 7, 7, 1, 109]
    short = conv_desc(32, 32, 30, 3)
    assert window_tiles(layout(short), im2col_descs(short, layout(short))[0].loop_ranges) is None


ROW_CONV = """
func.func @conv(%x: tensor<16x17x23xf32>, %w: tensor<24x16x7xf32>) -> tensor<24x17x17xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x17x17xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<24x17x17xf32>) -> tensor<24x17x17xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(f, h, w, c, k) -> (c, h, w + k)>,
                                        affine_map<(f, h, w, c, k) -> (f, c, k)>,
                                        affine_map<(f, h, w, c, k) -> (f, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x17x23xf32>, tensor<24x16x7xf32>) outs(%i : tensor<24x17x17xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<24x17x17xf32>
  return %y : tensor<24x17x17xf32>
}
"""


def test_one_dim_windows_get_window_tiles_whatever_their_rows() -> None:
    """A 1x7 conv at 17x17 (Inception-v3's, unit kernel dim folded): its [C, 7, 17, 17] copy gets whole-row
    tiles (IREE's own, with the data tiling's packing in the dispatch, ran 3-7x slower), and computes
    what the direct conv computes."""
    sess, module, f, graph, ops = describe_text(ROW_CONV)
    op = graph.ops[[o.kind for o in graph.ops].index(OpKind.CONVOLUTION)]
    lay = layout(op)
    loops = im2col_descs(op, lay)[0].loop_ranges
    assert loops == (16, 7, 17, 17) and window_tiles(lay, loops) == [1, 7, 1, 17]
    ours = fo.compile_mlir(ROW_CONV, layout="nchw")
    assert dict(ours.plan.patterns).get("conv-strategy") == 1, ours.report()
    rng = np.random.default_rng(17)
    x = rng.standard_normal((16, 17, 23)).astype(np.float32)
    w = (rng.standard_normal((24, 16, 7)) / np.sqrt(16 * 7)).astype(np.float32)
    direct = fo.compile_mlir(ROW_CONV, disable_patterns=["conv-strategy"], layout="nchw")
    np.testing.assert_allclose(np.asarray(ours(x, w)), np.asarray(direct(x, w)), rtol=1e-4, atol=1e-5)


GROUPED = """
func.func @gconv(%x: tensor<2x6x9x9xf32>, %w: tensor<2x4x6x3x3xf32>) -> tensor<2x4x7x7xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x7x7xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d5, d6)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x6x9x9xf32>, tensor<2x4x6x3x3xf32>) outs(%i : tensor<2x4x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<2x4x7x7xf32>
  return %y : tensor<2x4x7x7xf32>
}
"""


def test_grouped_conv_becomes_a_batch_matmul_with_the_same_result() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 6, 9, 9)).astype(np.float32)
    w = rng.standard_normal((2, 4, 6, 3, 3)).astype(np.float32)
    ours = fo.compile_mlir(GROUPED)
    direct = fo.compile_mlir(GROUPED, disable_patterns=["conv-strategy"])
    assert any(": im2col + matmul (" in n for n in ours.plan.notes), ours.report()
    want = np.zeros((2, 4, 7, 7), np.float64)
    for kh in range(3):
        for kw in range(3):
            want += np.einsum("gcyx,gfc->gfyx", x[:, :, kh:kh + 7, kw:kw + 7].astype(np.float64), w[:, :, :, kh, kw])
    np.testing.assert_allclose(np.asarray(ours(x, w)), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(direct(x, w)), want, rtol=1e-4, atol=1e-4)


GROUPED_1X1 = """
func.func @gconv(%x: tensor<4x12x10x10xf32>, %w: tensor<4x8x12xf32>) -> tensor<4x8x10x10xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x10x10xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<4x8x10x10xf32>) -> tensor<4x8x10x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x12x10x10xf32>, tensor<4x8x12xf32>) outs(%i : tensor<4x8x10x10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<4x8x10x10xf32>
  return %y : tensor<4x8x10x10xf32>
}
"""


def test_grouped_1x1_conv_is_a_named_batch_matmul_in_irees_tiles() -> None:
    """ShuffleNet's grouped 1x1 convs: a linalg.batch_matmul over [G, C, H*W] with IREE's own tiles as a
    compilation_info (which keeps data tiling off it), numerically the conv."""
    from ir_helpers import describe_text

    from fusion_opt.cost import get_target_desc
    from fusion_opt.rewrites import im2col
    from fusion_opt.rewrites.choice import run

    sess, module, f, graph, ops = describe_text(GROUPED_1X1)
    out = run(im2col.rewrite(get_target_desc("host")), graph, ops, get_target_desc("host"), force="rewrite")
    assert out.taken == 1
    text = str(module)
    assert "linalg.batch_matmul {compilation_info" in text and "tensor<4x12x100xf32>" in text
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 12, 10, 10)).astype(np.float32)
    w = rng.standard_normal((4, 8, 12)).astype(np.float32)
    want = np.einsum("gcyx,gfc->gfyx", x.astype(np.float64), w)
    got = fo.compile_mlir(text)
    np.testing.assert_allclose(np.asarray(got(x, w)), want, rtol=1e-4, atol=1e-4)


def test_on_a_gpu_the_rewrite_is_not_taken_and_carries_no_cpu_tiles() -> None:
    """On a GPU the direct conv is IREE's implicit GEMM: never dearer than the rewrite's matmul (measured on
    an H200: SqueezeNet 1.30x, ShuffleNet 1.52x slower rewritten). Forced, the batch matmul gets no llvm-cpu
    `compilation_info` (one failed the GPU pipeline: "failed to build pass pipeline")."""
    from fusion_opt.backends.compile import compile_module
    from fusion_opt.rewrites import im2col
    from fusion_opt.rewrites.choice import run

    gpu = get_target_desc("sm_90")
    for text in (GROUPED_1X1, conv_mlir(64, 64, 58, 3, 1)):
        _, _, _, graph, _ = describe_text(text)
        site = im2col.find_convs(graph)[0]
        choice = decide(graph.ops[site[0]], site[1], gpu)
        assert not choice.take and choice.before_s <= choice.after_s
    sess, module, f, graph, ops = describe_text(GROUPED_1X1)
    assert run(im2col.rewrite(gpu), graph, ops, gpu, force="rewrite").taken == 1
    text = str(module)
    assert "linalg.batch_matmul ins" in text and "compilation_info" not in text
    assert compile_module(module, sess, "sm_90").vmfb


BATCHED_CONV = """
func.func @bconv(%x: tensor<3x16x61xf32>, %w: tensor<24x16x3xf32>) -> tensor<3x24x30xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x24x30xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x24x30xf32>) -> tensor<3x24x30xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, f, o, c, k) -> (n, c, o * 2 + k)>,
                                        affine_map<(n, f, o, c, k) -> (f, c, k)>,
                                        affine_map<(n, f, o, c, k) -> (n, f, o)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<3x16x61xf32>, tensor<24x16x3xf32>) outs(%f : tensor<3x24x30xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x24x30xf32>
  return %r : tensor<3x24x30xf32>
}
"""


def test_a_conv_over_a_batch_is_one_matmul_transposed_back() -> None:
    """A batch-3 strided Conv1d: its batch joins the matmul's columns ([24, 48] x [48, 3*30]) and the result
    is transposed back to [3, 24, 30]; equal to numpy's conv and to the direct build."""
    _, _, _, graph, _ = describe_text(BATCHED_CONV)
    op = next(o for o in graph.ops if o.kind is OpKind.CONVOLUTION)
    assert layout(op) is None                               # winograd and conv-layout never see a batch
    lay = layout(op, batched=True)
    assert lay is not None and lay.batch == 0 and lay.spatial == (0, 2) and lay.f == 1
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 16, 61)).astype(np.float32)
    w = (rng.standard_normal((24, 16, 3)) / 7).astype(np.float32)
    ours = fo.compile_mlir(BATCHED_CONV)
    direct = fo.compile_mlir(BATCHED_CONV, disable_patterns=["conv-strategy"])
    assert any(n.startswith("conv-strategy: op") and "): im2col + matmul (" in n for n in ours.plan.notes)
    assert ours.dispatch_count > direct.dispatch_count       # the copy, the matmul and the transpose
    want = np.einsum("ncok,fck->nfo", np.lib.stride_tricks.sliding_window_view(x, 3, axis=2)[:, :, ::2], w)
    np.testing.assert_allclose(np.asarray(ours(x, w)), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(direct(x, w)), want, rtol=1e-4, atol=1e-4)


def _pointwise_conv(res: str, x: str, w: str, init: str, c: int, f: int) -> str:
    """`res = x[n, c, h, w] * w[f, c]` summed over c into `init`, a 1x1 conv over a batch of 2 10x30 images as
    imported (a contraction generic)."""
    t_x, t_w, t_o = f"tensor<2x{c}x10x30xf32>", f"tensor<{f}x{c}xf32>", f"tensor<2x{f}x10x30xf32>"
    return f"""  {res} = linalg.generic {{indexing_maps = [affine_map<(n, f, h, w, c) -> (n, c, h, w)>,
      affine_map<(n, f, h, w, c) -> (f, c)>, affine_map<(n, f, h, w, c) -> (n, f, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}}
      ins({x}, {w} : {t_x}, {t_w}) outs({init} : {t_o}) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  }} -> {t_o}
"""


POINTWISE_BATCH = ("""
func.func @pw(%x: tensor<2x48x10x30xf32>, %w1: tensor<64x48xf32>, %b1: tensor<64xf32>, %w2: tensor<40x64xf32>)
    -> tensor<2x40x10x30xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x64x10x30xf32>
  %i1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x64x10x30xf32>) -> tensor<2x64x10x30xf32>
""" + _pointwise_conv("%y1", "%x", "%w1", "%i1", 48, 64) + """
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (f)>,
                                         affine_map<(n, f, h, w) -> (n, f, h, w)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y1, %b1 : tensor<2x64x10x30xf32>, tensor<64xf32>) outs(%e1 : tensor<2x64x10x30xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.maximumf %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<2x64x10x30xf32>
  %e2 = tensor.empty() : tensor<2x40x10x30xf32>
  %i2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x40x10x30xf32>) -> tensor<2x40x10x30xf32>
""" + _pointwise_conv("%y2", "%r1", "%w2", "%i2", 64, 40) + """
  return %y2 : tensor<2x40x10x30xf32>
}
""")


def test_a_pointwise_conv_over_a_batch_is_a_2d_matmul_between_transposes() -> None:
    """Two 1x1 convs over a batch of 2 with a bias + ReLU between: each is a split contraction (M = (n, h, w),
    the channel between n and h in the input), priced `contraction.split`; rewritten, each is one 2-D
    linalg.matmul, the transposes between them cancel, and the result equals numpy's and the direct build's."""
    from fusion_opt.cost.model import efficiency_key, split_matmul
    from fusion_opt.rewrites.im2col import find_convs, pointwise_over_batch

    _, _, _, graph, _ = describe_text(POINTWISE_BATCH)
    convs = [o for o in graph.ops if o.kind is OpKind.CONTRACTION]
    assert len(convs) == 2 and all(pointwise_over_batch(o) and split_matmul(o) for o in convs)
    host = get_target_desc("host")
    assert efficiency_key(convs[0], host) == "contraction.split"
    lay = layout(convs[0], batched=True)
    assert lay is not None and lay.batch == 0 and lay.copy and lay.red == (4,)
    assert layout(convs[0]) is None                            # only the batched conv strategy takes it
    assert [len(find_convs(graph, min_k=k)) for k in (48, 64, 65)] == [2, 1, 0]   # input channels 48 and 64
    ours = fo.compile_mlir(POINTWISE_BATCH)
    direct = fo.compile_mlir(POINTWISE_BATCH, disable_patterns=["conv-strategy"])
    assert sum("): im2col + matmul (" in n for n in ours.plan.notes) == 2
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 48, 10, 30)).astype(np.float32)
    w1 = (rng.standard_normal((64, 48)) / 7).astype(np.float32)
    b1 = rng.standard_normal(64).astype(np.float32)
    w2 = (rng.standard_normal((40, 64)) / 8).astype(np.float32)
    h = np.maximum(np.einsum("nchw,fc->nfhw", x, w1) + b1[None, :, None, None], 0)
    want = np.einsum("nchw,fc->nfhw", h, w2)
    got = np.asarray(ours(x, w1, b1, w2))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, np.asarray(direct(x, w1, b1, w2)), rtol=1e-5, atol=1e-5)
