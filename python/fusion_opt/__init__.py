"""fusion-opt: an MLIR operator-fusion compiler with a planner and cost model of our own, on IREE.

    import fusion_opt as fo
    m = fo.compile_onnx("model.onnx", target="llvm-cpu", fusion="greedy")
    y = m(x)
    print(m.report())
"""
from __future__ import annotations

from .api import CompiledModel, FallbackWarning, compile_mlir, compile_onnx
from .errors import CompileError, FusionOptError, InputError, PlanError, RuntimeFailure, UnsupportedError

__all__ = [
    "CompiledModel", "FallbackWarning", "compile_mlir", "compile_onnx",
    "FusionOptError", "InputError", "UnsupportedError", "PlanError", "CompileError", "RuntimeFailure",
]
__version__ = "0.1.0"
