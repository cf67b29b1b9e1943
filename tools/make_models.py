#!/usr/bin/env python3
"""Generate the benchmark model suite (real-weight CNNs, transformer blocks) with inputs and references.

    tools/make_models.py [--cache DIR] [--models resnet50,mlp4 ...] [--seed N] [--force]

Thin wrapper over fusion_opt.bench.models.ensure_model; entries already up to date are skipped.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fusion_opt.bench import models


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=None, help="output folder (default: $FUSION_OPT_CACHE or "
                    "<repo>/.cache/models)")
    ap.add_argument("--models", nargs="+", default=None, metavar="NAME",
                    help=f"names (space- or comma-separated; default all): {' '.join(models.SUITE)}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--force", action="store_true", help="regenerate even if up to date")
    args = ap.parse_args(argv)
    names = [n for a in args.models for n in a.split(",") if n] if args.models else list(models.SUITE)
    unknown = [n for n in names if n not in models.SUITE]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(models.SUITE)}")
    cache = args.cache or models.default_cache()
    for name in names:
        t0 = time.perf_counter()
        path = models.ensure_model(name, cache, seed=args.seed, force=args.force)
        dt = time.perf_counter() - t0
        npz = path.with_suffix(".npz")
        stats = json.loads(path.with_suffix(".json").read_text())["outputs"][0]
        print(f"{name:14s} {dt:7.1f}s  {path.stat().st_size / 2**20:8.1f} MiB onnx  "
              f"{npz.stat().st_size / 2**20:6.2f} MiB npz  output {stats['shape']} std {stats['std']:.4g} "
              f"range [{stats['min']:.3g}, {stats['max']:.3g}]  {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
