"""Planning time stays near-linear: a regression guard against quadratic blowups (not a benchmark).

A 2,000-op random graph plans in well under a second per planner on a 2-core machine; the bounds
here are ~20x that, so only an O(n^2) step (an edge scan per op, a list search per group) trips them.
tools/plan_scaling.py reports the real numbers (docs/planner.md, "Scaling").
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from fusion_opt.cost import get_target_desc
from fusion_opt.fusion import plan
from fusion_opt.fusion.costed import plan_by_cost

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from plan_scaling import chain_graph, random_graph  # noqa: E402

T = get_target_desc("cpu-generic")
BOUND_S = 20.0


@pytest.mark.parametrize("strategy", ["greedy", "gated", "cost"])
def test_2000_ops_plan_in_bounded_time(strategy):
    g = random_graph(2000, seed=3)
    start = time.perf_counter()
    p = plan_by_cost(g, T) if strategy == "gated" else plan(g, strategy, T)
    secs = time.perf_counter() - start
    assert p.groups
    assert secs < BOUND_S, f"{strategy}: {secs:.1f}s for 2,000 ops (quadratic step?)"


def test_adjacency_is_cached_and_matches_edges():
    """DataflowGraph.consumers/producers answer from one pass over the edges (sorted, deduplicated)."""
    g = random_graph(300, seed=1)
    for o in g.ops:
        i = o.index
        assert g.consumers(i) == tuple(sorted({e.consumer for e in g.edges if e.producer == i}))
        assert g.producers(i) == tuple(sorted({e.producer for e in g.edges if e.consumer == i}))


def test_one_growing_group_is_bounded_in_greedy_and_joined_by_the_search():
    """A 700-op chain of fusible elementwise ops: greedy stops each group at MAX_GROUP_OPS (it checks and
    prices the whole group per merge: a 2,000-op chain took 21 s unbounded), the search joins the pieces
    into the one group the cost model wants."""
    from fusion_opt.fusion.greedy import MAX_GROUP_OPS

    g = chain_graph(700)
    greedy = plan(g, "greedy", T)
    assert max(len(x.ops) for x in greedy.groups) <= MAX_GROUP_OPS < 700
    assert any("greedy grows one to" in d.reason for d in greedy.decisions)
    cost = plan(g, "cost", T)
    assert [len(x.ops) for x in cost.groups] == [700]
