// const-read-scalar: fixed: rule const-read keeps a constant-index read out of a group reducing to a scalar
// a mean over everything of exp(tanh(x[0, ...])) with a max epilogue, one group of --fusion=cost: IREE 3.13 llvm-cpu codegen fails ("'vector.contract' op invalid accumulator/result vector shape"); the fallback had covered it
// found by fusion-bench fuzz (seed 20920); original finding:
// fusion=cost: fallback: group 1 failed to compile in IREE ('vector.contract' op invalid accumulator/result vector shape); left to IREE's own fusion
// inputs, float64 reference and bounds: const-read-scalar.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x8x6x10xf32>
// %v1 = elementwise exp(tanh(x0)) maps [(None, 1, 2, 3)](%v0) : tensor<1x8x6x10xf32>
// %v2 = reduce mean over dims [0, 1, 2, 3](%v1) : tensor<f32>
// %v3 = elementwise max(x0, tanh(x1)) maps [(0, 1, 2, 3), ()](%v1, %v2) : tensor<1x8x6x10xf32>
// %v4 = reduce sum over dims [0, 3](%v3) : tensor<8x6xf32>
// %v5 = expand [(0, 1), (2,)](%v4) : tensor<4x2x6xf32>
// outputs: %v5
func.func @main(%v0: tensor<1x8x6x10xf32>) -> (tensor<4x2x6xf32>) {
  %v1_e_5 = tensor.empty() : tensor<1x8x6x10xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v0 : tensor<1x8x6x10xf32>) outs(%v1_e_5 : tensor<1x8x6x10xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_2 = math.tanh %i0 : f32
    %t_1 = math.exp %t_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<1x8x6x10xf32>
  %v2_e_6 = tensor.empty() : tensor<f32>
  %v2_c_7 = arith.constant 0.000000000e+00 : f32
  %v2_f_8 = linalg.fill ins(%v2_c_7 : f32) outs(%v2_e_6 : tensor<f32>) -> tensor<f32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%v1 : tensor<1x8x6x10xf32>) outs(%v2_f_8 : tensor<f32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_10 = arith.constant 2.083333442e-03 : f32
    %t_9 = arith.mulf %i0, %t_10 : f32
    %t_11 = arith.addf %t_9, %o : f32
    linalg.yield %t_11 : f32
  } -> tensor<f32>
  %v3_e_15 = tensor.empty() : tensor<1x8x6x10xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v1, %v2 : tensor<1x8x6x10xf32>, tensor<f32>) outs(%v3_e_15 : tensor<1x8x6x10xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_13 = math.tanh %i1 : f32
    %t_12 = arith.maximumf %i0, %t_13 : f32
    linalg.yield %t_12 : f32
  } -> tensor<1x8x6x10xf32>
  %v4_e_16 = tensor.empty() : tensor<8x6xf32>
  %v4_c_17 = arith.constant 0.000000000e+00 : f32
  %v4_f_18 = linalg.fill ins(%v4_c_17 : f32) outs(%v4_e_16 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel", "reduction"]} ins(%v3 : tensor<1x8x6x10xf32>) outs(%v4_f_18 : tensor<8x6xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_19 = arith.addf %i0, %o : f32
    linalg.yield %t_19 : f32
  } -> tensor<8x6xf32>
  %v5 = tensor.expand_shape %v4 [[0, 1], [2]] output_shape [4, 2, 6] : tensor<8x6xf32> into tensor<4x2x6xf32>
  return %v5 : tensor<4x2x6xf32>
}
