// splat-chain: fixed: an elementwise op of a splat computes only from constants (rule constant): IREE evaluates it at compile time
// half(neg(fill 0.5)), half(half(fill 0.5)) and their max, one group with the fill, the second also returned: IREE 3.13 folds them to splats inside the region and fails to store the returned splat ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts), greedy and cost; the fallback had covered it
// found by fusion-bench fuzz (seed 22255); original finding:
// fusion=greedy: fallback: group 2 failed to compile in IREE ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: splat-chain.npz (test/python/test_fuzz_regressions.py)
// %v0 = fill 0.5() : tensor<9x5x4xf32>
// %v1 = elementwise half(neg(x0)) maps [(0, 1, 2)](%v0) : tensor<9x5x4xf32>
// %v2 = elementwise half(half(x0)) maps [(0, 1, 2)](%v0) : tensor<9x5x4xf32>
// %v3 = elementwise max(x0, x1) maps [(0, 1, 2), (0, 1, 2)](%v1, %v2) : tensor<9x5x4xf32>
// %v4 = arg() : tensor<9x4x3xf32>
// %v5 = batch_matmul(%v3, %v4) : tensor<9x5x3xf32>
// outputs: %v2, %v5
func.func @main(%v4: tensor<9x4x3xf32>) -> (tensor<9x5x4xf32>, tensor<9x5x3xf32>) {
  %v0_e_1 = tensor.empty() : tensor<9x5x4xf32>
  %v0_c_2 = arith.constant 5.000000000e-01 : f32
  %v0 = linalg.fill ins(%v0_c_2 : f32) outs(%v0_e_1 : tensor<9x5x4xf32>) -> tensor<9x5x4xf32>
  %v1_e_7 = tensor.empty() : tensor<9x5x4xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v0 : tensor<9x5x4xf32>) outs(%v1_e_7 : tensor<9x5x4xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = arith.negf %i0 : f32
    %one_6 = arith.constant 5.000000000e-01 : f32
    %t_3 = arith.mulf %t_4, %one_6 : f32
    linalg.yield %t_3 : f32
  } -> tensor<9x5x4xf32>
  %v2_e_12 = tensor.empty() : tensor<9x5x4xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v0 : tensor<9x5x4xf32>) outs(%v2_e_12 : tensor<9x5x4xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_10 = arith.constant 5.000000000e-01 : f32
    %t_9 = arith.mulf %i0, %one_10 : f32
    %one_11 = arith.constant 5.000000000e-01 : f32
    %t_8 = arith.mulf %t_9, %one_11 : f32
    linalg.yield %t_8 : f32
  } -> tensor<9x5x4xf32>
  %v3_e_14 = tensor.empty() : tensor<9x5x4xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v1, %v2 : tensor<9x5x4xf32>, tensor<9x5x4xf32>) outs(%v3_e_14 : tensor<9x5x4xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_13 = arith.maximumf %i0, %i1 : f32
    linalg.yield %t_13 : f32
  } -> tensor<9x5x4xf32>
  %v5_e_15 = tensor.empty() : tensor<9x5x3xf32>
  %v5_c_16 = arith.constant 5.000000000e-01 : f32
  %v5_f_17 = linalg.fill ins(%v5_c_16 : f32) outs(%v5_e_15 : tensor<9x5x3xf32>) -> tensor<9x5x3xf32>
  %v5 = linalg.batch_matmul ins(%v3, %v4 : tensor<9x5x4xf32>, tensor<9x4x3xf32>) outs(%v5_f_17 : tensor<9x5x3xf32>) -> tensor<9x5x3xf32>
  return %v2, %v5 : tensor<9x5x4xf32>, tensor<9x5x3xf32>
}
