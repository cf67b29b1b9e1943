"""IREE flags our `cost` mode turns on per module, and why: levers that are not per dispatch in IREE 3.13.

Data tiling (`--iree-opt-data-tiling`) packs each matmul's operands into the target's register-tile
layout (`mmt4d`) around the dispatch. Off by default in IREE; measured on this 2-core AVX2 VM: a
4-layer MLP 62.6 -> 23.2 ms (onnxruntime 22.9), ResNet-50 with its convs as im2col + matmul
(rewrites/im2col.py) ~800 -> 96 ms. It only changes contractions, so it is asked for when the plan
has one. It replaces IREE's matmul tile selection, so it is left off when our own tile sizes
(`tile_sizes="cost"`) or codegen strategies are requested: their configs would be dropped.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..analysis.opdesc import DataflowGraph, OpKind
from .targets import get_target

DATA_TILING = "--iree-opt-data-tiling"


def data_tiling_flags(graphs: Iterable[DataflowGraph], fusion: str, target: str, tile_sizes: str = "iree",
                      codegen_strategies: bool = False, user_flags: Sequence[str] = ()) -> tuple[str, ...]:
    """`(DATA_TILING,)` when the `cost` mode compiles a contraction for a CPU target, else ()."""
    if (fusion != "cost" or not get_target(target).is_cpu or tile_sizes != "iree" or codegen_strategies
            or any(f.startswith("--iree-opt-data-tiling") for f in user_flags)):
        return ()
    has_matmul = any(op.kind is OpKind.CONTRACTION for g in graphs for op in g.ops)
    return (DATA_TILING,) if has_matmul else ()
