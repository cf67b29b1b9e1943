"""Build the tile-and-fuse transform script of a plan with the transform dialect's Python builders.

Why a script and not C++ heuristics: the script is what the compiler does, op by op; it can be
printed (`--emit=transform`), edited and replayed (`--transform=`), and its failures point at the
payload op they concern. Per group (decisions from tiling.py):

    %sink  = transform.structured.match ops{["linalg.generic"]} {op_attrs = {fusion_opt.id = 7}} in %root
    %tiled, %loop = transform.structured.tile_using_forall %sink tile_sizes [8, 64]
    %p     = transform.structured.match ... {fusion_opt.id = 6} ...
    %f, %loop2 = transform.structured.fuse_into_containing_op %p into %loop     (nearest producer first)
    ...
then canonicalization and CSE on every function. Ids: see interpreter.py.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..analysis.opdesc import describe
from ..errors import InputError
from ..ir import ir
from .interpreter import ENTRY, ID_ATTR, apply_script
from .tiling import GroupTiling, plan_tiling

if TYPE_CHECKING:
    from ..pipelines import PlannedFunction


def _match(root: ir.Value, name: str, op_id: int) -> ir.Value:
    from iree.compiler.dialects.transform import AnyOpType, structured

    i64 = ir.IntegerType.get_signless(64)
    return structured.MatchOp(AnyOpType.get(), root, ops=[name],
                              op_attrs={ID_ATTR: ir.IntegerAttr.get(i64, op_id)}).result


def _tile_and_fuse_group(root: ir.Value, t: GroupTiling, first_id: int, names: Sequence[str],
                         locs: Sequence[ir.Location]) -> None:
    """One group: match the sink, tile it into an scf.forall, fuse the producers into the loop.

    Each transform op carries the location of the payload op it handles, so an interpreter failure
    is reported at the user's op. `fuse_into_containing_op` consumes the producer handle, so every
    producer is matched once, just before it is fused."""
    from iree.compiler.dialects.transform import structured

    with locs[t.sink]:
        sink = _match(root, names[t.sink], first_id + t.sink)
        loop = structured.TileUsingForallOp(sink, tile_sizes=list(t.tile_sizes)).forall_op
    for p in t.fused:
        with locs[p]:
            producer = _match(root, names[p], first_id + p)
            loop = structured.FuseIntoContainingOp(producer, loop).new_containing_op


def _cleanup(root: ir.Value) -> None:
    """Canonicalize (folds the loop's index arithmetic, drops the dead untiled originals) and CSE."""
    from iree.compiler.dialects import transform
    from iree.compiler.dialects.transform import structured

    funcs = structured.MatchOp.match_op_names(root, ["func.func"]).result
    patterns = transform.ApplyPatternsOp(funcs)
    with ir.InsertionPoint(patterns.patterns):
        transform.ApplyCanonicalizationPatternsOp()
    transform.ApplyCommonSubexpressionEliminationOp(funcs)


def build_script(planned: Sequence[PlannedFunction], tilings: Sequence[Sequence[GroupTiling]], context: ir.Context) -> ir.Module:
    """A transform module whose `@__transform_main` tiles and fuses every group of `planned`
    (list of pipelines.PlannedFunction, in module order) as `tilings` says."""
    from iree.compiler.dialects import transform

    with context, ir.Location.unknown():
        script = ir.Module.create()
        script.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        with ir.InsertionPoint(script.body):
            seq = transform.NamedSequenceOp(ENTRY, [transform.AnyOpType.get()], [],
                                            arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
        with ir.InsertionPoint(seq.body):
            first = 0
            for pf, groups in zip(planned, tilings):
                names = [op.name for op in pf.graph.ops]
                locs = [op.location for op in pf.ops]
                for t in groups:
                    if t.tiled:
                        _tile_and_fuse_group(seq.bodyTarget, t, first, names, locs)
                first += len(pf.ops)
            _cleanup(seq.bodyTarget)
            transform.YieldOp([])
    return script


def plan_tilings(planned: Sequence[PlannedFunction], target: str) -> list[list[GroupTiling]]:
    """Per function, the legality-checked tile-and-fuse decision of each group."""
    from ..cost import get_target_desc

    desc = get_target_desc(target)
    if any(p.plan.strategy == "iree" for p in planned):
        raise InputError("tile-and-fuse needs one of our planners (--fusion=cost, greedy or none), "
                         "not --fusion=iree (it plans no groups)")
    return [plan_tiling(p.graph, p.plan, desc) for p in planned]


def script_text(planned: Sequence[PlannedFunction], tilings: Sequence[Sequence[GroupTiling]], script: ir.Module) -> str:
    """The script as text, headed by one comment line per group saying what it does and why."""
    lines = []
    for pf, groups in zip(planned, tilings):
        for t in groups:
            g = pf.graph
            what = (f"tile {describe(g.ops[t.sink])} by {list(t.tile_sizes)}" if t.tiled
                    else f"not tiled ({t.reason})")
            fused = f", fuse ops {', '.join(map(str, t.fused))}" if t.tiled and t.fused else ""
            left = f", left outside: ops {', '.join(map(str, t.left_out))}" if t.left_out else ""
            why = f" [{t.reason}]" if t.tiled else ""
            lines.append(f"// @{g.function} group {t.group}: {what}{fused}{left}{why}")
    return "\n".join(lines) + "\n" + str(script)


def tile_and_fuse(module: ir.Module, planned: Sequence[PlannedFunction], target: str, source_name: str) -> list[list[GroupTiling]]:
    """Tile and fuse every planned group of `module` in place; returns the decisions applied."""
    tilings = plan_tilings(planned, target)
    script = build_script(planned, tilings, module.context)
    apply_script(module, script.operation, source_name=source_name, script_name="<generated script>",
                 expensive_checks=False)
    return tilings
