"""`Det` as Gaussian elimination with partial pivoting, unrolled over the matrix size.

Why: the importer's lowering (torch-mlir's `linalg_det`) eliminates without exchanging rows, so a matrix
whose leading entry is 0 (a rotation by 90 degrees; onnx's `test_det_2d`) divides by zero and gives NaN,
where onnxruntime and numpy (LAPACK's getrf) pivot. Each step here takes the row with the largest |entry|
of the column (`ArgMax`, the first on ties, as LAPACK's `idamax`), swaps it to the top with `Where` and
`GatherElements` (exact: moved rows get no arithmetic), and subtracts multiples of it from the rows below;
the determinant is the product of the pivots, negated per swap. A zero pivot (a singular matrix) gives 0
and multipliers of 0, never 0 / 0. Static `[..., N, N]` with N <= MAX_N (about 20 nodes per step); other
forms are left to the importer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx
from onnx import helper

from .onnx_emit import Emitter
from .onnx_fold import FLOAT_TYPES

if TYPE_CHECKING:
    from .onnx_legalize import _Graph

MAX_N = 32


def det(g: _Graph, node: onnx.NodeProto) -> list[onnx.NodeProto] | None:
    """The rewrite (see the module docstring); None for a node it does not take."""
    if node.op_type != "Det" or len(node.input) != 1:
        return None
    x = node.input[0]
    shape = g.shapes.get(x)
    if shape is None or len(shape) < 2 or shape[-1] != shape[-2] or not 1 <= shape[-1] <= MAX_N \
            or 0 in shape or g.types.get(x) not in FLOAT_TYPES:
        return None
    n, lead = shape[-1], shape[:-2]
    b = int(np.prod(lead, dtype=np.int64))
    e = Emitter(g, node.output[0], helper.tensor_dtype_to_np_dtype(g.types[x]), node.name)

    def rows(v: str, start: int, end: int, axis: int) -> str:
        return e.op("Slice", v, e.i64([start]), e.i64([end]), e.i64([axis]))

    m = e.op("Reshape", x, e.i64([b, n, n]))
    det_ = sign = None
    for size in range(n, 0, -1):  # m: [b, size, size], the rows and columns not yet eliminated
        if size == 1:
            pivot = e.op("Reshape", m, e.i64([b]))
            det_ = pivot if det_ is None else e.op("Mul", det_, pivot)
            break
        p = e.op("ArgMax", e.op("Abs", e.op("Reshape", rows(m, 0, 1, 2), e.i64([b, size]))), axis=1, keepdims=1)
        p3 = e.op("Unsqueeze", p, e.i64([2]))                                             # [b, 1, 1]
        top = e.op("GatherElements", m, e.op("Expand", p3, e.i64([b, 1, size])), axis=1)  # the pivot row
        index = g.const(f"{node.output[0]}_rows", np.arange(size, dtype=np.int64).reshape(1, size, 1), e.nodes)
        # The old top row moves to the pivot row's place; the top row itself is dropped (it is `top` now).
        below = rows(e.op("Where", e.op("Equal", index, p3), rows(m, 0, 1, 1), m), 1, size, 1)
        pivot3 = rows(top, 0, 1, 2)                                                        # [b, 1, 1]
        zero = e.op("Equal", pivot3, e.f(0.0))
        factor = e.op("Where", zero, e.f(0.0), e.op("Div", rows(below, 0, 1, 2), e.op("Where", zero, e.f(1.0), pivot3)))
        m = e.op("Sub", rows(below, 1, size, 2), e.op("Mul", factor, rows(top, 1, size, 2)))
        pivot = e.op("Reshape", pivot3, e.i64([b]))
        swapped = e.op("Where", e.op("Equal", e.op("Reshape", p, e.i64([b])), e.i64(0)), e.f(1.0), e.f(-1.0))
        det_ = pivot if det_ is None else e.op("Mul", det_, pivot)
        sign = swapped if sign is None else e.op("Mul", sign, swapped)
    out = det_ if sign is None else e.op("Mul", det_, sign)
    e.nodes.append(helper.make_node("Reshape", [out, e.i64(list(lead))], list(node.output), name=node.name or None))
    return e.nodes
