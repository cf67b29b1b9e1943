// offset-reader-chain: fixed: handoff's misfused_reads follows elementwise chains to a window/offset reader
// a returned exp, squared, then read at an offset (d1 + 2) and padded: the plan handed all three to IREE (the reader is padded, its producers feed only it), which fused them into one dispatch over the reader's loops and computed the returned exp only in the columns the reader reads (62/124 wrong), also with --fusion=iree
// found by fusion-bench fuzz (seed 21329); original finding:
// fusion=cost: mismatch: output 1: 62/124 elements outside the bound; worst at (6, 0): got 4.151097, float64 0.3308046, bound 3.15e-07
// inputs, float64 reference and bounds: offset-reader-chain.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<31x4xf32>
// %v1 = elementwise exp(min(half(x0), 0.25)) maps [(0, 1)](%v0) : tensor<31x4xf32>
// %v2 = elementwise square(x0) maps [(0, 1)](%v1) : tensor<31x4xf32>
// %v3 = transpose [1, 0](%v1) : tensor<4x31xf32>
// %v4 = transpose [1, 0](%v3) : tensor<31x4xf32>
// %v5 = stencil taps [2](%v2) : tensor<31x2xf32>
// %v6 = pad low [0, 0] high [2, 1] value 0.5(%v5) : tensor<33x3xf32>
// outputs: %v6, %v4
func.func @main(%v0: tensor<31x4xf32>) -> (tensor<33x3xf32>, tensor<31x4xf32>) {
  %v1_e_7 = tensor.empty() : tensor<31x4xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<31x4xf32>) outs(%v1_e_7 : tensor<31x4xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_4 = arith.constant 5.000000000e-01 : f32
    %t_3 = arith.mulf %i0, %one_4 : f32
    %t_5 = arith.constant 2.500000000e-01 : f32
    %t_2 = arith.minimumf %t_3, %t_5 : f32
    %t_1 = math.exp %t_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<31x4xf32>
  %v2_e_10 = tensor.empty() : tensor<31x4xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<31x4xf32>) outs(%v2_e_10 : tensor<31x4xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_8 = arith.mulf %i0, %i0 : f32
    linalg.yield %t_8 : f32
  } -> tensor<31x4xf32>
  %v3_e_11 = tensor.empty() : tensor<4x31xf32>
  %v3 = linalg.transpose ins(%v1 : tensor<31x4xf32>) outs(%v3_e_11 : tensor<4x31xf32>) permutation = [1, 0]
  %v4_e_12 = tensor.empty() : tensor<31x4xf32>
  %v4 = linalg.transpose ins(%v3 : tensor<4x31xf32>) outs(%v4_e_12 : tensor<31x4xf32>) permutation = [1, 0]
  %v5_e_15 = tensor.empty() : tensor<31x2xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<31x4xf32>) outs(%v5_e_15 : tensor<31x2xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_13 = arith.constant 5.000000000e-01 : f32
    %t_14 = arith.mulf %i0, %t_13 : f32
    linalg.yield %t_14 : f32
  } -> tensor<31x2xf32>
  %v6_c_16 = arith.constant 5.000000000e-01 : f32
  %v6 = tensor.pad %v5 low[0, 0] high[2, 1] {
  ^bb0(%p0: index, %p1: index):
    tensor.yield %v6_c_16 : f32
  } : tensor<31x2xf32> to tensor<33x3xf32>
  return %v6, %v4 : tensor<33x3xf32>, tensor<31x4xf32>
}
