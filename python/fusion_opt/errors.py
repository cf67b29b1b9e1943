"""One error hierarchy: every failure a user can cause or meet ends as a FusionOptError.

The CLI prints `str(err)` as a single line (`where: error: what`) and exits nonzero; tracebacks
are shown only with `--debug`.
"""
from __future__ import annotations


class FusionOptError(Exception):
    """Base class. `where` is `file:line:col` for IR, a file or node name otherwise."""

    kind = "error"

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        msg = " ".join(self.message.split())  # one line, always
        return f"{self.where}: error: {msg}" if self.where else f"error: {msg}"


class InputError(FusionOptError):
    """Malformed or unreadable input: bad MLIR syntax, truncated protobuf, missing file."""


class UnsupportedError(FusionOptError):
    """Well-formed input we cannot handle: an unsupported op, a dynamic shape."""


class PlanError(FusionOptError):
    """A plan that violates a legality rule (e.g. a cycle between groups)."""


class TransformError(FusionOptError):
    """A transform-dialect script failed to apply (interpreter diagnostic, at the op's location)."""


class CompileError(FusionOptError):
    """IREE rejected the module."""


class RuntimeFailure(FusionOptError):
    """The compiled module failed to load or run."""
