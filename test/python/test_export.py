"""`fusion-bench export` + `python -m fusion_opt.bench.remote_run`: compile here, run where only the IREE
runtime is (the GPU host). Checked on this machine with the CPU target, the runner in a process where
IREE's compiler and onnx cannot be imported."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fusion_opt.bench import cli
from fusion_opt.bench.export import parse_mode

from test_bench_report import mlp_model, needs_ort

ROOT = Path(__file__).resolve().parents[2]
# The runner's process: no IREE compiler, no onnx (a None entry in sys.modules makes the import fail).
RUNTIME_ONLY = ("import sys; sys.modules.update({'iree.compiler': None, 'onnx': None, 'onnxruntime': None}); "
                "from fusion_opt.bench.remote_run import main; sys.exit(main(sys.argv[1:]))")


def _remote(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-c", RUNTIME_ONLY, *args], capture_output=True, text=True, env=env,
                          timeout=300)


@needs_ort
def test_export_then_run_without_the_compiler(tmp_path: Path) -> None:
    model = mlp_model(tmp_path / "tiny_mlp.onnx")
    out = tmp_path / "exp"
    assert cli.main(["export", str(out), "--models", str(model), "--target", "host",
                     "--fusion-modes", "cost,cost/-bias-epilogue,iree"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["driver"] == "local-task" and manifest["target"] == "host"
    rec = manifest["models"][0]
    assert set(rec["modes"]) == {"ours", "ours_no-bias-epilogue", "iree"} and rec["reference"] == "onnxruntime"
    weights = {e["weights"] for e in rec["modes"].values()}
    assert len(list(out.glob("*.irpa"))) == len(weights)  # one archive per distinct content
    res = tmp_path / "res.json"
    proc = _remote(str(out), "--repeat", "3", "--warmup", "1", "--json", str(res))
    assert proc.returncode == 0, proc.stderr
    r = json.loads(res.read_text())["records"][0]
    assert "error" not in r and r["max_abs_err"] < 1e-4 and r["ours_ms"] > 0 and r["ours_over_iree_paired"] > 0
    assert "tiny_mlp" in proc.stdout


@needs_ort
def test_a_wrong_result_fails_the_run(tmp_path: Path) -> None:
    """The check can fail: a reference off by one in one element is reported, exit status 1."""
    model = mlp_model(tmp_path / "tiny_mlp.onnx")
    out = tmp_path / "exp"
    assert cli.main(["export", str(out), "--models", str(model), "--target", "host", "--fusion-modes", "cost"]) == 0
    data = out / "tiny_mlp.npz"
    with np.load(data) as z:
        arrays = {k: z[k].copy() for k in z.files}
    arrays["ref_0"][0, 0] += 1.0
    np.savez(data, **arrays)
    proc = _remote(str(out), "--repeat", "1", "--warmup", "0")
    assert proc.returncode == 1 and "differ from the reference" in proc.stdout


def test_mode_syntax() -> None:
    assert parse_mode("cost/-conv-strategy/-winograd") == ("cost", ["conv-strategy", "winograd"])
    assert parse_mode("iree") == ("iree", [])
    with pytest.raises(ValueError, match="MODE"):
        parse_mode("cost/winograd")
    assert _remote(str(Path("/nonexistent"))).returncode == 1


def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fusion_opt.backends.compile import PARAM_SCOPE
    from fusion_opt.bench import remote_run

    assert remote_run.PARAM_SCOPE == PARAM_SCOPE  # the runner cannot import it: kept equal by hand
    assert cli.main(["export", str(tmp_path / "o"), "--suite", "layernorm", "--target", "tpu"]) == 2
    assert cli.main(["export", str(tmp_path / "o"), "--models", str(tmp_path / "none.onnx")]) == 2
    err = capsys.readouterr().err
    assert "unknown target" in err and "no such model file" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()
