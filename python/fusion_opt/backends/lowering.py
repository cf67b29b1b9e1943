"""Tile sizes to IREE: a `compilation_info` on each dispatch root, and a check that IREE applied it.

Why: IREE picks a dispatch's tile sizes itself (KernelDispatch.cpp); a `compilation_info` attribute
(lowering config + pipeline) on the root op of a `flow.dispatch.region` overrides that choice on
llvm-cpu, and fused consumers follow it (shared/ARCHITECTURE.md). Several paths drop such a config
without a word (the op is fused into another, the root IREE picks is a different op), so
`check_applied` compiles to `executable-configurations` and compares what IREE will use with what
was attached: a silently dropped config is an error there.

Scope: contraction roots (linalg.matmul, batch_matmul and contraction generics): llvm-cpu with
`DoubleTilingExpert`; cuda (`TileAndFuse`) and vulkan (`MatmulPromoteVectorize`) compile-only here,
when their fixed thread layouts divide the loops. 2-D convolution roots (NCHW, NHWC) on llvm-cpu
with `ConvTileAndDecomposeExpert`, whose register tiles must decompose to 1-D convolutions (one
output row, kh = kw = 1). Elementwise and reduction roots keep IREE's choice: a compilation_info on
one op of a reduction dispatch is applied to that op only, the dispatch's other ops get no tile
sizes and IREE 3.13 refuses the result ("One or more operations with large vector sizes (16384
bytes) were found", softmax 256x1024); and IREE's elementwise fusion inside a region may replace the
op carrying the attribute.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis.opdesc import OpDesc, OpKind
from ..cost.tiling import divisor_at_most, loops_collapse
from ..errors import CompileError
from ..ir import Session, ir

if TYPE_CHECKING:
    from ..cost.targets import TargetDesc
    from ..pipelines import PlannedFunction

TILE_SIZE_MODES = ("iree", "cost")


@dataclass(frozen=True)
class TileConfig:
    """The tile sizes of one dispatch root, per loop of the root op (0 = not tiled at that level)."""

    function: str
    group: int
    op: int
    loc: str                              # the root op's location, as in the plan
    distribution: tuple[int, ...]         # workgroup tile
    vector_parallel: tuple[int, ...]      # register (CPU) / thread (GPU) tile of the parallel loops
    vector_reduction: tuple[int, ...]     # register tile (CPU) / K step (GPU) of the reduction loops
    pipeline: str = "DoubleTilingExpert"
    backend: str = "cpu"                  # cpu | cuda | spirv: which attribute dialect says it
    workgroup_size: tuple[int, ...] = ()  # GPU threads per workgroup (x, y, z)
    reason: str = ""

    def lowering_config(self) -> str:
        if self.backend == "cuda":
            return (f"#iree_gpu.lowering_config<{{reduction = {_ints(self.vector_reduction)}, "
                    f"thread = {_ints(self.vector_parallel)}, workgroup = {_ints(self.distribution)}}}>")
        if self.backend == "spirv":
            tiles = [d or r for d, r in zip(self.distribution, self.vector_reduction)]
            return f"#iree_codegen.lowering_config<tile_sizes = [{_ints(tiles)}]>"
        return (f"#iree_cpu.lowering_config<distribution = {_ints(self.distribution)}, "
                f"vector_common_parallel = {_ints(self.vector_parallel)}, "
                f"vector_reduction = {_ints(self.vector_reduction)}>")

    def translation_info(self) -> str:
        if self.backend == "cuda":
            return (f"#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<{self.pipeline}> "
                    f"workgroup_size = {_ints(self.workgroup_size)} subgroup_size = 32>")
        if self.backend == "spirv":
            return (f"#iree_codegen.translation_info<pipeline = #iree_gpu.spirv_pipeline<{self.pipeline}> "
                    f"workgroup_size = {_ints(self.workgroup_size)}, {{pipeline_depth = 1 : i64, store_stage = 1 : i64}}>")
        return f"#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<{self.pipeline}>>"

    def compilation_info(self) -> str:
        return (f"#iree_codegen.compilation_info<lowering_config = {self.lowering_config()}, "
                f"translation_info = {self.translation_info()}>")

    def __str__(self) -> str:
        inner = "vector" if self.backend == "cpu" else "thread"
        wg = f", workgroup size {list(self.workgroup_size)}" if self.workgroup_size else ""
        return (f"@{self.function} group {self.group} op {self.op} ({self.loc}): distribution "
                f"{list(self.distribution)}, {inner} {list(self.vector_parallel)} / {list(self.vector_reduction)}"
                f"{wg} ({self.pipeline})")


def _ints(xs: Sequence[int]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _mnk(op: OpDesc) -> tuple[list[int], int, int, list[int]] | None:
    """(parallel loops, M loop, N loop, reduction loops) of a contraction, or None. None too when a
    loop has range 1: IREE folds unit loops away (FoldUnitExtentDims) before it configures dispatches,
    replacing the op, and the compilation_info is dropped with it (seen on batch-1 batch matmuls in
    a BERT layer); likewise when two loops can be collapsed into one (see `_collapsible`)."""
    if op.kind is not OpKind.CONTRACTION or 1 in op.loop_ranges or _collapsible(op):
        return None
    par = [d for d, it in enumerate(op.iterator_types) if it == "parallel"]
    red = [d for d, it in enumerate(op.iterator_types) if it == "reduction"]
    return (par, par[-2], par[-1], red) if len(par) >= 2 and red else None


def _collapsible(op: OpDesc) -> bool:
    """Whether two adjacent parallel loops collapse into one (`loops_collapse`): IREE's dispatch creation
    then replaces the op (and drops its compilation_info): the 1x1 convolutions as (f, h, w, c)
    generics of SqueezeNet and ResNet-50."""
    its = op.iterator_types
    return any(its[i] == its[i + 1] == "parallel" and loops_collapse(op, (i, i + 1)) for i in range(len(its) - 1))


def iree_bmm_compilation_info(m: int, n: int) -> str:
    """IREE 3.13's own llvm-cpu choice for a [B, M, K] x [B, K, N] f32 `linalg.batch_matmul` on AVX2 (read
    off `--compile-to=executable-configurations` for the Winograd matmuls of ResNet-50, VGG-19,
    SqueezeNet and Inception shapes, and ShuffleNet's grouped 1x1 convs), as a `compilation_info`:
    workgroup tile M (itself up to 64, else its largest divisor in [32, 64], else 64) x N (itself up to
    64, else its largest divisor <= 64 that is a multiple of 8, else 64), register tile 8 x 8 (M rows
    capped by the tile), K by 8, loop peeling.
    A hand-picked simpler tile ([1, 50, 64] workgroups, K by 1, no cache level) ran 7x slower.
    Why attach what IREE would choose anyway: an op with a compilation_info is skipped by IREE's
    SetEncoding, so the module's data tiling (on for its plain matmuls) leaves it alone; packed, the
    Winograd matmul 64x100x64x64 ran 1.3 ms instead of 0.48, ShuffleNet's 4x34x784x34 0.17 instead
    of 0.12."""
    def tile(size: int, low: int, multiple: int) -> int:
        if size <= 64:
            return size
        return next((d for d in range(64, low - 1, -1) if size % d == 0 and d % multiple == 0), 64)
    tm, tn = tile(m, 32, 1), tile(n, 8, 8)
    par = f"[1, {tm}, {tn}, 0]"
    return ("#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<"
            f"cache_parallel = {par}, distribution = {par}, vector_common_parallel = [1, {min(8, tm)}, "
            f"{min(8, tn)}, 0], vector_reduction = [0, 0, 0, 8]>, translation_info = "
            "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, "
            "{enable_loop_peeling}>>")


def window_copy_compilation_info(distribution: Sequence[int], lanes: int) -> str:
    """A `compilation_info` for an im2col window copy (rewrites/im2col.py): workgroups of `distribution`
    (whole output rows), one vector of `lanes` along the row, the rest peeled. Why: IREE 3.13 tiles
    such a copy by small divisors of its output row when that row is longer than 64: ZFNet-512's
    [3, 7, 7, 109, 109] copy got workgroups [3, 7, 7, 1, 1] and scalar code (6.4 ms with its packing
    for the data-tiled matmul), SqueezeNet's [3, 3, 3, 111, 111] [3, 3, 3, 3, 3] with 4-lane vectors
    (395 us); whole rows ran 0.85 ms and 181 us, a [3, 7, 7, 112, 112] copy 530 against 680 us
    (measured 2026-12-01, this 2-core AVX-512 VM; rows of 55 and 13 ran the same or slower, so shorter
    rows keep IREE's choice)."""
    vec = [1] * (len(distribution) - 1) + [lanes]
    return ("#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<"
            f"distribution = {_ints(distribution)}, vector_common_parallel = {_ints(vec)}>, translation_info = "
            "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, "
            "{enable_loop_peeling}>>")


# IREE 3.13's llvm-cpu vector tiles for `iree_linalg_ext.attention` (KernelDispatch.cpp, setRootConfig
# for AttentionOp) are one query row by 8 keys at a time, [1, 1, 16, 0, 0] + K2 by 8: the suite's 4 x 128
# x 128 x 64 attention ran 1.4-2.1 ms, 7-11x its split form. With a few rows and 32 keys per step it ran
# with the split form or faster (measured 2026-12-01, interleaved, this 2-core AVX-512 VM; time relative
# to QK^T + softmax + PV as IREE forms them): 4x128x128x64 0.88, 12x128x128x64 1.01, 4x512x512x64 0.97,
# 8x197x197x64 0.16 (the split form's 197-wide rows are masked). 8 rows x 8 keys: 1.07, 1.32, 2.42, 0.31.
ATTENTION_KEYS = 32            # K2 per vector step
# IREE refuses a dispatch with a vector of 512 native vectors or more (LLVMCPUVerifyVectorSizeLegality,
# `--iree-llvmcpu-max-allowed-number-of-native-vectors`): 32 KB with AVX-512, 16 KB with AVX2 (an AVX2
# EPYC refused the 2 x 64 x 32 QK^T tile, 16 KB, that AVX-512 hosts compile: 2026-12-03, a Perceiver's
# cross-attention, fifth unseen-model batch).
MAX_NATIVE_VECTORS = 512


def native_vector_bytes(target: TargetDesc) -> int:
    """The native vector IREE's llvm-cpu codegen sizes its checks by: the real CPU's for `host` (compiled
    with `--iree-llvmcpu-target-cpu=host`, whatever description the planner was given), else the
    description's."""
    if target.name == "host":
        from ..cost.host import cpu_flags, vector_bits

        flags = cpu_flags()
        if flags:
            return vector_bits(flags) // 8
    return max(16, target.vector_bits // 8)


def cpu_attention_compilation_info(ranges: Sequence[int], vector_bytes: int = 64) -> str:
    """A `compilation_info` for an f32 attention over loops (batch?, M, N, K1, K2) on llvm-cpu: workgroups
    of up to 64 rows x 64 columns per batch, N up to 64, K2 by up to `ATTENTION_KEYS` and as many rows (at
    most 8) as keep the QK^T and PV vectors (rows x max(K1, N) x keys) under IREE's limit for a native
    vector of `vector_bytes` (`native_vector_bytes`)."""
    *batch, m, n, k1, k2 = ranges
    limit = MAX_NATIVE_VECTORS * vector_bytes
    width = max(k1, min(n, 64))
    keys = min(k2, ATTENTION_KEYS)
    while keys > 1 and width * keys * 4 >= limit:
        keys //= 2
    rows = 1
    while rows < 8 and rows * 2 <= m and rows * 2 * width * keys * 4 < limit:
        rows *= 2
    ones = [1] * len(batch)
    dist = _ints([*ones, min(m, 64), min(n, 64), 0, 0])
    vec = _ints([*ones, rows, min(n, 64), 0, 0])
    red = _ints([0] * len(batch) + [0, 0, 0, keys])
    return ("#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<"
            f"distribution = {dist}, vector_common_parallel = {vec}, vector_reduction = {red}>, "
            "translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<LinalgExtTileAndVectorize>>>")


def contraction_config(function: str, group: int, op: OpDesc, target: TargetDesc) -> TileConfig | None:
    """CPU (DoubleTilingExpert). Workgroup tile: `matmul_tile` on the two innermost parallel loops
    (M, N; divisors of their ranges), 1 on batch loops, split until there is a workgroup per core.
    Register tile: 8 rows x one vector of f32 lanes (8 accumulators of `target.registers` stay in
    registers), K by 1."""
    loops = _mnk(op)
    if loops is None or target.kind != "cpu":
        return None
    par, m, n, _ = loops
    ranges = op.loop_ranges
    dist = [0] * len(ranges)
    for d in par:
        dist[d] = 1
    dist[m] = divisor_at_most(ranges[m], target.matmul_tile)
    dist[n] = divisor_at_most(ranges[n], target.matmul_tile)
    for d in (m, n):  # a workgroup per core where the space allows
        while _groups(ranges, dist) < target.cores and dist[d] > 1:
            dist[d] = divisor_at_most(ranges[d], dist[d] - 1)
    lanes = target.lanes_f32
    vec = [0] * len(ranges)
    for d in par:
        vec[d] = 1
    vec[m] = divisor_at_most(dist[m], min(8, max(1, target.registers // 2)))
    vec[n] = divisor_at_most(dist[n], lanes)
    red = [1 if it == "reduction" else 0 for it in op.iterator_types]
    return TileConfig(function, group, op.index, op.loc, tuple(dist), tuple(vec), tuple(red),
                      reason=f"matmul_tile {target.matmul_tile}, {target.cores} cores, {lanes} f32 lanes")


# Loop positions of the 2-D convolutions IREE's ConvTileAndDecomposeExpert decomposes to 1-D ones:
# batch, output channels, output rows and columns (parallel), input channels and window (reduction).
_CONV_LOOPS = {
    "linalg.conv_2d_nchw_fchw": {"n": 0, "f": 1, "oh": 2, "ow": 3, "c": 4, "kh": 5, "kw": 6},
    "linalg.conv_2d_nhwc_hwcf": {"n": 0, "oh": 1, "ow": 2, "f": 3, "kh": 4, "kw": 5, "c": 6},
}


def conv_config(function: str, group: int, op: OpDesc, target: TargetDesc) -> TileConfig | None:
    """CPU (ConvTileAndDecomposeExpert), for NCHW and NHWC 2-D convolutions. The pipeline decomposes
    each register tile to a 1-D convolution, so register tiles take one output row and one window
    row and column (kh = kw = 1); the contiguous output loop (columns in NCHW, channels in NHWC) gets
    a vector of f32 lanes, the other (channels / columns) up to 8 (accumulators in registers, as for a
    matmul), input channels by 8. Workgroup tile: whole rows, up to `matmul_tile` channels, as many
    rows as keep `matmul_tile`^2 outputs, split until there is a workgroup per core."""
    loops = _CONV_LOOPS.get(op.name)
    if loops is None or target.kind != "cpu" or op.kind is not OpKind.CONVOLUTION or len(op.loop_ranges) != 7:
        return None
    r = {k: op.loop_ranges[d] for k, d in loops.items()}
    lanes, rows = target.lanes_f32, min(8, max(1, target.registers // 2))
    nchw = loops["f"] == 1
    vec_f = divisor_at_most(r["f"], rows if nchw else lanes)
    vec_ow = divisor_at_most(r["ow"], lanes if nchw else rows)
    vec_c = divisor_at_most(r["c"], 8)
    wg_f = divisor_at_most(r["f"], target.matmul_tile, vec_f)
    if wg_f is None:
        return None
    wg_oh = divisor_at_most(r["oh"], max(1, target.matmul_tile ** 2 // (wg_f * r["ow"])))
    dist = {"n": 0 if r["n"] == 1 else 1, "f": wg_f, "oh": wg_oh, "ow": r["ow"], "c": 0, "kh": 0, "kw": 0}
    ranges = [r[k] for k in loops]
    for key, step in (("oh", 1), ("f", vec_f)):  # a workgroup per core where the space allows
        while _groups(ranges, [dist[k] for k in loops]) < target.cores and dist[key] > step:
            dist[key] = divisor_at_most(r[key], dist[key] - 1, step)
    vec = {"n": 1, "f": vec_f, "oh": 1, "ow": vec_ow, "c": 0, "kh": 0, "kw": 0}
    red = {"n": 0, "f": 0, "oh": 0, "ow": 0, "c": vec_c, "kh": 1, "kw": 1}
    order = sorted(loops, key=loops.get)
    return TileConfig(function, group, op.index, op.loc, tuple(dist[k] for k in order),
                      tuple(vec[k] for k in order), tuple(red[k] for k in order), "ConvTileAndDecomposeExpert",
                      reason=f"matmul_tile {target.matmul_tile}, {target.cores} cores, {lanes} f32 lanes, "
                             f"{'NCHW' if nchw else 'NHWC'}: 1-D register tiles")


def gpu_contraction_config(function: str, group: int, op: OpDesc, target: TargetDesc,
                           backend: str) -> TileConfig | None:
    """GPU, compile-only here. cuda (TileAndFuse): each thread computes 1 x 4 outputs (one 128-bit
    vector), a workgroup 16 x 64 (128 threads, 4 warps), K by 16. spirv (MatmulPromoteVectorize): a
    32 x 32 workgroup tile of 8 x 32 threads, K by 16. Only when the tiles divide the loop ranges
    (otherwise IREE's choice is kept)."""
    loops = _mnk(op)
    if loops is None or target.kind != "gpu":
        return None
    par, m, n, red = loops
    ranges = op.loop_ranges
    vec_n = max(1, target.vector_bits // 32)
    caps = (16, 64, 16) if backend == "cuda" else (32, 32, 16)
    wm = divisor_at_most(ranges[m], caps[0])
    wn = divisor_at_most(ranges[n], caps[1], vec_n)
    k = divisor_at_most(ranges[red[-1]], caps[2], 4)
    if None in (wm, wn, k) or (backend == "spirv" and (wm, wn) != (32, 32)):
        return None
    dist, thread, kstep = [0] * len(ranges), [0] * len(ranges), [0] * len(ranges)
    for d in par:
        dist[d], thread[d] = 1, 1
    dist[m], dist[n], thread[n], kstep[red[-1]] = wm, wn, vec_n, k
    if backend == "cuda":
        size, pipeline = (wn // vec_n, wm, 1), "TileAndFuse"
    else:
        size, pipeline = (wn // vec_n, wm, 1), "MatmulPromoteVectorize"
        thread[m] = 1
    if size[0] * size[1] > target.max_workgroup_size:
        return None
    return TileConfig(function, group, op.index, op.loc, tuple(dist), tuple(thread), tuple(kstep), pipeline,
                      backend, size, reason=f"{vec_n}-wide vectors per thread, {size[0] * size[1]} threads")


def _groups(ranges: Sequence[int], dist: Sequence[int]) -> int:
    return math.prod(math.ceil(r / t) for r, t in zip(ranges, dist) if t)


def choose_configs(planned: Sequence[PlannedFunction], target_name: str) -> list[TileConfig]:
    """One TileConfig per group whose root we know how to configure (see the module docstring)."""
    from ..cost import get_target_desc

    from .targets import get_target

    desc = get_target_desc(target_name)
    driver = get_target(target_name).driver
    out = []
    for pf in planned:
        for g in pf.plan.groups:
            op = pf.graph.ops[g.root]
            if driver.startswith("local"):
                cfg = (contraction_config(pf.graph.function, g.id, op, desc)
                       or conv_config(pf.graph.function, g.id, op, desc))
            else:
                cfg = gpu_contraction_config(pf.graph.function, g.id, op, desc,
                                             "cuda" if driver == "cuda" else "spirv")
            if cfg is not None:
                out.append(cfg)
    return out


def attach_configs(planned: Sequence[PlannedFunction], configs: Sequence[TileConfig]) -> None:
    """Set `compilation_info` on each configured root op (call after the regions are written)."""
    by_key = {(p.graph.function, i): op for p in planned for i, op in enumerate(p.ops)}
    for c in configs:
        op = by_key[(c.function, c.op)]
        op.attributes["compilation_info"] = ir.Attribute.parse(c.compilation_info(), op.context)


def apply_tile_sizes(planned: Sequence[PlannedFunction], mode: str, target: str) -> list[TileConfig]:
    """`mode` "cost": choose and attach a config per configurable root; "iree": IREE's choice (none)."""
    if mode not in TILE_SIZE_MODES:
        raise ValueError(f"unknown tile-size mode '{mode}' (choose from {', '.join(TILE_SIZE_MODES)})")
    if mode == "iree":
        return []
    configs = choose_configs(planned, target)
    attach_configs(planned, configs)
    return configs


def executable_configurations(module: ir.Module, target: str, extra_flags: tuple[str, ...] = (),
                              source_name: str = "<input>") -> list[tuple[str, str, str]]:
    """(op location, lowering_config, translation_info) of every configured op IREE will compile,
    from a compile stopped at `executable-configurations` (the module is not modified)."""
    cs, m2 = _configured_copy(module, target, extra_flags, source_name)
    try:
        found: list[tuple[str, str, str]] = []
        translation: dict[str, str] = {}

        def visit(op: ir.Operation) -> ir.WalkResult:
            attrs = op.attributes
            if op.name == "func.func" and "translation_info" in attrs:
                translation["current"] = str(attrs["translation_info"])
            if "lowering_config" in attrs:
                found.append((str(op.location), str(attrs["lowering_config"]), translation.get("current", "")))
            return ir.WalkResult.ADVANCE

        m2.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        return found
    finally:
        cs.close()


def _configured_copy(module: ir.Module, target: str, extra_flags: tuple[str, ...],
                     source_name: str) -> tuple[Session, ir.Module]:
    """A private session holding `module` compiled to `executable-configurations` (in process; in
    `iree-compile` from the flow phase when a flag is process-global, see backends/compile.py)."""
    from . import _capi
    from .compile import _private_copy, _raise_if_failed, run_iree_compile, split_global_flags
    from .targets import get_target

    tgt = get_target(target)
    flags = (*tgt.flags, *extra_flags)
    session_flags, global_flags = split_global_flags(flags)
    cs, m2 = _private_copy(module, tgt, session_flags, source_name)
    try:
        with _capi.DiagnosticInvocation(cs) as inv:
            inv.import_module(m2.operation)
            inv.set_compile_to("flow" if global_flags else "executable-configurations")
            _raise_if_failed(inv, source_name, inv.execute())
        if global_flags:
            data = run_iree_compile(m2, flags, compile_from="flow", compile_to="executable-configurations",
                                    source_name=source_name)
            m2 = ir.Module.parse(data, cs.context)
    except BaseException:
        cs.close()
        raise
    return cs, m2


def dispatch_pipelines(module: ir.Module, target: str, extra_flags: tuple[str, ...] = (),
                       source_name: str = "<input>") -> list[tuple[str, str]]:
    """(dispatch function, translation_info) of every dispatch IREE will compile, in order: which
    pipeline (or transform-dialect codegen strategy) each one gets."""
    cs, m2 = _configured_copy(module, target, extra_flags, source_name)
    try:
        out: list[tuple[str, str]] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "func.func" and "translation_info" in op.attributes:
                out.append((ir.StringAttr(op.attributes["sym_name"]).value, str(op.attributes["translation_info"])))
            return ir.WalkResult.ADVANCE

        m2.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        return out
    finally:
        cs.close()


def check_applied(module: ir.Module, configs: Sequence[TileConfig], target: str, locs: dict[tuple[str, int], str],
                  extra_flags: tuple[str, ...] = ()) -> list[str]:
    """Problems with the attached configs: each must reach IREE's executable configuration unchanged,
    on an op at the root's location and with its pipeline. Returns [] when all were applied.
    `locs` maps (function, op index) to the root op's printed location (see `op_locations`)."""
    if not configs:
        return []
    found = executable_configurations(module, target, extra_flags)
    problems = []
    for c in configs:
        core = locs[(c.function, c.op)].removeprefix("loc(").removesuffix(")")
        # outlined into an executable, the op's location becomes `callsite(<its loc> at <function>)`
        here = [(lc, ti) for where, lc, ti in found
                if where == f"loc({core})" or where.startswith(f"loc(callsite({core} at ")]
        want = c.lowering_config()
        if not any(lc == want for lc, _ in here):
            got = ", ".join(lc for lc, _ in here) or "no configured op at that location"
            problems.append(f"{c}: dropped by IREE (it uses {got})")
        elif not any(f"<{c.pipeline}>" in ti for lc, ti in here if lc == want):
            problems.append(f"{c}: IREE compiles it with another pipeline")
    return problems


def op_locations(planned: Sequence[PlannedFunction]) -> dict[tuple[str, int], str]:
    return {(p.graph.function, i): str(op.location) for p in planned for i, op in enumerate(p.ops)}


def require_applied(module: ir.Module, planned: Sequence[PlannedFunction], configs: Sequence[TileConfig], target: str,
                    source_name: str = "<input>", extra_flags: tuple[str, ...] = ()) -> None:
    """`check_applied`, raising CompileError on the first dropped config."""
    problems = check_applied(module, configs, target, op_locations(planned), extra_flags)
    if problems:
        raise CompileError(f"tile sizes not applied: {problems[0]}"
                           + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""), source_name)
