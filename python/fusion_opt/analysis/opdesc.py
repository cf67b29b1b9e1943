"""Pure descriptions of ops and of the dataflow between them: no MLIR objects past this point.

The planner and the cost model only see these frozen dataclasses, so they can be tested with
hand-written descriptions and run without a compiler (tinygrad / TVM style).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from enum import Enum


class OpKind(str, Enum):
    """What an op does to data, derived from indexing maps and iterator types (never from its name)."""

    ELEMENTWISE = "elementwise"    # all loops parallel, every map the identity
    BROADCAST = "broadcast"        # all parallel; some input maps drop dims (incl. fill: scalar -> tensor)
    INJECTIVE = "injective"        # transpose / reshape / slice: pure data movement, each output read once
    REDUCTION = "reduction"        # has reduction loops, no multiply-accumulate of two tensors
    CONTRACTION = "contraction"    # mul-add over a reduction dim shared by two inputs (matmul, bmm)
    CONVOLUTION = "convolution"    # contraction whose input maps index with sums of dims (d0 + d4)
    PAD = "pad"                    # tensor.pad / copy: materializes a bigger or equal buffer
    OPAQUE = "opaque"              # anything else (concat, scalar ops, unknown ops)


@dataclass(frozen=True)
class OpDesc:
    """One op of a function body, as plain data.

    `indexing_maps` hold each operand's map as text (`(d0, d1) -> (d1)`), inputs first then outputs;
    `map_dims` gives, per map, the loop index of each result expression, or -1 where the result is
    not a single loop dim (e.g. `d0 + d4` in a conv, or a constant). `operands` name the producer of
    each tensor operand: an op index, or a negative number for function arguments (-1 - arg_no),
    or None for values defined by constants/tensor.empty (free to rematerialize).
    """

    index: int
    name: str                                   # "linalg.matmul", "linalg.generic", "tensor.pad"
    loc: str                                    # "file.mlir:12:5" or an ONNX node name
    kind: OpKind
    loop_ranges: tuple[int, ...] = ()
    iterator_types: tuple[str, ...] = ()        # "parallel" | "reduction" | "window"
    indexing_maps: tuple[str, ...] = ()
    map_dims: tuple[tuple[int, ...], ...] = ()
    element_types: tuple[str, ...] = ()          # per tensor operand then result: "f32", "i64", ...
    operand_shapes: tuple[tuple[int, ...], ...] = ()
    result_shapes: tuple[tuple[int, ...], ...] = ()
    operands: tuple[int | None, ...] = ()        # producer op index per tensor operand (see above)
    num_dps_inputs: int = 0                      # for destination-style ops: how many operands are ins
    body_ops: tuple[str, ...] = ()               # scalar ops in a generic's body ("arith.addf", ...)
    flops: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    dispatchable: bool = True                    # False: metadata-only or left to IREE (reshape, concat)
    attrs: tuple[tuple[str, str], ...] = ()      # extra facts (strides, dilations, fusion pins)
    captured_args: tuple[int, ...] = ()          # function arguments read inside the body (a gather of an input)

    @property
    def is_reduction(self) -> bool:
        return "reduction" in self.iterator_types


_INT = re.compile(r"-?\d+")


def outermost_non_unit(shape: tuple[int, ...] | list[int]) -> int:
    """The first dim of `shape` whose extent is not 1 (its rank when every one is): where a slice or a concat
    is still one contiguous run of memory, as IREE reasons about both."""
    return next((k for k, n in enumerate(shape) if n != 1), len(shape))


def static_ints(op: OpDesc, key: str) -> tuple[int, ...]:
    """An `array<i64: 0, 1, 1>` attribute kept in `op.attrs` (`static_low`, `static_offsets`, ...) as
    (0, 1, 1); () when absent."""
    return tuple(int(v) for v in _INT.findall(dict(op.attrs).get(key, "").split(":", 1)[-1]))


def reassociation(op: OpDesc) -> list[list[int]] | None:
    """A reshape's `reassociation` attribute kept in `op.attrs` (`[[0], [1, 2, 3]]`) as lists of dims;
    None when absent or not in that form."""
    text = dict(op.attrs).get("reassociation")
    if text is None:
        return None
    try:
        return [list(g) for g in json.loads(text)]
    except (ValueError, TypeError):
        return None


# Metadata-only ops: IREE turns them into flow.tensor.reshape, outside every dispatch.
RESHAPE_OPS = ("tensor.collapse_shape", "tensor.expand_shape")


# Edge.operand of a value the consumer reads inside its body (`tensor.extract` of a captured tensor: a
# gather), not through an operand: no indexing map says which elements, so the whole tensor is read.
CAPTURED = 1 << 20


@dataclass(frozen=True)
class Edge:
    producer: int
    consumer: int
    operand: int      # operand position in the consumer (CAPTURED: read inside its body)
    result: int = 0   # result number of the producer

    @property
    def captured(self) -> bool:
        return self.operand >= CAPTURED


@dataclass(frozen=True)
class DataflowGraph:
    """Producer -> consumer graph of one function. `ops` are in program (topological) order."""

    function: str
    ops: tuple[OpDesc, ...]
    edges: tuple[Edge, ...]
    outputs: frozenset[int] = field(default_factory=frozenset)  # ops whose result the function returns

    @cached_property
    def _adjacency(self) -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]:
        """(consumers, producers) of every op, built once from `edges` (sorted, deduplicated): the
        planners and the cost model ask per op, which would otherwise scan all edges each time."""
        cons: dict[int, set[int]] = {}
        prods: dict[int, set[int]] = {}
        for e in self.edges:
            cons.setdefault(e.producer, set()).add(e.consumer)
            prods.setdefault(e.consumer, set()).add(e.producer)
        return ({i: tuple(sorted(s)) for i, s in cons.items()}, {i: tuple(sorted(s)) for i, s in prods.items()})

    def consumers(self, i: int) -> tuple[int, ...]:
        return self._adjacency[0].get(i, ())

    def producers(self, i: int) -> tuple[int, ...]:
        return self._adjacency[1].get(i, ())

    @cached_property
    def _out_edges(self) -> dict[int, tuple[Edge, ...]]:
        out: dict[int, list[Edge]] = {}
        for e in self.edges:
            out.setdefault(e.producer, []).append(e)
        return {i: tuple(es) for i, es in out.items()}

    def uses_through(self, i: int, see_through: Callable[[OpDesc], bool]) -> tuple[Edge, ...]:
        """The edges by which op i's value is read, looking through the ops `see_through` accepts
        (reshapes: no dispatch holds them, so the reader past them is the one that matters). An edge's
        producer is i or the last op looked through."""
        out: list[Edge] = []
        todo, seen = [i], {i}
        while todo:
            for e in self._out_edges.get(todo.pop(), ()):
                if not see_through(self.ops[e.consumer]):
                    out.append(e)
                elif e.consumer not in seen:
                    seen.add(e.consumer)
                    todo.append(e.consumer)
        return tuple(out)


def describe(op: OpDesc) -> str:
    """`op 12 (linalg.generic at x.mlir:7:3)`: how reasons and errors name an op."""
    return f"op {op.index} ({op.name} at {op.loc})"
