"""IREE flags our `cost` mode turns on per module, and why: levers that are not per dispatch in IREE 3.13.

Data tiling (`--iree-opt-data-tiling`) packs each matmul's operands into the target's register-tile
layout (`mmt4d`) around the dispatch. Off by default in IREE; measured on this 2-core AVX2 VM: a
4-layer MLP 62.6 -> 23.2 ms (onnxruntime 22.9), ResNet-50 with its convs as im2col + matmul
(rewrites/im2col.py) ~800 -> 96 ms. It only changes contractions, so it is asked for when the plan
has one. It replaces IREE's matmul tile selection, so it is left off when our own tile sizes
(`tile_sizes="cost"`) or codegen strategies are requested: their configs would be dropped.

The others: the const-expr size threshold (`const_expr_flags`), `--iree-opt-level=O3` on CPU targets,
and IREE's inner-dim concat transposition switched off beside our regions (`concat_flags`).
"""
from __future__ import annotations

import math

from collections.abc import Iterable, Sequence

from ..analysis.opdesc import DataflowGraph, OpDesc, outermost_non_unit
from ..errors import UnsupportedError
from .targets import get_target

DATA_TILING = "--iree-opt-data-tiling"
CONST_EXPR_THRESHOLD = "--iree-opt-const-expr-max-size-increase-threshold"
OPT_LEVEL = "--iree-opt-level"
OUTER_DIM_CONCAT = "--iree-opt-outer-dim-concat"


def data_tiling_planned(fusion: str, target: str, tile_sizes: str = "iree", codegen_strategies: bool = False,
                        user_flags: Sequence[str] = ()) -> bool:
    """Whether contractions will be compiled data-tiled, so the planner prices them as IREE will run
    them (`TargetDesc.data_tiling`): the user's own `--iree-opt-data-tiling[=bool]` decides, else the
    `cost` mode on a CPU target with IREE's tile selection and no codegen strategies."""
    user = _user_data_tiling(user_flags)
    if user is not None:
        return user
    return fusion == "cost" and is_cpu_target(target) and tile_sizes == "iree" and not codegen_strategies


def module_data_tiled(levers: Sequence[str], user_flags: Sequence[str] = ()) -> bool:
    """Whether the compile data-tiles: the user's own flag decides, else whether our lever asked for it."""
    user = _user_data_tiling(user_flags)
    return DATA_TILING in levers if user is None else user


def _user_data_tiling(user_flags: Sequence[str]) -> bool | None:
    """The user's `--iree-opt-data-tiling[=bool]` (the last one wins), or None when they gave none."""
    for f in reversed(tuple(user_flags)):
        if f.startswith(DATA_TILING):
            return f.partition("=")[2].strip().lower() not in ("false", "0", "off")
    return None


def is_cpu_target(target: str) -> bool:
    """A CPU backend target; names only the cost model knows (planning for `sm_90`) are not."""
    try:
        return get_target(target).is_cpu
    except UnsupportedError:
        return False


# Activation x weight matmuls below this many multiply-adds ran faster untiled in the models measured
# (docs/performance.md, "Data tiling on small plain matmuls"): gMLP's largest has 590k; a T5-style
# block whose largest has exactly this many ran 1.17x slower untiled, the attention block (8.4M) 1.10x.
SMALL_MATMUL_MACS = 1 << 20


def packing_pays(op: OpDesc) -> bool:
    """Whether IREE's data tiling is worth its packing for data-tileable matmul `op`: it is not stored
    row-major (`cost.model.row_major_matmul`: an activation read `[K, M]` or a result stored `[N, M]`),
    or its first operand is a constant (a 1x1 conv's filter times activations, `F x C . C x P`: BiFPN's
    64 x 256 x 64 one ran 48 us untiled, 12.6 us tiled), or it has at least `SMALL_MATMUL_MACS`
    multiply-adds. An activation times a weight below that ran faster untiled: the packing dispatches
    cost more than the mmt4d kernel saves (a Llama block at 24 tokens 0.43x, gMLP 0.80x the tiled time)."""
    from ..cost.model import row_major_matmul

    first = op.operands[0] if op.operands else None
    return (not row_major_matmul(op) or first is None  # None: a constant (a function argument is < 0)
            or math.prod(op.loop_ranges) >= SMALL_MATMUL_MACS)


def data_tiling_flags(graphs: Iterable[DataflowGraph], fusion: str, target: str, tile_sizes: str = "iree",
                      codegen_strategies: bool = False, user_flags: Sequence[str] = ()) -> tuple[str, ...]:
    """`(DATA_TILING,)` when the `cost` mode compiles a plain matmul (`cost.model.data_tileable`) whose
    packing pays (`packing_pays`) for a CPU target, else () (also when the user's flags already say).
    Modules with only batch matmuls (attention) are left alone: packing gained nothing there and added a
    dispatch per operand. The planner priced the module's contractions data-tiled either way (it plans
    before the rewrites that create matmuls): the modules left untiled are small ones, where a few
    microseconds of matmul decide no grouping."""
    if any(f.startswith(DATA_TILING) for f in user_flags) or \
            not data_tiling_planned(fusion, target, tile_sizes, codegen_strategies):
        return ()
    return (DATA_TILING,) if any(asks_for_data_tiling(g.ops) for g in graphs) else ()


def asks_for_data_tiling(ops: Iterable[OpDesc]) -> bool:
    """Some op is a data-tileable contraction whose packing pays: the module gets `DATA_TILING`."""
    from ..cost.model import data_tileable

    return any(data_tileable(op) and packing_pays(op) for op in ops)


def const_expr_flags(graphs: Iterable[DataflowGraph], user_flags: Sequence[str] = ()) -> tuple[str, ...]:
    """The const-expr size threshold that lets IREE evaluate at compile time every Winograd filter
    transform of the module and every widened constant operand of a contraction or conv (a quantized
    weight dequantized to f32, or widened to i16 with its zero point subtracted: above IREE's default
    limit it was recomputed on every call, 2.4M elements twice per BERT-sized MLP), at its result's
    bytes rounded up to MiB; () when there is none or the user set the threshold."""
    if any(f.startswith(CONST_EXPR_THRESHOLD) for f in user_flags):
        return ()
    grown = [op.bytes_written for g in graphs for op in _grown_constants(g)]
    if not grown:
        return ()
    mib = 1 << 20
    return (f"{CONST_EXPR_THRESHOLD}={-(-max(grown) // mib) * mib}",)


def _grown_constants(g: DataflowGraph) -> list:
    """Winograd filter transforms, and constant-only producers of a contraction's or conv's operands
    that widen their element type (dequantized weights) or feed an integer one (the narrowed i16 weight
    is the last of a widening chain: i8 -> i32 -> i16)."""
    from ..analysis.classify import WINOGRAD_FILTER
    from ..analysis.opdesc import RESHAPE_OPS, OpKind
    from ..fusion.legality import constant_ops

    out = [op for op in g.ops if op.name == WINOGRAD_FILTER]
    const = constant_ops(g)
    for op in g.ops:
        if op.kind in (OpKind.CONTRACTION, OpKind.CONVOLUTION):
            for p in op.operands[:op.num_dps_inputs]:
                while p is not None and p >= 0 and g.ops[p].name in RESHAPE_OPS:
                    p = g.ops[p].operands[0]
                if p is not None and p in const and (_widens(g.ops[p]) or op.element_types[-1][0] == "i"):
                    out.append(g.ops[p])
    return out


def _widens(op) -> bool:
    return op.bytes_written > op.bytes_read


def opt_level_flags(fusion: str, target: str, user_flags: Sequence[str] = ()) -> tuple[str, ...]:
    """`--iree-opt-level=O3` for the `cost` mode on a CPU target, unless the user chose a level."""
    if fusion != "cost" or not is_cpu_target(target) or any(f.startswith(OPT_LEVEL) for f in user_flags):
        return ()
    return (f"{OPT_LEVEL}=O3",)


def inner_concat(op: OpDesc) -> bool:
    """A `tensor.concat` along a dim past its result's outermost non-unit dim (`[1, 28, 28, 64]` along 2)."""
    text = dict(op.attrs).get("dim")
    if op.name != "tensor.concat" or text is None or not op.result_shapes:
        return False
    return int(text.split(":")[0]) > outermost_non_unit(op.result_shapes[0])


def concat_flags(graphs: Iterable[DataflowGraph], fusion: str, user_flags: Sequence[str] = ()) -> tuple[str, ...]:
    """`--iree-opt-outer-dim-concat=false` for the `cost` mode when the module has an `inner_concat`.
    IREE (O1 and up) rewrites such a concat as transposes of its inputs, a concat along the outer dim
    and a transpose back, for its own formation to fuse the transposes into their neighbours; next to
    our regions, which it does not fuse into, each transpose was a dispatch of its own. Unseen models,
    cost mode with / without the rewrite, paired over 40 interleaved rounds (2026-12-05, this VM):
    dispatches 48 -> 46 and time 0.992 (windowed attention), 21 -> 20 and 0.964 (a YOLO head), 29 -> 26
    and 0.949 (DGCNN); a Llama block, a KV-cache step and sine position codes plan the same dispatches
    (0.92-1.00); a bidirectional GRU, whose concat reads two concats, 613 -> 616 at 0.994. Results identical."""
    if fusion != "cost" or any(f.startswith(OUTER_DIM_CONCAT) for f in user_flags):
        return ()
    return (f"{OUTER_DIM_CONCAT}=false",) if any(inner_concat(op) for g in graphs for op in g.ops) else ()


def module_flags(graphs: Iterable[DataflowGraph], fusion: str, target: str, tile_sizes: str = "iree",
                 codegen_strategies: bool = False, user_flags: Sequence[str] = ()) -> tuple[str, ...]:
    """Every per-module lever above, for the planned functions `graphs`."""
    graphs = tuple(graphs)
    return (*data_tiling_flags(graphs, fusion, target, tile_sizes, codegen_strategies, user_flags),
            *const_expr_flags(graphs, user_flags), *opt_level_flags(fusion, target, user_flags),
            *concat_flags(graphs, fusion, user_flags))
