"""fusion-opt: an MLIR operator-fusion compiler with a planner and cost model of our own, on IREE.

    import fusion_opt as fo
    m = fo.compile_onnx("model.onnx", target="llvm-cpu", fusion="greedy")
    y = m(x)
    print(m.report())

The compiler entry points are loaded on first use (PEP 562): `python -m fusion_opt.bench.remote_run`
runs exported modules where only `iree-base-runtime` is installed, and importing the package must not
pull in IREE's compiler there.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import CompileError, FusionOptError, InputError, PlanError, RuntimeFailure, UnsupportedError

if TYPE_CHECKING:
    from .api import CompiledModel, FallbackWarning, compile_mlir, compile_onnx

_API = ("CompiledModel", "FallbackWarning", "compile_mlir", "compile_onnx")

__all__ = [
    *_API,
    "FusionOptError", "InputError", "UnsupportedError", "PlanError", "CompileError", "RuntimeFailure",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """The API's names, and submodules by attribute (`fusion_opt.api` after a bare `import fusion_opt`)."""
    import importlib

    if name in _API:
        return getattr(importlib.import_module(".api", __name__), name)
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
