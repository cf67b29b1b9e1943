"""`fusion-bench export`: compile models here for a device this machine lacks, run them there.

Why: the GPU targets (sm_80, sm_90, vulkan) compile on any machine but run only where the device is,
and that machine need not have IREE's compiler, onnxruntime or this package's dependencies beyond
`iree-base-runtime` and numpy. The export directory holds one `.vmfb` per model and fusion mode, the
weights once per distinct archive (`.irpa`, named by content hash: every mode of a model usually
shares one), the inputs, the reference outputs (the model's recorded outputs, else onnxruntime on
this machine) and a `manifest.json`; `python -m fusion_opt.bench.remote_run DIR` runs it (remote_run.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import models
from .runner import LAYOUT_MODES, label, short_error
from .timing import as_outputs

MANIFEST = "manifest.json"
VERSION = 1
# Against the reference: |got - ref| <= ATOL + RTOL * |ref| elementwise. A GPU sums in another order
# than onnxruntime on a CPU (f32 throughout: IREE's CUDA MMA intrinsics are f16 / bf16 only).
RTOL, ATOL = 1e-3, 1e-4


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def _keep_weights(params: Path | None, out: Path) -> str | None:
    """The archive under its content hash in `out` (written once); its file name, or None."""
    if params is None:
        return None
    name = f"weights-{_digest(params)}.irpa"
    if not (out / name).exists():
        shutil.copyfile(params, out / name)
    return name


def parse_mode(mode: str) -> tuple[str, list[str]]:
    """`cost/-conv-strategy/-winograd` -> ("cost", ["conv-strategy", "winograd"]): a fusion (or layout)
    mode and the patterns switched off for it, to measure on the device what a strategy buys there."""
    base, *rest = mode.split("/")
    bad = [r for r in rest if not r.startswith("-") or len(r) < 2]
    if bad:
        raise ValueError(f"mode '{mode}': expected MODE[/-PATTERN...], got {', '.join(bad)}")
    return base, [r[1:] for r in rest]


def export_model(path: Path, name: str, modes: Sequence[str], target: str, out: Path, seed: int = 0
                 ) -> dict[str, Any]:
    """Compile one model in every mode into `out`; one manifest entry (errors recorded, never raised)."""
    import fusion_opt as fo

    rec: dict[str, Any] = {"model": name, "modes": {}}
    try:
        inputs, refs = models.load_inputs(path, seed)
        rec["reference"] = "npz" if refs is not None else "onnxruntime"
        if refs is None:
            refs = as_outputs(models.ort_session(path).run(None, inputs))
    except Exception as e:  # noqa: BLE001 - a model without inputs or reference is recorded, not fatal
        rec["error"] = f"inputs / reference: {short_error(e)}"
        return rec
    order: tuple[str, ...] | None = None
    for mode in modes:
        entry: dict[str, Any] = {}
        base, disabled = parse_mode(mode)
        col = label(base) + "".join(f"_no-{d}" for d in disabled)
        rec["modes"][col] = entry
        try:
            how = {"fusion": "cost", "layout": base} if base in LAYOUT_MODES else {"fusion": base}
            m = fo.compile_onnx(str(path), target=target, disable_patterns=disabled, **how)
            order = order or tuple(m.input_names)
            with tempfile.TemporaryDirectory(prefix="fusion-opt-export-") as d:
                vmfb = m.save(Path(d) / "m.vmfb")
                irpa = vmfb.with_suffix(".irpa")
                entry["weights"] = _keep_weights(irpa if irpa.is_file() else None, out)
                entry["vmfb"] = f"{name}.{col}.vmfb"
                shutil.move(str(vmfb), out / entry["vmfb"])
            entry["dispatches"] = m.dispatch_count
            entry["entry"] = m.artifact.entry
            entry["fallbacks"] = len(m.fallbacks)
        except Exception as e:  # noqa: BLE001 - one mode failing must not stop the export
            entry["error"] = short_error(e)
    arrays = {f"input_{i}": inputs[n] for i, n in enumerate(order or tuple(inputs))}
    arrays.update({f"ref_{i}": r for i, r in enumerate(refs)})
    models.save_npz(out / f"{name}.npz", arrays)
    rec["data"] = f"{name}.npz"
    return rec


def export(paths: Sequence[tuple[str, Path]], modes: Sequence[str], target: str, out: Path, seed: int = 0
           ) -> dict[str, Any]:
    """Export every (name, model path); writes and returns the manifest."""
    from ..backends.targets import get_target

    tgt = get_target(target)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"version": VERSION, "target": tgt.name, "driver": tgt.driver, "rtol": RTOL, "atol": ATOL,
                "models": [export_model(p, n, modes, target, out, seed) for n, p in paths]}
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmp, out / MANIFEST)
    return manifest
