"""`.mlir` input: parse Linalg/tensor/arith functions as they are, with diagnostics mapped to the file."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InputError, UnsupportedError
from ..ir import functions, ir

SPLIT_MARKER = re.compile(r"^// -----[ \t]*$", re.MULTILINE)
_PARSER_LOC = re.compile(r'loc\("-":(\d+):(\d+)\)')


@dataclass(frozen=True)
class Chunk:
    """One `// -----` separated piece of an input file; `text` keeps the original line numbers."""

    text: str
    first_line: int


def split_input(text: str, split: bool) -> list[Chunk]:
    """Split like mlir-opt's `--split-input-file`; each chunk is padded so line numbers stay true."""
    if not split:
        return [Chunk(text, 1)]
    chunks, start_line, pos = [], 1, 0
    for m in SPLIT_MARKER.finditer(text):
        chunks.append(Chunk("\n" * (start_line - 1) + text[pos : m.start()], start_line))
        # The next chunk starts right after the marker; its text begins with the marker's newline.
        start_line = 1 + text.count("\n", 0, m.start())
        pos = m.end()
    chunks.append(Chunk("\n" * (start_line - 1) + text[pos:], start_line))
    return chunks


def format_diag_location(loc: str, source_name: str) -> str:
    """`loc("-":3:7)` (what the parser calls a string buffer) -> `file.mlir:3:7`."""
    m = _PARSER_LOC.search(loc)
    if m:
        return f"{source_name}:{m.group(1)}:{m.group(2)}"
    m = re.search(r'loc\("([^"]*)":(\d+):(\d+)\)', loc)
    if m:
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    return source_name


def parse_mlir(text: str, context: ir.Context, source_name: str = "<stdin>") -> ir.Module:
    """Parse and verify; the first error becomes one `file:line:col: error: ...` InputError."""
    check_integer_literals(text, source_name)
    try:
        module = ir.Module.parse(text, context)
    except ir.MLIRError as e:
        diags = e.error_diagnostics
        if diags:
            d = diags[0]
            raise InputError(d.message, format_diag_location(str(d.location), source_name)) from None
        raise InputError(str(e).splitlines()[-1], source_name) from None
    check_static_shapes(module, source_name)
    return module


_HUGE_INT = re.compile(r"(?<![\w.#\"])-?\d{20,}(?![\w.])")


def check_integer_literals(text: str, source_name: str) -> None:
    """An integer literal beyond 64 bits in some attributes (e.g. a linalg.transpose permutation) makes the
    MLIR parser segfault (found by `fusion-bench fuzz --malformed`): refuse it first, at its position."""
    if not re.search(r"\d{20}", text):  # the common case: one pass at C speed
        return
    for n, line in enumerate(text.splitlines(), 1):
        m = _HUGE_INT.search(line.split("//", 1)[0])
        if m:
            raise InputError(f"integer literal '{m.group(0)}' is out of the 64-bit range",
                             f"{source_name}:{n}:{m.start() + 1}")


def check_static_shapes(module: ir.Module, source_name: str) -> None:
    """Dynamic tensor shapes are out of scope for the planner: refuse them up front, with a location."""
    for f in functions(module):
        ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        for t in list(ftype.inputs) + list(ftype.results):
            t = t.maybe_downcast()
            if isinstance(t, ir.ShapedType) and t.has_rank and not t.has_static_shape:
                where = format_diag_location(str(f.location), source_name)
                raise UnsupportedError(f"dynamic shape {t} in the signature of a function is not supported", where)
