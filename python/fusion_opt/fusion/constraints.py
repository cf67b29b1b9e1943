"""User control over a plan: pins (must fuse), barriers (never fuse), and a cap on merges for bisecting.

Pure data, filled from the CLI (`--fuse=`, `--no-fuse=`, `--max-fusions=`), the API (`fuse=`,
`no_fuse=`, `max_fusions=`) or IR attributes on ops; every planner takes one and obeys it.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Constraints:
    """`pins`: sets of op indices that must end in one group (checked against the legality rules: an
    illegal pin is an error naming the rule). `barriers`: ops that are never merged with anything.
    `max_fusions`: stop after this many merges (None: no cap), to bisect a bad fusion."""

    pins: tuple[frozenset[int], ...] = ()
    barriers: frozenset[int] = field(default_factory=frozenset)
    max_fusions: int | None = None

    @property
    def empty(self) -> bool:
        return not self.pins and not self.barriers and self.max_fusions is None


NO_CONSTRAINTS = Constraints()
