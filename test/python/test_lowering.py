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
from fusion_opt.fusion.control import ControlSpec
from fusion_opt.importers import parse_mlir, split_input
from fusion_opt.ir import new_session
from fusion_opt.pipelines import plan_module, write_regions

LIT = Path(__file__).resolve().parents[2] / "test" / "lit" / "transform"


def matmul_case() -> str:
    return split_input((LIT / "tile-and-fuse.mlir").read_text(), True)[0].text


def regions_with_configs(text: str, mode: str = "cost"):
    s = new_session()
    m = parse_mlir(text, s.context, "t.mlir")
    planned = plan_module(m, "cost", "t.mlir", "host", control=ControlSpec(layout="nchw"))  # convs as written
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
    """If IREE does not use the attached config, compiling with tile_sizes="cost" fails loudly, and the
    compiled model's folder goes with the error (it was left in /tmp: the model owning it was never made)."""
    import tempfile
    from pathlib import Path

    from fusion_opt.backends import lowering

    made: list[Path] = []  # folders this compile makes (not a listing of /tmp: other processes share it)
    real_mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(Path(real_mkdtemp(*a, **k))) or str(made[-1]))

    real = lowering.check_applied
    monkeypatch.setattr(lowering, "check_applied",
                        lambda m, c, t, locs, extra_flags=(): real(
                            m, [dataclasses.replace(x, distribution=(8, 8, 0)) for x in c], t, locs))
    with pytest.raises(CompileError, match="tile sizes not applied"):
        fo.compile_mlir(matmul_case(), target="host", tile_sizes="cost")
    assert made and not any(p.exists() for p in made)


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


CONV_NHWC = """
#c4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_nhwc(%x: tensor<1x18x18x8xf32>, %w: tensor<3x3x8x16xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %r = linalg.generic {indexing_maps = [#c4, #ch, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x16x16x16xf32>, tensor<16xf32>) outs(%e : tensor<1x16x16x16xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %a = arith.addf %v, %s : f32
    %t = arith.maximumf %a, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}
"""


def conv_nchw_case() -> str:
    return (LIT / "strategy-conv-epilogue.mlir").read_text()


def test_conv_config_from_target():
    """Register tiles decompose to 1-D convs (one output row, kh = kw = 1); the contiguous output loop
    gets the f32 lanes (columns in NCHW, channels in NHWC); workgroups take whole rows."""
    from fusion_opt.backends.lowering import conv_config

    host = get_target_desc("host")
    lanes = host.lanes_f32
    _, _, planned, _ = regions_with_configs(conv_nchw_case(), "iree")   # 1x16x14x14 <- 1x8x16x16, 3x3
    conv = next(op for op in planned[0].graph.ops if op.name == "linalg.conv_2d_nchw_fchw")
    cfg = conv_config("f", 0, conv, host)
    assert cfg.pipeline == "ConvTileAndDecomposeExpert"
    assert cfg.vector_parallel[2] == 1 and cfg.vector_reduction[5:] == (1, 1)     # oh, kh, kw
    assert cfg.vector_parallel[3] == max(d for d in range(1, lanes + 1) if 14 % d == 0)   # ow: lanes
    assert cfg.distribution[3] == 14 and cfg.vector_reduction[4] == 8                 # whole rows; c by 8
    _, _, planned, _ = regions_with_configs(CONV_NHWC, "iree")
    conv = next(op for op in planned[0].graph.ops if op.name == "linalg.conv_2d_nhwc_hwcf")
    cfg = conv_config("f", 0, conv, host)
    assert cfg.vector_parallel[1] == 1 and cfg.vector_reduction[4:6] == (1, 1)     # oh, kh, kw
    assert cfg.vector_parallel[3] == min(16, lanes) and cfg.distribution[2] == 16   # f: lanes; whole rows
    matmul = regions_with_configs(matmul_case(), "iree")[2][0].graph.ops[1]
    assert conv_config("f", 0, matmul, host) is None


@pytest.mark.parametrize("text", [conv_nchw_case(), CONV_NHWC], ids=["nchw", "nhwc"])
def test_conv_config_applied_same_numbers(text):
    """The conv root's compilation_info reaches IREE unchanged (checked after compiling) and the
    results match IREE's own tile sizes."""
    base = fo.compile_mlir(text, target="host", layout="nchw")
    tuned = fo.compile_mlir(text, target="host", tile_sizes="cost", layout="nchw")
    [cfg] = tuned.configs
    assert cfg.pipeline == "ConvTileAndDecomposeExpert"
    assert "(ConvTileAndDecomposeExpert)" in tuned.report()
    rng = np.random.default_rng(0)
    from fusion_opt.backends.runtime import load

    args = [rng.standard_normal(s).astype(np.float32) for s, _ in load(base.artifact).inputs]
    np.testing.assert_allclose(tuned(*args), base(*args), rtol=1e-4, atol=1e-4)
