"""Plan invariants shared by the planner tests (imported by test modules; not a test module itself)."""
from __future__ import annotations

import collections


def assert_group_graph_acyclic(p, g) -> None:
    """The group graph (unplaced ops as nodes of their own) is a DAG: Kahn's algorithm consumes it all."""
    of = p.group_of()
    node = {i: ("g", of[i]) if i in of else ("o", i) for i in range(len(g.ops))}
    succ = collections.defaultdict(set)
    for e in g.edges:
        if node[e.producer] != node[e.consumer]:
            succ[node[e.producer]].add(node[e.consumer])
    nodes = set(node.values())
    indeg = collections.Counter(n for s in succ.values() for n in s)
    ready, done = [n for n in nodes if indeg[n] == 0], 0
    while ready:
        n = ready.pop()
        done += 1
        for m in succ[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    assert done == len(nodes), "group graph has a cycle"
