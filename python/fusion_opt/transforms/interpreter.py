"""Run transform-dialect scripts in process, with ops found by stable ids and errors as one line.

Why ids: a generated script must find "op 3 of @main" again, and a script printed by
`--emit=transform` and fed back through `--transform=` must find the same ops. Before any script runs,
every described op (analysis/describe.py order) gets `fusion_opt.id = N` (N counts over the module's
functions, so ids are unique in a module); scripts match on it with `transform.structured.match
ops{["linalg.generic"]} attributes {fusion_opt.id = N : i64} in %root`, and the ids are removed from
the result.

Why errors are rewritten: the interpreter raises a Python ValueError holding every diagnostic and
note; the CLI prints one `where: error: what` line, where `where` is the failing transform op's
location (a generated script carries the payload op's location on each transform op, so this is the
user's op) and the payload op a note names is added in parentheses.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..analysis.describe import describe_function
from ..errors import InputError, TransformError
from ..ir import functions, ir
from ..importers.mlir_import import format_diag_location

ID_ATTR = "fusion_opt.id"
ENTRY = "__transform_main"
_DIAG = re.compile(r"^(?:Diagnostic message )?at (loc\(.*?\)): (.*)$")


def stamp_ids(module: ir.Module, source_name: str = "-") -> list[tuple[int, list[ir.Operation]]]:
    """Give every described op of every function its id; returns (first id, ops) per function."""
    out = []
    next_id = 0
    i64 = ir.IntegerType.get_signless(64, module.context)
    for f in functions(module):
        _, ops = describe_function(f, source_name)
        for k, op in enumerate(ops):
            op.attributes[ID_ATTR] = ir.IntegerAttr.get(i64, next_id + k)
        out.append((next_id, ops))
        next_id += len(ops)
    return out


def strip_ids(module: ir.Module) -> None:
    """Remove every `fusion_opt.id` (tiling clones ops, so ids appear inside loops too)."""
    def visit(op: ir.Operation) -> ir.WalkResult:
        if ID_ATTR in op.attributes:
            del op.attributes[ID_ATTR]
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def load_script(path: str, context: ir.Context) -> ir.Operation:
    """Parse a transform script file; locations name the file, so errors point into the script."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such transform script", path)
    try:
        op = ir.Operation.parse(p.read_text(), source_name=str(p), context=context)
    except ir.MLIRError as e:
        d = e.error_diagnostics[0] if e.error_diagnostics else None
        where = format_diag_location(str(d.location), str(p)) if d else str(p)
        raise InputError(d.message if d else str(e).splitlines()[-1], where) from None
    return op


def find_sequence(script: ir.Operation, entry: str, script_name: str) -> ir.Operation:
    """The `transform.named_sequence @entry` at the top of `script` (a module)."""
    if script.name != "builtin.module" or "transform.with_named_sequence" not in script.attributes:
        raise InputError("a transform script must be a module with the 'transform.with_named_sequence' "
                         "attribute", script_name)
    for op in script.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "transform.named_sequence" and ir.StringAttr(op.attributes["sym_name"]).value == entry:
            return op
    raise InputError(f"no transform.named_sequence @{entry} in the script", script_name)


def apply_script(payload: ir.Module, script: ir.Operation, *, source_name: str, script_name: str,
                 entry: str = ENTRY, expensive_checks: bool = True) -> None:
    """Apply `@entry` of `script` to `payload` (in place), ids stamped first and stripped after.

    `expensive_checks`: the interpreter's handle-invalidation checks, which catch a script using a
    handle a previous op consumed. They cost time quadratic in the script (ResNet-50's generated
    script: 220 s with them, 1.8 s without), so generated scripts, correct by construction, run
    without; a user's script runs with them.
    Raises TransformError (one line, with a location) when the interpreter fails or the result
    does not verify; the caller must then drop `payload` (it may be half transformed)."""
    from iree.compiler.dialects.transform import interpreter

    seq = find_sequence(script, entry, script_name)
    stamp_ids(payload, source_name)
    options = interpreter.TransformOptions()
    options.expensive_checks = expensive_checks
    try:
        interpreter.apply_named_sequence(payload.operation, seq, script, options)
    except (ValueError, ir.MLIRError) as e:
        raise _transform_error(str(e), source_name, script_name) from None
    strip_ids(payload)
    try:
        payload.operation.verify()
    except ir.MLIRError as e:
        d = e.error_diagnostics[0] if e.error_diagnostics else None
        where = format_diag_location(str(d.location), source_name) if d else source_name
        raise TransformError(f"the transformed IR does not verify: {d.message if d else e}", where) from None


def _transform_error(text: str, source_name: str, script_name: str) -> TransformError:
    """The interpreter's exception text -> one TransformError at the first located diagnostic."""
    diags: list[tuple[str, str]] = []
    for line in text.splitlines():
        m = _DIAG.match(line.strip())
        if m:
            diags.append((m.group(1), m.group(2)))
    if not diags:
        return TransformError(f"transform script failed: {' '.join(text.split())}", script_name)
    loc, msg = diags[0]
    where = _where(loc, source_name)
    # The payload parses from a string, so its locations read loc("-":L:C); a script file has a name.
    payload = [_where(n, source_name) for n, _ in diags[1:] if n.startswith('loc("-":')]
    payload = [p for p in payload if p and p != where]
    extra = f" (payload op at {payload[0]})" if payload else ""
    return TransformError(f"transform failed: {msg}{extra}", where or script_name)


def _where(loc: str, source_name: str) -> str | None:
    """`loc("-":3:7)` -> `input.mlir:3:7` (the payload parses as "-"); a script keeps its file name."""
    if '":' not in loc:
        return None
    return format_diag_location(loc, source_name)

