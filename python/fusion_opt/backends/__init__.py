"""IREE backend: target flags, in-process compilation to .vmfb (+ .irpa weights), and a numpy runner."""
from __future__ import annotations

from .compile import Artifact, compile_module, compile_to_flow, count_dispatches
from .runtime import Runner, benchmark, load, load_file
from .targets import Target, fusion_flags, get_target, target_names

__all__ = [
    "Artifact", "Runner", "Target", "benchmark", "compile_module", "compile_to_flow", "count_dispatches",
    "fusion_flags", "get_target", "load", "load_file", "target_names",
]
