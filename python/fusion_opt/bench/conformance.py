"""`fusion-bench conformance`: graphs we have never seen, with their reference outputs, through compile_onnx.

Why: the bundled suite is 14 models; users bring any ONNX file. The onnx package ships ~1,900 operator
test cases (`onnx.backend.test.case.node`, generated in memory with inputs and expected outputs) and
~140 small PyTorch-exported models with `.pb` inputs and outputs (`backend/test/data/{pytorch-converted,
pytorch-operator,simple}`). Each is compiled by our planner and IREE and run, and ends in one of:

- `pass`: every output matches the reference (rtol/atol: the case's, at least 1e-3 / 1e-5);
- `unchecked`: it compiled and ran, but a random op (Bernoulli, RandomUniform, ...) makes the reference one
  draw among many: output shapes are compared, values are not;
- `mismatch`: it compiled and ran but gave other numbers (a wrong result: the one outcome never allowed);
- `rejected`: a clean one-line FusionOptError (unsupported op, dynamic shape, IREE cannot compile it);
- `crash`: any other exception, or the process died (abort, segfault) or ran past the time limit.

Cases run in worker processes (LLVM aborts kill the process, not the sweep), one JSON line per case.
With `--attribute`, every mismatch and crash is rerun with `fusion="iree"` (IREE's own formation on the
same import): failing there too puts the fault in the importer or IREE, not in the planner.
"""
from __future__ import annotations

import argparse
import fnmatch
import functools
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

DIR_SUITES = ("pytorch-converted", "pytorch-operator", "simple")
OUTCOMES = ("pass", "unchecked", "mismatch", "rejected", "crash")
# Their reference is one random draw: only shapes and types can be compared.
RANDOM_OPS = frozenset({"Bernoulli", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
                        "Multinomial"})


def _data_root() -> Path:
    import onnx
    return Path(onnx.__file__).parent / "backend" / "test" / "data"


def case_names(sources: Sequence[str], pattern: str) -> list[str]:
    """`node:<name>` for generated operator cases, `<suite>:<dir>` for shipped model directories."""
    names: list[str] = []
    if "node" in sources:
        names += [f"node:{n}" for n in _node_cases()]
    for suite in DIR_SUITES:
        if suite in sources:
            names += [f"{suite}:{d.name}" for d in sorted((_data_root() / suite).iterdir()) if (d / "model.onnx").is_file()]
    return sorted(n for n in dict.fromkeys(names) if fnmatch.fnmatch(n.split(":", 1)[1], pattern))


@functools.cache
def _node_cases() -> dict[str, Any]:
    """Every generated operator case by name. onnx generates them once per process, filtered by the first
    call's op type: call this, not `collect_testcases(op)`, anywhere in the same process."""
    import warnings

    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():  # the generators' own overflow and divide-by-zero warnings
        warnings.simplefilter("ignore")
        return {c.name: c for c in collect_testcases(None)}


def _load_case(name: str) -> tuple[Any, list[np.ndarray], list[np.ndarray], float, float]:
    """(model proto, inputs, expected outputs, rtol, atol) of one case."""
    import onnx
    from onnx import numpy_helper

    source, case = name.split(":", 1)
    if source == "node":
        c = _node_cases()[case]
        ins, outs = ([numpy_helper.to_array(t) if isinstance(t, onnx.TensorProto) else t for t in ts]
                     for ts in c.data_sets[0])  # the Cast cases hold TensorProtos
        return c.model, ins, outs, max(c.rtol, 1e-3), max(c.atol, 1e-5)
    d = _data_root() / source / case
    data = d / "test_data_set_0"

    def read(prefix: str) -> list[np.ndarray]:
        files = sorted(data.glob(f"{prefix}_*.pb"), key=lambda p: int(p.stem.split("_")[-1]))
        return [numpy_helper.to_array(onnx.load_tensor(str(f))) for f in files]
    return onnx.load(str(d / "model.onnx")), read("input"), read("output"), 1e-3, 1e-5


def freeze_shape_inputs(proto: Any, ins: list[np.ndarray]) -> tuple[Any, list[np.ndarray]]:
    """The case's graph inputs that only give output shapes, axes or a Resize roi (`scales` fed at run
    time) made initializers holding the case's values: the graph our static-shape contract compiles
    (such inputs are refused with one line otherwise). Returns the model and the remaining inputs."""
    from onnx import numpy_helper

    from ..importers.onnx_import import AXES_OPERANDS, SHAPE_OPERANDS
    proto = type(proto).FromString(proto.SerializeToString())  # the node cases' protos are cached: not in place
    init = {t.name for t in proto.graph.initializer}
    inputs = [v for v in proto.graph.input if v.name not in init]
    shape_only: dict[str, bool] = {}
    for n in proto.graph.node:
        static = {*SHAPE_OPERANDS.get(n.op_type, ()), *AXES_OPERANDS.get(n.op_type, ())}
        static |= {1} if n.op_type == "Resize" else set()
        for pos, name in enumerate(n.input):
            shape_only[name] = shape_only.get(name, True) and pos in static
    returned = {o.name for o in proto.graph.output}
    keep = []
    for v, x in zip(inputs, ins):
        if shape_only.get(v.name) and v.name not in returned:
            proto.graph.initializer.append(numpy_helper.from_array(x, v.name))
            proto.graph.input.remove(v)
        else:
            keep.append(x)
    return proto, keep + list(ins[len(inputs):])


def run_case(name: str, fusion: str = "cost", freeze: bool = False) -> dict[str, Any]:
    """Compile and run one case in this process; the record says what happened (`freeze`: with
    `freeze_shape_inputs`)."""
    from ..api import compile_onnx
    from ..errors import FusionOptError
    from .runner import as_outputs, short_error

    t0 = time.perf_counter()
    rec: dict[str, Any] = {"case": name, "fusion": fusion}
    try:
        proto, ins, expected, rtol, atol = _load_case(name)
        if freeze:
            proto, ins = freeze_shape_inputs(proto, ins)
        graph_inputs = [i.name for i in proto.graph.input if i.name not in {t.name for t in proto.graph.initializer}]
        model = compile_onnx(proto, fusion=fusion)
        model.driver = "local-task"  # numbers only: no time spent choosing a driver for each of ~1000 cases
        rec["dispatches"] = model.dispatch_count
        if model.fallbacks:  # groups IREE rejected, left to its own fusion (still checked below)
            rec["fallbacks"] = len(model.fallbacks)
        got = as_outputs(model(*ins[:len(graph_inputs)]))
        if RANDOM_OPS & {n.op_type for n in proto.graph.node}:
            shapes = [g.shape for g in got] == [e.shape for e in expected]
            rec.update(outcome="unchecked" if shapes else "mismatch", error="random op: shapes compared only")
        else:
            rec.update(_compare(got, expected, rtol, atol))
    except FusionOptError as e:
        rec.update(outcome="rejected", error=str(e), error_kind=type(e).__name__)
    except Exception as e:  # noqa: BLE001 - the sweep's point is to find these
        rec.update(outcome="crash", error=short_error(e))
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def _is_float(dtype: np.dtype) -> bool:
    try:
        np.finfo(dtype)
    except (TypeError, ValueError):
        return False
    return True


def _compare(got: Sequence[Any], expected: Sequence[np.ndarray], rtol: float, atol: float) -> dict[str, Any]:
    if len(got) != len(expected):
        return {"outcome": "mismatch", "error": f"{len(got)} outputs, reference has {len(expected)}"}
    worst = 0.0
    for k, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape:
            return {"outcome": "mismatch", "error": f"output {k}: shape {g.shape}, reference {e.shape}"}
        if e.dtype.kind in "fc" or _is_float(e.dtype):  # ml_dtypes' bfloat16 / float8: kind "V"
            g64, e64 = g.astype(np.float64), e.astype(np.float64)
            # never finer than the output type resolves: a bf16 ulp is 2^-8 relative (rtol 1e-3 would call
            # a reference that rounds bf16 at every step, against one rounding from f32, a mismatch)
            tol = max(rtol, float(np.finfo(e.dtype).eps))
            err = float(np.nanmax(np.abs(g64 - e64), initial=0.0)) if g.size else 0.0
            if not np.allclose(g64, e64, rtol=tol, atol=atol, equal_nan=True):
                return {"outcome": "mismatch", "error": f"output {k}: max abs error {err:.3g} "
                        f"(rtol {tol:g}, atol {atol:g})"}
            worst = max(worst, err)
        elif not np.array_equal(g, e):
            return {"outcome": "mismatch", "error": f"output {k}: {int((g != e).sum())} of {g.size} elements differ"}
    return {"outcome": "pass", "max_abs_err": worst}


def _worker(names: Sequence[str], fusion: str, freeze: bool = False) -> None:
    """Child process: one JSON line per case, flushed, so the parent knows where a crash happened."""
    import warnings
    warnings.simplefilter("ignore")
    for name in names:
        print("@@" + json.dumps(run_case(name, fusion, freeze)), flush=True)


def sweep(names: Sequence[str], fusion: str = "cost", timeout_s: float = 120.0, jobs: int = 1,
          freeze: bool = False) -> Iterator[dict[str, Any]]:
    """Run `names` in `jobs` worker processes; a worker that dies is restarted after its current case."""
    import selectors

    pending = [list(names[k::jobs]) for k in range(jobs)]
    procs: dict[int, tuple[subprocess.Popen[str], float]] = {}
    sel = selectors.DefaultSelector()

    def start(k: int) -> None:
        """A worker for the rest of slot k's cases, if any are left."""
        if pending[k]:
            cmd = [sys.executable, "-m", "fusion_opt.bench.conformance", "--worker", fusion, *(["--freeze"] * freeze),
                   *pending[k]]
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 env={**os.environ, "PYTHONWARNINGS": "ignore"})
            procs[k] = (p, time.monotonic())
            sel.register(p.stdout, selectors.EVENT_READ, k)

    def lost(k: int, why: str) -> dict[str, Any]:
        """Slot k's worker is gone (its stdout unregistered): its current case failed; restart after it."""
        del procs[k]
        rec = {"case": pending[k].pop(0), "fusion": fusion, "outcome": "crash", "error": why}
        start(k)
        return rec

    for k in range(jobs):
        start(k)
    while procs:
        for key, _ in sel.select(timeout=1.0):
            k = key.data
            p, _ = procs[k]
            line = p.stdout.readline()
            if line.startswith("@@"):
                rec = json.loads(line[2:])
                pending[k].pop(0)
                procs[k] = (p, time.monotonic())
                yield rec
            elif not line:  # EOF: finished, or died in its current case
                sel.unregister(p.stdout)
                rc = p.wait()
                if pending[k]:
                    yield lost(k, f"worker process died (exit status {rc})")
                else:
                    del procs[k]
        for k, (p, since) in list(procs.items()):
            if time.monotonic() - since > timeout_s:
                p.kill()
                sel.unregister(p.stdout)
                p.wait()
                yield lost(k, f"timed out after {timeout_s:.0f} s")


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sources", default="node," + ",".join(DIR_SUITES),
                   help=f"comma-separated: node (generated operator cases), {', '.join(DIR_SUITES)}")
    p.add_argument("--filter", default="*", metavar="GLOB", help="case names to run (e.g. 'test_conv*')")
    p.add_argument("--limit", type=int, default=None, help="run at most N cases (evenly spaced)")
    p.add_argument("--fusion", default="cost", choices=("cost", "greedy", "iree", "none"))
    p.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    p.add_argument("--timeout", type=float, default=180.0, help="seconds per case before it counts as a crash")
    p.add_argument("--attribute", action="store_true",
                   help="rerun mismatches and crashes with fusion=iree to tell planner faults from importer/IREE ones")
    p.add_argument("--freeze-shape-inputs", action="store_true",
                   help="make graph inputs that only give shapes, axes or a Resize roi initializers holding the "
                        "case's values (static-shape compilation refuses them otherwise)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT.json")


def cmd(args: argparse.Namespace) -> int:
    names = case_names([s for s in args.sources.split(",") if s], args.filter)
    if args.limit is not None and len(names) > args.limit:
        step = len(names) / args.limit
        names = [names[int(k * step)] for k in range(args.limit)]
    if not names:
        print("conformance: no case matches", file=sys.stderr)
        return 2
    print(f"conformance: {len(names)} cases, fusion={args.fusion}, {args.jobs} worker(s)", flush=True)
    records = []
    freeze = args.freeze_shape_inputs
    for rec in sweep(names, args.fusion, args.timeout, args.jobs, freeze):
        records.append(rec)
        if rec["outcome"] != "pass":
            print(f"[{len(records)}/{len(names)}] {rec['case']}: {rec['outcome']}: {rec.get('error', '')}", flush=True)
    if args.attribute:
        bad = [r for r in records if r["outcome"] in ("mismatch", "crash")]
        again = {r["case"]: r for r in sweep([r["case"] for r in bad], "iree", args.timeout, args.jobs,
                                             freeze)}
        for r in bad:
            r["iree_outcome"] = again[r["case"]]["outcome"]
    counts = Counter(r["outcome"] for r in records)
    print("conformance: " + ", ".join(f"{o} {counts.get(o, 0)}" for o in OUTCOMES) + f" of {len(records)}")
    if args.attribute:
        blamed = Counter(r["iree_outcome"] == "pass" for r in records if "iree_outcome" in r)
        print(f"conformance: of the mismatches and crashes, {blamed[True]} pass with fusion=iree (planner's), "
              f"{blamed[False]} fail there too (importer's or IREE's)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"fusion": args.fusion, "freeze_shape_inputs": freeze, "counts": dict(counts), "cases": records}, indent=1))
    return 1 if counts.get("mismatch") or counts.get("crash") else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        freeze = len(sys.argv) > 3 and sys.argv[3] == "--freeze"
        _worker(sys.argv[3 + freeze:], sys.argv[2], freeze)
