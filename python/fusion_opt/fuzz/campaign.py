"""A differential fuzzing campaign: many seeds, in parallel child processes, findings shrunk and saved.

Why child processes (fuzz/worker.py) driven from threads: compiling is the cost and happens in IREE,
in the children, so threads are enough to keep `jobs` of them busy, and a child that crashes or hangs
costs only its own batch (rerun graph by graph to name the culprit).
"""
from __future__ import annotations

import collections
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .differential import KINDS as KIND_ORDER
from .differential import MODES, Finding, GraphResult
from .generate import random_graph
from .shrink import isolated_predicate, save_reproducer, shrink
from .worker import run_isolated

# Findings that fail a campaign; a fallback is survived by design (reported, not failed).
FAILING = ("mismatch", "bitwise", "error", "crash", "hang")


@dataclass
class Summary:
    graphs: int = 0
    ops: int = 0
    seconds: float = 0.0
    worst_ratio: float = 0.0
    bitwise_outputs: int = 0
    groups: dict[str, int] = field(default_factory=lambda: collections.Counter())
    findings: list[Finding] = field(default_factory=list)

    def add(self, r: GraphResult) -> None:
        self.graphs += 1
        self.ops += r.n_ops
        self.worst_ratio = max(self.worst_ratio, r.worst_ratio)
        self.bitwise_outputs += r.bitwise_outputs
        self.groups.update(r.groups)
        self.findings += r.findings

    def counts(self) -> dict[str, int]:
        c = collections.Counter(f.kind for f in self.findings)
        return {k: c.get(k, 0) for k in ("mismatch", "bitwise", "error", "crash", "hang", "fallback")}

    def failed(self) -> bool:
        return any(f.kind in FAILING for f in self.findings)

    def text(self) -> str:
        c = self.counts()
        graphs_with = len({f.seed for f in self.findings if f.kind in FAILING})
        return (f"{self.graphs} graphs ({self.ops} ops) in {self.seconds:.0f} s: "
                + ", ".join(f"{v} {k}" for k, v in c.items())
                + f"; {graphs_with} graphs failing; worst error {self.worst_ratio:.3f} of the bound; "
                f"{self.bitwise_outputs} outputs bitwise equal to fusion=none where required; groups per mode "
                + ", ".join(f"{m} {n}" for m, n in sorted(self.groups.items())))


def run_campaign(seed: int, count: int, modes: Sequence[str] = MODES, *, batch: int = 8, jobs: int = 1,
                 target: str = "llvm-cpu", out_dir: Path | None = None, shrink_budget: int = 40,
                 timeout: float = 300.0, stop_on: Callable[[Finding], bool] | None = None,
                 log: Callable[[str], None] = print) -> Summary:
    """Check graphs of seeds seed .. seed+count-1; shrink each failing graph's first finding into
    out_dir (when given). `stop_on`: stop scheduling new batches once a finding satisfies it."""
    t0 = time.perf_counter()
    summary = Summary()
    seeds = list(range(seed, seed + count))
    batches = [seeds[i:i + batch] for i in range(0, len(seeds), batch)]
    stop = False

    def work(b: list[int]) -> list[GraphResult]:
        if stop:
            return []
        return run_isolated([random_graph(s) for s in b], b, modes, target, timeout)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for results in pool.map(work, batches):
            for r in results:
                summary.add(r)
                for f in r.findings:
                    log(f"  {f}")
                if stop_on is not None and any(stop_on(f) for f in r.findings):
                    stop = True
            if results:
                log(f"[{summary.graphs}/{count}] {time.perf_counter() - t0:.0f} s, "
                    f"{sum(summary.counts()[k] for k in FAILING)} failing findings")
    if out_dir is not None:
        summary.findings = shrink_findings(summary.findings, out_dir, target, shrink_budget, log)
    summary.seconds = time.perf_counter() - t0
    return summary


def shrink_findings(findings: list[Finding], out_dir: Path, target: str, budget: int,
                    log: Callable[[str], None] = print) -> list[Finding]:
    """Shrink the first finding of each (seed, kind) and save it; the others are returned unchanged."""
    done: dict[tuple[int, str], Finding] = {}
    out = []
    for f in findings:
        key = (f.seed, f.kind)
        if key in done:
            out.append(f)
            continue
        g = random_graph(f.seed)
        small, checks = shrink(g, isolated_predicate(f, target), budget)
        path = save_reproducer(small, f, out_dir, g.n_ops())
        log(f"shrunk seed {f.seed} ({f.mode} {f.kind}): {g.n_ops()} -> {small.n_ops()} ops in {checks} checks: "
            f"{path}")
        done[key] = Finding(f.seed, f.mode, f.kind, f.detail, str(path))
        out.append(done[key])
    return out


@dataclass
class Hunt:
    """How a planted bug was caught: after how many graphs, by which finding (absent without the bug)."""

    plant: str
    graphs: int = 0
    seconds: float = 0.0
    caught: Finding | None = None


def hunt(plant: str, seed: int, limit: int, modes: Sequence[str] = MODES, *, batch: int = 8, jobs: int = 1,
         target: str = "llvm-cpu", timeout: float = 300.0, log: Callable[[str], None] = print) -> Hunt:
    """Fuzz with `plant` switched on (FUSION_OPT_PLANT in the children) until a graph shows a finding
    that the same graph does not show without it, or `limit` graphs were tried."""
    t0 = time.perf_counter()
    out = Hunt(plant)
    env = {"FUSION_OPT_PLANT": plant}
    seeds = list(range(seed, seed + limit))
    for start in range(0, limit, batch * max(1, jobs)):
        chunk = seeds[start:start + batch * max(1, jobs)]
        parts = [chunk[i:i + batch] for i in range(0, len(chunk), batch)]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = [r for rs in pool.map(lambda b: run_isolated([random_graph(s) for s in b], b, modes, target,
                                                                   timeout, env), parts) for r in rs]
        for r in results:
            out.graphs += 1
            if not r.findings:
                continue
            clean = run_isolated([random_graph(r.seed)], [r.seed], modes, target, timeout)[0].findings
            seen = {(f.mode, f.kind) for f in clean}
            new = sorted((f for f in r.findings if (f.mode, f.kind) not in seen),
                         key=lambda f: KIND_ORDER.index(f.kind))
            if new:
                out.caught = new[0]
                out.seconds = time.perf_counter() - t0
                log(f"{plant}: caught after {out.graphs} graphs ({out.seconds:.0f} s): {new[0]}")
                return out
        log(f"{plant}: {out.graphs} graphs, not caught yet ({time.perf_counter() - t0:.0f} s)")
    out.seconds = time.perf_counter() - t0
    return out
