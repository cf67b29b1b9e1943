"""Split a group's elementwise epilogue off when its result is padded through a reshape (issue 6's pad copies).

A 1x1 conv's matmul result `[F, H*W]` reaches the next 3x3 conv's `tensor.pad` through an
`expand_shape` to `[F, H, W]`. Left in the matmul's region, the epilogue (bias, BatchNorm, ReLU)
ends a region whose result is not laid out like the padded buffer, so IREE copies it into the
buffer in a `slow_memcpy` dispatch of its own (ResNet-50: 15 such copies, DenseNet-121: 28,
Inception-v2: 23). Writing the matmul's own tiles into the padded buffer was measured slower than
the copy (transforms/padded_results.py: data-tiled stores across image rows). Handed to IREE
instead, the epilogue is an elementwise dispatch that IREE writes straight into the padded buffer,
as it does for any elementwise producer of a pad: the copy disappears and the epilogue pays what
the copy paid (one launch, one pass over the activation). Measured (2026-12-01, interleaved paired
runs of saved builds, this 2-core AVX-512 VM): ResNet-50 1.00x (0.996, 1.002), Inception-v2 1.00x,
DenseNet-121 0.93x; results identical.

Decided per group by the cost model: the group as it is plus the pad priced as a copy dispatch,
against the group without its epilogue plus the epilogue alone (the in-place write adds nothing).
Where a reshape splits the rows, the epilogue alone is priced as the copy it replaces (one launch,
one pass over the activation): IREE moves the `expand_shape` above the elementwise ops it forms into
the pad's producer and vectorizes them along the image row, which the collapsed `[F, H*W]` ops the
plan holds do not show (priced as masked rows of 49, ResNet-50's 14x14 epilogues came out at 32 us
against an 8.6 us copy and kept their copies). Measured per dispatch (2026-12-01, this 2-core
AVX-512 VM), in-place epilogue against copy: 6.8 / 6.5 us at [256, 14, 14] (in ResNet-50),
1.1 / 1.1 at [128, 7, 7], 14 / 12 at [128, 28, 28], 24 / 22 at [64, 56, 56]. A 7x7 image is one
tile: whole, the group stores it through the reshape with no copy (`stored_through_reshape`), one
dispatch fewer than the split for the same time.
"""
from __future__ import annotations

from dataclasses import replace

from ..analysis.classify import map_results
from ..analysis.opdesc import RESHAPE_OPS, DataflowGraph, OpDesc, OpKind, static_ints
from ..cost.model import estimate, is_free
from ..cost.targets import TargetDesc
from ..cost.tiling import image_in_one_tile
from .constraints import Constraints
from .plan import Decision, FusionPlan, Group, fmt_time

_LIGHT = frozenset({OpKind.ELEMENTWISE, OpKind.BROADCAST})


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def reads_interior(graph: DataflowGraph, pad: int) -> bool:
    """Whether a reader of pad op `pad` (looking through reshapes) slices out exactly its unpadded
    interior: a window-taps op's centre tap. IREE folds that slice into the pad's source, so the taps
    dispatch reads the unpadded value too and IREE cannot store its own producer into the padded buffer
    (MobileNet's depthwise taps, Inception's 3x3 pools). A region of ours still can, inside the region
    where the fold does not reach (transforms/padded_results.py, flat_taps.py)."""
    op = graph.ops[pad]
    low = [v for v in static_ints(op, "static_low") if v]
    inner = _squeezed(tuple(op.operand_shapes[0])) if op.operand_shapes else None
    todo = list(graph.consumers(pad))
    while todo:
        c = graph.ops[todo.pop()]
        if c.name in RESHAPE_OPS:
            todo.extend(graph.consumers(c.index))
        elif c.name == "tensor.extract_slice" and c.result_shapes and \
                _squeezed(tuple(c.result_shapes[0])) == inner:
            offsets = [v for v in static_ints(c, "static_offsets") if v]
            if offsets == low and set(static_ints(c, "static_strides")) <= {1}:
                return True
    return False


def pad_of(graph: DataflowGraph, i: int) -> tuple[int, bool] | None:
    """(the pad op `i`'s result reaches through reshapes, whether one of them splits or merges non-unit
    dims: `[F, H*W]` -> `[F, H, W]`), when that pad is its only consumer (looking through the reshapes)
    and IREE can store into its buffer (`reads_interior`)."""
    cur, split = i, False
    while True:
        cons = graph.consumers(cur)
        if len(cons) != 1 or cur in graph.outputs:
            return None
        c = cons[0]
        op = graph.ops[c]
        if op.kind is OpKind.PAD:
            return None if reads_interior(graph, c) else (c, split)
        if not is_free(op) or not op.operand_shapes or not op.result_shapes:
            return None
        split |= _squeezed(tuple(op.operand_shapes[0])) != _squeezed(tuple(op.result_shapes[0]))
        cur = c


def light(op: OpDesc) -> bool:
    """Elementwise, a broadcast, or a permutation of outer dims that keeps the innermost loop the
    innermost dim of every operand that reads it (ShuffleNet's channel shuffle, `[4, 34, 784]` ->
    `[34, 4, 784]`): IREE forms it with the elementwise ops around it and streams whole rows, as a
    copy would."""
    if op.kind in _LIGHT:
        return True
    if op.kind is not OpKind.INJECTIVE or op.name != "linalg.generic" or not op.indexing_maps or not op.loop_ranges:
        return False
    inner = f"d{len(op.loop_ranges) - 1}"
    maps = [map_results(m) for m in op.indexing_maps]
    return all(r[-1] == inner for r in maps if inner in r)   # operands without the row are broadcast along it


def epilogue(graph: DataflowGraph, g: Group) -> tuple[int, ...]:
    """The light ops of `g` downstream of its root (`light`), with the light ops feeding only them (a
    bias broadcast): what IREE can form into one dispatch of its own. Empty if the root is light
    itself or anything downstream of it is not."""
    members = set(g.ops)
    if light(graph.ops[g.root]):
        return ()
    tail: set[int] = set()
    todo = [c for c in graph.consumers(g.root) if c in members]
    while todo:
        c = todo.pop()
        if c in tail:
            continue
        if not light(graph.ops[c]):
            return ()
        tail.add(c)
        todo.extend(x for x in graph.consumers(c) if x in members)
    changed = True
    while changed:  # producers inside the group that only feed the tail travel with it (a bias broadcast;
        changed = False  # nothing downstream of the root is left outside the tail in a convex group)
        for i in members - tail - {g.root}:
            cs = graph.consumers(i)
            if light(graph.ops[i]) and cs and all(c in tail for c in cs):
                tail.add(i)
                changed = True
    return tuple(i for i in g.ops if i in tail)


def stored_through_reshape(graph: DataflowGraph, out: int, pad: int) -> bool:
    """Whether transforms/padded_results.py will store op `out`'s result through the reshape into `pad`'s
    buffer (a whole image in one tile, `tiling.image_in_one_tile`): no copy, the matmul still data-tiled."""
    src, res = graph.ops[pad].operand_shapes, graph.ops[out].result_shapes
    return bool(src and res) and image_in_one_tile(res[0], src[0])


def copies_s(graph: DataflowGraph, pads: list[int], target: TargetDesc) -> float:
    """The pads as IREE's copy dispatches into their buffers (one each)."""
    return sum(estimate([graph.ops[p]], target).time_s for p in pads)


def whole_s(graph: DataflowGraph, g: Group, stores: list[tuple[int, int]], split: bool,
            target: TargetDesc) -> float:
    """The group kept whole, its results `stores` ((op, the pad it reaches) pairs) each copied into the
    padded buffer by a dispatch per pad where a reshape splits its rows (`split`; no copy where the image
    is one tile and our region stores it through the reshape, `stored_through_reshape`), else stored
    there in place (IREE's formation, or
    transforms/padded_results.py), which keeps IREE from collapsing a contraction's loops: priced
    without data tiling."""
    ops = [graph.ops[i] for i in g.ops]
    if split:
        copied = [p for i, p in stores if not stored_through_reshape(graph, i, p)]
        return estimate(ops, target).time_s + copies_s(graph, copied, target)
    return estimate(ops, replace(target, data_tiling=False) if target.data_tiling else target).time_s


def split_padded_epilogues(plan: FusionPlan, graph: DataflowGraph, target: TargetDesc,
                           constraints: Constraints | None = None) -> FusionPlan:
    """Hand each group's epilogue to IREE where its result is padded through a reshape and the cost
    model prices the epilogue's own dispatch no dearer than the group's copy into the pad; pinned
    groups stay whole. The epilogue's ops go to `unplaced`, with a note."""
    pinned = set().union(*constraints.pins) if constraints is not None and constraints.pins else set()
    groups: list[Group] = []
    handed: list[int] = []
    notes: list[str] = []
    cut: dict[tuple[int, int], Decision] = {}
    for g in plan.groups:
        tail = () if pinned & set(g.ops) or graph.ops[g.root].kind is not OpKind.CONTRACTION else epilogue(graph, g)
        outs = [i for i in tail if any(c not in g.ops for c in graph.consumers(i)) or i in graph.outputs]
        pads = [pad_of(graph, i) for i in outs]
        if not tail or not outs or any(p is None for p in pads):
            groups.append(g)
            continue
        split = any(s for _, s in pads)
        before = whole_s(graph, g, [(i, p) for i, (p, _) in zip(outs, pads)], split, target)
        head = tuple(i for i in g.ops if i not in tail)
        after_head = estimate([graph.ops[i] for i in head], target)
        after = after_head.time_s + (copies_s(graph, [p for p, _ in pads], target) if split else
                                     estimate([graph.ops[i] for i in tail], target).time_s)
        if after > before:
            groups.append(g)
            continue
        groups.append(replace(g, ops=head, predicted_s=after_head.time_s, bound=after_head.bound))
        handed.extend(tail)
        why = (f"left to IREE, which writes it into the buffer of pad op{'s' if len(pads) > 1 else ''} "
               f"{', '.join(str(p) for p, _ in pads)} in place (predicted {fmt_time(after)} against "
               f"{fmt_time(before)} with the epilogue in the group)")
        notes.append(f"ops {', '.join(map(str, tail))} (epilogue of group {g.id}): {why}")
        cut.update({(p, c): Decision(p, c, False, f"refused: [epilogue-split] the epilogue is {why}")
                    for p in head for c in graph.consumers(p) if c in tail})
    if not handed:
        return plan
    decisions = tuple(cut.pop((d.producer, d.consumer), d) for d in plan.decisions) + tuple(cut.values())
    return replace(plan, groups=tuple(replace(g, id=k) for k, g in enumerate(groups)), decisions=decisions,
                   unplaced=tuple(sorted({*plan.unplaced, *handed})), notes=plan.notes + tuple(notes))
