"""Planners on hand-written OpDesc graphs (no compiler), and greedy on the imported ResNet-50."""
from __future__ import annotations

import collections
from pathlib import Path

import pytest

from plan_checks import assert_group_graph_acyclic

from fusion_opt.analysis.classify import HEAVY
from fusion_opt.analysis.opdesc import DataflowGraph, Edge, OpDesc, OpKind
from fusion_opt.errors import PlanError
from fusion_opt.fusion import STRATEGIES, plan
from fusion_opt.fusion.report import plan_to_json, plan_to_text

E, B, I = OpKind.ELEMENTWISE, OpKind.BROADCAST, OpKind.INJECTIVE
RED, MM, CONV, PAD = OpKind.REDUCTION, OpKind.CONTRACTION, OpKind.CONVOLUTION, OpKind.PAD
NAMES = {E: "linalg.generic", B: "linalg.generic", I: "linalg.transpose", RED: "linalg.generic",
         MM: "linalg.matmul", CONV: "linalg.conv_2d_nchw_fchw", PAD: "tensor.pad"}


def op(kind, operands, shape, loops=None, nin=None, name=None, flops=1, dispatchable=True):
    """An OpDesc with just what the planner reads; the index is set by `graph`."""
    return dict(kind=kind, operands=tuple(operands), result_shapes=(tuple(shape),),
                loop_ranges=tuple(loops or shape), num_dps_inputs=len(operands) if nin is None else nin,
                name=name or NAMES[kind], flops=flops, dispatchable=dispatchable)


def fill(shape):
    return op(B, (None, None), shape, nin=1, name="linalg.fill", flops=0)


def graph(*specs, outputs=None) -> DataflowGraph:
    ops = tuple(OpDesc(index=i, loc=f"x.mlir:{i + 1}:3", **s) for i, s in enumerate(specs))
    edges = tuple(Edge(p, o.index, k) for o in ops for k, p in enumerate(o.operands) if p is not None and p >= 0)
    return DataflowGraph("f", ops, edges, frozenset(outputs if outputs is not None else {len(ops) - 1}))


def check_plan(p, g):
    """Invariants every greedy plan keeps: exact cover, one heavy root, acyclic group graph."""
    seen = collections.Counter(i for grp in p.groups for i in grp.ops)
    for o in g.ops:
        expected = 1 if o.dispatchable and o.index not in p.cloned else 0
        assert seen[o.index] == expected, (o.index, seen[o.index])
    assert set(p.unplaced) == {o.index for o in g.ops if not o.dispatchable} | set(p.cloned)
    for grp in p.groups:
        assert list(grp.ops) == sorted(grp.ops) and grp.root in grp.ops
        assert sum(g.ops[i].kind in HEAVY for i in grp.ops) <= 1, grp
    assert_group_graph_acyclic(p, g)
    considered = {(d.producer, d.consumer) for d in p.decisions}
    assert considered == {(e.producer, e.consumer) for e in g.edges}  # a reason for every edge
    return p


def greedy(g):
    """The greedy planner itself: `plan(g, "greedy")` also hands groups back to IREE (`STRATEGY_HANDOFFS`)."""
    return check_plan(STRATEGIES["greedy"](g), g)


def test_matmul_bias_relu_is_one_group():
    g = graph(fill((4, 16)),
              op(MM, (-1, -2, 0), (4, 16), loops=(4, 16, 8), nin=2),
              op(B, (1, -3, None), (4, 16), nin=2),
              op(E, (2, None), (4, 16), nin=1))
    p = greedy(g)
    assert len(p.groups) == 1
    grp = p.groups[0]
    assert grp.ops == (0, 1, 2, 3) and grp.root == 1 and grp.kind == "contraction+epilogue"
    assert any("fill into the init" in r for r in grp.reasons)
    assert any("epilogue" in r for r in grp.reasons)


def conv_bn_relu(x=-1, first=0):
    """fill, conv, eps-add + rsqrt on constants, sub, mul, mul, add, relu (as ONNX import writes BN)."""
    n = first
    return [fill((1, 8, 6, 6)),
            op(CONV, (x, None, n), (1, 8, 6, 6), loops=(1, 8, 6, 6, 3, 3, 3), nin=2),
            op(E, (None, None), (1, 8, 1, 1), nin=1),          # var + eps (constants only)
            op(E, (n + 2, None), (1, 8, 1, 1), nin=1),         # rsqrt
            op(B, (n + 1, None, None), (1, 8, 6, 6), nin=2),   # - mean
            op(B, (n + 4, n + 3, None), (1, 8, 6, 6), nin=2),  # * rsqrt
            op(B, (n + 5, None, None), (1, 8, 6, 6), nin=2),   # * gamma
            op(B, (n + 6, None, None), (1, 8, 6, 6), nin=2),   # + beta
            op(E, (n + 7, None), (1, 8, 6, 6), nin=1)]         # relu


def test_conv_bn_relu_is_one_group():
    g = graph(*conv_bn_relu())
    p = greedy(g)
    # The BN's rsqrt(var + eps) computes from constants only: rule `constant` keeps it apart (IREE
    # evaluates it at compile time); everything reading the conv is one group.
    conv = next(grp for grp in p.groups if grp.root == 1)
    assert conv.kind == "convolution+epilogue" and set(conv.ops) == {0, 1, 4, 5, 6, 7, 8}
    assert [set(grp.ops) for grp in p.groups if grp is not conv] == [{2, 3}]


def test_greedy_strategy_leaves_constant_groups_to_iree():
    """Through `plan`, greedy gives the constant-only group to IREE's const-eval (a region of splat
    arithmetic failed to compile, fuzz seed 25794); the conv's group stays as the planner formed it."""
    g = graph(*conv_bn_relu())
    p = plan(g, "greedy")
    assert [set(grp.ops) for grp in p.groups] == [{0, 1, 4, 5, 6, 7, 8}]
    assert {2, 3} <= set(p.unplaced) and any("const-eval" in n for n in p.notes)


def test_residual_block_keeps_each_bn_with_its_conv():
    main = conv_bn_relu(-1, 0)[:-1]                   # ops 0..7 (no relu)
    short = conv_bn_relu(-1, 8)[:-1]                  # ops 8..15
    g = graph(*main, *short, op(E, (7, 15, None), (1, 8, 6, 6), nin=2), op(E, (16, None), (1, 8, 6, 6), nin=1))
    p = greedy(g)
    convs = [grp for grp in p.groups if grp.kind.startswith("convolution")]
    assert len(convs) == 2 and len(p.groups) == 4       # + the two constant-only rsqrt(var + eps) groups
    for grp in convs:
        root = grp.root
        assert {root - 1, root} | set(range(root + 3, root + 7)) <= set(grp.ops)  # fill, conv, its BN
    assert any("kept for the epilogue of its own convolution" in d.reason for d in p.decisions)


def test_layernorm_never_puts_two_reductions_together():
    n, d = (8,), (8, 64)
    g = graph(op(RED, (-1, None), n, loops=d),          # 0 sum(x)
              op(E, (0, None), n),                      # 1 / D
              op(B, (-1, 1, None), d, nin=2),           # 2 x - mean
              op(E, (2, 2, None), d, nin=2),            # 3 square
              op(RED, (3, None), n, loops=d),           # 4 sum
              op(E, (4, None), n),                      # 5 / D
              op(E, (5, None), n),                      # 6 + eps
              op(E, (6, None), n),                      # 7 rsqrt
              op(B, (2, 7, None), d, nin=2),            # 8 * rstd
              op(B, (8, -2, None), d, nin=2),           # 9 * gamma
              op(B, (9, -3, None), d, nin=2))           # 10 + beta
    p = greedy(g)
    of = p.group_of()
    assert of[0] != of[4]
    assert of[4] == of[5] == of[6] == of[7]             # the variance's scalar epilogue stays with it
    assert of[3] == of[4]                               # square is the reduction's prologue
    assert of[8] == of[9] == of[10]
    refusals = [d.reason for d in p.decisions if not d.fused]
    assert any("broadcasts the reduction result" in r or "kept for the epilogue" in r for r in refusals)


def test_softmax():
    n, d = (8,), (8, 64)
    g = graph(op(RED, (-1, None), n, loops=d),          # 0 max
              op(B, (-1, 0, None), d, nin=2),           # 1 x - max
              op(E, (1, None), d),                      # 2 exp
              op(RED, (2, None), n, loops=d),           # 3 sum
              op(B, (2, 3, None), d, nin=2))            # 4 exp / sum
    p = greedy(g)
    of = p.group_of()
    assert len({of[0], of[3]}) == 2 and of[1] == of[2]
    assert len(p.groups) == 4


def test_diamond_cycle_is_refused():
    # 0 -> 1 (pad, alone) -> 2 and 0 -> 2: putting 0 with 2 would need the pad in between.
    g = graph(op(E, (-1, None), (4, 4), nin=1),
              op(PAD, (0,), (6, 6)),
              op(B, (0, 1, None), (4, 4), nin=2))
    p = greedy(g)
    assert len(p.groups) == 3
    reasons = {(d.producer, d.consumer): d.reason for d in p.decisions}
    assert reasons[(0, 2)].startswith("refused: would create a cycle via op 1 (tensor.pad at x.mlir:2:3)")


def test_multi_consumer_producer_fuses_all_or_none():
    d = (8, 64)
    split = graph(op(E, (-1, None), d),                 # 0 feeds two reductions: two groups
                  op(RED, (0, None), (8,), loops=d),
                  op(RED, (0, None), (8,), loops=d), outputs={1, 2})
    p = greedy(split)
    assert len(p.groups) == 3
    assert all(not d.fused and "2 consumers in 2 different groups" in d.reason
               for d in p.decisions if d.producer == 0)
    joined = graph(op(E, (-1, None), d),                # 0 feeds 1 and 2, both end in 3's group
                   op(E, (0, None), d), op(E, (0, None), d), op(E, (1, 2, None), d, nin=2))
    assert len(greedy(joined).groups) == 1


def test_shared_fill_is_cloned_and_reshapes_stay_outside():
    g = graph(fill((4, 16)),
              op(MM, (-1, -2, 0), (4, 16), loops=(4, 16, 8), nin=2),
              op(MM, (-1, -3, 0), (4, 16), loops=(4, 16, 8), nin=2),
              op(I, (2,), (64,), name="tensor.collapse_shape", dispatchable=False), outputs={1, 3})
    p = greedy(g)
    assert p.cloned == (0,) and set(p.unplaced) == {0, 3} and len(p.groups) == 2


def test_strategies_and_report():
    g = graph(*conv_bn_relu())
    none = check_plan(plan(g, "none"), g)
    fills = {op.index for op in g.ops if op.name == "linalg.fill"}  # splats: cloned by IREE into their readers
    assert len(none.groups) == len(g.ops) - len(fills) and set(none.cloned) == fills and none.strategy == "none"
    iree = plan(g, "iree")
    assert iree.groups == () and set(iree.unplaced) == set(range(len(g.ops)))
    with pytest.raises(PlanError):
        plan(g, "magic")
    with pytest.raises(ValueError):
        plan(g, "magic")
    p = plan(g, "greedy")
    js = plan_to_json(p, g)
    assert js["name"] == "f" and js["strategy"] == "greedy"
    grp = js["groups"][0]
    assert set(grp) >= {"id", "kind", "root", "ops", "reasons"}
    assert grp["root"] == {"name": "linalg.conv_2d_nchw_fchw", "loc": "x.mlir:2:3", "index": 1}
    assert grp["ops"][1] == {"index": 1, "name": "linalg.conv_2d_nchw_fchw", "loc": "x.mlir:2:3",
                             "kind": "convolution"}
    # the constant-only rsqrt(var + eps) stays apart, and its group is IREE's (const-eval): a hand-off
    assert [u["rule"] for u in js["unfused"]] == ["hand-off", "constant"]
    text = plan_to_text(plan(g, "none"), g)
    assert "convolution" in text and "not fused" in text and "strategy 'none'" in text


# --- ResNet-50 ----------------------------------------------------------------------------------

RESNET = Path(__file__).resolve().parents[2] / (
    ".venv/lib/python3.11/site-packages/onnx/backend/test/data/light/light_resnet50.onnx")


def test_resnet50_greedy():
    if not RESNET.is_file():
        pytest.skip("onnx's light_resnet50.onnx is not installed")
    from fusion_opt.analysis.describe import describe_function
    from fusion_opt.importers import import_onnx
    from fusion_opt.ir import functions, new_session

    sess = new_session()
    module, _ = import_onnx(RESNET, sess.context)
    g, _ = describe_function(functions(module)[0], "resnet50.onnx")
    p = greedy(g)
    kinds = collections.Counter(grp.kind for grp in p.groups)
    # 17 windowed convs and 36 1x1 convs (matmul-like contractions once IREE's generalization folds
    # their unit window) each absorb their BatchNorm (+ReLU, +add); the fc matmul absorbs its bias.
    heavy = [grp for grp in p.groups if grp.kind.startswith(("convolution", "contraction"))]
    assert kinds["convolution+epilogue"] == 17 and kinds["contraction+epilogue"] == 37
    for grp in heavy[:-1]:
        assert len(grp.ops) >= 5
    assert kinds["pad"] == 0
    assert sum(g.ops[i].name == "tensor.pad" for i in p.unplaced) == 18  # left to IREE
    assert 53 + 2 < len(p.groups) < 80                  # convs, pools, fc, a few small ones
    relus = [o.index for o in g.ops if o.body_ops == ("arith.cmpf", "arith.select")]
    grouped_with_heavy = {i for grp in heavy for i in grp.ops}
    assert set(relus) <= grouped_with_heavy
    assert len(p.groups) == len(plan_to_json(p, g)["groups"])
