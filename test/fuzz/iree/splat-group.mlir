// splat-group: fixed: `greedy` takes the hand-off rule `constant` (fusion/__init__.py STRATEGY_HANDOFFS): IREE evaluates the group at compile time
// two elementwise ops of a splat, both returned, one group of their own under `greedy` (the splat cloned): IREE 3.13 folds them to returned splats inside the region and fails ('vector.store' op write affecting operations on global resources are restricted to workgroup distributed contexts); `cost` handed the group back already; the fallback had covered it
// found by fusion-bench fuzz (seed 25794); original finding:
// fusion=greedy: fallback: group 1 failed to compile in IREE ('vector.store' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: splat-group.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<32x24xf32>
// %v1 = pad low [0, 1] high [0, 0] value 0.0(%v0) : tensor<32x25xf32>
// %v2 = fill 0.5() : tensor<32xf32>
// %v3 = elementwise neg(mul(x1, x0)) maps [(0, 1), (0,)](%v1, %v2) : tensor<32x25xf32>
// %v4 = elementwise half(sub(abs(x0), 3.0)) maps [(0,)](%v2) : tensor<32xf32>
// %v5 = elementwise mul(x0, x1) maps [(0,), (0,)](%v4, %v2) : tensor<32xf32>
// outputs: %v3, %v4, %v5
func.func @main(%v0: tensor<32x24xf32>) -> (tensor<32x25xf32>, tensor<32xf32>, tensor<32xf32>) {
  %v1_c_1 = arith.constant 0.000000000e+00 : f32
  %v1 = tensor.pad %v0 low[0, 1] high[0, 0] {
  ^bb0(%p0: index, %p1: index):
    tensor.yield %v1_c_1 : f32
  } : tensor<32x24xf32> to tensor<32x25xf32>
  %v2_e_2 = tensor.empty() : tensor<32xf32>
  %v2_c_3 = arith.constant 5.000000000e-01 : f32
  %v2 = linalg.fill ins(%v2_c_3 : f32) outs(%v2_e_2 : tensor<32xf32>) -> tensor<32xf32>
  %v3_e_7 = tensor.empty() : tensor<32x25xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1, %v2 : tensor<32x25xf32>, tensor<32xf32>) outs(%v3_e_7 : tensor<32x25xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_5 = arith.mulf %i1, %i0 : f32
    %t_4 = arith.negf %t_5 : f32
    linalg.yield %t_4 : f32
  } -> tensor<32x25xf32>
  %v4_e_14 = tensor.empty() : tensor<32xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v2 : tensor<32xf32>) outs(%v4_e_14 : tensor<32xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_10 = math.absf %i0 : f32
    %t_12 = arith.constant 3.000000000e+00 : f32
    %t_9 = arith.subf %t_10, %t_12 : f32
    %one_13 = arith.constant 5.000000000e-01 : f32
    %t_8 = arith.mulf %t_9, %one_13 : f32
    linalg.yield %t_8 : f32
  } -> tensor<32xf32>
  %v5_e_16 = tensor.empty() : tensor<32xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v4, %v2 : tensor<32xf32>, tensor<32xf32>) outs(%v5_e_16 : tensor<32xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_15 = arith.mulf %i0, %i1 : f32
    linalg.yield %t_15 : f32
  } -> tensor<32xf32>
  return %v3, %v4, %v5 : tensor<32x25xf32>, tensor<32xf32>, tensor<32xf32>
}
