"""Groups handed back to IREE (fusion/handoff.py): never a pair IREE 3.13 fuses wrongly (`misfused_reads`).

A pre-activation ResNet (found in the fifth unseen-model batch, docs/reliability.md) has a ReLU read by a
1x1 stride-2 conv, whose im2col window copy the `packed-copy` rule hands to IREE, and by a 3x3 conv made
channels-last, whose input transpose feeds a pad (rule `padded`). The ReLU then fed IREE only (`feeds-iree`),
and IREE fused it into the strided copy as one two-result op: the transpose read a ReLU computed at even rows
and columns only (error 7.4 at magnitude 3). The ReLU now stays a region of ours and the plan says why.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper as oh, numpy_helper

import fusion_opt as fo
from fusion_opt.analysis.opdesc import DataflowGraph, Edge, OpDesc, OpKind
from fusion_opt.fusion.handoff import HELD_REASON, misfused_reads


def _relu_two_strided_convs() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def w(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name)

    nodes = [oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Conv", ["r", "w1"], ["y"], strides=[2, 2]),
             oh.make_node("Conv", ["r", "w3"], ["z"], strides=[2, 2], pads=[1, 1, 1, 1])]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 16, 32, 32])],
                          [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in ("y", "z")],
                          [w("w1", 64, 16, 1, 1), w("w3", 64, 16, 3, 3)])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])


def test_relu_read_by_a_strided_window_copy_and_a_conv_stays_ours() -> None:
    ort = pytest.importorskip("onnxruntime")
    model = _relu_two_strided_convs()
    m = fo.compile_onnx(model)
    assert any(HELD_REASON in n for p in m.plans for n in p.notes), m.report()
    x = np.random.default_rng(1).standard_normal((1, 16, 32, 32)).astype(np.float32)
    refs = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})
    for got, ref in zip(m(x), refs):
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-4, atol=1e-4)


def test_misfused_reads_needs_a_shared_value_and_a_strided_reader() -> None:
    ident, strided = "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0 * 2, d1 * 2)"

    def generic(i: int, read: str) -> OpDesc:
        return OpDesc(i, "linalg.generic", f"t:{i}", OpKind.ELEMENTWISE, (8, 8), ("parallel",) * 2, (read, ident),
                      num_dps_inputs=1)

    relu, copy, other = generic(0, ident), generic(1, strided), generic(2, ident)
    both = DataflowGraph("f", (relu, copy, other), (Edge(0, 1, 0), Edge(0, 2, 0)))
    assert misfused_reads(both, {0, 1, 2}) == [(0, 1)]
    assert misfused_reads(both, {0, 2}) == []          # the strided reader is ours: IREE cannot fuse into it
    alone = DataflowGraph("f", (relu, copy), (Edge(0, 1, 0),))
    assert misfused_reads(alone, {0, 1}) == []         # no other reader: fusing it is right
    # through an elementwise op between them (fuzz seed 21329): relu -> square -> strided copy, relu returned
    square, late_copy = generic(1, ident), generic(2, strided)
    chain = DataflowGraph("f", (relu, square, late_copy), (Edge(0, 1, 0), Edge(1, 2, 0)), outputs=frozenset({0}))
    assert misfused_reads(chain, {0, 1, 2}) == [(0, 2)]
    assert misfused_reads(chain, {0, 2}) == []          # the square is ours: IREE cannot fuse across it


def test_vulkan_leaves_an_outer_reduction_with_a_prologue_to_iree() -> None:
    """IREE 3.13's SPIR-V code computed ConvNeXt-V2's GRN groups wrong on an H200 (an erf prologue into a sum
    over positions with channels innermost); on Vulkan such a group is IREE's, for both our planners, and
    the plan says why. The same graph keeps the group on a CUDA target (rule `spirv-outer-reduction` only)."""
    from ir_helpers import describe_text
    from test_cost import COLUMN_SUM_AFTER_ERF

    from fusion_opt.cost import get_target_desc
    from fusion_opt.fusion import plan
    from fusion_opt.fusion.handoff import SPIRV_REASON

    _, _, _, graph, _ = describe_text(COLUMN_SUM_AFTER_ERF)
    vk, cuda = get_target_desc("vulkan"), get_target_desc("sm_80")
    assert vk.spirv and not cuda.spirv
    for strategy in ("cost", "greedy"):
        on_vk = plan(graph, strategy, vk)
        assert not any(len(g.ops) > 1 and graph.ops[g.root].kind is OpKind.REDUCTION for g in on_vk.groups)
        assert any(SPIRV_REASON in n for n in on_vk.notes)
    greedy_cuda = plan(graph, "greedy", cuda)
    assert any(len(g.ops) > 2 for g in greedy_cuda.groups) and not any(SPIRV_REASON in n for n in greedy_cuda.notes)


_SLICED_MATMULS = """
func.func @f(%x: tensor<4x256x512xf32>, %w: tensor<4x256x256xf32>, %y: tensor<512x512xf32>, %a: tensor<256x256xf32>)
    -> (tensor<4x256x256xf32>, tensor<256x256xf32>) {
  %z = arith.constant 0.0 : f32
  %s = tensor.extract_slice %x[0, 0, 1] [4, 256, 256] [1, 1, 2] : tensor<4x256x512xf32> to tensor<4x256x256xf32>
  %e = tensor.empty() : tensor<4x256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %b = linalg.batch_matmul ins(%s, %w : tensor<4x256x256xf32>, tensor<4x256x256xf32>) outs(%f : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %t = tensor.extract_slice %y[0, 64] [256, 256] [2, 1] : tensor<512x512xf32> to tensor<256x256xf32>
  %e2 = tensor.empty() : tensor<256x256xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%a, %t : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %b, %m : tensor<4x256x256xf32>, tensor<256x256xf32>
}
"""


def test_sliced_operands_of_data_tiled_contractions_compile_first_time() -> None:
    """A strided or offset slice read by a matmul or a batch matmul of a data-tiled module failed to
    compile in IREE 3.13 (the packing held the operand on the stack) and the compile fell back three
    times; the slices are copy regions of ours now (`tiled_slices`), compiled at once and exact."""
    from fusion_opt.fusion.handoff import TILED_SLICE_REASON

    m = fo.compile_mlir(_SLICED_MATMULS, fusion="cost")
    assert not m.fallbacks
    assert "--iree-opt-data-tiling" in m.artifact.flags
    assert sum(TILED_SLICE_REASON in n for p in m.plans for n in p.notes) == 2
    rng = np.random.default_rng(0)
    x, w, y, a = (rng.standard_normal(s).astype(np.float32) for s in ((4, 256, 512), (4, 256, 256), (512, 512), (256, 256)))
    b, mm = m(x, w, y, a)
    np.testing.assert_allclose(b, x[:, :, 1::2] @ w, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(mm, a @ y[0::2, 64:320], rtol=1e-4, atol=1e-3)
