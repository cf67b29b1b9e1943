"""Which CPU driver runs a compiled module: IREE's thread pool (local-task) or inline (local-sync).

Why measured, not predicted: local-task pays a hand-off to its workers and a barrier per dispatch (about
1.3 us here) and wins back a share of each dispatch's work per extra core; which side wins depends on how
many workgroups each dispatch has, not on its predicted time. Measured on this 2-core machine: a 97-dispatch
GRU 191 -> 62 us per call inline, a tiny ViT 89 -> 21, GPT-2 (2 layers) 233 -> 193; a ViT of 0.7 ms, MobileViT
and every CNN run faster on the pool. Both drivers run the same executables, so the results are bitwise
equal (tested): the choice changes time only. It is made once per loaded module, at its first call and on
that call's own arrays, and only when a call takes under `HEAVY_MS` on the pool (above it the inline driver
cannot win back its lost cores from saved hand-offs, and timing it would cost the user seconds). Not on
made-up inputs: zeros of the declared shapes killed the process with SIGFPE where a model divides integers
by an input (x86 traps on an integer division by zero), and any other input is one the caller never asked
to run.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .runtime import Runner

POOL, INLINE = "local-task", "local-sync"
HEAVY_MS = 5.0       # a pool call slower than this keeps the pool without trying the inline driver
MARGIN = 0.9         # the inline driver must be 10% faster: on a noisy machine a tie stays on the pool
BUDGET_S = 0.25      # wall time spent timing both drivers, at most (plus one warm-up call each)


@dataclass(frozen=True)
class DriverChoice:
    """The driver chosen and why: the per-call medians (microseconds) when both were timed."""

    driver: str
    why: str
    pool_us: float | None = None
    inline_us: float | None = None

    def __str__(self) -> str:
        if self.pool_us is None or self.inline_us is None:
            return f"{self.driver} ({self.why})"
        return (f"{self.driver} ({self.why}: {self.inline_us:.0f} us per call inline, "
                f"{self.pool_us:.0f} us on the thread pool)")


def static_inputs(inputs: list[tuple[tuple[int, ...] | None, object]]) -> bool:
    """Whether every declared (shape, dtype) is known: a dynamic module's first call says little of the next."""
    return not any(shape is None or dtype is None for shape, dtype in inputs)


Clock = Callable[[], float]


def _median_us(call: Callable[[], object], seconds: float, least: int, clock: Clock) -> float:
    times: list[float] = []
    end = clock() + seconds
    while len(times) < least or clock() < end:
        t = clock()
        call()
        times.append(clock() - t)
    return statistics.median(times) * 1e6


def decide(pool_us: float, inline_us: float) -> str:
    """The rule, pure: the inline driver only when it is clearly faster."""
    return INLINE if inline_us < MARGIN * pool_us else POOL


def choose(make: Callable[[str], Runner], args: Sequence[np.ndarray],
           clock: Clock = time.perf_counter) -> tuple[DriverChoice, Runner]:
    """Time the module on both CPU drivers (runners from `make(driver)`) on the first call's `args`; the
    faster and its runner. `clock` is the timer (tests pass a simulated one)."""
    pool = make(POOL)
    if not static_inputs(pool.inputs):
        return DriverChoice(POOL, "dynamic or untyped inputs: not timed"), pool
    t = clock()
    pool(*args)  # warm-up: first-touch of weights and workspace
    first_ms = (clock() - t) * 1e3
    if first_ms > 4 * HEAVY_MS:
        return DriverChoice(POOL, f"a call takes {first_ms:.0f} ms"), pool
    def round_us(run: Runner) -> float:  # one of four timing rounds: a quarter of the budget, 3 calls at least
        return _median_us(lambda: run(*args), BUDGET_S / 4, 3, clock)

    pool_us = round_us(pool)
    if pool_us > HEAVY_MS * 1e3:
        return DriverChoice(POOL, f"a call takes {pool_us / 1e3:.1f} ms", pool_us), pool
    inline = make(INLINE)
    inline(*args)
    # rounds in the order pool, inline, inline, pool: a burst of load on a shared machine hits both
    inline_us = min(round_us(inline), round_us(inline))
    pool_us = min(pool_us, round_us(pool))
    driver = decide(pool_us, inline_us)
    return DriverChoice(driver, "auto", pool_us, inline_us), (inline if driver == INLINE else pool)
