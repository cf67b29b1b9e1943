"""`--verify-diagnostics`: match produced errors against `// expected-error` annotations (mlir-opt style).

Supported forms: `expected-error {{msg}}` (same line), `expected-error @+N {{msg}}`, `@-N`,
`@above`, `@below`. The message is a substring match, as in MLIR.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from .errors import FusionOptError
from .importers import split_input

_EXPECTED = re.compile(r"expected-error\s*(@[+-]\d+|@above|@below)?\s*\{\{(.*?)\}\}")
_WHERE = re.compile(r":(\d+):(\d+)$")


@dataclass(frozen=True)
class Expected:
    line: int
    message: str


def expectations(text: str) -> list[Expected]:
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        for m in _EXPECTED.finditer(line):
            off = m.group(1)
            target = no
            if off == "@above":
                target = no - 1
            elif off == "@below":
                target = no + 1
            elif off:
                target = no + int(off[1:])
            out.append(Expected(target, m.group(2)))
    return out


def error_line(err: FusionOptError) -> int | None:
    m = _WHERE.search(err.where or "")
    return int(m.group(1)) if m else None


def verify(text: str, name: str, args, process: Callable[[str, str, object], object]) -> int:
    """Run each chunk; every produced error must be expected and every expectation met."""
    failures: list[str] = []
    chunks = split_input(text, args.split_input_file)
    for chunk in chunks:
        expected = expectations(chunk.text)
        produced: list[FusionOptError] = []
        try:
            process(chunk.text, name, _single_chunk(args))
        except FusionOptError as e:
            produced.append(e)
        unmatched = list(expected)
        for err in produced:
            line = error_line(err)
            hit = next((x for x in unmatched if x.line == line and x.message in err.message), None)
            if hit is None:
                failures.append(f"{err.where or name}: error: unexpected error: {err.message}")
            else:
                unmatched.remove(hit)
        for x in unmatched:
            failures.append(f"{name}:{x.line}: error: expected error \"{x.message}\" was not produced")
    control = getattr(args, "control", None)
    if control is not None:  # matchers may hit in any chunk: checked once all chunks ran
        try:
            control.check_matched()
        except FusionOptError as e:
            failures.append(str(e))
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


def _single_chunk(args):
    """The chunk is already split: process it as a whole file."""
    import copy

    a = copy.copy(args)
    a.split_input_file = False
    a.defer_match_check = True  # `verify` checks matchers once, after every chunk
    return a
