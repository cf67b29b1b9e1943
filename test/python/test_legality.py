"""Each legality rule of fusion/legality.py on hand-written OpDescs: one accepted and one rejected case."""
from __future__ import annotations

from pathlib import Path

import pytest

from fusion_opt.analysis.opdesc import DataflowGraph, Edge, OpDesc, OpKind
from fusion_opt.fusion.legality import RULE_NAMES, RULES, Partition, check_group, check_merge

E, B, RED, MM, CONV, PAD, OPQ = (OpKind.ELEMENTWISE, OpKind.BROADCAST, OpKind.REDUCTION, OpKind.CONTRACTION,
                                 OpKind.CONVOLUTION, OpKind.PAD, OpKind.OPAQUE)
ID2, ROW = "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"


def op(kind, operands, loops=(8, 64), maps=None, dims=None, out=None, nin=None, name="linalg.generic",
       iters=None, dispatchable=True, flops=1):
    nin = len(operands) if nin is None else nin
    maps = maps if maps is not None else (ID2,) * (nin + 1)
    dims = dims if dims is not None else ((0, 1),) * (nin + 1)
    iters = iters or ("parallel",) * len(loops)
    return dict(kind=kind, operands=tuple(operands), loop_ranges=tuple(loops), iterator_types=tuple(iters),
                indexing_maps=tuple(maps), map_dims=tuple(dims), result_shapes=(tuple(out or loops),),
                num_dps_inputs=nin, name=name, dispatchable=dispatchable, flops=flops)


def red(src):
    return op(RED, (src,), maps=(ID2, ROW), dims=((0, 1), (0,)), out=(8,), iters=("parallel", "reduction"))


def bcast(a, r):
    return op(B, (a, r), maps=(ID2, ROW, ID2), dims=((0, 1), (0,), (0, 1)))


def mm(a, init=None):
    return op(MM, (a, -2, init), loops=(8, 64, 64), nin=2, name="linalg.matmul",
              maps=("(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)"),
              dims=((0, 2), (2, 1), (0, 1)), out=(8, 64), iters=("parallel", "parallel", "reduction"))


def graph(*specs) -> DataflowGraph:
    ops = tuple(OpDesc(index=i, loc=f"x.mlir:{i + 1}:3", **s) for i, s in enumerate(specs))
    edges = tuple(Edge(p, o.index, k) for o in ops for k, p in enumerate(o.operands) if p is not None and p >= 0)
    return DataflowGraph("f", ops, edges, frozenset({len(ops) - 1}))


def rule_of(g, members):
    v = check_group(g, members)
    return "ok" if v.ok else v.rule


def test_table_has_names_and_reasons():
    assert len({r.name for r in RULES}) == len(RULES) and "cycle" in RULE_NAMES
    assert all(r.why and len(r.why) < 110 for r in RULES)


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_every_rule_has_an_accepted_and_a_rejected_lit_test(rule):
    lit = Path(__file__).resolve().parents[1] / "lit" / "legality"
    assert "--verify-diagnostics" in (lit / f"{rule}-illegal.mlir").read_text()
    assert f"rule '{rule}'" in (lit / f"{rule}-illegal.mlir").read_text()
    assert "filecheck" in (lit / f"{rule}.mlir").read_text()


@pytest.mark.parametrize("ok_case, bad_case, rule", [
    # dispatchable: a reshape stays with IREE
    ((op(E, (-1,)), op(E, (0,))), (op(E, (-1,)), op(OpKind.INJECTIVE, (0,), name="tensor.expand_shape",
                                                   dispatchable=False)), "dispatchable"),
    # lone pad: only with the convolution it feeds
    ((op(PAD, (-1,), name="tensor.pad", dispatchable=False, maps=(), dims=()),
      op(CONV, (0, -2, None), loops=(8, 64, 3), nin=2, name="linalg.conv_1d",
         maps=("(d0, d1, d2) -> (d0 + d2, d1)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)"),
         dims=((-1, 1), (2, 1), (0, 1)), out=(8, 64), iters=("parallel", "parallel", "reduction"))),
     (op(PAD, (-1,), name="tensor.pad", maps=(), dims=()), op(E, (0,))), "lone-pad"),
    # opaque ops stay alone
    ((op(E, (-1,)), op(E, (0,))), (op(E, (-1,)), op(OPQ, (0,), name="tensor.concat", maps=(), dims=())), "opaque"),
    # one contraction per dispatch
    ((mm(-1), op(E, (0,))), (mm(-1), mm(0)), "one-contraction"),
    # a single root: two independent consumers of one input are not one dispatch
    ((op(E, (-1,)), op(E, (0,)), op(E, (0, 1))), (op(E, (-1,)), op(E, (0,)), op(E, (0,))), "single-root"),
    # tile-fuse: a read at d0 - 1 (positive distance) is fine, at d0 + 1 is not
    ((op(E, (-1,)), op(E, (0,), maps=("(d0, d1) -> (d0 - 1, d1)", ID2), dims=((-1, 1), (0, 1)))),
     (op(E, (-1,)), op(E, (0,), maps=("(d0, d1) -> (d0 + 1, d1)", ID2), dims=((-1, 1), (0, 1)))), "tile-fuse"),
    # contraction prologue: a fill of the accumulator joins, an elementwise input producer does not
    ((op(B, (None, None), nin=1, name="linalg.fill", maps=("(d0, d1) -> ()", ID2), dims=((), (0, 1)), flops=0),
      mm(-1, 0)), (op(E, (-1,)), mm(0)), "contraction-prologue"),
    # root space: an epilogue over the matmul's output is fine, a reduction of it is not
    ((mm(-1), op(E, (0,))), (mm(-1), red(0)), "root-space"),
    # reduction: row-wise broadcast back (softmax) is fine; a column reduction with a row one is not
    ((red(-1), bcast(-1, 0)),
     (red(-1), op(RED, (-1,), maps=(ID2, "(d0, d1) -> (d1)"), dims=((0, 1), (1,)), out=(64,),
                  loops=(8, 64), iters=("reduction", "parallel")), op(E, (0, 1), loops=(8,), out=(8,),
                                                                     maps=("(d0) -> (d0)",) * 3, dims=((0,),) * 3)),
     "reduction"),
])
def test_rule_accepts_and_rejects(ok_case, bad_case, rule):
    good, bad = graph(*ok_case), graph(*bad_case)
    assert rule_of(good, range(len(good.ops))) == "ok"
    assert rule_of(bad, range(len(bad.ops))) == rule


def test_shared_const_read_refuses_only_a_returned_reader():
    # 0 -> 1 (read at a constant index on its size-1 dim), 0 -> 2, 1 -> 2: op 1 returned too is refused
    unit = dict(loops=(1, 64))
    ops = graph(op(E, (-1,), **unit), op(E, (0,), maps=("(d0, d1) -> (0, d1)", ID2), dims=((-1, 1), (0, 1)), **unit),
                op(E, (0, 1), **unit)).ops
    edges = tuple(Edge(p, o.index, k) for o in ops for k, p in enumerate(o.operands) if p is not None and p >= 0)
    inside = DataflowGraph("f", ops, edges, frozenset({2}))
    returned = DataflowGraph("f", ops, edges, frozenset({1, 2}))
    assert rule_of(inside, range(3)) == "ok"
    assert rule_of(returned, range(3)) == "shared-const-read"
    # op 0 read by op 1 alone: compiles (the reader returned, no other reader of op 0)
    alone = DataflowGraph("f", ops[:2], edges[:1], frozenset({1}))
    assert rule_of(alone, range(2)) == "ok"


def test_reduction_broadcast_over_other_dims_is_refused():
    # reading the row-reduced value through (d1) broadcasts it over the wrong dim
    g = graph(red(-1), op(B, (-1, 0), maps=(ID2, "(d0, d1) -> (d1)", ID2), dims=((0, 1), (1,), (0, 1))))
    assert rule_of(g, {0, 1}) == "reduction"


def test_cycle_rule_on_merge_and_group():
    # 0 -> 1 -> 2 and 0 -> 2: merging 0 with 2 around 1 is a cycle; all three is fine
    g = graph(op(E, (-1,)), op(E, (0,)), op(E, (0, 1)))
    part = Partition(g)
    v = check_merge(part, frozenset({0}), frozenset({2}))
    assert not v and v.rule == "cycle" and "op 1" in v.reason
    assert check_merge(part, frozenset({0, 1}), frozenset({2}))
    assert rule_of(g, {0, 2}) == "cycle" and rule_of(g, {0, 1, 2}) == "ok"


def test_layernorm_is_one_legal_group():
    g = graph(red(-1), op(E, (0,), loops=(8,), out=(8,), maps=("(d0) -> (d0)",) * 2, dims=((0,),) * 2),
              bcast(-1, 1), op(E, (2,)), red(3), op(E, (4,), loops=(8,), out=(8,), maps=("(d0) -> (d0)",) * 2,
                                                    dims=((0,),) * 2), bcast(2, 5))
    assert check_group(g, range(7)).ok


# ---- groups handed back to IREE (fusion/handoff.py) -------------------------------------------------

def conv2d(src, f=8, c=4, k=1, stride=1, grouped=False):
    """NCHW conv (n, f, h, w, c, kh, kw); grouped: depthwise (n, c, h, w, kh, kw), filter (c, kh, kw)."""
    s = f"{stride} * " if stride != 1 else ""
    if grouped:
        maps = (f"(d0, d1, d2, d3, d4, d5) -> (d0, d1, {s}d2 + d4, {s}d3 + d5)",
                "(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)", "(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)")
        return op(CONV, (src, -2, None), loops=(1, c, 14, 14, k, k), nin=2, name="linalg.depthwise_conv_2d_nchw_chw",
                  maps=maps, dims=((0, 1, -1, -1), (1, 4, 5), (0, 1, 2, 3)), out=(1, c, 14, 14),
                  iters=("parallel",) * 4 + ("reduction",) * 2)
    maps = (f"(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, {s}d2 + d5, {s}d3 + d6)",
            "(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)", "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)")
    return op(CONV, (src, -2, None), loops=(1, f, 14, 14, c, k, k), nin=2, name="linalg.conv_2d_nchw_fchw",
              maps=maps, dims=((0, 4, -1, -1), (1, 4, 5, 6), (0, 1, 2, 3)), out=(1, f, 14, 14),
              iters=("parallel",) * 4 + ("reduction",) * 3)


@pytest.mark.parametrize("spec, handed", [
    (dict(k=1), "1x1 stride-1"),          # IREE turns it into a matmul
    (dict(k=1, stride=2), None),          # not rewritten by IREE: ours
    (dict(k=3), None),                    # a 3x3 conv stays ours
    (dict(k=3, grouped=True), "grouped/depthwise"),
])
def test_conv_rewritten_by_iree(spec, handed):
    from fusion_opt.fusion.handoff import conv_rewritten_by_iree

    g = graph(conv2d(-1, **spec))
    assert conv_rewritten_by_iree(g.ops[0]) == handed


def test_conv_groups_rewritten_by_iree_are_handed_back():
    from fusion_opt.fusion import plan
    from fusion_opt.fusion.constraints import Constraints

    ew4 = dict(loops=(1, 8, 14, 14), out=(1, 8, 14, 14), maps=("(d0, d1, d2, d3) -> (d0, d1, d2, d3)",) * 2,
               dims=((0, 1, 2, 3),) * 2)
    g = graph(conv2d(-1, k=1), op(E, (0,), **ew4), conv2d(1, k=3, c=8), op(E, (2,), **ew4))
    p = plan(g, "cost")
    assert [gr.ops for gr in p.groups] == [(2, 3)]          # the 3x3 conv + relu stays ours
    assert 0 in p.unplaced and 1 in p.unplaced
    assert any("1x1 stride-1" in n and n.startswith("ops 0, 1 ") for n in p.notes)
    # a pin keeps the group ours
    pinned = plan(g, "cost", constraints=Constraints(pins=(frozenset({0, 1}),)))
    assert (0, 1) in [gr.ops for gr in pinned.groups]


def test_a_lone_op_padded_through_a_reshape_is_handed_back_a_fused_group_is_not():
    """VGG-19's max pool reaches its pad through an expand_shape: handed back (IREE writes it into the
    padded buffer); a group of two ops reaching a pad the same way keeps its fusion."""
    from fusion_opt.fusion.handoff import REASON, _h_padded
    from fusion_opt.fusion.plan import Group

    expand = dict(name="tensor.expand_shape", dispatchable=False, flops=0, maps=(), dims=())
    pad = dict(name="tensor.pad", dispatchable=False, maps=(), dims=())
    g = graph(op(E, (-1,)), red(0), op(OpKind.INJECTIVE, (1,), **expand), op(PAD, (2,), **pad))
    assert _h_padded(g, Group(0, (1,), 1, "reduction")) == REASON
    assert _h_padded(g, Group(0, (0, 1), 1, "reduction+prologue")) is None
    direct = graph(op(E, (-1,)), red(0), op(PAD, (1,), **pad))
    assert _h_padded(direct, Group(0, (0, 1), 1, "reduction+prologue")) == REASON


_GATHERS = """
#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gathers(%x: tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %idx = arith.constant dense<[0, 2, 5]> : tensor<3xi64>
  %table = arith.constant dense<1.5> : tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %from_arg = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<3xi64>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%r, %c] : tensor<4x6xf32>
    linalg.yield %v : f32
  } -> tensor<4x3xf32>
  %from_const = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<3xi64>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %table[%r, %c] : tensor<4x6xf32>
    linalg.yield %v : f32
  } -> tensor<4x3xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%from_arg : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x3xf32>
  return %from_arg, %from_const, %scaled : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
"""


def test_a_gather_of_an_input_is_no_constant():
    """A gather's body reads the function argument inside it (`captured_args`): neither it nor what it
    feeds is left to IREE's const-eval; the same gather of a constant table is constant."""
    from fusion_opt.analysis.describe import describe_function
    from fusion_opt.fusion.legality import constant_ops
    from fusion_opt.importers.mlir_import import parse_mlir
    from fusion_opt.ir import functions, new_session

    session = new_session()
    module = parse_mlir(_GATHERS, session.context, "gathers.mlir")
    [f] = functions(module)
    g, _ = describe_function(f, "gathers.mlir")
    from_arg, from_const, scaled = (op.index for op in g.ops if op.name == "linalg.generic")
    assert g.ops[from_arg].captured_args == (0,) and not g.ops[from_const].captured_args
    assert constant_ops(g) == frozenset({from_const})


def _compile_unpinned(lit_file: str, mode: str, case: int = 0):
    """The `case`-th function of a rejected lit twin (split at `// -----`), its pins and comments removed,
    compiled by planner `mode`: it must compile with no fallback (the rule cut the group apart)."""
    import warnings

    import fusion_opt as fo

    src = (Path(__file__).resolve().parents[1] / "lit" / "legality" / lit_file).read_text().split("// -----")[case]
    src = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("//"))
    src = src.replace(', fusion_opt.fuse = "g"', "").replace(' {fusion_opt.fuse = "g"}', "")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", fo.FallbackWarning)
        m = fo.compile_mlir(src, fusion=mode)
    assert not m.fallbacks and not [w for w in caught if issubclass(w.category, fo.FallbackWarning)]
    return m


@pytest.mark.parametrize("mode", ["greedy", "cost"])
@pytest.mark.parametrize("case", [0, 1])
def test_instance_norm_over_large_rows_compiles_without_fallback(mode: str, case: int) -> None:
    """Rule 'stacked-row': InstanceNorm over 128x128 images with the centered input returned (a
    ConvTranspose's InstanceNorm in a small torchvision-style model fell back: "exceeded stack allocation
    limit of 32768 bytes ... Got 65536 bytes"), and over 64 rows of 32x32 (8 rows a workgroup: 32832 bytes,
    a style-transfer net fell back). Both planners now cut the rows apart; same numbers."""
    import numpy as np

    m = _compile_unpinned("stacked-row-illegal.mlir", mode, case)
    assert "stacked-row" in m.report()
    x = np.random.default_rng(3).standard_normal(((8, 128, 128), (64, 32, 32))[case]).astype(np.float32)
    centered, var = m(x)
    want = x.astype(np.float64) - x.astype(np.float64).mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(centered, want, atol=1e-5)
    np.testing.assert_allclose(var, (want ** 2).sum(axis=(1, 2)), rtol=1e-4)


@pytest.mark.parametrize("mode", ["greedy", "cost"])
def test_a_result_feeding_one_of_two_last_reductions_compiles_without_fallback(mode: str) -> None:
    """Rule 'split-result': `y = x + x` returned and `sum(y) * sum(w)` (the shape of a Siamese net's cosine of
    two normalized embeddings, which fell back: "'vector.store' op write affecting operations on global
    resources ..."). Both planners keep `y` out of the other reduction's group; exact sums."""
    import numpy as np

    m = _compile_unpinned("split-result-illegal.mlir", mode)
    rng = np.random.default_rng(5)
    x, w = (rng.integers(-8, 8, (2, 32)).astype(np.float32) for _ in range(2))
    y, p = m(x, w)
    np.testing.assert_array_equal(y, x + x)
    np.testing.assert_array_equal(p, (x + x).sum(axis=1) * w.sum(axis=1))


def test_a_splat_read_by_the_epilogue_joins_the_matmul_and_exact():
    """Rule side-input lets a fill (it reads nothing) join a contraction's group: one dispatch, exact."""
    import numpy as np

    import fusion_opt as fo

    text = (Path(__file__).resolve().parents[1] / "lit" / "legality" / "side-input.mlir").read_text()
    m = fo.compile_mlir(text.replace("@matmul_scale_by_fill", "@main"))
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((16, 32)).astype(np.float32), rng.standard_normal((32, 8)).astype(np.float32)
    np.testing.assert_allclose(m(a, b), (a @ b) * 0.125, rtol=1e-5, atol=1e-6)
    assert len(m.plans[2].groups) == 1  # before: 2 (the scale's fill counted as a side input)
