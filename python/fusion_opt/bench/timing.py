"""Timing and comparison helpers of the benchmarks, on numpy and the standard library alone.

Why a module of their own: `remote_run.py` times exported modules on a machine that has only
`iree-base-runtime` (a GPU host), with the same interleaved rounds as `fusion-bench run`.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def as_outputs(result: Any) -> list[np.ndarray]:
    """A CompiledModel returns one array or a tuple; onnxruntime a list: normalise to a list of ndarrays."""
    if isinstance(result, (tuple, list)):
        return [np.asarray(r) for r in result]
    return [np.asarray(result)]


# An engine whose outputs are farther than this from the reference (relative to max(1, |reference|), never
# finer than 64 ulps of the output type) computed something else: its time is no comparison.
WRONG_REL = 1e-3


def wrong(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> bool:
    """Float outputs that differ from the reference beyond `WRONG_REL` (or NaNs, or outputs differing in count
    or shape)."""
    if len(got) != len(want) or any(g.shape != w.shape for g, w in zip(got, want)):
        return True
    for g, w in zip(got, want):
        if g.size and np.issubdtype(w.dtype, np.floating):
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            d = np.where(np.isnan(g64) & np.isnan(w64), 0.0, np.abs(g64 - w64))  # NaN where the reference has one
            tol = max(WRONG_REL, 64 * float(np.finfo(w.dtype).eps)) * max(1.0, float(np.nanmax(np.abs(w64), initial=0)))
            if not float(np.max(d)) <= tol:  # a NaN of ours alone: wrong
                return True
    return False  # integer outputs are not judged: indices of tied values may differ between engines


def max_abs_err(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> float:
    """Largest |got - want| over all outputs; inf on a count or shape mismatch, nan if anything is NaN."""
    if len(got) != len(want):
        return math.inf
    err = 0.0
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return math.inf
        if g.size:
            d = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
            if math.isnan(d):
                return math.nan  # max() would drop it: max(0.0, nan) is 0.0
            err = max(err, d)
    return err


def short_error(e: BaseException, limit: int = 300) -> str:
    """`Type: first line of the message`, cut at `limit`: one line per failure in a benchmark record."""
    first = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {first[:limit]}"


def _timings(ms: list[float]) -> dict[str, float]:
    return {"ms": statistics.median(ms), "min_ms": min(ms), "max_ms": max(ms),
            "stdev_ms": statistics.stdev(ms) if len(ms) > 1 else 0.0}


def measure(fns: dict[str, Callable[[], Any]], repeat: int, warmup: int,
            rounds: dict[str, list[float]] | None = None) -> dict[str, dict[str, float]]:
    """Warm-up rounds, then `repeat` timed rounds; each round runs every engine once, in a shuffled order
    (seeded: the same every run). Not a rotation: rotating keeps the cyclic order, so one engine would
    always run right after the same other one (ours after onnxruntime, whose worker threads spin on
    after its call and whose buffers evict the previous engine's from the caches).
    `rounds`, when given, receives every engine's per-round milliseconds (for paired ratios)."""
    names = list(fns)
    for _ in range(warmup):
        for n in names:
            fns[n]()
    samples: dict[str, list[float]] = {n: [] for n in names}
    rng = random.Random(0)
    for _ in range(repeat):
        order = names[:]
        rng.shuffle(order)
        for n in order:
            t0 = time.perf_counter()
            fns[n]()
            samples[n].append((time.perf_counter() - t0) * 1e3)
    if rounds is not None:
        rounds.update(samples)
    return {n: _timings(s) for n, s in samples.items()}


def paired_ratio(ours: Sequence[float], other: Sequence[float]) -> float:
    """Median over rounds of ours / other, each ratio from one round: a drift of the machine over the run
    (another process, thermal state) slows both engines of a round alike and cancels, where a ratio of
    the two medians keeps whatever the drift did to each engine's half of the rounds."""
    return statistics.median(a / b for a, b in zip(ours, other) if b > 0)
