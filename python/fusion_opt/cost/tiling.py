"""The tile sizes IREE's CPU code generator (LLVMCPU, `KernelDispatch.cpp`) picks for a dispatch's root
op, computed from OpDesc data (loop ranges, iterator types, indexing maps, element types) and the
target's vector width and register file. Pure; no compiler.

Why the cost model needs them: on the host, the speed of a dispatch is decided less by its FLOPs than
by whether its vector tiles divide its workgroup tiles. Measured on IREE 3.13 (x86, AVX2):
- 2-D NCHW convolutions (`ConvTileAndDecomposeExpert`, peeling): when the output-width vector tile
  does not divide the width tile (e.g. width 14 with 4-wide vectors), the peeled remainder loops run
  as scalar code and the whole conv runs at 1.5-5 GFLOP/s instead of 20-60; otherwise the rate follows
  how full the register tile is (vector width along W, independent accumulator rows along F).
- elementwise generics (masking): when the vectorized row is longer than a vector and not a multiple
  of it (rows of 13, 14, 27, 28, 55 floats), every access is masked and the loop runs at about one
  element per 1.5-2 ns per core instead of streaming at cache bandwidth; the same holds for unit rows
  ((1, C, 1, 1) tensors: one-lane vectors).

`conv2d_tiles` ports `setConvRootConfig` (distribution: `getDefaultDistributedLevelTileSizes` with
IREE's default 8 runtime threads and 64-element tile cap; vectors: `getMaxVectorTileSize` then
`limitVectorTileSizes` against the SIMD register file); it reproduces exactly the 76 distinct
conv/pooling configurations IREE 3.13 chose for the calibration models (dumped with
`--iree-hal-dump-executable-configurations-to`). `masked` decides the generic case from the vectorized
loop's range and its distribution tile (`getMaxDistributionTileSize`). Valid for IREE's own tile
selection (fusion-opt's default `tile_sizes="iree"`), not for tile sizes we impose.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from ..analysis.classify import DIM, map_results
from ..analysis.opdesc import OpDesc, OpKind
from .group import elem_bytes

RUNTIME_THREADS = 8     # IREE's --iree-llvmcpu-number-of-threads default (tile heuristics only)
MAX_DIST_TILE = 64      # IREE's --iree-llvmcpu-distribution-size default
FMA_CHAINS = 8          # independent accumulators that keep x86 FMA pipes busy (2 pipes x 4 cycles latency)
# Measured rate of IREE's direct NCHW conv ~ (F rows / FMA_CHAINS) ^ 0.61 (CONV_ROW_EXPONENT) x (OW vector /
# CONV_OW_VECTOR): fitted on 41 3x3-7x7 convs (C 2-256, F 4-256, 8x8-56x56, 2026-12-04, AVX-512): F rows
# 16 or 8 ran at ~170 GFLOP/s, 4 at ~120, 2 at ~70, 1 at ~45 (rms error of the fit 1.34x); IREE's OW
# vector is at most 8 and shrinks to a divisor of the row: SqueezeNet's 55- and 27-wide rows (vectors of
# 5 and 3) ran at 90 and 63. The channel unroll (2-8) showed no effect.
CONV_ROW_EXPONENT = 0.61
CONV_OW_VECTOR = 8

_SCALED = re.compile(r"\bd(\d+)\s*\*\s*(\d+)")


def divisor_at_most(n: int, cap: int, multiple: int = 1) -> int | None:
    """Largest divisor of n not above cap that is a multiple of `multiple` (None if there is none): how
    IREE's CPU heuristics shrink a tile to divide its loop."""
    return next((d for d in range(max(1, min(n, cap)), 0, -1) if n % d == 0 and d % multiple == 0), None)


def loops_collapse(op: OpDesc, dims: Sequence[int]) -> bool:
    """Whether the consecutive loops `dims` appear together, in order, in every indexing map that reads
    them: IREE's dispatch creation then collapses them into one loop (a channels-last 1x1 conv's (H, W),
    a (f, h, w, c) conv generic's (h, w))."""
    dims = list(dims)
    if not dims or dims != list(range(dims[0], dims[0] + len(dims))):
        return False
    for m in op.map_dims:
        where = [k for k, d in enumerate(m) if d in dims]
        if where and ([m[k] for k in where] != dims or where != list(range(where[0], where[0] + len(dims)))):
            return False
    return True


def _dims(expr: str) -> set[int]:
    return {int(d) for d in DIM.findall(expr)}


def operand_dims(op: OpDesc) -> list[set[int]] | None:
    """Loop dims each operand's map is a function of (window sums included), or None without maps."""
    if len(op.indexing_maps) < len(op.operands):
        return None
    return [{d for r in map_results(m) for d in _dims(r)} for m in op.indexing_maps]


def _bit_floor(x: int) -> int:
    return 1 << (x.bit_length() - 1) if x >= 1 else 0


def _dist_tiles(ranges: Sequence[int], part: Sequence[int], hints: Sequence[int]) -> list[int]:
    """`getDefaultDistributedLevelTileSizes` (min tile 1, max 64, 8 threads) incl. its fix-ups."""
    n = len(ranges)
    max_t = [MAX_DIST_TILE if i in part else 0 for i in range(n)]
    hint = [hints[i] if i in part else 1 for i in range(n)]
    dist, threads = [0] * n, RUNTIME_THREADS
    for i in range(n):
        if not max_t[i]:
            continue
        target = min(ranges[i] // threads, max_t[i])
        cand = 1
        if hint[i] > 1:
            for k in range(hint[i], target + 1, hint[i]):
                if ranges[i] % k == 0:
                    cand = k
        if hint[i] <= 1 or cand == 1:
            cand = max(_bit_floor(target), 1)
        dist[i] = min(cand, max_t[i])
        if ranges[i] // dist[i] > 0:
            threads = max(1, threads // (ranges[i] // dist[i]))
    # reduceDistributionWorkgroups: at most 2 x threads workgroups, growing tiles innermost first
    groups = [-(-ranges[i] // dist[i]) if dist[i] else 1 for i in range(n)]
    total, cur = math.prod(groups), n
    while total > 2 * RUNTIME_THREADS and cur > 0:
        i = cur - 1
        size = dist[i]
        if not size or size >= max_t[i] or size >= ranges[i]:
            cur -= 1
            continue
        new = min(size * 2, ranges[i])
        v = hint[i]
        if v > 1 and size % v == 0 and ranges[i] % size == 0 and (new % v or ranges[i] % new):
            cur -= 1
            continue
        dist[i] = new
        g = -(-ranges[i] // new)
        if g < groups[i]:
            total = total // groups[i] * g
            groups[i] = g
        else:
            cur -= 1
    for i in range(n):
        if not dist[i]:
            continue
        new = -(-ranges[i] // -(-ranges[i] // dist[i]))
        if hint[i] > 1 and (new % hint[i] or ranges[i] % new):
            continue
        dist[i] = new
    return [_max_dist_tile(ranges[i], dist[i], 1) if dist[i] else 0 for i in range(n)]


def _max_dist_tile(num: int, max_size: int, vec: int) -> int:
    """`getMaxDistributionTileSize`: a divisor of `num` up to `max_size`, a multiple of `vec` if possible."""
    if num <= max_size and num < vec:
        return num
    for i in range(min(max_size, num) // vec * vec, 0, -vec):
        if num % i == 0:
            return i
    for i in range(min(max_size, num), 0, -1):
        if num % i == 0:
            return i
    return 1


def _max_vec_tile(num: int, tile: int, vec: int) -> int:
    """`getMaxVectorTileSize` (no power-of-two rounding)."""
    if num <= tile and num < vec:
        return num
    for i in range(min(tile, num) // vec * vec, 0, -vec):
        if num % i == 0:
            return i
    for i in range(min(tile, num), 0, -1):
        if num % i == 0:
            return i
    return 1


def _limit_vec(vec: list[int], each_max: int, all_max: int, bits: Sequence[int], dims: Sequence[set[int]]) -> None:
    """`limitVectorTileSizes`: shrink vector tiles (to powers of two) until every operand's tile fits
    `each_max` bits and all together fit `all_max` (the SIMD register file), halving `each_max`."""
    while True:
        tile_bits = list(bits)
        if any(b > each_max for b in tile_bits):
            return
        for loop in reversed(range(len(vec))):
            for i, ds in enumerate(dims):
                if loop not in ds or vec[loop] == 0:
                    continue
                old = vec[loop]
                new = min(old, max(1, each_max // tile_bits[i]))
                if new != old:
                    new = _bit_floor(new)
                vec[loop] = new
                tile_bits[i] *= new
        if sum(tile_bits) <= all_max:
            return
        each_max //= 2


def _conv2d_layout(op: OpDesc, dims: list[set[int]]) -> tuple[str, bool] | None:
    """("conv", batched) for a 2-D NCHW convolution (loops n, f, oh, ow, c, kh, kw), ("pool", batched)
    for NCHW pooling (n, c, oh, ow, kh, kw), recognised from iterator types and which loops each operand
    reads; else None. `batched` is False for the forms without the batch loop that folding unit dims
    leaves (f, oh, ow, c, kh, kw / c, oh, ow, kh, kw): IREE specializes them back to the named NCHW op
    with a unit batch and tiles them as such (configurations dumped from IREE 3.13)."""
    its = op.iterator_types
    if op.num_dps_inputs != 2 or len(dims) < 3:
        return None
    x, w, out = dims[0], dims[1], dims[2]
    for layout, n_red, want in (("conv", 3, _CONV_READS), ("pool", 2, _POOL_READS)):
        if layout == "conv" and op.kind is not OpKind.CONVOLUTION:
            continue
        for batched in (True, False):
            shift = 0 if batched else 1
            n_par = 4 - shift
            if its != ("parallel",) * n_par + ("reduction",) * n_red:
                continue
            if (x, w, out) == tuple({d - shift for d in ds if d >= shift} for ds in want):
                return layout, batched
    return None


# Loops each operand (input, filter/window, output) reads, in the batched NCHW loop order.
_CONV_READS = ({0, 2, 3, 4, 5, 6}, {1, 4, 5, 6}, {0, 1, 2, 3})    # n, f, oh, ow, c, kh, kw
_POOL_READS = ({0, 1, 2, 3, 4, 5}, {4, 5}, {0, 1, 2, 3})          # n, c, oh, ow, kh, kw


@lru_cache(maxsize=1 << 14)
def _conv2d_tiles(ranges: tuple[int, ...], layout: str, dims: tuple[frozenset[int], ...], elem_bits: int,
                  lanes: int, register_space_bits: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    n = len(ranges)
    part = [i for i in range(4) if ranges[i] != 1][-3:]  # partitionable: non-unit parallel loops, innermost 3
    hints = [1] * n
    hints[3] = lanes  # IREE hints the vector size on loop 3 (OW in NCHW order)
    dist = _dist_tiles(ranges, part, hints)
    # x86 NHWC targets {1,1,8,V,1,1,8} / pooling {1,1,8,V,1,8}, permuted to NCHW loop order
    vec = [1, lanes, 1, 8, 8, 1, 1] if layout == "conv" else [1, lanes, 1, 8, 1, 8]
    for i in range(n):
        if vec[i] != 1:
            vec[i] = _max_vec_tile(dist[i] or ranges[i], vec[i], lanes)
    _limit_vec(vec, register_space_bits, register_space_bits, [elem_bits] * len(dims), [set(d) for d in dims])
    return tuple(dist), tuple(vec)


def conv2d_tiles(op: OpDesc, vector_bits: int, register_space_bits: int
                 ) -> tuple[str, tuple[int, ...], tuple[int, ...]] | None:
    """(layout, distribution tiles, vector tiles) IREE's CPU backend gives a 2-D NCHW conv or pooling
    op, in the op's loop order; None for other ops (depthwise/grouped convs take IREE's default path)."""
    dims = operand_dims(op)
    if dims is None or len(op.loop_ranges) not in (5, 6, 7):
        return None
    found = _conv2d_layout(op, dims)
    if found is None:
        return None
    layout, batched = found
    ranges = tuple(op.loop_ranges)
    if not batched:  # tile as IREE does: the named op with a unit batch loop 0, then drop that loop
        ranges = (1, *ranges)
        dims = [({0} if i != 1 else set()) | {d + 1 for d in ds} for i, ds in enumerate(dims[:3])]
    bits = 8 * elem_bytes(op.element_types[-1] if op.element_types else "f32")
    lanes = max(1, vector_bits // bits)
    dist, vec = _conv2d_tiles(ranges, layout, tuple(frozenset(d) for d in dims[:3]), bits, lanes,
                              register_space_bits)
    return (layout, dist, vec) if batched else (layout, dist[1:], vec[1:])


def conv_vector_fit(op: OpDesc, vector_bits: int, register_space_bits: int) -> tuple[bool, float] | None:
    """(scalar, register-tile utilisation) of a 2-D NCHW conv on a CPU, or None if not one.
    scalar: a vector tile does not divide its workgroup tile along OW or F, so the remainder is peeled
    into scalar loops (IREE's x86 strategy for named ops), or OW is not vectorized at all (vector of 1:
    the vectors run along F, across rows, so every output access is strided). utilisation, in (0, 1]:
    min(1, F rows / FMA_CHAINS) ^ CONV_ROW_EXPONENT x min(1, OW vector / CONV_OW_VECTOR): few accumulator
    rows leave the pipes waiting on FMA latency, a short OW vector wastes lanes. Until 2026-12-04 it was
    (OW vector / lanes) x (F rows / FMA_CHAINS) x (channels unrolled / lanes), which with the keys'
    efficiencies then priced convs 8-130x slower than measured (a [2, 2, 16, 16] -> 32-channel 3x3 conv
    predicted 351 us, ran 6.4), so the rewrites replaced IREE's fast direct conv by slower forms."""
    t = conv2d_tiles(op, vector_bits, register_space_bits)
    if t is None or t[0] != "conv":
        return None
    _, dist, vec = t
    if len(dist) == 6:  # no batch loop: put a unit one back so the NCHW positions below hold
        dist, vec, ranges = (0, *dist), (1, *vec), (1, *op.loop_ranges)
    else:
        ranges = tuple(op.loop_ranges)
    w_tile, f_tile = dist[3] or ranges[3], dist[1] or ranges[1]
    scalar = w_tile % vec[3] != 0 or f_tile % vec[1] != 0 or (vec[3] == 1 and w_tile > 1)
    util = min(1.0, vec[1] / FMA_CHAINS) ** CONV_ROW_EXPONENT * min(1.0, vec[3] / CONV_OW_VECTOR)
    return scalar, util


def strided(op: OpDesc, pos: int = 0) -> bool:
    """Whether input `pos` is read with a stride > 1 along a parallel loop (`d2 * 2 + d5`)."""
    if len(op.indexing_maps) <= pos:
        return False
    for r in map_results(op.indexing_maps[pos]):
        for d, s in _SCALED.findall(r):
            if int(s) > 1 and int(d) < len(op.iterator_types) and op.iterator_types[int(d)] == "parallel":
                return True
    return False


def any_strided(op: OpDesc) -> bool:
    """Whether some input is read with a stride > 1 along a parallel loop."""
    return any(strided(op, i) for i in range(op.num_dps_inputs))


def fastest_dim(op: OpDesc, map_text: str) -> int | None:
    """The loop an operand of `op` varies fastest along: its map's last result, when a plain dim."""
    res = map_results(map_text)
    hit = re.fullmatch(r"\s*d(\d+)\s*", res[-1]) if res else None
    return int(hit.group(1)) if hit and int(hit.group(1)) < len(op.loop_ranges) else None


def contiguous_run(op: OpDesc, pos: int) -> int | None:
    """Elements operand `pos` of `op` reads contiguously along its loops once IREE collapses them: the
    product of its fastest loop and the loops just left of it that collapse with it (`loops_collapse`)
    and that it reads in the same order; None when its fastest index is not a plain loop."""
    f = fastest_dim(op, op.indexing_maps[pos]) if pos < len(op.indexing_maps) else None
    if f is None:
        return None
    tail = [f]
    mine = op.map_dims[pos] if pos < len(op.map_dims) else ()
    while (tail[0] > 0 and len(mine) > len(tail) and mine[-len(tail) - 1] == tail[0] - 1
           and loops_collapse(op, [tail[0] - 1, *tail])):
        tail.insert(0, tail[0] - 1)
    return math.prod(op.loop_ranges[d] for d in tail)


def vector_dim(op: OpDesc) -> int | None:
    """The loop IREE vectorizes: the rightmost loop that is some operand's fastest-varying index (each
    operand's map's last result, when a plain dim); None without maps."""
    dims = [d for d in (fastest_dim(op, m) for m in op.indexing_maps) if d is not None]
    return max(dims) if dims else None


def masked(op: OpDesc, vector_bits: int) -> bool:
    """Whether IREE's CPU backend runs the op's vectorized loop with masked vectors: its tile is longer
    than one vector and not a multiple of it (x86 vectorizes linalg.generic with masking), or it is a
    unit loop (one-lane vectors: scalar code, e.g. an op over (1, C, 1, 1) tensors). A parallel
    loop's tile is the whole row up to 64 elements, else the row's largest divisor <= 64; a reduction
    loop is not distributed."""
    d = vector_dim(op)
    if d is None:
        return False
    row = op.loop_ranges[d]
    if row == 1:  # a unit row: vectors of one lane, i.e. scalar code (when there is more than one element)
        return math.prod(op.loop_ranges) > 1
    bits = 8 * elem_bytes(op.element_types[-1] if op.element_types else "f32")
    lanes = max(1, vector_bits // bits)
    if row <= lanes or row % lanes == 0:
        return False
    if op.iterator_types[d] == "parallel" and row > MAX_DIST_TILE:
        row = _max_dist_tile(row, MAX_DIST_TILE, lanes)
    return row > lanes and row % lanes != 0


def image_in_one_tile(flat: Sequence[int], image: Sequence[int]) -> bool:
    """Whether a result laid out `[..., H*W]` and padded as `[..., H, W]` (unit dims aside) holds its whole
    image in one distribution tile (H*W <= 64): a region of ours can then store it through the reshape
    straight into the padded buffer (transforms/padded_results.py) without its tiles crossing image rows.
    Measured (2026-12-01, this 2-core AVX-512 VM), matmul + epilogue stored into the padded buffer
    against the same dispatch plus a copy: 38.3 against 36.8 + 1.1 us at [128, 7, 7] (one dispatch less);
    at [256, 14, 14], [128, 28, 28] and [64, 56, 56] the store cost 10-20, 30 and 65 us more than the copy
    (tiles of 49 or 56 columns across rows of 14, 28, 56)."""
    s = tuple(d for d in flat if d != 1)
    t = tuple(d for d in image if d != 1)
    if not s or len(t) <= len(s) or s[:-1] != t[:len(s) - 1]:
        return False
    return math.prod(t[len(s) - 1:]) == s[-1] <= MAX_DIST_TILE
