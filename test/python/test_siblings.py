"""Horizontal stacking of sibling matmuls (rewrites/siblings.py): detection, the cost decision, and
numerics of the stacked IR through IREE against the unstacked build."""
from __future__ import annotations

import re

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.cost import get_target_desc
from fusion_opt.rewrites import siblings
from ir_helpers import describe_text


def _weights(rng: np.random.Generator, k: int, n: int) -> str:
    vals = ", ".join("[" + ", ".join(f"{v:.4f}" for v in row) + "]" for row in rng.uniform(-1, 1, (k, n)))
    return f"dense<[[{vals}]]> : tensor<1x{k}x{n}xf32>"


def qkv_mlir(k: int = 16, n: int = 8, m: int = 4, count: int = 3, seed: int = 0, splat: bool = False) -> str:
    """`count` batch matmuls sharing their input, constant weights, one zero fill (as ONNX imports Q/K/V)."""
    rng = np.random.default_rng(seed)
    lines = [f"  %w{j} = arith.constant "
             + (f"dense<{0.5 + j}> : tensor<1x{k}x{n}xf32>" if splat else _weights(rng, k, n)) for j in range(count)]
    lines += ["  %zero = arith.constant 0.0 : f32",
              f"  %e = tensor.empty() : tensor<1x{m}x{n}xf32>",
              f"  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x{m}x{n}xf32>) -> tensor<1x{m}x{n}xf32>"]
    for j in range(count):
        lines.append(f"  %r{j} = linalg.batch_matmul ins(%x, %w{j} : tensor<1x{m}x{k}xf32>, tensor<1x{k}x{n}xf32>) "
                     f"outs(%init : tensor<1x{m}x{n}xf32>) -> tensor<1x{m}x{n}xf32>")
    results = ", ".join(f"%r{j}" for j in range(count))
    types = ", ".join([f"tensor<1x{m}x{n}xf32>"] * count)
    return (f"func.func @qkv(%x: tensor<1x{m}x{k}xf32>) -> ({types}) {{\n" + "\n".join(lines)
            + f"\n  return {results} : {types}\n}}\n")



def test_finds_the_three_siblings_and_their_n_dim():
    sess, module, f, graph, ops = describe_text(qkv_mlir())
    found = siblings.find_siblings(graph, ops)
    assert len(found) == 1
    s = found[0]
    assert len(s.ops) == 3 and all(graph.ops[i].name == "linalg.batch_matmul" for i in s.ops)
    assert (s.weight_dim, s.result_dim) == (2, 2)


def test_barred_or_different_input_ops_are_not_siblings():
    sess, module, f, graph, ops = describe_text(qkv_mlir())
    s = siblings.find_siblings(graph, ops)[0]
    left = siblings.find_siblings(graph, ops, barred={s.ops[0]})
    assert [len(x.ops) for x in left] == [2]
    assert siblings.find_siblings(graph, ops, barred=set(s.ops[:2])) == []


def test_stacked_desc_reads_the_shared_input_once():
    sess, module, f, graph, ops = describe_text(qkv_mlir(k=64, n=32, m=16))
    s = siblings.find_siblings(graph, ops)[0]
    descs = [graph.ops[i] for i in s.ops]
    st = siblings.stacked_desc(descs, s)
    assert st.flops == sum(d.flops for d in descs)
    lhs = 16 * 64 * 4
    assert st.bytes_read == sum(d.bytes_read for d in descs) - 2 * lhs
    assert st.result_shapes[0] == (1, 16, 96)


def test_decision_follows_the_measured_efficiency(monkeypatch):
    host = get_target_desc("host")
    # The attention block's projections (128x256 @ 256x256): compute-bound, IREE's stacked code is slower.
    sess, module, f, graph, ops = describe_text(qkv_mlir(k=256, n=256, m=128, splat=True))
    big = siblings.find_siblings(graph, ops)[0]
    v = siblings.decide(graph, big, host)
    assert v.after_s > v.before_s and not v.take
    assert ": apart (predicted" in v.note()
    monkeypatch.setattr(siblings, "STACKED_EFFICIENCY", 1.0)
    assert siblings.decide(graph, big, host).take       # as fast as apart: the shared read wins
    monkeypatch.undo()
    # Tiny matmuls are launch-bound: two launches saved outweigh the slower code.
    sess2, module2, f2, graph2, ops2 = describe_text(qkv_mlir(splat=True))
    v = siblings.decide(graph2, siblings.find_siblings(graph2, ops2)[0], host)
    assert v.take and ": stacked into one matmul (" in v.note()


def test_matrix_vector_siblings_stay_apart_on_a_gpu():
    """M = 1 (a decode step's Q/K/V): IREE's GPU GEMV pipeline takes each apart, not the stacked generic
    (H200: 0.184 ms stacked against 0.122 apart). Wider M on the GPU and M = 1 on a CPU are priced as before."""
    gpu, host = get_target_desc("sm_90"), get_target_desc("host")
    sess, module, f, graph, ops = describe_text(qkv_mlir(k=64, n=64, m=1, splat=True))
    s = siblings.find_siblings(graph, ops)[0]
    assert siblings.rows(graph.ops[s.ops[0]]) == 1
    v = siblings.decide(graph, s, gpu)
    assert not v.take and "stacked into one matmul not offered" in v.note()
    assert siblings.decide(graph, s, host).take
    sess, module, f, graph, ops = describe_text(qkv_mlir(k=64, n=64, m=16, splat=True))
    s = siblings.find_siblings(graph, ops)[0]
    assert siblings.rows(graph.ops[s.ops[0]]) == 16 and siblings.decide(graph, s, gpu).take


def test_stacked_ir_verifies_and_matches_unstacked_numerics(monkeypatch):
    text = qkv_mlir(k=24, n=12, m=5)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 5, 24)).astype(np.float32)
    plain = fo.compile_mlir(text, fusion="none")
    monkeypatch.setattr(siblings, "STACKED_EFFICIENCY", 1.0)
    stacked = fo.compile_mlir(text, fusion="cost")
    assert any(": stacked into one matmul (" in n for n in stacked.plan.notes)
    assert stacked.dispatch_count == 1                        # one contraction; the slices are views
    want, got = plain(x), stacked(x)
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    w = [np.asarray(v) for v in want]
    assert not np.allclose(w[0], w[1])                        # the slices are not mixed up


@pytest.mark.parametrize("fusion", ["greedy", "none"])
def test_only_the_cost_strategy_rewrites(monkeypatch, fusion):
    monkeypatch.setattr(siblings, "STACKED_EFFICIENCY", 1.0)
    m = fo.compile_mlir(qkv_mlir(), fusion=fusion)
    assert not any(n.startswith("sibling-matmuls:") for n in m.plan.notes)


def test_two_stackings_sharing_weights_keep_them_dominating(monkeypatch):
    """Two inputs each times the same two weights (a complex DFT's re @ A, re @ B, im @ A, im @ B): two
    stackings. The second moved the shared weight down to itself, below the first stacking that read it
    ("operand #0 does not dominate this use", onnx's test_dft_inverse); weights now only move up."""
    rng = np.random.default_rng(3)
    wa, wb = _weights(rng, 8, 6), _weights(rng, 8, 6)
    body = [f"  %wa = arith.constant {wa}", "  %zero = arith.constant 0.0 : f32",
            "  %e = tensor.empty() : tensor<1x4x6xf32>",
            "  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6xf32>) -> tensor<1x4x6xf32>"]
    mm = "linalg.batch_matmul ins(%{x}, %{w} : tensor<1x4x8xf32>, tensor<1x8x6xf32>) outs(%init : tensor<1x4x6xf32>) -> tensor<1x4x6xf32>"
    body += [f"  %r0 = {mm.format(x='x', w='wa')}", f"  %wb = arith.constant {wb}", f"  %r1 = {mm.format(x='x', w='wb')}",
             f"  %r2 = {mm.format(x='y', w='wa')}", f"  %r3 = {mm.format(x='y', w='wb')}"]
    t = "tensor<1x4x6xf32>"
    text = (f"func.func @two(%x: tensor<1x4x8xf32>, %y: tensor<1x4x8xf32>) -> ({t}, {t}, {t}, {t}) {{\n"
            + "\n".join(body) + f"\n  return %r0, %r1, %r2, %r3 : {t}, {t}, {t}, {t}\n}}\n")
    x, y = (np.random.default_rng(s).uniform(-1, 1, (1, 4, 8)).astype(np.float32) for s in (4, 5))
    plain = fo.compile_mlir(text, fusion="none")
    monkeypatch.setattr(siblings, "STACKED_EFFICIENCY", 1.0)
    stacked = fo.compile_mlir(text, fusion="cost")
    assert sum(": stacked into one matmul (" in n for n in stacked.plan.notes) == 2
    for a, b in zip(plain(x, y), stacked(x, y)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_stacked_projections_keep_bias_and_head_transpose_together(monkeypatch):
    """BERT's Q/K/V: each projection's bias add is followed by a reshape to heads and a transpose. After
    stacking, the reshapes sat between the bias adds (now reading slices) and the transposes, where the
    planner cannot group across them: three more dispatches (unseen batch 10's BERT layer 17 -> 20). The
    rewrite propagates the reshapes again, as the import did."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(2)
    b, t, d, h = 2, 32, 64, 4
    nodes, inits = [], [numpy_helper.from_array(np.array([b, t, h, d // h], np.int64), "shape")]
    for p in "qkv":
        inits += [numpy_helper.from_array(rng.standard_normal((d, d)).astype(np.float32) * 0.1, f"w{p}"),
                  numpy_helper.from_array(rng.standard_normal(d).astype(np.float32), f"b{p}")]
        nodes += [helper.make_node("MatMul", ["x", f"w{p}"], [f"m{p}"]), helper.make_node("Add", [f"m{p}", f"b{p}"], [f"a{p}"]),
                  helper.make_node("Reshape", [f"a{p}", "shape"], [f"r{p}"]),
                  helper.make_node("Transpose", [f"r{p}"], [f"t{p}"], perm=[0, 2, 3, 1] if p == "k" else [0, 2, 1, 3])]
    nodes += [helper.make_node("MatMul", ["tq", "tk"], ["s"]), helper.make_node("Softmax", ["s"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "tv"], ["y"])]
    g = helper.make_graph(nodes, "qkv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [b, t, d])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [b, h, t, d // h])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    monkeypatch.setattr(siblings, "STACKED_EFFICIENCY", 1.0)
    m = fo.compile_onnx(model)
    assert any(": stacked into one matmul (" in n for n in m.plan.notes)
    # the stacked matmul's own reshape stays; without the propagation each bias add's reshape too (10
    # dispatches instead of 7)
    refused = [line for line in m.report().splitlines() if re.search(r"\d+:generic@\S* -> \d+:tensor.expand_shape", line)]
    assert len(refused) <= 1, refused
    ort = pytest.importorskip("onnxruntime")
    x = rng.standard_normal((b, t, d)).astype(np.float32)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(np.asarray(m(x)), want, rtol=1e-4, atol=1e-4)
