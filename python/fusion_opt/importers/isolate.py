"""Run a crash-prone stage in a child process, so that a crash in it is an error and not the caller's death.

Why: the ONNX -> torch -> Linalg lowering is torch-mlir C++ inside IREE, and on some valid models it
segfaults or stops at an LLVM fatal error (onnx's DepthToSpace expansion: a segfault in
convert-torch-to-linalg, also under IREE's own iree-opt). Children come from a fork server
(multiprocessing's "forkserver": one clean single-threaded process, started once, that forks a child per
call): forking the caller itself deadlocked once the caller had compiled a module (LLVM's worker
threads held locks the child then waited on), and spawning a fresh interpreter per import costs seconds.
The child's result travels as bytes through a file, and its stderr (LLVM's messages) is kept for the
error instead of reaching the user's terminal.
"""
from __future__ import annotations

import functools
import json
import multiprocessing
import os
import signal
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import errors
from ..errors import FusionOptError, UnsupportedError

# What the fork server imports once, so each child starts with IREE's bindings loaded.
PRELOAD = ["fusion_opt.importers.onnx_import"]


@functools.cache
def _context() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _child(stage: Callable[..., bytes], args: tuple[Any, ...], what: str, d: str) -> None:
    out, err, log = Path(d) / "result", Path(d) / "error.json", Path(d) / "stderr"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o600)
    os.dup2(fd, 2)
    # The child's own temporary files go under the parent's folder: a child that dies (IREE's segfaults)
    # runs no cleanup, and its `fusion-opt-params-*` folders were left in /tmp.
    tempfile.tempdir = d
    try:
        out.write_bytes(stage(*args))
    except FusionOptError as e:
        err.write_text(json.dumps({"kind": type(e).__name__, "message": e.message, "where": e.where}))
    except BaseException as e:  # noqa: BLE001 - reported by the parent
        err.write_text(json.dumps({"kind": "UnsupportedError", "message": f"{what} failed: {type(e).__name__}: {e}"}))


def run_isolated(stage: Callable[..., bytes], args: tuple[Any, ...], what: str, where: str | None,
                 retries: int = 2, crash: type[FusionOptError] = UnsupportedError,
                 consequence: str = "this model cannot be imported") -> bytes:
    """`stage(*args)` (a module-level function) in a child process; its FusionOptErrors are re-raised here,
    a crash of the child becomes an UnsupportedError naming the signal and LLVM's reason. A child killed
    by a signal is retried up to `retries` times: some of IREE's crashes are intermittent (the global-opt
    steps on onnx's attention expansions passed on about one try in two), a deterministic one costs the
    retries."""
    died: _Crashed | None = None
    for _ in range(retries + 1):
        try:
            return _run_child(stage, args, what, where, consequence)
        except _Crashed as e:
            died = e
    raise crash(str(died), where) from None


class _Crashed(Exception):
    """The child died by a signal (its message is the user's)."""


def _run_child(stage: Callable[..., bytes], args: tuple[Any, ...], what: str, where: str | None,
               consequence: str = "this model cannot be imported") -> bytes:
    with tempfile.TemporaryDirectory(prefix="fusion-opt-") as d:
        p = _context().Process(target=_child, args=(stage, args, what, d), daemon=True)
        # multiprocessing re-imports the caller's main script in the child (`__mp_main__`), which would run
        # an unguarded script's top level again; the child needs nothing from it (the stage is imported by
        # its module's name), so it is shown an empty __main__.
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            p.start()
        finally:
            sys.modules["__main__"] = main
        p.join()
        out, err = Path(d) / "result", Path(d) / "error.json"
        if err.is_file():
            e = json.loads(err.read_text())
            cls = getattr(errors, e["kind"], UnsupportedError)
            if not (isinstance(cls, type) and issubclass(cls, FusionOptError)):
                cls = UnsupportedError
            raise cls(e["message"], e.get("where") or where)
        if p.exitcode == 0 and out.is_file():
            return out.read_bytes()
        code = p.exitcode if p.exitcode is not None else -1
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        reason = _fatal_line(Path(d) / "stderr")
        msg = f"{what} crashed ({how}{': ' + reason if reason else ''}); {consequence}"
        if code < 0:
            raise _Crashed(msg)
        raise UnsupportedError(msg, where)


def _fatal_line(log: Path) -> str:
    """LLVM's own one-line reason (`LLVM ERROR: ...`), if the child printed one."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return next((ln.strip() for ln in lines if ln.startswith("LLVM ERROR")), "")
