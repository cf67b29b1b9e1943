"""Planning time and peak memory of the planners on random graphs, with growth exponents.

`random_graph(n, seed)` builds a seeded DataflowGraph of elementwise / broadcast / reduction / matmul /
conv-like ops (also used by test/python/test_search.py and test_plan_scaling.py).

`chain_graph(n)` is the worst case: one group that grows by an op per merge (`--chain`).

Run: `python tools/plan_scaling.py [--no-memory] [--chain] [sizes]` (default 1000 10000 50000). For each planner
(`greedy`; `gated`: greedy with merges gated by the cost model, `fusion.costed.plan_by_cost`; `cost`:
the search planner, `fusion.plan(g, "cost", target)`) it prints wall and CPU seconds per size, then the
growth exponent (slope of log time against log size) between consecutive sizes and overall. Peak
memory is measured with tracemalloc in a second, separate pass, so the timings are not distorted by it.
CPU seconds (time.process_time) are the steadier figure on a shared machine.
"""
from __future__ import annotations

import math
import random
import sys
import time
import tracemalloc
from collections.abc import Callable

from fusion_opt.analysis.opdesc import DataflowGraph, Edge, OpDesc, OpKind

R, C = 64, 128  # every tensor is (R, C) or a row vector (R,): shapes compose, so maps stay legal
_ID, _ROW = "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"


def _op(i: int, kind: OpKind, name: str, operands: tuple[int | None, ...], loops: tuple[int, ...],
        iters: tuple[str, ...], maps: tuple[str, ...], dims: tuple[tuple[int, ...], ...], out: tuple[int, ...],
        nin: int, flops: int) -> OpDesc:
    shapes = tuple((R, C) if len(d) == 2 else (R,) if d else () for d in dims[:len(operands)])
    return OpDesc(i, name, f"rand.mlir:{i + 1}:3", kind, loops, iters, maps, dims, ("f32",) * (len(operands) + 1),
                  shapes, (out,), operands, nin, (), flops, 0, 0)


def random_graph(n: int, seed: int = 0) -> DataflowGraph:
    """n ops; each reads 1-2 earlier values (mostly recent ones, so chains and diamonds form)."""
    rng = random.Random(seed)
    full: list[int] = []   # ops whose result is (R, C)
    rows: list[int] = []   # ops whose result is (R,)
    ops: list[OpDesc] = []

    def pick(pool: list[int]) -> int:
        if not pool or rng.random() < 0.05:
            return -1  # a function argument
        return pool[max(0, len(pool) - 1 - int(rng.expovariate(0.5)))]

    for i in range(n):
        r = rng.random()
        if r < 0.40:    # elementwise of one or two full tensors
            a, b = pick(full), pick(full)
            two = rng.random() < 0.5
            ops.append(_op(i, OpKind.ELEMENTWISE, "linalg.generic", (a, b, None) if two else (a, None), (R, C),
                           ("parallel", "parallel"), (_ID,) * (3 if two else 2), ((0, 1),) * (3 if two else 2),
                           (R, C), 2 if two else 1, R * C))
            full.append(i)
        elif r < 0.55:  # broadcast a row vector back over the columns
            a, b = pick(full), pick(rows)
            ops.append(_op(i, OpKind.BROADCAST, "linalg.generic", (a, b if b >= 0 else -2, None), (R, C),
                           ("parallel", "parallel"), (_ID, _ROW, _ID), ((0, 1), (0,), (0, 1)), (R, C), 2, R * C))
            full.append(i)
        elif r < 0.70:  # row reduction
            ops.append(_op(i, OpKind.REDUCTION, "linalg.generic", (pick(full), None), (R, C),
                           ("parallel", "reduction"), (_ID, _ROW), ((0, 1), (0,)), (R,), 1, R * C))
            rows.append(i)
        elif r < 0.78:  # elementwise on rows
            ops.append(_op(i, OpKind.ELEMENTWISE, "linalg.generic", (pick(rows), None), (R,), ("parallel",),
                           ("(d0) -> (d0)",) * 2, ((0,), (0,)), (R,), 1, R))
            rows.append(i)
        elif r < 0.82:  # a fill, then a matmul (R,C)x(C,C) accumulating into it
            ops.append(_op(i, OpKind.BROADCAST, "linalg.fill", (None, None), (R, C), ("parallel", "parallel"),
                           ("(d0, d1) -> ()", _ID), ((), (0, 1)), (R, C), 1, 0))
            full.append(i)
        elif r < 0.92:  # matmul (init from the latest fill when there is one)
            fill = next((j for j in reversed(full) if ops[j].name == "linalg.fill"), None)
            mm_maps = ("(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)")
            op = OpDesc(i, "linalg.matmul", f"rand.mlir:{i + 1}:3", OpKind.CONTRACTION, (R, C, C),
                        ("parallel", "parallel", "reduction"), mm_maps, ((0, 2), (2, 1), (0, 1)), ("f32",) * 4,
                        ((R, C), (C, C), (R, C)), ((R, C),), (pick(full), -3, fill), 2, ("arith.mulf", "arith.addf"),
                        2 * R * C * C, 0, 0)
            ops.append(op)
            full.append(i)
        else:           # conv-like: reads its input through a window (d0 + d2)
            win = ("(d0, d1, d2) -> (d0 + d2, d1)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)")
            op = OpDesc(i, "linalg.conv_1d", f"rand.mlir:{i + 1}:3", OpKind.CONVOLUTION, (R, C, 3),
                        ("parallel", "parallel", "reduction"), win, ((-1, 1), (2, 1), (0, 1)), ("f32",) * 4,
                        ((R, C), (3, C), (R, C)), ((R, C),), (pick(full), -4, None), 2, ("arith.mulf", "arith.addf"),
                        2 * R * C * 3, 0, 0)
            ops.append(op)
            full.append(i)
    return _graph("rand", ops)


def chain_graph(n: int, seed: int = 0) -> DataflowGraph:
    """The worst case: n elementwise ops in a chain, every fourth also reading the op three back (a
    diamond), all fusible into one group that grows by one op per merge."""
    del seed
    ops = []
    for i in range(n):
        two = i % 4 == 0
        operands = (i - 1, max(-1, i - 3), None) if two else (i - 1, None)
        ops.append(_op(i, OpKind.ELEMENTWISE, "linalg.generic", operands, (R, C), ("parallel", "parallel"),
                       (_ID,) * len(operands), ((0, 1),) * len(operands), (R, C), len(operands) - 1, R * C))
    return _graph("chain", ops)


def _graph(name: str, ops: list[OpDesc]) -> DataflowGraph:
    edges = tuple(Edge(p, o.index, k) for o in ops for k, p in enumerate(o.operands) if p is not None and p >= 0)
    consumed = {e.producer for e in edges}
    return DataflowGraph(name, tuple(ops), edges, frozenset(i for i in range(len(ops)) if i not in consumed))


STRATEGIES = ("greedy", "gated", "cost")


def _planner(strategy: str):
    from fusion_opt.cost import get_target_desc
    from fusion_opt.fusion import plan
    from fusion_opt.fusion.costed import plan_by_cost

    t = get_target_desc("cpu-generic")
    if strategy == "gated":
        return lambda g: plan_by_cost(g, t)
    return lambda g: plan(g, strategy, t)


Graph = Callable[[int, int], DataflowGraph]


def measure(n: int, strategy: str, seed: int = 0, graph: Graph = random_graph) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of planning one graph of n ops."""
    g, run = graph(n, seed), _planner(strategy)
    wall, cpu = time.perf_counter(), time.process_time()
    run(g)
    return time.perf_counter() - wall, time.process_time() - cpu


def peak_memory(n: int, strategy: str, seed: int = 0, graph: Graph = random_graph) -> float:
    """Peak MiB allocated while planning one graph of n ops (tracemalloc; slows the run)."""
    g, run = graph(n, seed), _planner(strategy)
    tracemalloc.start()
    try:
        run(g)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _slope(a: tuple[int, float], b: tuple[int, float]) -> float:
    (n0, t0), (n1, t1) = a, b
    return math.log(t1 / t0) / math.log(n1 / n0) if t0 > 0 and t1 > 0 else float("nan")


def main(sizes: list[int], memory: bool = True, graph: Graph = random_graph) -> None:
    times: dict[tuple[str, int], tuple[float, float]] = {}
    for strategy in STRATEGIES:  # warm up: imports, the target description, first-call caches
        measure(50, strategy, seed=1, graph=graph)
    for strategy in STRATEGIES:
        for n in sizes:
            times[strategy, n] = measure(n, strategy, graph=graph)
    peaks = {(s, n): peak_memory(n, s, graph=graph) for s in STRATEGIES for n in sizes} if memory else {}
    print(f"{'planner':>8} {'ops':>7} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}")
    for strategy in STRATEGIES:
        for n in sizes:
            wall, cpu = times[strategy, n]
            peak = f"{peaks[strategy, n]:9.1f}" if memory else f"{'-':>9}"
            print(f"{strategy:>8} {n:>7} {wall:8.2f} {cpu:8.2f} {peak}")
    print("\ngrowth exponents (log-log slope of CPU seconds; wall in parentheses)")
    pairs = list(zip(sizes, sizes[1:])) + ([(sizes[0], sizes[-1])] if len(sizes) > 2 else [])
    print(f"{'planner':>8} " + " ".join(f"{f'{a}..{b}':>17}" for a, b in pairs))
    for strategy in STRATEGIES:
        cells = []
        for a, b in pairs:
            cpu = _slope((a, times[strategy, a][1]), (b, times[strategy, b][1]))
            wall = _slope((a, times[strategy, a][0]), (b, times[strategy, b][0]))
            cells.append(f"{f'{cpu:.2f} ({wall:.2f})':>17}")
        print(f"{strategy:>8} " + " ".join(cells))


if __name__ == "__main__":
    args = sys.argv[1:]
    main([int(a) for a in args if not a.startswith("--")] or [1000, 10000, 50000], "--no-memory" not in args,
         chain_graph if "--chain" in args else random_graph)
