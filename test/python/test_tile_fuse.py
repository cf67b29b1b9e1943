"""Tile-and-fuse: decisions (pure), the generated script, strategies, errors, and the numeric oracle.

The oracle runs every lit case of test/lit/transform/ (their numeric twins) and seeded random
elementwise/matmul DAGs through IREE, tiled and untiled, and compares the outputs.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from random_dags import random_module

from fusion_opt.cost import get_target_desc
from fusion_opt.errors import PlanError, TransformError
from fusion_opt.fusion.plan import FusionPlan, Group
from fusion_opt.importers import parse_mlir, split_input
from fusion_opt.ir import new_session
from fusion_opt.pipelines import plan_module
from fusion_opt.transforms import oracle
from fusion_opt.transforms.interpreter import ID_ATTR, apply_script, load_script
from fusion_opt.transforms.strategies import list_strategies, strategy_path
from fusion_opt.transforms.tile_fuse import build_script, plan_tilings, tile_and_fuse
from fusion_opt.transforms.tiling import blocked_loops, fusable, plan_tiling, sink_of

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "test" / "lit" / "transform"


def chunks(path: Path) -> list[tuple[str, str]]:
    """(function name, chunk text) of every `// -----` chunk of a lit file."""
    out = []
    for c in split_input(path.read_text(), True):
        m = re.search(r"func\.func @(\w+)", c.text)
        out.append((m.group(1) if m else "?", c.text))
    return out


def planned(text: str, fusion: str = "cost"):
    s = new_session()
    m = parse_mlir(text, s.context, "t.mlir")
    return s, m, plan_module(m, fusion, "t.mlir", "host")


def case(name: str) -> str:
    return dict(chunks(LIT / "tile-and-fuse.mlir"))[name]


# ---- decisions (pure) ------------------------------------------------------------------------------

def test_layernorm_rows_only_and_every_member_fused():
    _, _, [pf] = planned(case("layernorm"))
    [t] = plan_tiling(pf.graph, pf.plan, get_target_desc("host"))
    assert t.tile_sizes == (8, 0)           # the column loop is reduced inside the group: whole
    assert t.fused == (3, 2, 1, 0)          # nearest producer first (reverse topological)
    assert t.left_out == ()
    assert "not tiled (reduced inside the group)" in t.reason


def test_softmax_reduced_loop_found_through_the_op_the_reduction_reads():
    """The sum's reduced loop is linked to the sink's column loop only through exp (exp -> sum)."""
    text = split_input((ROOT / "test" / "lit" / "fusion" / "greedy.mlir").read_text(), True)[2].text
    _, _, [pf] = planned(text)
    g = pf.plan.groups[0]
    sink = sink_of(pf.graph, g.ops)
    assert blocked_loops(pf.graph, fusable(pf.graph, g.ops, sink), sink) == {1}


def test_matmul_tiles_follow_matmul_tile_and_cores():
    _, _, [pf] = planned(case("matmul_bias_relu"))
    host = get_target_desc("host")
    [t] = plan_tiling(pf.graph, pf.plan, host)
    assert t.tile_sizes == (32, 0) and t.fused == (1, 0)
    assert f"matmul_tile^2 = {host.matmul_tile ** 2}" in t.reason


def test_illegal_group_is_refused_before_any_script():
    """A hand-made plan that breaks a legality rule never reaches the interpreter: exp with its two
    consumers but not the add that joins them is a group with two outputs."""
    _, _, [pd] = planned(case("diamond"))
    two_outputs = FusionPlan(pd.plan.function, "greedy", (Group(0, (0, 1, 2), 0, "x"), Group(1, (3,), 3, "x")))
    with pytest.raises(PlanError, match="rule 'single-root'"):
        plan_tiling(pd.graph, two_outputs, get_target_desc("host"))


# ---- script, ids, errors ---------------------------------------------------------------------------

def test_script_round_trip_matches_tile_and_fuse():
    s, m, p = planned(case("chain5"))
    script = build_script(p, plan_tilings(p, "host"), s.context)
    text = str(script)
    s2 = new_session()
    m2 = parse_mlir(case("chain5"), s2.context, "t.mlir")
    tile_and_fuse(m, p, "host", "t.mlir")
    from fusion_opt.ir import ir

    apply_script(m2, ir.Operation.parse(text, source_name="script.mlir", context=s2.context),
                 source_name="t.mlir", script_name="script.mlir")
    assert str(m) == str(m2)
    assert ID_ATTR not in str(m)


def test_interpreter_failure_is_one_line_with_locations(tmp_path):
    bad = ROOT / "test" / "lit" / "inputs" / "transform_invalidated_handle.mlir"
    s = new_session()
    m = parse_mlir(case("diamond"), s.context, "in.mlir")
    with pytest.raises(TransformError) as e:
        apply_script(m, load_script(str(bad), s.context), source_name="in.mlir", script_name=str(bad))
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{bad}:7:16: error: transform failed: op uses a handle invalidated")
    assert re.search(r"\(payload op at in\.mlir:\d+:\d+\)$", msg)


def test_strategy_library_is_listed():
    assert list_strategies() == ["conv_epilogue", "elementwise_chain", "matmul_epilogue", "reduction_elementwise"]
    assert strategy_path("matmul_epilogue").name == "matmul_epilogue.mlir"


# ---- numeric oracle --------------------------------------------------------------------------------

def assert_all_ok(checks):
    assert checks, "nothing compared"
    bad = [c for c in checks if not c.ok]
    assert not bad, bad


TILE_AND_FUSE_CASES = [name for name, _ in chunks(LIT / "tile-and-fuse.mlir")]


@pytest.mark.parametrize("name", TILE_AND_FUSE_CASES)
def test_oracle_tile_and_fuse_lit_cases(name):
    assert_all_ok(oracle.check_tile_and_fuse(case(name)))


def test_oracle_emit_transform_module():
    """Two functions in one module (ids across functions), tiled by the plan's script."""
    assert_all_ok(oracle.check_tile_and_fuse((LIT / "emit-transform.mlir").read_text()))


STRATEGY_CASES = [(strategy, name, text)
                  for strategy in ("matmul_epilogue", "conv_epilogue", "reduction_elementwise", "elementwise_chain")
                  for name, text in chunks(LIT / f"strategy-{strategy.replace('_', '-')}.mlir")]


@pytest.mark.parametrize("strategy,name,text", STRATEGY_CASES, ids=[f"{s}-{n}" for s, n, _ in STRATEGY_CASES])
def test_oracle_strategies(strategy, name, text):
    assert_all_ok(oracle.check_script(text, str(strategy_path(strategy))))


@pytest.mark.parametrize("seed", [0, 1])
def test_oracle_random_dags(seed):
    """Seeded random elementwise/matmul DAGs (multi-consumer producers, second outputs), planned by
    the cost model, tiled and fused: all in one module, so two compiles per seed."""
    assert_all_ok(oracle.check_tile_and_fuse(random_module(seed, 12)))


def test_oracle_catches_a_wrong_transform():
    """The oracle is not vacuous: a transform that changes a constant is caught."""
    from fusion_opt.ir import ir

    def break_relu(m):
        def visit(op):
            if op.name == "arith.constant" and str(op.attributes["value"]).startswith("0.0"):
                op.attributes["value"] = ir.FloatAttr.get_f32(0.5, context=m.context)
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)

    checks = oracle.check_transform(case("matmul_bias_relu"), break_relu)
    assert len(checks) == 1 and not checks[0].ok and checks[0].max_abs > 0.1
