"""Run differential checks in a child process, so a crash or hang in IREE is a finding, not the end.

Why a child process per job: IREE's compiler runs in process, and a fuzz graph can segfault it or make
it loop; the parent (fuzz/command.py, the shrinker) survives either and names the graph. The job and
the results travel pickled over stdin/stdout; environment switches (planted bugs, injected faults,
fusion_opt.testhooks) are inherited.

    python -m fusion_opt.fuzz.worker < job.pkl > results.pkl
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from .differential import Finding, GraphResult, check_graphs
from .graph import Graph


@dataclass(frozen=True)
class Job:
    graphs: tuple[Graph, ...]
    seeds: tuple[int, ...]
    modes: tuple[str, ...]
    target: str = "llvm-cpu"


def run_job(job: Job, timeout: float, env: dict[str, str] | None = None) -> list[GraphResult] | str:
    """The job's results, or why the child died: `crash: signal N` / `hang: no answer after T s`.
    `env`: extra environment for the child (e.g. FUSION_OPT_PLANT)."""
    # A child killed by a signal or the timeout runs no cleanup: its temporary folders (IREE inputs,
    # weight archives) go under one of ours, removed whatever happens (CI's /tmp gathered them).
    with tempfile.TemporaryDirectory(prefix="fusion-opt-fuzz-") as tmp:
        env = {**os.environ, **(env or {}), "TMPDIR": tmp}
        try:
            proc = subprocess.run([sys.executable, "-m", "fusion_opt.fuzz.worker"], input=pickle.dumps(job),
                                  capture_output=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return f"hang: no answer after {timeout:.0f} s"
    if proc.returncode != 0:
        tail = " ".join(proc.stderr.decode(errors="replace").strip().splitlines()[-1:])
        what = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
        return f"crash: {what}" + (f" ({tail[:200]})" if tail else "")
    return pickle.loads(proc.stdout)


def run_isolated(graphs: Sequence[Graph], seeds: Sequence[int], modes: Sequence[str], target: str = "llvm-cpu",
                 timeout: float = 300.0, env: dict[str, str] | None = None) -> list[GraphResult]:
    """Results of every graph; a child that dies is rerun graph by graph and mode by mode, and the
    (graph, mode) that kills it becomes a `crash` or `hang` finding."""
    out = run_job(Job(tuple(graphs), tuple(seeds), tuple(modes), target), timeout, env)
    if not isinstance(out, str):
        return out
    if len(graphs) > 1:  # find the graph first, with all its modes (keeps the bitwise comparison)
        return [r for g, s in zip(graphs, seeds) for r in run_isolated([g], [s], modes, target, timeout, env)]
    if len(modes) == 1:
        kind = out.split(":", 1)[0]
        return [GraphResult(seeds[0], graphs[0].n_ops(), [Finding(seeds[0], modes[0], kind, out)])]
    merged = GraphResult(seeds[0], graphs[0].n_ops())  # then the mode; modes run apart: no bitwise check
    for m in modes:
        r = run_isolated(graphs, seeds, [m], target, timeout, env)[0]
        merged.findings += r.findings
        merged.worst_ratio = max(merged.worst_ratio, r.worst_ratio)
        merged.groups.update(r.groups)
    return [merged]


def main() -> int:
    job: Job = pickle.loads(sys.stdin.buffer.read())
    results = check_graphs(job.graphs, job.seeds, job.modes, job.target)
    sys.stdout.buffer.write(pickle.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
