// shared-const-read: rule shared-const-read
// an op read at a constant index (size-1 dim read at 0) by a member that is a result of the group, while another member also reads it: 'result is not accessed using a permuted projection'
// found by fusion-bench fuzz (seeds 13675, 13647); original finding:
// fusion=cost: fallback: group 1 failed to compile in IREE ('linalg.generic' op unhandled tiled implementation generation when result is not accessed using a permuted projection); left to IREE's own fusion
// inputs, float64 reference and bounds: shared-const-read.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x9x32xf32>
// %v1 = elementwise sqrt1p(x0) maps [(None, 1, 2)](%v0) : tensor<1x9x32xf32>
// %v2 = elementwise tanh(x0) maps [(None, 1, 2)](%v1) : tensor<1x9x32xf32>
// %v3 = elementwise max(x0, x1) maps [(0, 1, 2), (0, 1, 2)](%v1, %v2) : tensor<1x9x32xf32>
// outputs: %v3, %v2
func.func @main(%v0: tensor<1x9x32xf32>) -> (tensor<1x9x32xf32>, tensor<1x9x32xf32>) {
  %v1_e_5 = tensor.empty() : tensor<1x9x32xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v0 : tensor<1x9x32xf32>) outs(%v1_e_5 : tensor<1x9x32xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_2 = arith.constant 1.000000000e+00 : f32
    %t_3 = math.absf %i0 : f32
    %t_4 = arith.addf %t_3, %one_2 : f32
    %t_1 = math.sqrt %t_4 : f32
    linalg.yield %t_1 : f32
  } -> tensor<1x9x32xf32>
  %v2_e_8 = tensor.empty() : tensor<1x9x32xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v1 : tensor<1x9x32xf32>) outs(%v2_e_8 : tensor<1x9x32xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_6 = math.tanh %i0 : f32
    linalg.yield %t_6 : f32
  } -> tensor<1x9x32xf32>
  %v3_e_10 = tensor.empty() : tensor<1x9x32xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v1, %v2 : tensor<1x9x32xf32>, tensor<1x9x32xf32>) outs(%v3_e_10 : tensor<1x9x32xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_9 = arith.maximumf %i0, %i1 : f32
    linalg.yield %t_9 : f32
  } -> tensor<1x9x32xf32>
  return %v3, %v2 : tensor<1x9x32xf32>, tensor<1x9x32xf32>
}
