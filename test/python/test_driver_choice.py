"""The runtime driver choice (backends/driver_choice.py): the pure rule, the timing loop on a simulated
clock, and on a real module that both drivers give the same bits and `auto` picks one of them."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt as fo
from fusion_opt.backends import driver_choice as dc


class FakeRunner:
    """A runner whose calls advance a simulated clock by `us` microseconds."""

    def __init__(self, clock: list[float], us: float, inputs=(((2, 3), np.float32),), args=()) -> None:
        self.clock, self.us, self.inputs, self.args, self.calls = clock, us, list(inputs), args, 0

    def __call__(self, *args):
        assert len(args) == len(self.args) and all(a is b for a, b in zip(args, self.args))  # the caller's own
        self.clock[0] += self.us * 1e-6
        self.calls += 1


def simulated(pool_us: float, inline_us: float, inputs=(((2, 3), np.float32),)):
    clock = [0.0]
    made: dict[str, FakeRunner] = {}
    args = (np.arange(6, dtype=np.float32).reshape(2, 3),)

    def make(driver: str) -> FakeRunner:
        made[driver] = FakeRunner(clock, pool_us if driver == dc.POOL else inline_us, inputs, args)
        return made[driver]

    choice, runner = dc.choose(make, args, clock=lambda: clock[0])
    return choice, runner, made


def test_rule_needs_a_clear_win_for_the_inline_driver():
    assert dc.decide(100.0, 50.0) == dc.INLINE
    assert dc.decide(100.0, 95.0) == dc.POOL  # within the margin: the pool stays
    assert dc.decide(100.0, 120.0) == dc.POOL


def test_small_module_runs_inline_when_faster():
    choice, runner, made = simulated(190.0, 60.0)
    assert choice.driver == dc.INLINE and runner is made[dc.INLINE]
    assert choice.pool_us == pytest.approx(190.0) and choice.inline_us == pytest.approx(60.0)
    assert "60 us per call inline" in str(choice)


def test_parallel_module_stays_on_the_pool():
    choice, runner, made = simulated(500.0, 900.0)
    assert choice.driver == dc.POOL and runner is made[dc.POOL]


def test_heavy_module_is_not_timed_inline():
    choice, runner, made = simulated(dc.HEAVY_MS * 1e3 * 1.5, 1.0)
    assert choice.driver == dc.POOL and dc.INLINE not in made and "ms" in choice.why
    choice, _, made = simulated(dc.HEAVY_MS * 1e3 * 10, 1.0)  # one call says enough
    assert dc.INLINE not in made and made[dc.POOL].calls == 1


def test_dynamic_inputs_keep_the_pool_untimed():
    choice, _, made = simulated(190.0, 60.0, inputs=(((None), np.float32),))
    assert choice.driver == dc.POOL and made[dc.POOL].calls == 0 and choice.pool_us is None


MLIR = """
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
"""


def test_auto_on_a_real_module_picks_a_cpu_driver_and_keeps_the_bits():
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    outs = {}
    for driver in ("auto", "local-task", "local-sync"):
        m = fo.compile_mlir(MLIR, fusion="cost")
        m.driver = driver
        outs[driver] = m(x)
        assert m.driver_choice.driver in (dc.POOL, dc.INLINE)
        assert f"runtime driver: {m.driver_choice}" in m.report()
        if driver == "auto":
            assert m.driver_choice.pool_us > 0 and m.driver_choice.inline_us > 0
        else:
            assert m.driver_choice.driver == driver
    np.testing.assert_allclose(outs["auto"], np.tanh(x), rtol=1e-6, atol=1e-6)
    assert np.array_equal(outs["local-task"], outs["local-sync"]) and np.array_equal(outs["auto"], outs["local-task"])


def test_the_choice_runs_the_callers_inputs_not_made_up_ones(tmp_path):
    """An integer Mod by an input: timed on zeros, the driver choice divided by zero and x86 killed the
    process (SIGFPE) at the first call. In a child process, so a regression fails this test, not the run."""
    import subprocess
    import sys

    import onnx
    from onnx import TensorProto, helper

    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.INT64, [4, 5])  # noqa: E731
    g = helper.make_graph([helper.make_node("Mod", ["x", "z"], ["y"])], "g", [vi("x"), vi("z")], [vi("y")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "mod.onnx")
    code = (f"import numpy as np, fusion_opt as fo; m = fo.compile_onnx({str(tmp_path / 'mod.onnx')!r}); m.driver = 'auto'; "
            "x = np.arange(-10, 10, dtype=np.int64).reshape(4, 5); z = np.array([[3, -3, 7, -7, 5]] * 4, np.int64); "
            "assert np.array_equal(m(x, z), np.mod(x, z)); print(m.driver_choice.why)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "auto" in done.stdout  # both drivers were timed, on the caller's arrays
