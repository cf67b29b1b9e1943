"""Predicted time of one fusion group on a target: a roofline with cache reuse, parallelism, register
spills, recomputation and launch overhead, refined on CPUs by the tiles IREE's code generator picks
(`tiling.py`). Pure: OpDesc + TargetDesc in, Cost out.

Formulas (every constant is a TargetDesc field; see docs/cost-model.md):
  compute_s   = sum_op flops / (peak[dtype, matrix?] x efficiency[key(op)] x util(op))  (non-duplicated
                members; x f32 lanes for members of a group rooted at a CPU window copy) + iteration_s
                key: the op kind, refined from maps and shapes; for convs on a CPU from IREE's tiles:
                convolution.scalar (vector tiles not dividing the tiles, or OW not vectorized),
                .strided, .1x1, plain; .depthwise, .generic (grouped); reduction.window (pooling). A key
                without its own constant uses the next shorter key's (convolution.1x1.x -> .1x1 -> kind)
                util: vectorized 2-D conv on a CPU: min(1, vW/lanes) x min(1, vF/8) x min(1, vC/lanes)
                (vector tiles along OW, F and C), else 1
  iteration_s = elements of the root's loop nest / (peak[f32] x efficiency[iteration key]) on a CPU when
                the root (not a contraction/conv/pooling) cannot stream: iteration.masked (vectorized row
                longer than a vector and not a multiple of it, or one element), .reduction (row
                reduction), .transposed, .window (a copy reading through window sums: im2col)
  recompute_s = compute of duplicated members + for a member feeding a contraction/conv input
                inside the group: its compute x (reuse - 1); for a member another member reads
                through a window (pooling, a windowed reduction): its compute x (window_reads - 1)
  reuse(x)    = ceil(prod of parallel loop ranges the operand's map does not index / matmul_tile)
  window_reads(x) = loop elements / elements of x, for an input read through window sums (d1 * 2 + d3)
  unique      = bytes(external inputs, deduplicated) + bytes(escaping outputs)  (intermediates: 0)
  reread(x)   = bytes(x) x (reuse(x) - 1) for external inputs of a contraction/conv
  level(B)    = first cache level past L1 with size x instances x cache_fit >= B, else DRAM
                (L1 is private and too small to keep data between dispatches: it serves tiles only)
  memory_s    = unique / bw[level(unique)] + sum_x reread(x) / bw[level(bytes(x))]
                bw[l] = nominal bandwidth x bw_fraction[l]
  cold_s      = sum over cold inputs x of bytes(x) / (bw[first shared level holding x, else DRAM] x
                bw_fraction[cold])  (CPU only; cold: function arguments, constants, results of tiled
                dispatches (contraction/conv/pooling), and streamed results read by a tiled root: data
                other cores wrote, see GroupView.sources)
  roofline    = max(compute, memory) + (1 - overlap) x min(compute, memory)
  tiles       = IREE's workgroups for a conv/pooling on a CPU, else ceil(parallel iteration space of
                the root / tile), tile = matmul_tile^2 or tile_elems[kind]
  parallelism = tiles / (cores x ceil(tiles / cores))     (idle cores and the last partial wave)
  live        = distinct external inputs + max intermediates live at once (upper bound: loads hoisted)
  regs        = live x ceil(vector_bits / register_bits);  excess = max(0, regs - registers)
  spill_s     = excess x iterations x 2 x register_bytes / bw[L1],  iterations = elements / lanes
  serial_s    = on GPUs, for an outer reduction root (parallel dim innermost): group FLOPs / threads x
                serial_flop_s, threads = parallel outputs (/ 4 when a multiple of 128)
  time_s      = max((roofline + cold_s) / parallelism, serial_s) + spill_s + recompute_s + dispatch_s
                + launch_s
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from ..analysis.classify import (ATTENTION_OP, DIM, WINOGRAD_FLOPS_PER_TILE, WINOGRAD_INPUT, WINOGRAD_OUTPUT,
                                 is_window_copy, map_results)
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from .group import GroupView, TensorRef, distribution, elem_bytes, group_view, view_of_ops
from .targets import TargetDesc
from .tiling import any_strided, contiguous_run, conv2d_tiles, conv_vector_fit, divisor_at_most, loops_collapse, masked, strided, vector_dim

MATRIX = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION})
_ROOT_ORDER = (OpKind.CONTRACTION, OpKind.CONVOLUTION, OpKind.REDUCTION, OpKind.PAD, OpKind.OPAQUE)


@dataclass(frozen=True)
class Cost:
    """Predicted cost of one group; times in seconds, sizes in bytes."""

    flops: int
    compute_s: float
    traffic_bytes: int          # bytes moved to/from memory outside the group (any level)
    dram_bytes: int             # the part of traffic_bytes served by DRAM
    memory_level: str           # level serving the group's unique bytes ("dram", "L2", ...)
    memory_s: float
    launch_s: float
    spill_s: float
    recompute_s: float
    parallelism_factor: float   # in (0, 1]: fraction of cores/SMs kept busy
    live_registers: int
    peak_temp_bytes: int
    time_s: float
    bound: str                  # "compute" | "memory" | "launch" | "spill" | "serial"
    dispatch_s: float = 0.0     # fixed execution time of the dispatch (part of time_s)

    def breakdown(self) -> dict[str, float | int | str]:
        return asdict(self)


def root_of(ops: Sequence[OpDesc]) -> OpDesc:
    """The op deciding the iteration space: first contraction/conv/reduction/pad/opaque, else the last op."""
    for kind in _ROOT_ORDER:
        for op in ops:
            if op.kind is kind:
                return op
    return ops[-1]


def op_dtype(op: OpDesc) -> str:
    """Contractions run at their input type (i8 x i8 -> i32), other ops at their result type."""
    if not op.element_types:
        return "f32"
    return op.element_types[0] if op.kind in MATRIX else op.element_types[-1]


def _window_split(op: OpDesc) -> tuple[int, int]:
    """(window size, channel-reduction size) of a conv/pooling: reduction dims that input 0's map reads
    inside a sum (`d2 + d5`) form the window, the other reduction dims are reduced channels."""
    sums = {int(d) for r in (map_results(op.indexing_maps[0]) if op.indexing_maps else ()) if "+" in r
            for d in DIM.findall(r)}
    window = chan = 1
    for d, (r, it) in enumerate(zip(op.loop_ranges, op.iterator_types)):
        if it != "parallel":
            window, chan = (window * r, chan) if d in sums else (window, chan * r)
    return window, chan


def _cpu(t: TargetDesc | None) -> tuple[int, int] | None:
    """(SIMD bits, SIMD register file bits) when IREE's CPU tiling applies (CPU targets; None = a generic
    AVX2 host), else None (GPUs)."""
    if t is None:
        return 256, 16 * 256
    if t.kind != "cpu":
        return None
    return t.vector_bits, t.registers * t.register_bits


def efficiency_key(op: OpDesc, t: TargetDesc | None = None) -> str:
    """Key of op's compute efficiency: its kind, refined from shapes where IREE's code differs a lot.
    Convolutions on a CPU (2-D NCHW, IREE's conv pipeline; tiles from `tiling.conv2d_tiles`):
    `convolution.scalar` (a vector tile does not divide its workgroup tile, so the remainder runs as
    scalar loops, or the output width is not vectorized at all),
    else `convolution.strided` (input read with a stride), `convolution.1x1` (window of 1: a matmul in
    disguise) or `convolution`; other convs: `convolution.depthwise` (no channel reduction) or
    `convolution.generic` (grouped: IREE's default tiling), `convolution.depthwise.nhwc` for a depthwise
    conv with its channels innermost (`depthwise_channels_last`). On GPUs only 1x1/depthwise are told apart.
    `reduction.window` is pooling; IREE's fused attention op is `attention` (`attention.cpu` on a CPU,
    with the attention-op rewrite's own tile sizes); IREE's Winograd transforms are
    `winograd` (`winograd.cpu`; `winograd.cpu.output` for the output transform; `winograd.cpu.few`: an input transform over at most 2 tiles along a
    dim, i.e. an image of at most 12, which IREE 3.13 ran 8x slower per tile: DenseNet's 128-channel
    7x7 ones 118 us for 2x2 tiles against 37 us for 3x3 tiles of its 14x14 ones). On a CPU, `contraction.strided`: an input read with a stride (a
    strided 1x1 conv as a matmul: neither data-tiled nor vectorized along the strided loops; ResNet-50's
    1024x14x14x512 one ran at 2.9 GFLOP/s), else `contraction.data_tiled` when compiled with data
    tiling (`TargetDesc.data_tiling`: packed operands, mmt4d micro-kernel) and it is a plain matmul
    (`data_tileable`: IREE 3.13 runs a 1x1 conv left as F x (H, W) x C at 28-43 GFLOP/s with data
    tiling on, its 2-D matmul form at 100+; batch matmuls gained nothing), else `contraction.batch`
    for a batch matmul (one loop each of batch, M, N, K, in IREE's own tiles: Winograd's
    [64, M, C] x [64, C, F], attention's; its register-tile fill is `vector_utilisation`). Lookup (`efficiency`)
    drops suffixes until a key has a constant."""
    if op.name == ATTENTION_OP:
        return "attention.cpu" if _cpu(t) is not None else "attention"
    if op.name in WINOGRAD_FLOPS_PER_TILE:
        if _cpu(t) is None:
            return "winograd"
        if op.name == WINOGRAD_OUTPUT:
            return "winograd.cpu.output"
        tiles = op.result_shapes[0][3:5] if op.name == WINOGRAD_INPUT and op.result_shapes else ()
        return "winograd.cpu.few" if len(tiles) == 2 and min(tiles) <= 2 else "winograd.cpu"
    if op.kind is OpKind.CONTRACTION and _cpu(t) is not None and t is not None:
        if any_strided(op):
            return "contraction.strided"
        if t.data_tiling and data_tileable(op):
            return "contraction.data_tiled"
        if batch_matmul_rows(op) is not None:
            return "contraction.batch"
        if split_matmul(op):
            return "contraction.split"
    if op.kind is OpKind.CONVOLUTION:
        window, chan = _window_split(op)
        cpu = _cpu(t)
        if cpu is None:
            return "convolution.1x1" if window == 1 else "convolution"
        if chan == 1:
            return "convolution.depthwise.nhwc" if depthwise_channels_last(op) else "convolution.depthwise"
        if channels_last_positions(op) is not None:
            return "convolution.nhwc"
        fit = conv_vector_fit(op, *cpu)
        if fit is None:
            return "convolution.generic"
        if fit[0]:
            return "convolution.scalar"
        if strided(op):
            return "convolution.strided"
        return "convolution.1x1" if window == 1 else "convolution"
    if op.kind is OpKind.REDUCTION and _window_split(op)[0] > 1:
        return "reduction.window"
    return op.kind.value


def data_tileable(op: OpDesc) -> bool:
    """A plain matmul for IREE's data tiling: a 2-input contraction with one M loop (read by the first
    input only; or several that IREE collapses into one in a region of ours, `tiling.loops_collapse`: a
    channels-last 1x1 conv read from NCHW, (H, W) x F x C, 3136x128xK ran at 440 GFLOP/s data-tiled, where
    IREE storing it into a padded buffer left it uncollapsed at 266), one N loop (second input only: a 1x1
    conv as F x (H, W) x C, two N loops, ran at 28-43 GFLOP/s with data tiling on), one K loop and no
    batch loop, reading no input with a stride. Measured here: such matmuls run as mmt4d 3x faster; attention's batch matmuls ran the same
    with and without data tiling (0.77 vs 0.84 ms for 6) and only added 6 packing dispatches.
    Not a matmul whose N or K is 1 (an outer product, a matrix-vector product): packing gains nothing
    there, and IREE 3.13's flow phase segfaulted on a data-tiled 5x1 by 1x5 product fed by two small
    regions (onnx's windowed-attention expansion), taking the caller's process with it."""
    dims = matmul_dims(op)
    if dims is None or any(op.loop_ranges[d] == 1 for d in (*dims[2], *dims[3])):
        return False
    return len(dims[0]) == 0 and len(dims[2]) == len(dims[3]) == 1 and \
        (len(dims[1]) == 1 or loops_collapse(op, dims[1]))


def row_major_matmul(op: OpDesc) -> bool:
    """A data-tileable matmul stored `A[M, K] x B[K, N] -> C[M, N]` (M possibly several loops, in order)."""
    dims = matmul_dims(op)
    if dims is None or not data_tileable(op):
        return False
    m, (n,), (k,) = dims[1], dims[2], dims[3]
    return (tuple(op.map_dims[0]) == (*m, k) and tuple(op.map_dims[1]) == (k, n)
            and tuple(op.map_dims[-1]) == (*m, n))


def matmul_dims(op: OpDesc) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """(batch, M, N, K) loops of a 2-input contraction reading no input with a stride, else None."""
    if op.kind is not OpKind.CONTRACTION or op.num_dps_inputs != 2 or any_strided(op):
        return None
    a, b = indexed_dims(op, 0), indexed_dims(op, 1)
    par = [d for d, it in enumerate(op.iterator_types) if it == "parallel"]
    return ([d for d in par if d in a and d in b], [d for d in par if d in a and d not in b],
            [d for d in par if d in b and d not in a], [d for d, it in enumerate(op.iterator_types) if it != "parallel"])


def split_matmul(op: OpDesc) -> bool:
    """A contraction whose M or N side is several loops that do not collapse into one (`loops_collapse`): a
    1x1 conv over a batch as imported, `out[n, f, s] += x[n, c, s] * w[f, c]`, M = (n, s) with the channel
    between them in `x`. IREE 3.13 neither packs nor vectorizes it well: 12-58 GFLOP/s measured, 2.4-8.8x the
    `contraction` price (12 shapes, 2026-12-06; rewrites/im2col.py `pointwise_over_batch`)."""
    dims = matmul_dims(op)
    return dims is not None and any(len(side) > 1 and not loops_collapse(op, side) for side in dims[1:3])


def batch_matmul_rows(op: OpDesc) -> int | None:
    """M of a CPU batch matmul (one batch, M, N and K loop) IREE tiles itself, else None."""
    dims = matmul_dims(op)
    if dims is None or not (len(dims[0]) == len(dims[1]) == len(dims[2]) == len(dims[3]) == 1):
        return None
    return op.loop_ranges[dims[1][0]]


CPU_TILE_ROWS = 8  # rows of M in IREE's llvm-cpu register tile of a matmul (8 x one f32 vector)
# A partly filled register tile costs more than its empty rows: re-measured 2026-12-01 (Winograd's batch
# matmuls, IREE 3.13, this CPU), time relative to a full tile at `contraction.batch`: M = 9 (fill 0.56)
# 0.41 (ResNet-50's 64x9x256x256: 851-895 us), M = 25 (0.78) 0.64-0.71, M = 100 (0.96) 0.82-0.94: fill ^ 1.5
ROW_FILL_EXPONENT = 1.5

# A channels-last direct conv (`convolution.nhwc`): IREE's x86 tiles hold 8 output pixels of a row
# (vector tile {1, 1, 8, V, 1, 1, 8} over N, OH, OW, F, KH, KW, C), shrunk to the largest divisor of the
# row when 8 does not divide it, with F along the vector. Fitted 2026-12-05 on 230 random convs
# (`tools/sweeps/conv_rates.py` seeds 5, 7-9 and 12-13 `odd`, nhwc; AVX-512, 2 cores; docs/cost-model.md):
#   utilisation = (row tile / 8) ^ 0.65 x min(1, F / lanes) ^ 0.7 x min(1, positions / 1024) ^ 0.2
#                 x min(1, C / 8) ^ 0.3 x (0.4 when the filter outgrows a core's private cache),
# time predicted / measured rms 1.39x (the 2026-12-01 form, row tile x sqrt(F fill) x min(1, positions /
# 630) ^ 0.41 at efficiency 1.85: 2.13x). Small images cost less than that form said (two 8x8 images ran
# at 309 GFLOP/s where it predicted 160); rows of 13 (tile 1) run at 55-65 against ~300 for tile 8; filters
# of 3.2-6.5 MB ran at 90-115 against ~300 below 1.6 MB: every row tile re-reads the whole filter, from L3
# once it is out of the 2 MB L2 (NCHW convs do not show it).
NHWC_ROW_TILE = 8
NHWC_ROW_EXPONENT = 0.65
NHWC_FILL_EXPONENT = 0.7
NHWC_FULL_POSITIONS = 1024
NHWC_POSITION_EXPONENT = 0.2
NHWC_FULL_CHANNELS = 8        # input channels of one unrolled reduction step
NHWC_CHANNEL_EXPONENT = 0.3
NHWC_FILTER_SPILL = 0.4       # the filter does not fit a core's private cache


def channels_last_positions(op: OpDesc) -> int | None:
    """Output positions (the product of the spatial and batch loops) of a plain 2-D channels-last conv:
    input channel innermost in the input, output channel innermost in the output, the filter read by the
    window, input channel and output channel loops only; else None (channels-first, grouped, depthwise).
    The batch counts since 2026-12-04: IREE distributes it like the rows, and two 4x4 images (a 64->128
    3x3/2 conv) ran at 131 GFLOP/s where one image's 16 positions predicted 50."""
    if op.kind is not OpKind.CONVOLUTION or op.num_dps_inputs != 2 or len(op.map_dims) != 3:
        return None
    inp, flt, out = op.map_dims
    if not inp or not out or -1 in flt or -1 in out:
        return None
    f, c = out[-1], inp[-1]
    reds = {d for d, it in enumerate(op.iterator_types) if it == "reduction"}
    if f < 0 or c < 0 or f in inp or f not in flt or c not in reds or c not in flt or set(flt) - reds - {f}:
        return None
    spatial = [d for d in out[:-1] if d not in flt and d not in inp]  # not the batch: read plainly by the input
    if len(spatial) != 2 or any(d in out for d in reds):
        return None
    batch = [d for d in out[:-1] if d in inp and d not in flt]
    return math.prod(op.loop_ranges[d] for d in (*spatial, *batch))


def depthwise_channels_last(op: OpDesc) -> bool:
    """Whether depthwise conv `op` reads and writes its channel loop innermost (input, filter, output):
    IREE then vectorizes along channels (`convolution.depthwise.nhwc`)."""
    if op.num_dps_inputs != 2 or len(op.map_dims) != 3 or not all(op.map_dims):
        return False
    c = op.map_dims[-1][-1]
    return c >= 0 and op.iterator_types[c] == "parallel" and all(d[-1] == c for d in op.map_dims)


def vector_utilisation(op: OpDesc, t: TargetDesc | None = None) -> float:
    """Share of the FMA pipes a vectorized 2-D conv's register tile keeps busy on a CPU (see
    `tiling.conv_vector_fit`), or a batch matmul's (`contraction.batch`): IREE's register tile is
    `CPU_TILE_ROWS` rows of M, so M = 9 fills 9 of 16 rows (Winograd's 64x9x256x256 ran at 47 GFLOP/s
    against 105 for 64x100x64x64; 64x25x128x128 at 77); 1 for other ops, scalar convs (their key
    prices the scalar code) and GPUs."""
    cpu = _cpu(t)
    if cpu is not None and efficiency_key(op, t) == "contraction.batch":
        rows = batch_matmul_rows(op) or CPU_TILE_ROWS
        return (rows / (-(-rows // CPU_TILE_ROWS) * CPU_TILE_ROWS)) ** ROW_FILL_EXPONENT
    if op.kind is not OpKind.CONVOLUTION or cpu is None:
        return 1.0
    positions = channels_last_positions(op)
    if positions is not None:
        return channels_last_fit(op, positions, cpu[0], t.private_cache_bytes if t is not None else 0)
    fit = conv_vector_fit(op, *cpu)
    return fit[1] if fit is not None and not fit[0] else 1.0


def channels_last_fit(op: OpDesc, positions: int, vector_bits: int, private_cache: int) -> float:
    """Pure: utilisation of channels-last conv `op` (`channels_last_positions` = positions) with
    `vector_bits` SIMD and `private_cache` bytes of a core's private cache (0: unknown); the fitted form
    above `NHWC_ROW_TILE`."""
    inp, flt, out = op.map_dims
    row, f, c = (op.loop_ranges[d] for d in (out[-2], out[-1], inp[-1]))
    nbytes = elem_bytes(op.element_types[-1] if op.element_types else "f32")
    lanes = max(1, vector_bits // (8 * nbytes))
    filter_bytes = math.prod(op.loop_ranges[d] for d in flt) * nbytes
    return ((divisor_at_most(row, NHWC_ROW_TILE) / NHWC_ROW_TILE) ** NHWC_ROW_EXPONENT
            * min(1.0, f / lanes) ** NHWC_FILL_EXPONENT
            * min(1.0, positions / NHWC_FULL_POSITIONS) ** NHWC_POSITION_EXPONENT
            * min(1.0, c / NHWC_FULL_CHANNELS) ** NHWC_CHANNEL_EXPONENT
            * (NHWC_FILTER_SPILL if 0 < private_cache < filter_bytes else 1.0))


def lookup_efficiency(table: dict[str, float], key: str, default: float) -> float:
    """table[key], else the key with its last `.suffix` dropped, ..., else `default`."""
    while key:
        if key in table:
            return table[key]
        key = key.rpartition(".")[0]
    return default


_SHAPE_FACTS: dict[tuple[int, tuple[int, int] | None, bool, int],
                   tuple[OpDesc, tuple[str, float, str | None]]] = {}


def shape_facts(op: OpDesc, t: TargetDesc | None) -> tuple[str, float, str | None]:
    """(efficiency key, vector utilisation, iteration key) of op on t: they depend on shapes and the
    target's vector/register widths, data tiling and private cache size (a channels-last conv's filter
    fit) only, not on free constants, so they are computed once (the fitter re-prices the same ops under
    thousands of constant sets)."""
    cpu = _cpu(t)
    k = (id(op), cpu, t is not None and t.data_tiling, t.private_cache_bytes if t is not None else 0)
    hit = _SHAPE_FACTS.get(k)
    if hit is not None and hit[0] is op:
        return hit[1]
    if len(_SHAPE_FACTS) >= 1 << 17:
        _SHAPE_FACTS.clear()
    facts = (efficiency_key(op, t), vector_utilisation(op, t), iteration_key(op, t))
    _SHAPE_FACTS[k] = (op, facts)
    return facts


def efficiency(op: OpDesc, t: TargetDesc) -> float:
    return lookup_efficiency(dict(t.efficiency), shape_facts(op, t)[0], t.efficiency_of(op.kind.value))


def op_compute_s(op: OpDesc, t: TargetDesc) -> float:
    """Infinite where the target's efficiency is 0: code IREE cannot produce for it (never chosen)."""
    rate = t.peak(op_dtype(op), op.kind in MATRIX) * efficiency(op, t) * shape_facts(op, t)[1]
    return op.flops / rate if rate > 0 else math.inf


def iteration_key(root: OpDesc, t: TargetDesc | None = None) -> str | None:
    """Why a CPU cannot stream the group's loop (rooted at `root`, not a contraction/conv), which then
    costs about a fixed time per element iteration (`iteration_s`); None when it streams. From the
    vectorized loop (`tiling.vector_dim`, the rightmost loop some operand varies fastest along):
    `iteration.masked`: its row is longer than a vector and not a multiple of it (`tiling.masked`);
    `iteration.reduction`: it is a reduction loop (a row sum: each vector adds into one dependent
    accumulator chain); `iteration.transposed`: an operand indexes it but varies fastest along
    another loop (a transpose: strided element accesses), `iteration.transposed.short` when an input's
    rows are shorter than a vector even after IREE collapses loops (`tiling.contiguous_run`: a broadcast
    loop in between); `iteration.window`: a copy reading its
    input through window sums (`d1 + d4`: an im2col window copy), which IREE 3.13 runs at about 1 G
    elements/s here whatever the layout (SqueezeNet's [16, 3, 3, 55, 55] one 0.57 ms, packed for the
    data-tiled matmul in the same dispatch; pricing it as bytes moved said 0.05 ms)."""
    cpu = _cpu(t)
    if (cpu is None or root.kind in MATRIX or root.name == ATTENTION_OP or root.name in WINOGRAD_FLOPS_PER_TILE
            or conv2d_tiles(root, *cpu) is not None):
        return None  # contractions, convs, pooling, fused attention, Winograd: priced per FLOP (efficiency_key)
    if is_window_copy(root):
        return "iteration.window"
    if masked(root, cpu[0]):
        return "iteration.masked"
    d = vector_dim(root)
    if d is None:
        return None
    if root.iterator_types[d] != "parallel":
        return "iteration.reduction"
    for m in root.indexing_maps:
        res = map_results(m)
        if res and d in {int(x) for r in res[:-1] for x in DIM.findall(r)} and \
                d not in {int(x) for x in DIM.findall(res[-1])}:
            lanes = max(1, cpu[0] // (8 * elem_bytes(op_dtype(root))))
            runs = [r for r in (contiguous_run(root, pos) for pos in range(root.num_dps_inputs)) if r is not None]
            return "iteration.transposed.short" if runs and min(runs) < lanes else "iteration.transposed"
    return None


def group_keys(v: GroupView, t: TargetDesc | None = None) -> set[str]:
    """Efficiency keys a group's time depends on: its non-duplicated members' keys and its iteration key."""
    keys = {shape_facts(op, t)[0] for op in v.ops if op.index not in v.duplicated}
    it = shape_facts(root_of(v.ops), t)[2] if v.ops else None
    return keys | ({it} if it else set())


def indexed_dims(op: OpDesc, pos: int) -> set[int]:
    """Loop dims an operand's map reads, window sums included (`d2 + d5` -> {2, 5})."""
    if pos < len(op.indexing_maps):
        return {int(d) for r in map_results(op.indexing_maps[pos]) for d in DIM.findall(r)}
    return {d for d in (op.map_dims[pos] if pos < len(op.map_dims) else ()) if d >= 0}


def reuse(op: OpDesc, pos: int, t: TargetDesc) -> int:
    """How many times a tiled contraction/conv reads each element of input `pos`: once per output
    tile along the parallel dims the operand does not index (1 for other ops). Those dims are tiled
    by one tile edge (N for A, M for B; a conv's flattened N*OH*OW for its filter)."""
    if op.kind not in MATRIX or pos >= op.num_dps_inputs:
        return 1
    seen = indexed_dims(op, pos)
    missing = math.prod(r for d, (r, it) in enumerate(zip(op.loop_ranges, op.iterator_types))
                        if it == "parallel" and d not in seen)
    return max(1, math.ceil(missing / t.matmul_tile))


def window_reads(op: OpDesc, pos: int) -> int:
    """How many times an op that is not a contraction/conv reads each element of input `pos` through a
    window (a map result summing two loops, `d1 * 2 + d3`): its loop elements over the operand's
    elements (a 3x3 stride-2 pool ~2.25, LRN's 5-channel sum 5); 1 for other reads. A producer fused
    into such a consumer is recomputed that many times: ZFNet's LRN (with its powf) fused into the
    next max pool ran 28.7 ms against ~14 ms alone."""
    if op.kind in MATRIX or pos >= op.num_dps_inputs or pos >= len(op.indexing_maps):
        return 1
    if not any("+" in r for r in map_results(op.indexing_maps[pos])):
        return 1
    return max(1, round(math.prod(op.loop_ranges) / max(1, math.prod(op.operand_shapes[pos]))))


def serving_level(nbytes: float, t: TargetDesc) -> tuple[str, float]:
    """(level name, effective B/s) of the first cache past L1 that holds `nbytes`, else DRAM."""
    for level in t.caches[1:]:
        if nbytes <= t.capacity(level):
            return level.name, t.bandwidth(level.name)
    return "dram", t.bandwidth("dram")


def parallel_elems(op: OpDesc) -> int:
    return math.prod(r for r, it in zip(op.loop_ranges, op.iterator_types) if it == "parallel") or 1


def parallelism(root: OpDesc, t: TargetDesc) -> float:
    """Share of the cores kept busy: workgroups / (cores x waves). Workgroups are IREE's distribution
    tiles for a conv/pooling on a CPU (`tiling.conv2d_tiles`), else the parallel space over one tile
    (matmul_tile^2 for contractions/convs, tile_elems[kind] otherwise)."""
    cpu = _cpu(t)
    conv = (conv2d_tiles(root, *cpu) if cpu is not None and root.kind in (OpKind.CONVOLUTION, OpKind.REDUCTION)
            else None)
    if conv is not None:
        tiles = math.prod(-(-r // d) for r, d in zip(root.loop_ranges, conv[1]) if d)
    else:
        tile = t.matmul_tile**2 if root.kind in MATRIX else t.tile(root.kind.value)
        tiles = max(1, math.ceil(parallel_elems(root) / tile))
    return tiles / (t.cores * math.ceil(tiles / t.cores))


class _OpFacts:
    """What `estimate` needs of one op on one target, computed once (see `_facts`)."""

    __slots__ = ("compute_s", "reuse", "rereads", "window", "loop_elems", "result_elems", "elem_bytes",
                 "parallelism", "parallel_elems", "iteration_s", "scalar_lanes")

    def __init__(self, op: OpDesc, t: TargetDesc) -> None:
        self.compute_s = op_compute_s(op, t)
        self.reuse = tuple(reuse(op, pos, t) for pos in range(len(op.operands)))
        # (operand position, producer, reuse) of the inputs a tiled contraction/conv re-reads
        self.rereads = tuple((pos, src, self.reuse[pos]) for pos, src in enumerate(op.operands[:op.num_dps_inputs])
                             if self.reuse[pos] > 1)
        self.window = tuple(window_reads(op, pos) for pos in range(len(op.operands)))
        self.loop_elems = math.prod(op.loop_ranges)
        self.result_elems = math.prod(op.result_shapes[0]) if op.result_shapes else 0
        self.elem_bytes = elem_bytes(op_dtype(op))
        self.parallelism = parallelism(op, t)
        self.parallel_elems = parallel_elems(op)
        # as a group's root: its loop nest's masked element iterations (0 when vectorized cleanly)
        it = shape_facts(op, t)[2]
        self.iteration_s = (self.loop_elems / (t.peak("f32") * lookup_efficiency(dict(t.efficiency), it, 1.0))
                            if it else 0.0)
        # as a group's root: the vector lanes its members lose, run in its scalar loop (a CPU window copy)
        self.scalar_lanes = t.lanes(self.elem_bytes) if it == "iteration.window" else 1


class _TargetFacts:
    """Per-target constants and per-op facts, so `estimate` costs O(group size) dictionary lookups.
    Ops are keyed by id (the op is kept in the entry, so an id is never reused while cached)."""

    MAX_OPS = 1 << 17

    def __init__(self, t: TargetDesc) -> None:
        self.t = t
        self.levels = [(t.capacity(level), level.name, t.bandwidth(level.name)) for level in t.caches[1:]]
        self.dram = ("dram", t.bandwidth("dram"))
        # shared levels (one instance for all cores) serve data another core or the host wrote, at
        # bw_fraction["cold"] of their streaming rate (line transfers between cores, no prefetch)
        cold = dict(t.bw_fraction).get("cold", 1.0)
        self.cold_levels = [(cap, name, bw * cold) for cap, name, bw in self.levels
                            if not next(c for c in t.caches if c.name == name).private] if t.kind == "cpu" else []
        self.cold_dram = ("dram", self.dram[1] * cold)
        self.l1_bw = t.bandwidth(t.caches[0].name)
        self.ops: dict[int, tuple[OpDesc, _OpFacts]] = {}

    def op(self, op: OpDesc) -> _OpFacts:
        hit = self.ops.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        if len(self.ops) >= self.MAX_OPS:
            self.ops.clear()
        f = _OpFacts(op, self.t)
        self.ops[id(op)] = (op, f)
        return f

    def cold_level(self, nbytes: float) -> tuple[str, float]:
        """(level, B/s) serving `nbytes` that are not in this core's private caches."""
        for cap, name, bw in self.cold_levels:
            if nbytes <= cap:
                return name, bw
        return self.cold_dram

    def serving_level(self, nbytes: float) -> tuple[str, float]:
        """`serving_level(nbytes, t)`, from precomputed capacities and bandwidths."""
        for cap, name, bw in self.levels:
            if nbytes <= cap:
                return name, bw
        return self.dram


_TARGETS: dict[int, _TargetFacts] = {}
# Input sources whose data no private cache of this dispatch's cores holds: function arguments and
# constants (written by the host / touched once per inference) and results of "tiled" dispatches
# (contractions, convs, pooling: their tiles were written by other cores than the rows a streamed
# dispatch reads); a tiled root likewise reads streamed results across cores.
_COLD = frozenset({"arg", "const", "tiled"})


def _facts(t: TargetDesc) -> _TargetFacts:
    tf = _TARGETS.get(id(t))
    if tf is None or tf.t is not t:
        if len(_TARGETS) >= 16:
            _TARGETS.clear()
        tf = _TARGETS[id(t)] = _TargetFacts(t)
    return tf


def _consumers_inside(v: GroupView) -> dict[int, list[tuple[OpDesc, int]]]:
    members = set(v.indices)
    out: dict[int, list[tuple[OpDesc, int]]] = {i: [] for i in members}
    for op in v.ops:
        for pos, src in enumerate(op.operands):
            if src is not None and src in members and src != op.index:
                out[src].append((op, pos))
    return out


def max_live_intermediates(v: GroupView) -> int:
    """Intermediates live at once, scanning members in program order (def .. last in-group use)."""
    return _max_live(_consumers_inside(v), v.ops)


def _max_live(cons: dict[int, list[tuple[OpDesc, int]]], ops: Sequence[OpDesc]) -> int:
    return _max_live_of({i: max(c.index for c, _ in cs) for i, cs in cons.items() if cs}, ops)


def _max_live_of(last: dict[int, int], ops: Sequence[OpDesc]) -> int:
    """Max over members x of #{producers i: i <= x < last[i]} (last: last in-group use of i)."""
    if not last:
        return 0
    if any(end <= i for i, end in last.items()):  # not in program order: count directly
        return max((sum(1 for i, end in last.items() if i <= op.index < end) for op in ops), default=0)
    # every interval has i < end: #{i <= x < end} = #{i <= x} - #{end <= x}
    starts, ends = sorted(last), sorted(last.values())
    return max((bisect_right(starts, op.index) - bisect_right(ends, op.index) for op in ops), default=0)


def _materialized(v: GroupView, t: TargetDesc) -> int:
    """Largest intermediate that cannot stream: a consumer re-reads it (contraction input) or iterates
    over a different space (a reduction result broadcast back)."""
    tf = _facts(t)
    first: dict[int, OpDesc] = {}
    for o in v.ops:
        first.setdefault(o.index, o)
    return _materialized_in(_consumers_inside(v), first, tf)


def _materialized_in(cons: dict[int, list[tuple[OpDesc, int]]], first: dict[int, OpDesc], tf: _TargetFacts) -> int:
    big = 0
    for i, cs in cons.items():
        if not cs:
            continue
        pf = tf.op(first[i])
        n = pf.result_elems
        if any(tf.op(c).reuse[pos] > 1 or tf.op(c).loop_elems != n for c, pos in cs):
            big = max(big, n * pf.elem_bytes)
    return big


def estimate(group: GroupView | Sequence[OpDesc], target: TargetDesc) -> Cost:
    """Cost of one fusion group (a GroupView, or ops taken as a whole group: see `view_of_ops`)."""
    v = group if isinstance(group, GroupView) else view_of_ops(list(group))
    t, ops = target, v.ops
    tf = _facts(t)
    get = tf.op
    facts = [get(op) for op in ops]
    root = root_of(ops)
    rf = get(root)
    dup = v.duplicated
    if dup:
        flops = sum(op.flops for op in ops if op.index not in dup)
        compute = sum(f.compute_s for op, f in zip(ops, facts) if op.index not in dup)
        recompute = sum(f.compute_s for op, f in zip(ops, facts) if op.index in dup)
    else:
        flops = sum(op.flops for op in ops)
        compute = sum(f.compute_s for f in facts)
        recompute = 0
    # Members fused into a window copy run in its scalar loop, once per copied element (`iteration.window`:
    # the strided window read is not vectorized): their compute at one lane of the vector's
    # (audio1d's GroupNorm + erf-GELU into a 64x3x1599 copy: predicted 271 us at vector rate, measured
    # 1.20 ms; at one lane 1.3 ms).
    scalar = rf.scalar_lanes
    if scalar > 1:
        compute = rf.compute_s + (compute - rf.compute_s) * scalar
    compute += rf.iteration_s

    # One pass over the edges inside the group (producer -> consumer operand): each producer's last
    # in-group use (live ranges), whether it must be materialized, and the recompute of producers
    # feeding a tiled contraction/conv input (compute x (reuse - 1)) or read through a window.
    first: dict[int, _OpFacts] = {}
    for op, f in zip(ops, facts):
        first.setdefault(op.index, f)
    last: dict[int, int] = {}
    big = 0
    reread: dict[int, list[float]] = {}
    for op, f in zip(ops, facts):
        me = op.index
        for pos, src in enumerate(op.operands):
            if src is None or src == me:
                continue
            pf = first.get(src)
            if pf is None:
                continue
            if last.get(src, me) <= me:
                last[src] = me
            r = max(f.reuse[pos], f.window[pos])
            if r > 1:
                reread.setdefault(src, []).append(pf.compute_s * (r - 1))
            if r > 1 or f.loop_elems != pf.result_elems:
                big = max(big, pf.result_elems * pf.elem_bytes)
    if last:  # as summing every producer's sum(compute x (reuse - 1)) in set order: zero terms dropped
        if reread:
            for i in (set(v.indices) if len(reread) > 1 else reread):
                if i in reread:
                    recompute += sum(reread[i]) * scalar
        else:
            recompute += 0.0

    # Bytes: unique traffic served by the level holding the whole working set, except inputs this
    # core's private caches cannot hold (`_cold`): served by the first shared level holding them;
    # contraction re-reads served by the level holding the re-read operand.
    unique = sum(x.nbytes for x in v.inputs) + sum(x.nbytes for x in v.outputs)
    level, bw = tf.serving_level(unique)
    memory, dram = unique / bw, unique if level == "dram" else 0
    cold = 0.0
    if v.sources and tf.cold_levels:
        tiled_root = distribution(root) == "tiled"
        for x, src in zip(v.inputs, v.sources):
            if src in _COLD or (tiled_root and src == "streamed"):
                clvl, cbw = tf.cold_level(x.nbytes)
                cold += x.nbytes / cbw
    traffic = unique
    by_key: dict[tuple[object, ...], TensorRef] | None = None
    for op, f in zip(ops, facts):
        for pos, src, r in f.rereads:
            if by_key is None:
                by_key = {x.key: x for x in v.inputs}
            ref = _input_ref(by_key, op, pos, src)
            if ref is None:
                continue
            extra = ref.nbytes * (r - 1)
            lvl, lbw = tf.serving_level(ref.nbytes)
            memory += extra / lbw
            traffic += extra
            dram += extra if lvl == "dram" else 0

    par = rf.parallelism
    roof = max(compute, memory) + (1 - t.overlap) * min(compute, memory)

    live = len(v.inputs) + _max_live_of(last, ops)
    regs = live * math.ceil(t.vector_bits / t.register_bits)
    excess = max(0, regs - t.registers)
    elems = max((f.loop_elems for op, f in zip(ops, facts) if op.kind not in MATRIX), default=rf.parallel_elems)
    lanes = t.lanes(rf.elem_bytes)
    spill = excess * (elems / lanes) * 2 * (t.register_bits / 8) / tf.l1_bw if excess else 0.0

    peak_temp = big + sum(x.nbytes for x in v.outputs)
    launch = t.launch_s
    serial = serial_s(root, ops, t)
    time = max((roof + cold) / par, serial) + spill + recompute + t.dispatch_s + launch
    terms = {"compute": (compute + recompute) / par, "memory": (memory + cold) / par,
             "launch": launch + t.dispatch_s, "spill": spill, "serial": serial}
    bound = max(terms, key=lambda k: terms[k])
    return Cost(flops, compute, int(traffic), int(dram), level, memory + cold, launch, spill, recompute, par, regs,
                int(peak_temp), time, bound, t.dispatch_s)


GPU_THREAD_VECTOR = 4     # outputs per thread of an outer reduction whose parallel extent is a multiple of
GPU_WARP = 32             # 32 x 4 (IREE 3.13 on sm_90: 384 outputs on 96 threads, 192 on 192)


def outer_reduction(op: OpDesc) -> bool:
    """A reduction whose first input's innermost dim is a parallel loop (a column sum): IREE's GPU
    pipelines give each thread whole outputs and loop over the reduced extent serially."""
    if op.kind is not OpKind.REDUCTION or not op.map_dims or not op.map_dims[0]:
        return False
    inner = op.map_dims[0][-1]
    return inner >= 0 and op.iterator_types[inner] == "parallel"


def serial_s(root: OpDesc, ops: Sequence[OpDesc], t: TargetDesc) -> float:
    """GPUs (`serial_flop_s` > 0): the dependent chain of one thread of an outer reduction, every member's
    FLOPs over the threads: a prologue fused into a column sum runs in that serial loop, not across the
    machine. Calibrated with ncu on an H200 (2026-12-04): ConvNeXt-V2's GRN sums of squares over 256
    and 64 positions with the erf-GELU of 192 and 384 channels fused in, 12033 and 12035 FLOPs per
    thread on 192 and 96 threads, ran 74.5 and 69.6 us (6.0 and 5.6 ns per FLOP); IREE's formation,
    the GELU in the matmul before, 5.2 and 4.2 us."""
    if t.serial_flop_s <= 0 or not outer_reduction(root):
        return 0.0
    par = parallel_elems(root)
    threads = par // GPU_THREAD_VECTOR if par % (GPU_WARP * GPU_THREAD_VECTOR) == 0 else par
    flops = sum(op.flops for op in ops if op.kind not in MATRIX)
    return flops / max(1, threads) * t.serial_flop_s


def _input_ref(by_key: dict[tuple[object, ...], TensorRef], op: OpDesc, pos: int,
               src: int | None) -> TensorRef | None:
    key: tuple[object, ...] = ("const", op.index, pos) if src is None else ("arg", -1 - src) if src < 0 else ("op", src)
    return by_key.get(key)


def _groups_of(graph: DataflowGraph, groups: object) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """(members, duplicated) per group; a FusionPlan's cloned fills join each consumer group as copies."""
    from ..fusion.plan import FusionPlan
    if not isinstance(groups, FusionPlan):
        return [(tuple(g), frozenset()) for g in groups]  # type: ignore[union-attr]
    group_of = {i: k for k, g in enumerate(groups.groups) for i in g.ops}
    clones: list[set[int]] = [set() for _ in groups.groups]
    for c in groups.cloned:
        for k in {group_of[x] for x in graph.consumers(c) if x in group_of}:
            clones[k].add(c)
    return [(tuple(g.ops) + tuple(sorted(cl)), frozenset(cl)) for g, cl in zip(groups.groups, clones)]


def is_free(op: OpDesc) -> bool:
    """Ops left to IREE that move no data: reshapes and casts become metadata (flow.tensor.reshape)."""
    return not op.dispatchable and op.kind is OpKind.INJECTIVE and op.flops == 0


def plan_costs(graph: DataflowGraph, groups: object, target: TargetDesc) -> list[Cost]:
    """Cost of every group; ops in no group (and not cloned) are priced as single-op groups unless free."""
    gs = _groups_of(graph, groups)
    placed = {i for members, _ in gs for i in members}
    if hasattr(groups, "cloned"):
        placed |= set(groups.cloned)  # type: ignore[attr-defined]
    gs += [((op.index,), frozenset()) for op in graph.ops if op.index not in placed and not is_free(op)]
    return [estimate(group_view(graph, members, dup), target) for members, dup in gs]


def plan_cost(graph: DataflowGraph, groups: Iterable[Sequence[int]] | object, target: TargetDesc) -> float:
    """Predicted time of a plan (a FusionPlan or op-index groups): the sum of its groups' times."""
    return sum(c.time_s for c in plan_costs(graph, groups, target))


def unfused_cost(graph: DataflowGraph, target: TargetDesc) -> float:
    """Every op in a dispatch of its own (metadata-only ops free)."""
    return plan_cost(graph, [], target)
