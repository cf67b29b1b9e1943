"""IREE's compute barriers are taken out of our dispatch regions after global-opt (backends/barriers.py),
so data tiling packs the next matmul's operand in the producer region's epilogue as in IREE's own."""
from __future__ import annotations

import pytest

import fusion_opt.backends.compile as compile_mod
from fusion_opt.backends.barriers import has_dispatch_regions, strip_region_barriers
from fusion_opt.backends.compile import compile_to_flow
from ir_helpers import parse_module

BARRIERS = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = iree_tensor_ext.compute_barrier.start %a : tensor<4xf32> -> tensor<4xf32>
  %1 = flow.dispatch.region -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
        iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %s = arith.addf %x, %x : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %3 = iree_tensor_ext.compute_barrier.end %2 : tensor<4xf32> -> tensor<4xf32>
    flow.return %3 : tensor<4xf32>
  }
  %4 = iree_tensor_ext.compute_barrier.end %1 : tensor<4xf32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}
"""

# Two chained 64x256x256 matmuls, each planned into its own region (bias + ReLU epilogue on the first).
CHAIN = """
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x256xf32>,
               %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h = flow.dispatch.region -> (tensor<64x256xf32>) {
    %m = linalg.matmul ins(%x, %w1 : tensor<64x256xf32>, tensor<256x256xf32>)
        outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%m, %b : tensor<64x256xf32>, tensor<256xf32>) outs(%e : tensor<64x256xf32>) {
    ^bb0(%v: f32, %c: f32, %o: f32):
      %s = arith.addf %v, %c : f32
      %y = arith.maximumf %s, %zero : f32
      linalg.yield %y : f32
    } -> tensor<64x256xf32>
    flow.return %r : tensor<64x256xf32>
  }
  %y = flow.dispatch.region -> (tensor<64x256xf32>) {
    %m = linalg.matmul ins(%h, %w2 : tensor<64x256xf32>, tensor<256x256xf32>)
        outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32>
    flow.return %m : tensor<64x256xf32>
  }
  return %y : tensor<64x256xf32>
}
"""


def test_only_barriers_inside_regions_are_removed():
    sess, module = parse_module(BARRIERS)
    assert has_dispatch_regions(module)
    assert strip_region_barriers(module) == 1
    text = str(module)
    assert text.count("compute_barrier.end") == 1 and text.count("compute_barrier.start") == 1
    assert "compute_barrier" not in text.split("flow.dispatch.region")[1].split("flow.return")[0]
    module.operation.verify()
    sess, plain = parse_module("func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }")
    assert not has_dispatch_regions(plain)


@pytest.mark.parametrize("strip,packs_in_producer", [(True, True), (False, False)])
def test_next_matmuls_packing_joins_the_producer_region(monkeypatch, strip, packs_in_producer):
    """After the flow phase, an operand packing IREE could not put in a region is a `flow.tensor.encode`
    of its own: the second matmul's LHS is one only while the barrier sits in the first region."""
    if not strip:
        monkeypatch.setattr(compile_mod, "_global_opt_without_region_barriers", lambda *a: None)
    sess, module = parse_module(CHAIN)
    flow = compile_to_flow(module, sess, "llvm-cpu", ("--iree-opt-data-tiling",))
    lhs_encodes = [ln for ln in flow.splitlines() if "flow.tensor.encode" in ln and ": tensor<64x256xf32> ->" in ln]
    # The model input's packing is always an encode of its own; the hidden activation's only without the fix.
    assert len(lhs_encodes) == (1 if packs_in_producer else 2), "\n".join(lhs_encodes)


def test_copy_dispatches_counts_irees_copy_kernels_only():
    from fusion_opt.backends.flow_ir import FlowSite, copy_dispatches

    sites = (FlowSite(0, "m_dispatch_0_slow_memcpy", "loc", None), FlowSite(1, "m_dispatch_1_matmul_8x8x8_f32", "l", 0),
             FlowSite(2, "m_dispatch_2_slow_memcpy", "loc", None))
    assert copy_dispatches(sites) == 2 and copy_dispatches(()) == 0 and copy_dispatches(None) is None
