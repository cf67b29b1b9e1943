"""User control (fusion/control.py) on hand-written graphs: matchers, pin validation, the stop-gap
`obey` rebuild, and the constraint check every plan goes through. No compiler needed."""
from __future__ import annotations

import pytest

from fusion_opt.analysis.opdesc import DataflowGraph, Edge, OpDesc, OpKind
from fusion_opt.errors import InputError, PlanError
from fusion_opt.fusion import plan
from fusion_opt.fusion.constraints import Constraints
from fusion_opt.fusion.control import ControlSpec, matches, obey, split_matchers, violations


def chain(*kinds: OpKind, diamond: bool = False, loc: str = "x.mlir:{}:3") -> DataflowGraph:
    """A chain of elementwise-sized ops; with `diamond`, op 0 also feeds the last op directly."""
    ops, edges = [], []
    for i, k in enumerate(kinds):
        operands = (i - 1,) if i else (-1,)
        if diamond and i == len(kinds) - 1:
            operands = (i - 1, 0)
        name = {OpKind.CONTRACTION: "linalg.matmul"}.get(k, "linalg.generic")
        ops.append(OpDesc(index=i, name=name, loc=loc.format(i + 1), kind=k, operands=operands,
                          result_shapes=((8, 8),), loop_ranges=(8, 8), num_dps_inputs=len(operands), flops=64))
        edges += [Edge(p, i, k2) for k2, p in enumerate(operands) if p >= 0]
    return DataflowGraph("f", tuple(ops), tuple(edges), frozenset({len(ops) - 1}))


E, R = OpKind.ELEMENTWISE, OpKind.REDUCTION


def test_matchers():
    g = chain(E, OpKind.CONTRACTION, loc="/abs/dir/x.mlir:{}:3")
    mm = g.ops[1]
    assert matches("x.mlir:2", mm) and matches("dir/x.mlir:2:3", mm) and matches("/abs/dir/x.mlir:2:3", mm)
    assert not matches("x.mlir:2:4", mm) and not matches("y.mlir:2", mm) and not matches("x.mlir:1", mm)
    assert matches("linalg.matmul", mm) and matches("*mat*", mm) and not matches("*conv*", mm)
    onnx = chain(E, loc="Conv_{}")
    assert matches("Conv_1", onnx.ops[0]) and matches("Conv_*", onnx.ops[0])
    assert split_matchers(["a, b", ["c", "d,e"]]) == [("a", "b"), ("c", "d", "e")]


def test_source_name_matches_a_generic_of_mlir_input():
    """A generic normalization made of `linalg.map` matches by that name and by its own, nothing else."""
    from dataclasses import replace
    op = replace(chain(E).ops[0], attrs=(("source_op", "linalg.map"),))
    assert matches("linalg.map", op) and matches("linalg.m*", op) and matches("linalg.generic", op)
    assert not matches("linalg.map", chain(E).ops[0]) and not matches("arith.*", op)
    with pytest.raises(InputError, match=r"linalg.broadcast ops of .mlir input are folded"):
        spec = ControlSpec.from_options(no_fuse=["linalg.broadcast"])
        spec.resolve(chain(E))
        spec.check_matched()


def test_unmatched_is_an_error():
    spec = ControlSpec.from_options(fuse=["x.mlir:1,nothing.mlir:9"])
    spec.resolve(chain(E, E))
    with pytest.raises(InputError, match="--fuse matcher 'nothing.mlir:9' matches no op"):
        spec.check_matched()
    with pytest.raises(InputError):
        ControlSpec.from_options(max_fusions=-1)


def test_cycle_pin_names_rule_and_ops_at_first_op():
    g = chain(E, E, E, diamond=True)  # 0 -> 1 -> 2 and 0 -> 2: pinning {0, 2} leaves 1 outside
    with pytest.raises(PlanError) as err:
        ControlSpec.from_options(fuse=["x.mlir:1,x.mlir:3"]).resolve(g)
    assert err.value.where == "x.mlir:1:3"
    assert "rule 'cycle'" in err.value.message and "op 1 (linalg.generic at x.mlir:2:3)" in err.value.message


def test_pin_and_barrier_conflict():
    with pytest.raises(PlanError, match="rule 'barrier'"):
        ControlSpec.from_options(fuse=["x.mlir:1,x.mlir:2"], no_fuse=["x.mlir:2"]).resolve(chain(E, E))


def test_ir_tags_pin():
    c = ControlSpec().resolve(chain(E, E, E), tags={0: "t", 1: "t"})
    assert c.pins == (frozenset({0, 1}),)


@pytest.mark.parametrize("strategy", ["none", "greedy", "cost"])
def test_plans_obey_pins_barriers_and_cap(strategy):
    g = chain(E, E, E, E)
    for c in (Constraints(pins=(frozenset({1, 2}),)), Constraints(barriers=frozenset({2})),
              Constraints(max_fusions=0), Constraints(max_fusions=1)):
        p = plan(g, strategy, constraints=c)
        assert violations(p, c) == [], (strategy, c)
        assert sorted(i for grp in p.groups for i in grp.ops) == [0, 1, 2, 3]
        if c.max_fusions is not None:
            assert len(p.groups) >= 4 - c.max_fusions


def test_obey_rebuilds_a_plan_that_ignored_constraints():
    g = chain(E, E, E, E)
    fused = plan(g, "greedy")
    assert len(fused.groups) == 1
    for c, groups in ((Constraints(max_fusions=0), 4), (Constraints(max_fusions=2), 2),
                      (Constraints(barriers=frozenset({1})), 3)):
        p = obey(fused, g, c)
        assert violations(p, c) == [] and len(p.groups) == groups, (c, p.groups)
        cut = [d for d in p.decisions if not d.fused]
        assert cut and all(d.reason.startswith("refused:") for d in cut)
