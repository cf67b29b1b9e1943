// fold-duplicate-result: compiles as one group (was a fallback while IREE's compute barriers sat in our regions)
// a region yielding a and neg(neg(a)): IREE folds the second into the first and fails on a dispatch returning one value twice; the group falls back to IREE
// found by fusion-bench fuzz; original finding:
// fusion=greedy: fallback: group 0 failed to compile in IREE ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: fold-duplicate-result.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<16x32xf32>
// %v1 = elementwise tanh(x0) maps [(0, 1)](%v0) : tensor<16x32xf32>
// %v2 = elementwise neg(x0) maps [(0, 1)](%v1) : tensor<16x32xf32>
// %v3 = elementwise neg(x0) maps [(0, 1)](%v2) : tensor<16x32xf32>
// outputs: %v1, %v3
func.func @main(%v0: tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %v1_e_3 = tensor.empty() : tensor<16x32xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<16x32xf32>) outs(%v1_e_3 : tensor<16x32xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_1 = math.tanh %i0 : f32
    linalg.yield %t_1 : f32
  } -> tensor<16x32xf32>
  %v2_e_6 = tensor.empty() : tensor<16x32xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<16x32xf32>) outs(%v2_e_6 : tensor<16x32xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = arith.negf %i0 : f32
    linalg.yield %t_4 : f32
  } -> tensor<16x32xf32>
  %v3_e_9 = tensor.empty() : tensor<16x32xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<16x32xf32>) outs(%v3_e_9 : tensor<16x32xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_7 = arith.negf %i0 : f32
    linalg.yield %t_7 : f32
  } -> tensor<16x32xf32>
  return %v1, %v3 : tensor<16x32xf32>, tensor<16x32xf32>
}
