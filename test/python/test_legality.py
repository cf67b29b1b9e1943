"""Each legality rule of fusion/legality.py on hand-written OpDescs: one accepted and one rejected case."""
from __future__ import annotations

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
