"""Test-only switches: planted planner bugs and injected compile faults, for the reliability tests.

Why in the product at all: the differential fuzzer (fusion_opt/fuzz) must show that it catches each
class of fusion bug, and the fallback path that it survives a group IREE cannot compile; both need a
switch inside the code they test. The switches are read from the environment once at import (so
child processes of `fusion-bench fuzz` inherit them) and may be set in process by tests through
`plant()` / `inject()`. With nothing set every hook is a no-op: an empty set or dict lookup.

    FUSION_OPT_PLANT=fuse-across-reduction,allow-cycle      planted bugs (PLANTS)
    FUSION_OPT_FAULT=fail:0,fail-at-op:2,timeout:1          group id -> injected compile fault (FAULTS)
"""
from __future__ import annotations

import os

# Each planted bug switches off the legality rules (fusion/legality.py) that keep its class of fusion
# bug out ("cycle": the group-graph check of Partition.cycle_via), and where the class has a wrong-code
# effect, writes it into the regions (transforms/planted.py): a consumer of a reduction reads its partial
# accumulator; a broadcast read of a fused producer reads index 0. `drop-pad-boundary` plans tensor.pad
# like any op (analysis/describe.py), so pads join groups and get regions of their own.
PLANTS: dict[str, frozenset[str]] = {
    "fuse-across-reduction": frozenset({"reduction"}),
    "ignore-broadcast": frozenset({"root-space"}),
    "allow-cycle": frozenset({"cycle"}),
    "drop-pad-boundary": frozenset({"lone-pad"}),
}
# fail: IREE reports a codegen error at the group's region; fail-at-op: at one of its ops' own
# location (as IREE does for verifier errors); timeout: the group's compile exceeds the time limit.
FAULT_KINDS = ("fail", "fail-at-op", "timeout")


def _parse_plants(text: str) -> set[str]:
    names = {n.strip() for n in text.split(",") if n.strip()}
    unknown = names - set(PLANTS)
    if unknown:
        raise ValueError(f"FUSION_OPT_PLANT: unknown planted bug(s) {sorted(unknown)} (known: {sorted(PLANTS)})")
    return names


def _parse_faults(text: str) -> dict[int, str]:
    faults: dict[int, str] = {}
    for item in (t.strip() for t in text.split(",") if t.strip()):
        kind, _, gid = item.rpartition(":")
        if kind not in FAULT_KINDS or not gid.isdigit():
            raise ValueError(f"FUSION_OPT_FAULT: bad item '{item}' (expected KIND:GROUP, KIND in {FAULT_KINDS})")
        faults[int(gid)] = kind
    return faults


PLANTED: set[str] = _parse_plants(os.environ.get("FUSION_OPT_PLANT", ""))
FAULTS: dict[int, str] = _parse_faults(os.environ.get("FUSION_OPT_FAULT", ""))
DISABLED_RULES: set[str] = set().union(*(PLANTS[p] for p in PLANTED))


def plant(*names: str) -> None:
    """Plant bugs in this process (tests); `plant()` with no name removes them all."""
    PLANTED.clear()
    PLANTED.update(_parse_plants(",".join(names)))
    DISABLED_RULES.clear()
    DISABLED_RULES.update(*(PLANTS[p] for p in PLANTED))


def inject(faults: dict[int, str] | None = None) -> None:
    """Inject compile faults per group id in this process (tests); `inject()` removes them."""
    FAULTS.clear()
    FAULTS.update(_parse_faults(",".join(f"{k}:{g}" for g, k in (faults or {}).items())))


def isolated_stage(kind: str) -> bytes:
    """A stage for importers.isolate's tests (module level: the child process imports it by name):
    returns bytes, raises an InputError, segfaults, or prints LLVM's fatal line and aborts."""
    import ctypes

    from .errors import InputError
    if kind == "ok":
        return b"linalg"
    if kind == "refuse":
        raise InputError("bad initializer", "m.onnx")
    if kind == "segfault":
        ctypes.string_at(0)
    os.write(2, b"LLVM ERROR: out of memory\n")
    os.abort()
