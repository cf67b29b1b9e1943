"""Structural matchers of the pattern registry: pure functions of a DataflowGraph, each returning the
op indices of every occurrence. They read kinds, maps, shapes and body ops, never ONNX names."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..analysis.classify import is_window_copy
from ..analysis.opdesc import DataflowGraph, OpDesc, OpKind
from ..fusion.legality import constant_ops, indexed

MATRIX = (OpKind.CONVOLUTION, OpKind.CONTRACTION)
LIGHT = (OpKind.ELEMENTWISE, OpKind.BROADCAST)
Hits = list[tuple[int, ...]]
SQUARE = ("arith.mulf", "math.powf", "math.fpowi", "math.ipowi")


def _body(op: OpDesc, *names: str) -> bool:
    return any(n in op.body_ops for n in names)


def _same_space_consumers(g: DataflowGraph, i: int) -> list[int]:
    shape = g.ops[i].result_shapes[0] if g.ops[i].result_shapes else None
    return [c for c in g.consumers(i)
            if g.ops[c].kind in LIGHT and g.ops[c].result_shapes and g.ops[c].result_shapes[0] == shape]


def _downstream_light(g: DataflowGraph, i: int, depth: int) -> list[int]:
    """Elementwise ops over op i's output space reachable from it within `depth` steps."""
    seen, frontier = [], [i]
    for _ in range(depth):
        nxt = [c for f in frontier for c in _same_space_consumers(g, f) if c not in seen]
        seen += nxt
        frontier = nxt
    return sorted(set(seen))


def dead_taps(graph: DataflowGraph) -> Hits:
    from ..rewrites.dead_taps import find
    return [(s.pad, s.conv) for s in find(graph)]


def conv_bn(graph: DataflowGraph) -> Hits:
    from .conv_bn import find_chains
    return [(c.root, *c.steps) for c in find_chains(graph)]


def bias_epilogue(graph: DataflowGraph) -> Hits:
    from ..rewrites.bias_epilogue import find
    return find(graph)


def conv3d_slices(graph: DataflowGraph) -> Hits:
    from ..rewrites.conv3d import find
    return [(s.conv,) for s in find(graph)]


def conv_transpose_phases(graph: DataflowGraph) -> Hits:
    from ..rewrites.conv_transpose import find
    return [(s.conv,) for s in find(graph)]


def pool_conv_swap(graph: DataflowGraph) -> Hits:
    from ..rewrites.pool_conv import find
    return [tuple(i for i in (s.pad, s.reshape, s.pool, s.scale, s.conv) if i is not None) for s in find(graph)]


def quant_pair(graph: DataflowGraph) -> Hits:
    from ..rewrites.quant_pair import find
    return [tuple(i for i in site if i is not None) for site in find(graph)]


def slice_concat(graph: DataflowGraph) -> Hits:
    from ..rewrites.slice_concat import find
    return [(s.concat, *(i for p in s.pieces for i in p if i is not None)) for s in find(graph)]


def transposed_gather(graph: DataflowGraph) -> Hits:
    from ..rewrites.transposed_gather import find
    return [(i, *graph.consumers(i)) for i in find(graph)]


def sort_topk(graph: DataflowGraph) -> Hits:
    from ..rewrites.sort_topk import find
    return [(i,) for i in find(graph)]


def int_matmul_narrow(graph: DataflowGraph) -> Hits:
    from ..rewrites.int_narrow import find
    return [(i,) for i in find(graph)]


def unit_batch_matmul(graph: DataflowGraph) -> Hits:
    from ..rewrites.unit_batch import find
    return [(i,) for i in find(graph)]


def bmm_tiles(graph: DataflowGraph) -> Hits:
    from ..rewrites.bmm_tiles import find
    return [(i,) for i in find(graph)]


def conv_strategy(graph: DataflowGraph) -> Hits:
    from ..rewrites.im2col import find_convs
    return [(i,) for i, _ in find_convs(graph)]


def conv_layout(graph: DataflowGraph) -> Hits:
    """Windowed channels-first convs, the sites of the per-conv layout choice (`layout="auto"`)."""
    from ..rewrites.layout import perms

    return [(i,) for i, op in enumerate(graph.ops) if perms(op) is not None]


def winograd(graph: DataflowGraph) -> Hits:
    """3x3 stride-1 convs (the zero-fill check needs IR: the plan's hits count sites the rewrite found)."""
    from ..rewrites.im2col import layout

    return [(i,) for i, op in enumerate(graph.ops) if (lay := layout(op)) is not None and lay.copy
            and not lay.groups and len(lay.red) == 3 and tuple(op.loop_ranges[d] for d in lay.red[1:]) == (3, 3)
            and "*" not in op.indexing_maps[0]]


def grouped_taps(graph: DataflowGraph) -> Hits:
    from ..rewrites.grouped_taps import find
    return [(s.conv,) for s in find(graph)]


def depthwise_taps(graph: DataflowGraph) -> Hits:
    from ..rewrites.depthwise import find_depthwise
    return [(i,) for i, _ in find_depthwise(graph)]


def pool_taps(graph: DataflowGraph) -> Hits:
    from ..rewrites.pool_taps import find
    return [(i,) for i, _ in find(graph)]


def sibling_matmuls(graph: DataflowGraph) -> Hits:
    g = indexed(graph)
    const = constant_ops(g)
    sets: dict[tuple[object, ...], list[int]] = {}
    for op in g.ops:
        if op.kind is OpKind.CONTRACTION and len(op.operands) >= 2 and (op.operands[1] is None
                                                                         or op.operands[1] in const):
            key = (op.name, op.indexing_maps, op.operands[0], op.operand_shapes[1], op.result_shapes)
            sets.setdefault(key, []).append(op.index)
    return [tuple(v) for v in sets.values() if len(v) >= 2]


def conv_epilogue(graph: DataflowGraph) -> Hits:
    return [(op.index, *epi) for op in graph.ops if op.kind in MATRIX
            for epi in [_downstream_light(graph, op.index, 8)] if epi]


def pad_conv(graph: DataflowGraph) -> Hits:
    return [(op.index, c) for op in graph.ops if op.kind is OpKind.PAD
            for c in graph.consumers(op.index) if graph.ops[c].kind in MATRIX or is_window_copy(graph.ops[c])]


def linear_gelu(graph: DataflowGraph) -> Hits:
    out = []
    for op in graph.ops:
        if op.kind is OpKind.CONTRACTION:
            epi = _downstream_light(graph, op.index, 8)
            if _has_gelu(graph, op.index, epi):
                out.append((op.index, *epi))
    return out


def _has_gelu(g: DataflowGraph, root: int, epi: list[int]) -> bool:
    """x * f(erf or tanh of x) among `epi`: one body holding the activation, two multiplies and an add
    (GELU lowered whole), or a multiply reading both the activation's result (or a value computed from
    it) and a value the activation was computed from (x, x + bias). A lone tanh epilogue is no GELU."""
    chain = {root, *epi}
    acts = [e for e in epi if _body(g.ops[e], "math.erf", "math.tanh")]
    for a in acts:
        body = g.ops[a].body_ops
        if body.count("arith.mulf") >= 2 and "arith.addf" in body:
            return True
        up = _reach(a, lambda i: g.ops[i].operands, chain)
        down = _reach(a, g.consumers, chain) | {a}
        for m in down - {a}:
            ins = set(g.ops[m].operands[:g.ops[m].num_dps_inputs] or g.ops[m].operands)
            if _body(g.ops[m], "arith.mulf") and ins & down and ins & up:
                return True
    return False


def _reach(start: int, step: Callable[[int], Iterable[int | None]], within: set[int]) -> set[int]:
    """Ops of `within` reachable from `start` (excluded) by repeated `step` (producers or consumers)."""
    seen: set[int] = set()
    todo = [start]
    while todo:
        for n in step(todo.pop()):
            if n is not None and n in within and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def _is_sigmoid(op: OpDesc) -> bool:
    return op.kind in LIGHT and _body(op, "math.exp") and _body(op, "arith.divf") and not _body(op, "math.erf")


def silu(graph: DataflowGraph) -> Hits:
    """sigmoid(a*x) * x: the multiply reads the sigmoid and the sigmoid's own source (or its source's)."""
    out = []
    for s in graph.ops:
        if not _is_sigmoid(s) or not s.operands:
            continue
        src = s.operands[0]
        sources = {src}
        if src is not None and src >= 0 and graph.ops[src].kind in LIGHT and graph.ops[src].operands:
            sources.add(graph.ops[src].operands[0])           # x * sigmoid(1.702 * x)
        for c in graph.consumers(s.index):
            m = graph.ops[c]
            if m.kind in LIGHT and _body(m, "arith.mulf") and set(m.operands[:m.num_dps_inputs] or m.operands) & (
                    sources - {None}):
                out.append((s.index, c))
    return out


def softmax(graph: DataflowGraph) -> Hits:
    """`linalg.softmax` (ONNX imports raise it), or its generic form: a row max, exp of the shifted
    input, a row sum of that, and a divide reading the exp and the sum."""
    out = [(op.index,) for op in graph.ops if op.name == "linalg.softmax"]
    for mx in graph.ops:
        if mx.kind is not OpKind.REDUCTION or not _body(mx, "arith.maximumf", "arith.maxnumf"):
            continue
        for ex in graph.consumers(mx.index):
            if not _body(graph.ops[ex], "math.exp"):
                continue
            for sm in graph.consumers(ex):
                if graph.ops[sm].kind is not OpKind.REDUCTION or not _body(graph.ops[sm], "arith.addf"):
                    continue
                div = [d for d in graph.consumers(sm) if ex in graph.ops[d].operands and _body(graph.ops[d], "arith.divf")]
                out += [(mx.index, ex, sm, d) for d in div]
    return out


def _row_sums(graph: DataflowGraph) -> list[OpDesc]:
    return [op for op in graph.ops if op.kind is OpKind.REDUCTION and _body(op, "arith.addf")
            and "window" not in op.iterator_types and any(t == "parallel" for t in op.iterator_types)]


def _upstream(graph: DataflowGraph, i: int, depth: int) -> set[int]:
    seen, frontier = set(), {i}
    for _ in range(depth):
        frontier = {p for f in frontier for p in graph.ops[f].operands if p is not None and p >= 0} - seen
        seen |= frontier
    return seen


def _norms(graph: DataflowGraph, centered: bool) -> Hits:
    """A row sum whose input is derived from another row sum (the mean) when `centered` (LayerNorm),
    or from no other reduction (RMSNorm); followed by a (r)sqrt over the row."""
    sums = {op.index for op in _row_sums(graph)}
    out = []
    for r in sorted(sums):
        up = _upstream(graph, r, 4)
        has_mean = bool(up & sums)
        squares = any(_body(graph.ops[u], *SQUARE) for u in up | {r})
        if has_mean != centered or not squares:
            continue
        down, frontier = set(), {r}
        for _ in range(4):
            frontier = {c for f in frontier for c in graph.consumers(f)} - down
            down |= frontier
        if any(_body(graph.ops[d], "math.rsqrt", "math.sqrt") for d in down):
            out.append(tuple(sorted((up & sums) | {r} | down)))
    return out


def layernorm(graph: DataflowGraph) -> Hits:
    return _norms(graph, centered=True)


def rmsnorm(graph: DataflowGraph) -> Hits:
    return _norms(graph, centered=False)


def attention(graph: DataflowGraph) -> Hits:
    out = []
    for s in graph.ops:
        if s.name != "linalg.softmax":
            continue
        chain, cur = [], s.operands[0] if s.operands else None
        while cur is not None and cur >= 0 and graph.ops[cur].kind in LIGHT and len(chain) < 4:
            chain.append(cur)
            cur = graph.ops[cur].operands[0]
        pv = [c for c in graph.consumers(s.index) if graph.ops[c].kind is OpKind.CONTRACTION]
        if cur is not None and cur >= 0 and graph.ops[cur].kind is OpKind.CONTRACTION and pv:
            out.append(tuple(sorted({cur, *chain, s.index, *pv})))
    return out


def attention_op(graph: DataflowGraph) -> Hits:
    from ..rewrites.attention import candidates

    return [s.ops for s in candidates(graph)]


def elementwise_chain(graph: DataflowGraph) -> Hits:
    """Maximal runs of >= 2 elementwise ops, each the only consumer of the previous one."""
    def nxt(i: int) -> int | None:
        cons = graph.consumers(i)
        if len(cons) == 1 and graph.ops[cons[0]].kind is OpKind.ELEMENTWISE:
            return cons[0]
        return None

    const = constant_ops(graph)  # folded at compile time, not a runtime chain
    starts = [op.index for op in graph.ops if op.kind is OpKind.ELEMENTWISE and op.index not in const and not any(
        p is not None and p >= 0 and graph.ops[p].kind is OpKind.ELEMENTWISE and nxt(p) == op.index
        for p in op.operands)]
    out = []
    for s in starts:
        run = [s]
        while (n := nxt(run[-1])) is not None:
            run.append(n)
        if len(run) >= 2:
            out.append(tuple(run))
    return out
