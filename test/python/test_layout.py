"""Channels-last layout (rewrites/layout.py): `layout="nhwc"` rewrites every conv NHWC before planning,
`layout="auto"` each windowed conv the cost model predicts faster so; the transposes between converted
convs cancel, results unchanged (real-weight models against onnxruntime)."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.bench.models import ensure_model, load_inputs
from fusion_opt.analysis.describe import describe_function
from fusion_opt.errors import InputError
from fusion_opt.ir import block_ops, functions, ir, new_session
from dataclasses import replace

from fusion_opt.analysis.opdesc import DataflowGraph, OpDesc, OpKind
from fusion_opt.cost import get_target_desc
from fusion_opt.cost.model import channels_last_positions, efficiency_key, iteration_key, shape_facts, vector_utilisation
from fusion_opt.cost.tiling import contiguous_run
from fusion_opt.cost.model import estimate
from fusion_opt.rewrites.layout import (choose, landed_transpose_s, nchw_convs, nhwc_desc, perms, to_channels_last,
                                         transpose_desc, whole_vectors)

from ir_helpers import describe_text, relu_pad_conv_mlir

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


# ---- layout="auto": the cost model chooses per conv ----------------------------------------------

def _conv3d(c: int, f: int, h: int, k: int, stride: int = 1) -> OpDesc:
    """A conv as the ONNX import leaves it (generic, unit batch folded): input [C, H, W], filter
    [F, C, K, K], output [F, OH, OW], loops (f, oh, ow, c, kh, kw)."""
    o = (h - k) // stride + 1
    s = f" * {stride}" if stride > 1 else ""
    maps = (f"(d0, d1, d2, d3, d4, d5) -> (d3, d1{s} + d4, d2{s} + d5)", "(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)",
            "(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)")
    return OpDesc(index=0, name="linalg.generic", loc="t", kind=OpKind.CONVOLUTION, loop_ranges=(f, o, o, c, k, k),
                  iterator_types=("parallel",) * 3 + ("reduction",) * 3, indexing_maps=maps,
                  map_dims=((3, -1, -1), (0, 3, 4, 5), (0, 1, 2)), element_types=("f32",) * 4,
                  operand_shapes=((c, h, h), (f, c, k, k), (f, o, o)), result_shapes=((f, o, o),),
                  operands=(-1, None, None), num_dps_inputs=2, body_ops=("arith.mulf", "arith.addf"),
                  flops=2 * f * o * o * c * k * k)


def test_channels_last_desc_is_priced_as_iree_nhwc_conv() -> None:
    """The rewritten conv is in conv_2d_nhwc_hwcf's loop order with channels innermost; the model
    prices it as `convolution.nhwc`, whose row tile shrinks on odd widths (13 -> 1 of 8 pixels: such
    convs ran at 55-65 GFLOP/s against ~300 with whole tiles, `tools/sweeps/conv_rates.py 12 40 nhwc odd`)."""
    host = get_target_desc("host")
    op = _conv3d(64, 64, 58, 3)
    p = perms(op)
    assert p is not None and perms(nhwc_desc(op, p)) is None  # channels-last: nothing left to do
    d = nhwc_desc(op, p)
    assert d.operand_shapes == ((58, 58, 64), (3, 3, 64, 64), (56, 56, 64)) and d.result_shapes == ((56, 56, 64),)
    assert d.iterator_types == ("parallel",) * 3 + ("reduction",) * 3 and d.loop_ranges == (56, 56, 64, 3, 3, 64)
    assert channels_last_positions(d) == 56 * 56 and efficiency_key(d, host) == "convolution.nhwc"
    wide, odd = vector_utilisation(d, host), vector_utilisation(nhwc_desc(_conv3d(64, 64, 15, 3), p), host)
    assert wide == 1.0 and 0.1 < odd < 0.25


def test_choice_takes_wide_convs_and_keeps_small_ones() -> None:
    host = get_target_desc("host")
    stem = _conv3d(3, 64, 229, 7, stride=2)     # ResNet-50's first conv: 112x112 outputs
    tail = _conv3d(512, 512, 9, 3)              # a 3x3 conv at 7x7
    graph = DataflowGraph("f", (stem, replace(tail, index=1, operands=(-2, None, None))), ())
    notes = {i: c for i, _, c in choose(graph, [], host)}
    assert notes[0].take and notes[0].rewritten == "channels-last", notes[0].note()
    assert not notes[1].take, notes[1].note()


def test_channels_last_only_with_whole_output_vectors() -> None:
    """IREE vectorizes a channels-last conv along its output channels: with F not a multiple of the lanes
    each output vector is masked (an HRNet-style 18 -> 36 3x3/2 conv ran 1650 us channels-last against 615
    channels-first on an AVX2 host, predicted 3x faster), so such a conv keeps its channels-first strategy."""
    host = get_target_desc("host")                                   # the reference: 8 f32 lanes
    odd, even = _conv3d(64, 36, 66, 3, stride=2), _conv3d(64, 64, 66, 3, stride=2)
    assert not whole_vectors(odd, perms(odd), host) and whole_vectors(even, perms(even), host)
    graph = DataflowGraph("f", (odd, replace(even, index=1, operands=(-2, None, None))), ())
    assert {i for i, _, _ in choose(graph, [], host)} == {1}


def test_output_channels_dividing_the_vector_are_offered_and_priced_by_fill() -> None:
    """F = 4 of 8 lanes: no mask, a half-filled vector (a [1, 256, 28, 28] -> 8-channel 3x3 conv ran 255
    us channels-last against 1052 direct on 16 lanes): offered, and priced by the fill ^ 0.7 (F = 4 of 16
    lanes ran at 50-100 GFLOP/s, against ~300 for whole vectors, `tools/sweeps/conv_rates.py`)."""
    host = get_target_desc("host")                                   # the reference: 8 f32 lanes
    four, eight = _conv3d(256, 4, 30, 3), _conv3d(256, 8, 30, 3)
    assert whole_vectors(four, perms(four), host) and whole_vectors(eight, perms(eight), host)
    u4 = vector_utilisation(nhwc_desc(four, perms(four)), host)
    u8 = vector_utilisation(nhwc_desc(eight, perms(eight)), host)
    assert u4 == pytest.approx(u8 * 0.5 ** 0.7)


def test_channels_last_pricing_counts_filter_size_and_input_channels() -> None:
    """Fitted 2026-12-05 on 230 convs (`tools/sweeps/conv_rates.py`, AVX-512, 2 MB L2): filters of 3.2-6.5
    MB ran at 90-115 GFLOP/s against ~300 under 1.6 MB (each row tile re-reads the whole filter), and 2-4
    input channels at 50-160. The reference host has a 512 KB L2: a 64 -> 64 3x3 filter (147 KB) fits,
    a 128 -> 128 one (590 KB) does not."""
    host = get_target_desc("host")
    def util(c: int, f: int) -> float:
        op = _conv3d(c, f, 30, 3)
        return vector_utilisation(nhwc_desc(op, perms(op)), host)
    assert util(128, 128) == pytest.approx(0.4 * util(64, 64))
    assert util(2, 64) == pytest.approx((2 / 8) ** 0.3 * util(8, 64)) and util(8, 64) == util(64, 64)
    # the same op on a host with a 2 MB L2 (its filter fits): not the first host's cached facts
    big = _conv3d(128, 128, 30, 3)
    d = nhwc_desc(big, perms(big))
    l2 = replace(host, caches=tuple(c._replace(size_bytes=2 << 20) if c.name == "L2" else c for c in host.caches))
    assert shape_facts(d, l2)[1] == pytest.approx(shape_facts(d, host)[1] / 0.4)  # both orders, one op
    assert shape_facts(d, host)[1] == pytest.approx(0.4 * shape_facts(d, l2)[1])


def test_small_convs_keep_iree_direct_conv() -> None:
    """RealNVP's coupling nets (unseen batch 10): IREE's direct NCHW 3x3 conv 2 -> 32 at 16x16 ran 6.4 us,
    channels-last with its transposes 10.7; the 32 -> 4 one 34 us direct, 77 as im2col + matmul (20.5
    channels-last: not asserted either way). Measured on AVX-512, hence the reference host with 16
    lanes. The old conv pricing (1.7 GFLOP/s for these) took the slower forms."""
    from fusion_opt.rewrites import im2col

    host = replace(get_target_desc("host"), vector_bits=512)
    first, second = _conv3d(2, 32, 18, 3), _conv3d(32, 4, 18, 3)
    graph = DataflowGraph("f", (first, replace(second, index=1, operands=(0, None, None))), ())
    assert not next(c for i, _, c in choose(graph, [], host) if i == 0).take
    for op in (first, second):
        c = im2col.decide(op, im2col.layout(op), host)
        assert not c.take, c.note()


def test_transposes_between_two_converted_convs_cancel() -> None:
    """A pair of wide convs with a relu and a pad between them: both channels-last, and only the
    input's and the output's activation transposes are left."""
    src = relu_pad_conv_mlir(16, 64, 112, first_conv=True)
    with new_session().context:
        m = ir.Module.parse(src)
        from fusion_opt.pipelines import plan_module
        from fusion_opt.fusion.control import ControlSpec
        planned = plan_module(m, "cost", control=ControlSpec(layout="auto"))[0]
        notes = [n for n in planned.plan.notes if n.startswith("conv-layout")]
        assert len(notes) == 2 and all(": channels-last (" in n for n in notes), notes
        acts = [o for o in block_ops(planned.func_op) if o.name == "linalg.transpose"
                and "x3x3xf32" not in str(o.operands[0].type)]
        assert len(acts) == 2, [str(o.operands[0].type) for o in acts]


def test_auto_layout_computes_the_same_as_nchw() -> None:
    src = relu_pad_conv_mlir(16, 64, 112, first_conv=True)
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((1, 16, 112, 112)).astype(np.float32),
            (rng.standard_normal((64, 16, 3, 3)) * 0.2).astype(np.float32),
            (rng.standard_normal((64, 64, 3, 3)) * 0.1).astype(np.float32))
    auto = fo.compile_mlir(src, layout="auto")
    assert sum(": channels-last (" in n for n in auto.plan.notes) == 2, auto.plan.notes
    np.testing.assert_allclose(np.asarray(auto(*args)), np.asarray(fo.compile_mlir(src)(*args)), rtol=1e-4, atol=1e-3)


def test_auto_layout_model_matches_onnxruntime() -> None:
    """Inception-v1: its 7x7/2 stem goes channels-last, its 13x13 convs stay NCHW."""
    pytest.importorskip("onnxruntime")
    path = ensure_model("inception_v1")
    inputs, refs = load_inputs(path)
    m = fo.compile_onnx(path, layout="auto")
    taken = [n for n in m.plan.notes if n.startswith("conv-layout") and ": channels-last (" in n]
    kept = [n for n in m.plan.notes if n.startswith("conv-layout") and ": channels-last (" not in n]
    assert taken and kept, m.report()
    out = m(*[inputs[n] for n in m.input_names])
    outs = out if isinstance(out, tuple) else (out,)
    for got, ref in zip(outs, refs):
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-4)


# ---- depthwise convs: channels-last where their window taps do not serve -------------------------

def _depthwise(c: int, h: int, k: int) -> OpDesc:
    """A depthwise conv as the ONNX import leaves it: input [C, H, W], filter [C, K, K], output
    [C, OH, OW], loops (oh, ow, c, kh, kw)."""
    o = h - k + 1
    maps = ("(d0, d1, d2, d3, d4) -> (d2, d0 + d3, d1 + d4)", "(d0, d1, d2, d3, d4) -> (d2, d3, d4)",
            "(d0, d1, d2, d3, d4) -> (d2, d0, d1)")
    return OpDesc(index=0, name="linalg.generic", loc="t", kind=OpKind.CONVOLUTION, loop_ranges=(o, o, c, k, k),
                  iterator_types=("parallel",) * 3 + ("reduction",) * 2, indexing_maps=maps,
                  map_dims=((2, -1, -1), (2, 3, 4), (2, 0, 1)), element_types=("f32",) * 3,
                  operand_shapes=((c, h, h), (c, k, k), (c, o, o)), result_shapes=((c, o, o),),
                  operands=(-1, None, None), num_dps_inputs=2, body_ops=("arith.mulf", "arith.addf"),
                  flops=2 * c * o * o * k * k)


def test_depthwise_desc_is_channels_last_in_iree_loop_order() -> None:
    """Loops (OH, OW, C, KH, KW) as IREE's `depthwise_conv_2d_nhwc_hwc`; priced as a channels-last
    depthwise conv, several times the channels-first one's rate."""
    host = get_target_desc("host")
    op = _depthwise(96, 62, 7)
    p = perms(op)
    assert p is not None
    d = nhwc_desc(op, p)
    assert d.operand_shapes == ((62, 62, 96), (7, 7, 96), (56, 56, 96)) and d.loop_ranges == (56, 56, 96, 7, 7)
    assert d.indexing_maps[0] == "(d0, d1, d2, d3, d4) -> (d0 + d3, d1 + d4, d2)", d.indexing_maps
    assert perms(d) is None  # already channels-last
    assert efficiency_key(op, host) == "convolution.depthwise"
    assert efficiency_key(d, host) == "convolution.depthwise.nhwc"
    eff = dict(host.efficiency)
    assert eff["convolution.depthwise.nhwc"] > 3 * eff["convolution.depthwise"]


def test_depthwise_choice_against_taps() -> None:
    """A 7x7 depthwise conv has too many taps for window taps: channels-last; a 3x3 one on a 7x7 image
    keeps its taps (cheaper than an NHWC conv between two transposes)."""
    host = get_target_desc("host")
    big, small = _depthwise(96, 62, 7), replace(_depthwise(128, 9, 3), index=1, operands=(-2, None, None))
    notes = {i: c for i, _, c in choose(DataflowGraph("f", (big, small), ()), [], host)}
    assert notes[0].take and notes[0].kept == "direct", notes[0].note()
    assert not notes[1].take and notes[1].kept == "window taps", notes[1].note()


def test_depthwise_channels_last_matches_onnxruntime() -> None:
    """A 7x7 depthwise conv + bias + ReLU (ConvNeXt's block conv; stride 2 too): the same numbers as
    onnxruntime with the conv channels-last, and the conv-layout note says it was taken."""
    ort = pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(5)
    c = 48
    inits = [numpy_helper.from_array(rng.standard_normal((c, 1, 7, 7)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((c,)).astype(np.float32), "b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c1"], group=c, pads=[3] * 4, kernel_shape=[7, 7]),
             helper.make_node("Relu", ["c1"], ["r"]),
             helper.make_node("Conv", ["r", "w", "b"], ["y"], group=c, pads=[3] * 4, kernel_shape=[7, 7], strides=[2, 2])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 40, 40])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, 20, 20])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((1, c, 40, 40)).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    m = fo.compile_onnx(model)
    taken = [n for n in m.plan.notes if n.startswith("conv-layout") and ": channels-last (" in n]
    assert len(taken) == 2, m.plan.notes
    np.testing.assert_allclose(m(x), ref, rtol=1e-4, atol=1e-4)


def _inverted_residual(cin: int, cexp: int, cout: int, hw: int, stride: int, expand: bool = True,
                       silu: bool = False):
    """MobileNet-V2's block as ONNX: [1x1 conv (expand) + ReLU6 (or SiLU)] -> 3x3 depthwise conv + ReLU6
    -> 1x1 conv."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(cexp + stride)
    inits = []

    def w(name: str, shape: list[int]) -> str:
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name))
        return name

    inits += [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("lo", 0.0), ("hi", 6.0))]
    act = [helper.make_node("Sigmoid", ["e"], ["es"]), helper.make_node("Mul", ["e", "es"], ["er"])] if silu else \
        [helper.make_node("Clip", ["e", "lo", "hi"], ["er"])]
    nodes = [helper.make_node("Conv", ["x", w("w1", [cexp, cin, 1, 1]), w("b1", [cexp])], ["e"]), *act] if expand else []
    nodes += [helper.make_node("Conv", ["er" if expand else "x", w("w2", [cexp, 1, 3, 3]), w("b2", [cexp])], ["d"],
                               kernel_shape=[3, 3], pads=[1] * 4, strides=[stride] * 2, group=cexp),
              helper.make_node("Clip", ["d", "lo", "hi"], ["dr"]),
              helper.make_node("Conv", ["dr", w("w3", [cout, cexp, 1, 1]), w("b3", [cout])], ["y"])]
    ho = (hw - 1) // stride + 1
    g = helper.make_graph(nodes, "ir", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, hw, hw])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, ho, ho])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_taps_go_channels_last_between_1x1_convs(stride: int) -> None:
    """Between two 1x1 convs (matmuls, which take the transposes into their packing) a depthwise conv's
    window taps are priced channels-last with no transpose; a strided one then has no dense form (its
    taps slice rows of channels with the stride). Same numbers as onnxruntime."""
    ort = pytest.importorskip("onnxruntime")
    model = _inverted_residual(16, 96, 24, 28, stride)
    m = fo.compile_onnx(model)
    layout = [n for n in m.plan.notes if n.startswith("conv-layout")]
    assert len(layout) == 1 and ": channels-last (" in layout[0], m.plan.notes
    assert dict(m.plan.patterns).get("depthwise-taps") == 1, m.report()
    x = np.random.default_rng(1).standard_normal((1, 16, 28, 28)).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(m(x), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("variant", ["no expand conv", "silu"])
def test_depthwise_taps_channels_last_pay_their_transposes(variant: str) -> None:
    """The same block without its expand conv (the depthwise conv reads the function's argument), or with
    SiLU after it (`x * sigmoid(x)` uses the conv's result twice, where IREE's propagation stops): the
    input transpose stays a dispatch of its own, so the channels-last taps are priced with it (they were
    not offered at all before 2026-12-06, and channels-first they ran 1.4x and 1.15x these blocks' time:
    a stride-2 conv's channels-first taps compute every dense position). Same numbers as onnxruntime."""
    ort = pytest.importorskip("onnxruntime")
    model = _inverted_residual(96, 96, 24, 28, 2, expand=False) if variant == "no expand conv" else \
        _inverted_residual(16, 96, 24, 28, 2, silu=True)
    m = fo.compile_onnx(model)
    layout = [n for n in m.plan.notes if n.startswith("conv-layout")]
    assert len(layout) == 1 and ": channels-last (" in layout[0], m.plan.notes
    cin = 96 if variant == "no expand conv" else 16
    x = np.random.default_rng(2).standard_normal((1, cin, 28, 28)).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(m(x), ref, rtol=1e-4, atol=1e-4)


def test_channels_last_taps_price_the_transposes_no_neighbour_takes() -> None:
    """Pure: a depthwise conv alone (its input an argument, its result the function's) may go channels-last
    as window taps, priced with both transposes: the price is above the taps' own."""
    host = get_target_desc("host")
    op = _depthwise(96, 30, 3)
    [(_, p, c)] = choose(DataflowGraph("f", (op,), ()), [], host)
    from fusion_opt.rewrites.layout import inverse, nhwc_taps_time, transpose_desc

    taps = nhwc_taps_time(nhwc_desc(op, p), host)
    t_in = estimate([transpose_desc(op.operand_shapes[0], p.inp, "f32", "t")], host).time_s
    t_out = estimate([transpose_desc(tuple(op.result_shapes[0][k] for k in p.out), inverse(p.out), "f32", "t")],
                     host).time_s
    assert taps is not None and taps < c.after_s <= taps + t_in + t_out + 1e-12


_UPSAMPLE_ADD_CONV = """
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d5)>
#in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>
#flt = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @f(%x: tensor<48x16x2x2x16x2x2xf32>, %y: tensor<48x16x2x16x2xf32>, %w: tensor<48x48x3x3xf32>) -> tensor<48x64x64xf32> {
  %e = tensor.empty() : tensor<48x16x2x2x16x2x2xf32>
  %s = linalg.generic {indexing_maps = [#x, #y, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
       ins(%x, %y : tensor<48x16x2x2x16x2x2xf32>, tensor<48x16x2x16x2xf32>) outs(%e : tensor<48x16x2x2x16x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<48x16x2x2x16x2x2xf32>
  %c = tensor.collapse_shape %s [[0], [1, 2, 3], [4, 5, 6]] : tensor<48x16x2x2x16x2x2xf32> into tensor<48x64x64xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %c low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<48x64x64xf32> to tensor<48x66x66xf32>
  %init = tensor.empty() : tensor<48x64x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<48x64x64xf32>) -> tensor<48x64x64xf32>
  %conv = linalg.generic {indexing_maps = [#in, #flt, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
       ins(%p, %w : tensor<48x66x66xf32>, tensor<48x48x3x3xf32>) outs(%fill : tensor<48x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<48x64x64xf32>
  return %conv : tensor<48x64x64xf32>
}
"""


def test_input_transpose_is_priced_where_iree_moves_it() -> None:
    """An FPN's upsample-and-add feeding a 3x3 conv (unseen batch 4, 2026-12-05): IREE's transpose
    propagation moves the conv's input transpose up through the pad and the collapse into the 7-d add,
    whose rows are then 2 elements long (the broadcast loop keeps them apart): 819 us against 67 as it
    was. Priced there (`iteration.transposed.short`), not as a plain 48x64x64 transpose (82 us), it keeps
    the conv channels-first; the channels-last choice had made the model 1.27x slower."""
    host = get_target_desc("host")
    sess, module, f, graph, ops = describe_text(_UPSAMPLE_ADD_CONV)
    conv = 4
    p = perms(graph.ops[conv])
    assert p is not None
    landed = landed_transpose_s(graph, conv, p, host)
    plain = estimate([transpose_desc(graph.ops[conv].operand_shapes[0], p.inp, "f32", "t")], host).time_s
    assert landed is not None and landed > 3 * plain
    assert [c.take for _, _, c in choose(graph, ops, host)] == [False]


def test_transposed_rows_shorter_than_a_vector_get_their_own_key() -> None:
    """The add above written channels-last: its full input's rows are 2 long even after IREE collapses
    loops, since the broadcast input reads (d4, d5) without d6 (`tiling.contiguous_run`): 1.7-4.1 ns per
    element measured on six such ops, against 0.1-0.5 for transposes whose rows collapse."""
    host = get_target_desc("host")
    sess, module, f, graph, ops = describe_text(_UPSAMPLE_ADD_CONV)
    add, order = graph.ops[0], (1, 2, 3, 4, 5, 6, 0)
    lhs = "(d0, d1, d2, d3, d4, d5, d6)"
    out_map = f"{lhs} -> ({', '.join(f'd{d}' for d in order)})"
    moved = replace(add, indexing_maps=(*add.indexing_maps[:2], out_map), map_dims=(*add.map_dims[:2], order))
    assert contiguous_run(moved, 0) == 2 and iteration_key(moved, host) == "iteration.transposed.short"
    full = replace(moved, indexing_maps=(add.indexing_maps[0],) * 2 + (out_map,),
                   map_dims=(add.map_dims[0],) * 2 + (order,))
    assert contiguous_run(full, 0) == 16 * 2 * 2 * 16 * 2 * 2 and iteration_key(full, host) == "iteration.transposed"
