"""What the window-taps rewrites share (`depthwise-taps`, `pool-taps`): reading an indexing-map result
as `out * stride + tap * dilation`, one strided slice per window tap, and the elementwise op over them.

Why one module: both rewrites replace a window loop nest by the same shape of IR (a strided
`tensor.extract_slice` per tap feeding one all-parallel `linalg.generic` that folds the taps into the
init in a fixed order), so slice offsets, maps and block construction are written once.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence

from ..ir import ir

MAX_TAPS = 25  # a 7x7 window would be 49 slices feeding one op
_TERM = re.compile(r"^d(\d+)(?:\s*\*\s*(\d+))?$")


def affine_terms(expr: str) -> dict[int, int] | None:
    """`d1 * 2 + d3` -> {1: 2, 3: 1}; None for anything else (constants, mod, ...)."""
    out: dict[int, int] = {}
    for t in expr.split("+"):
        m = _TERM.fullmatch(t.strip())
        if m is None:
            return None
        out[int(m[1])] = int(m[2] or 1)
    return out


def tap_points(ranges: Sequence[int], taps: Sequence[int]) -> Iterator[dict[int, int]]:
    """Every window position, as {tap loop: index}, in loop order (the reduction's own order)."""
    for tap in itertools.product(*(range(ranges[d]) for d in taps)):
        yield dict(zip(taps, tap))


def strided_slice(x: ir.Value, dims: Sequence[tuple[int, int, int]], shape: Sequence[int] | None = None) -> ir.Value:
    """`x[off : off + size * stride : stride]` per dim, from (offset, size, stride) triples; `shape` drops
    unit dims (a rank-reducing slice)."""
    from iree.compiler.dialects import tensor

    offs, sizes, strides = (list(v) for v in zip(*dims))
    res_t = ir.RankedTensorType.get(list(shape or sizes), ir.RankedTensorType(x.type).element_type)
    return tensor.ExtractSliceOp(res_t, x, [], [], [], offs, sizes, strides).result


def map_attr(n: int, results: Sequence[str]) -> ir.AffineMapAttr:
    """`(d0, ..., dn-1) -> (<results>...)`, results as affine expression text."""
    loops = ", ".join(f"d{k}" for k in range(n))
    return ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<({loops}) -> ({', '.join(results)})>"))


def affine_map(n: int, results: Sequence[int]) -> ir.AffineMapAttr:
    """`(d0, ..., dn-1) -> (d<results>...)`."""
    return map_attr(n, [f"d{r}" for r in results])


def zeros(shape: Sequence[int], elt: ir.Type) -> ir.Value:
    """A zero-filled tensor (an accumulator); built at the current insertion point."""
    from iree.compiler.dialects import arith, linalg, tensor

    return linalg.fill(arith.ConstantOp(elt, 0.0).result, outs=[tensor.EmptyOp(list(shape), elt).result])


def add_all(acc: ir.Value, args: Sequence[ir.Value]) -> ir.Value:
    """A `fold` body: acc + args[0] + args[1] + ..., in that order."""
    from iree.compiler.dialects import arith

    for a in args:
        acc = arith.AddFOp(acc, a).result
    return acc


def parallel_generic(at: ir.Operation, inputs: Sequence[ir.Value], maps: Sequence[ir.AffineMapAttr], init: ir.Value,
                     fold: Callable[[ir.Value, Sequence[ir.Value]], ir.Value]) -> ir.Value:
    """One all-parallel generic over `inputs` (read through `maps`) into `init`, built before `at`, whose
    body is `fold(init element, input elements)`."""
    from iree.compiler.dialects import linalg

    out_t = ir.RankedTensorType(init.type)
    n = out_t.rank
    with at.context, at.location, ir.InsertionPoint(at):
        par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        all_maps = [*maps, ir.AffineMapAttr.get(ir.AffineMap.get_identity(n))]
        gen = linalg.GenericOp([out_t], list(inputs), [init], ir.ArrayAttr.get(all_maps), ir.ArrayAttr.get([par] * n))
        blk = gen.regions[0].blocks.append(*([out_t.element_type] * (len(inputs) + 1)))
        with ir.InsertionPoint(blk):
            linalg.YieldOp([fold(blk.arguments[len(inputs)], list(blk.arguments)[:len(inputs)])])
    return gen.result


def fold_into_init(op: ir.Operation, inputs: Sequence[ir.Value], maps: Sequence[ir.AffineMapAttr], init: ir.Value,
                   fold: Callable[[ir.Value, Sequence[ir.Value]], ir.Value]) -> None:
    """Replace `op` by `parallel_generic(op, inputs, maps, init, fold)`; the caller has built `inputs`
    before `op`."""
    result = parallel_generic(op, inputs, maps, init, fold)
    op.results[0].replace_all_uses_with(result)
    op.erase()
