"""IREE backend: compile in process, run with numpy, weights in .irpa, one-line compile errors, dispatch counts."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from fusion_opt.backends import benchmark, compile_module, count_dispatches, get_target, load, load_file
from fusion_opt.errors import CompileError, RuntimeFailure, UnsupportedError
from fusion_opt.importers import parse_mlir
from fusion_opt.ir import new_session

MATMUL_BIAS_RELU = """
func.func @mm_bias_relu(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %cst : f32
    linalg.yield %z : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
"""

TWO_REGIONS = """
func.func @f(%arg0: tensor<64x128xf32>, %arg1: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<64x32xf32>
  %1 = flow.dispatch.region -> (tensor<64x32xf32>) {
    %2 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x32xf32>) -> tensor<64x32xf32>
    %3 = linalg.matmul ins(%arg0, %arg1 : tensor<64x128xf32>, tensor<128x32xf32>) outs(%2 : tensor<64x32xf32>) -> tensor<64x32xf32>
    flow.return %3 : tensor<64x32xf32>
  }
  %4 = flow.dispatch.region -> (tensor<64x32xf32>) {
    %5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%1, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%0 : tensor<64x32xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      %z = arith.maximumf %s, %cst : f32
      linalg.yield %z : f32
    } -> tensor<64x32xf32>
    flow.return %5 : tensor<64x32xf32>
  }
  return %4 : tensor<64x32xf32>
}
"""

# Valid IR that IREE rejects: a tiled loop inside a dispatch region (see shared/ARCHITECTURE.md).
REJECTED = """func.func @bad(%a: tensor<64xf32>) -> tensor<64xf32> {
  %r = flow.dispatch.region -> (tensor<64xf32>) {
    %0 = scf.forall (%i) in (4) shared_outs(%o = %a) -> tensor<64xf32> {
      %s = tensor.extract_slice %o[0] [16] [1] : tensor<64xf32> to tensor<16xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %s into %o[0] [16] [1] : tensor<16xf32> into tensor<64xf32>
      }
    }
    flow.return %0 : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
"""


def _weight_module(n: int = 512) -> tuple[str, np.ndarray]:
    """`x @ W` with a 1 MB constant W (n=512, f32), written as a hex dense_resource blob."""
    w = np.random.default_rng(7).standard_normal((n, n)).astype(np.float32)
    blob = "0x04000000" + w.tobytes().hex().upper()  # 4-byte alignment prefix, then raw data
    text = f"""
func.func @proj(%x: tensor<4x{n}xf32>) -> tensor<4x{n}xf32> {{
  %w = arith.constant dense_resource<w> : tensor<{n}x{n}xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x{n}xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x{n}xf32>) -> tensor<4x{n}xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x{n}xf32>, tensor<{n}x{n}xf32>) outs(%f : tensor<4x{n}xf32>) -> tensor<4x{n}xf32>
  return %y : tensor<4x{n}xf32>
}}
{{-#
  dialect_resources: {{ builtin: {{ w: "{blob}" }} }}
#-}}
"""
    return text, w


@pytest.fixture(scope="module")
def mm_artifact():
    sess = new_session()
    module = parse_mlir(MATMUL_BIAS_RELU, sess.context, "mm.mlir")
    before = str(module)
    art = compile_module(module, sess, "host")
    assert str(module) == before, "compile_module must not modify the caller's module"
    return art


def _mm_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (rng.standard_normal((64, 128), dtype=np.float32), rng.standard_normal((128, 32), dtype=np.float32),
            rng.standard_normal(32, dtype=np.float32))


def test_matmul_bias_relu_matches_numpy(mm_artifact):
    a, b, bias = _mm_inputs()
    assert mm_artifact.entry == "mm_bias_relu" and mm_artifact.dispatch_count == 1
    for driver in ("local-task", "local-sync"):
        y = load(mm_artifact, driver=driver)(a, b, bias)
        np.testing.assert_allclose(y, np.maximum(a @ b + bias, 0), rtol=1e-4, atol=1e-4)


def _unaligned(a: np.ndarray) -> np.ndarray:
    """A copy of `a` whose data starts 4 bytes past a 64-byte boundary."""
    from fusion_opt.backends.runtime import aligned_empty

    raw = aligned_empty((a.size + 16,), a.dtype)
    out = raw[1:1 + a.size].reshape(a.shape)
    out[...] = a
    assert out.ctypes.data % 64 == a.itemsize
    return out


ADD2 = """func.func @add2(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %e = tensor.empty() : tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
"""


def test_inputs_are_read_in_place_or_staged_and_results_own_their_memory():
    """Large inputs go to IREE in place when aligned, else through a staging array reused by every call:
    each call must see its own inputs, and a result must stay as returned after later calls."""
    from fusion_opt.backends.runtime import ALIGN, IN_PLACE_BYTES, aligned_empty

    sess = new_session()
    run = load(compile_module(parse_mlir(ADD2, sess.context, "add2.mlir"), sess, "host"))
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((256, 256), dtype=np.float32) for _ in range(2))
    assert x.nbytes >= IN_PLACE_BYTES
    ax, ay = aligned_empty(x.shape, x.dtype), aligned_empty(y.shape, y.dtype)
    ax[...], ay[...] = x, y
    assert ax.ctypes.data % ALIGN == 0 and ay.ctypes.data % ALIGN == 0
    first = run(ax, ay)                            # in place
    second = run(_unaligned(x + 1), _unaligned(y))  # staged
    third = run(_unaligned(x), ay)                  # one staged, one in place
    assert np.array_equal(first, x + y) and np.array_equal(second, (x + 1) + y) and np.array_equal(third, first)
    ax[...] = 0.0  # the caller reuses its array: results computed from it stay
    assert np.array_equal(first, x + y) and np.array_equal(second, (x + 1) + y)
    # A read-only aligned array (np.frombuffer, onnx.numpy_helper.to_array) cannot be imported by IREE
    # ("buffer source array is read-only": a conformance case failed whenever its input landed aligned).
    ax[...], ay[...] = x, y
    ax.flags.writeable = False
    assert np.array_equal(run(ax, ay), x + y) and np.array_equal(run(ay, ax), x + y)


def test_a_returned_argument_is_a_copy():
    sess = new_session()
    art = compile_module(parse_mlir("func.func @ident(%x: tensor<32768xf32>) -> tensor<32768xf32> {\n"
                                    "  return %x : tensor<32768xf32>\n}\n", sess.context, "id.mlir"), sess, "host")
    from fusion_opt.backends.runtime import aligned_empty

    run = load(art)
    for x in (aligned_empty((32768,), np.float32), _unaligned(np.zeros(32768, np.float32))):
        x[...] = 1.0
        y = run(x)
        x[...] = 2.0
        assert not np.shares_memory(x, y) and float(y[0]) == 1.0
        assert float(run(x)[0]) == 2.0 and float(y[0]) == 1.0


def test_runtime_rejects_bad_inputs(mm_artifact):
    run = load(mm_artifact)
    a, b, bias = _mm_inputs()
    with pytest.raises(RuntimeFailure, match="takes 3 inputs, got 2"):
        run(a, b)
    with pytest.raises(RuntimeFailure, match=r"input 1 .*expected shape \(128, 32\), got \(32, 128\)"):
        run(a, b.T, bias)
    with pytest.raises(RuntimeFailure, match="expected dtype float32, got float64"):
        run(a.astype(np.float64), b, bias)
    assert len(benchmark(run, [a, b, bias], warmup=1, repeat=3)) == 3


def test_weights_go_to_irpa_and_run_from_saved_files(tmp_path):
    text, w = _weight_module()
    sess = new_session()
    module = parse_mlir(text, sess.context, "w.mlir")
    art = compile_module(module, sess, "host", params_path=tmp_path / "build" / "w.irpa")
    assert art.params_path is not None and art.params_path.stat().st_size >= w.nbytes
    assert len(art.vmfb) < w.nbytes // 4, "the 1 MB weight must not be inlined into the vmfb"
    x = np.random.default_rng(1).standard_normal((4, 512)).astype(np.float32)
    np.testing.assert_allclose(load(art)(x), x @ w, rtol=1e-4, atol=1e-3)

    saved = art.save(tmp_path / "out" / "proj")
    assert saved.with_suffix(".irpa").is_file()
    np.testing.assert_allclose(load_file(saved)(x), x @ w, rtol=1e-4, atol=1e-3)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "ref.npy", x @ w)
    script = textwrap.dedent(f"""
        import numpy as np
        from fusion_opt.backends import load_file
        y = load_file({str(saved)!r}, driver="local-sync")(np.load({str(tmp_path / 'x.npy')!r}))
        np.testing.assert_allclose(y, np.load({str(tmp_path / 'ref.npy')!r}), rtol=1e-4, atol=1e-3)
        print("OK")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr


def test_compile_error_is_one_line_with_location(tmp_path):
    sess = new_session()
    module = parse_mlir(REJECTED, sess.context, "bad.mlir")
    with pytest.raises(CompileError) as info:
        compile_module(module, sess, "host", params_path=tmp_path / "bad.irpa", source_name="bad.mlir")
    msg = str(info.value)
    assert "\n" not in msg and "Traceback" not in msg
    assert msg.startswith("bad.mlir:4:") and ": error: " in msg, msg
    assert not (tmp_path / "bad.irpa").exists(), "no partial output on failure"


def test_bad_flag_and_unknown_target():
    sess = new_session()
    module = parse_mlir(MATMUL_BIAS_RELU, sess.context, "mm.mlir")
    with pytest.raises(CompileError, match="option not found"):
        compile_module(module, sess, "host", extra_flags=("--iree-no-such-flag",))
    with pytest.raises(UnsupportedError, match="unknown target"):
        compile_module(module, sess, "tpu")
    assert get_target("llvm-cpu").name == "host" and get_target("cuda").name == "sm_80"


def test_count_dispatches_respects_hand_written_regions():
    sess = new_session()
    fused = parse_mlir(MATMUL_BIAS_RELU, sess.context, "mm.mlir")
    regions = parse_mlir(TWO_REGIONS, sess.context, "regions.mlir")
    assert count_dispatches(fused, sess, "host") == 1  # IREE's own fusion: one dispatch
    assert count_dispatches(regions, sess, "host") == 2  # our regions are kept as boundaries


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "vulkan", "cpu-generic"])
def test_other_targets_compile(target):
    sess = new_session()
    module = parse_mlir(MATMUL_BIAS_RELU, sess.context, "mm.mlir")
    art = compile_module(module, sess, target)
    assert art.vmfb and art.dispatch_count == 1
    if target.startswith("sm_"):  # the PTX inside names the chip: sm_90 needs our hal.device.targets attribute
        assert f".target {target}".encode() in art.vmfb
    assert "hal.device.targets" not in str(module), "the caller's module is not modified"
