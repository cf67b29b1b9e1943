"""Reliability tooling: random Linalg graphs checked against a float64 reference, malformed inputs,
planted planner bugs and injected compile faults (`fusion-bench fuzz`, docs/reliability.md).

Why in the package rather than under test/: `fusion-bench fuzz` runs the same generator and checks
as the pytest suite, so a figure in the docs is a command anyone can rerun, and a failing seed seen
in CI reproduces with `fusion-bench fuzz --seed S --count 1`.

    ops.py          op kinds: MLIR text and float64 reference with an f32 error bound
    graph.py        a graph of ops as one `func.func`, its inputs and reference outputs
    generate.py     seeded random graphs covering the shapes fusion bugs hide in
    differential.py compile with each fusion mode, run, compare; batching, findings
    shrink.py       delta-debug a failing graph down to a minimal reproducer
    malformed.py    mutated .mlir/.onnx inputs run through `fusion-opt`: one error line, no crash
    command.py      the `fusion-bench fuzz` subcommand
"""
