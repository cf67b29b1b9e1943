"""Tile-and-fuse decisions for each fusion group, as pure data: which op is tiled, by what sizes, and
which producers are fused into its loop, in which order.

Why a separate, pure step: the transform script (tile_fuse.py) only replays these decisions, so they
can be unit-tested on hand-written graphs, printed next to the script, and reused for IREE's
`compilation_info` (lowering.py) without touching IR.

The group's *sink* (its one op without a consumer in the group; the planner's 'single-root' rule
guarantees there is one) is tiled with `scf.forall`; every other tileable member is fused into that
loop, nearest the sink first (reverse program order, which is topological). A sink loop that some
fused op reduces over is never tiled: each tile would recompute the whole reduction.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, describe
from ..cost.tiling import divisor_at_most
from ..errors import PlanError
from ..fusion.plan import FusionPlan, Group

if TYPE_CHECKING:
    from ..cost.targets import TargetDesc

MATRIX = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION})
_BITS = re.compile(r"^[a-z]*?(\d+)")


@dataclass(frozen=True)
class GroupTiling:
    """How one group is tiled and fused. `tile_sizes` has one entry per loop of the sink (0 = not
    tiled); `fused` lists producers in fusion order; `left_out` are members that are not tileable
    (no TilingInterface) or only reachable through such ops: they stay outside the loop."""

    group: int
    sink: int
    tile_sizes: tuple[int, ...]
    fused: tuple[int, ...]
    left_out: tuple[int, ...] = ()
    reason: str = ""

    @property
    def tiled(self) -> bool:
        return any(self.tile_sizes)


def tileable(op: OpDesc) -> bool:
    """Ops the transform dialect can tile and fuse (TilingInterface): Linalg ops and tensor.pad."""
    return (op.name.startswith("linalg.") and bool(op.indexing_maps)) or op.name == "tensor.pad"


def sink_of(graph: DataflowGraph, members: tuple[int, ...]) -> int:
    """The group's op whose result no other member reads. Raises PlanError when there are several."""
    m = set(members)
    sinks = [i for i in members if not any(c in m for c in graph.consumers(i))]
    if len(sinks) != 1:
        raise PlanError(f"group of ops {list(members)} has {len(sinks)} outputs; tile-and-fuse needs one "
                        "(rule 'single-root')", graph.ops[members[0]].loc)
    return sinks[0]


def _result_dims(op: OpDesc, result: int) -> tuple[int, ...]:
    """Loop dim of each dim of result `result` (a pad's loops are its result dims)."""
    if not op.map_dims:
        return tuple(range(len(op.result_shapes[result]) if op.result_shapes else 0))
    return op.map_dims[op.num_dps_inputs + result]


def _operand_dims(op: OpDesc, pos: int) -> tuple[int, ...]:
    if not op.map_dims:  # tensor.pad: the source is read at the result's dims (shifted by the padding)
        return tuple(range(len(op.operand_shapes[pos]) if pos < len(op.operand_shapes) else 0))
    return op.map_dims[pos] if pos < len(op.map_dims) else ()


def loop_classes(graph: DataflowGraph, fused: set[int]) -> dict[tuple[int, int], tuple[int, int]]:
    """Union-find over (op, loop) pairs: two loops are one class when an edge between fused ops
    indexes the same tensor dim with them (a producer's output dim and its consumer's read of it).

    Both directions matter: a row sum's reduced loop is linked to the sink's column loop only
    through the op it reads (softmax: exp -> sum), not through the op that reads it."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: tuple[int, int]) -> tuple[int, int]:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in graph.edges:
        if e.producer in fused and e.consumer in fused:
            p, c = graph.ops[e.producer], graph.ops[e.consumer]
            for pd, cd in zip(_result_dims(p, e.result), _operand_dims(c, e.operand)):
                if pd >= 0 and cd >= 0:
                    parent[find((e.producer, pd))] = find((e.consumer, cd))
    return {x: find(x) for x in list(parent)}


def blocked_loops(graph: DataflowGraph, fused: set[int], sink: int) -> set[int]:
    """Sink loops that must stay whole: the sink's own reduction loops, and loops in one class with
    a reduction loop of a fused op (tiling them would recompute the reduction in every tile)."""
    op = graph.ops[sink]
    blocked = {d for d, it in enumerate(op.iterator_types) if it != "parallel"}
    classes = loop_classes(graph, fused)
    reduced = {classes[(i, d)] for i in fused for d, it in enumerate(graph.ops[i].iterator_types)
               if it != "parallel" and (i, d) in classes}
    blocked |= {d for d in range(len(op.loop_ranges)) if classes.get((sink, d)) in reduced}
    return blocked


def _elem_bytes(op: OpDesc) -> int:
    t = op.element_types[-1] if op.element_types else "f32"
    m = _BITS.match(t)
    return max(1, int(m.group(1)) // 8) if m else 4


def _divisor_at_most(n: int, cap: int, multiple: int = 1) -> int:
    """Largest divisor of n not above cap, preferring multiples of `multiple` (vector lanes)."""
    return divisor_at_most(n, cap, multiple) or divisor_at_most(n, cap)  # type: ignore[return-value]


def choose_tile_sizes(graph: DataflowGraph, sink: int, fused: set[int],
                      target: TargetDesc) -> tuple[tuple[int, ...], str]:
    """Tile sizes for the sink's loops, and the reason, from the target description:

    - budget (output elements per tile): `matmul_tile`^2 for groups with a contraction/convolution
      (the cost model's workgroup tile), else the tile's working set (every tensor the fused ops
      touch) fits in `cache_fit` of L1;
    - filled innermost loop first, with divisors of the loop range (no partial tiles), the innermost
      a multiple of the vector lanes when possible;
    - then split until there are at least `cores` tiles, when the space allows;
    - loops a fused op reduces over, and the sink's own reduction loops, are not tiled (0).
    """
    op = graph.ops[sink]
    ranges = op.loop_ranges
    blocked = blocked_loops(graph, fused, sink)
    free = [d for d in range(len(ranges)) if d not in blocked and ranges[d] > 1]
    lanes = target.lanes(_elem_bytes(op))
    if any(graph.ops[i].kind in MATRIX for i in fused):
        budget, why = target.matmul_tile ** 2, f"matmul_tile^2 = {target.matmul_tile ** 2} output elements"
    else:
        outside = {p for i in fused for p in graph.ops[i].operands if p is not None and p not in fused}
        n_tensors = len(fused) + len(outside)
        l1 = target.caches[0].size_bytes if target.caches else 32768
        budget = max(lanes, int(l1 * target.cache_fit) // (_elem_bytes(op) * n_tensors))
        why = f"{n_tensors} tensors x tile in {target.cache_fit:g} of L1 ({l1} B): {budget} elements"
    sizes = [0] * len(ranges)
    whole = math.prod(ranges[d] for d in blocked if op.iterator_types[d] == "parallel")
    left = max(1, budget // whole)  # the untiled loops are in every tile too
    for k, d in enumerate(reversed(free)):
        sizes[d] = _divisor_at_most(ranges[d], left, lanes if k == 0 else 1)
        left = max(1, left // sizes[d])
    for d in free:  # parallelism: at least one tile per core where the space allows
        while _tiles(ranges, sizes) < target.cores and sizes[d] > 1:
            sizes[d] = _divisor_at_most(ranges[d], sizes[d] - 1)
    # A loop covered by one tile needs no loop. (When no loop is left the group fits in one tile: a
    # one-iteration scf.forall would be folded away by canonicalization anyway.)
    final = [0 if s == ranges[d] else s for d, s in enumerate(sizes)]
    if blocked:
        why += f"; loops {sorted(blocked)} not tiled (reduced inside the group)"
    return tuple(final), why


def _tiles(ranges: tuple[int, ...], sizes: list[int]) -> int:
    return math.prod(math.ceil(r / s) for r, s in zip(ranges, sizes) if s)


def fusable(graph: DataflowGraph, members: tuple[int, ...], sink: int) -> set[int]:
    """Members reachable from the sink through tileable members (the sink included)."""
    m = set(members)
    seen = {sink}
    stack = [sink]
    while stack:
        for p in graph.producers(stack.pop()):
            if p in m and p not in seen and tileable(graph.ops[p]):
                seen.add(p)
                stack.append(p)
    return seen


def tile_group(graph: DataflowGraph, group: Group, target: TargetDesc) -> GroupTiling:
    """The tile-and-fuse decision for one group (see the module docstring)."""
    members = tuple(sorted(group.ops))
    sink = sink_of(graph, members)
    if not tileable(graph.ops[sink]):
        return GroupTiling(group.id, sink, (), (), tuple(i for i in members if i != sink),
                           f"{describe(graph.ops[sink])} cannot be tiled (no TilingInterface)")
    fused = fusable(graph, members, sink)
    sizes, why = choose_tile_sizes(graph, sink, fused, target)
    order = tuple(sorted(fused - {sink}, reverse=True))
    left_out = tuple(i for i in members if i not in fused)
    if not any(sizes):
        why = "fits in one tile" if any(r > 1 for r in graph.ops[sink].loop_ranges) else "no loop to tile"
    return GroupTiling(group.id, sink, sizes, order, left_out, why)


def plan_tiling(graph: DataflowGraph, plan: FusionPlan, target: TargetDesc) -> list[GroupTiling]:
    """Check every group of `plan` with the planner's legality rules, then decide its tiling.

    An illegal group (e.g. a hand-edited plan) raises PlanError naming the rule, at the group's root:
    an illegal fusion never reaches the transform interpreter."""
    from ..fusion.legality import Partition, group_verdict

    part = Partition(graph, [g.ops for g in plan.groups])
    out = []
    for g in plan.groups:
        v = group_verdict(graph, g.ops)
        if v and len(g.ops) > 1:
            via = part.cycle_via(frozenset(g.ops))
            if via is not None:
                v = type(v)(False, "cycle", f"a path leaves group {g.id} and re-enters it via op {via}")
        if not v:
            raise PlanError(f"group {g.id} cannot be tiled and fused: rule '{v.rule}': {v.reason}",
                            graph.ops[g.root].loc)
        out.append(tile_group(graph, g, target))
    return out
