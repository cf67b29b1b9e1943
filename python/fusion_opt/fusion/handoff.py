"""Groups better left to IREE, each kind with a measured reason (the `HANDOFFS` table).

- `padded`: the group's result is padded for a convolution. IREE's own dispatch formation writes a
  producer's result straight into the padded buffer (a splat plus an in-place dispatch), so the pad
  costs nothing. A region that includes the `tensor.pad` computes wrong values in IREE 3.13 (max error
  90 on a relu + pad + conv test, verified). A region of ours whose result already has the padded
  layout gets the same in-place write from transforms/padded_results.py; a 1x1 conv's matmul result
  (`[F, H*W]`, split into rows by a reshape) keeps its copy dispatch, measured faster than the in-place
  write. A one-op group is followed through reshapes to its pad.
- `conv-rewrite`: the group's root is a convolution that IREE's global optimizations rewrite before
  forming dispatches, which they do not do to ops already inside a `flow.dispatch.region`: a 1x1
  stride-1 convolution becomes a matmul, and a grouped or depthwise convolution is generalized with
  its unit batch dimension folded. Our region keeps the named NCHW op, whose llvm-cpu codegen is
  several times slower (measured per dispatch, 2 cores: SqueezeNet's 1000x13x13x512 1x1 conv 35.6 ms
  ours vs 9.5 ms as IREE's matmul, 16->64 ch 1x1 at 55x55 1.3 ms vs 0.21 ms; ShuffleNet's grouped
  1x1 conv 1x4x68x14x14 4.0 ms vs 1.15 ms, its depthwise 3x3 0.82 ms vs 0.33 ms). IREE fuses the
  same epilogues (bias, BN, relu) into its dispatch, so nothing of ours is lost.
- `constant`: a group computing only from constants (BatchNorm's rsqrt(var + eps), folded weights).
  IREE's const-eval evaluates such ops at compile time and stores the result as a global, but only
  when they are outside dispatch regions; inside one they would run on every call.
- `lone-slice`: a group holding only `tensor.extract_slice`s. IREE turns a slice outside regions into
  a view when it is contiguous (the stacked Q/K/V projections' slices, rewrites/siblings.py) and
  otherwise copies it itself or folds it into its consumer; as a region of ours it is a copy dispatch.
  Not a slice that is no view read by a contraction of a data-tiled function (`tiled_slices`): IREE
  3.13 fails to compile its own fusion of the two.
- `lone-fill`: a group holding only splats (fills) that no output returns: one shared by many groups whose
  merge was refused (MobileViT's 4x4 zero fill, the init of 21 LayerNorm and softmax reductions, some
  reading it as an input). IREE clones a splat into each dispatch that reads it; as a region of ours it
  was a dispatch, and a LayerNorm region whose two reductions both accumulated into it in place failed
  to compile ("'iree_tensor_ext.dispatch.tensor.store' op operand #1 must be dispatch.tensor, but got
  ... readonly"; two groups fell back). The `none` strategy takes this rule too: two equal zero fills,
  each a region of its own and each the init of a matmul, computed wrong numbers in IREE 3.13 (fuzz seed
  29632: both matmuls accumulated into one buffer, 3.26 for 0.99; test/fuzz/iree/fill-regions-shared.mlir).
- `feeds-iree` (applied after the others, to a fixed point): a group of cheap data-movement ops
  (broadcasts, fills, transposes, elementwise) whose every consumer was handed back. IREE fuses such
  producers into its consumer's dispatch (a conv's bias broadcast becomes its init) or folds them at
  compile time; kept as a region of ours, each is a dispatch of its own (AlexNet: 3 extra). Not
  `linalg.transpose`s: fused into a max pool by IREE, the pool ran 3.3x slower (Inception-v1 with
  channels-last convs, 686 vs 207 us).
- `packed-copy` (only when the compile data-tiles contractions): a window copy (im2col) alone whose
  result reaches a data-tiled matmul through a reshape, and whose output rows are whole packed tiles
  (the image row a multiple of the packed tile's columns, `TargetDesc.packed_cols`). IREE packs it for
  the matmul in the copy's own dispatch (copy, collapse_shape and set_encoding in one), which it does
  not do to a region of ours: IREE fuses a packing op only into a region whose returned value is a
  Linalg op, and the reshape between them is outside. Kept, the packing is a dispatch of its own that
  reads and writes the whole window matrix once more (VGG-19's first 3x3 conv, 224-wide rows: copy
  90.6 ms + packing 55.5 ms; IREE's fused dispatch 71.4 ms). Rows that are not whole tiles (14, 28,
  56 wide against 16 columns) stay ours: the fused dispatch then stores each packed tile across two
  image rows, element by element (Inception-v2's `[160, 3, 3, 14, 14]` copy 263 us fused, 49 us + 85 us
  for IREE's packing dispatch; the region keeps its compute barrier, backends/barriers.py). Paired,
  models against the rule for every row width (2026-12-03): Inception-v2 0.939, Inception-v1 0.944,
  AlexNet 0.945, VGG-19 0.946, ResNet-50 0.963, SqueezeNet 0.973, ZFNet-512 0.986, DenseNet-121 1.000;
  audio1d's 1-D Conv1d copies 0.492 (unseen models, docs/performance.md); VGG-19 with its 224-wide stem
  copy split too ran 1.022x.
Each handed-back group's ops go to `unplaced`, with the reason in the plan's notes.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind, outermost_non_unit, static_ints
from ..analysis.classify import image_row, map_results, packed_in_copy
from ..cost.model import is_free
from .constraints import Constraints
from .epilogue_split import reads_interior
from .legality import reads_at_offset
from .plan import FusionPlan, Group

REASON = ("left to IREE: its result is padded, and IREE writes a producer straight into the padded buffer "
          "(a region ending before the pad costs a copy dispatch; one ending with it miscompiles in IREE 3.13)")
CONV_REASON = ("left to IREE: its root is a {what} convolution, which IREE rewrites ({how}) only outside "
               "our regions; its codegen of the named NCHW op is several times slower (measured: "
               "SqueezeNet 1x1 conv 35.6 -> 9.5 ms, ShuffleNet grouped 1x1 4.0 -> 1.15 ms, depthwise 0.82 -> 0.33 ms)")


def conv_dims(op: OpDesc) -> tuple[set[int], set[int]] | None:
    """(window dims, group dims) of a convolution from its maps: window dims are read by the
    filter and the input's window sums only; group dims index input, filter and output alike
    (depthwise channels, conv groups). None when the op is not a 2-input convolution."""
    if op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2 or len(op.map_dims) < 3:
        return None
    inp, flt, out = (set(d for d in op.map_dims[k] if d >= 0) for k in (0, 1, len(op.map_dims) - 1))
    window = flt - inp - out
    groups = flt & inp & out
    return window, groups


def _strided(op: OpDesc) -> bool:
    """An input read `d2 * 2 + d5`: a stride (or dilation) other than 1."""
    return bool(op.indexing_maps) and "*" in op.indexing_maps[0]


def conv_rewritten_by_iree(op: OpDesc) -> str | None:
    """What IREE's global optimizations would make of convolution `op`, or None (left as it is)."""
    d = conv_dims(op)
    if d is None:
        return None
    window, groups = d
    if len(window) != 2:  # measured on 2-D (NCHW) convolutions only
        return None
    if groups:
        # IREE 3.13 folds a unit output dim of the generalized conv and then infers the filter's extent
        # from the input's: it fails to verify when that input dim has unread elements (found by
        # `fusion-bench fuzz`, test/fuzz/iree/depthwise-handoff.mlir). Such a conv stays ours.
        return None if _unit_output_with_unread_input(op) else "grouped/depthwise"
    if window and all(op.loop_ranges[w] == 1 for w in window) and not _strided(op):
        return "1x1 stride-1"
    return None


_TERM = re.compile(r"^(?:d(\d+)|(\d+)|d(\d+)\s*\*\s*(\d+)|(\d+)\s*\*\s*d(\d+))$")


def _read_extent(expr: str, ranges: tuple[int, ...]) -> int | None:
    """1 + the largest index an affine sum of dims (`d2 * 2 + d5`) reads; None for other expressions."""
    top = 0
    for term in expr.split("+"):
        mo = _TERM.match(term.strip())
        if mo is None:
            return None
        if mo[1]:
            top += ranges[int(mo[1])] - 1
        elif mo[3]:
            top += (ranges[int(mo[3])] - 1) * int(mo[4])
        elif mo[6]:
            top += (ranges[int(mo[6])] - 1) * int(mo[5])
    return top + 1


def _unit_output_with_unread_input(op: OpDesc) -> bool:
    """A window dim of the conv's input reads fewer elements than the input has, with its output dim of 1."""
    if not op.indexing_maps or not op.operand_shapes or not op.map_dims:
        return False
    exprs = map_results(op.indexing_maps[0])
    out_shape = op.result_shapes[0] if op.result_shapes else ()
    out_dims = op.map_dims[-1]
    for pos, expr in enumerate(exprs):
        if "+" not in expr or pos >= len(op.operand_shapes[0]):
            continue
        read = _read_extent(expr, op.loop_ranges)
        out_unit = any(out_shape[k] == 1 for k, d in enumerate(out_dims)
                       if d >= 0 and k < len(out_shape) and f"d{d}" in re.findall(r"d\d+", expr))
        if read is not None and read < op.operand_shapes[0][pos] and out_unit:
            return True
    return False


@dataclass(frozen=True)
class Handoff:
    name: str
    why: str
    check: Callable[[DataflowGraph, Group], str | None]   # -> the note's reason, or None (kept)


_COMPUTE = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION, OpKind.OPAQUE})


def _h_padded(graph: DataflowGraph, g: Group) -> str | None:
    # A group of one op (and its init fill) that is no contraction or conv is also looked at through
    # reshapes: VGG-19's max pools feed their pad through an expand_shape (4 copy dispatches, none in
    # IREE's formation of the same graph, which forms such a group just as we do). Not a bigger group:
    # an im2col conv's epilogue or AlexNet's LRN + pool group reach the next pad the same way, and
    # handing them back undoes their fusion (AlexNet: one more dispatch, not one less).
    work = [graph.ops[i] for i in g.ops if graph.ops[i].name != "linalg.fill"]
    if any(_unit_output_with_unread_input(op) for op in work):
        return None  # IREE's formation fails on it, as on such a depthwise conv (conv_rewritten_by_iree)
    if any(reads_at_offset(op) for op in work):
        return None  # IREE 3.13 crashed (SIGSEGV) writing such a read into the padded buffer (fuzz seed 34576)
    deep = len(work) == 1 and work[0].kind not in _COMPUTE
    outs = (c for i in g.ops for c in (_through_reshapes(graph, i) if deep else graph.consumers(i)))
    # Not a matmul's group whose pad a window-taps op reads through its interior (its centre tap): IREE folds that
    # slice into the pad's source, which then has two uses, so IREE copies it into the padded buffer
    # (epilogue_split.reads_interior), where our region stores into it in place (transforms/padded_results.py,
    # flat_taps.py): a 1x1 conv before a depthwise 3x3 (one copy dispatch less). Pools and LRNs stay handed
    # back: kept, Inception-v1's ran 1.78x slower (paired, 2026-12-03).
    matmul = any(graph.ops[i].kind is OpKind.CONTRACTION for i in g.ops)
    return REASON if any(graph.ops[c].kind is OpKind.PAD and not (matmul and reads_interior(graph, c))
                         for c in outs) else None


_HOW = {"1x1 stride-1": "to a matmul", "grouped/depthwise": "generalized, unit batch dim folded"}


def _h_conv_rewrite(graph: DataflowGraph, g: Group) -> str | None:
    for i in g.ops:
        what = conv_rewritten_by_iree(graph.ops[i])
        if what:
            return CONV_REASON.format(what=what, how=_HOW.get(what, "generalized"))
    return None


CONST_REASON = ("left to IREE: it computes only from constants, which IREE evaluates at compile time "
                "(const-eval) outside dispatch regions")


def _h_constant(graph: DataflowGraph, g: Group) -> str | None:
    from .legality import constant_ops
    return CONST_REASON if set(g.ops) <= constant_ops(graph) else None


SLICE_REASON = ("left to IREE: a slice alone, which IREE makes a view (contiguous) or folds into its consumer; "
                "as a region of ours it would be a copy dispatch")


def _h_lone_slice(graph: DataflowGraph, g: Group) -> str | None:
    return SLICE_REASON if all(graph.ops[i].name == "tensor.extract_slice" for i in g.ops) else None


def slice_is_view(op: OpDesc) -> bool:
    """A `tensor.extract_slice` whose elements are one contiguous run of its source: unit strides, and
    whole source dims inside the first dim taken more than once (`[1, 0, 0] [1, 256, 256]` of 4x256x256)."""
    sizes, strides = static_ints(op, "static_sizes"), static_ints(op, "static_strides")
    src = op.operand_shapes[0] if op.operand_shapes else ()
    if not sizes or len(sizes) != len(src) or len(strides) != len(sizes):
        return False
    outer = outermost_non_unit(sizes)
    return all(strides[k] == 1 for k in range(outer, len(sizes))) and tuple(sizes[outer + 1:]) == tuple(src[outer + 1:])


STACK_LIMIT = 32768  # bytes: IREE 3.13's llvm-cpu stack allocation limit per dispatch function (its default)
TILED_SLICE_REASON = ("a slice that is no view, read by a contraction of a data-tiled module: IREE 3.13 fails to "
                      "compile its own fusion of the two (\"exceeded stack allocation limit\"), so it is a copy "
                      "region of ours")


def tiled_slices(graph: DataflowGraph) -> set[int]:
    """Slices that are no view (`slice_is_view`) and feed a contraction (through reshapes) in a graph that
    IREE will data-tile (a plain matmul whose packing pays, `backends.levers.data_tiling_flags`). Left to
    IREE, it fuses the slice into the contraction's dispatch, whose packing of the strided operand then
    holds the whole operand on the stack: the compile fails, also in IREE's own formation (a row-strided,
    column-strided or offset sub-block slice into a matmul or a batch matmul; test_handoff.py).
    Kept as a region of ours, the copy compiles and costs what IREE's fallback copy does. The stack held
    the slice plus 4 KiB read as the left operand, half of it as the right one: a 16 KiB slice compiled
    (20 KiB of stack), 32 KiB did not (36 KiB), so slices from half the limit up are kept."""
    from ..backends.levers import asks_for_data_tiling

    if not asks_for_data_tiling(graph.ops):
        return set()
    return {op.index for op in graph.ops if op.name == "tensor.extract_slice" and not slice_is_view(op)
            and op.bytes_written >= STACK_LIMIT // 2
            and any(graph.ops[c].kind is OpKind.CONTRACTION for c in _through_reshapes(graph, op.index))}


FILL_REASON = ("left to IREE: a splat alone, which IREE clones into each dispatch reading it; as a region of ours "
               "it is a dispatch, and two reductions of one dispatch accumulating into it fail to compile")


def _h_lone_fill(graph: DataflowGraph, g: Group) -> str | None:
    """Not a splat a reduction reads as its input: IREE would clone it into the reduction's dispatch,
    where it computes the reduction wrong (legality rule `splat-reduction`)."""
    from .legality import is_fill_like, reads_splat

    if not all(is_fill_like(graph.ops[i]) for i in g.ops) or set(g.ops) & graph.outputs:
        return None
    if any(reads_splat(graph, e.consumer, e.operand, e.producer) for e in graph.edges if e.producer in g.ops):
        return None
    return FILL_REASON


HANDOFFS: tuple[Handoff, ...] = (
    Handoff("padded", "a result padded for a conv: IREE writes it into the padded buffer for free", _h_padded),
    Handoff("conv-rewrite", "1x1 and grouped/depthwise convs: IREE rewrites them (matmul, generalized) only "
            "outside our regions; measured 2.5-6x faster per dispatch", _h_conv_rewrite),
    Handoff("constant", "ops on constants only: IREE evaluates them at compile time", _h_constant),
    Handoff("lone-slice", "a slice alone: IREE makes it a view or folds it into its consumer", _h_lone_slice),
    Handoff("lone-fill", "a splat alone: IREE clones it into each dispatch that reads it", _h_lone_fill),
    # `feeds-iree` is not a per-group check: it depends on what the rules above handed back (see
    # hand_padded_groups_to_iree), so it is listed by name only.
)


FEEDS_REASON = ("left to IREE: every consumer is left to IREE, which fuses this cheap producer into their "
                "dispatch or folds it (as a region of ours it would be a dispatch of its own)")
_HEAVY = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION, OpKind.REDUCTION, OpKind.OPAQUE})


def _through_reshapes(graph: DataflowGraph, i: int) -> set[int]:
    """Consumers of op i, looking through metadata-only ops (reshapes), which no dispatch holds."""
    return {e.consumer for e in graph.uses_through(i, is_free)}


def _feeds_iree(graph: DataflowGraph, g: Group, handed_ops: set[int]) -> bool:
    # A stencil tap (`d1 + 2`) is kept: IREE's own fusion of it with its consumer segfaults (the rule
    # `offset-read`; test/fuzz/iree/handoff-offset-read.mlir).
    if any(graph.ops[i].kind in _HEAVY or reads_at_offset(graph.ops[i]) for i in g.ops):
        return False
    # A transpose (a channels-last conv's result going back to NCHW, rewrites/layout.py) is kept too: IREE
    # fuses it into its consumer, and a max pool reading through it ran 686 us against 207 (Inception-v1)
    if any(graph.ops[i].name == "linalg.transpose" for i in g.ops):
        return False
    members = set(g.ops)
    outside = set().union(*(_through_reshapes(graph, i) for i in g.ops)) - members
    return bool(outside) and outside <= handed_ops


PACKED_REASON = ("left to IREE: a window copy feeding a data-tiled matmul through a reshape, its rows whole packed "
                 "tiles; IREE packs it in the copy's own dispatch, which it does not do to our region (VGG-19 "
                 "conv1: copy 90.6 + packing 55.5 ms vs 71.4 ms fused)")


def _packed_copy_candidate(graph: DataflowGraph, g: Group) -> OpDesc | None:
    """The group's window copy when it is one alone whose result reaches data-tiled matmuls through a reshape."""
    from ..cost.model import data_tileable

    if len(g.ops) != 1:
        return None
    i = g.ops[0]
    op = graph.ops[i]
    direct = set(graph.consumers(i))
    cons = _through_reshapes(graph, i)
    if (op.name != "linalg.generic" or op.kind is not OpKind.INJECTIVE or not cons or cons == direct
            or not all(graph.ops[c].kind is OpKind.CONTRACTION and data_tileable(graph.ops[c]) for c in cons)):
        return None
    return op


def _h_packed_copy(graph: DataflowGraph, g: Group, pack_cols: int) -> str | None:
    op = _packed_copy_candidate(graph, g)
    # packed tiles across image rows: the copy stays ours, IREE packs it in a dispatch of its own
    return PACKED_REASON if op is not None and packed_in_copy(op, pack_cols) else None


def _kept_copy_note(graph: DataflowGraph, g: Group, pack_cols: int) -> str | None:
    """Why a window copy that `packed-copy` could have handed back stays ours (the plan explains it)."""
    op = _packed_copy_candidate(graph, g)
    if op is None or packed_in_copy(op, pack_cols):
        return None
    return (f"ops {op.index} ({g.kind}): kept: a window copy whose {image_row(op)}-wide image rows are not whole "
            f"packed tiles ({pack_cols} columns); IREE packs it for the data-tiled matmul in a dispatch of its own "
            f"(fused, each tile would span two rows and store element by element)")


SPIRV_REASON = ("left to IREE: a reduction over an outer dim (its input's innermost dim parallel) with a fused prologue, "
                "which IREE 3.13's SPIR-V code computes wrong (ConvNeXt-V2's GRN on Vulkan: max error 0.09; IREE's "
                "own formation of the same ops right)")


def _h_spirv_outer_reduction(graph: DataflowGraph, g: Group) -> str | None:
    """Vulkan only: a group rooted at an outer reduction with a prologue (a member before the root that is
    not a fill). Measured on an H200 through NVIDIA's Vulkan driver (2026-12-04): of ConvNeXt-V2's 16 groups
    compiled one at a time (the rest left to IREE), exactly the two GRN groups (an erf-GELU prologue, a sum
    of squares over the positions with channels innermost, a sqrt epilogue, the GELU also returned) gave
    wrong results (0.093 and 0.049 max error against onnxruntime), and a plan whose GRN groups held only
    the square before the sum (and the sqrt after it) was wrong too (0.062); outer reductions with an
    epilogue alone (its LayerNorms' means) were right. Which member triggers it was not isolated."""
    from ..cost.model import outer_reduction

    root = graph.ops[g.root] if g.root is not None else None
    if root is None or not outer_reduction(root):
        return None
    from .legality import is_fill_like

    return SPIRV_REASON if any(i < g.root and not is_fill_like(graph.ops[i]) for i in g.ops) else None


def hand_padded_groups_to_iree(plan: FusionPlan, graph: DataflowGraph,
                               constraints: Constraints | None = None, data_tiling: bool = False,
                               pack_cols: int = 16, spirv: bool = False,
                               only: tuple[str, ...] | None = None) -> FusionPlan:
    """Drop every group a rule of `HANDOFFS` hands back to IREE (pinned groups stay); ops go to `unplaced`
    (splats to `cloned`: IREE clones them into each reader's dispatch).
    `data_tiling`: the compile data-tiles contractions, which adds the `packed-copy` rule for window
    copies whose rows are whole packed tiles of `pack_cols` columns (`TargetDesc.packed_cols`).
    `spirv`: the target compiles to SPIR-V (Vulkan), which adds `spirv-outer-reduction`.
    `only`: just these rules of `HANDOFFS` (by name), and no `feeds-iree`: the `none` strategy takes
    `lone-fill` alone (fusion/__init__.py)."""
    pinned = set().union(*constraints.pins) if constraints is not None and constraints.pins else set()
    sliced = tiled_slices(graph) if data_tiling else set()  # never handed back either, with a note
    rules = [h.check for h in HANDOFFS if only is None or h.name in only] \
        + ([partial(_h_packed_copy, pack_cols=pack_cols)] if data_tiling else []) \
        + ([_h_spirv_outer_reduction] if spirv else [])
    held: set[int] = set()  # ops whose group stays ours: handed back too, IREE would miscompile (`misfused_reads`)
    while True:
        keep, handed = _select(plan, graph, rules, pinned | sliced | held, feeds=only is None)
        left = set(plan.unplaced).union(*(g.ops for g, _ in handed))
        wrong = misfused_reads(graph, left)
        if not wrong:
            break
        why = {i: w for g, w in handed for i in g.ops}
        grown = set()
        for p, c in wrong:  # keep a cheap producer handed back for feeding IREE, else the reader, else the producer
            pick = p if why.get(p) == FEEDS_REASON or c not in why else c
            grown |= {pick} if pick in why else {p} & set(why)
        if not grown - held:  # both were never in a group of ours: nothing to keep
            break
        held |= grown
    held_notes = tuple(f"ops {', '.join(map(str, g.ops))} ({g.kind}): kept: {HELD_REASON}" for g in keep
                       if held & set(g.ops))
    kept_notes = tuple(n for g in keep if data_tiling and (n := _kept_copy_note(graph, g, pack_cols))) \
        + tuple(f"ops {', '.join(map(str, g.ops))} ({g.kind}): kept: {TILED_SLICE_REASON}" for g in keep
                if sliced & set(g.ops))
    if not handed:
        return replace(plan, notes=plan.notes + kept_notes + held_notes) if kept_notes or held_notes else plan
    groups = tuple(replace(g, id=k) for k, g in enumerate(keep))
    splats = {i for g, why in handed if why == FILL_REASON for i in g.ops}  # IREE clones them: `cloned`
    unplaced = tuple(sorted({*plan.unplaced, *(i for g, _ in handed for i in g.ops)}))  # splats too (FusionPlan)
    cloned = tuple(sorted({*plan.cloned, *splats}))
    const = sorted(i for g, why in handed if why == CONST_REASON for i in g.ops)
    notes = plan.notes + tuple(f"ops {', '.join(map(str, g.ops))} ({g.kind}): {why}" for g, why in handed
                               if why != CONST_REASON)
    if const:  # one note: a model has one or two per BatchNorm
        notes += (f"ops {', '.join(map(str, const))}: {CONST_REASON}",)
    notes += kept_notes + held_notes
    return replace(plan, groups=groups, unplaced=unplaced, cloned=cloned, notes=notes)


def _select(plan: FusionPlan, graph: DataflowGraph, rules: list, kept: set[int],
            feeds: bool = True) -> tuple[list, list]:
    """(groups kept, (group, reason) handed back): the rules, then (`feeds`) `feeds-iree` to a fixed point;
    groups holding an op of `kept` stay."""
    keep, handed = [], []
    for g in plan.groups:
        why = None if _stays_ours(graph, g, kept) else \
            next((r for check in rules if (r := check(graph, g))), None)
        (handed.append((g, why)) if why else keep.append(g))
    handed_ops = {i for g, _ in handed for i in g.ops}
    changed = bool(handed) and feeds
    while changed:
        changed = False
        for g in list(keep):
            if not _stays_ours(graph, g, kept) and _feeds_iree(graph, g, handed_ops):
                keep.remove(g)
                handed.append((g, FEEDS_REASON))
                handed_ops |= set(g.ops)
                changed = True
    return keep, handed


def _argument_copy(graph: DataflowGraph, g: Group) -> bool:
    """Copies of function arguments only (transforms/argument_copies.py): handed to IREE, the copy is
    elided and the in-place update it protects writes the caller's buffer again (seed 20449's insert twin)."""
    return all(graph.ops[i].name == "linalg.copy" and (graph.ops[i].operands[0] or 0) < 0 for i in g.ops)


# Groups no hand-off rule may give back to IREE, whatever it would gain: each a (graph, group) predicate.
NEVER_HANDED: tuple[Callable[[DataflowGraph, Group], bool], ...] = (_argument_copy,)


def _stays_ours(graph: DataflowGraph, g: Group, kept: set[int]) -> bool:
    """Pinned or held ops (`kept`), or a group of `NEVER_HANDED`."""
    return bool(kept & set(g.ops)) or any(never(graph, g) for never in NEVER_HANDED)


HELD_REASON = ("handed back with a reader or producer also left to IREE, which IREE 3.13 would fuse into one "
               "two-result op computing the shared value only where a strided reader reads it (misfused_reads)")


def misfused_reads(graph: DataflowGraph, left: set[int]) -> list[tuple[int, int]]:
    """(producer, reader) pairs of ops both left to IREE that IREE 3.13 fuses wrongly: an all-parallel
    generic whose value has other readers (or is returned), read by an all-parallel generic through a map
    that is no permutation (a strided window copy, `(d0, d1 * 2, d2 * 2)`). IREE fuses the producer into
    that reader as a two-result op over the reader's loops, so the value its other readers get is computed
    only where this reader reads (found on a pre-activation ResNet: a ReLU feeding a 1x1 stride-2 conv's
    window copy and a 3x3 conv, error 0.17 at magnitude 0.28; test_handoff_iree_bugs.py). The same through a
    chain of elementwise ops between them, all left to IREE, which it fuses as well (fuzz seed 21329: a
    returned exp, squared, read at an offset `d1 + 2`: the exp came back wrong in half its columns, also in
    `--fusion=iree`)."""
    from .legality import window_read

    def parallel(i: int) -> bool:
        op = graph.ops[i]
        return op.name == "linalg.generic" and all(it == "parallel" for it in op.iterator_types)

    def window_readers(p: int) -> list[int]:
        """Readers in `left` of `p`'s value, or of an elementwise chain from it in `left`, through a window."""
        found, todo, seen = [], [p], {p}
        while todo:
            for e in graph.uses_through(todo.pop(), is_free):
                c = e.consumer
                if c not in left or e.captured or not parallel(c):
                    continue
                if window_read(graph.ops[c], e.operand):
                    found.append(c)
                elif c not in seen:
                    seen.add(c)
                    todo.append(c)
        return sorted(set(found))

    out = []
    for p in sorted(left):
        if not parallel(p):
            continue
        reads = graph.uses_through(p, is_free)
        if len({e.consumer for e in reads}) < 2 and p not in graph.outputs:
            continue
        out += [(p, c) for c in window_readers(p)]
    return out


hand_groups_to_iree = hand_padded_groups_to_iree
