"""`GridSample` as the ONNX ops of its definition: coordinates, padding mode, taps, `GatherElements`.

Why: the importer's own lowering (torch-mlir's `grid_sampler`) reads out of bounds with `padding_mode=zeros`
(its `tensor.extract` indices are not clamped above, so the result depended on the memory next to the input:
max error 3e3 in onnx's `test_gridsample_zeros_padding`), rounds `nearest` half away from zero where ONNX
rounds half to even, and has no lowering for `border` / `reflection` padding, `cubic` mode or volumetric
(3-D) inputs. Written with the spec's reference (onnx.reference's `GridSample`) step by step, every mode
takes one path, and every read is clamped into the input before it happens (zeros padding then selects 0).

Per spatial dim `i` of the input (the grid's last axis lists them innermost first): the normalized
coordinate is denormalized (`align_corners`), rounded half to even for `nearest`, and where it lies outside
`[x_min, x_max]` clamped (`border`) or reflected (`reflection`). Each interpolation tap (nearest: 1, linear:
2, cubic: 4 per dim, Keys' cubic with a = -0.75) is an integer position with a weight; positions outside
the input are clamped (`border`), reflected (`reflection`) or masked to 0 (`zeros`). The taps of all dims
combine into flat indices of the input viewed `[N, C, prod(D)]`, one `GatherElements` per combination, and
the weighted sum. Static shapes only (else the node is left to the importer).
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import onnx
from onnx import helper

from .onnx_emit import Emitter
from .onnx_fold import FLOAT_TYPES, attr_text, node_attrs

if TYPE_CHECKING:
    from .onnx_legalize import _Graph

Node = onnx.NodeProto
_MODES = {"bilinear": "linear", "linear": "linear", "nearest": "nearest", "bicubic": "cubic", "cubic": "cubic"}
CUBIC_A = -0.75


def _reflect(e: Emitter, x: str, lo: float, hi: float) -> str:
    """The reference's `_gs_reflect`: folded by the near border until inside `[lo, hi]`."""
    if hi == lo:
        return e.op("Mul", x, e.f(0.0))  # a one-pixel axis aligned to corners: every point is pixel 0
    rng = hi - lo

    def fold(dx: str, near: float, far: float) -> str:
        n = e.op("Floor", e.op("Div", dx, e.f(rng)))
        r = e.op("Sub", dx, e.op("Mul", n, e.f(rng)))
        odd = e.op("Sub", n, e.op("Mul", e.op("Floor", e.op("Mul", n, e.f(0.5))), e.f(2.0)))
        even = e.op("Equal", odd, e.f(0.0))
        toward = e.op("Add", r, e.f(near)) if near == lo else e.op("Sub", e.f(near), r)
        back = e.op("Sub", e.f(far), r) if far == hi else e.op("Add", r, e.f(far))
        return e.op("Where", even, toward, back)

    below = fold(e.op("Sub", e.f(lo), x), lo, hi)
    above = fold(e.op("Sub", x, e.f(hi)), hi, lo)
    inside = e.op("Where", e.op("Greater", x, e.f(hi)), above, x)
    return e.op("Where", e.op("Less", x, e.f(lo)), below, inside)


def _cubic_weights(e: Emitter, t: str) -> list[str]:
    """Keys' cubic convolution weights of taps -1, 0, 1, 2 at fraction `t` (the reference's formulas)."""
    a = CUBIC_A

    def outer(s: str) -> str:  # ((a*s - 5a)*s + 8a)*s - 4a, for s in (1, 2)
        p = e.op("Sub", e.op("Mul", s, e.f(a)), e.f(5 * a))
        p = e.op("Add", e.op("Mul", p, s), e.f(8 * a))
        return e.op("Sub", e.op("Mul", p, s), e.f(4 * a))

    def inner(s: str) -> str:  # ((a+2)*s - (a+3))*s*s + 1, for s in [0, 1]
        p = e.op("Sub", e.op("Mul", s, e.f(a + 2)), e.f(a + 3))
        return e.op("Add", e.op("Mul", e.op("Mul", p, s), s), e.f(1.0))

    one_minus = e.op("Sub", e.f(1.0), t)
    return [outer(e.op("Add", t, e.f(1.0))), inner(t), inner(one_minus), outer(e.op("Sub", e.f(2.0), t))]


def _axis_taps(e: Emitter, x: str, size: int, mode: str, padding: str, align: bool
               ) -> list[tuple[str, str | None, str | None]]:
    """(int64 index clamped into the axis, weight or None, in-bounds mask or None) per tap of one axis."""
    lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
    if mode == "nearest":
        x = e.op("Round", x)
    if padding != "zeros":
        outside = e.op("Or", e.op("Less", x, e.f(lo)), e.op("Greater", x, e.f(hi)))
        moved = (e.op("Clip", x, e.f(0.0), e.f(size - 1.0)) if padding == "border" else _reflect(e, x, lo, hi))
        x = e.op("Where", outside, moved, x)
    if mode == "nearest":
        pos: list[tuple[str, str | None]] = [(x, None)]
    else:
        base = e.op("Floor", x)
        t = e.op("Sub", x, base)
        if mode == "linear":
            pos = [(base, e.op("Sub", e.f(1.0), t)), (e.op("Add", base, e.f(1.0)), t)]
        else:
            pos = [(e.op("Add", base, e.f(float(k))), w) for k, w in zip((-1, 0, 1, 2), _cubic_weights(e, t))]
    taps = []
    for p, w in pos:
        mask = None
        if padding == "zeros":
            mask = e.op("And", e.op("GreaterOrEqual", p, e.f(0.0)), e.op("LessOrEqual", p, e.f(size - 1.0)))
        elif padding == "reflection" and mode != "nearest":
            p = _reflect(e, p, lo, hi)
        # the reference truncates toward zero (astype / int()), as Cast does; clamped: no read outside
        idx = e.op("Cast", e.op("Clip", p, e.f(0.0), e.f(size - 1.0)), to=onnx.TensorProto.INT64)
        taps.append((idx, w, mask))
    return taps


def grid_sample(g: _Graph, node: Node) -> list[Node] | None:
    """The rewrite (see the module docstring); None for a node it does not take."""
    if node.op_type != "GridSample" or len(node.input) != 2:
        return None
    x, grid = node.input
    y = node.output[0]
    a = node_attrs(node)
    mode = _MODES.get(attr_text(a.get("mode"), "linear"))
    padding = attr_text(a.get("padding_mode"), "zeros")
    align = bool(a.get("align_corners", 0))
    xs, gs = g.shapes.get(x), g.shapes.get(grid)
    if (mode is None or padding not in ("zeros", "border", "reflection") or xs is None or gs is None
            or len(xs) < 3 or len(gs) != len(xs) or gs[-1] != len(xs) - 2 or gs[0] != xs[0]
            or g.types.get(x) not in FLOAT_TYPES or g.types.get(grid) not in FLOAT_TYPES or 0 in xs or 0 in gs):
        return None
    n, c, dims = xs[0], xs[1], xs[2:]
    r = len(dims)
    out_spatial = gs[1:-1]
    m = int(np.prod(out_spatial))
    e = Emitter(g, y, helper.tensor_dtype_to_np_dtype(g.types[grid]), node.name)
    flat_grid = e.op("Reshape", grid, e.i64([n, m, r]))
    axis_taps = []
    for i, size in enumerate(dims):
        coord = e.op("Gather", flat_grid, e.i64(r - 1 - i), axis=2)  # [N, M]: the grid lists W first
        if align:
            px = e.op("Mul", e.op("Mul", e.op("Add", coord, e.f(1.0)), e.f(0.5)), e.f(size - 1.0))
        else:
            px = e.op("Mul", e.op("Sub", e.op("Mul", e.op("Add", coord, e.f(1.0)), e.f(float(size))), e.f(1.0)),
                      e.f(0.5))
        axis_taps.append(_axis_taps(e, px, size, mode, padding, align))
    strides = [int(np.prod(dims[i + 1:])) for i in range(r)]
    flat_x = e.op("Reshape", x, e.i64([n, c, int(np.prod(dims))]))
    full = e.i64([n, c, m])
    x_type = g.types[x]
    zero = None
    terms = []
    for combo in itertools.product(*axis_taps):
        index = None
        weight = None
        mask = None
        for (idx, w, msk), stride in zip(combo, strides):
            part = idx if stride == 1 else e.op("Mul", idx, e.i64(stride))
            index = part if index is None else e.op("Add", index, part)
            if w is not None:
                weight = w if weight is None else e.op("Mul", weight, w)
            if msk is not None:
                mask = msk if mask is None else e.op("And", mask, msk)
        wide = e.op("Expand", e.op("Unsqueeze", index, e.i64([1])), full)
        v = e.op("GatherElements", flat_x, wide, axis=2)
        if mask is not None:
            if zero is None:
                zero = g.const(f"{y}_zero", np.array(0, helper.tensor_dtype_to_np_dtype(x_type)), e.nodes)
            v = e.op("Where", e.op("Unsqueeze", mask, e.i64([1])), v, zero)
        if weight is not None:
            if x_type != g.types[grid]:
                weight = e.op("Cast", weight, to=x_type)
            v = e.op("Mul", v, e.op("Unsqueeze", weight, e.i64([1])))
        terms.append(v)
    total = terms[0] if len(terms) == 1 else e.op("Sum", *terms)
    e.nodes.append(helper.make_node("Reshape", [total, e.i64([n, c, *out_spatial])], [y], name=node.name))
    return e.nodes
