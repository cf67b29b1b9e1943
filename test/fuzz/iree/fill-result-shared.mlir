// fill-result-shared: rule copy-result
// a linalg.fill fused with one consumer while another group also reads it: same error at the fill
// found by fusion-bench fuzz; original finding:
// fusion=cost: error: compile: CompileError: <string>:3:13: error: 'memref.store' op write affecting operations on global resources are restricted to workgroup distributed contexts.
// inputs, float64 reference and bounds: fill-result-shared.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<8x5x7x3xf32>
// %v1 = fill 2.0() : tensor<1xf32>
// %v2 = elementwise exp(square(min(abs(-1.5), max(x1, x0)))) maps [(0, 1, 2, 3), (None,)](%v0, %v1) : tensor<8x5x7x3xf32>
// %v3 = transpose [1, 0, 2, 3](%v2) : tensor<5x8x7x3xf32>
// %v4 = arg() : tensor<3xf32>
// %v5 = elementwise sqrt1p(half(mul(x0, x1))) maps [(None,), (0,)](%v1, %v4) : tensor<3xf32>
// outputs: %v3, %v5
func.func @main(%v0: tensor<8x5x7x3xf32>, %v4: tensor<3xf32>) -> (tensor<5x8x7x3xf32>, tensor<3xf32>) {
  %v1_e_1 = tensor.empty() : tensor<1xf32>
  %v1_c_2 = arith.constant 2.000000000e+00 : f32
  %v1 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<1xf32>) -> tensor<1xf32>
  %v2_e_12 = tensor.empty() : tensor<8x5x7x3xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v0, %v1 : tensor<8x5x7x3xf32>, tensor<1xf32>) outs(%v2_e_12 : tensor<8x5x7x3xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_7 = arith.constant -1.500000000e+00 : f32
    %t_6 = math.absf %t_7 : f32
    %t_9 = arith.maximumf %i1, %i0 : f32
    %t_5 = arith.minimumf %t_6, %t_9 : f32
    %t_4 = arith.mulf %t_5, %t_5 : f32
    %t_3 = math.exp %t_4 : f32
    linalg.yield %t_3 : f32
  } -> tensor<8x5x7x3xf32>
  %v3_e_13 = tensor.empty() : tensor<5x8x7x3xf32>
  %v3 = linalg.transpose ins(%v2 : tensor<8x5x7x3xf32>) outs(%v3_e_13 : tensor<5x8x7x3xf32>) permutation = [1, 0, 2, 3]
  %v5_e_21 = tensor.empty() : tensor<3xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v1, %v4 : tensor<1xf32>, tensor<3xf32>) outs(%v5_e_21 : tensor<3xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_16 = arith.mulf %i0, %i1 : f32
    %one_17 = arith.constant 5.000000000e-01 : f32
    %t_15 = arith.mulf %t_16, %one_17 : f32
    %one_18 = arith.constant 1.000000000e+00 : f32
    %t_19 = math.absf %t_15 : f32
    %t_20 = arith.addf %t_19, %one_18 : f32
    %t_14 = math.sqrt %t_20 : f32
    linalg.yield %t_14 : f32
  } -> tensor<3xf32>
  return %v3, %v5 : tensor<5x8x7x3xf32>, tensor<3xf32>
}
