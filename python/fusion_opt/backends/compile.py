"""In-process IREE compilation: module -> Artifact (.vmfb bytes, optional .irpa weights, dispatch count).

Why a fresh compiler session per compile: IREE's list-valued flags (`--iree-hal-target-device`,
`--iree-hal-local-target-device-backends`) accumulate across `Session.set_flags` calls, so a reused
session cannot switch targets, and `Invocation.import_module` rewrites the module in place. The
caller's module is therefore copied through MLIR bytecode into a private session (~0.2 s for
ResNet-50's 100 MB of weights) and is left untouched.

One compile gives both numbers: the pipeline stops at the `flow` phase, we count `flow.dispatch`
ops, then the same invocation resumes from `flow` to the end (no second front-end run).

Why a subprocess for some flags: a few IREE flags are process-global LLVM options that a compiler
session cannot take (`Session.set_flags` answers "option not found"; e.g.
`--iree-codegen-transform-dialect-library`). Setting them process-wide would leak into every later
compile, so a compile that needs one runs in process up to the `flow` phase as usual, and the
`iree-compile` binary of the same wheel (its own globals) resumes from there (`--compile-from=flow`).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CompileError
from ..ir import Output, Session, bytecode, ir, new_session, signature_has_f64
from . import _capi
from .barriers import has_dispatch_regions, strip_region_barriers
from .flow_ir import FlowSite, count_flow_dispatches, flow_sites
from .targets import Target, get_target

# Weights of at least this many bytes go to the .irpa archive when params_path is given.
PARAM_MIN_BYTES = 1024
PARAM_SCOPE = "model"
# Process-global IREE options (see the module docstring): compiles with these finish in iree-compile.
GLOBAL_ONLY_FLAGS = ("--iree-codegen-transform-dialect-library",)


@dataclass(frozen=True)
class Artifact:
    """A compiled module. `vmfb` is self-contained unless `params_path` names its weight archive."""

    vmfb: bytes = field(repr=False)
    params_path: Path | None
    target: str
    flags: tuple[str, ...]
    dispatch_count: int | None
    compile_seconds: float
    entry: str | None = None  # the exported function the runtime calls by default
    sites: tuple[FlowSite, ...] | None = field(default=None, repr=False)  # dispatch sites, program order

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the module to `path` exactly and its weights to the `.irpa` beside it (where the loader
        looks); the weights go first, each file is renamed into place, so a failure leaves no module."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        if self.params_path is not None:
            dst = out.with_suffix(".irpa")
            if Path(self.params_path).resolve() != dst.resolve():
                tmp = dst.with_name(f".{dst.name}.tmp")
                shutil.copyfile(self.params_path, tmp)
                os.replace(tmp, dst)
        _atomic_write(out, self.vmfb)
        return out


def compile_module(module: ir.Module, session: Session | None, target: str, extra_flags: tuple[str, ...] = (),
                   params_path: Path | None = None, *, count_dispatches: bool = True,
                   source_name: str = "<input>") -> Artifact:
    """Compile `module` for `target`; the module is not modified.

    `session` is the session that owns the module's context (kept for API symmetry; compilation
    runs in a private session). With `params_path`, inline constants of >= PARAM_MIN_BYTES are
    outlined and written to that `.irpa` archive (scope "model"), keeping the vmfb small.
    Failures raise CompileError with the first error diagnostic as one `file:line:col` line; no
    partial .irpa is left behind.
    """
    tgt = get_target(target)
    flags = (*tgt.flags, *abi_flags(module, tgt), *extra_flags)
    session_flags, global_flags = split_global_flags(flags)
    entry = _entry_name(module)
    t0 = time.perf_counter()
    cs, m2 = _private_copy(module, tgt, session_flags, source_name)
    tmpdir = tempfile.mkdtemp(prefix="fusion-opt-params-") if params_path is not None else None
    try:
        with _capi.DiagnosticInvocation(cs) as inv:
            inv.import_module(m2.operation)
            if params_path is not None:
                tmp_params = os.path.join(tmpdir, "w.irpa")
                ok = inv.run_passes("iree-flow-outline-constants,iree-io-export-parameters{"
                                    f"path={PARAM_SCOPE}={tmp_params} minimum-size={PARAM_MIN_BYTES}}}")
                _raise_if_failed(inv, source_name, ok)
            n, sites = None, None
            _global_opt_without_region_barriers(inv, m2, source_name)
            if count_dispatches or global_flags:
                _run_phase(inv, "flow", source_name)
                if count_dispatches:
                    n, sites = count_flow_dispatches(m2), flow_sites(m2, entry)
            inv.set_compile_to("end")
            if global_flags:
                vmfb = run_iree_compile(m2, flags, compile_from="flow", source_name=source_name)
            else:
                _raise_if_failed(inv, source_name, inv.execute())
                vmfb = inv.vm_bytecode()
        params = None
        if params_path is not None and _has_entries(tmp_params):
            params = Path(params_path)
            params.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(tmp_params, params)
    finally:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
        cs.close()
    return Artifact(vmfb, params, tgt.name, flags, n, time.perf_counter() - t0, entry, sites)


def compile_module_isolated(module: ir.Module, session: Session | None, target: str,
                            extra_flags: tuple[str, ...] = (), params_path: Path | None = None, *,
                            count_dispatches: bool = True, source_name: str = "<input>") -> Artifact:
    """compile_module in a child process (importers/isolate.py), the module passed as bytecode in a file.

    Why: IREE segfaults on some modules (its flow phase on a data-tiled 5x1 by 1x5 product, its f64
    demotion on a region holding f64 values: onnx's windowed-attention expansions), and in process that
    ended the caller's. A crash is a CompileError at the source, which backends/fallback.py answers like
    any failure no group holds (every group handed back, then the module levers dropped). Costs a fork
    and a bytecode file (~0.3 s for ResNet-50)."""
    import pickle

    from ..importers.isolate import run_isolated

    with tempfile.TemporaryDirectory(prefix="fusion-opt-compile-") as d:
        src, out = os.path.join(d, "in.mlirbc"), os.path.join(d, "artifact.pickle")
        with open(src, "wb") as f:
            module.operation.write_bytecode(f)
        run_isolated(_compile_child, (src, target, tuple(extra_flags), None if params_path is None else str(params_path),
                                      count_dispatches, source_name, out),
                     "IREE's compiler", source_name, retries=0, crash=CompileError,
                     consequence="left to a smaller plan")
        with open(out, "rb") as f:
            return pickle.load(f)


def _compile_child(src: str, target: str, flags: tuple[str, ...], params: str | None, count: bool,
                   source_name: str, out: str) -> bytes:
    import pickle

    sess = new_session()
    with open(src, "rb") as f:
        module = ir.Module.parse(f.read(), sess.context)
    art = compile_module(module, sess, target, flags, None if params is None else Path(params),
                         count_dispatches=count, source_name=source_name)
    with open(out, "wb") as f:
        pickle.dump(art, f)
    return b""


def compile_to_flow(module: ir.Module, session: Session | None, target: str, extra_flags: tuple[str, ...] = (),
                    *, large_elements_limit: int = 16, source_name: str = "<input>") -> str:
    """The module after IREE's `flow` phase, as text (large constants elided: for reading, not re-parsing)."""
    m2, cs = _to_flow(module, target, extra_flags, source_name)
    try:
        return m2.operation.get_asm(large_elements_limit=large_elements_limit)
    finally:
        cs.close()


def count_dispatches(module: ir.Module, session: Session | None, target: str,
                     extra_flags: tuple[str, ...] = (), *, source_name: str = "<input>") -> int:
    """How many dispatches IREE launches for one call: `flow.dispatch` call sites after the flow phase."""
    m2, cs = _to_flow(module, target, extra_flags, source_name)
    try:
        return count_flow_dispatches(m2)
    finally:
        cs.close()


def _to_flow(module: ir.Module, target: str, extra_flags: tuple[str, ...], source_name: str
             ) -> tuple[ir.Module, Session]:
    # Process-global flags act after `flow` (codegen): not needed, and a session refuses them.
    tgt = get_target(target)
    session_flags, _ = split_global_flags((*tgt.flags, *extra_flags))
    cs, m2 = _private_copy(module, tgt, session_flags, source_name)
    try:
        with _capi.DiagnosticInvocation(cs) as inv:
            inv.import_module(m2.operation)
            _global_opt_without_region_barriers(inv, m2, source_name)
            _run_phase(inv, "flow", source_name)
    except BaseException:
        cs.close()
        raise
    return m2, cs


def _run_phase(inv: _capi.DiagnosticInvocation, phase: str, source_name: str) -> None:
    """Run the invocation's pipeline through `phase`; the next `execute` resumes after it."""
    inv.set_compile_to(phase)
    _raise_if_failed(inv, source_name, inv.execute())
    inv.set_compile_from(phase)


def _global_opt_without_region_barriers(inv: _capi.DiagnosticInvocation, module: ir.Module,
                                        source_name: str) -> None:
    """With planned regions: stop after global optimization and take IREE's compute barriers out of
    our regions (`barriers` says why), so dispatch creation treats them as it treats its own."""
    if has_dispatch_regions(module):
        _run_phase(inv, "global-optimization", source_name)
        strip_region_barriers(module)


def split_global_flags(flags: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(flags a compiler session takes, process-global flags only `iree-compile` can take)."""
    glob = tuple(f for f in flags if f.split("=", 1)[0] in GLOBAL_ONLY_FLAGS)
    return tuple(f for f in flags if f not in glob), glob


def run_iree_compile(module: ir.Module, flags: tuple[str, ...], *, compile_from: str | None = None,
                     compile_to: str | None = None, source_name: str = "<input>") -> bytes:
    """Compile `module` with the `iree-compile` binary of the installed wheel; returns its output (a
    .vmfb, or MLIR bytecode with `compile_to`). Errors raise CompileError at the first error's location
    (the bytecode keeps the module's own locations)."""
    from iree.compiler.tools.binaries import find_tool

    with tempfile.TemporaryDirectory(prefix="fusion-opt-compile-") as tmp:
        src, out = os.path.join(tmp, "in.mlirbc"), os.path.join(tmp, "out")
        with open(src, "wb") as f:
            module.operation.write_bytecode(f)
        cmd = [find_tool("iree-compile"), src, *flags, "-o", out, "--mlir-print-debuginfo"]
        cmd += [f"--compile-from={compile_from}"] if compile_from else []
        cmd += [f"--compile-to={compile_to}", "--emit-mlir-bytecode"] if compile_to else []
        proc = subprocess.run(cmd, capture_output=True, text=True)
        # An error can come with exit status 0: a transform library that fails to parse or verify is
        # reported, then ignored (IREE's own pipelines compile every dispatch).
        errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
        if errors or proc.returncode != 0 or not os.path.exists(out):
            diag = errors[0] if errors else (proc.stderr.strip().splitlines() or ["iree-compile failed"])[-1]
            diag = diag.replace(src, source_name).replace(": error: ", ": ", 1)
            where, msg = _split_location(diag, source_name)
            raise CompileError(msg, where)
        with open(out, "rb") as f:
            return f.read()


def _private_copy(module: ir.Module, target: Target, flags: tuple[str, ...], source_name: str
                  ) -> tuple[Session, ir.Module]:
    """A new session with `flags`, holding a bytecode copy of `module` (locations preserved) that carries
    the target's `hal.device.targets` where the target has one."""
    data = bytecode(module)
    cs = new_session()
    try:
        cs.set_flags(*flags)
    except ValueError as e:  # unknown flag or bad value: the message spans several lines
        cs.close()
        raise CompileError(" ".join(str(e).split()), "flags") from None
    m2 = ir.Module.parse(data, cs.context)
    if target.device_targets is not None:
        m2.operation.attributes["hal.device.targets"] = ir.Attribute.parse(target.device_targets, cs.context)
    return cs, m2


def _raise_if_failed(inv: _capi.DiagnosticInvocation, source_name: str, ok: bool = True) -> None:
    err = inv.first_error()
    if ok and err is None:
        return
    if err is None:
        raise CompileError("IREE compilation failed without a diagnostic", source_name)
    where, msg = _split_location(err, source_name)
    raise CompileError(msg, where)


_LOC = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")


def _split_location(diag: str, source_name: str) -> tuple[str, str]:
    """`-:4:12: message\\n\\n<notes>` -> (`source:4:12`, `message`). `-` is the parser's name for a string."""
    first = diag.strip().splitlines()[0] if diag.strip() else "unknown error"
    m = _LOC.match(first)
    if not m:
        return source_name, first
    file = source_name if m["file"] in ("-", "") else m["file"]
    if m["file"] == "<unknown>" or m["line"] == "0":
        return source_name, m["msg"]
    return f"{file}:{m['line']}:{m['col']}", m["msg"]


KEEP_F64 = "--iree-input-demote-f64-to-f32=false"


def abi_flags(module: ir.Module, tgt: Target) -> tuple[str, ...]:
    """Keep f64 where a public function takes or returns it (llvm-cpu and CUDA compute it natively).

    Why: IREE demotes f64 to f32 by default, the signature included, so a DOUBLE ONNX model took f32
    arrays at run time, and with our regions in the module the demotion aborted the compiler ("LLVM
    ERROR: out of memory" on a 2x3 f64 add; `fusion-bench conformance`). Only there: with demotion off,
    llvm-cpu cannot legalize an f64 -> f32 `arith.truncf` (Inception-v2's f64 BatchNorm constants).
    """
    if tgt.driver == "vulkan":
        return ()
    return (KEEP_F64,) if any(signature_has_f64(op) for op in _public_functions(module)) else ()


def _public_functions(module: ir.Module) -> Iterator[ir.Operation]:
    """`func.func`s with a body that the module exports (no visibility, or `public`), in order."""
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func" or not op.regions[0].blocks:
            continue
        vis = op.attributes["sym_visibility"] if "sym_visibility" in op.attributes else None
        if vis is None or ir.StringAttr(vis).value == "public":
            yield op


def _entry_name(module: ir.Module) -> str | None:
    """`@main` where a `.mlir` file defines helpers beside it, else the first public function with a body
    (what the importers export, e.g. `@resnet50`)."""
    names = [ir.StringAttr(f.attributes["sym_name"]).value for f in _public_functions(module)]
    return "main" if "main" in names else (names[0] if names else None)


def _has_entries(irpa: str) -> bool:
    # The export pass writes a header-only archive when no constant is large enough.
    if not os.path.exists(irpa):
        return False
    import iree.runtime as rt

    idx = rt.ParameterIndex()
    idx.load(irpa)
    return len(idx) > 0


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


__all__ = ["Artifact", "compile_module", "compile_to_flow", "count_dispatches", "count_flow_dispatches"]

