"""Calibration fitter, accuracy helpers and the calibrate/accuracy CLI: pure, no compiler (< 10 s)."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fusion_opt.analysis.opdesc import OpDesc, OpKind
from fusion_opt.bench import calibrate as bench_cal
from fusion_opt.bench.cli import parse_args
from fusion_opt.cost import estimate, get_target_desc, view_of_ops, with_calibration
from fusion_opt.cost.calibrate import (Sample, accuracy, constants_of, default_params, fit, get_value, kendall_tau,
                                       log_loss, predict, rel_errors, summarize, with_sources)
from fusion_opt.cost.model import efficiency_key


def ew(i, shape, nin=2):
    n = len(shape)
    ident = f"({', '.join(f'd{k}' for k in range(n))}) -> ({', '.join(f'd{k}' for k in range(n))})"
    size = math.prod(shape)
    return OpDesc(i, "linalg.generic", f"t:{i}", OpKind.ELEMENTWISE, tuple(shape), ("parallel",) * n,
                  (ident,) * (nin + 1), (tuple(range(n)),) * (nin + 1), ("f32",) * (nin + 2),
                  (tuple(shape),) * (nin + 1), (tuple(shape),), tuple(-1 - k for k in range(nin)) + (None,), nin,
                  ("arith.addf",), flops=size, bytes_read=4 * size * nin, bytes_written=4 * size)


def matmul(i, m, n, k):
    maps = ("(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)")
    return OpDesc(i, "linalg.matmul", f"t:{i}", OpKind.CONTRACTION, (m, n, k), ("parallel", "parallel", "reduction"),
                  maps, ((0, 2), (2, 1), (0, 1)), ("f32",) * 4, ((m, k), (k, n), (m, n)), ((m, n),), (-1, -2, None), 2,
                  ("arith.mulf", "arith.addf"), flops=2 * m * n * k)


def conv(i, c, f, hw, kh):
    """NCHW conv, batch 1: loops (n, f, oh, ow, c, kh, kw)."""
    maps = ("(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)",
            "(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)", "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)")
    its = ("parallel",) * 4 + ("reduction",) * 3
    ranges = (1, f, hw, hw, c, kh, kh)
    return OpDesc(i, "linalg.conv_2d_nchw_fchw", f"t:{i}", OpKind.CONVOLUTION, ranges, its, maps,
                  ((0, 4, -1, -1), (1, 4, 5, 6), (0, 1, 2, 3)), ("f32",) * 4,
                  ((1, c, hw + kh - 1, hw + kh - 1), (f, c, kh, kh), (1, f, hw, hw)), ((1, f, hw, hw),),
                  (-1, -2, None), 2, flops=2 * f * hw * hw * c * kh * kh)


def masked_ew(i, rows, width):
    """A broadcast-free elementwise op over (rows, width): width 14 is not a multiple of the 4 f32 lanes
    of cpu-generic's 128-bit vectors, so its loop runs with masked vectors."""
    return replace(ew(i, (rows, width)), kind=OpKind.ELEMENTWISE)


def synthetic(truth, rng, noise=0.05):
    views = [view_of_ops([ew(0, (n,))]) for n in (256, 4096, 1 << 16, 1 << 19, 1 << 21, 1 << 23)]
    views += [view_of_ops([matmul(0, m, m, m)]) for m in (32, 64, 128, 256, 384, 512)]
    views += [view_of_ops([conv(0, c, f, hw, k)]) for c, f, hw, k in ((16, 32, 28, 3), (32, 64, 16, 3),
                                                                     (64, 64, 28, 1), (128, 32, 16, 1))]
    # scalar convs (vector tiles not dividing 14/7-wide rows), masked rows, tiny dispatches
    views += [view_of_ops([conv(0, c, f, hw, k)]) for c, f, hw, k in ((128, 128, 14, 1), (64, 96, 14, 3),
                                                                     (256, 64, 7, 1))]
    views += [view_of_ops([masked_ew(0, r, 14)]) for r in (64, 512, 4096, 1 << 14)]
    views += [view_of_ops([ew(0, (n,))]) for n in (4, 16, 64)]
    meas = predict(views, truth) * np.exp(rng.normal(0, noise, len(views)))
    return [Sample(v, float(t), "synthetic", i) for i, (v, t) in enumerate(zip(views, meas))]


def test_fit_recovers_known_constants():
    base = get_target_desc("cpu-generic")
    true = {"efficiency": {"contraction": 0.35, "convolution": 0.08, "convolution.1x1": 0.2, "elementwise": 0.5,
                           "convolution.scalar": 0.02, "iteration.masked": 0.005},
            "bw_fraction": {"dram": 0.45}, "dispatch_s": 4e-7}
    truth = with_calibration(base, true)
    samples = synthetic(truth, np.random.default_rng(0))
    params = [("efficiency", "contraction"), ("efficiency", "convolution"), ("efficiency", "convolution.1x1"),
              ("efficiency", "convolution.scalar"), ("efficiency", "iteration.masked"), ("bw_fraction", "dram"),
              ("overlap", None), ("dispatch_s", None)]
    res = fit(samples, base, params, sweeps=10)
    assert res.loss_after < res.loss_before and res.loss_after < 0.08
    got = res.constants
    assert got["efficiency"]["contraction"] == pytest.approx(0.35, rel=0.15)
    assert got["efficiency"]["convolution"] == pytest.approx(0.08, rel=0.15)
    assert got["efficiency"]["convolution.1x1"] == pytest.approx(0.2, rel=0.2)
    assert got["efficiency"]["convolution.scalar"] == pytest.approx(0.02, rel=0.2)
    assert got["efficiency"]["iteration.masked"] == pytest.approx(0.005, rel=0.2)
    assert got["bw_fraction"]["dram"] == pytest.approx(0.45, rel=0.2)
    assert got["dispatch_s"] == pytest.approx(4e-7, rel=0.3)
    assert "launch_s" not in got  # durations exclude launch work: never fitted from them


def test_tied_fit_scales_every_efficiency_together():
    """`fusion-bench calibrate`'s default: one factor on all efficiencies, so the ratios the planner compares
    (one conv's forms against each other) stay those of the defaults; a machine 2x slower at everything
    compute-bound is fitted as a factor of ~0.5, not key by key."""
    base = get_target_desc("cpu-generic")
    truth = with_calibration(base, {"efficiency": {k: e * 0.5 for k, e in base.efficiency}})
    samples = synthetic(truth, np.random.default_rng(3))
    params = default_params(samples, base, free=False)
    assert params[0] == ("efficiency_scale", None) and not any(n == "efficiency" for n, _ in params)
    res = fit(samples, base, free=False, sweeps=10)
    eff, ref = res.constants["efficiency"], dict(base.efficiency)
    assert set(eff) == set(ref)  # every key, not only those the samples hold
    assert eff["contraction"] / ref["contraction"] == pytest.approx(0.5, rel=0.15)
    assert all(eff[k] / ref[k] == pytest.approx(eff["contraction"] / ref["contraction"]) for k in ref if ref[k])
    assert bench_cal._scale(base, res.constants) == pytest.approx(0.5, rel=0.15)
    with pytest.raises(ValueError, match="needs the target"):
        constants_of(params[:1], [0.5])


def test_default_params_follow_the_samples():
    base = get_target_desc("cpu-generic")
    params = default_params(synthetic(base, np.random.default_rng(1)), base)
    assert ("efficiency", "convolution.1x1") in params and ("efficiency", "elementwise") in params
    assert ("efficiency", "convolution.scalar") in params and ("efficiency", "iteration.masked") in params
    assert ("efficiency", "reduction") not in params  # no reduction among the samples
    assert ("overlap", None) in params and ("launch_s", None) not in params
    assert ("dispatch_s", None) in params and ("cache_fit", None) in params
    assert any(p[0] == "bw_fraction" for p in params)
    # An efficiency split without its own constant reads its kind's.
    assert get_value(base, ("efficiency", "convolution.1x1")) == dict(base.efficiency)["convolution"]
    assert constants_of(params[:1] + [("overlap", None)], [0.3, 0.6]) == {"efficiency": {params[0][1]: 0.3},
                                                                         "overlap": 0.6}


def test_efficiency_key_comes_from_maps():
    assert efficiency_key(conv(0, 16, 32, 28, 3)) == "convolution"
    assert efficiency_key(conv(0, 16, 32, 28, 1)) == "convolution.1x1"
    assert efficiency_key(conv(0, 128, 128, 14, 1)) == "convolution.scalar"  # 4-wide vectors do not divide 14
    # A key without its own constant uses the next shorter one, then the kind's.
    t1 = with_calibration(get_target_desc("cpu-generic"), {"efficiency": {"convolution.1x1": 0.123}})
    assert get_value(t1, ("efficiency", "convolution.1x1.other")) == 0.123
    assert efficiency_key(matmul(0, 8, 8, 8)) == "contraction"
    t = with_calibration(get_target_desc("cpu-generic"), {"efficiency": {"convolution.1x1": 0.01}})
    slow = estimate(view_of_ops([conv(0, 64, 64, 28, 1)]), t).compute_s
    assert slow > 10 * estimate(view_of_ops([conv(0, 64, 64, 28, 1)]), get_target_desc("cpu-generic")).compute_s


def test_samples_without_sources_get_them_from_their_run():
    a = ew(0, (64, 64))
    b = replace(ew(1, (64, 64)), operands=(0, -2, None))
    s1 = Sample(view_of_ops([a]), 1e-5, "m", 0, "none")
    s2 = Sample(view_of_ops([b]), 1e-5, "m", 1, "none")
    other = Sample(view_of_ops([b]), 1e-5, "other-model", 1, "none")
    out = with_sources([s1, s2, other])
    assert out[0].view.sources == ("arg", "arg")
    assert out[1].view.sources == ("streamed", "arg")
    assert out[2].view.sources == ("", "arg")  # op 0 of that run was not measured: unknown


def test_rounds_keep_each_dispatch_at_its_fastest():
    """A round another tenant slowed down does not decide a dispatch's time; views come from round one."""
    a, b = view_of_ops([ew(0, (64, 64))]), view_of_ops([ew(1, (32, 32))])
    r1 = [Sample(a, 3e-5, "m", 0, "none"), Sample(b, 1e-5, "m", 1, "none")]
    r2 = [Sample(view_of_ops([ew(0, (64, 64))]), 2e-5, "m", 0, "none"), Sample(b, 4e-5, "m", 1, "none")]
    out = {s.group: s for s in bench_cal.fastest_rounds([r1, r2])}
    assert out[0].measured_s == 2e-5 and out[0].view is a
    assert out[1].measured_s == 1e-5
    r3 = [Sample(view_of_ops([ew(2, (8, 8))]), 5e-6, "m", 2, "none")]  # mapped in one round only
    assert {s.group for s in bench_cal.fastest_rounds([r1, r3])} == {0, 1, 2}
    other_plan = [Sample(view_of_ops([ew(5, (64, 64))]), 1e-6, "m", 0, "none")]  # group 0, other ops
    assert sorted(s.measured_s for s in bench_cal.fastest_rounds([r1, other_plan]) if s.group == 0) == [1e-6, 3e-5]


def test_samples_of_data_tiled_builds_are_priced_data_tiled():
    """The fitter prices each sample on the build it was measured with (`Sample.data_tiling`)."""
    from fusion_opt.cost.calibrate import records, settings

    host = get_target_desc("cpu-generic")
    mm = view_of_ops([matmul(0, 256, 256, 256)])
    samples = [Sample(mm, 1e-3, "m", 0, "none"), Sample(mm, 1e-3, "m", 0, "cost", True)]
    plain, tiled = settings(samples, host)
    assert not plain.data_tiling and tiled.data_tiling
    assert default_params(samples, host)[:2] == [("efficiency", "contraction"), ("efficiency", "contraction.data_tiled")]
    t = with_calibration(host, {"efficiency": {"contraction": 0.5, "contraction.data_tiled": 1.0}})
    recs = records(samples, t)
    assert [r["kind"] for r in recs] == ["contraction", "contraction.data_tiled"]
    assert recs[0]["predicted_us"] > 1.5 * recs[1]["predicted_us"]


def test_kendall_tau_b():
    assert kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # 5 concordant, 1 discordant of 6 pairs -> (5 - 1) / 6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    # tau-b with ties: x = [1,1,2], y = [1,2,3]: concordant 2, discordant 0, tied-in-x 1 -> 2 / sqrt(2 * 3)
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    with pytest.raises(ValueError):
        kendall_tau([1], [1])


def test_relative_errors_and_accuracy():
    pred, meas = [1.0, 2.0, 3.0, 8.0], [1.0, 1.0, 4.0, 4.0]
    assert list(rel_errors(pred, meas)) == pytest.approx([0.0, 1.0, 0.25, 1.0])
    acc = accuracy(pred, meas)
    assert acc["median_rel_error"] == pytest.approx(0.625)
    assert acc["p90_rel_error"] == pytest.approx(1.0)
    assert acc["n"] == 4
    assert log_loss(np.array([2.0, 0.5]), np.array([1.0, 1.0])) == pytest.approx(math.log(2))


def test_summary_records():
    base = get_target_desc("cpu-generic")
    out = summarize(synthetic(base, np.random.default_rng(2), noise=0.0), base)
    assert out["kendall_tau"] == pytest.approx(1.0) and out["median_rel_error"] < 1e-9
    r = out["dispatches"][0]
    assert {"model", "group", "kind", "root", "predicted_us", "measured_us", "bound"} <= set(r)


def test_cli_parses_calibrate_and_accuracy(tmp_path: Path):
    a = parse_args(["calibrate", "--target=host", "--models", "squeezenet,layernorm", "--seed", "3", "--repeat", "4"])
    assert (a.command, a.models, a.seed, a.repeat, a.remeasure) == ("calibrate", ["squeezenet", "layernorm"], 3, 4,
                                                                     True)
    assert parse_args(["calibrate"]).models == list(bench_cal.CALIBRATION_MODELS)
    assert not a.free and parse_args(["calibrate", "--free"]).free
    f = tmp_path / "m.onnx"
    f.write_bytes(b"")
    b = parse_args(["accuracy", "--models", str(f), "--json", str(tmp_path / "o.json")])
    assert (b.command, b.models, b.json, b.modes) == ("accuracy", [f], tmp_path / "o.json", list(bench_cal.FUSIONS))
    assert parse_args(["accuracy"]).models is None
    assert not set(bench_cal.CALIBRATION_MODELS) & set(bench_cal.HELD_OUT_MODELS)
    for bad in (["calibrate", "--models", "nope"], ["accuracy", "--models", str(tmp_path / "missing.onnx")],
                ["calibrate", "--target=sm_90"], ["accuracy", "--repeat", "0"]):
        with pytest.raises(SystemExit):
            parse_args(bad)
    assert parse_args(["--suite", "layernorm"]).command == "run"
