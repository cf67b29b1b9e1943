"""Determinism: the same input gives byte-identical IR, plan and module, run after run.

Why separate processes with different PYTHONHASHSEED: the planner's sets and dicts iterate in hash
order for strings, so a plan that depends on iteration order would differ only between processes; two
runs in one process would hide it.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .generate import random_graph

EMITS = ("regions", "json", "plan", "vmfb")


@dataclass(frozen=True)
class Difference:
    seed: int
    mode: str
    emit: str
    detail: str


def _run(src: Path, mode: str, emit: str, hash_seed: int, out: Path) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    proc = subprocess.run([sys.executable, "-m", "fusion_opt.cli", str(src), f"--fusion={mode}", f"--emit={emit}",
                           "-o", str(out)], capture_output=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"fusion-opt failed: {proc.stderr.decode(errors='replace').strip()}")
    return out.read_bytes()


def check_determinism(seeds: Sequence[int], modes: Sequence[str] = ("cost", "greedy"),
                      emits: Sequence[str] = EMITS, log: Callable[[str], None] = print
                      ) -> tuple[int, list[Difference], float]:
    """(outputs compared, differences, seconds): each (graph, mode, emit) run twice, hash seeds 1 and 2."""
    t0 = time.perf_counter()
    diffs: list[Difference] = []
    compared = 0
    with tempfile.TemporaryDirectory(prefix="fusion-fuzz-det-") as tmp:
        d = Path(tmp)
        for s in seeds:
            src = d / f"graph{s}.mlir"
            src.write_text(random_graph(s).module_text())
            for mode in modes:
                for emit in emits:
                    a, b = (_run(src, mode, emit, h, d / f"out{h}") for h in (1, 2))
                    compared += 1
                    if a != b:
                        ha, hb = (hashlib.sha256(x).hexdigest()[:12] for x in (a, b))
                        diffs.append(Difference(s, mode, emit, f"{len(a)} bytes ({ha}) vs {len(b)} bytes ({hb})"))
                        log(f"  differs: seed {s} --fusion={mode} --emit={emit}")
            log(f"[{len(diffs)} differences] seed {s} done ({time.perf_counter() - t0:.0f} s)")
    return compared, diffs, time.perf_counter() - t0
