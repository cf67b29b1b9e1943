"""Codegen strategies (passes/codegen/llvm_cpu.mlir through --iree-codegen-transform-dialect-library):
which dispatches IREE hands to which sequence, and that each compiles to the same numbers as IREE's
own pipelines. The inputs are the strategy library's lit cases (test/lit/transform/strategy-*.mlir)."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.api import FallbackWarning
from fusion_opt.backends.compile import split_global_flags
from fusion_opt.backends.lowering import dispatch_pipelines
from fusion_opt.errors import UnsupportedError
from fusion_opt.importers import parse_mlir, split_input
from fusion_opt.ir import new_session
from fusion_opt.transforms.strategies import applied_strategies, codegen_flags, list_strategies

LIT = Path(__file__).resolve().parents[2] / "test" / "lit" / "transform"

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


def lit_chunks(name: str) -> list[str]:
    return [c.text for c in split_input((LIT / name).read_text(), True)]


def layernorm_rank3() -> str:
    """The lit layernorm with a batch loop in front (rank 3: the @codegen_reduction_elementwise3 sequence)."""
    text = lit_chunks("strategy-reduction-elementwise.mlir")[1]
    text = text.replace("affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(b, d0, d1) -> (b, d0, d1)>")
    text = text.replace("affine_map<(d0, d1) -> (d0)>", "affine_map<(b, d0, d1) -> (b, d0)>")
    text = text.replace("affine_map<(d0, d1) -> (d1)>", "affine_map<(b, d0, d1) -> (d1)>")
    text = text.replace('["parallel", "reduction"]', '["parallel", "parallel", "reduction"]')
    text = text.replace('["parallel", "parallel"]', '["parallel", "parallel", "parallel"]')
    return text.replace("16x64xf32", "2x16x64xf32").replace("tensor<16xf32>", "tensor<2x16xf32>")


CASES = [  # (id, module, strategy every dispatch of the module must get)
    ("matmul_bias_relu", lit_chunks("strategy-matmul-epilogue.mlir")[0], "codegen_matmul_epilogue"),
    ("mlp2", lit_chunks("strategy-matmul-epilogue.mlir")[1], "codegen_matmul_epilogue"),
    ("conv_nhwc", CONV_NHWC, "codegen_conv_nhwc_epilogue"),
    ("softmax", lit_chunks("strategy-reduction-elementwise.mlir")[0], "codegen_reduction_elementwise2"),
    ("layernorm", lit_chunks("strategy-reduction-elementwise.mlir")[1], "codegen_reduction_elementwise2"),
    ("layernorm3", layernorm_rank3(), "codegen_reduction_elementwise3"),
    ("chain5", lit_chunks("strategy-elementwise-chain.mlir")[0], "codegen_elementwise2"),
]


def inputs(model: fo.CompiledModel, seed: int = 0) -> list[np.ndarray]:
    from fusion_opt.backends.runtime import load

    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for shape, _ in load(model.artifact).inputs]


@pytest.mark.parametrize("text,strategy", [(t, s) for _, t, s in CASES], ids=[c for c, _, _ in CASES])
def test_strategy_applied_and_same_numbers(text, strategy):
    """IREE compiles every dispatch of the module with the strategy (read back from its
    executable-configurations), and the results match IREE's own pipelines."""
    base = fo.compile_mlir(text, target="host")
    tuned = fo.compile_mlir(text, target="host", codegen_strategies=True)
    assert tuned.strategies and all(s == strategy for _, s in tuned.strategies), tuned.strategies
    assert len(tuned.strategies) == tuned.dispatch_count and tuned.strategies_dropped is None
    assert f"-> @{strategy}" in tuned.report()
    args = inputs(base)
    np.testing.assert_allclose(tuned(*args), base(*args), rtol=1e-4, atol=1e-5)


def test_translation_info_in_executable_configurations():
    """The check reads what IREE itself will use: the dispatch function's translation_info names the
    transform_dialect_codegen pipeline and the library sequence."""
    s = new_session()
    m = parse_mlir(CASES[0][1], s.context, "t.mlir")
    [(fn, ti)] = dispatch_pipelines(m, "host", codegen_flags("host"))
    assert re.fullmatch(r"#iree_codegen\.translation_info<pipeline = #iree_codegen\.transform_dialect_codegen "
                        r"codegen_spec = @codegen_matmul_epilogue>", ti), ti
    assert applied_strategies([(fn, ti)]) == [(fn, "codegen_matmul_epilogue")]
    [(_, default)] = dispatch_pipelines(m, "host")
    assert "DoubleTilingExpert" in default


def test_nchw_conv_is_left_to_iree():
    """NCHW convs miscompile or crawl with the transform path in 3.13 (see the library): IREE keeps them."""
    text = lit_chunks("strategy-conv-epilogue.mlir")[0]
    tuned = fo.compile_mlir(text, target="host", codegen_strategies=True, layout="nchw")
    assert tuned.strategies == () and tuned.strategies_dropped is None
    base = fo.compile_mlir(text, target="host", layout="nchw")
    args = inputs(base)
    np.testing.assert_allclose(tuned(*args), base(*args), rtol=1e-4, atol=1e-5)


TWO_RESULTS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_results(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %e = tensor.empty() : tensor<64x256xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.sqrt %v : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  return %a, %b : tensor<64x256xf32>, tensor<64x256xf32>
}
"""


def test_multi_result_dispatch_is_left_to_iree():
    """One dispatch storing two results does not match (the sequences tile the one op that is stored)."""
    tuned = fo.compile_mlir(TWO_RESULTS, target="host", codegen_strategies=True)
    assert tuned.dispatch_count == 1 and tuned.strategies == () and tuned.strategies_dropped is None


def test_partial_tiles_drop_the_strategies_with_a_warning():
    """100x90: the 32x32 workgroup tiles do not divide it; IREE 3.13 then fails ('memref.alloca' op all
    stack allocations need to be hoisted...), and the module is compiled as without the option."""
    text = CASES[0][1].replace("64x128", "100x50").replace("128x96", "50x90").replace("64x96", "100x90")
    text = text.replace("tensor<96xf32>", "tensor<90xf32>")
    with pytest.warns(FallbackWarning, match="codegen strategies not used"):
        tuned = fo.compile_mlir(text, target="host", codegen_strategies=True)
    assert tuned.strategies == () and "stack allocations" in tuned.strategies_dropped
    assert "codegen strategies not used" in tuned.report()
    base = fo.compile_mlir(text, target="host")
    args = inputs(base)
    np.testing.assert_allclose(tuned(*args), base(*args), rtol=1e-4, atol=1e-5)


def test_cost_tile_sizes_win_over_strategies():
    """An op carrying a compilation_info is skipped by the kernel config: the config is applied (the
    post-compile check passes) and that dispatch gets no strategy."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        m = fo.compile_mlir(CASES[0][1], target="host", tile_sizes="cost", codegen_strategies=True)
    assert len(m.configs) == 1 and m.strategies == ()


def test_library_flag_is_process_global_and_cpu_only():
    """A compiler session refuses the flag (it is a global LLVM option), so compiles that carry it are
    finished by iree-compile; GPU targets are refused up front."""
    from fusion_opt.errors import CompileError
    from fusion_opt.backends.compile import _private_copy
    from fusion_opt.backends.targets import get_target

    [flag] = codegen_flags("host")
    assert flag.startswith("--iree-codegen-transform-dialect-library=")
    assert flag.endswith("codegen/llvm_cpu.mlir@__kernel_config")
    assert split_global_flags(("--a", flag)) == (("--a",), (flag,))
    s = new_session()
    m = parse_mlir(CASES[0][1], s.context, "t.mlir")
    with pytest.raises(CompileError, match="option not found: iree-codegen-transform-dialect-library"):
        _private_copy(m, get_target("host"), (flag,), "t.mlir")
    with pytest.raises(UnsupportedError, match="llvm-cpu only"):
        codegen_flags("sm_80")
    assert "codegen" not in list_strategies()  # a sub-folder: not a --strategy


def test_broken_library_is_an_error(tmp_path, monkeypatch):
    """iree-compile reports a library that does not parse but exits 0 and ignores it: we do not."""
    from fusion_opt.errors import CompileError
    from fusion_opt.backends.compile import compile_module

    (tmp_path / "codegen").mkdir()
    broken = "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @__kernel_config(\n}\n"
    (tmp_path / "codegen" / "llvm_cpu.mlir").write_text(broken)
    monkeypatch.setenv("FUSION_OPT_PASSES", str(tmp_path))
    s = new_session()
    m = parse_mlir(CASES[0][1], s.context, "t.mlir")
    with pytest.raises(CompileError):
        compile_module(m, None, "host", codegen_flags("host"), count_dispatches=False)


def test_cli_codegen_strategies(tmp_path):
    from fusion_opt.cli import main

    src = tmp_path / "m.mlir"
    src.write_text(CASES[3][1])
    out = tmp_path / "m.vmfb"
    assert main([str(src), "--emit=vmfb", "--codegen-strategies", "-o", str(out)]) == 0 and out.stat().st_size
    assert main([str(src), "--codegen-strategies"]) == 1
