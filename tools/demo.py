#!/usr/bin/env python3
"""The main job on a bundled real model: plan + compile + run + report.

Builds a real-weight ResNet-50 (the onnx package's graph with seeded random weights, see
fusion_opt.bench.models), plans fusion, compiles with IREE for this CPU, runs it, and compares
with onnxruntime's output.

    python tools/demo.py [--model resnet50] [--fusion cost] [--target host] [--repeat 10]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import fusion_opt as fo
from fusion_opt.bench.models import ensure_model, load_inputs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet50", help="a suite name (resnet50, bert_layer, ...) or an .onnx path")
    ap.add_argument("--fusion", default="cost", help="cost (default) | greedy | none | iree")
    ap.add_argument("--target", default="host")
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()

    path = ensure_model(args.model) if not args.model.endswith(".onnx") else args.model
    inputs, refs = load_inputs(path)
    t0 = time.perf_counter()
    m = fo.compile_onnx(path, target=args.target, fusion=args.fusion)
    print(f"compiled {path} in {time.perf_counter() - t0:.1f}s")
    print(m.report().split("\n", 1)[0])
    groups = {}
    for g in m.plan.groups:
        groups[g.kind] = groups.get(g.kind, 0) + 1
    print("groups by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(groups.items())))
    handed = [n for n in m.plan.notes if "left to IREE" in n]
    if m.plan.notes:
        print(f"groups handed back to IREE's own fusion: {len(handed)}; other plan decisions (conv strategy, "
              f"layout, Winograd, window copies kept): {len(m.plan.notes) - len(handed)} (reasons in m.report())")
    args_in = [inputs[n] for n in m.input_names]
    out = m(*args_in)
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        m(*args_in)
        times.append((time.perf_counter() - t) * 1e3)
    outs = out if isinstance(out, tuple) else (out,)
    print(f"dispatches: {m.dispatch_count}")
    print(f"latency: median {statistics.median(times):.2f} ms over {args.repeat} runs (after 1 warm-up)")
    print(f"runtime driver: {m.driver_choice}")
    if refs is not None:
        err = max(float(np.max(np.abs(o - r))) for o, r in zip(outs, refs))
        rel = max(float(np.max(np.abs(o - r)) / (np.max(np.abs(r)) + 1e-30)) for o, r in zip(outs, refs))
        ok = all(np.allclose(o, r, rtol=1e-3, atol=1e-4) for o, r in zip(outs, refs))
        print(f"max abs error vs onnxruntime: {err:.3g} (max relative to the largest |ref|: {rel:.3g}) -> "
              f"{'OK' if ok else 'MISMATCH'} at rtol 1e-3, atol 1e-4")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
