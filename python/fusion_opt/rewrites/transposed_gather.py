"""Gathers from a transposing copy read the copy's source instead.

Why: PyTorch's `nn.MultiheadAttention` (every `nn.TransformerEncoder`/`Decoder` export) splits the
packed QKV projection as `proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)` and then
takes `proj[0]`, `proj[1]`, `proj[2]`: a transposing copy of the whole `[L, N, 3, E]` projection to
`[3, L, N, E]`, read by three `Gather`s of a constant index, which the importer writes as
`linalg.generic`s reading the copy with `tensor.extract`. A read inside a body cannot be composed with
its producer's indexing maps, so the copy was a dispatch of its own on every call (20 us of a 2-layer
128-wide encoder's ~330 us a layer, this VM), where IREE's default formation ran none. Each
`tensor.extract` of the copy at `[i_0, ..., i_n]` is the source at the permuted indices, so the extracts
are rewritten to read the source and the copy is erased: the same elements, never more work.

Only a copy whose every use is a `tensor.extract` (so nothing else needs it materialized) of a computed
source: a transposed constant is evaluated by IREE at compile time and costs nothing per call.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..analysis.opdesc import DataflowGraph, OpDesc
from ..ir import erase_dead_empty, ir, use_owner

NAME = "transposed-gather"


def source_dims(op: OpDesc) -> tuple[int, ...] | None:
    """For a transposing copy (out[j] = in[j[d_0], j[d_1], ...], some d_k != k), the dims (d_0, ...);
    None for any other op."""
    if op.name not in ("linalg.generic", "linalg.transpose") or op.body_ops or op.num_dps_inputs != 1 \
            or len(op.result_shapes) != 1 or set(op.iterator_types) != {"parallel"} or len(op.map_dims) != 2:
        return None
    src, out = op.map_dims
    rank = len(op.loop_ranges)
    if out != tuple(range(rank)) or sorted(src) != list(range(rank)) or src == out:
        return None
    return src


def find(graph: DataflowGraph, skip: set[int] = frozenset()) -> list[int]:
    """Transposing copies of a computed tensor (not a constant), not returned, read by other ops only inside
    their bodies (`apply` checks in the IR that each such read is a `tensor.extract`)."""
    out = []
    for op in graph.ops:
        if op.index in skip or op.index in graph.outputs or source_dims(op) is None or op.operands[0] is None:
            continue
        reads = graph.uses_through(op.index, lambda _: False)
        if reads and all(e.captured for e in reads):
            out.append(op.index)
    return out


def apply(graph: DataflowGraph, ops: Sequence[ir.Operation], i: int) -> bool:
    """Point every extract of copy `i` at its source, indices permuted, and erase the copy; False (nothing
    changed) when some use is not a `tensor.extract`."""
    copy, dims = ops[i], source_dims(graph.ops[i])
    uses = [use_owner(u) for u in copy.results[0].uses]
    if not uses or any(x.name != "tensor.extract" for x in uses):
        return False
    src = copy.operands[0]
    for extract in uses:
        at = list(extract.operands)[1:]
        extract.operands[0] = src
        for k, d in enumerate(dims):
            extract.operands[1 + k] = at[d]
    init = copy.operands[1]
    copy.erase()
    erase_dead_empty(init)
    return True


def read_through_transposes(graph: DataflowGraph, ops: Sequence[ir.Operation], skip: set[int] = frozenset()) -> int:
    """Rewrite every site; returns how many (the caller describes the function again when > 0)."""
    return sum(apply(graph, ops, i) for i in find(graph, skip))
