"""Op classification (pure) and function description (parsed IR, and the imported ResNet-50)."""
from __future__ import annotations

import collections
import time
from pathlib import Path

import pytest

from fusion_opt.analysis.classify import classify, explain, map_results
from fusion_opt.analysis.describe import describe_function
from fusion_opt.analysis.opdesc import OpKind
from fusion_opt.importers import import_onnx, parse_mlir
from fusion_opt.ir import functions, new_session

P, R = "parallel", "reduction"
RESNET = Path(__file__).resolve().parents[2] / (
    ".venv/lib/python3.11/site-packages/onnx/backend/test/data/light/light_resnet50.onnx")


# --- classify: pure, hand-written maps ---------------------------------------------------------

@pytest.mark.parametrize("its,dims,nin,body,name,maps,kind", [
    ((P, P), ((0, 1), (0, 1), (0, 1)), 2, ("arith.addf",), "linalg.generic", (), OpKind.ELEMENTWISE),
    ((P, P), ((1, 0), (1, 0)), 1, ("math.exp",), "linalg.generic", (), OpKind.ELEMENTWISE),
    ((P, P), ((0, 1), (1,), (0, 1)), 2, ("arith.addf",), "linalg.generic", (), OpKind.BROADCAST),
    ((P, P, P, P), ((0, 1, 2, 3), (0, 1, -1, -1), (0, 1, 2, 3)), 2, ("arith.subf",), "linalg.generic",
     ("(d0, d1, d2, d3) -> (d0, d1, d2, d3)", "(d0, d1, d2, d3) -> (d0, d1, 0, 0)",
      "(d0, d1, d2, d3) -> (d0, d1, d2, d3)"), OpKind.BROADCAST),
    ((P, P), ((), (0, 1)), 1, (), "linalg.fill", (), OpKind.BROADCAST),
    ((P, P), ((1, 0), (0, 1)), 1, (), "linalg.transpose", (), OpKind.INJECTIVE),
    ((P, R), ((0, 1), (0,)), 1, ("arith.addf",), "linalg.generic", (), OpKind.REDUCTION),
    ((P, P, R), ((0, 2), (2, 1), (0, 1)), 2, ("arith.mulf", "arith.addf"), "linalg.matmul", (),
     OpKind.CONTRACTION),
    ((P, P, P, P, R, R, R), ((0, 4, -1, -1), (1, 4, 5, 6), (0, 1, 2, 3)), 2, ("arith.mulf", "arith.addf"),
     "linalg.conv_2d_nchw_fchw", (), OpKind.CONVOLUTION),
    ((P, P, P, P, R, R), ((0, 1, -1, -1), (4, 5), (0, 1, 2, 3)), 2, ("arith.maximumf",),
     "linalg.pooling_nchw_max", (), OpKind.REDUCTION),
    ((), (), 1, (), "tensor.pad", (), OpKind.PAD),
    ((), (), 1, (), "tensor.collapse_shape", (), OpKind.INJECTIVE),
    ((), (), 2, (), "tensor.concat", (), OpKind.OPAQUE),
    ((), (), 2, (), "arith.addi", (), OpKind.OPAQUE),
])
def test_classify_table(its, dims, nin, body, name, maps, kind):
    assert classify(its, dims, nin, body, name, maps) is kind
    assert explain(its, dims, nin, body, name, maps)[1]  # every rule gives a reason


def test_classify_ignores_names_of_linalg_ops():
    # A "matmul" whose maps are elementwise is elementwise: the kind comes from the maps.
    assert classify((P, P), ((0, 1), (0, 1)), 1, ("arith.negf",), "linalg.matmul") is OpKind.ELEMENTWISE


def test_map_results():
    assert map_results("(d0, d1, d2) -> (d0 * 2 + d1, 0, d2)") == ["d0 * 2 + d1", "0", "d2"]
    assert map_results("affine_map<(d0) -> ()>") == []


# --- describe_function on small parsed functions ------------------------------------------------

def describe(text: str):
    sess = new_session()
    module = parse_mlir(text, sess.context, "t.mlir")
    graph, ops = describe_function(functions(module)[0], "t.mlir")
    return graph, ops, (sess, module)  # keep the context alive with the ops


MATMUL = """
func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
"""


def test_describe_matmul_bias():
    g, ops, _ = describe(MATMUL)
    assert [o.name for o in g.ops] == ["linalg.fill", "linalg.matmul", "linalg.generic"]
    assert len(ops) == 3 and ops[1].name == "linalg.matmul"
    fill, mm, add = g.ops
    assert [o.kind for o in g.ops] == [OpKind.BROADCAST, OpKind.CONTRACTION, OpKind.BROADCAST]
    assert mm.loc == "t.mlir:6:8" and fill.operands == (None, None)
    assert mm.operands == (-1, -2, 0) and add.operands == (1, -3, None)
    assert mm.loop_ranges == (4, 16, 8) and mm.iterator_types == (P, P, R)
    assert mm.flops == 2 * 4 * 16 * 8
    assert mm.bytes_read == 4 * (4 * 8 + 8 * 16 + 4 * 16) and mm.bytes_written == 4 * 4 * 16
    assert add.bytes_read == 4 * (4 * 16 + 16)  # the fresh `outs` is not read
    assert add.body_ops == ("arith.addf",) and add.flops == 64
    assert {(e.producer, e.consumer, e.operand) for e in g.edges} == {(0, 1, 2), (1, 2, 0)}
    assert g.outputs == frozenset({2}) and all(o.dispatchable for o in g.ops)


CASES = {
    "conv": ("""
func.func @conv(%x: tensor<1x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %i: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %w : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%i : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}""", OpKind.CONVOLUTION),
    "pool": ("""
func.func @pool(%x: tensor<1x3x10x10xf32>, %i: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %k = tensor.empty() : tensor<3x3xf32>
  %c = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %k : tensor<1x3x10x10xf32>, tensor<3x3xf32>) outs(%i : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %c : tensor<1x3x8x8xf32>
}""", OpKind.REDUCTION),
    "transpose": ("""
func.func @tr(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  return %t : tensor<8x4xf32>
}""", OpKind.INJECTIVE),
    "broadcast": ("""
func.func @bc(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%x : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  return %b : tensor<4x8xf32>
}""", OpKind.BROADCAST),
    "sum": ("""
func.func @sum(%x: tensor<4x8xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}""", OpKind.REDUCTION),
    "exp": ("""
func.func @exp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}""", OpKind.ELEMENTWISE),
    "pad": ("""
func.func @pad(%x: tensor<4x8xf32>) -> tensor<6x10xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  return %p : tensor<6x10xf32>
}""", OpKind.PAD),
    "collapse": ("""
func.func @collapse(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %c : tensor<32xf32>
}""", OpKind.INJECTIVE),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_describe_single_op(case):
    text, kind = CASES[case]
    g, ops, _ = describe(text)
    assert len(g.ops) == 1 and g.ops[0].kind is kind, g.ops[0]
    op = g.ops[0]
    assert op.loc.startswith("t.mlir:") and g.outputs == frozenset({0})
    assert op.dispatchable == (case not in ("collapse", "pad"))  # reshapes are metadata-only; pads left to IREE
    if case == "conv":
        assert op.loop_ranges == (1, 8, 8, 8, 3, 3, 3) and op.flops == 2 * 8 * 64 * 27
        assert op.map_dims[0] == (0, 4, -1, -1)
    if case == "pool":
        assert op.bytes_read == 4 * (300 + 192)  # the window-shape tensor is never read
    if case == "sum":
        assert op.iterator_types == (P, R) and op.bytes_read == 4 * (32 + 4)


def test_fused_and_name_locations():
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32> loc(fused["m.onnx":3:4, "node_7"])
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%r : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32> loc("n147")
  return %n : tensor<4xf32>
}"""
    g, _, _ = describe(text)
    assert [o.loc for o in g.ops] == ["node_7", "n147"]


# --- the imported ResNet-50 ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def resnet():
    if not RESNET.is_file():
        pytest.skip("onnx's light_resnet50.onnx is not installed")
    sess = new_session()
    module, _ = import_onnx(RESNET, sess.context)
    t0 = time.perf_counter()
    graph, ops = describe_function(functions(module)[0], "resnet50.onnx")
    return graph, ops, time.perf_counter() - t0, (sess, module)


def test_resnet50_kinds(resnet):
    graph, ops, seconds, _ = resnet
    assert seconds < 2.0
    kinds = collections.Counter(o.kind for o in graph.ops)
    # The import runs IREE's global-opt generalization and unit-dim folding, so the graph is what
    # IREE's dispatch formation sees: the 36 1x1 stride-1 convolutions lose their unit window and are
    # matmul-like contractions (plus the classifier's matmul); 17 convolutions keep a window.
    assert kinds[OpKind.CONVOLUTION] == 17
    assert kinds[OpKind.CONTRACTION] == 37
    assert kinds[OpKind.PAD] == 18
    assert kinds[OpKind.REDUCTION] == 2          # max pool and global average pool, generalized
    names = collections.Counter((o.name, o.kind) for o in graph.ops)
    assert names[("linalg.softmax", OpKind.OPAQUE)] == 1   # raised from its exp/sum/div generics
    assert not any(o.name == "linalg.transpose" for o in graph.ops)  # the fc weight's, folded into the matmul
    # A fill into a 0-d accumulator (after unit dims are folded) has nothing to broadcast over.
    fills = [o for o in graph.ops if o.name == "linalg.fill"]
    assert len(fills) == 15 and {o.kind for o in fills} <= {OpKind.BROADCAST, OpKind.ELEMENTWISE}
    assert len(ops) == len(graph.ops)
    assert all(ops[i].name == o.name for i, o in enumerate(graph.ops))
    not_dispatchable = {o.name for o in graph.ops if not o.dispatchable}
    assert not_dispatchable == {"tensor.collapse_shape", "tensor.expand_shape", "tensor.pad"}
    assert all(o.loc.startswith("n") for o in graph.ops if o.kind is OpKind.CONVOLUTION)  # ONNX node names


def test_resnet50_graph_is_topological(resnet):
    graph = resnet[0]
    assert all(e.producer < e.consumer for e in graph.edges)
    assert len(graph.outputs) == 1
    assert sum(o.flops for o in graph.ops if o.kind in (OpKind.CONVOLUTION, OpKind.CONTRACTION)) > 7e9  # ~8.2 GFLOP
