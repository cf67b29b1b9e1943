"""ONNX Resize (nearest / linear) as per-axis source-index and weight tables.

Why: the importer lowers Resize as one `linalg.generic` that recomputes every output element's source
coordinates (divides, floors, clamps for each axis) and gathers its 2^k neighbours: DeepLabV3's bilinear
21x14x14 -> 21x224x224 upsampling ran 3.9 ms (onnxruntime 1.2). Nearest and linear interpolation are
separable, so the same result is one pass per resized axis, each a Gather of constant source indices (and
for linear a second Gather and two weights): 0.67 ms for that upsampling, the inner axis first (its gather
is the strided one, done on the smaller tensor when upsampling). The tables are functions of the sizes
and attributes alone, computed here in f32 with onnxruntime's formulas (coordinate modes of the ONNX
spec; linear: the coordinate clamped into the input, the neighbours `x1 = int(x)`, `x2 = min(x1 + 1,
size - 1)`, weights `|x - x2|` and `|x - x1|`, one half each where both neighbours are the same element).
Cubic, antialiased and tf_crop_and_resize resizes are left as imported (None).
"""
from __future__ import annotations

import numpy as np

COORDINATE_MODES = frozenset({"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                              "asymmetric", "tf_half_pixel_for_nn"})
NEAREST_MODES = frozenset({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})


def source_coordinates(mode: str, out: int, size: int, scale: float) -> np.ndarray | None:
    """Pure: x_original of each output index along one axis (the spec's coordinate_transformation_mode);
    None for a mode not handled. Evaluated as onnxruntime does, in f32 except half_pixel_symmetric's last
    steps (f64, then rounded to f32): nearest picks flip where the two land on either side of a whole
    number (half_pixel_symmetric 5 -> 3, output 1: 2.0 in f32, 1.99999999 as onnxruntime has it)."""
    f32 = np.float32
    x = np.arange(out, dtype=f32)
    s, half = f32(scale), f32(0.5)
    if mode == "half_pixel":
        return (x + half) / s - half
    if mode == "pytorch_half_pixel":
        return (x + half) / s - half if out > 1 else np.zeros(out, f32)
    if mode == "align_corners":
        return x * f32(size - 1) / f32(out - 1) if out > 1 else np.zeros(out, f32)
    if mode == "asymmetric":
        return x / s
    if mode == "tf_half_pixel_for_nn":
        return (x + half) / s
    if mode == "half_pixel_symmetric":
        adjustment = f32(out) / (s * f32(size))
        offset = f32(size) / f32(2) * (f32(1) - adjustment)
        return (np.float64(offset) + (x.astype(np.float64) + 0.5) / np.float64(s) - 0.5).astype(f32)
    return None


def nearest_indices(x: np.ndarray, nearest_mode: str, size: int) -> np.ndarray | None:
    """Pure: the source element of each output (the spec's nearest_mode), clamped into the input."""
    lo = np.floor(x)
    if nearest_mode == "round_prefer_floor":
        i = np.where(x == lo + 0.5, lo, np.floor(x + 0.5))
    elif nearest_mode == "round_prefer_ceil":
        i = np.where(x == lo + 0.5, lo + 1, np.floor(x + 0.5))
    elif nearest_mode == "floor":
        i = lo
    elif nearest_mode == "ceil":
        i = np.ceil(x)
    else:
        return None
    return np.clip(i, 0, size - 1).astype(np.int64)


def linear_taps(x: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pure: (x1, x2, w1, w2) per output: out = w1 * in[x1] + w2 * in[x2] (onnxruntime's bilinear setup)."""
    x = np.clip(x.astype(np.float32), np.float32(0), np.float32(size - 1))
    x1 = np.minimum(x.astype(np.int64), size - 1)
    x2 = np.minimum(x1 + 1, size - 1)
    d1 = np.abs(x - x1.astype(np.float32))
    d2 = np.abs(x - x2.astype(np.float32))
    same = x1 == x2
    d1, d2 = np.where(same, np.float32(0.5), d1), np.where(same, np.float32(0.5), d2)
    return x1, x2, d2.astype(np.float32), d1.astype(np.float32)


def is_identity(out: int, size: int, indices: np.ndarray) -> bool:
    """Whether a gather along an axis copies the input unchanged (nothing to emit for it)."""
    return out == size and bool((indices == np.arange(size)).all())
