// fusion-bench fuzz reproducer: seed 17198, 3 ops, shrunk from 13 ops
// fusion=greedy: mismatch: output 1: 1/1 elements outside the bound; worst at (): got 0.1875, float64 2.0625, bound 4.43e-06
// inputs, float64 reference and bounds: splat-cloned.npz
// rerun: fusion-opt splat-cloned.mlir --fusion=greedy --emit=vmfb -o /tmp/r.vmfb
// %v0 = arg() : tensor<8x33xf32>
// %v1 = fill 2.0() : tensor<33xf32>
// %v2 = elementwise exp(add(recip1p(x1), x0)) maps [(0, 1), (1,)](%v0, %v1) : tensor<8x33xf32>
// %v3 = reduce sumsq over dims [0](%v1) : tensor<f32>
// outputs: %v2, %v3
func.func @main(%v0: tensor<8x33xf32>) -> (tensor<8x33xf32>, tensor<f32>) {
  %v1_e_1 = tensor.empty() : tensor<33xf32>
  %v1_c_2 = arith.constant 2.000000000e+00 : f32
  %v1 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<33xf32>) -> tensor<33xf32>
  %v2_e_10 = tensor.empty() : tensor<8x33xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0, %v1 : tensor<8x33xf32>, tensor<33xf32>) outs(%v2_e_10 : tensor<8x33xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %one_6 = arith.constant 1.000000000e+00 : f32
    %t_7 = math.absf %i1 : f32
    %t_8 = arith.addf %t_7, %one_6 : f32
    %t_5 = arith.divf %one_6, %t_8 : f32
    %t_4 = arith.addf %t_5, %i0 : f32
    %t_3 = math.exp %t_4 : f32
    linalg.yield %t_3 : f32
  } -> tensor<8x33xf32>
  %v3_e_11 = tensor.empty() : tensor<f32>
  %v3_c_12 = arith.constant 0.000000000e+00 : f32
  %v3_f_13 = linalg.fill ins(%v3_c_12 : f32) outs(%v3_e_11 : tensor<f32>) -> tensor<f32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%v1 : tensor<33xf32>) outs(%v3_f_13 : tensor<f32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_14 = arith.mulf %i0, %i0 : f32
    %t_15 = arith.addf %t_14, %o : f32
    linalg.yield %t_15 : f32
  } -> tensor<f32>
  return %v2, %v3 : tensor<8x33xf32>, tensor<f32>
}
