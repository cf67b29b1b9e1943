"""Per-dispatch times from IREE's host-execution profiling, mapped back to our fusion groups.

Why the command-line tools: the Python runtime has no profiling sink, while
`iree-benchmark-module --device_profiling_mode=host-execution` writes an `.ireeprof` bundle and
`iree-profile dispatch --dispatch_events --format=jsonl` decodes it into one `host_dispatch_event`
row per dispatch (CPU drivers emit `host_*` row types, not the `dispatch_event`/`dispatch_group`
rows the GPU drivers emit). Rows carry the executable export name (`key`), the reusable command
buffer (`command_buffer_id`) and the dispatch's position in it (`command_index`), but no source
location, so a group is found through the flow IR: each `flow.dispatch` call site keeps its region's
location (see `group_location`) and names the same export as the profile's `key`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import RuntimeFailure
from ..ir import ir
from .compile import PARAM_SCOPE, Artifact
from .flow_ir import FlowSite, flow_sites  # noqa: F401  (re-exported for callers)
from .targets import get_target


@dataclass(frozen=True)
class DispatchStats:
    """One executable export: all its invocations over the measured runs (shared by deduplicated sites)."""

    key: str              # export name, e.g. `main_dispatch_3_matmul_64x32x128_f32`
    count: int            # invocations over all measured runs
    per_run: int          # invocations per run (call sites using this export)
    total_us: float       # summed over all measured runs
    median_us: float      # median of one invocation


@dataclass(frozen=True)
class SiteTime:
    """One dispatch call site of the entry function, in execution order (first measured run)."""

    index: int
    key: str
    median_us: float


@dataclass(frozen=True)
class DispatchProfile:
    runs: int                              # measured runs (a first, cold run is dropped)
    sites: tuple[SiteTime, ...]            # per call site, execution order
    dispatches: tuple[DispatchStats, ...]  # per export, most total time first
    wall_us: float                         # benchmark real time per run, profiling on
    span_us: float                         # median per run: first dispatch start to last dispatch end
    seconds: float                         # wall time of the whole measurement (tools included)
    unprofiled_wall_us: float | None = None  # same benchmark without profiling (measure_overhead=True)

    @property
    def dispatch_us(self) -> float:
        """Sum of the per-site medians: the time of one run spent inside dispatches."""
        return sum(s.median_us for s in self.sites)


def find_tool(name: str) -> Path:
    """The venv's bin/ next to sys.executable first (what `pip install` put there), else the wheel's libs."""
    here = Path(sys.executable).parent / name
    if here.is_file():
        return here
    import iree._runtime_libs as libs

    path = Path(libs.__file__).parent / name
    if path.is_file():
        return path
    raise RuntimeFailure(f"cannot find the IREE tool '{name}' (looked in {here.parent} and {path.parent})")


def _run(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
        why = next((l for l in lines if "error" in l.lower() or "INVALID" in l or "status" in l.lower()),
                   lines[-1] if lines else f"exit status {proc.returncode}")
        raise RuntimeFailure(f"{Path(cmd[0]).name} failed: {' '.join(why.split())}")
    return proc.stdout


def profile_dispatches(artifact: Artifact, inputs: Sequence[np.ndarray], *, repetitions: int = 10,
                       driver: str = "local-task", entry: str | None = None,
                       measure_overhead: bool = False) -> DispatchProfile:
    """Run `artifact` repetitions+1 times under host-execution profiling; per-dispatch times of the last ones.

    One benchmark repetition is one call, so the JSON gives a wall time per call and the cold first
    call can be dropped from both wall and dispatch times. `measure_overhead` first runs the same
    benchmark without profiling, for `unprofiled_wall_us`.
    """
    t0 = time.perf_counter()
    fn = entry or artifact.entry
    if not fn:
        raise RuntimeFailure("the artifact names no entry function; pass entry=")
    runs = repetitions + 1
    with tempfile.TemporaryDirectory(prefix="fusion-opt-prof-") as tmp:
        d = Path(tmp)
        (d / "m.vmfb").write_bytes(artifact.vmfb)
        cmd = [str(find_tool("iree-benchmark-module")), f"--device={driver}", f"--module={d / 'm.vmfb'}",
               f"--function={fn}", "--benchmark_min_time=1x", f"--benchmark_repetitions={runs}",
               "--benchmark_format=json"]
        if artifact.params_path is not None:
            cmd.insert(2, f"--parameters={PARAM_SCOPE}={artifact.params_path}")
        for i, a in enumerate(inputs):
            np.save(d / f"in{i}.npy", np.ascontiguousarray(a))
            cmd.append(f"--input=@{d / f'in{i}.npy'}")
        plain_us = _wall_us(_run(cmd)) if measure_overhead else None
        bench = _run([*cmd, "--device_profiling_mode=host-execution",
                      f"--device_profiling_output={d / 'x.ireeprof'}"])
        events = _run([str(find_tool("iree-profile")), "dispatch", "--format=jsonl", "--dispatch_events",
                       str(d / "x.ireeprof")])
    rows = [json.loads(l) for l in events.splitlines() if l.startswith("{")]
    prof = _summarize(rows, runs, _wall_us(bench), time.perf_counter() - t0)
    return dataclasses.replace(prof, unprofiled_wall_us=plain_us)


def _wall_us(stdout: str) -> float:
    """Median `real_time` of the per-call rows after the first (cold) one, in microseconds (0 if absent)."""
    try:
        data = json.loads(stdout[stdout.index("{"):])
    except ValueError:
        return 0.0
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    times = [b["real_time"] * scale.get(b.get("time_unit", "ns"), 1e-3) for b in data.get("benchmarks", [])
             if b.get("run_type", "iteration") == "iteration"]
    return statistics.median(times[1:] or times) if times else 0.0


def _summarize(rows: list[dict], runs: int, wall_us: float, seconds: float) -> DispatchProfile:
    """Split events into runs by command-buffer replay, drop the cold first run, aggregate.

    The entry function replays the same reusable command buffer(s) once per call; buffers run once
    (initializers at load) are not part of a run. Each (buffer, command_index) is one call site.
    """
    ev = [r for r in rows if r.get("type") in ("host_dispatch_event", "dispatch_event") and r.get("valid", True)]
    execs: dict[int, list[int]] = defaultdict(list)  # buffer -> submission ids, in order
    for r in ev:
        subs = execs[r["command_buffer_id"]]
        if r["submission_id"] not in subs:
            subs.append(r["submission_id"])
    buffers = {b for b, subs in execs.items() if len(subs) == runs}
    if not buffers:
        raise RuntimeFailure(f"cannot split the profile into {runs} runs (command buffers executed "
                             f"{sorted(Counter(len(s) for s in execs.values()).items())} times)")
    per_site: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for r in ev:
        if r["command_buffer_id"] in buffers:
            per_site[(r["command_buffer_id"], r["command_index"])].append(r)
    for evs in per_site.values():
        evs.sort(key=lambda r: r["start_host_time_ns"] if "start_host_time_ns" in r else r["event_id"])
    start = "start_host_time_ns" if "start_host_time_ns" in ev[0] else "start_ns"
    end = start.replace("start", "end")
    order = sorted(per_site, key=lambda s: per_site[s][0].get(start, 0))
    sites, by_key = [], defaultdict(list)
    for i, s in enumerate(order):
        measured = [r["duration_ns"] / 1e3 for r in per_site[s][1:]]
        sites.append(SiteTime(i, per_site[s][0]["key"], statistics.median(measured)))
        by_key[sites[-1].key].extend(measured)
    stats = [DispatchStats(k, len(v), len(v) // (runs - 1), sum(v), statistics.median(v)) for k, v in by_key.items()]
    stats.sort(key=lambda s: -s.total_us)
    spans = []
    for k in range(1, runs):
        run = [per_site[s][k] for s in order]
        if all(start in r and end in r for r in run):
            spans.append((max(r[end] for r in run) - min(r[start] for r in run)) / 1e3)
    return DispatchProfile(runs - 1, tuple(sites), tuple(stats), wall_us,
                           statistics.median(spans) if spans else 0.0, seconds)


# ---- mapping dispatch sites to fusion groups ---------------------------------------------------

@dataclass(frozen=True)
class GroupMapping:
    """Measured call sites assigned to fusion groups; `method` says how the assignment was made."""

    group_us: dict[int, float]           # group id -> median us per invocation (summed if several sites)
    other: tuple[SiteTime, ...]          # dispatches of no group (IREE's own: pads, copies, leftovers)
    missing: tuple[int, ...]             # groups with no dispatch (IREE folded them, e.g. weight transposes)
    method: str                          # "location" | "root-loc" | "order"


def _loc_key(desc_loc: str) -> str:
    """`file.mlir:12:5` -> `:12:5` (the flow IR names the buffer `-`); ONNX node names stay as they are."""
    m = re.search(r"(:\d+:\d+)$", desc_loc)
    return m.group(1) if m else desc_loc


def _first_loc(site_loc: str) -> str:
    """`loc(callsite("-":5:8 at ...))` -> `:5:8`; `loc(callsite("n3" at ...))` -> `n3` (an ONNX node)."""
    m = re.search(r'"([^"]*)"(:\d+:\d+)?', site_loc)
    return (m.group(2) or m.group(1)) if m else site_loc


def _compatible(key: str, root_op: str) -> bool:
    """Whether export `key` can be the dispatch of a group rooted at `root_op` (a heuristic, see map_groups)."""
    if "memcpy" in key:
        return root_op in ("tensor.pad", "linalg.copy", "tensor.insert_slice")
    tag = root_op.split(".", 1)[-1]
    return root_op in ("linalg.generic", "tensor.pad") or f"_{tag}_" in key


def _is_late_dispatch(key: str) -> bool:
    """Dispatches IREE creates after the flow phase, so no flow call site names them: data tiling's
    `_encoding_N_encode_*` (packing a matmul operand into the register-tile layout, stream phase)."""
    return key.startswith("_encoding_")


def map_groups(profile: DispatchProfile, plan: object, graph: object | None = None,
               sites: Sequence[FlowSite] | None = None) -> GroupMapping:
    """Assign each measured call site to a group of `plan`.

    With flow `sites`, the k-th execution of an export is its k-th call site in the flow IR (IREE may
    reorder independent dispatches, but then only among identical executables of equal cost); the
    site's group comes from its `fusion_group_N` location, else from its root op's location.
    Without sites, the i-th measured dispatch is taken as the i-th group's, which holds only when IREE
    added no dispatch: checked by count, and by the `_dispatch_N` ordinals IREE gives in program order.
    Dispatches created after the flow phase (data tiling's encodings) belong to no group: `other`.
    """
    ids = [g.id for g in plan.groups]
    group_of: list[int | None]
    late = tuple(s for s in profile.sites if _is_late_dispatch(s.key))
    measured = [s for s in profile.sites if not _is_late_dispatch(s.key)]
    if sites is not None:
        queues: dict[str, list[FlowSite]] = defaultdict(list)
        for s in sites:
            queues[s.key].append(s)
        if Counter(s.key for s in sites) != Counter(s.key for s in measured):
            raise RuntimeFailure("the profiled dispatches do not match the flow IR's call sites")
        matched = [queues[m.key].pop(0) for m in measured]
        if all(s.group is None for s in sites) and graph is not None:
            by_loc: dict[str, list[int]] = defaultdict(list)
            for g in sorted(plan.groups, key=lambda g: min(g.ops)):
                by_loc[_loc_key(graph.ops[g.root].loc)].append(g.id)
            # One ONNX node yields several ops under one location (a pad IREE copies, then the conv;
            # a weight transpose IREE folds, then the matmul): a site takes the first group of its
            # location whose root op names the export (`linalg.matmul` -> `*_matmul_*`).
            root = {g.id: graph.ops[g.root].name for g in plan.groups}
            found: dict[int, int | None] = {}
            for s in sorted(matched, key=lambda s: s.index):
                cands = by_loc.get(_first_loc(s.loc), [])
                ok = [g for g in cands if _compatible(s.key, root[g])]
                found[s.index] = ok[0] if ok else None
                if ok:
                    cands.remove(ok[0])
            group_of, method = [found[s.index] for s in matched], "root-loc"
        else:
            group_of, method = [s.group if s.group in ids else None for s in matched], "location"
    else:
        ordinals = [int(m.group(1)) for s in measured if (m := re.search(r"_dispatch_(\d+)", s.key))]
        first_seen = [o for i, o in enumerate(ordinals) if o not in ordinals[:i]]
        if len(measured) != len(ids) or first_seen != sorted(first_seen):
            raise RuntimeFailure(f"{len(measured)} dispatches for {len(ids)} groups: mapping them needs "
                                 "the flow IR's call sites (pass sites=flow_sites(...))")
        ordered = [g.id for g in sorted(plan.groups, key=lambda g: min(g.ops))]
        group_of, method = list(ordered), "order"
    group_us: dict[int, float] = {}
    other = list(late)
    for m, g in zip(measured, group_of):
        if g is None:
            other.append(m)
        else:
            group_us[g] = group_us.get(g, 0.0) + m.median_us
    return GroupMapping(group_us, tuple(other), tuple(i for i in ids if i not in group_us), method)


def group_times(compiled_model: object, inputs: Sequence[np.ndarray], *, repetitions: int = 10,
                driver: str | None = None, sites: Sequence[FlowSite] | None = None) -> dict[int, float]:
    """Group id -> median seconds per invocation for a `fusion_opt.compile_onnx/compile_mlir` result.

    Key -1 holds the summed median seconds of dispatches outside every group. Call sites come from
    `sites`, else from `artifact.sites` when the compiler recorded them, else from execution order.
    """
    art = compiled_model.artifact
    prof = profile_dispatches(art, inputs, repetitions=repetitions,
                              driver=driver or get_target(art.target).driver)
    sites = sites if sites is not None else getattr(art, "sites", None)
    gm = map_groups(prof, compiled_model.plan, compiled_model.graphs[0], sites)
    out = {g: us * 1e-6 for g, us in gm.group_us.items()}
    out[-1] = sum(s.median_us for s in gm.other) * 1e-6
    return out


__all__ = ["DispatchProfile", "DispatchStats", "FlowSite", "GroupMapping", "SiteTime", "find_tool",
           "flow_sites", "group_times", "map_groups", "profile_dispatches"]
