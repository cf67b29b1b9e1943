"""Cost model on hand-written OpDescs (no compiler), target descriptions, and a ResNet-50 smoke check."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from fusion_opt.analysis.opdesc import DataflowGraph, Edge, OpDesc, OpKind
from fusion_opt.cost import (describe_target, estimate, get_target_desc, group_view, list_target_descs, load_json,
                             plan_cost, save_json, unfused_cost, view_of_ops, with_calibration)
from fusion_opt.cost import host as host_mod
from fusion_opt.cost.targets import from_json, to_json


@pytest.fixture(scope="module")
def host():
    return get_target_desc("host")


@pytest.fixture(scope="module")
def h100():
    return get_target_desc("sm_90")


def ew(i, operands, shape, flops_per_elem=1, kind=OpKind.ELEMENTWISE):
    """Elementwise op with identity maps: inputs `operands`, a fresh (tensor.empty) destination."""
    n = len(shape)
    ident = f"({', '.join(f'd{k}' for k in range(n))}) -> ({', '.join(f'd{k}' for k in range(n))})"
    nin = len(operands)
    size = math.prod(shape)
    return OpDesc(i, "linalg.generic", f"t:{i}", kind, tuple(shape), ("parallel",) * n, (ident,) * (nin + 1),
                  (tuple(range(n)),) * (nin + 1), ("f32",) * (nin + 2), (tuple(shape),) * (nin + 1), (tuple(shape),),
                  tuple(operands) + (None,), nin, ("arith.addf",), flops=size * flops_per_elem,
                  bytes_read=4 * size * nin, bytes_written=4 * size)


def matmul(i, a, b, m, n, k, init=None):
    maps = ("(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)")
    return OpDesc(i, "linalg.matmul", f"t:{i}", OpKind.CONTRACTION, (m, n, k), ("parallel", "parallel", "reduction"),
                  maps, ((0, 2), (2, 1), (0, 1)), ("f32",) * 4, ((m, k), (k, n), (m, n)), ((m, n),), (a, b, init), 2,
                  ("arith.mulf", "arith.addf"), flops=2 * m * n * k, bytes_read=4 * (m * k + k * n + m * n),
                  bytes_written=4 * m * n)


def graph(*ops, outputs=()):
    edges = tuple(Edge(p, o.index, pos) for o in ops for pos, p in enumerate(o.operands) if p is not None and p >= 0)
    return DataflowGraph("f", tuple(ops), edges, frozenset(outputs or (ops[-1].index,)))


# --- model ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["host", "sm_90", "cpu-generic", "vulkan"])
def test_epilogue_fusion_saves_a_round_trip_and_a_launch(target):
    t = get_target_desc(target)
    g = graph(matmul(0, -1, -2, 512, 512, 512), ew(1, (0, -3), (512, 512)))
    fused, split = plan_cost(g, [[0, 1]], t), plan_cost(g, [[0], [1]], t)
    assert fused < split
    assert split - fused >= t.launch_s * 0.99
    assert unfused_cost(g, t) == pytest.approx(split)
    both = estimate(group_view(g, [0, 1]), t)
    mm, add = estimate(group_view(g, [0]), t), estimate(group_view(g, [1]), t)
    # The matmul result is neither written by the matmul nor read back by the epilogue.
    assert both.traffic_bytes == mm.traffic_bytes + add.traffic_bytes - 2 * 512 * 512 * 4


@pytest.mark.parametrize("target", ["host", "sm_90"])
def test_large_matmul_is_compute_bound_and_large_add_memory_bound(target):
    t = get_target_desc(target)
    mm = estimate([matmul(0, -1, -2, 4096, 4096, 4096)], t)
    assert mm.bound == "compute" and mm.compute_s > mm.memory_s
    add = estimate([ew(0, (-1, -2), (8192, 8192))], t)
    assert add.bound == "memory" and add.memory_level == "dram"
    assert add.dram_bytes == 3 * 8192 * 8192 * 4


def test_tiny_op_is_launch_bound(host, h100):
    for t in (host, h100):
        c = estimate([ew(0, (-1, -2), (16,))], t)
        assert c.bound == "launch" and c.time_s < 2 * t.launch_s


def test_working_set_that_fits_l2_uses_l2_bandwidth(host):
    l2 = next(c for c in host.caches if c.name == "L2")
    n = int(host.capacity(l2) // (3 * 4))  # two inputs and one output of n f32 fill usable L2
    c = estimate([ew(0, (-1, -2), (n,))], host)
    assert c.memory_level == "L2" and c.dram_bytes == 0
    assert c.memory_s == pytest.approx(3 * n * 4 / host.bandwidth("L2"))
    big = estimate([ew(0, (-1, -2), (64 * n,))], host)
    assert big.memory_level != "L2"


def test_forty_distinct_inputs_spill(host):
    ops = [ew(0, (-1, -2), (1 << 16,))] + [ew(i, (i - 1, -2 - i), (1 << 16,)) for i in range(1, 40)]
    fused = estimate(group_view(graph(*ops), range(40)), host)
    assert fused.spill_s > 0 and fused.live_registers > host.registers
    assert estimate(group_view(graph(*ops), [0]), host).spill_s == 0
    few = estimate(group_view(graph(*ops[:4]), range(4)), host)
    assert few.spill_s == 0


def test_few_tiles_leave_sms_idle_but_not_host_cores(host, h100):
    op = matmul(0, -1, -2, 128, 128, 8192)
    gpu, cpu = estimate([op], h100), estimate([op], host)
    assert gpu.parallelism_factor == pytest.approx(1 / h100.cores)
    assert cpu.parallelism_factor == 1.0
    big = estimate([matmul(0, -1, -2, 4096, 4096, 1024)], h100)
    assert big.parallelism_factor > 0.9


def test_more_flops_more_time(host, h100):
    for t in (host, h100):
        times = [estimate([matmul(0, -1, -2, 256, 256, k)], t).time_s for k in (64, 256, 1024, 4096)]
        assert times == sorted(times) and times[0] < times[-1]
        times = [estimate([ew(0, (-1, -2), (1 << 20,), f)], t).time_s for f in (1, 16, 256)]
        assert times == sorted(times) and times[0] < times[-1]


def test_duplicated_producer_costs_recomputation(host):
    g = graph(ew(0, (-1,), (1 << 20,), 8), ew(1, (0,), (1 << 20,)), ew(2, (0,), (1 << 20,)), outputs=(1, 2))
    plain = estimate(group_view(g, [1]), host)
    dup = estimate(group_view(g, [0, 1], duplicated=[0]), host)
    assert dup.recompute_s > 0 and plain.recompute_s == 0
    assert dup.recompute_s == pytest.approx(8 * (1 << 20) / (host.peak("f32") * host.efficiency_of("elementwise")))
    assert dup.traffic_bytes == plain.traffic_bytes  # the copy reads op 0's input instead of its result


def test_peak_temp_memory(host):
    chain = view_of_ops([ew(0, (-1,), (1024,)), ew(1, (0,), (1024,))])
    assert estimate(chain, host).peak_temp_bytes == 4096  # streamed: only the output
    red = OpDesc(0, "linalg.generic", "t:0", OpKind.REDUCTION, (64, 1024), ("parallel", "reduction"),
                 ("(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"), ((0, 1), (0,)), ("f32",) * 2,
                 ((64, 1024), (64,)), ((64,),), (-1, None), 1, ("arith.maxnumf",), flops=65536)
    bcast = replace(ew(1, (-1, 0), (64, 1024)), kind=OpKind.BROADCAST,
                    operand_shapes=((64, 1024), (64,), (64, 1024)))
    c = estimate(view_of_ops([red, bcast]), host)
    assert c.peak_temp_bytes == 64 * 4 + 64 * 1024 * 4  # the row maxima are kept while broadcast


# --- targets --------------------------------------------------------------------------------------

def test_targets_listed_aliased_and_described():
    names = list_target_descs()
    assert {"host", "cpu-generic", "sm_80", "sm_90", "vulkan"} <= set(names)
    assert get_target_desc("cuda").name == "sm_80" and get_target_desc("llvm-cpu").name == "host"
    h100 = get_target_desc("sm_90")
    assert h100.cores == 132 and h100.peak("bf16", matrix=True) > 10 * h100.peak("f32")
    for n in names:
        assert n in describe_target(get_target_desc(n))
    with pytest.raises(KeyError):
        get_target_desc("tpu")


def test_target_json_round_trip(tmp_path):
    for n in list_target_descs():
        t = get_target_desc(n)
        assert from_json(to_json(t)) == t
        save_json(t, tmp_path / f"{n}.json")
        assert load_json(tmp_path / f"{n}.json") == t
    t = with_calibration(get_target_desc("sm_80"), {"overlap": 0.5, "efficiency": {"contraction": 0.75}})
    assert t.overlap == 0.5 and t.efficiency_of("contraction") == 0.75 and t.efficiency_of("reduction") == 0.5
    assert set(t.calibrated) == {"overlap", "efficiency"}
    with pytest.raises(ValueError):
        with_calibration(t, {"cores": 4})


def test_host_description_is_measured_once_and_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(host_mod, "_MEMO", {})
    before = host_mod.MEASUREMENTS
    first = host_mod.host_target(tmp_path)
    assert host_mod.MEASUREMENTS == before + 1
    assert first.cores >= 1 and first.peak("f32") > 1e9 and first.dram_bw > 1e8
    assert len(list(tmp_path.glob("host-*.json"))) == 1
    host_mod._MEMO.clear()  # a new process: read from the file, no measurement
    assert host_mod.host_target(tmp_path) == first and host_mod.MEASUREMENTS == before + 1
    host_mod.store_calibration({"launch_s": 7e-6}, tmp_path)
    cal = host_mod.host_target(tmp_path)
    assert cal.launch_s == 7e-6 and cal.calibrated == ("launch_s",) and host_mod.MEASUREMENTS == before + 1


# --- ResNet-50 ------------------------------------------------------------------------------------

RESNET = Path(__file__).resolve().parents[2] / (
    ".venv/lib/python3.11/site-packages/onnx/backend/test/data/light/light_resnet50.onnx")


def test_resnet50_greedy_plan_predicted_faster_than_none():
    if not RESNET.is_file():
        pytest.skip("onnx's light_resnet50.onnx is not installed")
    from fusion_opt.analysis.describe import describe_function
    from fusion_opt.fusion import plan
    from fusion_opt.importers import import_onnx
    from fusion_opt.ir import functions, new_session

    sess = new_session()
    module, _ = import_onnx(RESNET, sess.context)
    g, _ = describe_function(functions(module)[0], "resnet50.onnx")
    for name in ("host", "sm_90"):
        t = get_target_desc(name)
        assert plan_cost(g, plan(g, "greedy"), t) < plan_cost(g, plan(g, "none"), t)
