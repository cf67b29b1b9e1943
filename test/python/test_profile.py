"""Per-dispatch profiling: every fusion group of a small module gets a measured time, and the times add up."""
from __future__ import annotations

import numpy as np
import pytest

import fusion_opt
from fusion_opt.backends.profile import (DispatchProfile, FlowSite, SiteTime, find_tool, group_times, map_groups,
                                         profile_dispatches)
from fusion_opt.errors import RuntimeFailure

# matmul+bias+relu -> matmul -> row max -> exp(x - max): four groups under fusion="greedy".
THREE = """
func.func @three(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>,
                 %c: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
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
  %e2 = tensor.empty() : tensor<64x64xf32>
  %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%r, %c : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%m2 : tensor<64x64xf32>) outs(%f3 : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.maximumf %x, %o : f32
    linalg.yield %z : f32
  } -> tensor<64xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%m2, %mx : tensor<64x64xf32>, tensor<64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    %z = math.exp %s : f32
    linalg.yield %z : f32
  } -> tensor<64x64xf32>
  return %out : tensor<64x64xf32>
}
"""


@pytest.fixture(scope="module")
def model():
    return fusion_opt.compile_mlir(THREE, fusion="greedy")


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in [(64, 128), (128, 32), (32,), (32, 64)]]


@pytest.fixture(scope="module")
def profile(model, inputs) -> DispatchProfile:
    return profile_dispatches(model.artifact, inputs, repetitions=5)


def test_tools_are_found():
    assert find_tool("iree-benchmark-module").is_file() and find_tool("iree-profile").is_file()


def test_profile_has_every_dispatch(model, profile):
    assert profile.runs == 5
    assert len(profile.sites) == model.dispatch_count == len(model.plan.groups) >= 3
    assert all(s.median_us > 0 for s in profile.sites)
    assert {d.key for d in profile.dispatches} == {s.key for s in profile.sites}
    assert all(d.count == d.per_run * profile.runs for d in profile.dispatches)
    # Dispatches run one after another here: their medians add up to about the device span of a run,
    # and never exceed the wall time of a call (which adds the VM call, uploads and fences).
    assert 0.5 * profile.span_us <= profile.dispatch_us <= 1.5 * profile.span_us
    assert 0 < profile.dispatch_us <= 1.5 * profile.wall_us


def test_every_group_gets_a_positive_time(model, inputs):
    times = group_times(model, inputs, repetitions=5)
    assert set(times) == {g.id for g in model.plan.groups} | {-1}
    assert all(times[g.id] > 0 for g in model.plan.groups)
    assert times[-1] == 0.0  # no dispatch outside our groups
    assert all(t < 1e-2 for t in times.values())  # seconds, not microseconds


def test_sites_map_by_location_and_by_key(model, profile):
    """A stamped location wins over order; identical exports are assigned to their sites in turn."""
    ids = [g.id for g in sorted(model.plan.groups, key=lambda g: min(g.ops))]
    sites = [FlowSite(i, s.key, f'loc("fusion_group_{ids[::-1][i]}")', ids[::-1][i])
             for i, s in enumerate(profile.sites)]
    gm = map_groups(profile, model.plan, model.graphs[0], sites)
    assert gm.method == "location" and not gm.other
    assert [gm.group_us[g] for g in ids[::-1]] == [s.median_us for s in profile.sites]
    # One export shared by two sites plus an IREE-made dispatch outside every group.
    dup = DispatchProfile(1, (SiteTime(0, "k", 1.0), SiteTime(1, "pad", 3.0), SiteTime(2, "k", 2.0)), (), 6, 6, 0)
    flow = [FlowSite(0, "k", "", ids[0]), FlowSite(1, "pad", "", None), FlowSite(2, "k", "", ids[1])]
    gm = map_groups(dup, model.plan, None, flow)
    assert gm.group_us == {ids[0]: 1.0, ids[1]: 2.0} and [o.key for o in gm.other] == ["pad"]


def test_late_encoding_dispatches_belong_to_no_group(model):
    """Data tiling packs a matmul operand in a dispatch made after flow: no flow site names it."""
    ids = [g.id for g in sorted(model.plan.groups, key=lambda g: min(g.ops))]
    enc = "_encoding_2_encode_128x1024xf32_to_128x1024xf32"
    prof = DispatchProfile(1, (SiteTime(0, enc, 0.5), SiteTime(1, "k", 1.0), SiteTime(2, enc, 0.25)), (), 2, 2, 0)
    gm = map_groups(prof, model.plan, None, [FlowSite(0, "k", "", ids[0])])
    assert gm.group_us == {ids[0]: 1.0} and [o.median_us for o in gm.other] == [0.5, 0.25]
    # Any other dispatch the flow IR does not name still refuses the mapping.
    odd = DispatchProfile(1, (SiteTime(0, "x_dispatch_9_copy", 0.5), SiteTime(1, "k", 1.0)), (), 2, 2, 0)
    with pytest.raises(RuntimeFailure, match="flow IR"):
        map_groups(odd, model.plan, None, [FlowSite(0, "k", "", ids[0])])


def test_order_mapping_refuses_extra_dispatches(model, profile):
    extra = DispatchProfile(1, (*profile.sites, SiteTime(9, "x_dispatch_9_copy", 1.0)), (), 1, 1, 0)
    with pytest.raises(RuntimeFailure, match="flow IR"):
        map_groups(extra, model.plan, model.graphs[0])


def test_tool_failure_is_one_line(model):
    with pytest.raises(RuntimeFailure) as err:
        profile_dispatches(model.artifact, [np.zeros((2, 2), np.float32)], repetitions=1)
    assert "\n" not in str(err.value) and "iree-benchmark-module failed" in str(err.value)


def test_flow_sites_match_the_profile(model, profile):
    """Call sites read from the real flow IR name the profiled exports; the regions' group stamps give the groups."""
    from fusion_opt.backends.compile import _to_flow
    from fusion_opt.backends.profile import flow_sites
    from fusion_opt.importers import parse_mlir
    from fusion_opt.ir import new_session
    from fusion_opt.pipelines import plan_module, write_regions

    sess = new_session()
    module = parse_mlir(THREE, sess.context, "three.mlir")
    write_regions(plan_module(module, "greedy"))
    flow, cs = _to_flow(module, "host", (), "three.mlir")
    try:
        sites = flow_sites(flow, "three")
    finally:
        cs.close()
    assert [s.key for s in sites] == [s.key for s in profile.sites]
    by_loc = map_groups(profile, model.plan, model.graphs[0], sites)
    by_order = map_groups(profile, model.plan, model.graphs[0])
    assert (by_loc.method, by_order.method) == ("location", "order")
    assert by_loc.group_us == by_order.group_us and not by_loc.missing
