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
Cubic (any `cubic_coeff_a`, `exclude_outside`), antialiased and tf_crop_and_resize resizes take the
general tables (`filter_taps`): every output a weighted sum of n neighbours, the onnx reference
implementation's kernels and neighbour choice, in f64 (the importer refused these or, for cubic
align_corners downsampling, computed a different coordinate).
"""
from __future__ import annotations

import numpy as np

COORDINATE_MODES = frozenset({"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                              "asymmetric", "tf_half_pixel_for_nn"})
NEAREST_MODES = frozenset({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})


def source_coordinates(mode: str, out: int, size: int, scale: float, length: float | None = None,
                       ) -> np.ndarray | None:
    """Pure: x_original of each output index along one axis (the spec's coordinate_transformation_mode);
    None for a mode not handled. Evaluated as onnxruntime does, in f32 except half_pixel_symmetric's last
    steps (f64, then rounded to f32): nearest picks flip where the two land on either side of a whole
    number (half_pixel_symmetric 5 -> 3, output 1: 2.0 in f32, 1.99999999 as onnxruntime has it).
    `length` is the resized length align_corners divides by: the spec's `scale * size` when scales are
    given (not the rounded output size: 4 -> 2 at scale 0.6 samples 0 and 3 / 1.4), `out` by default."""
    f32 = np.float32
    x = np.arange(out, dtype=f32)
    s, half = f32(scale), f32(0.5)
    if mode == "align_corners" and length is not None:
        n = f32(length)
        return x * f32(size - 1) / (n - f32(1)) if n != 1 else np.zeros(out, f32)
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


FILTER_MODES = frozenset({"nearest", "linear", "cubic"})


def _coefficients(mode: str, ratio: np.ndarray, scale: float, a: float, antialias: bool,
                  nearest_mode: str) -> np.ndarray:
    """(out, n) kernel weights of the n neighbours from the left one (onnx reference's *_coeffs, the
    antialiased kernels stretched by 1 / scale when downsampling and normalized)."""
    r = ratio[:, None]
    if mode == "nearest":
        whole = ratio == 1.0  # x_original a whole number: the right neighbour is that element
        right = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
                 "floor": np.zeros_like(whole), "ceil": np.ones_like(whole)}[nearest_mode] | whole
        return np.stack([~right, right], axis=1).astype(np.float64)
    if not antialias:
        if mode == "linear":
            return np.concatenate([1 - r, r], axis=1)
        s = 1 - r
        return np.concatenate([((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                               ((a + 2) * r - (a + 3)) * r * r + 1,
                               ((a + 2) * s - (a + 3)) * s * s + 1,
                               ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a], axis=1)
    scale = min(scale, 1.0)
    if mode == "linear":
        start = int(np.floor(-1 / scale) + 1)
        args = (np.arange(start, 2 - start)[None, :] - r) * scale
        c = np.clip(1 - np.abs(args), 0, 1)
    else:
        start = int(np.floor(-2 / scale) + 1)
        x = np.abs(scale * (np.arange(start, 2 - start)[None, :] - r))
        c = np.where(x <= 1, (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1,
                     np.where(x < 2, a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a, 0.0))
    return c / c.sum(axis=1, keepdims=True)


def _reference_coordinates(mode: str, out: int, size: int, scale: float,
                           roi: tuple[float, float]) -> tuple[np.ndarray, np.ndarray | None] | None:
    """(x_original, extrapolated or None) in f64, as the onnx reference computes them."""
    y = np.arange(out, dtype=np.float64)
    length = scale * size
    if mode == "tf_crop_and_resize":
        lo, hi = roi
        x = (np.full(out, (hi - lo) * (size - 1) / 2) if length == 1
             else y * (hi - lo) * (size - 1) / (length - 1)) + lo * (size - 1)
        return x, (x < 0) | (x > size - 1)
    if mode == "align_corners":
        return (np.zeros(out) if length == 1 else y * (size - 1) / (length - 1)), None
    if mode == "asymmetric":
        return y / scale, None
    if mode == "pytorch_half_pixel":
        return (np.full(out, -0.5) if length == 1 else (y + 0.5) / scale - 0.5), None
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5, None
    if mode == "half_pixel_symmetric":
        return size / 2 * (1 - out / length) + (y + 0.5) / scale - 0.5, None
    return None


def filter_taps(mode: str, coord: str, out: int, size: int, scale: float, *, roi: tuple[float, float] = (0.0, 1.0),
                cubic_a: float = -0.75, exclude_outside: bool = False, antialias: bool = False,
                nearest_mode: str = "round_prefer_floor",
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """Pure: (indices, weights, extrapolated) along one axis: out[j] = sum_k weights[j, k] * in[indices[j, k]]
    (both (out, n); indices clamped into the input, as edge padding), `extrapolated[j]` where
    tf_crop_and_resize samples outside the input (the output is extrapolation_value there), else None.
    The onnx reference's vectorized 1-D resize, step by step; None for a mode not handled."""
    if mode not in FILTER_MODES or (mode == "nearest" and (antialias or nearest_mode not in NEAREST_MODES)):
        return None
    xs = _reference_coordinates(coord, out, size, scale, roi)
    if xs is None or out < 1 or size < 1:
        return None
    x, outside = xs
    whole = np.floor(x)
    ratio = np.where(x == whole, 1.0, x - whole)
    w = _coefficients(mode, ratio, scale, cubic_a, antialias, nearest_mode)
    n = w.shape[1]
    pad = int(np.ceil(n / 2))
    xp = x + pad
    p = np.floor(xp).astype(np.int64)
    frac = xp - p
    if n % 2 == 0:
        offset = np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        base = -((n - 1) // 2)
        offset = np.where(frac <= 0.5, base, base + 1)
    idx = (p + offset)[:, None] + np.arange(n)[None, :] - pad
    if exclude_outside:
        w = np.where((idx < 0) | (idx >= size), 0.0, w)
        total = w.sum(axis=1, keepdims=True)
        w = w / np.where(total == 0, 1.0, total)
    return np.clip(idx, 0, size - 1), w, outside if outside is not None and outside.any() else None
