"""What a fusion group touches, derived from OpDesc data: the inputs it reads, the results it writes,
and the tensors that stay inside (never materialized). The cost model prices only this view.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter

from ..analysis.classify import map_results
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind

_BITS = {"i1": 8, "i8": 8, "f8": 8, "i16": 16, "f16": 16, "bf16": 16, "i32": 32, "f32": 32,
         "i64": 64, "f64": 64, "index": 64}
_ELEM_BYTES: dict[str, int] = {}
_INDEX = attrgetter("index")


def elem_bytes(dtype: str) -> int:
    n = _ELEM_BYTES.get(dtype)
    if n is None:
        digits = "".join(ch for ch in dtype if ch.isdigit())
        n = _ELEM_BYTES[dtype] = max(1, _BITS.get(dtype, int(digits) if digits else 32) // 8)
    return n


@dataclass(frozen=True)
class TensorRef:
    """A tensor crossing the group boundary or living inside it. `key` identifies it: ("op", i) for
    op i's result, ("arg", n) for function argument n, ("const", op, pos) for an inline constant."""

    key: tuple[object, ...]
    shape: tuple[int, ...]
    dtype: str

    @cached_property
    def nbytes(self) -> int:
        return math.prod(self.shape) * elem_bytes(self.dtype)


@dataclass(frozen=True)
class GroupView:
    """One fusion group as the cost model sees it.

    `ops` are the members in program order; `duplicated` lists members that are copies of ops also
    computed by another group (their compute is recomputation and their result is not written here).
    """

    ops: tuple[OpDesc, ...]
    inputs: tuple[TensorRef, ...]
    outputs: tuple[TensorRef, ...]
    intermediates: tuple[TensorRef, ...]
    duplicated: frozenset[int] = frozenset()
    # where each input comes from, aligned with `inputs` (empty: unknown): "arg", "const", or the
    # producing op's `distribution` ("tiled" / "streamed"); decides which cache still holds it
    sources: tuple[str, ...] = ()

    @property
    def indices(self) -> tuple[int, ...]:
        return tuple(op.index for op in self.ops)


_DIST: dict[int, tuple[OpDesc, str]] = {}


def distribution(op: OpDesc) -> str:
    """How a CPU backend spreads op's work over cores: "tiled" (contraction, convolution and pooling:
    2-D/3-D workgroup tiles) or "streamed" (everything else: rows of the result). Two dispatches of the
    same distribution touch the same data on the same core; across distributions data moves between
    cores."""
    if op.kind in (OpKind.CONTRACTION, OpKind.CONVOLUTION):
        return "tiled"
    if op.kind is not OpKind.REDUCTION:
        return "streamed"
    hit = _DIST.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    if len(_DIST) >= _OP_FACTS_MAX:
        _DIST.clear()
    d = "tiled" if op.indexing_maps and any("+" in r for r in map_results(op.indexing_maps[0])) else "streamed"
    _DIST[id(op)] = (op, d)
    return d


def reads_init(op: OpDesc) -> bool:
    """Whether op reads its destination (init) operands: accumulators yes, fresh outs no. From
    bytes_read when the describer filled it, else by iterator types (reductions accumulate)."""
    ins = sum(math.prod(s) * elem_bytes(t) for s, t in zip(op.operand_shapes[:op.num_dps_inputs], op.element_types))
    if op.bytes_read:
        return op.bytes_read > ins
    return op.is_reduction


def _dtype(op: OpDesc, pos: int) -> str:
    return op.element_types[pos] if pos < len(op.element_types) else "f32"


def read_operands(op: OpDesc) -> list[int]:
    """Operand positions whose data op reads."""
    n = len(op.operand_shapes) if op.operand_shapes else len(op.operands)
    ins = op.num_dps_inputs if op.num_dps_inputs or not op.result_shapes else n
    return [p for p in range(n) if p < ins or reads_init(op)]


# Per-op facts the views are built from, keyed by id(op) (the op is kept in the entry, so an id is
# never reused while cached); cleared when it grows past this many ops.
_OP_FACTS_MAX = 1 << 17
_OP_FACTS: dict[int, tuple[OpDesc, tuple[tuple[tuple[int | None, tuple[object, ...], TensorRef], ...],
                                          tuple[TensorRef, ...]]]] = {}


def _op_facts(op: OpDesc) -> tuple[tuple[tuple[int | None, tuple[object, ...], TensorRef], ...],
                                   tuple[TensorRef, ...]]:
    """(reads, results) of op, computed once per op: reads are (producer, input key, ref) per operand
    whose data op reads (tensor.empty destinations left out), results one ref per result."""
    hit = _OP_FACTS.get(id(op))
    if hit is not None and hit[0] is op:
        return hit[1]
    reads = []
    for pos in read_operands(op):
        src = op.operands[pos] if pos < len(op.operands) else None
        shape = op.operand_shapes[pos] if pos < len(op.operand_shapes) else ()
        if src is None and pos >= op.num_dps_inputs:
            continue  # tensor.empty destination: nothing to read
        key: tuple[object, ...] = (("const", op.index, pos) if src is None
                                   else ("arg", -1 - src) if src < 0 else ("op", src))
        reads.append((src, key + (shape,), TensorRef(key, shape, _dtype(op, pos))))
    results = tuple(TensorRef(("op", op.index, r), shape, _dtype(op, len(op.operand_shapes) + r))
                    for r, shape in enumerate(op.result_shapes or ((),)))
    if len(_OP_FACTS) >= _OP_FACTS_MAX:
        _OP_FACTS.clear()
    facts = (tuple(reads), results)
    _OP_FACTS[id(op)] = (op, facts)
    return facts


def _build(ops: Sequence[OpDesc], escapes: Iterable[int], duplicated: frozenset[int],
           op_at: Callable[[int], OpDesc | None] | None = None) -> GroupView:
    ops = tuple(sorted(ops, key=_INDEX))
    members = {o.index for o in ops}
    escapes = set(escapes) - duplicated
    inputs: dict[tuple[object, ...], TensorRef] = {}
    facts = [_op_facts(op) for op in ops]
    for reads, _ in facts:
        for src, key, ref in reads:
            if src is not None and src in members:
                continue
            if key not in inputs:
                inputs[key] = ref
    outs: list[TensorRef] = []
    inner: list[TensorRef] = []
    for op, (_, results) in zip(ops, facts):
        (outs if op.index in escapes else inner).extend(results)
    ins = tuple(inputs.values())
    sources = tuple(source_of(x.key, op_at) for x in ins) if op_at is not None else ()
    return GroupView(ops, ins, tuple(outs), tuple(inner), duplicated, sources)


def group_view(graph: DataflowGraph, op_indices: Iterable[int], duplicated: Iterable[int] = ()) -> GroupView:
    """View of the ops `op_indices` of `graph` as one group. A member's result escapes when an op
    outside the group consumes it, the function returns it, or nothing consumes it at all. Inputs
    carry their source (`GroupView.sources`)."""
    members = set(op_indices)
    consumers, outputs, escapes = graph.consumers, graph.outputs, set()
    for i in members:
        cs = consumers(i)
        if i in outputs or not cs or any(c not in members for c in cs):
            escapes.add(i)
    ops = graph.ops
    return _build([ops[i] for i in members], escapes, frozenset(duplicated),
                  lambda i: ops[i] if 0 <= i < len(ops) else None)


def source_of(key: tuple[object, ...], op_at: Callable[[int], OpDesc | None]) -> str:
    """Source of an input keyed `key` (see TensorRef): "arg", "const", the producer's distribution,
    or "" when the producer is unknown."""
    if key[0] == "op":
        p = op_at(int(key[1]))  # type: ignore[call-overload]
        return distribution(p) if p is not None else ""
    return "arg" if key[0] == "arg" else "const"


def view_of_ops(ops: Sequence[OpDesc], duplicated: Iterable[int] = ()) -> GroupView:
    """View of hand-picked ops taken as a whole group: results no member consumes escape."""
    members = {o.index for o in ops}
    consumed = {p for o in ops for p in o.operands if p is not None and p in members}
    return _build(ops, members - consumed, frozenset(duplicated))
