// broadcast-result: fixed: rule broadcast-result keeps a returned member that another member broadcasts apart
// a relu of a bias row, returned, and read by an elementwise op over a matrix through (d1): greedy and cost formed one group, which IREE 3.13 llvm-cpu fails to compile ('vector.store' op write affecting operations on global resources are restricted to workgroup distributed contexts); the fallback had covered it
// found by fusion-bench fuzz (seed 21223); original finding:
// fusion=greedy: fallback: group 2 failed to compile in IREE ('vector.store' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: broadcast-result.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<32x12xf32>
// %v1 = arg() : tensor<12xf32>
// %v2 = elementwise relu(x0) maps [(0,)](%v1) : tensor<12xf32>
// %v3 = elementwise square(exp(max(half(x1), x0))) maps [(0, 1), (1,)](%v0, %v2) : tensor<32x12xf32>
// outputs: %v2, %v3
func.func @main(%v0: tensor<32x12xf32>, %v1: tensor<12xf32>) -> (tensor<12xf32>, tensor<32x12xf32>) {
  %v2_e_3 = tensor.empty() : tensor<12xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v1 : tensor<12xf32>) outs(%v2_e_3 : tensor<12xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_2 = arith.constant 0.000000000e+00 : f32
    %t_1 = arith.maximumf %i0, %one_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<12xf32>
  %v3_e_11 = tensor.empty() : tensor<32x12xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0, %v2 : tensor<32x12xf32>, tensor<12xf32>) outs(%v3_e_11 : tensor<32x12xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %one_8 = arith.constant 5.000000000e-01 : f32
    %t_7 = arith.mulf %i1, %one_8 : f32
    %t_6 = arith.maximumf %t_7, %i0 : f32
    %t_5 = math.exp %t_6 : f32
    %t_4 = arith.mulf %t_5, %t_5 : f32
    linalg.yield %t_4 : f32
  } -> tensor<32x12xf32>
  return %v2, %v3 : tensor<12xf32>, tensor<32x12xf32>
}
