"""Measurement driver for `fusion-bench calibrate` and `fusion-bench accuracy`.

Calibration compiles each calibration model twice, with fusion="none" (one dispatch per op: clean
per-kind data) and fusion="cost" (our fused groups: epilogues, softmax/layernorm bodies), profiles
the per-dispatch times with IREE's host-execution profiling (median over repetitions), pairs every
group mapped to a measured dispatch with its GroupView, and fits the target's free constants
(`cost.calibrate.fit`). Accuracy measures held-out models the same way and scores the stored
calibration. The calibration and held-out sets are fixed here, in one place, and both commands print
them, so figures are reproducible and never scored on the models they were fitted to.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import pickle
import platform
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..backends.levers import DATA_TILING
from ..cost.calibrate import Sample, accuracy, fit, per_kind_error, records, with_sources
from ..cost.group import group_view
from ..cost.targets import TargetDesc
from . import models

CALIBRATION_MODELS: tuple[str, ...] = ("squeezenet", "shufflenet", "inception_v2", "mlp_gelu", "layernorm", "attention")
HELD_OUT_MODELS: tuple[str, ...] = ("resnet50", "densenet121", "bert_layer", "mlp4")
FUSIONS: tuple[str, ...] = ("none", "cost")


def describe_sets() -> str:
    return (f"calibration models: {', '.join(CALIBRATION_MODELS)}\n"
            f"held-out models:    {', '.join(HELD_OUT_MODELS)}")


def _model_path(name: str, seed: int, cache: Path | None) -> Path:
    """Seed 0 is the shared suite cache; other seeds get their own folder, never overwriting it."""
    base = cache if cache is not None else models.default_cache()
    return models.ensure_model(name, base if seed == 0 else base / f"seed{seed}", seed=seed)


# Bumped when what a cached measurement means changes (2: samples record data tiling; convs imported
# without their unit batch loop), so --reuse never mixes runs of different builds.
CACHE_VERSION = 2


def _cache_file(path: Path, fusion: str, repeat: int, round_: int = 0) -> Path:
    key = f"{path.resolve()}:{path.stat().st_mtime_ns}:{fusion}:{repeat}:v{CACHE_VERSION}"
    key += f":round{round_}" if round_ else ""
    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
    return models.default_cache().parent / "calibration" / f"{path.stem}-{fusion}-{digest}.pkl"


def measure_model(path: Path, fusion: str, repeat: int, *, name: str | None = None, reuse: bool = False,
                  target: str = "llvm-cpu", round_: int = 0) -> tuple[list[Sample], dict[str, Any]]:
    """Samples (group view + median measured seconds) of every group mapped to a dispatch, and facts
    about the run: dispatch counts and the mean gap between dispatches (launch work not in any duration)."""
    import fusion_opt as fo
    from ..backends.profile import map_groups, profile_dispatches
    from ..backends.targets import get_target

    name = name or path.stem
    cached = _cache_file(path, fusion, repeat, round_)
    if reuse and cached.is_file():
        samples, facts = pickle.loads(cached.read_bytes())
        return with_sources(samples), facts  # measured before views carried input sources
    inputs, _ = models.load_inputs(path)
    m = fo.compile_onnx(str(path), target=target, fusion=fusion)
    args = [inputs[n] for n in (m.input_names or tuple(inputs))]
    prof = profile_dispatches(m.artifact, args, repetitions=repeat, driver=get_target(m.artifact.target).driver)
    gm = map_groups(prof, m.plan, m.graphs[0], getattr(m.artifact, "sites", None))
    graph, plan = m.graphs[0], m.plan
    tiled = DATA_TILING in m.artifact.flags
    samples = []
    for g in plan.groups:
        if g.id not in gm.group_us or gm.group_us[g.id] <= 0:
            continue
        clones = tuple(c for c in plan.cloned if set(graph.consumers(c)) & set(g.ops))
        view = group_view(graph, tuple(g.ops) + clones, clones)
        samples.append(Sample(view, gm.group_us[g.id] * 1e-6, name, g.id, fusion, tiled))
    n = len(prof.sites)
    facts = {"model": name, "fusion": fusion, "dispatches": n, "mapped": len(samples),
             "unmapped": len(gm.other), "gap_us": max(0.0, prof.span_us - prof.dispatch_us) / max(1, n),
             "span_us": prof.span_us}
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(pickle.dumps((samples, facts)))
    return samples, facts


def collect(paths: Sequence[tuple[str, Path]], fusions: Sequence[str], repeat: int, *, reuse: bool = False,
            verbose: bool = True, rounds: int = 1) -> tuple[list[Sample], list[dict[str, Any]]]:
    """Measure every (model, fusion) `rounds` times, round-robin, and keep per dispatch the fastest of
    its per-round medians (`fastest_rounds`). Why: on a shared VM the same build measured minutes
    apart ran 1.5x slower or faster as a whole (held-out median error 47% in one run, 17% in the next
    with the same constants); a round slowed by another tenant should not decide the figure."""
    runs: dict[tuple[str, str], list[list[Sample]]] = {}
    facts: list[dict[str, Any]] = []
    for r in range(rounds):
        for name, path in paths:
            for fusion in fusions:
                t0 = time.perf_counter()
                s, f = measure_model(path, fusion, repeat, name=name, reuse=reuse, round_=r)
                runs.setdefault((name, fusion), []).append(s)
                facts.append({**f, "round": r})
                if verbose:
                    print(f"  {name} fusion={fusion}{f' round {r + 1}' if rounds > 1 else ''}: {f['dispatches']} "
                          f"dispatches, {f['mapped']} mapped to groups, gap {f['gap_us']:.2f} us/dispatch "
                          f"({time.perf_counter() - t0:.1f}s)", flush=True)
    return [s for per_round in runs.values() for s in fastest_rounds(per_round)], facts


def fastest_rounds(per_round: Sequence[Sequence[Sample]]) -> list[Sample]:
    """One sample per group of a (model, fusion) run: the first round's, with the fastest measured time
    any round got for that group. A group is the same only with the same ops (a round planned with
    another host measurement may have grouped differently: its groups stay samples of their own)."""
    best: dict[tuple[int, tuple[int, ...]], Sample] = {}
    for samples in per_round:
        for s in samples:
            key = (s.group, tuple(op.index for op in s.view.ops))
            b = best.get(key)
            if b is None:
                best[key] = s
            elif s.measured_s < b.measured_s:
                best[key] = replace(b, measured_s=s.measured_s)
    return list(best.values())


def machine() -> str:
    from ..cost.host import cpu_model, num_cores
    return f"{cpu_model()} ({num_cores()} cores, {platform.machine()}, {platform.node()})"


def run_calibration(names: Sequence[str], seed: int, repeat: int, *, reuse: bool = False,
                    cache: Path | None = None, remeasure: bool = True, rounds: int = 1,
                    free: bool = False) -> dict[str, Any]:
    """Measure, fit, store; returns the stored calibration (constants + provenance)."""
    from ..cost import host

    print(describe_sets())
    print(f"calibrating on: {', '.join(names)} (seed {seed}, {repeat} repetitions, fusion {'+'.join(FUSIONS)})",
          flush=True)
    # Measure the host afresh (a noisy cached peak would otherwise persist) and fit from defaults,
    # not from a previous calibration.
    base = host.host_target(remeasure=remeasure, calibrated=False)
    print(f"host: f32 peak {dict(base.peak_flops)['f32'] / 1e9:.1f} GFLOP/s, DRAM {base.dram_bw / 1e9:.1f} GB/s",
          flush=True)
    paths = [(n, _model_path(n, seed, cache)) for n in names]
    samples, facts = collect(paths, FUSIONS, repeat, reuse=reuse, rounds=rounds)
    t0 = time.perf_counter()
    result = fit(samples, base, free=free, progress=lambda k, l: print(f"  sweep {k}: mean |log(pred/meas)| {l:.3f}",
                                                            flush=True))
    from ..cost.targets import with_calibration
    tuned = with_calibration(base, result.constants)
    acc = accuracy([r["predicted_us"] for r in records(samples, tuned)], [s.measured_s * 1e6 for s in samples])
    prov = {"models": list(names), "seeds": [seed], "repetitions": repeat, "rounds": rounds, "fusions": list(FUSIONS),
            "date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": machine(),
            "dispatches": len(samples), "free": free,
            **({} if free else {"efficiency_scale": round(_scale(base, result.constants), 4)}),
            "fit_loss_before": round(result.loss_before, 4),
            "fit_loss": round(result.loss_after, 4), "fit_sweeps": result.sweeps,
            "fit_seconds": round(time.perf_counter() - t0, 1),
            "fit_kendall_tau": round(acc["kendall_tau"], 4), "fit_median_rel_error": round(acc["median_rel_error"], 4),
            "fit_p90_rel_error": round(acc["p90_rel_error"], 4),
            "mean_gap_us": round(statistics.mean(f["gap_us"] for f in facts), 3),
            "host_f32_peak": dict(base.peak_flops)["f32"], "host_dram_bw": base.dram_bw, "runs": facts}
    path = host.store_calibration({**result.constants, "provenance": prov})
    print(f"fit: mean |log(pred/meas)| {result.loss_before:.3f} -> {result.loss_after:.3f} over {len(samples)} "
          f"dispatches; on the calibration set tau {acc['kendall_tau']:.3f}, median rel. error "
          f"{acc['median_rel_error']:.1%}, p90 {acc['p90_rel_error']:.1%}")
    for k, v in result.constants.items():
        print(f"  {k}: {json.dumps(v, sort_keys=True) if isinstance(v, dict) else f'{v:.4g}'}")
    print(f"stored {path} (planning uses it with ${host.CALIBRATED_ENV}=1 only: docs/cost-model.md, Calibration)")
    return {**result.constants, "provenance": prov}


def _scale(base: TargetDesc, constants: dict[str, Any]) -> float:
    """The common factor a tied fit put on every efficiency key."""
    key, e = next((k, e) for k, e in base.efficiency if e > 0)
    return float(constants["efficiency"][key]) / e


def run_accuracy(jobs: Sequence[tuple[str, Path]], repeat: int, fusions: Sequence[str], *,
                 reuse: bool = False, json_out: Path | None = None, rounds: int = 1) -> dict[str, Any]:
    from ..cost import host

    print(describe_sets())
    print(f"measuring: {', '.join(n for n, _ in jobs)} ({repeat} repetitions, fusion {'+'.join(fusions)})", flush=True)
    target = host.host_target(calibrated=True)
    cal = host.load_calibration()
    prov = cal.get("provenance", {})
    if not cal:
        print("warning: the host target is not calibrated (run `fusion-bench calibrate` first): default constants")
    overlap = sorted(set(n for n, _ in jobs) & set(prov.get("models", ())))
    if overlap:
        print(f"warning: {', '.join(overlap)} were used for calibration: these figures are not held out")
    samples, facts = collect(jobs, fusions, repeat, reuse=reuse, rounds=rounds)
    recs = records(samples, target)
    acc = accuracy([r["predicted_us"] for r in recs], [r["measured_us"] for r in recs])
    print(f"\n{acc['n']} dispatches: Kendall tau {acc['kendall_tau']:.3f}, median rel. error "
          f"{acc['median_rel_error']:.1%}, p90 {acc['p90_rel_error']:.1%}")
    print("per kind (count, median rel. error): " + ", ".join(
        f"{k} {n} {e:.0%}" for k, (n, e) in per_kind_error(recs).items()))
    print("worst ten dispatches:")
    print(f"  {'model':12s} {'fusion':6s} {'grp':>4s} {'kind':22s} {'root':28s} {'pred us':>9s} {'meas us':>9s} "
          f"{'err':>7s} bound")
    for r in sorted(recs, key=lambda r: -r["rel_error"])[:10]:
        print(f"  {r['model'][:12]:12s} {r['fusion']:6s} {r['group']:4d} {r['kind'][:22]:22s} {r['root'][:28]:28s} "
              f"{r['predicted_us']:9.1f} {r['measured_us']:9.1f} {r['rel_error']:7.1%} {r['bound']}")
    out = {**acc, "models": [n for n, _ in jobs], "fusions": list(fusions), "repetitions": repeat, "rounds": rounds,
           "held_out": [n for n, _ in jobs if n not in prov.get("models", ())],
           "calibration": prov, "calibrated_constants": {k: v for k, v in cal.items() if k != "provenance"},
           "per_kind": {k: {"count": n, "median_rel_error": e} for k, (n, e) in per_kind_error(recs).items()},
           "runs": facts, "dispatches": recs, "date": datetime.datetime.now().isoformat(timespec="seconds"),
           "machine": machine()}
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {json_out}")
    return out


# ---- command line (wired into fusion-bench's parser by cli.py) ----------------------------------------

def _common(p: Any) -> None:
    p.add_argument("--target", default="host", help="only host can be measured here (llvm-cpu and cpu are aliases)")
    p.add_argument("--repeat", type=int, default=10, help="profiled runs per compiled model (median per dispatch)")
    p.add_argument("--reuse", action="store_true",
                   help="reuse measurements cached in .cache/calibration for the same file, fusion and repeat")
    p.add_argument("--cache", type=Path, default=None, help="suite model cache (default .cache/models)")
    p.add_argument("--rounds", type=int, default=3,
                   help="measure every model this many times, round-robin; each dispatch keeps its fastest "
                        "round (a shared machine slows whole runs down)")


def add_calibrate_args(p: Any) -> None:
    _common(p)
    p.add_argument("--models", nargs="+", default=None, metavar="NAME",
                   help=f"suite models to calibrate on (default: {','.join(CALIBRATION_MODELS)})")
    p.add_argument("--seed", type=int, default=0, help="weights/inputs seed of the suite models")
    p.add_argument("--no-remeasure", dest="remeasure", action="store_false",
                   help="keep the cached host peak/bandwidth instead of measuring them again")
    p.add_argument("--free", action="store_true",
                   help="fit every efficiency key on its own instead of one factor on all of them (more "
                        "accurate on the calibration set, but it can reorder the forms the planner chooses "
                        "between: see docs/cost-model.md)")


def add_accuracy_args(p: Any) -> None:
    _common(p)
    p.add_argument("--models", nargs="+", type=Path, default=None, metavar="FILE.onnx",
                   help=f"measure exactly these files (default: the held-out suite models "
                        f"{','.join(HELD_OUT_MODELS)})")
    p.add_argument("--fusion-modes", default=",".join(FUSIONS), help="comma-separated fusion modes to measure")
    p.add_argument("--json", type=Path, default=None, metavar="OUT.json", help="write the figures and records here")


def check_args(ap: Any, args: Any) -> None:
    if args.target not in ("host", "llvm-cpu", "cpu"):
        ap.error(f"--target={args.target}: only the host can be measured on this machine")
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if args.command == "calibrate":
        args.models = [n for v in args.models or CALIBRATION_MODELS for n in v.split(",") if n]
        unknown = [n for n in args.models if n not in models.SUITE]
        if unknown:
            ap.error(f"unknown suite model(s): {', '.join(unknown)} (known: {', '.join(models.SUITE)})")
    else:
        missing = [str(p) for p in args.models or () if not p.is_file()]
        if missing:
            ap.error(f"no such model file: {', '.join(missing)}")
        args.modes = [m for m in args.fusion_modes.split(",") if m]
        if not args.modes:
            ap.error("--fusion-modes is empty")


def run_command(args: Any) -> int:
    if args.command == "calibrate":
        run_calibration(args.models, args.seed, args.repeat, reuse=args.reuse, cache=args.cache,
                        remeasure=args.remeasure, rounds=args.rounds, free=args.free)
        return 0
    if args.models:
        jobs = [(p.stem, p) for p in args.models]
    else:
        jobs = [(n, _model_path(n, 0, args.cache)) for n in HELD_OUT_MODELS]
    out = run_accuracy(jobs, args.repeat, args.modes, reuse=args.reuse, json_out=args.json, rounds=args.rounds)
    return 0 if out["n"] else 1
