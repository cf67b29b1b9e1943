// slice-of-result: rule partial-read
// an op whose result leaves the region, read inside it through a tensor.extract_slice of part of it: 'write affecting operations on global resources ...'
// found by fusion-bench fuzz (seed 15080); original finding:
// fusion=cost: fallback: group 0 failed to compile in IREE ('vector.maskedstore' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: slice-of-result.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<31xf32>
// %v1 = elementwise exp(sigmoid(max(x0, 3.0))) maps [(0,)](%v0) : tensor<31xf32>
// %v2 = elementwise sigmoid(x0) maps [(0,)](%v1) : tensor<31xf32>
// %v3 = slice offsets [12] strides [1](%v2) : tensor<10xf32>
// %v4 = reduce max over dims [0](%v2) : tensor<f32>
// %v5 = arg() : tensor<10xf32>
// %v6 = elementwise relu(mul(x1, x0)) maps [(0,), (0,)](%v5, %v3) : tensor<10xf32>
// outputs: %v4, %v6
func.func @main(%v0: tensor<31xf32>, %v5: tensor<10xf32>) -> (tensor<f32>, tensor<10xf32>) {
  %v1_e_10 = tensor.empty() : tensor<31xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v0 : tensor<31xf32>) outs(%v1_e_10 : tensor<31xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = arith.constant 3.000000000e+00 : f32
    %t_3 = arith.maximumf %i0, %t_4 : f32
    %one_5 = arith.constant 1.000000000e+00 : f32
    %t_6 = arith.negf %t_3 : f32
    %t_7 = math.exp %t_6 : f32
    %t_8 = arith.addf %t_7, %one_5 : f32
    %t_2 = arith.divf %one_5, %t_8 : f32
    %t_1 = math.exp %t_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<31xf32>
  %v2_e_16 = tensor.empty() : tensor<31xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v1 : tensor<31xf32>) outs(%v2_e_16 : tensor<31xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_12 = arith.constant 1.000000000e+00 : f32
    %t_13 = arith.negf %i0 : f32
    %t_14 = math.exp %t_13 : f32
    %t_15 = arith.addf %t_14, %one_12 : f32
    %t_11 = arith.divf %one_12, %t_15 : f32
    linalg.yield %t_11 : f32
  } -> tensor<31xf32>
  %v3 = tensor.extract_slice %v2[12] [10] [1] : tensor<31xf32> to tensor<10xf32>
  %v4_e_17 = tensor.empty() : tensor<f32>
  %v4_c_18 = arith.constant 0xFF800000 : f32
  %v4_f_19 = linalg.fill ins(%v4_c_18 : f32) outs(%v4_e_17 : tensor<f32>) -> tensor<f32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%v2 : tensor<31xf32>) outs(%v4_f_19 : tensor<f32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_20 = arith.maximumf %i0, %o : f32
    linalg.yield %t_20 : f32
  } -> tensor<f32>
  %v6_e_24 = tensor.empty() : tensor<10xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v5, %v3 : tensor<10xf32>, tensor<10xf32>) outs(%v6_e_24 : tensor<10xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_22 = arith.mulf %i1, %i0 : f32
    %one_23 = arith.constant 0.000000000e+00 : f32
    %t_21 = arith.maximumf %t_22, %one_23 : f32
    linalg.yield %t_21 : f32
  } -> tensor<10xf32>
  return %v4, %v6 : tensor<f32>, tensor<10xf32>
}
