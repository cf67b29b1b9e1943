"""The `iree_best` engine: IREE's own ONNX pipeline at its best flags, independent of our importer.

Why a separate path: fusion_opt's importer generalizes named convolutions, which disables IREE's im2col
rewrite, so "IREE at its best" must not go through it. The model is imported with IREE's importer exactly
as `iree-import-onnx --opset-version 17` does (inline weights), compiled by the `iree-compile` tool of the
installed wheel (a subprocess: its LLVM options are process-global) and run with iree.runtime (local-task).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx

from ..backends.profile import find_tool
from ..errors import CompileError, RuntimeFailure
from . import models

# Where the code goes: this machine's CPU. Kept apart from the tuning flags so `--iree-best-flags` can
# replace the tuning alone (a tuning flag of the same name, e.g. another target-cpu, wins).
HOST_FLAGS: tuple[str, ...] = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                               "--iree-llvmcpu-target-cpu=host")
# IREE's best flags on the 2-core AMD EPYC (AVX2) VM, chosen by measuring ResNet-50 end to end: IREE
# default 729 ms; --iree-global-opt-use-im2col-for-convs --iree-opt-data-tiling 95 ms; channels-last
# preprocessing + data tiling + ukernels 832 ms (so channels-last is NOT in the set); onnxruntime ~55 ms.
# O3 and aggressive fusion did not hurt and are IREE's own "fast" settings, so they are kept.
IREE_BEST_FLAGS: tuple[str, ...] = ("--iree-opt-level=O3", "--iree-opt-data-tiling",
                                    "--iree-global-opt-use-im2col-for-convs",
                                    "--iree-dispatch-creation-enable-aggressive-fusion")
OPSET = 17  # what `iree-import-onnx --opset-version 17` upgrades older models to


def full_flags(tuning: Sequence[str] = IREE_BEST_FLAGS) -> tuple[str, ...]:
    """HOST_FLAGS then `tuning`; a host flag whose name a tuning flag repeats is dropped (no duplicates)."""
    names = {f.split("=", 1)[0] for f in tuning}
    return (*(f for f in HOST_FLAGS if f.split("=", 1)[0] not in names), *tuning)


def import_onnx(path: Path, opset: int = OPSET) -> bytes:
    """MLIR bytecode of `path` imported as `iree-import-onnx PATH --opset-version OPSET` does (its own
    loader: opset upgrade, checker, shape inference with data propagation); bytecode, not the tool's
    text, so the weights are not hex-encoded on the way to iree-compile."""
    from iree.compiler.extras import onnx_importer
    from iree.compiler.ir import Context
    from iree.compiler.tools.import_onnx.__main__ import load_onnx_model, parse_arguments

    args: argparse.Namespace = parse_arguments([str(path), "--opset-version", str(opset)])
    model_proto = load_onnx_model(args)
    with Context() as ctx:
        info = onnx_importer.ModelInfo(model_proto)
        module = info.create_module(context=ctx).operation
        onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
        module.verify()
        with tempfile.SpooledTemporaryFile() as f:
            module.write_bytecode(f)
            f.seek(0)
            return f.read()


def compile_vmfb(mlir_bytecode: bytes, flags: Sequence[str]) -> bytes:
    """Run `iree-compile` on the imported module; CompileError with the first error line on failure."""
    with tempfile.TemporaryDirectory(prefix="fusion-bench-iree-best-") as tmp:
        src, out = os.path.join(tmp, "in.mlirbc"), os.path.join(tmp, "out.vmfb")
        Path(src).write_bytes(mlir_bytecode)
        proc = subprocess.run([str(find_tool("iree-compile")), src, *flags, "-o", out],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not os.path.exists(out):
            lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
            why = next((ln for ln in lines if "error" in ln), lines[-1] if lines else f"exit {proc.returncode}")
            raise CompileError(" ".join(why.split())[:300], "iree-compile")
        return Path(out).read_bytes()


class IreeBest:
    """A loaded iree_best module: `model(*arrays)` in graph-input order, like a CompiledModel.

    Loaded here rather than with backends.runtime.Runner: Runner reads input shapes from the ABI
    declaration of our own imports, which torch-imported functions do not carry."""

    def __init__(self, vmfb: bytes, entry: str, input_names: tuple[str, ...], flags: tuple[str, ...],
                 import_s: float, compile_s: float) -> None:
        import iree.runtime as rt

        self.config = rt.Config("local-task")
        vm = rt.VmModule.copy_buffer(self.config.vm_instance, vmfb)
        self.context = rt.SystemContext(vm_modules=[vm], config=self.config)
        names = [n for n in vm.function_names if not n.startswith("__")]
        if not names:
            raise RuntimeFailure("the iree_best module exports no function")
        self.entry = entry if entry in names else names[0]
        self._fn = self.context.modules[vm.name][self.entry]
        self.input_names, self.flags = input_names, flags
        self.import_s, self.compile_s = import_s, compile_s

    def __call__(self, *arrays: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        res = self._fn(*(np.ascontiguousarray(a) for a in arrays))
        if isinstance(res, (tuple, list)):
            return tuple(r.to_host() for r in res)
        return res.to_host()


def build(path: Path, tuning: Sequence[str] = IREE_BEST_FLAGS) -> IreeBest:
    """Import, compile and load `path`. The entry is the function named after the ONNX graph (what the
    importer exports); if the module names it otherwise, its first public function."""
    t0 = time.perf_counter()
    bytecode = import_onnx(path)
    t1 = time.perf_counter()
    flags = full_flags(tuning)
    vmfb = compile_vmfb(bytecode, flags)
    t2 = time.perf_counter()
    proto = onnx.load(str(path), load_external_data=False)
    names = tuple(vi.name for vi in models.graph_inputs(proto))
    return IreeBest(vmfb, proto.graph.name, names, flags, round(t1 - t0, 3), round(t2 - t1, 3))
