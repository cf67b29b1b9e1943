"""Run a `fusion-bench export` directory: check every module against its reference, then time them.

    python -m fusion_opt.bench.remote_run DIR [--driver cuda] [--repeat 50] [--json OUT.json]

Needs numpy and `iree-base-runtime` only (no IREE compiler, no onnx): it is what runs on the GPU host.
Modes of one model are timed interleaved in shuffled rounds after warm-up (timing.measure, as
`fusion-bench run` does), inputs resident on the device, and reported as medians and paired ratios
against IREE's default fusion.
Exit status: 0 when every module loaded, ran and matched; 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .timing import as_outputs, max_abs_err, measure, paired_ratio, short_error

PARAM_SCOPE = "model"  # backends.compile.PARAM_SCOPE (not imported: that module needs IREE's compiler)


def _close(got: Sequence[np.ndarray], want: Sequence[np.ndarray], rtol: float, atol: float) -> bool:
    return len(got) == len(want) and all(
        g.shape == w.shape and bool(np.all(np.abs(g.astype(np.float64) - w.astype(np.float64))
                                           <= atol + rtol * np.abs(w.astype(np.float64))))
        for g, w in zip(got, want))


_CONFIGS: dict[str, Any] = {}


def _config(driver: str) -> Any:
    """One runtime config (VM instance + HAL device) per driver for the whole run, as an application holds
    it: a config per module opened a CUDA device (and context) per module."""
    import iree.runtime as rt

    if driver not in _CONFIGS:
        _CONFIGS[driver] = rt.Config(driver)
    return _CONFIGS[driver]


def load_module(directory: Path, entry: dict[str, Any], driver: str) -> tuple[Any, Any]:
    """The module's exported function, with its weights archive mounted as IREE parameters, and the HAL
    device it runs on."""
    import iree.runtime as rt

    config = _config(driver)
    mods = []
    if entry.get("weights"):
        index = rt.ParameterIndex()
        index.load(str(directory / entry["weights"]))
        mods.append(rt.create_io_parameters_module(config.vm_instance, index.create_provider(scope=PARAM_SCOPE)))
    vm = rt.VmModule.mmap(config.vm_instance, str(directory / entry["vmfb"]))
    ctx = rt.SystemContext(vm_modules=[*mods, vm], config=config)
    return ctx.modules[vm.name][entry["entry"]], config.device


def run_model(directory: Path, rec: dict[str, Any], driver: str, rtol: float, atol: float, repeat: int,
              warmup: int) -> dict[str, Any]:
    """One result record: per mode its dispatches, error against the reference and median time."""
    import iree.runtime as rt

    out: dict[str, Any] = {"model": rec["model"]}
    if "error" in rec:
        out["error"] = f"export: {rec['error']}"
        return out
    with np.load(directory / rec["data"]) as z:
        inputs = [z[f"input_{i}"] for i in range(sum(k.startswith("input_") for k in z.files))]
        refs = [z[f"ref_{i}"] for i in range(sum(k.startswith("ref_") for k in z.files))]
    fns, errors = {}, []
    for mode, entry in rec["modes"].items():
        if "error" in entry:
            errors.append(f"{mode}: compile: {entry['error']}")
            continue
        out[f"dispatches_{mode}"] = entry["dispatches"]
        try:
            fn, device = load_module(directory, entry, driver)
            got = as_outputs(_host(fn(*inputs)))
            resident = [rt.asdevicearray(device, a) for a in inputs]
        except Exception as e:  # noqa: BLE001 - one module failing must not stop the others
            errors.append(f"{mode}: {short_error(e)}")
            continue
        out["max_abs_err" if mode == "ours" else f"{mode}_max_abs_err"] = max_abs_err(got, refs)
        if not _close(got, refs, rtol, atol):
            errors.append(f"{mode}: outputs differ from the reference beyond rtol={rtol} atol={atol}")
            continue
        # Timed with the inputs already on the device and the results left there (the call still waits
        # for its last dispatch: the sync ABI): the host copies are the same for every mode, and on a GPU
        # they hid the dispatches (a 6 MB LayerNorm: 4 ms per call with them).
        fns[mode] = (lambda fn=fn, resident=resident: fn(*resident))
    rounds: dict[str, list[float]] = {}
    for mode, t in measure(fns, repeat, warmup, rounds).items() if fns else ():
        out[f"{mode}_ms"] = round(t["ms"], 4)
        out[f"{mode}_min_ms"] = round(t["min_ms"], 4)
    for other in rounds:
        if other != "ours" and "ours" in rounds:
            out[f"ours_over_{other}_paired"] = round(paired_ratio(rounds["ours"], rounds[other]), 4)
    if errors:
        out["error"] = "; ".join(errors)
    return out


def _host(res: Any) -> Any:
    """Device results copied to host arrays (for the check; timed calls leave them on the device)."""
    if isinstance(res, tuple):
        return tuple(r.to_host() for r in res)
    return res.to_host()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fusion_opt.bench.remote_run", description=__doc__.splitlines()[0])
    ap.add_argument("directory", type=Path, help="a `fusion-bench export` output directory")
    ap.add_argument("--driver", default=None, help="iree.runtime driver (default: the manifest's, e.g. cuda)")
    ap.add_argument("--repeat", type=int, default=50, help="timed rounds (median reported)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--models", nargs="+", default=None, metavar="NAME", help="only these models")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT.json")
    args = ap.parse_args(argv)
    try:
        manifest = json.loads((args.directory / "manifest.json").read_text())
    except (OSError, ValueError) as e:
        print(f"{args.directory}: not an export directory: {e}", file=sys.stderr)
        return 1
    driver = args.driver or manifest["driver"]
    records = [run_model(args.directory, rec, driver, manifest["rtol"], manifest["atol"], args.repeat, args.warmup)
               for rec in manifest["models"] if args.models is None or rec["model"] in args.models]
    for r in records:
        times = "  ".join(f"{k[:-3]} {v:.4g} ms" for k, v in r.items() if k.endswith("_ms") and "_min_" not in k)
        ratio = r.get("ours_over_iree_paired")
        print(f"{r['model']:<16} {times}" + (f"  ours/iree {ratio:.3f}" if ratio else "")
              + (f"  ERROR {r['error']}" if "error" in r else ""))
    result = {"target": manifest["target"], "driver": driver, "repeat": args.repeat, "warmup": args.warmup,
              "records": records}
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 1 if any("error" in r for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
