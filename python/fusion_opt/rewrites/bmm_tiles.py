"""Tile sizes for the batch matmuls IREE's llvm-cpu heuristic would leave unvectorized.

Why: without loop peeling, IREE 3.13 picks each vector tile of a batch matmul as the largest divisor
of the loop range up to the vector width (KernelDispatch.cpp; `--iree-hal-dump-executable-
configurations-to`). A prime sequence length leaves it no divisor but 1: ViT's 197 tokens, where the
attention scores `[B, 197, 64] x [B, 64, 197]` got vector tiles [1, 1, 1] and ran in 3.3-4.0 ms,
against 0.26 ms with the peeled 8 x 8 register tile IREE picks for regular shapes (`backends.lowering.
iree_bmm_compilation_info`, the one the Winograd and im2col rewrites attach); `[B, 197, 197] x [B, 197,
64]` 0.37 -> 0.28 ms. Where a divisor of at least `MIN_VECTOR` exists IREE's own choice is kept: on
50 and 77 tokens (divisors 5 and 7) the peeled tile measured 0.88-1.11x IREE's, on 128 1.31x slower.
The arithmetic is unchanged (tiling only); applied to every such batch matmul on a CPU target.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.classify import NAMED_MATMUL_DIMS
from ..analysis.opdesc import DataflowGraph
from ..backends.lowering import iree_bmm_compilation_info
from ..cost.tiling import divisor_at_most
from ..ir import ir

NAME = "bmm-tiles"
MIN_VECTOR = 4  # a divisor this wide (or wider) up to the vector width: IREE's tile vectorizes well enough
ROW_TILE, COL_TILE = 8, 16  # IREE's f32 register tile bounds on x86 (rows of M, lanes of N)


def scalar_tiled(m: int, n: int) -> bool:
    """Whether IREE's heuristic would give M or N a vector tile narrower than `MIN_VECTOR` (that dim
    itself being longer than that)."""
    return any(size > MIN_VECTOR and divisor_at_most(size, cap) < MIN_VECTOR
               for size, cap in ((m, ROW_TILE), (n, COL_TILE)))


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[int]:
    """Named `linalg.batch_matmul`s with default maps and f32 operands whose M or N IREE would tile scalar."""
    return [op.index for op in graph.ops
            if op.name == "linalg.batch_matmul" and tuple(op.map_dims) == NAMED_MATMUL_DIMS[op.name]
            and op.index not in skip and all(t == "f32" for t in op.element_types)
            and scalar_tiled(op.loop_ranges[1], op.loop_ranges[2])]


def attach_bmm_tiles(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Give each found batch matmul IREE's peeled tile as a `compilation_info` (not changing the IR's
    structure, so the graph stays valid); returns how many. Ops that already carry one keep it."""
    done = 0
    for i in find(graph, skip):
        op = ops[i]
        if "compilation_info" in op.attributes:
            continue
        _, m, n, _ = graph.ops[i].loop_ranges
        with op.context:
            op.attributes["compilation_info"] = ir.Attribute.parse(iree_bmm_compilation_info(m, n))
        done += 1
    return done


PACK_ROWS = 16  # IREE's f32 mmt4d register tile rows (M0) on this x86 CPU: M is padded to a multiple
WINDOW_BATCH, WINDOW_ROWS, WINDOW_K = 64, 64, 64


def small_padded_windows(b: int, m: int, n: int, k: int) -> bool:
    """Whether a batch matmul [b, m, k] x [b, k, n] runs faster unpacked in a data-tiled module: many
    batches (>= 64) of short rows (m <= 64) that packing pads (m not a multiple of `PACK_ROWS`), with
    K < 64 (windowed attention: 49-token windows). Measured, not priced (per-dispatch profiles, packing
    dispatches included, against IREE's own peeled tile, this 2-core AVX-512 VM, 2026-12-02): Swin-T's
    192x49x49x32 and 192x49x32x49 packed 1.40x and 1.28x the unpacked time, a windowed block's 64x49x49x16
    1.05-1.36x, 64x49x16x49 1.15-2.30x; packing wins with K = 64 (64x49x49x64: 0.89), batch <= 32
    (32x49x49x32: 0.93; batch 4: 0.36-0.95), 128-token attention (4x128x128x64: 0.36). A roofline pricing
    of the packed form got 6 of 43 grid shapes wrong, so this rule stays narrow."""
    return b >= WINDOW_BATCH and m <= WINDOW_ROWS and m % PACK_ROWS != 0 and k < WINDOW_K


def keep_batch_matmuls_unpacked(planned: Sequence) -> int:
    """In a compile that data-tiles the module (`--iree-opt-data-tiling`, asked for by a plain matmul),
    give every f32 batch matmul with an operand computed by a reduction (and no `compilation_info` yet)
    IREE's own peeled tile, which keeps data tiling off it; returns how many. Why: IREE 3.13 miscompiled
    such a packed batch matmul, its left operand a reduction over the outer dim fed by another reduction
    (fuzz seed 13215, test/fuzz/iree/datatiling-reduction-bmm.mlir: 84 of 126 elements wrong, IREE's own
    formation too). Not every batch matmul: packed, attention's ran 5-8% faster (attention block 0.67-0.80
    against 0.71-1.18 ms, interleaved), and their operands come from projections, transposes and softmax's
    division. Also every batch matmul of small padded windows (`small_padded_windows`). `planned`:
    PlannedFunctions after their regions are written (the ops are still the plan's)."""
    from ..analysis.opdesc import OpKind

    done = 0
    for p in planned:
        g = p.graph
        for desc, op in zip(g.ops, p.ops):
            if (desc.name != "linalg.batch_matmul" or tuple(desc.map_dims) != NAMED_MATMUL_DIMS[desc.name]
                    or any(t != "f32" for t in desc.element_types) or "compilation_info" in op.attributes
                    or not (any(x is not None and x >= 0 and g.ops[x].kind is OpKind.REDUCTION
                                for x in desc.operands[:2]) or small_padded_windows(*desc.loop_ranges))):
                continue
            _, m, n, _ = desc.loop_ranges
            with op.context:
                op.attributes["compilation_info"] = ir.Attribute.parse(iree_bmm_compilation_info(m, n))
            done += 1
    return done
