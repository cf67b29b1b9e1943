"""What a fusion group touches, derived from OpDesc data: the inputs it reads, the results it writes,
and the tensors that stay inside (never materialized). The cost model prices only this view.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..analysis.opdesc import DataflowGraph, OpDesc

_BITS = {"i1": 8, "i8": 8, "f8": 8, "i16": 16, "f16": 16, "bf16": 16, "i32": 32, "f32": 32,
         "i64": 64, "f64": 64, "index": 64}


def elem_bytes(dtype: str) -> int:
    digits = "".join(ch for ch in dtype if ch.isdigit())
    return max(1, _BITS.get(dtype, int(digits) if digits else 32) // 8)


@dataclass(frozen=True)
class TensorRef:
    """A tensor crossing the group boundary or living inside it. `key` identifies it: ("op", i) for
    op i's result, ("arg", n) for function argument n, ("const", op, pos) for an inline constant."""

    key: tuple[object, ...]
    shape: tuple[int, ...]
    dtype: str

    @property
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

    @property
    def indices(self) -> tuple[int, ...]:
        return tuple(op.index for op in self.ops)


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


def _build(ops: Sequence[OpDesc], escapes: Iterable[int], duplicated: frozenset[int]) -> GroupView:
    ops = tuple(sorted(ops, key=lambda o: o.index))
    members = {o.index for o in ops}
    escapes = set(escapes) - duplicated
    inputs: dict[tuple[object, ...], TensorRef] = {}
    for op in ops:
        for pos in read_operands(op):
            src = op.operands[pos] if pos < len(op.operands) else None
            shape = op.operand_shapes[pos] if pos < len(op.operand_shapes) else ()
            if src is not None and src in members:
                continue
            if src is None and pos >= op.num_dps_inputs:
                continue  # tensor.empty destination: nothing to read
            key: tuple[object, ...] = (("const", op.index, pos) if src is None
                                       else ("arg", -1 - src) if src < 0 else ("op", src))
            inputs.setdefault(key + (shape,), TensorRef(key, shape, _dtype(op, pos)))
    outs, inner = [], []
    for op in ops:
        for r, shape in enumerate(op.result_shapes or ((),)):
            ref = TensorRef(("op", op.index, r), shape, _dtype(op, len(op.operand_shapes) + r))
            (outs if op.index in escapes else inner).append(ref)
    return GroupView(ops, tuple(inputs.values()), tuple(outs), tuple(inner), duplicated)


def group_view(graph: DataflowGraph, op_indices: Iterable[int], duplicated: Iterable[int] = ()) -> GroupView:
    """View of the ops `op_indices` of `graph` as one group. A member's result escapes when an op
    outside the group consumes it, the function returns it, or nothing consumes it at all."""
    members = set(op_indices)
    escapes = {i for i in members
               if i in graph.outputs or not graph.consumers(i) or any(c not in members for c in graph.consumers(i))}
    return _build([graph.ops[i] for i in members], escapes, frozenset(duplicated))


def view_of_ops(ops: Sequence[OpDesc], duplicated: Iterable[int] = ()) -> GroupView:
    """View of hand-picked ops taken as a whole group: results no member consumes escape."""
    members = {o.index for o in ops}
    consumed = {p for o in ops for p in o.operands if p is not None and p in members}
    return _build(ops, members - consumed, frozenset(duplicated))
