"""Malformed inputs: valid .mlir and .onnx files mutated, each run through the `fusion-opt` command.

The contract checked (docs/cli.md, "Errors"): on any input `fusion-opt` either succeeds, or exits with
status 1 and prints exactly one line `where: error: what` on stderr (`file:line:col` for IR errors),
with no traceback, no crash (signal), no hang (a time limit), no internal error (status 2) and no
output file left behind. Running the real command in a child process is the point: a segfault or an
infinite loop in the parser or in IREE is then seen, not suffered.

Mutations of text: truncation, byte flips, invalid UTF-8 and NUL bytes, unknown ops, element-type and
dimension mismatches, dangling and redefined values, huge / negative / zero / dynamic dimensions,
deleted, duplicated and swapped lines, unbalanced and deeply nested brackets. Of ONNX: truncation, byte
flips, random bytes (bad protobuf), and edits of the parsed model (unknown op, dangling input, wrong
element type, huge / negative / zero / symbolic dims, a bad initializer, a bad opset, a cycle, an empty
graph, a missing attribute). The corpus is a pure function of the seed.
"""
from __future__ import annotations

import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# ---- seed inputs ---------------------------------------------------------------------------------------

_LIT_SEEDS = ("test/lit/fusion/greedy.mlir", "test/lit/legality/reduction.mlir",
              "test/lit/legality/tile-fuse.mlir", "test/lit/control/pin-location.mlir",
              "test/lit/transform/tile-and-fuse.mlir")


def mlir_seeds(repo: Path | None = None, n_generated: int = 12) -> list[tuple[str, bytes]]:
    """Generated fuzz graphs (every op kind of fuzz/ops.py) and a few of the repository's lit inputs."""
    from .generate import random_graph

    out = [(f"graph{s}.mlir", random_graph(1000 + s).module_text().encode()) for s in range(n_generated)]
    for rel in _LIT_SEEDS if repo is not None else ():
        p = repo / rel
        if p.is_file():
            out.append((p.name, p.read_bytes()))
    return out


def onnx_seeds() -> list[tuple[str, bytes]]:
    """Small ONNX models built here (no files needed): MLP, conv block, attention-like softmax, layernorm."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def init(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def model(name: str, nodes: list, ins: list, outs: list, inits: list) -> tuple[str, bytes]:
        g = helper.make_graph(nodes, name, ins, outs, inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        return f"{name}.onnx", m.SerializeToString()

    vi = helper.make_tensor_value_info
    f = TensorProto.FLOAT
    return [
        model("mlp", [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["a"]),
                      helper.make_node("Relu", ["a"], ["y"])],
              [vi("x", f, [4, 16])], [vi("y", f, [4, 8])], [init("w", 16, 8), init("b", 8)]),
        model("conv", [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                       helper.make_node("Relu", ["c"], ["r"]),
                       helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
              [vi("x", f, [1, 3, 8, 8])], [vi("y", f, [1, 4, 4, 4])], [init("w", 4, 3, 3, 3), init("b", 4)]),
        model("softmax", [helper.make_node("MatMul", ["x", "w"], ["s"]),
                          helper.make_node("Softmax", ["s"], ["y"], axis=-1)],
              [vi("x", f, [2, 5, 8])], [vi("y", f, [2, 5, 6])], [init("w", 8, 6)]),
        model("layernorm", [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1,
                                             epsilon=1e-5)],
              [vi("x", f, [3, 16])], [vi("y", f, [3, 16])], [init("g", 16), init("b", 16)]),
    ]


# ---- mutations -------------------------------------------------------------------------------------------

_OPS = re.compile(rb"\b(linalg\.[a-z_0-9]+|arith\.[a-z]+|math\.[a-z]+|tensor\.[a-z_]+|func\.return)\b")
_TYPE = re.compile(rb"tensor<([0-9x]*)(f32|f16|i32|i64)>")
_SSA_USE = re.compile(rb"(?<=[(, ])%[A-Za-z_0-9]+")
_NUMBER = re.compile(rb"(?<![A-Za-z_%#0-9.])\d+(?![0-9.])")


def _pick(rng: random.Random, pattern: re.Pattern, data: bytes) -> re.Match | None:
    ms = list(pattern.finditer(data))
    return rng.choice(ms) if ms else None


def _sub(data: bytes, m: re.Match, new: bytes, group: int = 0) -> bytes:
    return data[:m.start(group)] + new + data[m.end(group):]


def _dims(rng: random.Random, data: bytes, value: bytes) -> bytes:
    m = _pick(rng, _TYPE, data)
    if m is None or not m.group(1):
        return data + b"\n" + value
    dims = m.group(1).split(b"x")[:-1]
    dims[rng.randrange(len(dims))] = value
    return _sub(data, m, b"x".join(dims) + b"x", 1)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate_text(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One mutation of MLIR text: (its name, the mutated bytes)."""
    kind = rng.choice(MLIR_MUTATIONS)
    if kind == "truncate":
        return kind, data[:rng.randrange(len(data))]
    if kind == "byte-flip":
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= rng.choice((1, 2, 4, 8, 16, 32, 64, 128, 255))
        return kind, bytes(b)
    if kind == "invalid-utf8":
        i = rng.randrange(len(data))
        return kind, data[:i] + rng.choice((b"\xff\xfe", b"\xc3", b"\x80\x80", b"\x00")) + data[i:]
    if kind == "unknown-op":
        m = _pick(rng, _OPS, data)
        new = rng.choice((b"linalg.frobnicate", b"arith.bogusf", b"foo.bar", b"tensor.teleport",
                          b"math.sinhcosh"))
        return kind, _sub(data, m, new) if m else data + b"\n" + new
    if kind == "element-type":
        m = _pick(rng, _TYPE, data)
        new = rng.choice((b"f16", b"i32", b"f64", b"bf16", b"i1", b"index"))
        return kind, _sub(data, m, new, 2) if m else data
    if kind == "dim-mismatch":
        m = _pick(rng, _TYPE, data)
        if m is None or not m.group(1):
            return kind, data
        dims = [int(d) for d in m.group(1).split(b"x")[:-1]]
        k = rng.randrange(len(dims))
        dims[k] += rng.choice((1, -1)) if dims[k] > 1 else 1
        return kind, _sub(data, m, b"x".join(str(d).encode() for d in dims) + b"x", 1)
    if kind == "huge-dim":
        return kind, _dims(rng, data, rng.choice((b"4294967296", b"1099511627776", b"99999999999999999999999",
                                                  b"9223372036854775807", b"2147483647")))
    if kind == "negative-dim":
        return kind, _dims(rng, data, rng.choice((b"-1", b"-3", b"-9223372036854775808")))
    if kind == "zero-dim":
        return kind, _dims(rng, data, b"0")
    if kind == "dynamic-dim":
        return kind, _dims(rng, data, b"?")
    if kind == "dangling-value":
        m = _pick(rng, _SSA_USE, data)
        return kind, _sub(data, m, rng.choice((b"%undefined", b"%v999", b"%0#7", b"%"))) if m else data
    if kind == "huge-number":
        m = _pick(rng, _NUMBER, data)
        new = rng.choice((b"99999999999999999999", b"-7", b"0", b"4294967297"))
        return kind, _sub(data, m, new) if m else data
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == "delete-line":
        return kind, b"\n".join(lines[:i] + lines[i + 1:])
    if kind == "duplicate-line":
        return kind, b"\n".join(lines[:i + 1] + lines[i:])
    if kind == "swap-lines":
        lines[i], lines[j] = lines[j], lines[i]
        return kind, b"\n".join(lines)
    if kind == "unbalanced":
        junk = rng.choice((b"{", b"}", b"(", b")", b"[", b"<", b"\"", b"^bb9:"))
        return kind, b"\n".join(lines[:i] + [junk] + lines[i:])
    if kind == "deep-nesting":
        n = rng.choice((1000, 20000, 200000))
        return kind, b"\n".join(lines[:i] + [b"(" * n + b")" * n, b"[" * n] + lines[i:])
    if kind == "empty":
        return kind, rng.choice((b"", b"\n", b"// only a comment\n", b"module {}\n", b"\x00"))
    raise AssertionError(kind)


MLIR_MUTATIONS = ("truncate", "byte-flip", "invalid-utf8", "unknown-op", "element-type", "dim-mismatch",
                  "huge-dim", "negative-dim", "zero-dim", "dynamic-dim", "dangling-value", "huge-number",
                  "delete-line", "duplicate-line", "swap-lines", "unbalanced", "deep-nesting", "empty")
ONNX_MUTATIONS = ("truncate", "byte-flip", "random-bytes", "unknown-op", "dangling-input", "element-type",
                  "huge-dim", "negative-dim", "zero-dim", "symbolic-dim", "bad-initializer", "bad-opset",
                  "cycle", "empty-graph", "drop-attribute", "rank-mismatch")


def mutate_onnx(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One mutation of a serialized ONNX model: (its name, the mutated bytes)."""
    import onnx
    from onnx import TensorProto

    kind = rng.choice(ONNX_MUTATIONS)
    if kind == "truncate":
        return kind, data[:rng.randrange(len(data))]
    if kind == "byte-flip":
        b = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            b[rng.randrange(len(b))] ^= rng.randrange(1, 256)
        return kind, bytes(b)
    if kind == "random-bytes":
        return kind, bytes(rng.randrange(256) for _ in range(rng.choice((1, 7, 64, 1000))))
    m = onnx.ModelProto()
    m.ParseFromString(data)
    g = m.graph
    dims = [d for vi in list(g.input) + list(g.output) for d in vi.type.tensor_type.shape.dim]
    node = rng.choice(list(g.node)) if g.node else None
    if kind == "unknown-op" and node is not None:
        node.op_type = rng.choice(("FancyOp", "Conv3DTranspose9", "", "Relu "))
    elif kind == "dangling-input" and node is not None:
        node.input[rng.randrange(len(node.input))] = "no_such_tensor"
    elif kind == "element-type":
        vi = rng.choice(list(g.input) + list(g.output))
        vi.type.tensor_type.elem_type = rng.choice((TensorProto.INT64, TensorProto.BOOL, TensorProto.STRING,
                                                   TensorProto.DOUBLE, TensorProto.FLOAT16, 0, 999))
    elif kind in ("huge-dim", "negative-dim", "zero-dim", "symbolic-dim") and dims:
        d = rng.choice(dims)
        if kind == "symbolic-dim":
            d.dim_param = rng.choice(("N", "batch", ""))
        else:
            d.dim_value = {"huge-dim": rng.choice((2**31, 2**40, 2**62)), "negative-dim": rng.choice((-1, -5)),
                           "zero-dim": 0}[kind]
    elif kind == "bad-initializer" and g.initializer:
        t = rng.choice(list(g.initializer))
        if t.raw_data:
            t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data))]
        else:
            del t.float_data[rng.randrange(max(1, len(t.float_data))):]
        if rng.random() < 0.3:
            t.dims[0] = t.dims[0] * 3 + 1
    elif kind == "bad-opset":
        m.opset_import[0].version = rng.choice((1, 3, 999, -1))
    elif kind == "cycle" and node is not None and node.output:
        node.input.append(node.output[0])
    elif kind == "empty-graph":
        del g.node[:]
    elif kind == "drop-attribute" and node is not None and node.attribute:
        del node.attribute[rng.randrange(len(node.attribute))]
    elif kind == "rank-mismatch":
        vi = rng.choice(list(g.input))
        vi.type.tensor_type.shape.dim.add().dim_value = rng.choice((1, 3))
    return kind, m.SerializeToString()


@dataclass(frozen=True)
class Case:
    name: str        # file name the input is written as (its suffix selects the importer)
    mutation: str
    data: bytes
    emit: str = "regions"


def corpus(seed: int, count: int, repo: Path | None = None, onnx_share: float = 0.3) -> list[Case]:
    """`count` mutated inputs: a pure function of (seed, count, repo's lit files)."""
    rng = random.Random(seed)
    mlir, onnx_ = mlir_seeds(repo), onnx_seeds()
    cases = []
    for i in range(count):
        crng = random.Random(rng.getrandbits(64))
        if crng.random() < onnx_share:
            name, data = crng.choice(onnx_)
            kind, out = mutate_onnx(data, crng)
        else:
            name, data = crng.choice(mlir)
            kind, out = mutate_text(data, crng)
        emit = "vmfb" if crng.random() < 0.1 else "regions"
        cases.append(Case(f"case{i:05d}-{Path(name).stem}-{kind}{Path(name).suffix}", kind, out, emit))
    return cases


# ---- running ---------------------------------------------------------------------------------------------

_ERROR_LINE = re.compile(r"^(?:(?P<where>.+?): )?error: (?P<what>\S.*)$")
_IR_LOC = re.compile(r":\d+:\d+$")
# Failures of the contract, in the order they are checked.
FAILURES = ("hang", "crash", "traceback", "internal", "multi-line", "partial-output", "no-location")


@dataclass
class Outcome:
    case: Case
    rc: int | None
    stderr: str
    seconds: float
    failure: str | None = None     # one of FAILURES, or None


def check_run(case: Case, rc: int | None, stderr: str, out_path: Path) -> str | None:
    """Which part of the contract a run broke, or None."""
    if rc is None:
        return "hang"
    if rc < 0:
        return "crash"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if rc == 0:
        return None
    if rc == 2:
        return "internal"
    lines = [ln for ln in stderr.splitlines() if ln.strip() and ": warning: " not in ln]
    if rc != 1 or len(lines) != 1 or not _ERROR_LINE.match(lines[0]):
        return "multi-line"
    leftovers = [p for p in out_path.parent.iterdir() if p.name.startswith(out_path.stem)]
    if leftovers:
        return "partial-output"
    if case.name.endswith(".mlir") and _is_ir_error(lines[0]) and not _IR_LOC.search(
            _ERROR_LINE.match(lines[0])["where"] or ""):
        return "no-location"
    return None


def _is_ir_error(line: str) -> bool:
    """An error about the IR's content (so it must say where), not about the file as a whole."""
    whole_file = ("neither UTF-8", "no such file", "not a regular file", "is empty", "no function")
    return not any(w in line for w in whole_file)


def run_case(case: Case, workdir: Path, timeout: float, exe: Sequence[str]) -> Outcome:
    d = Path(tempfile.mkdtemp(dir=workdir))
    src, out = d / case.name, d / ("out.vmfb" if case.emit == "vmfb" else "out.mlir")
    src.write_bytes(case.data)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([*exe, str(src), "-o", str(out), f"--emit={case.emit}"], capture_output=True,
                              timeout=timeout, env={**os.environ, "PYTHONFAULTHANDLER": ""})
        rc, err = proc.returncode, proc.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, err = None, (e.stderr or b"").decode(errors="replace")
    dt = time.perf_counter() - t0
    src.unlink()
    failure = check_run(case, rc, err, out)
    for p in d.iterdir():
        p.unlink()
    d.rmdir()
    return Outcome(case, rc, err, dt, failure)


@dataclass
class MalformedSummary:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failure]

    def text(self) -> str:
        n = len(self.outcomes)
        by_suffix = collections.Counter(Path(o.case.name).suffix for o in self.outcomes)
        rejected = sum(o.rc == 1 for o in self.outcomes)
        accepted = sum(o.rc == 0 for o in self.outcomes)
        fails = collections.Counter(o.failure for o in self.outcomes if o.failure)
        slowest = max((o.seconds for o in self.outcomes), default=0.0)
        return (f"{n} malformed inputs ({by_suffix.get('.mlir', 0)} .mlir, {by_suffix.get('.onnx', 0)} .onnx) in "
                f"{self.seconds:.0f} s: {rejected} rejected with one error line, {accepted} accepted (the "
                f"mutation left a valid input); " + ", ".join(f"{fails.get(k, 0)} {k}" for k in FAILURES)
                + f"; slowest {slowest:.1f} s")

    def by_mutation(self) -> str:
        rows = collections.defaultdict(collections.Counter)
        for o in self.outcomes:
            rows[(Path(o.case.name).suffix, o.case.mutation)][
                "fail" if o.failure else "rejected" if o.rc == 1 else "accepted"] += 1
        return "\n".join(f"  {s:6s}{m:16s} " + " ".join(f"{k} {c[k]}" for k in ("rejected", "accepted", "fail"))
                         for (s, m), c in sorted(rows.items()))


def run_malformed(seed: int, count: int, *, jobs: int = 1, timeout: float = 60.0, repo: Path | None = None,
                  save_dir: Path | None = None, exe: Sequence[str] | None = None,
                  log: Callable[[str], None] = print) -> MalformedSummary:
    """Run the corpus of (seed, count) through `fusion-opt` (by default this interpreter's module, so the
    checked code is the checkout's); failing cases are saved to save_dir with their stderr."""
    exe = list(exe or [sys.executable, "-m", "fusion_opt.cli"])
    cases = corpus(seed, count, repo)
    t0 = time.perf_counter()
    summary = MalformedSummary()
    with tempfile.TemporaryDirectory(prefix="fusion-fuzz-malformed-") as tmp, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for k, o in enumerate(pool.map(lambda c: run_case(c, Path(tmp), timeout, exe), cases), 1):
            summary.outcomes.append(o)
            if o.failure:
                first = (o.stderr.strip().splitlines() or ["(no stderr)"])[-1][:200]
                log(f"  {o.failure}: {o.case.name} (rc {o.rc}): {first}")
                if save_dir is not None:
                    save_dir.mkdir(parents=True, exist_ok=True)
                    (save_dir / o.case.name).write_bytes(o.case.data)
                    (save_dir / (o.case.name + ".stderr")).write_text(f"rc {o.rc}\n{o.stderr}")
            if k % 100 == 0:
                log(f"[{k}/{count}] {time.perf_counter() - t0:.0f} s, {len(summary.failures())} failures")
    summary.seconds = time.perf_counter() - t0
    return summary
