"""The search ("cost") planner: invariants on random DAGs, multi-reduction groups, constraints."""
from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

from fusion_opt.cost import get_target_desc, plan_cost
from fusion_opt.errors import PlanError
from fusion_opt.fusion import plan
from fusion_opt.fusion.constraints import Constraints
from fusion_opt.fusion.legality import check_group

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from plan_scaling import random_graph  # noqa: E402

from plan_checks import assert_group_graph_acyclic  # noqa: E402
from test_legality import bcast, graph, op, red  # noqa: E402
from fusion_opt.analysis.opdesc import OpKind  # noqa: E402

T = get_target_desc("cpu-generic")


def invariants(p, g):
    """Exact cover (cloned fills and constants left to IREE's const-eval aside), legal convex groups, a
    reason for every edge."""
    from fusion_opt.fusion.legality import constant_ops

    seen = collections.Counter(i for grp in p.groups for i in grp.ops)
    left = set(p.unplaced) & constant_ops(g)  # elementwise ops of the random graphs' splats (rule `constant`)
    for o in g.ops:
        assert seen[o.index] == (1 if o.dispatchable and o.index not in p.cloned and o.index not in left else 0), \
            o.index
    for grp in p.groups:
        v = check_group(g, grp.ops)
        assert v.ok or (v.rule == "cycle"), (grp, v)  # convexity is checked on the whole partition below
    assert_group_graph_acyclic(p, g)
    assert {(d.producer, d.consumer) for d in p.decisions} == {(e.producer, e.consumer) for e in g.edges}


@pytest.mark.parametrize("seed", range(6))
def test_random_dags(seed):
    g = random_graph(150, seed)
    cost, greedy_cost = plan(g, "cost", T), None
    invariants(cost, g)
    greedy = plan(g, "greedy", T)
    invariants(greedy, g)
    from fusion_opt.fusion.costed import plan_by_cost
    greedy_cost = plan_by_cost(g, T)
    assert plan_cost(g, cost, T) <= plan_cost(g, greedy_cost, T) + 1e-12
    again = plan(g, "cost", T)
    assert [gr.ops for gr in again.groups] == [gr.ops for gr in cost.groups]
    assert again.decisions == cost.decisions


def layernorm():
    row = dict(loops=(8,), out=(8,), maps=("(d0) -> (d0)",) * 2, dims=((0,),) * 2)
    return graph(red(-1), op(OpKind.ELEMENTWISE, (0,), **row), bcast(-1, 1), op(OpKind.ELEMENTWISE, (2, 2), nin=2),
                 red(3), op(OpKind.ELEMENTWISE, (4,), **row), bcast(2, 5))


def softmax():
    return graph(red(-1), bcast(-1, 0), op(OpKind.ELEMENTWISE, (1,)), red(2), bcast(2, 3))


@pytest.mark.parametrize("make", [layernorm, softmax])
def test_layernorm_and_softmax_are_one_group(make):
    g = make()
    p = plan(g, "cost", T)
    assert len(p.groups) == 1, p.groups
    assert "multi-reduction" in p.groups[0].kind
    assert any("multi-reduction" in r for r in p.groups[0].reasons)
    assert len(plan(g, "greedy", T).groups) > 1  # greedy keeps its one-reduction-per-group policy


def test_constraints_are_obeyed():
    g = softmax()
    p = plan(g, "cost", T, constraints=Constraints(barriers=frozenset({2})))
    assert [gr.ops for gr in p.groups if 2 in gr.ops] == [(2,)]
    assert any("barrier" in d.reason for d in p.decisions if not d.fused)
    p0 = plan(g, "cost", T, constraints=Constraints(max_fusions=0))
    assert len(p0.groups) == len(g.ops)
    p1 = plan(g, "cost", T, constraints=Constraints(max_fusions=1))
    assert len(p1.groups) >= len(g.ops) - 1
    pinned = plan(g, "greedy", T, constraints=Constraints(pins=(frozenset({0, 1, 2}),)))
    assert any({0, 1, 2} <= set(gr.ops) for gr in pinned.groups)
    with pytest.raises(PlanError, match=r"illegal pin \[0, 2\]: \[single-root\]"):
        plan(g, "cost", T, constraints=Constraints(pins=(frozenset({0, 2}),)))
