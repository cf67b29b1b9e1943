"""The cost-driven planner: merges only when predicted time drops, and says so in every decision."""
from __future__ import annotations

import re

import pytest

from fusion_opt.analysis.describe import describe_function
from fusion_opt.cost import get_target_desc, plan_cost
from fusion_opt.fusion import plan
from fusion_opt.importers import parse_mlir
from fusion_opt.ir import functions, new_session

PRED = re.compile(r"predicted ([\d.]+)(us|ms) apart -> ([\d.]+)(us|ms) fused")


def _secs(v: str, unit: str) -> float:
    return float(v) * (1e-6 if unit == "us" else 1e-3)


def wide_add(name: str, n: int, inputs: list[str], shape: str = "256x256") -> tuple[str, str]:
    """A generic summing `n` tensors: many live vector registers per iteration."""
    t = f"tensor<{shape}xf32>"
    ids = ", ".join(["#id"] * (n + 1))
    args = "".join(f"%a{i}: f32, " for i in range(n))
    body = "\n".join(f"    %s{i} = arith.addf %s{i - 1}, %a{i} : f32" for i in range(1, n))
    ins = ", ".join(inputs)
    return name, (f"  %{name} = linalg.generic {{indexing_maps = [{ids}], iterator_types = [\"parallel\", \"parallel\"]}}\n"
                  f"      ins({ins} : {', '.join([t] * n)}) outs(%e : {t}) {{\n"
                  f"  ^bb0({args}%o: f32):\n    %s0 = arith.addf %a0, %o : f32\n{body}\n"
                  f"    linalg.yield %s{n - 1} : f32\n  }} -> {t}\n")


def spill_module(n: int) -> str:
    """producer = sum of n args; consumer = producer + sum of n other args."""
    t = "tensor<256x256xf32>"
    params = ", ".join(f"%x{i}: {t}" for i in range(2 * n))
    _, p = wide_add("p", n, [f"%x{i}" for i in range(n)])
    _, c = wide_add("c", n + 1, ["%p"] + [f"%x{i}" for i in range(n, 2 * n)])
    return (f"#id = affine_map<(d0, d1) -> (d0, d1)>\nfunc.func @spill({params}) -> {t} {{\n"
            f"  %e = tensor.empty() : {t}\n{p}{c}  return %c : {t}\n}}\n")


def graph_of(text: str):
    s = new_session()
    m = parse_mlir(text, s.context, "t.mlir")
    return describe_function(functions(m)[0], "t.mlir")[0]


@pytest.mark.parametrize("target", ["cpu-generic", "sm_90"])
def test_fused_decisions_record_predicted_drop(target: str) -> None:
    g = graph_of(spill_module(2))
    p = plan(g, "cost", get_target_desc(target))
    fused = [d for d in p.decisions if d.fused and "predicted" in d.reason]
    assert fused, p.decisions
    for d in fused:
        apart, unit_a, merged, unit_m = PRED.search(d.reason).groups()
        assert _secs(merged, unit_m) < _secs(apart, unit_a), d.reason
    assert all(g_.predicted_s is not None and g_.bound for g_ in p.groups)


def test_register_pressure_makes_fusion_unprofitable() -> None:
    """Two sums of 12 tensors each fit 16 vector registers alone; fused they keep ~25 vectors live
    and spill on every iteration, which costs more than the saved round trip of the intermediate.
    The cost planner keeps them apart where greedy (no cost gate) fuses them."""
    t = get_target_desc("cpu-generic")
    small, wide = graph_of(spill_module(2)), graph_of(spill_module(12))
    assert len(plan(small, "cost", t).groups) == 1          # no spill: fusion pays
    p = plan(wide, "cost", t)
    assert len(p.groups) == 2
    refused = [d for d in p.decisions if not d.fused]
    assert refused and refused[0].reason.startswith("refused: unprofitable")
    apart, ua, merged, um = PRED.search(refused[0].reason).groups()
    assert _secs(merged, um) > _secs(apart, ua)
    assert len(plan(wide, "greedy").groups) == 1


@pytest.mark.parametrize("target", ["host", "cpu-generic", "sm_80", "sm_90", "vulkan"])
def test_cost_plan_never_predicted_worse_than_unfused(target: str, resnet50_graph) -> None:
    t = get_target_desc(target)
    g = resnet50_graph
    cost, none = plan(g, "cost", t), plan(g, "none", t)
    assert plan_cost(g, cost, t) <= plan_cost(g, none, t)
    assert cost.predicted_s == pytest.approx(sum(x.predicted_s for x in cost.groups))
