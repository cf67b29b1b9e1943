"""Op kinds from indexing maps and iterator types (TVM's OpPatternKind, derived from Linalg structure).

`classify` is pure: it sees loop iterators, per-map loop dims and body op names, never IR. The op
name is consulted only for ops without indexing maps (tensor.pad, reshapes, concat, scalar ops).
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .opdesc import OpDesc, OpKind

# Ops without indexing maps, by name: what they do to data.
NAME_KINDS: dict[str, tuple[OpKind, str]] = {
    "tensor.pad": (OpKind.PAD, "copies into a bigger buffer filled with the padding value"),
    "tensor.insert_slice": (OpKind.PAD, "copies a tile into a destination buffer"),
    "tensor.extract_slice": (OpKind.INJECTIVE, "each output element reads one input element"),
    "tensor.expand_shape": (OpKind.INJECTIVE, "reshape: metadata only"),
    "tensor.collapse_shape": (OpKind.INJECTIVE, "reshape: metadata only"),
    "tensor.reshape": (OpKind.INJECTIVE, "reshape: metadata only"),
    "tensor.cast": (OpKind.INJECTIVE, "type refinement: metadata only"),
    "tensor.bitcast": (OpKind.INJECTIVE, "element reinterpretation: metadata only"),
    "tensor.concat": (OpKind.OPAQUE, "several inputs scattered into one buffer: left to IREE"),
}

# IREE's fused attention op (rewrites/attention.py writes it): classified by name, priced as its own work.
ATTENTION_OP = "iree_linalg_ext.attention"

# IREE's Winograd F(6x6, 3x3) transforms (rewrites/winograd.py): classified by name. Per 8x8 input tile
# and channel, the FLOPs of the transform as dense matrix products (B^T d B: two 8x8x8 products;
# A^T m A: 6x8x8 and 6x8x6; G g G^T: 8x3x3 and 8x3x8), at 2 per multiply-accumulate.
WINOGRAD_INPUT = "iree_linalg_ext.winograd.input_transform"
WINOGRAD_OUTPUT = "iree_linalg_ext.winograd.output_transform"
WINOGRAD_FILTER = "iree_linalg_ext.winograd.filter_transform"
WINOGRAD_FLOPS_PER_TILE = {WINOGRAD_INPUT: 2 * (8 * 8 * 8) * 2, WINOGRAD_OUTPUT: 2 * (6 * 8 * 8 + 6 * 8 * 6),
                           WINOGRAD_FILTER: 2 * (8 * 3 * 3 + 8 * 3 * 8)}

# Loop dims (lhs, rhs, out) of the named matmuls' default indexing maps; ops with these map_dims are
# plain (batch) matmuls, whatever their IR spells out.
NAMED_MATMUL_DIMS: dict[str, tuple[tuple[int, ...], ...]] = {
    "linalg.matmul": ((0, 2), (2, 1), (0, 1)),
    "linalg.batch_matmul": ((0, 1, 3), (0, 3, 2), (0, 1, 2)),
}

MUL_OPS = frozenset({"arith.mulf", "arith.muli"})
ADD_OPS = frozenset({"arith.addf", "arith.addi"})
_CONST = re.compile(r"^-?\d+$")
# A loop dim in an affine expression (`d3` in `d1 * 2 + d3`): rewrites and the cost model read maps as text
DIM = re.compile(r"\bd(\d+)\b")


def map_results(map_text: str) -> list[str]:
    """Result expressions of an affine map's text, `(d0, d1) -> (d0, 0)` -> `['d0', '0']`."""
    rhs = map_text.split("->", 1)[1].strip()
    if rhs.endswith(">"):  # `affine_map<...>` form
        rhs = rhs[:-1].rstrip()
    rhs = rhs[1:-1]
    out, depth, cur = [], 0, ""
    for ch in rhs:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _constant_results(indexing_maps: Sequence[str], n_maps: int) -> list[list[bool]]:
    """Per map, which results are integer constants (broadcast of a size-1 dim, not a window sum)."""
    if len(indexing_maps) != n_maps:
        return [[] for _ in range(n_maps)]
    return [[bool(_CONST.match(r)) for r in map_results(m)] for m in indexing_maps]


def _is_perm(dims: Sequence[int], n: int) -> bool:
    return len(dims) == n and sorted(dims) == list(range(n))


def classify(iterator_types: Sequence[str], map_dims: Sequence[Sequence[int]], num_inputs: int,
             body_ops: Sequence[str], name: str, indexing_maps: Sequence[str] = ()) -> OpKind:
    """The kind of one op; see `explain` for the rule that fired."""
    return explain(iterator_types, map_dims, num_inputs, body_ops, name, indexing_maps)[0]


def explain(iterator_types: Sequence[str], map_dims: Sequence[Sequence[int]], num_inputs: int,
            body_ops: Sequence[str], name: str, indexing_maps: Sequence[str] = ()) -> tuple[OpKind, str]:
    """(kind, one-line reason). `indexing_maps` (text) only tells constant results from window sums."""
    if not map_dims:
        return NAME_KINDS.get(name, (OpKind.OPAQUE, "no indexing maps: unknown data movement"))
    n = len(iterator_types)
    ins, outs = list(map_dims[:num_inputs]), list(map_dims[num_inputs:])
    consts = _constant_results(indexing_maps, len(map_dims))[:num_inputs]
    red = {d for d, it in enumerate(iterator_types) if it == "reduction"}
    has_mac = bool(MUL_OPS & set(body_ops)) and bool(ADD_OPS & set(body_ops))
    # A result that is neither a loop dim nor a constant: a sum like d2 * 2 + d5 (sliding window).
    window = [any(d < 0 and not (c[k] if k < len(c) else False) for k, d in enumerate(m))
              for m, c in zip(ins, consts + [[]] * (len(ins) - len(consts)))]

    if red:
        direct_uses = {r: sum(r in m for m in ins) for r in red}
        if has_mac and any(window) and any(u == 1 for u in direct_uses.values()):
            return OpKind.CONVOLUTION, "multiply-accumulate; an input is indexed by window sums (d0 + d4)"
        if has_mac and any(u >= 2 for u in direct_uses.values()):
            return OpKind.CONTRACTION, "multiply-accumulate over a reduction dim shared by two inputs"
        if any(window):
            return OpKind.REDUCTION, "window reduction without a product of two tensors (pooling)"
        return OpKind.REDUCTION, "reduction loops without a multiply-accumulate of two tensors"

    if any(window):
        return OpKind.INJECTIVE, "parallel gather through window sums (im2col-like copy)"
    out_dims = outs[0] if outs else list(range(n))
    if all(_is_perm(m, n) for m in ins + outs) and all(list(m) == list(out_dims) for m in ins + outs):
        return OpKind.ELEMENTWISE, "all loops parallel, every map the same permutation"
    in_dims = [[d for d in m if d >= 0] for m in ins]
    order = {d: k for k, d in enumerate(out_dims)}
    monotone = all(all(order.get(a, -1) < order.get(b, -1) for a, b in zip(m, m[1:])) for m in in_dims)
    if monotone and any(len(m) < n for m in in_dims):
        return OpKind.BROADCAST, "all loops parallel; an input map drops dims (projection)"
    return OpKind.INJECTIVE, "all loops parallel; maps permute dims (transpose)"


HEAVY = frozenset({OpKind.CONTRACTION, OpKind.CONVOLUTION, OpKind.REDUCTION, OpKind.PAD, OpKind.OPAQUE})
LIGHT = frozenset({OpKind.ELEMENTWISE, OpKind.BROADCAST, OpKind.INJECTIVE})


def winograd_flops(name: str, operand_shapes: Sequence[Sequence[int]],
                   result_shapes: Sequence[Sequence[int]]) -> int:
    """FLOPs of a Winograd transform: tiles x channels x `WINOGRAD_FLOPS_PER_TILE`. The transformed side
    ([8, 8, ...] tiles: the input transform's result, the output transform's operand, the filter
    transform's result) holds 64 elements per tile and channel."""
    tiled = operand_shapes[0] if name == WINOGRAD_OUTPUT else result_shapes[0]
    return math.prod(tiled) // 64 * WINOGRAD_FLOPS_PER_TILE[name]


def attention_flops(map_dims: Sequence[Sequence[int]], loop_ranges: Sequence[int]) -> int:
    """FLOPs of a fused attention op from its maps (Q, K, V, scale[, mask], output): QK^T and PV at 2 per
    multiply-accumulate, and ~5 per score for the scale, max, exp, sum and divide of the softmax."""
    q, k, v, out = (set(m) - {-1} for m in (map_dims[0], map_dims[1], map_dims[2], map_dims[-1]))
    scores = (q | k) - ((q & k) - out)  # (batch, m, k2): the head dim k1 is reduced away

    def size(dims: set[int]) -> int:
        return math.prod(loop_ranges[d] for d in dims)
    return 2 * size(q | k) + 2 * size(out | v) + 5 * size(scores)


def is_pointwise(op: OpDesc) -> bool:
    """A one-result linalg.generic computing each output element from the inputs at the same loop point
    (all loops parallel, identity output map, no `linalg.index`): its body can be cloned into another
    such op over the same space (rewrites/quant_pair.py) or bounded op by op (rewrites/int_narrow.py)."""
    return (op.name == "linalg.generic" and len(op.result_shapes) == 1 and set(op.iterator_types) == {"parallel"}
            and op.map_dims[-1] == tuple(range(len(op.loop_ranges))) and "linalg.index" not in op.body_ops)


def is_window_copy(op: OpDesc) -> bool:
    """An im2col copy (rewrites/im2col.py): one input read through a window (`d3 * 2 + d1`), no arithmetic."""
    return (op.kind is OpKind.INJECTIVE and op.name == "linalg.generic" and op.num_dps_inputs == 1
            and not op.body_ops and bool(op.indexing_maps) and "+" in op.indexing_maps[0])


def image_row(op: OpDesc) -> int | None:
    """The width of a copy's innermost loop when it walks an image row (its input read at a window sum
    or a stride of it, `d3 + d4`, `d4 * 2`); None for a channels-last copy, whose innermost loop reads a
    channel as is. Packing the copy for a data-tiled matmul stores whole tiles per row only when this
    is a multiple of the packed tile's columns (`TargetDesc.packed_cols`; fusion/handoff.py)."""
    if not op.indexing_maps or not op.loop_ranges:
        return None
    inner = str(len(op.loop_ranges) - 1)
    walks = any(inner in DIM.findall(e) and e != f"d{inner}" for e in map_results(op.indexing_maps[0]))
    return op.loop_ranges[-1] if walks else None


def packed_in_copy(op: OpDesc, pack_cols: int) -> bool:
    """Whether IREE packs a window copy for its data-tiled matmul in the copy's own dispatch (the
    `packed-copy` handoff): its image rows are whole packed tiles, or it is channels-last."""
    row = image_row(op)
    return row is None or row % pack_cols == 0
