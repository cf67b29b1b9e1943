"""`DFT` and `STFT` as matrix products with constant cosine / sine tables.

Why: the importer has no lowering for either ("ONNX op DFT ... is not supported", or torch-mlir's
`aten.fft_fft` left illegal), and audio front ends carry them in the graph (an STFT, then a mel
projection). With static shapes a DFT along an axis is a matmul of the signal by an `[n, bins]` table per
real and imaginary part, which the planner and IREE handle as any contraction; no FFT, but the O(n^2) work
is a few MFLOP at speech frame lengths, and tables are bounded (`MAX_TABLE` elements).

Semantics are onnx.reference's (`op_dft.py`, `op_stft.py`): `dft_length` zero-pads or truncates the
signal; `onesided` keeps the `length // 2 + 1` first bins; `inverse` divides by the length; `inverse` with
`onesided` is numpy's `irfft` (a real output of the given or `2 * (bins - 1)` length: the half spectrum's
interior bins counted twice, the imaginary parts of bin 0 and of the Nyquist bin ignored). STFT frames
the signal (`1 + (length - frame_length) // frame_step` frames, a `Gather` of constant indices), weights
each frame by its window and takes the one-sided (the default) DFT of each frame.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx
from onnx import helper

from .onnx_fold import FLOAT_TYPES, node_attrs

if TYPE_CHECKING:
    from .onnx_legalize import _Graph

Node = onnx.NodeProto
MAX_TABLE = 1 << 22  # elements per table (16 MiB in f32): a 2048-point DFT


def _emit(g: _Graph, nodes: list[Node], op: str, inputs: list[str], **attrs: object) -> str:
    from .onnx_legalize import _emit as emit  # (onnx_legalize imports this module)

    return emit(g, nodes, op, inputs, **attrs)


def _scalar(g: _Graph, name: str) -> int | None:
    """A constant scalar input's value; None when absent or not a constant."""
    from .onnx_legalize import _constant_value

    if not name:
        return None
    v = _constant_value(g, name)
    return int(v.reshape(-1)[0]) if v is not None and v.size == 1 else None


def tables(n: int, length: int, inverse: bool, onesided: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """(real-part table, imaginary-part table, output channels): the output's real part is
    `re @ A + im @ B` and, for a complex output, its imaginary part `im @ A - re @ B` (the tables
    carry the direction's sign and the inverse's scale), over the first `n` samples or bins of the axis. f64, exact angles
    (`t * k mod length`, so large products do not lose the phase)."""
    if inverse and onesided:  # irfft: bins k <= length // 2, weight 2 for the interior ones
        k = np.arange(n)[:, None]
        t = np.arange(length)[None, :]
        w = np.where((k == 0) | (2 * k == length), 1.0, 2.0) * (k <= length // 2)
        theta = 2 * np.pi * ((k * t) % length) / length
        return w * np.cos(theta) / length, -w * np.sin(theta) / length, 1
    bins = length // 2 + 1 if onesided else length
    t = np.arange(n)[:, None]
    k = np.arange(bins)[None, :]
    theta = 2 * np.pi * ((t * k) % length) / length
    keep = (t < length).astype(np.float64)  # samples past dft_length are dropped
    c, s = np.cos(theta) * keep, np.sin(theta) * keep
    if inverse:
        return c / length, -s / length, 2
    return c, s, 2


def dft_nodes(g: _Graph, nodes: list[Node], x: str, shape: list[int], axis: int, length: int | None,
              inverse: bool, onesided: bool, out: str) -> bool:
    """Nodes computing the DFT of `x` (shape `[..., 1 or 2]`) along `axis` into `out`; False (nothing
    appended) when the tables would be too large."""
    rank = len(shape)
    n, comp = shape[axis], shape[-1]
    if length is None:
        length = 2 * (n - 1) if inverse and onesided else n
    if length < 1 or comp not in (1, 2):
        return False
    dt = onnx.helper.tensor_dtype_to_np_dtype(g.types[x])
    a, b, chans = tables(n, length, inverse, onesided)
    if a.size > MAX_TABLE:
        return False
    idx = {k: g.const(f"{x}_part{k}", np.array(k, np.int64), nodes) for k in range(comp)}
    re = _emit(g, nodes, "Gather", [x, idx[0]], axis=rank - 1)
    im = _emit(g, nodes, "Gather", [x, idx[1]], axis=rank - 1) if comp == 2 else None
    perm = [d for d in range(rank - 1) if d != axis] + [axis]  # the transformed axis last
    moved = perm != list(range(rank - 1))
    if moved:
        re = _emit(g, nodes, "Transpose", [re], perm=perm)
        im = _emit(g, nodes, "Transpose", [im], perm=perm) if im is not None else None
    ta, tb = g.const(f"{x}_dftA", a.astype(dt), nodes), g.const(f"{x}_dftB", b.astype(dt), nodes)

    def mm(v: str | None, t: str) -> str | None:
        return _emit(g, nodes, "MatMul", [v, t]) if v is not None else None

    def add(p: str | None, q: str | None, sub: bool = False) -> str:
        if p is None:
            return _emit(g, nodes, "Neg", [q]) if sub else q
        return p if q is None else _emit(g, nodes, "Sub" if sub else "Add", [p, q])

    re_a, re_b, im_a, im_b = mm(re, ta), mm(re, tb), mm(im, ta), mm(im, tb)
    # forward and inverse alike (the tables carry the sign and the scale): re@A + im@B, im@A - re@B
    parts = [add(re_a, im_b)] if chans == 1 else [add(re_a, im_b), add(im_a, re_b, sub=True)]
    last = g.const(f"{x}_last", np.array([rank - 1], np.int64), nodes)
    parts = [_emit(g, nodes, "Unsqueeze", [p, last]) for p in parts]
    res = _emit(g, nodes, "Concat", parts, axis=rank - 1) if len(parts) == 2 else parts[0]
    if moved:
        full = perm + [rank - 1]
        res = _emit(g, nodes, "Transpose", [res], perm=[full.index(d) for d in range(rank)])
    nodes.append(helper.make_node("Identity", [res], [out]))
    return True


def dft(g: _Graph, node: Node) -> list[Node] | None:
    """A `DFT` node (opset 17-19: `axis` attribute, default 1; opset 20: an input, default -2) with a
    static input shape and constant `dft_length` / `axis`, as `dft_nodes`."""
    if node.op_type != "DFT" or node.domain not in ("", "ai.onnx"):
        return None
    x = node.input[0]
    shape = g.shapes.get(x)
    if shape is None or g.types.get(x) not in FLOAT_TYPES or len(shape) < 2 or any(s < 1 for s in shape):
        return None
    a = node_attrs(node)
    length = _scalar(g, node.input[1]) if len(node.input) > 1 and node.input[1] else None
    if len(node.input) > 1 and node.input[1] and length is None:
        return None
    if "axis" in a:
        axis = int(a["axis"])
    elif len(node.input) > 2 and node.input[2]:
        axis = _scalar(g, node.input[2])
        if axis is None:
            return None
    else:
        axis = -2
    axis %= len(shape)
    if axis == len(shape) - 1:
        return None
    nodes: list[Node] = []
    ok = dft_nodes(g, nodes, x, shape, axis, length, bool(a.get("inverse", 0)), bool(a.get("onesided", 0)),
                   node.output[0])
    return nodes if ok else None


def stft(g: _Graph, node: Node) -> list[Node] | None:
    """An `STFT` node with a static `[batch, length, 1 or 2]` signal and constant `frame_step` /
    `frame_length` (the window may be a graph input): frames gathered, weighted, `dft_nodes` along the
    frame axis."""
    if node.op_type != "STFT" or node.domain not in ("", "ai.onnx"):
        return None
    ins = list(node.input) + [""] * (4 - len(node.input))
    x, step_n, window, length_n = ins[:4]
    shape = g.shapes.get(x)
    step = _scalar(g, step_n)
    if shape is None or len(shape) != 3 or step is None or step < 1 or g.types.get(x) not in FLOAT_TYPES:
        return None
    frame = _scalar(g, length_n) if length_n else None
    if length_n and frame is None:
        return None
    if frame is None:
        wshape = g.shapes.get(window) if window else None
        if window and (wshape is None or len(wshape) != 1):
            return None
        frame = wshape[0] if window else shape[1]
    frames = 1 + (shape[1] - frame) // step
    if frame < 1 or frames < 1:
        return None
    nodes: list[Node] = []
    idx = np.arange(frames)[:, None] * step + np.arange(frame)[None, :]
    framed = _emit(g, nodes, "Gather", [x, g.const(f"{x}_frames", idx.astype(np.int64), nodes)], axis=1)
    if window:
        col = g.const(f"{x}_wcol", np.array([1], np.int64), nodes)
        framed = _emit(g, nodes, "Mul", [framed, _emit(g, nodes, "Unsqueeze", [window, col])])
    g.types[framed] = g.types[x]
    onesided = bool(node_attrs(node).get("onesided", 1))
    ok = dft_nodes(g, nodes, framed, [shape[0], frames, frame, shape[2]], 2, frame, False, onesided,
                   node.output[0])
    return nodes if ok else None
