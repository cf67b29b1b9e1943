"""fusion-bench: our fusion vs IREE's own (default and best flags) vs onnxruntime vs the roofline, per model.

    fusion-bench [run] [--models A.onnx ...] [--suite NAMES|all] [--json OUT.json] [--plot OUT.svg]
                       [--repeat N] [--warmup K] [--fusion-modes cost,greedy,iree] [--no-iree-best]
                       [--iree-best-flags="FLAGS"] [--target host] [--tile-sizes iree|cost] [--cache DIR]

`run` is the default subcommand, so `fusion-bench --models m.onnx` and `fusion-bench run --models m.onnx` are the
same; later subcommands (calibrate, fuzz) slot into the same parser.
Engines, timed interleaved in one process: each fusion mode through compile_onnx (cost = "ours"), `iree_best`
(IREE's own importer and iree-compile at iree_best.IREE_BEST_FLAGS), onnxruntime; plus the roofline bound
max(FLOPs / peak, min bytes / bandwidth) with this machine's measured peak and bandwidth.
Inputs for a model file come from `<stem>.npz` beside it (arrays named after the graph inputs, `output`,
`output_1`, ... the reference outputs), else from a seed; without an npz the reference is onnxruntime.
JSON: {"config": {...}, "results": [one record per model], "geomean": {...}, "noise": {...}}; the plot (SVG)
goes next to it as OUT.svg unless --plot names another file. Exit status: 0, 2 on usage errors, 1 if every
model failed.
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import iree_best, models, plot, roofline, runner, summary

DEFAULT_SUITE = ("resnet50", "squeezenet", "densenet121", "inception_v2", "shufflenet", "vgg19", "mlp_gelu",
                 "layernorm", "attention", "bert_layer", "mlp4")
SUBCOMMANDS = ("run", "calibrate", "accuracy", "fuzz", "ablation", "conformance", "export")
TARGET_ALIASES = {"host": "llvm-cpu", "cpu": "llvm-cpu"}


def _names(values: Sequence[str] | None) -> list[str]:
    """Accept both `--suite a b` and `--suite a,b`."""
    return [n for v in values or () for n in v.split(",") if n]


def add_run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", nargs="+", type=Path, default=None, metavar="FILE.onnx",
                   help="ONNX files to benchmark (inputs from FILE.npz beside each, else seeded random)")
    p.add_argument("--suite", nargs="+", default=None, metavar="NAME",
                   help=f"bundled suite models, or 'all' (default without --models: {','.join(DEFAULT_SUITE)})")
    p.add_argument("--json", type=Path, default=None, metavar="OUT.json", help="write the records here")
    p.add_argument("--plot", type=Path, default=None, metavar="OUT.svg",
                   help="write the SVG plot here (default: beside --json, same stem, .svg)")
    p.add_argument("--no-iree-best", action="store_true",
                   help="skip the iree_best engine (IREE's own importer and pipeline at its best flags)")
    p.add_argument("--iree-best-flags", default=None, metavar="FLAGS",
                   help="space-separated iree-compile flags replacing iree_best.IREE_BEST_FLAGS "
                        f"(default: {' '.join(iree_best.IREE_BEST_FLAGS)}); the host-CPU target flags stay. "
                        "Write it as --iree-best-flags='--a --b' (with '=': a value starting with '-')")
    p.add_argument("--repeat", type=int, default=20, help="timed rounds per engine (median reported)")
    p.add_argument("--warmup", type=int, default=3, help="untimed rounds per engine first")
    p.add_argument("--fusion-modes", default="cost,greedy,iree",
                   help="comma-separated compile_onnx fusion modes; cost (the default planner) is reported as 'ours'; "
                        "'nchw' / 'nhwc' are the cost planner with layout='nchw' (convs as imported) / 'nhwc' "
                        "(every conv channels-last); the default layout='auto' chooses per conv")
    p.add_argument("--target", default="host", help="host (= llvm-cpu) or any compile_onnx target")
    p.add_argument("--tile-sizes", default="iree", choices=("iree", "cost"),
                   help="compile_onnx tile_sizes for every mode (the 'iree' fusion mode forms no groups, so it "
                        "keeps IREE's tiles either way and stays the anchor)")
    p.add_argument("--cache", type=Path, default=None, help="suite model cache (default $FUSION_OPT_CACHE "
                   "or <repo>/.cache/models)")
    p.add_argument("--seed", type=int, default=0, help="seed for inputs of models without an npz")
    p.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of failures")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="fusion-bench", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", metavar="{run,calibrate,accuracy,fuzz,ablation,conformance,export}")
    add_run_args(sub.add_parser("run", help="benchmark models (default subcommand)"))
    from .calibrate import add_accuracy_args, add_calibrate_args
    add_calibrate_args(sub.add_parser("calibrate", help="fit the cost model's constants to measured dispatches"))
    add_accuracy_args(sub.add_parser("accuracy", help="predicted vs measured dispatch times on held-out models"))
    ab = sub.add_parser("ablation", help="each lever of our cost mode switched off in turn (docs/performance.md)")
    ab.add_argument("--models", nargs="+", type=Path, default=None, metavar="FILE.onnx")
    ab.add_argument("--suite", nargs="+", default=None, metavar="NAME")
    ab.add_argument("--json", type=Path, default=None, metavar="OUT.json")
    ab.add_argument("--repeat", type=int, default=7)
    ab.add_argument("--warmup", type=int, default=2)
    ab.add_argument("--cache", type=Path, default=None)
    from ..fuzz.command import add_fuzz_args
    add_fuzz_args(sub.add_parser("fuzz", help="differential fuzzing, planted bugs, malformed inputs, faults, "
                                 "determinism (docs/reliability.md)"))
    from .conformance import add_args as add_conformance_args
    add_conformance_args(sub.add_parser("conformance", help="the onnx package's operator and model test cases "
                                        "through compile_onnx, against their reference outputs"))
    ex = sub.add_parser("export", help="compile models for a device this machine lacks (a GPU), to run there "
                        "with `python -m fusion_opt.bench.remote_run DIR`")
    ex.add_argument("out", type=Path, metavar="DIR", help="export directory (manifest.json, .vmfb, .irpa, .npz)")
    ex.add_argument("--models", nargs="+", type=Path, default=None, metavar="FILE.onnx")
    ex.add_argument("--suite", nargs="+", default=None, metavar="NAME")
    ex.add_argument("--target", default="sm_90", help="compile target (sm_90, sm_80, vulkan, host, ...)")
    ex.add_argument("--fusion-modes", default="cost,iree", help="comma-separated fusion modes to compile (also "
                    "nchw / nhwc: the cost planner with every conv as imported / channels-last; MODE/-PATTERN "
                    "switches a pattern off, e.g. cost/-conv-strategy)")
    ex.add_argument("--cache", type=Path, default=None, help="suite model cache (default .cache/models)")
    ex.add_argument("--seed", type=int, default=0, help="seed for inputs of models without an npz")
    return ap


def cmd_export(args: argparse.Namespace) -> int:
    from .export import export

    from ..backends.targets import get_target
    from ..errors import FusionOptError

    suite = _names(args.suite)
    missing = [str(p) for p in args.models or () if not p.is_file()]
    unknown = [n for n in suite if n not in models.SUITE]
    problem = ("name models with --models or --suite" if not suite and not args.models else
               f"no such model file: {', '.join(missing)}" if missing else
               f"unknown suite model(s): {', '.join(unknown)}" if unknown else None)
    try:
        get_target(args.target)
    except FusionOptError as e:
        problem = problem or str(e)
    if problem:
        print(f"fusion-bench export: {problem}", file=sys.stderr)
        return 2
    paths = [(n, models.ensure_model(n, args.cache)) for n in suite]
    paths += [(p.stem, p) for p in args.models or ()]
    manifest = export(paths, _names([args.fusion_modes]), args.target, args.out, args.seed)
    for rec in manifest["models"]:
        row = "  ".join(f"{mode}: {e.get('dispatches', 'ERROR ' + e.get('error', ''))}" for mode, e in rec["modes"].items())
        print(f"{rec['model']:<16} " + (f"ERROR {rec['error']}" if "error" in rec else f"dispatches  {row}"))
    print(f"wrote {args.out / 'manifest.json'}")
    return 1 if any("error" in r or any("error" in e for e in r["modes"].values()) for r in manifest["models"]) else 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse, defaulting to `run` when no subcommand is named; validates the run arguments."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help")):
        argv = ["run", *argv]
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.command == "run":
        suite = _names(args.suite)
        if suite == ["all"]:
            suite = list(models.SUITE)
        elif not suite and not args.models:
            suite = list(DEFAULT_SUITE)
        unknown = [n for n in suite if n not in models.SUITE]
        if unknown:
            ap.error(f"unknown suite model(s): {', '.join(unknown)} (known: {', '.join(models.SUITE)}, all)")
        missing = [str(p) for p in args.models or () if not p.is_file()]
        if missing:
            ap.error(f"no such model file: {', '.join(missing)}")
        args.suite = suite
        args.modes = _names([args.fusion_modes])
        if not args.modes:
            ap.error("--fusion-modes is empty")
        if args.repeat < 1 or args.warmup < 0:
            ap.error("--repeat must be >= 1 and --warmup >= 0")
        args.target = TARGET_ALIASES.get(args.target, args.target)
        args.best_flags = (None if args.no_iree_best else
                           tuple(args.iree_best_flags.split()) if args.iree_best_flags is not None
                           else iree_best.IREE_BEST_FLAGS)
        if args.plot is None and args.json is not None:
            args.plot = args.json.with_suffix(".svg")
    elif args.command in ("calibrate", "accuracy"):
        from .calibrate import check_args
        check_args(ap, args)
    elif args.command == "fuzz":
        from ..fuzz.command import check_args as check_fuzz_args
        check_fuzz_args(ap, args)
    return args


def _fmt(v: Any, spec: str) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return format(v, spec)


def print_table(records: list[dict[str, Any]], modes: Sequence[str]) -> None:
    cols = [runner.label(m) for m in modes]
    # (record key, header, format): widths follow the headers, so every column keeps a space before it.
    spec = ([(f"{c}_ms", f"{c} ms", ".4g") for c in [*cols, "iree_best", "ort", "roofline"]]
            + [(f"ours_over_{o}", f"ours/{h}", ".2f") for o, h in
               (("iree", "iree"), ("iree_best", "best"), ("greedy", "greedy"), ("nchw", "nchw"), ("nhwc", "nhwc"),
                ("ort", "ort"))]
            + [("ours_over_iree_best_paired", "best~", ".2f"), ("ours_over_ort_paired", "ort~", ".2f")]
            + [("ours_over_roofline", "ours/roof", ".4g")]
            + [(f"dispatches_{c}", f"d_{c}", "d") for c in cols]
            + [("dispatches_iree_same_graph", "d_iree_same", "d")]
            + [(f"copies_{c}", f"copies_{c}", "d") for c in cols if c in ("ours", "iree")]
            + [("max_abs_err", "err ours", ".1e"), ("iree_max_abs_err", "err iree", ".1e"),
               ("iree_best_max_abs_err", "err best", ".1e")])
    widths = [max(len(h) + 2, 9 if f == ".4g" else 8) for _, h, f in spec]
    print(f"{'model':14s}" + "".join(f"{h:>{w}s}" for (_, h, _), w in zip(spec, widths)))
    for r in records:
        print(f"{r['model'][:14]:14s}" + "".join(f"{_fmt(r.get(k), f):>{w}s}" for (k, _, f), w in zip(spec, widths)))
        if "error" in r:
            print(f"  ! {r['error']}")


def _rates() -> dict[str, Any] | None:
    """This machine's peak and bandwidth for the roofline (measured once, cached); None if that fails."""
    try:
        rates = roofline.machine_rates()
    except Exception as e:  # noqa: BLE001 - no bound is better than no benchmark
        print(f"roofline: cannot measure this machine ({type(e).__name__}: {e}); no roofline_ms")
        return None
    print(f"roofline: peak {rates['peak_flops'] / 1e9:.1f} GFLOP/s, bandwidth {rates['bandwidth'] / 1e9:.1f} GB/s "
          "(measured here: one numpy sgemm per core at once, streaming adds)", flush=True)
    return rates


def cmd_run(args: argparse.Namespace) -> int:
    if args.suite:
        print(f"preparing suite models: {' '.join(args.suite)}", flush=True)
    jobs: list[tuple[str, Path | None]] = []
    records: list[dict[str, Any]] = []
    for name in args.suite:
        try:
            jobs.append((name, models.ensure_model(name, args.cache)))
        except Exception as e:  # noqa: BLE001 - e.g. onnxruntime missing: report, go on with the rest
            records.append({"model": name, "error": f"generate: {type(e).__name__}: {e}"})
    jobs += [(p.stem, p) for p in args.models or ()]
    rates = _rates()
    for name, path in jobs:
        print(f"[{len(records) + 1}/{len(jobs)}] {name} ...", flush=True)
        assert path is not None
        rec = runner.bench_model(path, args.modes, args.target, args.repeat, args.warmup, args.seed,
                                 name=name, verbose=args.verbose, tile_sizes=args.tile_sizes,
                                 iree_best_flags=args.best_flags, rates=rates)
        records.append(rec)
    print()
    print_table(records, args.modes)
    geo = summary.geomeans(records)
    print("geomean " + "  ".join(f"{k} {_fmt(v, '.3f')}" for k, v in geo.items()))
    noise = summary.noise(records)
    print(summary.noise_line(noise))
    beats = summary.beats_roofline(records)
    if beats:
        print(f"roofline: faster than the bound: {' '.join(beats)} (the measured peak or bandwidth is below what "
              "that engine reaches: read ours/roof as relative)")
    if args.json:
        config = {"target": args.target, "modes": args.modes, "tile_sizes": args.tile_sizes,
                  "repeat": args.repeat, "warmup": args.warmup,
                  "iree_best_flags": list(iree_best.full_flags(args.best_flags)) if args.best_flags is not None
                  else None,
                  "peak_flops": rates and rates["peak_flops"], "bandwidth": rates and rates["bandwidth"],
                  "rates_source": rates and rates["source"],
                  "machine": platform.machine(), "python": platform.python_version()}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        doc = {"config": config, "results": records, "geomean": geo, "noise": noise, "beats_roofline": beats}
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.json}")
    if args.plot:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        args.plot.write_text(plot.svg(records, f"fusion-bench ({args.target}, repeat {args.repeat})"))
        print(f"wrote {args.plot}")
    bad = [str(r["model"]) for r in records if r.get("wrong")]
    if bad:
        print(f"fusion-bench: our compile gave wrong results on {', '.join(bad)}", file=sys.stderr)
        return 1
    ok = [r for r in records if any(f"{runner.label(m)}_ms" in r for m in args.modes)]
    return 0 if ok else 1


def cmd_ablation(args: argparse.Namespace) -> int:
    from . import ablation

    suite = _names(args.suite)
    paths = [models.ensure_model(n, args.cache) for n in (list(models.SUITE) if suite == ["all"] else suite)]
    paths += list(args.models or ())
    if not paths:
        print("fusion-bench ablation: name --models or --suite", file=sys.stderr)
        return 2
    records = []
    for k, p in enumerate(paths, 1):
        print(f"[{k}/{len(paths)}] {p.stem} ...", flush=True)
        records.append(ablation.ablate(Path(p), args.repeat, args.warmup))
    print("\nmedian ms per variant (ratio to 'all'; above 1: the lever switched off was worth that much)")
    print(ablation.table(records))
    for r in records:
        for name, row in r["variants"].items():
            if "error" in row:
                print(f"  ! {r['model']} {name}: {row['error']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        legend = {v.name: v.what for v in ablation.VARIANTS}
        args.json.write_text(json.dumps({"variants": legend, "repeat": args.repeat, "warmup": args.warmup,
                                         "results": records}, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0 if any("ms" in row for r in records for row in r["variants"].values()) else 1


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command in ("calibrate", "accuracy"):
        from .calibrate import run_command
        return run_command(args)
    if args.command == "fuzz":
        from ..fuzz.command import run_command as run_fuzz
        return run_fuzz(args)
    if args.command == "ablation":
        return cmd_ablation(args)
    if args.command == "conformance":
        from .conformance import cmd as run_conformance
        return run_conformance(args)
    if args.command == "export":
        return cmd_export(args)
    return 2  # pragma: no cover - every subcommand returns above


if __name__ == "__main__":
    sys.exit(main())
