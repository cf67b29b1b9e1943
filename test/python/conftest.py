"""Shared fixtures: imported graphs are expensive enough to build once per session."""
from __future__ import annotations

import os
from pathlib import Path

import onnx
import pytest

# Plans must not depend on this machine's last `fusion-bench calibrate` (cost/host.py), nor on what
# this machine is: `host` is the fixed reference description (a 2-core AVX2 VM), not a measurement
# (a 512-bit, 48 KB-L1 CI machine chose other tiles and strategies). IREE still compiles for this CPU.
os.environ["FUSION_OPT_UNCALIBRATED"] = "1"
os.environ["FUSION_OPT_HOST_DESC"] = str(Path(__file__).resolve().parents[1] / "host-reference.json")
# Compiled models run on IREE's thread pool: tests check numbers (both drivers give the same bits), and an
# automatic driver choice would time each model for a quarter of a second (test_driver_choice.py tests it).
os.environ["FUSION_OPT_DRIVER"] = "local-task"

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


@pytest.fixture(scope="session")
def resnet50_graph():
    """DataflowGraph of the onnx package's ResNet-50 (splat weights: fine for planning)."""
    from fusion_opt.analysis.describe import describe_function
    from fusion_opt.importers import import_onnx
    from fusion_opt.ir import functions, new_session

    s = new_session()
    module, _ = import_onnx(LIGHT / "light_resnet50.onnx", s.context)
    return describe_function(functions(module)[0], "resnet50")[0]
