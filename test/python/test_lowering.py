"""Tile sizes to IREE (backends/lowering.py): chosen configs, attached, applied, and checked."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.backends.lowering import (apply_tile_sizes, check_applied, contraction_config, op_locations)
from fusion_opt.cost import get_target_desc
from fusion_opt.errors import CompileError
from fusion_opt.importers import parse_mlir, split_input
from fusion_opt.ir import new_session
from fusion_opt.pipelines import plan_module, write_regions

LIT = Path(__file__).resolve().parents[2] / "test" / "lit" / "transform"


def matmul_case() -> str:
    return split_input((LIT / "tile-and-fuse.mlir").read_text(), True)[0].text


def regions_with_configs(text: str, mode: str = "cost"):
    s = new_session()
    m = parse_mlir(text, s.context, "t.mlir")
    planned = plan_module(m, "cost", "t.mlir", "host")
    write_regions(planned)
    return s, m, planned, apply_tile_sizes(planned, mode, "host")


def test_contraction_config_from_target():
    _, _, planned, _ = regions_with_configs(matmul_case(), "iree")
    pf = planned[0]
    host = get_target_desc("host")
    cfg = contraction_config("f", 0, pf.graph.ops[1], host)  # 64x32 output, K = 128
    assert cfg.distribution == (32, 32, 0)                  # split so both cores get a workgroup
    assert cfg.vector_parallel == (8, host.lanes_f32, 0) and cfg.vector_reduction == (0, 0, 1)
    assert cfg.lowering_config() == ("#iree_cpu.lowering_config<distribution = [32, 32, 0], vector_common_parallel"
                                     f" = [8, {host.lanes_f32}, 0], vector_reduction = [0, 0, 1]>")
    assert contraction_config("f", 0, pf.graph.ops[2], host) is None   # the epilogue is no contraction


def test_iree_mode_attaches_nothing():
    _, m, _, configs = regions_with_configs(matmul_case(), "iree")
    assert configs == [] and "compilation_info" not in str(m)


def test_attached_config_is_applied_and_a_wrong_one_is_caught():
    _, m, planned, configs = regions_with_configs(matmul_case())
    assert len(configs) == 1 and "compilation_info" in str(m)
    locs = op_locations(planned)
    assert check_applied(m, configs, "host", locs) == []
    other = dataclasses.replace(configs[0], distribution=(16, 16, 0))   # not what was attached
    [problem] = check_applied(m, [other], "host", locs)
    assert "dropped by IREE" in problem and "distribution = [32, 32, 0]" in problem


def test_compile_with_cost_tile_sizes_same_numbers_and_report():
    text = matmul_case()
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in [(64, 128), (128, 32), (32,)]]
    base = fo.compile_mlir(text, target="host")
    tuned = fo.compile_mlir(text, target="host", tile_sizes="cost")
    np.testing.assert_allclose(tuned(*args), base(*args), rtol=1e-5, atol=1e-5)
    assert len(tuned.configs) == 1 and not base.configs
    assert re.search(r"tile config \(applied\): @matmul_bias_relu group 0 op 1 .*distribution \[32, 32, 0\]",
                     tuned.report())


def test_unknown_tile_size_mode():
    with pytest.raises(ValueError, match="unknown tile-size mode"):
        regions_with_configs(matmul_case(), "fast")


def test_dropped_config_is_a_compile_error(monkeypatch):
    """If IREE does not use the attached config, compiling with tile_sizes="cost" fails loudly."""
    from fusion_opt.backends import lowering

    real = lowering.check_applied
    monkeypatch.setattr(lowering, "check_applied",
                        lambda m, c, t, locs, extra_flags=(): real(
                            m, [dataclasses.replace(x, distribution=(8, 8, 0)) for x in c], t, locs))
    with pytest.raises(CompileError, match="tile sizes not applied"):
        fo.compile_mlir(matmul_case(), target="host", tile_sizes="cost")


@pytest.mark.parametrize("target,backend", [("sm_80", "cuda"), ("vulkan", "spirv")])
def test_gpu_configs_are_applied_compile_only(target, backend):
    """No GPU here: the configs are checked at executable-configurations and the module compiled."""
    from fusion_opt.backends.compile import compile_module

    text = (LIT / "tile-sizes.mlir").read_text()
    s = new_session()
    m = parse_mlir(text, s.context, "t.mlir")
    planned = plan_module(m, "cost", "t.mlir", target)
    write_regions(planned)
    [cfg] = apply_tile_sizes(planned, "cost", target)
    assert cfg.backend == backend
    assert check_applied(m, [cfg], target, op_locations(planned)) == []
    assert compile_module(m, None, target, count_dispatches=False).vmfb
