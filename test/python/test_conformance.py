"""fusion-bench conformance: the onnx package's own test cases through compile_onnx, classified against
their reference outputs, in worker processes that may die."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fusion_opt.bench import cli, conformance
from fusion_opt.bench.conformance import _compare, case_names, run_case, sweep


def test_case_names_cover_both_sources_and_filter() -> None:
    names = case_names(["node", "pytorch-operator"], "*")
    assert "node:test_relu" in names and "pytorch-operator:test_operator_add_broadcast" in names
    assert len([n for n in names if n.startswith("node:")]) > 1000
    assert case_names(["node"], "test_softmax_axis_*") == sorted(n for n in names if n.startswith("node:test_softmax_axis_"))
    assert case_names(["simple"], "no_such_case*") == []


def test_compare_tells_pass_from_every_kind_of_mismatch() -> None:
    e = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert _compare([e + 1e-6], [e], 1e-3, 1e-5)["outcome"] == "pass"
    assert "max abs error" in _compare([e + 0.5], [e], 1e-3, 1e-5)["error"]
    assert "shape" in _compare([e.T], [e], 1e-3, 1e-5)["error"]
    assert "outputs" in _compare([e, e], [e], 1e-3, 1e-5)["error"]
    i = np.arange(4, dtype=np.int64)
    assert _compare([i], [i], 1e-3, 1e-5)["outcome"] == "pass"
    assert "1 of 4 elements differ" in _compare([i + (i == 2)], [i], 1e-3, 1e-5)["error"]
    nan = np.array([np.nan, 1.0], np.float32)
    assert _compare([nan], [nan], 1e-3, 1e-5)["outcome"] == "pass"


def test_run_case_passes_rejects_cleanly_and_records_crashes() -> None:
    ok = run_case("pytorch-operator:test_operator_add_broadcast")
    assert ok["outcome"] == "pass", ok
    assert ok["dispatches"] >= 1
    rejected = run_case("node:test_regex_full_match_basic")  # string tensors
    assert rejected["outcome"] == "rejected" and "\n" not in rejected["error"], rejected
    assert run_case("node:no_such_case")["outcome"] == "crash"
    assert run_case("node:test_bernoulli")["outcome"] == "unchecked"  # its reference is one random draw


def test_frozen_shape_inputs_compile_and_unfrozen_ones_are_named() -> None:
    """A Resize whose `scales` is a graph input: refused with a line naming that input (it was "not supported
    with its attributes (mode=nearest)"); frozen to the case's values it compiles and matches."""
    case = "node:test_resize_upsample_scales_nearest_axes_2_3"
    rec = run_case(case)
    assert rec["outcome"] == "rejected" and "graph input 'scales'" in rec["error"], rec
    assert run_case(case, freeze=True)["outcome"] == "pass"
    assert run_case(case)["outcome"] == "rejected"  # freezing copied the cached case, not changed it
    # AffineGrid's `size`, read by its function body through a Slice: the line names the graph input
    rec = run_case("node:test_affine_grid_2d")
    assert rec["outcome"] == "rejected" and "graph input 'size' (through" in rec["error"], rec


@pytest.mark.parametrize("plant", ["ignore-broadcast", "fuse-across-reduction"])
def test_planted_planner_bugs_are_mismatches(plant: str) -> None:
    """The sweep can fail: with a legality rule planted away, onnx's expanded softmax comes out wrong."""
    from fusion_opt import testhooks

    assert run_case("node:test_softmax_axis_1_expanded")["outcome"] == "pass"
    testhooks.plant(plant)
    try:
        rec = run_case("node:test_softmax_axis_1_expanded")
    finally:
        testhooks.plant()
    assert rec["outcome"] == "mismatch", rec


def test_sweep_survives_timeouts_and_keeps_going() -> None:
    recs = list(sweep(["node:test_relu", "node:test_abs"], timeout_s=0.5, jobs=1))
    assert [r["case"] for r in recs] == ["node:test_relu", "node:test_abs"]
    assert all(r["outcome"] == "crash" and "timed out" in r["error"] for r in recs)
    recs = list(sweep(["node:test_relu", "node:no_such_case", "node:test_abs"], jobs=2))
    assert {r["case"]: r["outcome"] for r in recs} == {
        "node:test_relu": "pass", "node:no_such_case": "crash", "node:test_abs": "pass"}


def test_command_writes_json_and_exit_status(tmp_path) -> None:
    out = tmp_path / "c.json"
    assert cli.main(["conformance", "--sources", "node", "--filter", "test_relu", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["counts"] == {"pass": 1} and data["cases"][0]["case"] == "node:test_relu"
    assert cli.main(["conformance", "--sources", "node", "--filter", "no_such_case*"]) == 2
    assert conformance.OUTCOMES == ("pass", "unchecked", "mismatch", "rejected", "crash")
