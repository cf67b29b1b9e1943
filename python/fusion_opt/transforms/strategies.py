"""The strategy library: hand-written transform scripts in the repository's `passes/` directory.

Why files and not Python: a strategy is meant to be read, copied and edited by users, then applied
with `--transform=FILE`; `--strategy=NAME` is the same as `--transform=passes/NAME.mlir`. Each file
is a `transform.with_named_sequence` module whose `@__transform_main` finds its own ops (by op name
and structure, not by our ids), so it applies to any input of its shape.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError

ENV = "FUSION_OPT_PASSES"


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
