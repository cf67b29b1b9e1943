"""A group IREE cannot compile falls back to IREE's own fusion: the compile says so and stays correct."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.backends import fallback
from fusion_opt.backends.compile import compile_module as real_compile
from fusion_opt.errors import CompileError

TEXT = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
"""


def test_rejected_group_is_left_to_iree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the first compile fails at group 0's dispatch, as IREE reports codegen errors."""
    calls = []

    def flaky(module, *args, **kwargs):
        calls.append(str(module))
        if len(calls) == 1:
            raise CompileError("'func.func' op exceeded stack allocation limit",
                               'loc(callsite("fusion_group_0"("t.mlir":6:8) at "t.mlir":2:1))')
        return real_compile(module, *args, **kwargs)

    monkeypatch.setattr(fallback, "compile_module", flaky)
    with pytest.warns(fo.FallbackWarning, match="group 0 failed to compile"):
        m = fo.compile_mlir(TEXT, fusion="cost")
    assert "flow.dispatch.region" in calls[0] and "flow.dispatch.region" not in calls[1]
    assert [f.group for f in m.fallbacks] == [0]
    assert "fallback: group 0" in m.report()
    x = np.random.default_rng(1).standard_normal((128, 128)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((128, 128)).astype(np.float32) / 8
    np.testing.assert_allclose(m(x, w), np.tanh(x @ w), rtol=1e-4, atol=1e-5)


def test_failure_naming_no_group_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(module, *args, **kwargs):
        raise CompileError("something unrelated", "t.mlir:1:1")

    monkeypatch.setattr(fallback, "compile_module", broken)
    with pytest.raises(CompileError, match="something unrelated"):
        fo.compile_mlir(TEXT, fusion="cost")


def _unattributed(when):
    """A compile_module that fails, at a location no group holds, while `when(module, flags)` holds (IREE
    3.13 on torchvision's ConvNeXt: a data-tiled `map_store` it cannot distribute)."""
    calls: list[tuple[str, tuple[str, ...]]] = []

    def compile_module(module, session, target, extra_flags=(), *args, **kwargs):
        calls.append((str(module), tuple(extra_flags)))
        if when(str(module), tuple(extra_flags)):
            raise CompileError("'iree_linalg_ext.map_store' op write affecting operations on global resources "
                               "are restricted to workgroup distributed contexts.", "t.mlir:999:11")
        return real_compile(module, session, target, extra_flags, *args, **kwargs)
    return compile_module, calls


def _check_numerics(m: fo.CompiledModel) -> None:
    x = np.random.default_rng(1).standard_normal((128, 128)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((128, 128)).astype(np.float32) / 8
    np.testing.assert_allclose(m(x, w), np.tanh(x @ w), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fails_while,warned,steps", [
    ("regions", "groups left to IREE's own fusion", [(None, True)]),             # the plan goes first
    ("data-tiling", "compiled without --iree-opt-data-tiling", [(None, True), (None, False)]),
])
def test_unattributed_failure_hands_groups_back_then_drops_levers(monkeypatch: pytest.MonkeyPatch, fails_while: str,
                                                                  warned: str, steps: list) -> None:
    when = (lambda text, flags: "flow.dispatch.region" in text) if fails_while == "regions" else \
        (lambda text, flags: "--iree-opt-data-tiling" in flags)
    broken, calls = _unattributed(when)
    monkeypatch.setattr(fallback, "compile_module", broken)
    with pytest.warns(fo.FallbackWarning, match=warned):
        m = fo.compile_mlir(TEXT, fusion="cost")
    assert len(calls) == len(steps) + 1 and "flow.dispatch.region" not in calls[1][0]
    assert [(f.group, f.unwrapped_all) for f in m.fallbacks] == steps
    assert ("--iree-opt-data-tiling" in m.artifact.flags) == (fails_while == "regions")  # levers kept if they can be
    _check_numerics(m)


def test_an_iree_crash_is_a_fallback_not_the_callers_death(monkeypatch: pytest.MonkeyPatch) -> None:
    """IREE 3.13's flow phase segfaults on a data-tiled 5x1 by 1x5 product (onnx's windowed-attention
    expansion; `data_tileable` now refuses N or K of 1). With that refusal taken away in the planning
    process, the compile's child process dies; the caller gets a fallback and the right numbers, and the
    dead child's temporary files are gone with its folder."""
    import tempfile
    from fusion_opt.backends import levers
    from fusion_opt.bench.conformance import _load_case
    from fusion_opt.cost import model

    def old_data_tileable(op):  # before N/K = 1 was refused
        dims = model.matmul_dims(op)
        return dims is not None and not dims[0] and len(dims[2]) == len(dims[3]) == 1 and \
            (len(dims[1]) == 1 or model.loops_collapse(op, dims[1]))

    monkeypatch.setattr(model, "data_tileable", old_data_tileable)
    monkeypatch.setattr(levers, "packing_pays", lambda op: True)  # a 5x1x5 product is not worth packing now
    params_dirs = lambda: set(Path(tempfile.gettempdir()).glob("fusion-opt-params-*"))  # noqa: E731
    before = params_dirs()
    proto, ins, outs, _, _ = _load_case("node:test_attention_bidirectional_window_expanded")
    with pytest.warns(fo.FallbackWarning, match=r"IREE's compiler crashed \(signal SIG"):
        m = fo.compile_onnx(proto)
    assert [(f.group, f.unwrapped_all) for f in m.fallbacks] == [(None, True)]
    np.testing.assert_allclose(m(*ins), outs[0], atol=1e-6)
    assert params_dirs() <= before


def test_group_whose_ops_iree_also_fails_to_fuse_is_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real IREE 3.13 failure, the one legality rule `packed-epilogues` keeps out (switched off here):
    the pinned matmul + GELU + square group fails codegen, and so does IREE's own formation of its loose
    ops (the same dispatch). The group is then split into one region per op, with data tiling kept,
    instead of handing IREE every group and then compiling without data tiling."""
    from math import erf

    from fusion_opt.fusion import legality

    monkeypatch.setattr(legality, "DISABLED_RULES", {"packed-epilogues"})
    lit = Path(__file__).resolve().parents[1] / "lit" / "legality" / "packed-epilogues-illegal.mlir"
    text = lit.read_text().replace("  // expected-error @+1 {{rule 'packed-epilogues'}}\n", "")
    with pytest.warns(fo.FallbackWarning, match="each op compiled as a dispatch of its own"):
        m = fo.compile_mlir(text, fusion="cost")
    assert [(f.group, f.action) for f in m.fallbacks] == [(0, ""), (0, fallback.SPLIT)]
    assert "--iree-opt-data-tiling" in m.artifact.flags
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((256, 48)), rng.standard_normal((48, 192)) / 7, rng.standard_normal(192)
    g, sq = m(x.astype(np.float32), w.astype(np.float32), b.astype(np.float32))
    a = x @ w + b
    ref = 0.5 * a * (1 + np.vectorize(erf)(a / np.sqrt(2)))
    np.testing.assert_allclose(g, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(sq, ref * ref, rtol=1e-4, atol=1e-4)


def test_cpu_tile_config_on_a_gpu_target_is_dropped() -> None:
    """A real IREE 3.13 failure: an llvm-cpu `compilation_info` (as our rewrites attach for CPU targets) on a
    module compiled for a GPU fails its pipeline ("failed to build pass pipeline", where ShuffleNet's
    grouped 1x1 convs did for sm_90). No group is at fault and giving the groups back does not help; the
    last step compiles without the module's tile configs, and says so."""
    text = TEXT.replace("%m = linalg.matmul ins", "%m = linalg.matmul {compilation_info = CFG} ins").replace(
        "CFG", "#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = "
               "[64, 64, 0], vector_common_parallel = [8, 8, 0], vector_reduction = [0, 0, 8]>, translation_info = "
               "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>")
    with pytest.warns(fo.FallbackWarning, match="compiled without our tile sizes on 1 ops"):
        m = fo.compile_mlir(text, target="sm_80", fusion="cost")
    assert m.fallbacks[-1].unwrapped_all and m.artifact.vmfb


# TEXT and a second matmul + exp reading its result: two groups.
TWO_GROUPS = TEXT.replace("  return %r : tensor<128x128xf32>", """\
  %m2 = linalg.matmul ins(%r, %w : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2 : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<128x128xf32>
  return %r2 : tensor<128x128xf32>""")


def test_unattributed_failure_is_traced_to_its_group_by_halving(monkeypatch: pytest.MonkeyPatch) -> None:
    """IREE's SPIR-V lowering failed on ConvNeXt-V2's channels-first LayerNorm group at loc(unknown): rather
    than every group, only the group that fails alone is given back. Simulated: a compile fails, at no
    location, while the region holding the exp is in the module."""
    calls: list[str] = []

    def compile_module(module, session, target, extra_flags=(), *args, **kwargs):
        text = str(module)
        calls.append(text)
        if any("math.exp" in r and "flow.dispatch.region" in r for r in text.split("flow.return")[:-1]):
            raise CompileError("failed to legalize operation 'arith.constant'", "loc(unknown)")
        return real_compile(module, session, target, extra_flags, *args, **kwargs)

    monkeypatch.setattr(fallback, "compile_module", compile_module)
    with pytest.warns(fo.FallbackWarning, match="found by halving"):
        m = fo.compile_mlir(TWO_GROUPS, fusion="cost")
    assert len(m.fallbacks) == 1 and m.fallbacks[0].group is not None and not m.fallbacks[0].unwrapped_all
    assert "flow.dispatch.region" in calls[-1]          # the tanh group kept its region
    x = np.random.default_rng(1).standard_normal((128, 128)).astype(np.float32) / 8
    w = np.random.default_rng(2).standard_normal((128, 128)).astype(np.float32) / 8
    np.testing.assert_allclose(m(x, w), np.exp(np.tanh(x @ w) @ w), rtol=1e-4, atol=1e-5)


def test_halving_stops_when_iree_fails_without_our_regions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure that IREE's own formation has too is no group's fault: one compile of the region-free copy
    says so, and the fallback goes on to hand back every group, then to drop the levers (as before)."""
    broken, calls = _unattributed(lambda text, flags: "--iree-opt-data-tiling" in flags)
    monkeypatch.setattr(fallback, "compile_module", broken)
    with pytest.warns(fo.FallbackWarning, match="compiled without --iree-opt-data-tiling"):
        m = fo.compile_mlir(TWO_GROUPS, fusion="cost")
    assert [(f.group, f.unwrapped_all) for f in m.fallbacks] == [(None, True), (None, False)]
    assert len(calls) <= 5  # failing compile, the region-free probe, all groups back, without the levers


def _fails_on_rewritten_ir(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """IREE failing, outside every group of ours, on IR only a pattern rewrite makes (conv-transpose-phases'
    stacked filter, a `tensor.concat`; fuzz seed 35043 failed so on reshapes of it): every fallback step
    fails, the compile without rewrites does not."""
    calls: list[str] = []

    def compile_module(module, session, target, extra_flags=(), *args, **kwargs):
        calls.append(text := str(module))
        if "tensor.concat" in text:
            raise CompileError("expected rank to be smaller or equal to the other rank.", "t.onnx:9:9")
        return real_compile(module, session, target, extra_flags, *args, **kwargs)

    monkeypatch.setattr(fallback, "compile_module", compile_module)
    return calls


def _up_conv():
    from ir_helpers import conv_relu_model

    w = np.random.default_rng(1).standard_normal((32, 16, 2, 2)) / 4
    return conv_relu_model((1, 32, 16, 16), w, op_type="ConvTranspose", kernel_shape=[2, 2], strides=[2, 2])


def test_iree_failing_on_rewritten_ir_compiles_again_without_the_rewrites(monkeypatch: pytest.MonkeyPatch) -> None:
    """The API: a FallbackWarning names the rewrites switched off; the model is the spread conv, right."""
    ort = pytest.importorskip("onnxruntime")
    model = _up_conv()
    calls = _fails_on_rewritten_ir(monkeypatch)
    with pytest.warns(fo.FallbackWarning, match="compiled again without the pattern rewrites .*conv-transpose-phases"):
        m = fo.compile_onnx(model)
    assert "tensor.concat" in calls[0] and "tensor.concat" not in calls[-1]
    assert not dict(m.plan.patterns).get("conv-transpose-phases")
    x = np.random.default_rng(2).standard_normal((1, 32, 16, 16)).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(m(x), ref, rtol=1e-4, atol=1e-4)


def test_cli_retries_without_the_rewrites_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    """`fusion-opt --emit=vmfb`: one warning line, exit 0, the .vmfb written."""
    import onnx

    from fusion_opt.cli import main

    src = tmp_path / "up.onnx"
    onnx.save(_up_conv(), src)
    _fails_on_rewritten_ir(monkeypatch)
    assert main([str(src), "--emit=vmfb", "-o", str(tmp_path / "up.vmfb")]) == 0
    err = capsys.readouterr().err
    assert "warning: IREE failed on the rewritten IR" in err and "conv-transpose-phases" in err
    assert (tmp_path / "up.vmfb").stat().st_size > 0
