"""The strategy library: hand-written transform scripts in the repository's `passes/` directory.

Why files and not Python: a strategy is meant to be read, copied and edited by users, then applied
with `--transform=FILE`; `--strategy=NAME` is the same as `--transform=passes/NAME.mlir`. Each file
is a `transform.with_named_sequence` module whose `@__transform_main` finds its own ops (by op name
and structure, not by our ids), so it applies to any input of its shape.

`passes/codegen/llvm_cpu.mlir` holds the same shapes as IREE per-dispatch codegen strategies
(`--codegen-strategies`): its `@__kernel_config` picks a codegen sequence for each dispatch IREE
compiles, through `--iree-codegen-transform-dialect-library` (a sub-folder, so that it is no
`--strategy`: it runs inside IREE, on dispatches, not on our Linalg).
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, UnsupportedError

ENV = "FUSION_OPT_PASSES"
CODEGEN_LIBRARY = "codegen/llvm_cpu.mlir"
CODEGEN_ENTRY = "__kernel_config"
_CODEGEN_SPEC = re.compile(r"transform_dialect_codegen codegen_spec = @(\w+)")


def library_dir() -> Path:
    """`$FUSION_OPT_PASSES`, else `passes/` at the root of the source tree this package runs from."""
    env = os.environ.get(ENV)
    return Path(env) if env else Path(__file__).resolve().parents[3] / "passes"


def list_strategies() -> list[str]:
    d = library_dir()
    return sorted(p.stem for p in d.glob("*.mlir")) if d.is_dir() else []


def strategy_path(name: str) -> Path:
    """The file of strategy `name`; an unknown name is an error listing the known ones."""
    p = library_dir() / f"{name}.mlir"
    if not p.is_file():
        known = ", ".join(list_strategies()) or f"none found in {library_dir()}"
        raise InputError(f"unknown strategy '{name}' (known: {known})", "--strategy")
    return p


def codegen_flags(target: str) -> tuple[str, ...]:
    """The IREE flag that makes `passes/codegen/llvm_cpu.mlir` pick per-dispatch codegen strategies.
    llvm-cpu only: its sequences bufferize and distribute for CPU workgroups."""
    from ..backends.targets import get_target

    if not get_target(target).is_cpu:
        raise UnsupportedError("codegen strategies are written for llvm-cpu only", f"target '{target}'")
    lib = library_dir() / CODEGEN_LIBRARY
    if not lib.is_file():
        raise InputError(f"codegen strategy library not found: {lib}", "--codegen-strategies")
    return (f"--iree-codegen-transform-dialect-library={lib}@{CODEGEN_ENTRY}",)


def applied_strategies(pipelines: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(dispatch function, codegen sequence) for each dispatch a library strategy was picked for, from
    `backends.lowering.dispatch_pipelines` (the others keep IREE's pipeline)."""
    return [(f, m.group(1)) for f, ti in pipelines if (m := _CODEGEN_SPEC.search(ti))]
