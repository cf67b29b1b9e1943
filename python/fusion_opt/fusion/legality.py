"""Legality of fusion groups as a table of rules, each with a name and a one-line reason.

Every planner (greedy, cost, search) and pin validation ask the same two questions:
`check_group(graph, members)` (may these ops form one dispatch?) and `check_merge(part, a, b)` (may
two groups of a partition merge?). Rules are pure functions of OpDesc data; the backend rules record
what IREE 3.13 llvm-cpu was seen to compile (or fail on) in one `flow.dispatch.region`.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..analysis.classify import LIGHT, map_results
from ..analysis.opdesc import RESHAPE_OPS, DataflowGraph, OpDesc, OpKind, static_ints
from ..cost.group import elem_bytes
from ..cost.tiling import fastest_dim
from ..testhooks import DISABLED_RULES

MATRIX = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION})


@dataclass(frozen=True)
class Verdict:
    """Answer of a legality question: `rule` names the first rule that failed, `reason` says why."""

    ok: bool
    rule: str = ""
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok

    def refusal(self) -> str:
        return f"refused: illegal [{self.rule}]: {self.reason}"


LEGAL = Verdict(True)


class IndexedGraph(DataflowGraph):
    """A DataflowGraph with adjacency precomputed: `consumers`/`producers` in O(1) instead of a scan of
    all edges (the cost model's `group_view` asks once per member, which is quadratic otherwise)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        n = len(self.ops)
        cons: list[set[int]] = [set() for _ in range(n)]
        prods: list[set[int]] = [set() for _ in range(n)]
        ins: list[list[Any]] = [[] for _ in range(n)]
        for e in self.edges:
            cons[e.producer].add(e.consumer)
            prods[e.consumer].add(e.producer)
            ins[e.consumer].append(e)
        object.__setattr__(self, "_cons", [tuple(sorted(s)) for s in cons])
        object.__setattr__(self, "_prods", [tuple(sorted(s)) for s in prods])
        object.__setattr__(self, "in_edges", [tuple(x) for x in ins])

    def consumers(self, i: int) -> tuple[int, ...]:
        return self._cons[i]  # type: ignore[attr-defined]

    def producers(self, i: int) -> tuple[int, ...]:
        return self._prods[i]  # type: ignore[attr-defined]


def indexed(graph: DataflowGraph) -> IndexedGraph:
    if isinstance(graph, IndexedGraph):
        return graph
    return IndexedGraph(graph.function, graph.ops, graph.edges, graph.outputs)


def numel(shape: Iterable[int]) -> int:
    return math.prod(shape)


def group_root(g: DataflowGraph, ops: Sequence[int]) -> int:
    """The op that decides a group's iteration space: its contraction/convolution, else its first
    reduction, else a pad or opaque op (a pinned pad precedes its conv, which stays the root), else
    the last op of the chain."""
    for kinds in (MATRIX, {OpKind.REDUCTION}, {OpKind.PAD, OpKind.OPAQUE}):
        for i in ops:
            if g.ops[i].kind in kinds:
                return i
    return ops[-1]


_CONST_CACHE: dict[int, tuple[object, frozenset[int]]] = {}


def constant_ops(g: DataflowGraph) -> frozenset[int]:
    """Ops that compute only from constants (BatchNorm's rsqrt(var + eps), scaled weights): IREE's
    const-eval hoists them into globals computed at compile time, but only outside dispatch regions.
    Splats (fills, no tensor input) are not counted: they are cloned into consumers instead; elementwise ops
    of splats are.
    Cached per ops tuple (every IndexedGraph view of a graph shares it): rules ask once per check."""
    hit = _CONST_CACHE.get(id(g.ops))
    if hit is not None and hit[0] is g.ops:
        return hit[1]
    const: set[int] = set()
    captured: dict[int, list[int]] = {}
    for e in g.edges:
        if e.captured:
            captured.setdefault(e.consumer, []).append(e.producer)
    splats = {op.index for op in g.ops if is_fill_like(op)}
    for op in g.ops:  # program order: producers first
        ins = op.operands[:op.num_dps_inputs] if op.num_dps_inputs else op.operands
        if not ins or op.index in splats or op.captured_args:  # a gather of an input is no constant
            continue
        # An elementwise op of a splat is one too (fuzz seed 22255: IREE folded half(half(fill 0.5)) to a splat
        # inside our region, which then returned a splat and failed, as rule `copy-result` says); not a
        # reduction over a splat, which IREE 3.13 computes wrong in any dispatch (rule `splat-reduction`).
        elementwise = set(op.iterator_types) == {"parallel"}
        if all(p is None or (p >= 0 and (p in const or (elementwise and p in splats)))
               for p in (*ins, *captured.get(op.index, ()))):
            const.add(op.index)  # None: a constant (or empty)
    result = frozenset(const)
    if len(_CONST_CACHE) > 64:
        _CONST_CACHE.clear()
    _CONST_CACHE[id(g.ops)] = (g.ops, result)
    return result


def is_fill_like(op: OpDesc) -> bool:
    """Light op with no tensor producer and no tensor input: a splat such as linalg.fill, free to
    rematerialize. Not a transpose or broadcast of a constant tensor (a channels-last conv's filter):
    that is data, which IREE's const-eval computes once (rule `constant`), not a splat to copy into
    each consumer (DenseNet-121 ran its 30 filter transposes as dispatches on every call). Nor a gather
    of a constant index (`tensor.extract` in the body: an unrolled LSTM's step reading its row of the input
    projection): it reads a tensor, so IREE does not clone it, and handed back it was a dispatch per step."""
    return (_scalar_reader(op) and all(p is None for p in op.operands)
            and "tensor.extract" not in op.body_ops and not op.captured_args)


def _scalar_reader(op: OpDesc) -> bool:
    """A light op computing nothing from scalar (rank-0) inputs only: a splat, or a gather at indices
    read from scalars."""
    return op.kind in LIGHT and op.flops == 0 and all(len(s) == 0 for s in op.operand_shapes[:op.num_dps_inputs])


def _downstream(g: IndexedGraph, src: int, members: frozenset[int]) -> set[int]:
    seen, stack = set(), [src]
    while stack:
        for c in g.consumers(stack.pop()):
            if c in members and c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


def _upstream(g: IndexedGraph, srcs: Iterable[int], members: frozenset[int]) -> set[int]:
    """`srcs` and the members they compute from (the twin of `_downstream`)."""
    seen, stack = set(srcs), list(srcs)
    while stack:
        for e in g.in_edges[stack.pop()]:  # type: ignore[attr-defined]
            if e.producer in members and e.producer not in seen:
                seen.add(e.producer)
                stack.append(e.producer)
    return seen


def _read_loops(op: OpDesc, operand: int) -> set[int]:
    """The loop dims `op`'s map of `operand` reads (a broadcast read skips the others)."""
    return {int(d) for r in map_results(op.indexing_maps[operand]) for d in re.findall(r"d(\d+)", r)}


# ---- group rules: (graph, members) -> None when fine, else the reason -------------------------------

def groupable(op: OpDesc) -> bool:
    """Whether `op` may be in a group: dispatchable, or a pad (which joins its conv's group)."""
    return op.dispatchable or op.name == "tensor.pad"


def _r_dispatchable(g: IndexedGraph, m: frozenset[int]) -> str | None:
    for i in sorted(m):
        if not groupable(g.ops[i]):
            return f"op {i} ({g.ops[i].name}) is left to IREE outside every dispatch"
    return None


def _r_constant(g: IndexedGraph, m: frozenset[int]) -> str | None:
    const = constant_ops(g) & m
    if const and const != m:
        i = min(const)
        return (f"op {i} ({g.ops[i].name}) computes only from constants (IREE evaluates it at compile time "
                f"outside dispatches) and op {min(m - const)} does not")
    return None


def _r_pad(g: IndexedGraph, m: frozenset[int]) -> str | None:
    for i in sorted(m):
        if g.ops[i].kind is OpKind.PAD and not any(
                c in m and g.ops[c].kind is OpKind.CONVOLUTION for c in g.consumers(i)):
            return f"pad op {i} ({g.ops[i].name}) needs its convolution consumer in the group"
    return None


def _r_opaque(g: IndexedGraph, m: frozenset[int]) -> str | None:
    opaque = [i for i in sorted(m) if g.ops[i].kind is OpKind.OPAQUE]
    return f"op {opaque[0]} ({g.ops[opaque[0]].name}) has unknown data movement" if opaque and len(m) > 1 else None


def _r_captured_read(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A gather (`tensor.extract` in the body) may read any element of the tensor it captures, so that
    tensor's producer cannot be tiled into it: IREE keeps such producers in a dispatch of their own. Its
    edge was missing from the graph until 2026-12-01, and a 2-layer TransformerEncoder got a group
    holding an embedding gather and a later residual add, with the attention between them: a cycle."""
    for c in sorted(m):
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            if e.captured and e.producer in m:
                return f"op {c} reads op {e.producer}'s result inside its body (a gather of the whole tensor)"
    return None


def _r_transpose(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """ShuffleNet's channel shuffle (a 5-D transpose) fused with its producers exceeded IREE's 32 KiB
    stack limit in llvm-cpu codegen, with or without the conv, and a max pool reading through a transpose
    ran 3.3x slower: a permuting op joins a group only as the prologue of elementwise work (its input
    from outside, its every reader an elementwise or broadcast member), the form IREE's own formation
    builds (`elementwise_transpose` dispatches: a channels-last conv's NCHW output read by its SiLU)."""
    perm = [i for i in sorted(m) if g.ops[i].kind is OpKind.INJECTIVE and g.ops[i].name == "linalg.transpose"]
    if not perm or len(m) == 1:
        return None
    for i in perm:
        inside = [p for p in g.producers(i) if p in m]
        if inside:
            return f"op {i} (linalg.transpose) permutes the result of op {inside[0]} in the group"
        outside = [c for c in g.consumers(i) if c not in m]
        if outside:
            return f"op {i} (linalg.transpose) is also read by op {outside[0]} outside the group"
    heavy = [i for i in sorted(m - set(perm)) if g.ops[i].kind not in (OpKind.ELEMENTWISE, OpKind.BROADCAST)]
    if heavy:
        return f"op {perm[0]} (linalg.transpose) permutes the input of op {heavy[0]} ({g.ops[heavy[0]].kind.value})"
    return None


def _r_one_contraction(g: IndexedGraph, m: frozenset[int]) -> str | None:
    mx = [i for i in sorted(m) if g.ops[i].kind in MATRIX]
    return f"ops {mx[0]} and {mx[1]} are both contractions/convolutions" if len(mx) > 1 else None


def _r_single_root(g: IndexedGraph, m: frozenset[int]) -> str | None:
    sinks = [i for i in sorted(m) if not any(c in m for c in g.consumers(i))]
    return f"ops {sinks[0]} and {sinks[1]} are independent outputs (no single root)" if len(sinks) > 1 else None


_DIM = re.compile(r"^d(\d+)$")
_OFFSET = re.compile(r"^d(\d+)\s*([+-])\s*(\d+)$")


def _access(op: OpDesc, pos: int) -> tuple[tuple[str, int], ...]:
    """Per result of operand `pos`'s map: ("dim", d) | ("const", 0) | ("offset", c) | ("window", 0)."""
    if pos >= len(op.indexing_maps):
        return ()
    return _map_access(op.indexing_maps[pos])


@functools.lru_cache(maxsize=4096)
def _map_access(map_text: str) -> tuple[tuple[str, int], ...]:
    """`_access` of one map's text (memoized: a graph has few distinct maps)."""
    out = []
    for r in map_results(map_text):
        r = r.strip()
        if _DIM.match(r):
            out.append(("dim", int(r[1:])))
        elif re.fullmatch(r"-?\d+", r):
            out.append(("const", 0))
        elif (mo := _OFFSET.match(r)):
            out.append(("offset", int(mo.group(3)) * (1 if mo.group(2) == "+" else -1)))
        else:
            out.append(("window", 0))
    return tuple(out)


def _r_tile_fuse(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """The consumer's read of the producer's result must follow the producer's loops: the producer
    writes through an invertible (permutation) map, and the consumer reads at i + c with c <= 0 (a read
    at i + c, c > 0, needs a value of a later iteration: negative dependence distance). Window reads
    (d0 + d4) recompute the producer on overlapping tiles: only for light producers and pads."""
    for c in sorted(m):
        cop = g.ops[c]
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            if e.producer not in m:
                continue
            pop = g.ops[e.producer]
            if pop.indexing_maps:
                out = _access(pop, pop.num_dps_inputs + e.result)
                # a keepdim result map (d0, d1, 0) fails IREE tiling ("result is not accessed using a
                # permuted projection"), seen on ONNX ReduceMean: only pure permutations are fused through
                dims = [d for k, d in out if k == "dim"]
                if len(dims) != len(out) or len(set(dims)) != len(dims):
                    return f"op {e.producer} writes its result through a non-invertible map"
            for kind, val in _access(cop, e.operand):
                if kind == "offset" and val > 0:
                    return (f"op {c} reads op {e.producer} at an offset of +{val}: "
                            "negative dependence distance")
                if kind == "window" and pop.kind not in LIGHT | {OpKind.PAD}:
                    return f"op {c} reads {pop.kind.value} op {e.producer} through a window (recomputed per tile)"
            # IREE 3.13 recomputes such a producer per tile with the wrong loop indices: a select on
            # `linalg.index` fused into a max pool was wrong by 3.4 (IREE's own formation keeps them apart)
            if "linalg.index" in pop.body_ops and window_read(cop, e.operand):
                return (f"op {c} reads op {e.producer}, which computes from its loop indices (linalg.index), "
                        "through a window (its recomputed tiles get the wrong indices)")
    return None


# Three groups IREE 3.13 llvm-cpu cannot compile, found by `fusion-bench fuzz` (docs/reliability.md);
# each rule's minimal reproducer is in test/fuzz/iree/.

def _r_const_read(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """In a group rooted at a reduction/contraction/convolution, a consumer reading a producer of the group
    at a constant index (a size-1 dim read at 0, `(d0, 0)`) fails codegen ("failed to run translation");
    in a group of light ops it compiles."""
    if all(g.ops[i].kind in LIGHT for i in m):
        return None
    for c in sorted(m):
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            if e.producer in m and any(k == "const" for k, _ in _access(g.ops[c], e.operand)):
                return f"op {c} reads op {e.producer} at a constant index in a group with a heavy root"
    # With a reduction to a scalar in the group, a constant-index read of any operand fails too: a mean of
    # exp(x[0, ...]) over everything, "'vector.contract' op invalid accumulator/result vector shape" (fuzz
    # seed 20920; the same group reducing fewer dims, or the lone reduction, compiles).
    full = next((i for i in sorted(m) if g.ops[i].kind is OpKind.REDUCTION and len(m) > 1
                 and set(g.ops[i].iterator_types) == {"reduction"}), None)
    if full is not None:
        for c in sorted(m):
            if any(k == "const" for pos in range(g.ops[c].num_dps_inputs) for k, _ in _access(g.ops[c], pos)):
                return (f"op {c} reads an operand at a constant index in a group with op {full}'s reduction "
                        "to a scalar")
    return None


def window_read(op: OpDesc, pos: int) -> bool:
    """Operand `pos` is read through a map that is no permutation of loops: a window, stride or offset
    (`d1 * 2`, `d0 + d3`, `d1 + 2`)."""
    return any(k in ("window", "offset") for k, _ in _access(op, pos))


def reads_at_offset(op: OpDesc) -> bool:
    """The op reads one of its inputs at a constant offset (`d1 + 2`): a stencil tap."""
    return any(k == "offset" for pos in range(op.num_dps_inputs) for k, _ in _access(op, pos))


def _r_offset_read(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """An op reading an operand at a constant offset (`d1 + 2`) followed by a consumer in the same
    dispatch crashes (segfault) the compiler."""
    for i in sorted(m):
        op = g.ops[i]
        if reads_at_offset(op) and any(c in m for c in g.consumers(i)):
            return f"op {i} reads an operand at an offset and feeds a consumer in the group"
    return None


def _leaves(g: IndexedGraph, m: frozenset[int], i: int) -> bool:
    """Member i's result is a result of the group: a function output, unread, or read outside it."""
    cons = g.consumers(i)
    return i in g.outputs or not cons or not all(c in m for c in cons)


def _r_copy_result(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A fill or a tensor.extract_slice (a splat or a copy, no arithmetic) whose result leaves a dispatch of
    several ops (as its sink, or also read outside) fails codegen ("write affecting operations on global
    resources are restricted to workgroup distributed contexts"). An elementwise op leaving it is fine.
    So does a transposing copy (a body-less generic reading through a permutation: how the importer writes
    ONNX Transpose) that is both read inside the dispatch and a result of it (Llama's and Qwen2's head
    transposes, with the rotary embedding's multiply: four groups fell back); as the dispatch's sink alone
    it compiles."""
    if len(m) < 2:
        return None
    for i in sorted(m):
        op = g.ops[i]
        cons = g.consumers(i)
        leaves = _leaves(g, m, i)
        if _transposing_copy(op):
            if leaves and any(c in m for c in cons):
                return f"transposing copy op {i} is a result of the group and read inside it"
            continue
        if op.name != "tensor.extract_slice" and not is_fill_like(op):
            continue
        if leaves:
            return f"{'slice' if op.name == 'tensor.extract_slice' else 'fill'} op {i} is a result of the group"
    return None


def _r_gather_result(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """In a group with a gather (`tensor.extract` in a body), a member whose result is both read inside the
    dispatch and a result of it fails IREE llvm-cpu codegen ("write affecting operations on global
    resources are restricted to workgroup distributed contexts"): the gather itself or any op after it,
    masked or not. Without the gather (the same read through an indexing map) it compiles, and so does a
    gather group whose only result is its sink. Found on GridSample's expansion: samplers sharing one
    grid share their coordinate ops (every group fell back)."""
    if not any("tensor.extract" in g.ops[i].body_ops for i in m):
        return None
    for i in sorted(m):
        if _leaves(g, m, i) and any(c in m for c in g.consumers(i)):
            return f"op {i} is a result of a group with a gather and read inside it"
    return None


def _transposing_copy(op: OpDesc) -> bool:
    """A linalg.generic that only moves its one input through a non-identity permutation of its loops."""
    if op.name != "linalg.generic" or op.body_ops or op.num_dps_inputs != 1 or len(op.map_dims) != 2:
        return False
    src, dst = op.map_dims
    return sorted(src) == sorted(dst) and -1 not in src and src != dst


def slice_strides(op: OpDesc) -> tuple[int, ...]:
    """A tensor.extract_slice's static strides (() for any other op or a dynamic stride)."""
    return static_ints(op, "static_strides") if op.name == "tensor.extract_slice" else ()


def _r_strided_slice(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A strided `tensor.extract_slice` of a result computed in the same group: IREE cannot tile the
    producer through the strides, so every workgroup computes the producer's whole result, on its stack
    ("exceeded stack allocation limit": ShuffleNet's dense stride-2 depthwise taps and their slice) or not
    at all ("write affecting operations on global resources": test/fuzz/iree/strided-slice.mlir). The
    slice joins its consumers' group and reads the producer's result from memory."""
    for i in sorted(m):
        if any(st != 1 for st in slice_strides(g.ops[i])):
            inner = [p for p in g.producers(i) if p in m]
            if inner:
                return f"strided slice op {i} reads op {inner[0]} of the same group"
    return None


def _read_of_escaping_member(g: IndexedGraph, m: frozenset[int],
                             reads: Callable[[tuple[tuple[str, int], ...]], bool],
                             slices: bool = False) -> tuple[int, int] | None:
    """(producer, consumer) of the first in-group read whose access `reads` selects (with `slices`, also a
    tensor.extract_slice of part of it), of a member whose result also leaves the group (a function
    output, or read outside it); None if there is none."""
    for c in sorted(m):
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            p = e.producer
            if p not in m or not _leaves(g, m, p):
                continue
            if e.operand < len(g.ops[c].indexing_maps) and reads(_access(g.ops[c], e.operand)):
                return p, c
            if slices and _slices_part(g.ops[c]):
                return p, c
    return None


def _partial(acc: tuple[tuple[str, int], ...]) -> bool:
    return not all(k == "dim" for k, _ in acc)


def _slices_part(op: OpDesc) -> bool:
    """A tensor.extract_slice taking less than its whole source (a read of part of it, without a map)."""
    return (op.name == "tensor.extract_slice" and bool(op.operand_shapes)
            and numel(op.result_shapes[0]) < numel(op.operand_shapes[0]))


def _r_scalar_result(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A group member read by another as a scalar (a map without loop dims: rank 0, or only size-1 dims
    read at 0) whose result also leaves the dispatch fails codegen (the same "write affecting operations
    on global resources" error); read through a loop dim, or not leaving, it compiles."""
    hit = _read_of_escaping_member(g, m, lambda acc: not any(k == "dim" for k, _ in acc))
    return f"op {hit[0]} is read as a scalar by op {hit[1]} and is a result of the group" if hit else None


def _r_reduction_result_broadcast(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A reduction whose result leaves the dispatch and feeds another reduction inside it (a mean returned,
    subtracted and the squares summed), computed from a member that reads an input from outside through a
    broadcast (its map skips a parallel loop of extent > 1): IREE 3.13 computed the returned reduction twice
    into its output, 2x the value (fuzz seed 27307: a returned mean, `x - mean` and a sum of squares, after a
    prologue `max(x, tanh(w[d1, d2, d3]))`; right with that input read through all loops, with the mean not
    returned, or with the broadcast read only downstream of the mean, as LayerNorm's gamma). A returned
    softmax sum read by its division only (a segmentation head's channel softmax) compiles right."""
    escaping = [r for r in sorted(m) if g.ops[r].kind is OpKind.REDUCTION and _leaves(g, m, r)
                and any(g.ops[c].kind is OpKind.REDUCTION for c in _downstream(g, r, m))]
    if not escaping:
        return None
    for c in sorted(_upstream(g, escaping, m)):
        op = g.ops[c]
        if op.kind in MATRIX:
            continue  # a contraction's weight skips loops by nature: not this broadcast
        for e in range(min(op.num_dps_inputs, len(op.indexing_maps))):
            p = op.operands[e]
            if p is None or p in m:
                continue  # a constant, or read from the group (rule `broadcast-result`)
            read = _read_loops(op, e)
            if any(n > 1 and t == "parallel" and d not in read
                   for d, (n, t) in enumerate(zip(op.loop_ranges, op.iterator_types))):
                return (f"reduction op {escaping[0]} is a result of the group and read inside it, and op {c} "
                        "reads an input through a broadcast")
    return None


def _r_broadcast_result(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """An all-parallel member broadcast by another (its reader's map skips a loop of extent > 1) whose result
    also leaves the dispatch fails codegen: the member is recomputed in every tile along the skipped loop and
    each would store it ("'vector.store' op write affecting operations on global resources are restricted to
    workgroup distributed contexts"; fuzz seed 21223: a returned relu of a bias row, added to every row of a
    matrix). Not leaving, or read through all the reader's loops, it compiles."""
    for c in sorted(m):
        reader = g.ops[c]
        if set(reader.iterator_types) != {"parallel"}:
            continue
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            p = e.producer
            if p not in m or set(g.ops[p].iterator_types) != {"parallel"} or not _leaves(g, m, p):
                continue
            if e.operand >= min(reader.num_dps_inputs, len(reader.indexing_maps)):
                continue  # an init, or no map (a slice: rule `partial-read`)
            read = _read_loops(reader, e.operand)
            skipped = [d for d, n in enumerate(reader.loop_ranges) if n > 1 and d not in read]
            if skipped:
                return f"op {p} is broadcast by op {c} and is a result of the group"
    return None


def reads_splat(g: DataflowGraph, i: int, e_operand: int, producer: int) -> bool:
    """Op i is a reduction reading splat `producer` as a data input (not as its accumulator)."""
    op = g.ops[i]
    return (op.kind is OpKind.REDUCTION and e_operand < op.num_dps_inputs and is_fill_like(g.ops[producer]))


def splat_reader(g: IndexedGraph, producer: int) -> int | None:
    """A reduction reading splat `producer` as a data input, if any: the planners do not clone the splat
    into it (`splat-reduction`); left alone, IREE evaluates the splat at compile time and the reduction
    reads it from memory (fuzz seed 17198: a sum of squares of 33 twos came out 12, not 132)."""
    for c in g.consumers(producer):
        edges = g.in_edges[c]  # type: ignore[attr-defined]
        if any(e.producer == producer and reads_splat(g, c, e.operand, producer) for e in edges):
            return c
    return None


def _r_splat_reduction(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A reduction reading a splat (a `linalg.fill`) as its input in the same dispatch is computed wrong by
    IREE 3.13 llvm-cpu, with no error: the mean of eight -1s came out -0.125, a sum of squares of ten 0.5s
    1.25 (the body applied once; fuzz seeds 13506, 15003, 15132; its own formation too). Read from
    memory (the splat in a dispatch of its own) it is right."""
    for c in sorted(m):
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            if e.producer in m and reads_splat(g, c, e.operand, e.producer):
                return f"reduction op {c} reads splat op {e.producer} as its input"
    return None


def _r_shared_const_read(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A member that is a result of the group and reads, at a constant index (a size-1 dim read at 0,
    `(0, d1, d2)`), a producer that another member also reads fails IREE llvm-cpu tiling ("result is not
    accessed using a permuted projection": fuzz seeds 13647, 13675, test/fuzz/iree/shared-const-read.mlir).
    Found on light groups only: the heavy ones are refused by `const-read` first. With the producer read
    by the reader alone, or the reader not leaving the group, it compiles."""
    for c in sorted(m):
        if not _leaves(g, m, c):
            continue
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            p = e.producer
            if p not in m or not any(k == "const" for k, _ in _access(g.ops[c], e.operand)):
                continue
            if any(x != c and x in m for x in g.consumers(p)):
                return (f"op {c} reads op {p} at a constant index and is a result of the group, "
                        f"and op {p} has another consumer in it")
    return None


def _r_partial_read(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A member whose result leaves the group, read inside it through a map that is not a permutation of
    its loops (strided `d1 * 2`, window, offset, constant index) or by a `tensor.extract_slice` of part of it:
    the dispatch is tiled by the consumer's space, which covers only the elements it reads, so the result
    written out is partial. Found on ResNet-50 once a strided 1x1 conv's window copy joined the previous
    block's ReLU (wrong numbers); through a slice, IREE refuses it ("write affecting operations on global
    resources": fuzz seed 15080)."""
    hit = _read_of_escaping_member(g, m, _partial, slices=True)
    if hit:
        return f"op {hit[0]} is a result of the group but op {hit[1]} reads only part of it"
    hit3 = _partial_read_downstream(g, m)
    return (f"op {hit3[0]} is a result of the group but op {hit3[2]} reads only part of op {hit3[1]}, which "
            f"computes from it in the group") if hit3 else None


def _partial_read_downstream(g: IndexedGraph, m: frozenset[int]) -> tuple[int, int, int] | None:
    """(escaping member, member computed from it elementwise, partial reader of the latter): the dispatch is
    tiled by the reader's space, so the escaping result is written only where the chain is read (fuzz seed
    24538: a returned `x - b`, its relu, and a max pool whose window leaves the last column unread: that
    column of `x - b` came back 0)."""
    def elementwise(i: int) -> bool:
        return set(g.ops[i].iterator_types) == {"parallel"} and g.ops[i].kind in LIGHT

    for p in sorted(m):
        if not _leaves(g, m, p) or not elementwise(p):
            continue
        seen, todo = {p}, [p]
        while todo:
            q = todo.pop()
            for e in (e for c in g.consumers(q) if c in m and c not in seen
                      for e in g.in_edges[c] if e.producer == q):  # type: ignore[attr-defined]
                c = e.consumer
                acc = _access(g.ops[c], e.operand) if e.operand < len(g.ops[c].indexing_maps) else ()
                if q != p and (_partial(acc) if acc else _slices_part(g.ops[c])):
                    return p, q, c
                if acc and not _partial(acc) and elementwise(c):
                    seen.add(c)
                    todo.append(c)
    return None


def _r_side_input(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """In a group with a contraction/convolution, every member computes from it or feeds it: an op that
    does neither (e.g. another matmul's bias add joining this one's residual add) gave wrong ResNet-50
    numbers in IREE 3.13 once 1x1 convs became 2-D matmuls (rewrites/im2col.py)."""
    heavy = [i for i in m if g.ops[i].kind in MATRIX]
    if not heavy:
        return None
    cone, todo = set(heavy), list(heavy)
    while todo:  # forward: what computes from the contraction
        for c in g.consumers(todo.pop()):
            if c in m and c not in cone:
                cone.add(c)
                todo.append(c)
    todo = list(heavy)
    while todo:  # backward: what feeds it (fills, pads)
        for e in g.in_edges[todo.pop()]:  # type: ignore[attr-defined]
            if e.producer in m and e.producer not in cone:
                cone.add(e.producer)
                todo.append(e.producer)
    # A splat reads nothing, so that miscompile cannot reach it: hand-written `.mlir` passes scalars to
    # `linalg.elementwise` as fills (`x * 0.5`: a mul by a filled tensor), which IREE clones into dispatches.
    side = sorted(i for i in m - cone if not _row_gather(g, i, m) and not is_fill_like(g.ops[i]))
    return f"op {side[0]} neither computes from nor feeds contraction op {heavy[0]}" if side else None


def _row_gather(g: IndexedGraph, i: int, m: frozenset[int]) -> bool:
    """A gather at constant indices (scalar inputs only, `tensor.extract` of a tensor computed outside the
    group): an unrolled recurrence's step reading its row of the input projection, which its epilogue
    adds. IREE's own formation puts it in the matmul's dispatch (an LSTM step: 2 dispatches, against 3
    with the gather alone); it reads nothing the group computes, so the miscompile above cannot reach it."""
    op = g.ops[i]
    return (_scalar_reader(op) and "tensor.extract" in op.body_ops
            and not any(e.producer in m for e in g.in_edges[i]))  # type: ignore[attr-defined]


def _r_contraction_prologue(g: IndexedGraph, m: frozenset[int]) -> str | None:
    for c in sorted(m):
        cop = g.ops[c]
        if cop.kind not in MATRIX:
            continue
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            if e.producer not in m:
                continue
            pop = g.ops[e.producer]
            if e.operand >= cop.num_dps_inputs and not is_fill_like(pop):
                return f"op {e.producer} feeds the accumulator of op {c} (only a fill is fused there)"
            if e.operand < cop.num_dps_inputs and not (pop.kind is OpKind.PAD and cop.kind is OpKind.CONVOLUTION):
                return f"op {e.producer} feeds an input of {cop.kind.value} op {c} (only a pad into a conv)"
            if pop.name == "tensor.insert_slice" and any(st != 1 for st in static_ints(pop, "static_strides")):
                # a transposed conv's input spread out with zeros (as imported, `conv-transpose-phases` not taken):
                # IREE 3.13 fails to compile the strided insert in the conv's dispatch ("write affecting
                # operations on global resources are restricted to workgroup distributed contexts"; fuzz seeds
                # 33025, 33029): IREE's own formation keeps it a dispatch of its own
                return (f"op {e.producer} spreads the input of {cop.kind.value} op {c} with strides (a strided "
                        "insert_slice: IREE 3.13 cannot compile it in the conv's dispatch)")
            if pop.kind is OpKind.PAD:  # the pad itself joins; what it pads would be recomputed per window
                inner = [p for p in g.producers(e.producer) if p in m]
                if inner:
                    return (f"op {inner[0]} feeds pad op {e.producer} of {cop.kind.value} op {c} "
                            "(a prologue through the pad is recomputed for every overlapping window)")
    return None


def _r_root_space(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """Epilogues run over the root's output space, and read the group's members through one map: an epilogue
    reading a depthwise conv's result and its bias epilogue through two different permutations failed IREE
    3.13's llvm-cpu translation (fuzz seed 19404, greedy plan), and so did one reading the conv's result
    twice, transposed and not (its shrunk form): one tile of the conv cannot feed both reads."""
    for r in sorted(i for i in m if g.ops[i].kind in MATRIX):
        size = numel(g.ops[r].result_shapes[0]) if g.ops[r].result_shapes else 0
        for q in sorted(_downstream(g, r, m)):
            qd = g.ops[q]
            if qd.is_reduction or numel(qd.loop_ranges) != size:
                return f"epilogue op {q} of {g.ops[r].kind.value} op {r} iterates over a different space"
            reads = sorted((qd.map_dims[e.operand], e.producer) for e in g.in_edges[q]  # type: ignore[attr-defined]
                           if e.producer in m and e.operand < len(qd.map_dims))
            if len({mp for mp, _ in reads}) > 1:
                return (f"epilogue op {q} of {g.ops[r].kind.value} op {r} reads the group's ops "
                        f"{sorted({p for _, p in reads})} through different maps")
        clash = _root_position_clash(g, r, m)
        if clash is not None:
            return (f"epilogue op {clash} of {g.ops[r].kind.value} op {r} reads its elements at two positions "
                    "(through a permuting epilogue and directly)")
    return None


def _root_position_clash(g: IndexedGraph, r: int, m: frozenset[int]) -> int | None:
    """An epilogue whose loop meets two different dims of root `r`'s result through different paths: a
    permuting epilogue (`tanh` read through `(d3, d0, d2, d1)`) and then an op reading that and the root
    directly (fuzz seed 25336, a conv: IREE 3.13's llvm-cpu translation failed; each op alone reads the
    group through one map, which the per-op check sees). Tracks, per member, the root dim of each result dim."""
    rank = len(g.ops[r].result_shapes[0]) if g.ops[r].result_shapes else 0
    rel: dict[int, tuple[int | None, ...]] = {r: tuple(range(rank))}
    for q in sorted(_downstream(g, r, m)):
        qd = g.ops[q]
        loop_root: dict[int, int] = {}
        for e in g.in_edges[q]:  # type: ignore[attr-defined]
            if e.producer not in rel or e.operand >= len(qd.map_dims):
                continue
            for k, d in enumerate(qd.map_dims[e.operand]):
                root_dim = rel[e.producer][k] if k < len(rel[e.producer]) else None
                if d < 0 or root_dim is None:
                    continue
                if loop_root.setdefault(d, root_dim) != root_dim:
                    return q
        out = qd.map_dims[-1] if qd.map_dims else ()
        rel[q] = tuple(loop_root.get(d) if d >= 0 else None for d in out)
    return None


def _parallel_dims(op: OpDesc) -> tuple[int, ...]:
    return tuple(d for d, it in enumerate(op.iterator_types) if it == "parallel")


def _columns(op: OpDesc) -> bool:
    """A reduction whose reduced input varies fastest along a parallel loop: its rows are strided in memory
    (a softmax over the channels of NCHW)."""
    d = fastest_dim(op, op.indexing_maps[0]) if op.indexing_maps else None
    return d is not None and d < len(op.iterator_types) and op.iterator_types[d] == "parallel"


def _r_reduction(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """Row-wise multi-reduction: all reductions share loop ranges and iterators, and a consumer that
    broadcasts a reduced value back runs over that same full space, reading it at the parallel dims.
    A reduction of a strided axis (rows not contiguous in memory) has no reduction depending on it in the
    group: IREE 3.13 runs such a chain badly (softmax over the 21 channels of a [2, 21, 50, 70] NCHW map:
    552 us as one dispatch, 260 us as IREE's own two, each one reduction and its broadcast consumer;
    with argmax and log-softmax beside it 3.9 ms against 0.68)."""
    reds = [i for i in sorted(m) if g.ops[i].kind is OpKind.REDUCTION]
    if not reds:
        return None
    r0 = g.ops[reds[0]]
    for r in reds[1:]:
        rd = g.ops[r]
        if rd.loop_ranges != r0.loop_ranges or rd.iterator_types != r0.iterator_types:
            return f"reductions {reds[0]} and {r} iterate over different spaces (not row-wise)"
    full, reduced = numel(r0.loop_ranges), numel(r0.result_shapes[0]) if r0.result_shapes else 1
    pdims = _parallel_dims(r0)
    down = {r: _downstream(g, r, m) for r in reds}
    for a in reds:  # independent reductions (mean and sum of two tensors, combined by an epilogue) compile
        for b in reds:  # only when neither result leaves the group: IREE 3.13 fails its vector.store
            if a < b and b not in down[a] and a not in down[b] and (_leaves(g, m, a) or _leaves(g, m, b)):
                return (f"reductions {a} and {b} are independent and reduction {a if _leaves(g, m, a) else b} "
                        "is a result of the group (fuzz seed 19886: IREE llvm-cpu fails to store it)")
    reduced_side = set(reds).union(*down.values())
    for r in reds:
        for q in sorted(down[r]):
            qd = g.ops[q]
            n = numel(qd.loop_ranges)
            if n == reduced and n != full and not qd.is_reduction:
                continue
            if qd.loop_ranges != r0.loop_ranges:
                return f"op {q} consumes reduction {r} over a different space"
            if qd.is_reduction and _columns(g.ops[r]):
                return f"reduction {q} depends on reduction {r} of a strided axis (rows not contiguous)"
            for e in g.in_edges[q]:  # type: ignore[attr-defined]
                p = e.producer
                if p in reduced_side and numel(g.ops[p].result_shapes[0] if g.ops[p].result_shapes else ()) < n:
                    got = tuple(d for d in (qd.map_dims[e.operand] if e.operand < len(qd.map_dims) else ()) if d >= 0)
                    if got != pdims:
                        return f"op {q} broadcasts reduced op {p} over dims other than the reduced ones"
    return None




def _r_bool_operand(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A contraction's epilogue reading an i1 tensor from outside the group (a causal mask in `select`):
    with data tiling, IREE 3.13 gives the i1 operand the matmul result's packed layout, and its encode
    dispatch fails ("load_from_buffer ... element types must match"), or compiles and is wrong: a
    64-token GPT block's masked scores came out wrong with no error (max error 0.07 against onnxruntime;
    a larger block's failed, and after the fallback were wrong by 0.19)."""
    if not any(g.ops[i].kind is OpKind.CONTRACTION for i in m):
        return None
    for i in sorted(m):
        op = g.ops[i]
        if op.kind is OpKind.CONTRACTION:
            continue
        for k in range(min(op.num_dps_inputs, len(op.element_types), len(op.operands))):
            if op.element_types[k] == "i1" and op.operands[k] not in m:
                return f"op {i} reads an i1 operand {k} from outside the group of a contraction"
    return None


def _packed_uses(g: IndexedGraph, i: int) -> list[tuple[int, int]]:
    """(contraction, operand) pairs that read op i's result, directly or through reshapes. A sum of op i
    and a contraction's result (through its bias adds) counts as that contraction's accumulator (operand
    2): IREE folds the add into the matmul's init and packs it with the operands."""
    out: list[tuple[int, int]] = []
    for e in g.uses_through(i, lambda op: op.name in RESHAPE_OPS):
        c = g.ops[e.consumer]
        if c.kind is OpKind.CONTRACTION:
            out.append((e.consumer, e.operand))
        elif _is_add(c):
            out += [(k, 2) for k in _summed_contractions(g, e.consumer, skip=e.producer)]
    return out


def _is_add(op: OpDesc) -> bool:
    return op.kind in (OpKind.ELEMENTWISE, OpKind.BROADCAST) and op.body_ops == ("arith.addf",)


def _summed_contractions(g: IndexedGraph, add: int, skip: int, hops: int = 3) -> list[int]:
    """Contractions whose result reaches the add `add` through at most `hops` adds (bias, residual)."""
    found: list[int] = []
    for p in g.producers(add):
        if p == skip:
            continue
        if g.ops[p].kind is OpKind.CONTRACTION:
            found.append(p)
        elif hops > 1 and _is_add(g.ops[p]):
            found += _summed_contractions(g, p, skip=-1, hops=hops - 1)
    return found


def _r_packed_multi_output(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A dispatch with a reduction and several results, one of them an operand of a plain matmul: with data
    tiling, IREE fuses the operand's packing into that dispatch, which then exceeded the 32 KiB stack
    (torchvision's ViT-B/16: residual add + LayerNorm into its 197-row MLP matmul, 146688 bytes; a GPT
    block: embedding gather + LayerNorm into its 64-row QKV matmul, 32896 bytes). The accumulator is packed
    too: a residual (an embedding gather) read as a later matmul's init, packed in the dispatch of the
    gather + LayerNorm, unrolled to 44k lines of LLVM IR and took 37 s of a 40 s compile (a 2-layer
    TransformerEncoder; 2.5 s without the group). IREE's own formation of
    the same ops failed the same way, so the group is refused rather than handed back. One result
    compiles; so did 208 rows in a synthetic case, but the stack size follows IREE's tiles, not a rule we
    can state, so every size is refused. A contraction's group too: DenseNet-121 with its third transition's
    pool moved before the conv (rewrites/pool_conv.py), the 512x49 matmul returned both its result (to the
    concat) and its BN + ReLU epilogue, packed for the next 1x1 conv: "large vector sizes (32768 bytes)",
    and the fallback compiled the whole model without data tiling, 2x slower."""
    from ..cost.model import data_tileable

    if not any(g.ops[i].kind in (OpKind.REDUCTION, OpKind.CONTRACTION) for i in m):
        return None
    leaving = [i for i in sorted(m) if i in g.outputs or any(c not in m for c in g.consumers(i))]
    if len(leaving) < 2:
        return None
    for i in leaving:
        for c, operand in _packed_uses(g, i):
            if c not in m and operand <= 2 and data_tileable(g.ops[c]):
                what = "the accumulator" if operand == 2 else "an operand"
                return f"op {i}, one of several results of a group with a reduction, is {what} of matmul {c}"
    return None


def _r_packed_epilogues(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """Two or more results computed by the epilogue of a data-tiled matmul (not the matmul itself): IREE
    computes the epilogue in the packed layout and unpacks each result; the second unpack is vectorized as
    one whole workgroup tile, `vector<128x64xf32>`, and llvm-cpu refuses it ("large vector sizes (32768
    bytes)"). Seen on a ConvNeXt-V2 block: the 256x48x192 MLP matmul + GELU returning its output and its
    square (for the GRN norm); matmul + GELU + square alone failed from 256x192 and 1024x64 up (IREE's tile
    choice, not a size we can state: every size is refused), matmul + GELU returning the matmul's own
    result as well compiled. IREE's own formation of the loose ops made the same dispatch, so the plan
    avoids it: the square goes to its reduction's group, as IREE's default on the original graph does."""
    from ..cost.model import data_tileable

    roots = [i for i in sorted(m) if g.ops[i].kind is OpKind.CONTRACTION and data_tileable(g.ops[i])]
    if not roots:
        return None
    results = [i for i in sorted(m) if i not in roots and _leaves(g, m, i)]
    if len(results) < 2:
        return None
    return f"ops {results[0]} and {results[1]} are both results of matmul {roots[0]}'s epilogue"


# IREE llvm-cpu's `max_stack_allocation_size` for a dispatch function (bytes)
STACK_BYTES = 32768


def stacked_rows(rows: int) -> int:
    """Rows of a reduction IREE 3.13 llvm-cpu tiles one workgroup by: measured on InstanceNorm groups
    (reduce, centre, square, reduce; the centred value returned) by the stack each needed, 64 bytes over
    a whole number of rows: 8 rows -> 1, 16 -> 2, 32 -> 4, 64 -> 8, 96 -> 8 (48 compiled: at most 6); so
    an eighth of them, at most 8."""
    return min(8, max(1, rows // 8))


def _r_stacked_row(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A result of the group that a later reduction of the group reads (InstanceNorm's centered input
    `x - mean`, returned and squared for the variance): IREE keeps one whole reduced row of it on the
    workgroup's stack, which fails past 32 KiB ("exceeded stack allocation limit ... Got 65536 bytes": an
    InstanceNorm over 128x128 images; 64x128 compiled, 96x96 needed 36864 bytes). Read through another
    member (the square a separate op, which IREE fuses into the subtraction as a two-result op), it keeps
    one row per row of its workgroup tile, `stacked_rows`: a style-transfer net's InstanceNorms over 64
    channels of 32x32 (4 KiB rows) needed 32832 bytes and fell back; squared in the reduction's body, the
    same group over 64 rows compiled."""
    reds = [i for i in sorted(m) if g.ops[i].kind is OpKind.REDUCTION]
    if not reds:
        return None
    for i in sorted(m):
        if not _leaves(g, m, i):
            continue
        below = _downstream(g, i, m)
        for r in reds:
            if r != i and r in below:
                rd = g.ops[r]
                rows = max(1, numel(rd.result_shapes[0]) if rd.result_shapes else 1)
                types = g.ops[i].element_types
                row = numel(rd.loop_ranges) // rows * elem_bytes(types[-1] if types else "f32")
                t = 1 if r in g.consumers(i) else stacked_rows(rows)
                nbytes = t * row + (64 if t > 1 else 0)
                if nbytes > STACK_BYTES:
                    return (f"op {i} is a result of the group and reduction {r} reads it: {t} row(s) of {row} "
                            f"bytes on IREE's stack, {nbytes} (limit {STACK_BYTES})")
    return None


def _r_split_result(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """A group with two independent last reductions (neither reads the other: a Siamese head's two squared
    norms, multiplied into a cosine) and a result upstream of one but not the other: IREE 3.13 llvm-cpu fuses
    that result's computation into one reduction's loop, outside the distributed tile loop ("'vector.store'
    op write affecting operations on global resources are restricted to workgroup distributed contexts";
    minimal: `y = 2x` returned, `sum(y) * sum(w)`). A result upstream of all of them compiles."""
    reds = [i for i in sorted(m) if g.ops[i].kind is OpKind.REDUCTION]
    if len(reds) < 2:
        return None
    below = {r: _downstream(g, r, m) for r in reds}
    last = {r for r in reds if not any(o in below[r] for o in reds)}
    if len(last) < 2:
        return None
    for i in sorted(m):
        if i in reds or not _leaves(g, m, i):
            continue
        feeds = last & _downstream(g, i, m)
        if feeds and feeds != last:
            r, o = min(feeds), min(last - feeds)
            return (f"op {i} is a result of the group and feeds reduction {r} but not reduction {o}, "
                    f"independent last reductions")
    return None


def _r_permuted_read(g: IndexedGraph, m: frozenset[int]) -> str | None:
    """In a group with a reduction, a member reading another member's result transposed (its loop dims
    in another order than the reader's output: `(d3, d1, d2, d0)`): IREE 3.13 computed wrong values for
    such a dispatch, and so did its own formation of the same ops (fuzz seed 17109: a max over d0, its
    broadcast epilogue, then an elementwise op reading that epilogue with d0 and d3 swapped: max error
    1.36 against 6e-6 allowed, every element wrong)."""
    if not any(g.ops[i].kind is OpKind.REDUCTION for i in m):
        return None
    for c in sorted(m):
        oc = g.ops[c]
        if oc.num_dps_inputs >= len(oc.map_dims):
            continue
        out = oc.map_dims[oc.num_dps_inputs]
        for e in g.in_edges[c]:  # type: ignore[attr-defined]
            if e.producer not in m or e.operand >= oc.num_dps_inputs:
                continue
            pos = [out.index(d) for d in oc.map_dims[e.operand] if d >= 0 and d in out]
            if pos != sorted(pos):
                return f"op {c} reads op {e.producer} transposed in a group with a reduction"
    return None


@dataclass(frozen=True)
class Rule:
    name: str
    why: str
    check: Callable[[IndexedGraph, frozenset[int]], str | None]


# The table. Order: cheapest and most fundamental first; the first failing rule is reported.
RULES: tuple[Rule, ...] = (
    Rule("dispatchable", "reshapes, concat and pads are left to IREE outside dispatches", _r_dispatchable),
    Rule("constant", "ops computing only from constants are evaluated by IREE at compile time, not fused",
         _r_constant),
    Rule("lone-pad", "a tensor.pad compiles in a dispatch only with the convolution it feeds", _r_pad),
    Rule("opaque", "ops of unknown data movement get a dispatch of their own", _r_opaque),
    Rule("captured-read", "a gather's captured tensor is read whole: its producer is not fused into it",
         _r_captured_read),
    Rule("transpose", "a transpose joins a group only as an elementwise prologue (with its producers: stack overflow)", _r_transpose),
    Rule("one-contraction", "two contractions in one dispatch fail IREE llvm-cpu codegen (large vectors)",
         _r_one_contraction),
    Rule("single-root", "independent outputs in one dispatch fail IREE llvm-cpu tile distribution",
         _r_single_root),
    Rule("tile-fuse", "the consumer must read the producer through its loops (invertible, no negative distance)",
         _r_tile_fuse),
    Rule("const-read", "a constant-index read in a group with a reduction/contraction fails IREE llvm-cpu codegen",
         _r_const_read),
    Rule("offset-read", "an op reading at an offset (d + c) fused with its consumer crashes IREE llvm-cpu",
         _r_offset_read),
    Rule("copy-result", "a fill, slice or transposing copy as a result of a multi-op dispatch fails IREE llvm-cpu "
         "codegen",
         _r_copy_result),
    Rule("gather-result", "a result of a group with a gather that is also read inside it fails IREE llvm-cpu "
         "codegen",
         _r_gather_result),
    Rule("strided-slice", "a strided slice of a result of its own group fails IREE llvm-cpu tiling",
         _r_strided_slice),
    Rule("scalar-result", "a member read as a scalar that is also a result of the dispatch fails IREE codegen",
         _r_scalar_result),
    Rule("broadcast-result", "a member broadcast by another that is also a result of the dispatch fails IREE "
         "llvm-cpu codegen", _r_broadcast_result),
    Rule("reduction-result-broadcast", "a reduction returned and read, after a broadcast read, is computed "
         "twice by IREE", _r_reduction_result_broadcast),
    Rule("contraction-prologue", "only a fill (accumulator) or a pad (conv input) fuses into a contraction",
         _r_contraction_prologue),
    Rule("shared-const-read", "a result of the group reading a shared member at a constant index fails IREE "
         "llvm-cpu tiling", _r_shared_const_read),
    Rule("splat-reduction", "a reduction over a splat in its own dispatch is computed wrong by IREE llvm-cpu",
         _r_splat_reduction),
    Rule("partial-read", "a result of the group read inside it through a strided/window map is written only in "
         "part", _r_partial_read),
    Rule("side-input", "every member of a contraction's group computes from it or feeds it", _r_side_input),
    Rule("root-space", "epilogues of a contraction/convolution iterate over its output space", _r_root_space),
    Rule("reduction", "a consumer of a whole reduced extent fuses only in a row-wise multi-reduction",
         _r_reduction),
    Rule("bool-operand", "an i1 tensor read in a contraction's group gets its packed layout, which IREE cannot encode",
         _r_bool_operand),
    Rule("stacked-row", "a result of the group read by a later reduction of it is kept a row at a time on IREE's "
         "32 KiB stack", _r_stacked_row),
    Rule("split-result", "a result feeding one of two independent last reductions of the group fails IREE "
         "llvm-cpu codegen", _r_split_result),
    Rule("permuted-read", "a transposed read of a member in a group with a reduction is computed wrong by "
         "IREE llvm-cpu", _r_permuted_read),
    Rule("packed-multi-output", "a multi-result reduction group packing a matmul operand exceeds IREE's stack limit",
         _r_packed_multi_output),
    Rule("packed-epilogues", "two results of a data-tiled matmul's epilogue fail IREE llvm-cpu codegen (large vectors)",
         _r_packed_epilogues),
)
RULE_NAMES = tuple(r.name for r in RULES) + ("cycle",)


def group_verdict(graph: DataflowGraph, members: Iterable[int]) -> Verdict:
    """The table's rules on one set of ops (no cycle check: that needs the rest of the partition)."""
    g, m = indexed(graph), frozenset(members)
    if len(m) <= 1:
        return LEGAL if not m or g.ops[next(iter(m))].kind is not OpKind.PAD else \
            Verdict(False, "lone-pad", f"pad op {next(iter(m))} alone fails IREE llvm-cpu codegen")
    for rule in RULES:
        if rule.name in DISABLED_RULES:  # planted bugs (fusion_opt.testhooks): empty unless a test sets it
            continue
        why = rule.check(g, m)
        if why is not None:
            return Verdict(False, rule.name, why)
    return LEGAL


class Partition:
    """Ops assigned to groups, for the cycle rule: the group graph's nodes are groups and unplaced ops."""

    def __init__(self, graph: DataflowGraph, groups: Iterable[Iterable[int]] = ()) -> None:
        self.graph = indexed(graph)
        self.gid: dict[int, int] = {}
        self.members: dict[int, frozenset[int]] = {}
        for ms in groups:
            ms = frozenset(ms)
            if ms:
                k = min(ms)
                self.members[k] = ms
                self.gid.update((i, k) for i in ms)

    def group(self, op: int) -> frozenset[int]:
        k = self.gid.get(op)
        return self.members[k] if k is not None else frozenset({op})

    def merge(self, a: int, b: int) -> int:
        """Merge the groups holding ops a and b; returns the new group's key."""
        ms = self.group(a) | self.group(b)
        for x in (a, b):
            self.members.pop(self.gid.get(x, -1), None)
        k = min(ms)
        self.members[k] = ms
        self.gid.update((i, k) for i in ms)
        return k

    def cycle_via(self, union: frozenset[int]) -> int | None:
        """An op outside `union` on a path that leaves and re-enters it, or None (union is convex).

        Program order is topological, so nodes whose first op comes after `union`'s last op are pruned."""
        if "cycle" in DISABLED_RULES:  # planted bug (fusion_opt.testhooks)
            return None
        g, hi = self.graph, max(union)
        seen: set[int] = set()
        stack: list[tuple[int, int]] = []
        for i in union:
            for c in g.consumers(i):
                if c not in union and c not in seen:
                    seen.add(c)
                    stack.append((c, c))
        while stack:
            op, via = stack.pop()
            for x in self.group(op) if op in self.gid else (op,):
                seen.add(x)
                for c in g.consumers(x):
                    if c in union:
                        return via
                    if c not in seen and self.gid.get(c, c) < hi:  # group key = its first op
                        seen.add(c)
                        stack.append((c, via))
        return None


def check_merge(part: Partition, a: frozenset[int], b: frozenset[int]) -> Verdict:
    """May groups `a` and `b` of `part` become one group? The rule table, then the cycle rule."""
    union = a | b
    v = group_verdict(part.graph, union)
    if not v:
        return v
    via = part.cycle_via(union)
    if via is not None:
        op = part.graph.ops[via]
        return Verdict(False, "cycle", f"would create a cycle via op {via} ({op.name} at {op.loc})")
    return LEGAL


def check_group(graph: DataflowGraph, members: Iterable[int]) -> Verdict:
    """May `members` (e.g. a user's pin) form one group, every other op staying alone?"""
    m = frozenset(members)
    v = group_verdict(graph, m)
    if not v or not m:
        return v
    via = Partition(graph).cycle_via(m)
    if via is not None:
        op = graph.ops[via]
        return Verdict(False, "cycle", f"a path leaves the group and re-enters it via op {via} ({op.name})")
    return LEGAL
