"""The parts of IREE's compiler C API that `iree.compiler.api` does not bind in 3.13.

- Diagnostics: `ctx.attach_diagnostic_handler` with a Python callback aborts the interpreter
  (`PyThreadState_Get: ... GIL is released`) because `Invocation.execute` calls into C through
  ctypes with the GIL released. `ireeCompilerInvocationEnableCallbackDiagnostics` with a ctypes
  callback is safe: ctypes re-acquires the GIL for the callback.
- Phases: `--compile-to` is an iree-compile tool flag, not a session flag (`set_flags` rejects it);
  the C API sets it per invocation instead.
"""
from __future__ import annotations

import ctypes
from ctypes import CFUNCTYPE, POINTER, c_char, c_char_p, c_int, c_size_t, c_void_p
from typing import Any

from iree.compiler.api import ctypes_dl

from ..ir import Output, Session

SEVERITY_ERROR = 2  # iree_compiler_diagnostic_severity_t: note 0, warning 1, error 2, remark 3
_CALLBACK = CFUNCTYPE(None, c_int, POINTER(c_char), c_size_t, c_void_p)
_bound = False


def _bind() -> Any:
    global _bound
    dl = ctypes_dl._dylib
    if not _bound:
        dl.ireeCompilerInvocationEnableCallbackDiagnostics.restype = None
        dl.ireeCompilerInvocationEnableCallbackDiagnostics.argtypes = [c_void_p, c_int, _CALLBACK, c_void_p]
        # Both return void (iree/compiler/API/Internal/CompilerDriver.cpp): reading a bool back would
        # read whatever is left in a register, which refused valid phase names at random. An unknown
        # phase name fails later, when the pipeline runs.
        for fn in (dl.ireeCompilerInvocationSetCompileToPhase, dl.ireeCompilerInvocationSetCompileFromPhase):
            fn.restype = None
            fn.argtypes = [c_void_p, c_char_p]
        _bound = True
    return dl


class DiagnosticInvocation:
    """An `Invocation` that records diagnostics instead of printing them; use as a context manager."""

    def __init__(self, session: Session) -> None:
        self._dl = _bind()
        self.inv = session.invocation()
        self.diagnostics: list[tuple[int, str]] = []

        def on_diag(severity: int, message: Any, size: int, _user: Any) -> None:
            self.diagnostics.append((severity, ctypes.string_at(message, size).decode("utf-8", "replace")))

        self._callback = _CALLBACK(on_diag)  # keep alive as long as the invocation
        self._dl.ireeCompilerInvocationEnableCallbackDiagnostics(self.inv._inv_p, 0, self._callback, None)

    def __enter__(self) -> DiagnosticInvocation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.inv.close()

    def import_module(self, op: Any) -> None:
        self.inv.import_module(op)

    def run_passes(self, pipeline: str) -> bool:
        """Run a pass list on the module; no `builtin.module(...)` wrapper (that nests and runs nothing)."""
        return bool(self.inv.execute_text_pass_pipeline(pipeline))

    def execute(self) -> bool:
        return bool(self.inv.execute())

    def set_compile_to(self, phase: str) -> None:
        self._dl.ireeCompilerInvocationSetCompileToPhase(self.inv._inv_p, phase.encode())  # IREE copies it

    def set_compile_from(self, phase: str) -> None:
        self._dl.ireeCompilerInvocationSetCompileFromPhase(self.inv._inv_p, phase.encode())

    def vm_bytecode(self) -> bytes:
        out = Output.open_membuffer()
        try:
            self.inv.output_vm_bytecode(out)
            return bytes(out.map_memory())
        finally:
            out.close()

    def first_error(self) -> str | None:
        return next((m for s, m in self.diagnostics if s == SEVERITY_ERROR), None)
