"""`fusion-bench fuzz`: the reliability figures of docs/reliability.md, each from one command.

    fusion-bench fuzz --count N --seed S [--jobs J] [--batch B] [--modes none,greedy,cost] [--out DIR]
    fusion-bench fuzz --plant all|BUG[,BUG] [--count LIMIT]    each planted bug: graphs until caught
    fusion-bench fuzz --malformed N [--seed S] [--jobs J]     mutated .mlir/.onnx through fusion-opt
    fusion-bench fuzz --faults N                              compile faults injected into N graphs' groups
    fusion-bench fuzz --determinism N                         N graphs, each output twice, compared bytewise

Exit status 0 when the figures are clean (no mismatch, error, crash or hang; every planted bug caught;
every malformed input handled; every fault survived; no output differs), 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..testhooks import FAULT_KINDS, PLANTS
from .differential import MODES


def add_fuzz_args(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group()
    what.add_argument("--plant", default=None, metavar="BUG[,BUG]|all",
                      help=f"hunt planted bugs ({', '.join(PLANTS)}): fuzz with each switched on until a graph "
                           "fails that passes without it (--count is the limit per bug)")
    what.add_argument("--malformed", type=int, default=None, metavar="N",
                      help="run N mutated .mlir/.onnx inputs through fusion-opt: one error line, no crash, "
                           "no hang")
    what.add_argument("--faults", type=int, default=None, metavar="N",
                      help=f"inject compile faults ({', '.join(FAULT_KINDS)}) into groups of N graphs")
    what.add_argument("--determinism", type=int, default=None, metavar="N",
                      help="compile N graphs twice (two processes, two hash seeds) and compare every output")
    p.add_argument("--count", type=int, default=100, help="graphs to check (default 100)")
    p.add_argument("--seed", type=int, default=0, help="first graph seed (graph i uses seed S+i)")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"fusion modes compiled per graph (default {','.join(MODES)}; none is the unfused "
                        "baseline)")
    p.add_argument("--jobs", type=int, default=1, help="child processes compiling at once")
    p.add_argument("--batch", type=int, default=8, help="graphs compiled as the functions of one module")
    p.add_argument("--out", type=Path, default=Path("fuzz-findings"),
                   help="where shrunk reproducers (and failing malformed inputs) are saved")
    p.add_argument("--shrink-budget", type=int, default=40, help="checks spent shrinking one finding")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds before a child (a compile batch, one fusion-opt run) counts as hung")
    p.add_argument("--target", default="llvm-cpu", help="compile target (run on this machine: llvm-cpu)")
    p.add_argument("--json", type=Path, default=None, help="write the figures here")


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    args.modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in args.modes if m not in MODES]
    if bad or not args.modes:
        ap.error(f"--modes: unknown fusion mode(s) {bad} (choose from {', '.join(MODES)})")
    if args.plant is not None:
        names = list(PLANTS) if args.plant == "all" else [n for n in args.plant.split(",") if n]
        unknown = [n for n in names if n not in PLANTS]
        if unknown or not names:
            ap.error(f"--plant: unknown planted bug(s) {unknown} (known: {', '.join(PLANTS)}, all)")
        args.plant = names
    for name in ("count", "jobs", "batch", "malformed", "faults", "determinism"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name} must be >= 1")


def run_command(args: argparse.Namespace) -> int:
    figures: dict[str, Any]
    if args.malformed is not None:
        from .malformed import run_malformed

        repo = Path(__file__).resolve().parents[3]
        s = run_malformed(args.seed, args.malformed, jobs=args.jobs, timeout=min(args.timeout, 120.0),
                          repo=repo if (repo / "test" / "lit").is_dir() else None,
                          save_dir=args.out / "malformed")
        print(s.by_mutation())
        print(s.text())
        figures = {"malformed": len(s.outcomes), "seconds": round(s.seconds, 1),
                   "failures": [{"case": o.case.name, "failure": o.failure, "rc": o.rc,
                                 "stderr": o.stderr[-500:]} for o in s.failures()]}
        ok = not s.failures()
    elif args.faults is not None:
        from .faults import run_faults

        results, seconds = run_faults(args.seed, args.faults, target=args.target)
        survived = sum(r.survived for r in results)
        print(f"{len(results)} faults injected ({', '.join(FAULT_KINDS)}) into groups of {args.faults} graphs in "
              f"{seconds:.0f} s: {survived} survived (the group fell back, the report says so, outputs within "
              f"the float64 bound), {len(results) - survived} not")
        figures = {"injected": len(results), "survived": survived, "seconds": round(seconds, 1),
                   "not_survived": [vars(r) for r in results if not r.survived]}
        ok = survived == len(results)
    elif args.determinism is not None:
        from .determinism import EMITS, check_determinism

        seeds = list(range(args.seed, args.seed + args.determinism))
        modes = [m for m in args.modes if m != "none"] or args.modes
        compared, diffs, seconds = check_determinism(seeds, modes)
        print(f"{compared} outputs (--emit={'|'.join(EMITS)}, --fusion={'|'.join(modes)}, {len(seeds)} graphs) "
              f"compared across two processes in {seconds:.0f} s: {len(diffs)} differ")
        figures = {"compared": compared, "differences": [vars(d) for d in diffs], "seconds": round(seconds, 1)}
        ok = not diffs
    elif args.plant is not None:
        from .campaign import hunt

        hunts = [hunt(p, args.seed, args.count, args.modes, batch=args.batch, jobs=args.jobs, target=args.target,
                      timeout=args.timeout) for p in args.plant]
        for h in hunts:
            print(f"{h.plant:22s} " + (f"caught after {h.graphs} graphs ({h.seconds:.0f} s): {h.caught}"
                                       if h.caught else f"NOT caught in {h.graphs} graphs ({h.seconds:.0f} s)"))
        figures = {"planted": [{"plant": h.plant, "graphs": h.graphs, "seconds": round(h.seconds, 1),
                                "caught": str(h.caught) if h.caught else None} for h in hunts]}
        ok = all(h.caught for h in hunts)
    else:
        from .campaign import run_campaign

        s = run_campaign(args.seed, args.count, args.modes, batch=args.batch, jobs=args.jobs, target=args.target,
                         out_dir=args.out, shrink_budget=args.shrink_budget, timeout=args.timeout)
        for f in s.findings:
            print(f"  {f}")
        print(s.text())
        figures = {"graphs": s.graphs, "ops": s.ops, "seconds": round(s.seconds, 1), "counts": s.counts(),
                   "worst_ratio": s.worst_ratio, "bitwise_outputs": s.bitwise_outputs, "groups": dict(s.groups),
                   "findings": [str(f) for f in s.findings]}
        ok = not s.failed()
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0 if ok else 1
