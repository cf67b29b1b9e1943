"""Injected compile faults (test-only, fusion_opt.testhooks.FAULTS): a chosen group's compile fails or
times out the way IREE reports it, so the fallback path (backends/fallback.py) runs on demand.

Why not a real failure: no IR construct fails IREE on purpose and stays failing across releases; an
error raised here, shaped like IREE's (at the region's `fusion_group_N` location, or at one of its ops'
own `file:line:col`), exercises the same attribution and unwrapping code. `timeout` stands for a group
whose compile a watchdog gave up on: the product has no such watchdog (IREE compiles a module in one
call that cannot be interrupted), so this checks only that a time-out error is survived like a failure.
"""
from __future__ import annotations

import re
import time

from ..errors import CompileError
from ..ir import ir
from ..transforms.dispatch_regions import regions_of_group

TIMEOUT_SLEEP_S = 0.2  # the injected "slow compile" before the time-out is reported
_FILE_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')


def raise_injected_fault(module: ir.Module, source_name: str) -> None:
    """Raise the fault of the first faulty group still wrapped in a region; a no-op when none is set."""
    from ..testhooks import FAULTS

    for gid, kind in sorted(FAULTS.items()):
        regions = regions_of_group(module, gid)
        if not regions:
            continue  # already given back to IREE: the fault does not fire again
        region = regions[0]
        if kind == "timeout":
            time.sleep(TIMEOUT_SLEEP_S)
            raise CompileError(f"compilation of fusion_group_{gid} exceeded the time limit (injected fault)",
                               str(region.location))
        if kind == "fail":
            raise CompileError("failed to run translation of source executable to target executable "
                               "(injected fault)", str(region.location))
        op = _named_op(module, region)
        m = _FILE_LOC.search(str(op.location))
        where = f"{source_name if m is None or m[1] == '-' else m[1]}:{m[2]}:{m[3]}" if m else source_name
        raise CompileError(f"'{op.name}' op write affecting operations on global resources are restricted to "
                           "workgroup distributed contexts (injected fault)", where)


def _named_op(module: ir.Module, region: ir.Operation) -> ir.Operation:
    """The op IREE would name: the region's last op, else another of its ops whose location no other op
    shares (rewrites such as sibling stacking give several ops one location, which names no one region)."""
    counts: dict[str, int] = {}

    def visit(o: ir.Operation) -> ir.WalkResult:
        counts[str(o.location)] = counts.get(str(o.location), 0) + 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    ops = [o.operation for o in region.regions[0].blocks[0].operations][:-1]  # not the flow.return
    return next((o for o in reversed(ops) if counts[str(o.location)] == 1), ops[-1])
