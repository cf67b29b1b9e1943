"""The examples in docs/ and the README run as written: every ```python block (the blocks of one file in
order, in one process, from the repository root) and every `.venv/bin/fusion-opt` command of a ```bash
block on the repository's own inputs. A command after a comment that says it fails must fail with one
error line; every other must succeed. Stale examples are the first thing a new user hits."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(path: Path, lang: str) -> list[str]:
    return [m.group(2) for m in _BLOCK.finditer(path.read_text()) if m.group(1) == lang]


def _command_blocks() -> list[tuple[str, list[tuple[str, bool]]]]:
    """(file, [(command, expected to fail), ...]) per bash block with fusion-opt lines, in order: a line may
    read what an earlier line of its block wrote (`--emit=transform -o s.mlir`, then `--transform=s.mlir`)."""
    out = []
    for path in DOCS:
        for block in _blocks(path, "bash"):
            commands, previous = [], ""
            for line in block.splitlines():
                if line.startswith(".venv/bin/fusion-opt "):
                    commands.append((line, previous.startswith("#") and "error" in previous))
                previous = line.strip()
            if commands:
                out.append((path.name, commands))
    return out


PYTHON = [p for p in DOCS if _blocks(p, "python")]


@pytest.mark.parametrize("path", PYTHON, ids=[p.name for p in PYTHON])
def test_python_examples_run(path: Path) -> None:
    script = "\n".join(_blocks(path, "python"))
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{path.name}: {r.stderr[-3000:]}"


BLOCKS = _command_blocks()


@pytest.mark.parametrize("doc, commands", BLOCKS, ids=[f"{d}:{c[0][0][21:70]}" for d, c in BLOCKS])
def test_cli_examples_run(doc: str, commands: list[tuple[str, bool]], tmp_path: Path) -> None:
    for command, fails in commands:
        command = command.replace("/tmp/", f"{tmp_path}/")
        r = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=600)
        if fails:
            assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, f"{doc}: {command}\n{r.stderr}"
        else:
            assert r.returncode == 0, f"{doc}: {command}\n{r.stderr[-3000:]}"
        assert "Traceback" not in r.stderr


def test_examples_found() -> None:
    """The harness finds what it checks (a renamed fence or path would silently test nothing)."""
    assert len(PYTHON) >= 3 and sum(len(c) for _, c in BLOCKS) >= 20
