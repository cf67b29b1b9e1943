// partial-read-chain: fixed: rule partial-read follows elementwise chains from a returned member to a partial reader
// a returned x - b, its relu, and a 2x2 max pool with stride (1, 2) over 13 columns (the last column unread), one group of greedy and cost: the dispatch is tiled by the pool's space, so the returned x - b was written only where the pool reads (its last column 0; 144 of 1872 elements wrong)
// found by fusion-bench fuzz (seed 24538); original finding:
// fusion=greedy: mismatch: output 1: 144/1872 elements outside the bound; worst at (2, 3, 1, 12): got 0, float64 13.13656, bound 0.00109
// inputs, float64 reference and bounds: partial-read-chain.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<3x12x4x13xf32>
// %v1 = arg() : tensor<13xf32>
// %v2 = elementwise sub(x0, x1) maps [(0, 1, 2, 3), (3,)](%v0, %v1) : tensor<3x12x4x13xf32>
// %v3 = elementwise abs(relu(x0)) maps [(0, 1, 2, 3)](%v2) : tensor<3x12x4x13xf32>
// %v4 = pool max window (2, 2) strides (1, 2)(%v3) : tensor<3x12x3x6xf32>
// outputs: %v4, %v2
func.func @main(%v0: tensor<3x12x4x13xf32>, %v1: tensor<13xf32>) -> (tensor<3x12x3x6xf32>, tensor<3x12x4x13xf32>) {
  %v2_e_2 = tensor.empty() : tensor<3x12x4x13xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v0, %v1 : tensor<3x12x4x13xf32>, tensor<13xf32>) outs(%v2_e_2 : tensor<3x12x4x13xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_1 = arith.subf %i0, %i1 : f32
    linalg.yield %t_1 : f32
  } -> tensor<3x12x4x13xf32>
  %v3_e_7 = tensor.empty() : tensor<3x12x4x13xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v2 : tensor<3x12x4x13xf32>) outs(%v3_e_7 : tensor<3x12x4x13xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_5 = arith.constant 0.000000000e+00 : f32
    %t_4 = arith.maximumf %i0, %one_5 : f32
    %t_3 = math.absf %t_4 : f32
    linalg.yield %t_3 : f32
  } -> tensor<3x12x4x13xf32>
  %v4_e_8 = tensor.empty() : tensor<3x12x3x6xf32>
  %v4_c_9 = arith.constant 0xFF800000 : f32
  %v4_f_10 = linalg.fill ins(%v4_c_9 : f32) outs(%v4_e_8 : tensor<3x12x3x6xf32>) -> tensor<3x12x3x6xf32>
  %v4_w_11 = tensor.empty() : tensor<2x2xf32>
  %v4 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%v3, %v4_w_11 : tensor<3x12x4x13xf32>, tensor<2x2xf32>) outs(%v4_f_10 : tensor<3x12x3x6xf32>) -> tensor<3x12x3x6xf32>
  return %v4, %v2 : tensor<3x12x3x6xf32>, tensor<3x12x4x13xf32>
}
