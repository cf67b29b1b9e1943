"""Compile with fallback: a group IREE cannot compile is left to IREE's own fusion, and we say so.

IREE reports a codegen failure at the failing dispatch's location, which carries the region's
`fusion_group_N` stamp; that group's region is unwrapped and the module compiled again. A failure
that names no group is re-raised: the plan is not at fault, or we cannot tell which part is. When
IREE's own formation of a given-back group's ops then fails at one of those ops, the group is split
into one region per op (`SPLIT`), so IREE cannot form that dispatch again, before anything coarser; an
op the plan itself left to IREE (handed back: a padded producer) gets a region of its own the same way
(`OWN`).
A failing group holding an attention op with our tile sizes (rewrites/attention.py) first loses those
tiles and is compiled with IREE's own (`_tuned_attention`), before it is unwrapped.

Codegen strategies (`--codegen-strategies`) come first: if IREE cannot compile the module with them
(in 3.13 a strategy fails on a dispatch whose shape its fixed tile sizes do not divide), the module
is compiled without them, as if the option were off, and the caller says why.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..analysis.classify import ATTENTION_OP
from ..errors import CompileError, InputError
from ..ir import Session, bytecode, functions, ir
from ..transforms.dispatch_regions import (GROUP_LOC_PREFIX, group_location, regions_holding_loc,
                                           regions_of_group, regions_where, unwrap_region, wrap_group)
from ..testhooks import FAULTS
from .compile import Artifact
from .compile import compile_module_isolated as compile_module  # an IREE crash is an error, not our death
from .faults import raise_injected_fault

MAX_FALLBACKS = 16
BISECT_MAX_COMPILES = 10  # compiles spent finding the group behind a failure IREE names no location for
_GROUP = re.compile(re.escape(GROUP_LOC_PREFIX) + r"(\d+)")
_FIRST_LOC = re.compile(r'loc\((?:fused\[)?(?:callsite\()?("[^"]*"(?::\d+:\d+)?)')  # fused[...]: IREE merged ops
_PLAIN_LOC = re.compile(r":(\d+):(\d+)$")


@dataclass(frozen=True)
class Fallback:
    """One group that IREE rejected: it was left to IREE's dispatch formation instead. `group` None: a
    failure no group could be blamed for, answered by `action` on the whole module."""

    group: int | None
    error: str
    action: str = ""
    unwrapped_all: bool = False  # every group of the module was handed back

    def __str__(self) -> str:
        if self.group is None:
            return f"IREE failed at a location no group holds ({self.error}); {self.action}"
        return f"group {self.group} failed to compile in IREE ({self.error}); {self.action or LEFT}"


LEFT = "left to IREE's own fusion"
SPLIT = "IREE's own fusion of its ops failed too: each op compiled as a dispatch of its own"
UNTUNED = "compiled with IREE's own tile sizes for its attention op instead of ours"
OWN = "the plan had left {ops} to IREE's own fusion, which failed on it: compiled as a dispatch of our own"
BISECTED = "IREE named no location; the plan compiled without this group (found by halving it): " + LEFT


def _tuned_attention(module: ir.Module, err: CompileError, regions: list[ir.Operation]) -> list[ir.Operation]:
    """Attention ops carrying our tile sizes (rewrites/attention.py) in the failing regions, or, when no
    region is to blame, at the error's location: IREE's own tiles for the op always compile (its limit on
    vector sizes depends on the CPU, 2026-12-03), so they are dropped before the group is given up."""
    m = _FIRST_LOC.search(f"{err.where or ''} {err.message}")
    where = m.group(1) if m is not None else None
    found: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        if o.name == ATTENTION_OP and "compilation_info" in o.attributes and \
                (regions or (where is not None and where in str(o.location))):
            found.append(o)
        return ir.WalkResult.ADVANCE

    for root in regions or [module.operation]:
        root.walk(visit)
    return found


def failing_group(err: CompileError) -> int | None:
    m = _GROUP.search(f"{err.where or ''} {err.message}")
    return int(m.group(1)) if m else None


def failing_regions(module: ir.Module, err: CompileError) -> tuple[str, list[ir.Operation]]:
    """The regions to give back to IREE: by the group stamp in the error, else by the op location."""
    gid = failing_group(err)
    if gid is not None:
        return f"group {gid}", regions_of_group(module, gid)
    texts, named = _op_loc_texts(err)
    found = {r: None for t in texts for r in regions_holding_loc(module, t)}
    return (f"the group holding {named}", list(found)) if texts else ("", [])


def _op_loc_texts(err: CompileError) -> tuple[list[str], str]:
    """Texts of an op location the error names, to find in `str(op.location)`, and how to name it: the
    error's first `loc(...)`, else its own `file:line:col` (IREE's verifier and codegen errors often name
    an op so, the parser's "-" already replaced by the source name), matched at that line and column."""
    m = _FIRST_LOC.search(f"{err.where or ''} {err.message}")
    if m is not None:
        return [m.group(1)], m.group(1)
    m = _PLAIN_LOC.search(err.where or "")
    if m is None:
        return [], ""
    return [f'":{m[1]}:{m[2]}{end}' for end in ')], '], f"the op at {err.where}"


def _given_back(regions: list[ir.Operation]) -> dict[int, list[ir.Operation]]:
    """Unwrap `regions`; the ops each stamped group gave back, by group id."""
    out: dict[int, list[ir.Operation]] = {}
    for r in regions:
        gid = _region_group(r)
        ops = [o.operation for o in r.regions[0].blocks[0].operations][:-1]  # not the flow.return
        unwrap_region(r)
        if gid is not None:
            out.setdefault(gid, []).extend(ops)
    return out


def _split_given_back(err: CompileError, given: dict[int, list[ir.Operation]], split: set[int]) -> list[int]:
    """Groups given back earlier (not split yet) holding the op IREE's failure names: each of their
    compute ops is wrapped in a region of its own, which IREE's formation leaves as it is (the
    ConvNeXt-V2 case of legality rule `packed-epilogues`: the group's matmul, GELU and square unwrapped,
    IREE fused them into the same failing dispatch). Fills and reshapes stay loose for IREE to clone."""
    texts, _ = _op_loc_texts(err)
    hit = [g for g, ops in given.items()
           if g not in split and any(t in str(o.location) for o in ops for t in texts)]
    for g in hit:
        split.add(g)
        for o in given[g]:
            if o.name.startswith("linalg.") and o.name != "linalg.fill":
                wrap_group([o], group_location(g, o.location))
    return hit


def _wrap_loose_ops(module: ir.Module, err: CompileError, wrapped: set[str]) -> list[str]:
    """Ops outside every region (left to IREE by the plan: a padded producer, a constant group) at the
    location IREE's own formation failed at: each gets a region of its own, which IREE leaves as it is
    (fuzz seed 20484: IREE folded a max pool's unit output dim and then mis-inferred its window extent,
    failing `--fusion=iree` too; the pool as a region of ours compiles). Not twice for one location, nor
    for ops of groups given back (`wrapped` holds their locations: the split step handles them). Fills stay
    loose for IREE to clone; returns the names of the ops wrapped."""
    texts, _ = _op_loc_texts(err)
    if not texts:
        return []
    hits = [o for f in functions(module) for o in (x.operation for x in f.regions[0].blocks[0].operations)
            if o.name.startswith("linalg.") and o.name != "linalg.fill"
            and any(t in str(o.location) and str(o.location) not in wrapped for t in texts)]
    done = []
    for o in hits:
        wrapped.add(str(o.location))
        if wrap_group([o], o.location) is not None:
            done.append(o.name)
    return done


def _region_group(region: ir.Operation) -> int | None:
    """The group id a region's `fusion_group_N` location stamp names, if any."""
    m = _GROUP.search(str(region.location))
    return int(m.group(1)) if m is not None else None


def _group_ids(regions: list[ir.Operation]) -> list[int]:
    return sorted({g for r in regions if (g := _region_group(r)) is not None})


def _fails_with_only(module: ir.Module, keep: set[int], session: Session | None, target: str,
                     extra_flags: tuple[str, ...], source_name: str) -> bool:
    """Whether a copy of `module` with only the regions of the groups `keep` (the others unwrapped) fails."""
    copy = ir.Module.parse(bytecode(module), module.context)
    for r in regions_where(copy, lambda r: _region_group(r) not in keep):
        unwrap_region(r)
    try:
        if FAULTS:
            raise_injected_fault(copy, source_name)
        compile_module(copy, session, target, extra_flags, None, count_dispatches=False, source_name=source_name)
    except CompileError:
        return True
    return False


def _bisect_culprit(module: ir.Module, session: Session | None, target: str, extra_flags: tuple[str, ...],
                    source_name: str) -> int | None:
    """The group whose region alone reproduces a failure IREE gave no location for, found by compiling
    copies that keep half of the remaining candidates' regions (at most BISECT_MAX_COMPILES compiles);
    None with fewer than two groups, when the copy without any region fails too (checked first: IREE's
    own formation is at fault, as with a data-tiled `map_store`), or when no single group reproduces it. Why: such a failure (IREE's
    SPIR-V lowering: "failed to legalize operation 'arith.constant'" at loc(unknown), ConvNeXt-V2's
    channels-first LayerNorm group on Vulkan) otherwise hands every group back to IREE."""
    cand = _group_ids(regions_where(module, lambda r: True))
    if len(cand) < 2 or _fails_with_only(module, set(), session, target, extra_flags, source_name):
        return None  # failing with no region of ours: no group is at fault (each "culprit" would be wrong)
    budget = BISECT_MAX_COMPILES - 1
    while len(cand) > 1 and budget > 1:
        half = cand[:len(cand) // 2]
        budget -= 1
        cand = half if _fails_with_only(module, set(half), session, target, extra_flags, source_name) \
            else cand[len(half):]
    if len(cand) != 1:
        return None
    return cand[0] if _fails_with_only(module, {cand[0]}, session, target, extra_flags, source_name) else None


def _unwrap_all(module: ir.Module) -> int:
    """Give every region of the module back to IREE's formation; how many there were."""
    everything = regions_where(module, lambda r: True)
    for r in everything:
        unwrap_region(r)
    return len(everything)


def _drop_tile_configs(module: ir.Module) -> int:
    """Remove every `compilation_info` (ours: rewrites' and the cost mode's tile sizes); how many."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if "compilation_info" in op.attributes:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in found:
        del op.attributes["compilation_info"]
    return len(found)


def compile_with_fallback(module: ir.Module, session: Session | None, target: str, *,
                          extra_flags: tuple[str, ...] = (), params_path: Path | None = None,
                          source_name: str = "<input>", levers: tuple[str, ...] = (), own_regions: bool = True
                          ) -> tuple[Artifact, tuple[Fallback, ...]]:
    """compile_module, unwrapping each group IREE rejects (at most MAX_FALLBACKS), then compiling again.

    A failure no group can be blamed for (IREE reports it at a location of its own: torchvision's
    ConvNeXt failed in a data-tiled `map_store`, "write affecting operations on global resources are
    restricted to workgroup distributed contexts") is answered in steps, each said in a Fallback: the
    one group that reproduces it alone is given back (`_bisect_culprit`), else every group is left to
    IREE's own fusion, then the module-level `levers` among `extra_flags` (backends/levers.py: data
    tiling, O3) are dropped, then every op's `compilation_info` (tile sizes a rewrite or the cost mode
    attached: a CPU config on a GPU target failed its pipeline). In that order because data tiling is worth more
    than the plan: torchvision's ViT-B/16, whose first LayerNorm group and then IREE's formation of its
    ops failed ("exceeded stack allocation limit"), ran 1.2 s without data tiling against 0.22 s in IREE's
    own formation with it. Before those, an op the plan left to IREE at the failure's location gets a region
    of its own (`own_regions`; off for `--fusion=iree`, which stays IREE's own formation). Only a failure
    after all of them is raised. After MAX_FALLBACKS groups given back one
    at a time, the rest of the plan goes back at once (18 GridSamples sharing one grid: IREE merged their
    common ops across groups, and each retry failed on the next pair)."""
    if not functions(module):  # IREE would fail to write an empty module ("failed to generate bytecode")
        raise InputError("nothing to compile: the input defines no function", source_name)
    fallbacks: list[Fallback] = []
    given: dict[int, list[ir.Operation]] = {}  # ops of each group given back, to split if IREE fails on them
    split: set[int] = set()
    wrapped: set[str] = set()  # locations of loose ops given a region of their own
    while True:
        try:
            if FAULTS:  # test-only injected faults (fusion_opt.testhooks); empty unless a test sets them
                raise_injected_fault(module, source_name)
            art = compile_module(module, session, target, extra_flags, params_path, source_name=source_name)
            return art, tuple(fallbacks)
        except CompileError as err:
            what, regions = failing_regions(module, err)
            tuned = _tuned_attention(module, err, regions) if len(fallbacks) < MAX_FALLBACKS else []
            if tuned:
                for o in tuned:
                    del o.attributes["compilation_info"]
                gids = _group_ids(regions)
                msg = " ".join(err.message.split())[:200]
                fallbacks.extend(Fallback(g, msg, UNTUNED) for g in gids or [None])
                continue
            if not regions and len(fallbacks) < MAX_FALLBACKS:
                msg = " ".join(f"{err.where}: {err.message}".split())[:200]
                parted = _split_given_back(err, given, split)
                if parted:
                    fallbacks.extend(Fallback(g, msg, SPLIT) for g in parted)
                    continue
                wrapped |= {str(o.location) for ops in given.values() for o in ops}
                own = _wrap_loose_ops(module, err, wrapped) if own_regions else []
                if own:
                    fallbacks.append(Fallback(None, msg, OWN.format(ops=", ".join(own))))
                    continue
                culprit = _bisect_culprit(module, session, target, extra_flags, source_name)
                if culprit is not None:
                    given.update(_given_back(regions_of_group(module, culprit)))
                    fallbacks.append(Fallback(culprit, msg, BISECTED))
                    continue
                given_all = _unwrap_all(module)
                if given_all:
                    fallbacks.append(Fallback(None, msg, f"all {given_all} groups left to IREE's own fusion", True))
                    continue
                dropped = tuple(f for f in extra_flags if f in levers)
                if dropped:
                    extra_flags = tuple(f for f in extra_flags if f not in levers)
                    fallbacks.append(Fallback(None, msg, f"compiled without {' '.join(dropped)}"))
                    continue
                untiled = _drop_tile_configs(module)
                if untiled:
                    fallbacks.append(Fallback(None, msg, f"compiled without our tile sizes on {untiled} ops", True))
                    continue
            if regions and len(fallbacks) >= MAX_FALLBACKS and not any(f.unwrapped_all for f in fallbacks):
                # one group after another did not converge: the whole plan goes back before we give up
                msg = " ".join(err.message.split())[:200]
                fallbacks.append(Fallback(None, msg, f"after {len(fallbacks)} fallbacks, all {_unwrap_all(module)} "
                                          "groups left to IREE's own fusion", True))
                continue
            if not regions or len(fallbacks) >= MAX_FALLBACKS:
                raise
            back = _given_back(regions)
            given.update(back)  # (a split group's ops again, now one per region: it is not split twice)
            msg = " ".join(err.message.split())
            fallbacks.extend(Fallback(g, msg[:200]) for g in sorted(back))


def compile_with_strategies(module: ir.Module, session: Session | None, target: str, *,
                            extra_flags: tuple[str, ...] = (), strategy_flags: tuple[str, ...] = (),
                            params_path: Path | None = None, source_name: str = "<input>",
                            levers: tuple[str, ...] = (), own_regions: bool = True
                            ) -> tuple[Artifact, tuple[Fallback, ...], str | None]:
    """compile_with_fallback, first with `strategy_flags` (backends: transforms.strategies.codegen_flags).
    Returns (artifact, group fallbacks, why the strategies were dropped or None). A strategy failure
    does not unwrap groups: the plan is not at fault."""
    if strategy_flags:
        try:
            art = compile_module(module, session, target, (*extra_flags, *strategy_flags), params_path,
                                 source_name=source_name)
            return art, (), None
        except CompileError as err:
            dropped = f"{err.where}: {' '.join(err.message.split())}"[:300]
        art, fallbacks = compile_with_fallback(module, session, target, extra_flags=extra_flags,
                                               params_path=params_path, source_name=source_name, levers=levers,
                                               own_regions=own_regions)
        return art, fallbacks, dropped
    art, fallbacks = compile_with_fallback(module, session, target, extra_flags=extra_flags,
                                           params_path=params_path, source_name=source_name, levers=levers,
                                           own_regions=own_regions)
    return art, fallbacks, None
