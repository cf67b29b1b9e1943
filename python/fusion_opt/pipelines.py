"""Named pipeline stages shared by the CLI and the API: describe -> plan -> write dispatch regions."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .analysis.describe import describe_function
from .analysis.opdesc import DataflowGraph
from .cost.targets import TargetDesc
from .errors import InputError, PlanError
from .fusion import DEFAULT_STRATEGY, STRATEGY_NAMES
from .fusion import plan as make_plan
from .fusion.control import ControlSpec, violations
from .fusion.plan import FusionPlan
from .ir import FUSE_ATTR, NO_FUSE_ATTR, functions, ir
from .patterns import PATTERN_NAMES
from .patterns import get as get_pattern
from .patterns import hits as pattern_hits
from .patterns.conv_bn import fold_conv_bn
from .rewrites import (attention, bmm_tiles, conv_transpose, depthwise, grouped_taps, im2col, pool_taps, siblings,
                       transposed_gather, winograd)
from .rewrites.bias_epilogue import bias_to_epilogue
from .rewrites.conv3d import NAME as CONV3D
from .rewrites.conv3d import split_3d_convs
from .rewrites.dead_taps import NAME as DEAD_TAPS
from .rewrites.dead_taps import drop_dead_taps
from .rewrites.int_narrow import NAME as INT_NARROW
from .rewrites.pool_conv import NAME as POOL_CONV
from .rewrites.pool_conv import swap_pools
from .rewrites.quant_pair import NAME as QUANT_PAIR
from .rewrites.quant_pair import fold_quant_pairs
from .rewrites.slice_concat import NAME as SLICE_CONCAT
from .rewrites.slice_concat import gather_slice_concats
from .rewrites.sort_topk import NAME as SORT_TOPK
from .rewrites.sort_topk import sorts_to_topk
from .rewrites.int_narrow import keeps_i8, narrow_int_matmuls
from .rewrites.unit_batch import flatten_unit_batches
from .rewrites.choice import Rewrite
from .rewrites.choice import run as run_rewrite
from .rewrites.layout import AUTO_NAME, auto_rewrite, to_channels_last
from .transforms.argument_copies import copy_written_arguments
from .transforms.dispatch_regions import apply_plan
from .transforms.flat_taps import rewrite_flat_taps
from .transforms.padded_results import write_pads_into_regions

# Rewrites applied wherever they match (never more work), in this order: name -> (graph, ops, skip) -> count.
PLAIN_REWRITES = {DEAD_TAPS: drop_dead_taps,
                  # before unit-batch-matmul, which flattens the copy's batch dims behind a reshape
                  transposed_gather.NAME: transposed_gather.read_through_transposes,
                  # before conv-bn: a scale folded into a batch matmul's broadcast weight made the weight a
                  # product computed per call (ConvNeXt's layer scale: 7 x 768 x 3072 floats, 19-24 ms a block)
                  "unit-batch-matmul": flatten_unit_batches,
                  "conv-bn": lambda graph, ops, skip: len(fold_conv_bn(graph, ops, skip)),
                  "bias-epilogue": bias_to_epilogue, CONV3D: split_3d_convs, POOL_CONV: swap_pools,
                  INT_NARROW: narrow_int_matmuls,
                  QUANT_PAIR: fold_quant_pairs, SLICE_CONCAT: gather_slice_concats, SORT_TOPK: sorts_to_topk,
                  bmm_tiles.NAME: bmm_tiles.attach_bmm_tiles}
# bmm-tiles: llvm-cpu tile sizes, meaningless to the GPU pipelines; sort-topk: IREE 3.13's CUDA and SPIR-V
# pipelines fail on its top-k op as a dispatch of ours ("LLVM Translation failed ... unrealized_conversion_cast");
# conv3d-slices, grouped-taps, conv-transpose-phases: measured on the CPU only (IREE's GPU conv code unmeasured on these)
CPU_ONLY = frozenset({bmm_tiles.NAME, SORT_TOPK, CONV3D, grouped_taps.NAME, conv_transpose.NAME})
ATTRIBUTE_ONLY = frozenset({bmm_tiles.NAME})  # sets an attribute: op indices stay valid
# The user's layout choice (`layout="nhwc"`), run first, the order measured in docs/patterns.md. After
# the plain rewrites instead, Conv-BN folds all of ResNet-50's 53 BatchNorms (36 when first: the
# transposes sit between conv and BN), but ResNet-50 ran the same (0.99x) and DenseNet-121 1.03x slower.
LAYOUT_REWRITE = "channels-last"
# The rewrites the cost model chooses per site, in the order they run (after the plain ones).
COST_REWRITES: dict[str, Callable[[TargetDesc], Rewrite]] = {
    # first, before conv-layout too (`REWRITE_ORDER`): the conv it makes gets the layout and the strategies below
    conv_transpose.NAME: conv_transpose.rewrite,
    grouped_taps.NAME: lambda target: grouped_taps.REWRITE,  # first: it prices im2col, which would take the conv
    winograd.NAME: winograd.rewrite,     # the batch matmuls' CPU tiles depend on the target
    im2col.NAME: im2col.rewrite,         # the window copy's CPU tiles depend on the target
    **{rw.name: (lambda target, rw=rw: rw) for rw in (depthwise.REWRITE, pool_taps.REWRITE, siblings.REWRITE)},
    attention.NAME: attention.rewrite,   # the op's CPU tile sizes depend on the target
}

REWRITE_ORDER = (LAYOUT_REWRITE, *PLAIN_REWRITES, conv_transpose.NAME, AUTO_NAME,
                 *(n for n in COST_REWRITES if n != conv_transpose.NAME))

FUSION_MODES = STRATEGY_NAMES
DEFAULT_FUSION = DEFAULT_STRATEGY


def rewrites_applied(planned: list[PlannedFunction]) -> tuple[str, ...]:
    """The pattern rewrites that changed the IR of `planned` (the user's `layout="nhwc"` aside)."""
    hit = {n for p in planned for n, k in p.plan.patterns if k}
    return tuple(n for n in REWRITE_ORDER if n in hit and n != LAYOUT_REWRITE)


def retry_without_rewrites(err: Exception, planned: list[PlannedFunction], control: ControlSpec | None,
                           reload: Callable[[], ir.Module] | None) -> tuple[ControlSpec, str]:
    """For a compile IREE failed outside every group of ours (`err`, after every fallback step): `control`
    with the pattern rewrites that changed the IR switched off as well (its pins and their matches kept),
    and what to tell the user. Raises `err` when there is nothing to retry: no rewrite changed the IR, or
    the input cannot be read again (`reload` None)."""
    rewrites = rewrites_applied(planned)
    if reload is None or not rewrites:
        raise err
    control = control or ControlSpec()
    return (replace(control, disabled_patterns=(*control.disabled_patterns, *rewrites)),
            f"IREE failed on the rewritten IR ({err}); compiled again without the pattern rewrites "
            f"{', '.join(rewrites)}")


@dataclass
class PlannedFunction:
    """A function's pure description and plan, plus the IR ops the plan's indices refer to."""

    graph: DataflowGraph
    plan: FusionPlan
    func_op: ir.Operation
    ops: list[ir.Operation]
    pads_into_regions: bool = True   # off with --disable-pattern=pad-conv


def plan_module(module: ir.Module, fusion: str, source_name: str = "-", target: str = "host",
                control: ControlSpec | None = None, data_tiling: bool | None = None) -> list[PlannedFunction]:
    """Describe and plan every function of `module`. The IR is untouched except by the `cost`
    strategy's rewrite patterns (patterns/__init__.py): Conv-BN folding, conv/matmul biases moved from
    the accumulator to an epilogue add, unit-batch batch matmuls as 2-D matmuls, the conv strategy (direct or
    im2col + matmul, per conv, by the cost model), depthwise convs as window taps, horizontal stacking
    of sibling matmuls and attention as IREE's fused op, each where the cost model predicts a gain
    (`COST_REWRITES`; every site is reported in the plan's notes, taken or not); never on pinned, barred or --max-fusions runs, nor for disabled patterns. Pattern
    hits are recorded in `plan.patterns`; a disabled grouping pattern bars its ops from merging.

    Groups are priced with the cost model of `target` whatever the strategy, so plans compare.
    `control` carries the user's pins, barriers and merge cap; IR marks (`fusion_opt.fuse = "tag"`,
    `fusion_opt.no_fuse`) are read here whether or not it is given. The caller checks
    `control.check_matched()` once every module of the input was planned. `data_tiling`: whether the
    compile will data-tile contractions (None: what the default compile of `fusion` does,
    `backends.levers.data_tiling_planned`); the cost model prices contractions accordingly.
    """
    from .backends.levers import data_tiling_planned
    from .cost import get_target_desc

    if fusion not in FUSION_MODES:
        raise ValueError(f"unknown fusion mode '{fusion}' (choose from {', '.join(FUSION_MODES)})")
    desc = get_target_desc(target)
    if desc.kind == "cpu":
        tiled = data_tiling_planned(fusion, target) if data_tiling is None else data_tiling
        desc = replace(desc, data_tiling=tiled) if tiled != desc.data_tiling else desc
    control = control or ControlSpec()
    if control.layout == "nhwc" and (fusion != "cost" or control.max_fusions is not None):
        raise InputError(f"layout {control.layout} is applied with the cost planner's rewrites: it needs "
                         "--fusion=cost and no --max-fusions")
    out = []
    for f in functions(module):
        copied = copy_written_arguments(f) if fusion != "iree" else 0  # "iree" stays IREE's own compile
        graph, ops = describe_function(f, source_name)
        tags, barriers = read_marks(ops, graph)
        constraints = control.resolve(graph, tags, barriers)
        rewrites: list[str] = [f"{copied} in-place update(s) of a function argument given a copy to update "
                               "(transforms/argument_copies.py)"] if copied else []
        applied: dict[str, int] = {}
        off = set(control.disabled_patterns)
        if fusion == "cost" and constraints.max_fusions is None:
            for name in REWRITE_ORDER:
                if name in off or (name == LAYOUT_REWRITE and control.layout != "nhwc") or \
                        (name == AUTO_NAME and control.layout != "auto") or (name in CPU_ONLY and desc.kind != "cpu"):
                    continue
                skip = set(constraints.barriers).union(*constraints.pins)
                if name == LAYOUT_REWRITE:
                    applied[name] = to_channels_last(f, graph)
                    changed = applied[name] > 0
                    rewrites.append(f"layout: {applied[name]} convolutions rewritten channels-last (NHWC), "
                                    "transposes propagated until they cancel (rewrites/layout.py)")
                elif name in PLAIN_REWRITES:
                    kw = {"keep_i8": keeps_i8(desc)} if name == INT_NARROW else {}  # the one target-aware
                    applied[name] = PLAIN_REWRITES[name](graph, ops, skip, **kw)
                    changed = applied[name] > 0 and name not in ATTRIBUTE_ONLY
                else:
                    rw = auto_rewrite(desc) if name == AUTO_NAME else COST_REWRITES[name](desc)
                    outcome = run_rewrite(rw, graph, ops, desc, skip)
                    rewrites += outcome.notes
                    applied[name], changed = outcome.found, outcome.changed  # notes say which were taken
                if changed:  # op indices moved: describe and resolve the user's matchers again
                    try:
                        f.verify()
                    except ir.MLIRError as e:
                        raise PlanError(f"internal error: the {name} rewrite left invalid IR in "
                                        f"@{graph.function}: {e}") from None
                    graph, ops = describe_function(f, source_name)
                    tags, barriers = read_marks(ops, graph)
                    constraints = control.resolve(graph, tags, barriers)
        opt_in = set() if control.layout == "auto" else {AUTO_NAME}  # layout=nchw/nhwc: no per-conv choice
        found = pattern_hits(graph, off | set(applied) | opt_in | (CPU_ONLY if desc.kind != "cpu" else set()))
        barred = {i for p in PATTERN_NAMES if p in off and not get_pattern(p).rewrite
                  for hit in get_pattern(p).find(graph) for i in hit}
        if barred:  # a disabled grouping pattern: its ops stay apart, to measure what it buys
            constraints = replace(constraints, barriers=constraints.barriers | frozenset(barred))
        if fusion == "iree" and (constraints.pins or constraints.barriers):
            raise InputError("fusion pins and barriers need one of our planners, not --fusion=iree "
                             "(IREE forms its own dispatches)")
        result = make_plan(graph, fusion, desc, constraints=constraints, split_epilogues="pad-conv" not in off)
        broken = violations(result, constraints)
        if broken:
            raise PlanError(f"internal error: planner '{fusion}' did not obey the constraints on "
                            f"@{graph.function}: {'; '.join(broken)}")
        counts = {**applied, **{k: len(v) for k, v in found.items()}}
        result = replace(result, notes=tuple(rewrites) + result.notes,
                         patterns=tuple((p, counts[p]) for p in PATTERN_NAMES if p in counts))
        out.append(PlannedFunction(graph, result, f, ops, pads_into_regions="pad-conv" not in off))
    return out


def compile_levers(planned: list[PlannedFunction], fusion: str, target: str, tile_sizes: str = "iree",
                   codegen_strategies: bool = False, user_flags: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The per-module IREE flags our levers choose (backends/levers.py), and the IR step that depends on
    them: in a data-tiled compile of our modes, batch matmuls fed by a reduction keep IREE's own tiles
    (`bmm_tiles.keep_batch_matmuls_unpacked`, an IREE 3.13 miscompile). The CLI and the API both run it
    after writing the regions."""
    from .backends.levers import module_data_tiled, module_flags

    levers = module_flags((p.graph for p in planned), fusion, target, tile_sizes, codegen_strategies, user_flags)
    if fusion != "iree" and module_data_tiled(levers, user_flags):  # "iree" stays IREE's own compile
        bmm_tiles.keep_batch_matmuls_unpacked(planned)
    return levers


def read_marks(ops: list[ir.Operation], graph: DataflowGraph) -> tuple[dict[int, str], set[int]]:
    """IR pins and barriers: op index -> `fusion_opt.fuse` tag, and the ops with `fusion_opt.no_fuse`."""
    tags: dict[int, str] = {}
    barriers: set[int] = set()
    for i, op in enumerate(ops):
        attrs = op.attributes
        if FUSE_ATTR in attrs:
            a = attrs[FUSE_ATTR]
            if not isinstance(a, ir.StringAttr):
                raise InputError(f'{FUSE_ATTR} must be a string tag (ops sharing a tag are fused), got {a}',
                                 graph.ops[i].loc)
            tags[i] = a.value
        if NO_FUSE_ATTR in attrs:
            barriers.add(i)
    return tags, barriers


def write_regions(planned: list[PlannedFunction]) -> int:
    """The only IR mutation of the pipeline: one flow.dispatch.region per group, then each pad between
    regions written into its producer's region (transforms/padded_results.py). Returns the count."""
    n = 0
    for p in planned:
        n += apply_plan(p.func_op, p.ops, p.plan)
        if p.pads_into_regions:
            write_pads_into_regions(p.func_op)
            rewrite_flat_taps(p.func_op)
    return n
