// fusion-bench fuzz reproducer: seed 17109, 3 ops, shrunk from 12 ops
// fusion=cost: mismatch: output 0: 800/800 elements outside the bound; worst at (1, 17, 0, 4): got 1.711993, float64 6.381147, bound 6.29e-06
// inputs, float64 reference and bounds: permuted-read.npz
// rerun: fusion-opt permuted-read.mlir --fusion=cost --emit=vmfb -o /tmp/r.vmfb
// %v0 = arg() : tensor<5x32x1x5xf32>
// %v1 = reduce max over dims [0](%v0) : tensor<32x1x5xf32>
// %v2 = elementwise mul(x0, recip1p(x1)) maps [(0, 1, 2, 3), (1, 2, 3)](%v0, %v1) : tensor<5x32x1x5xf32>
// %v3 = elementwise sqrt1p(mul(x1, x0)) maps [(0, 1, 2, 3), (3, 1, 2, 0)](%v2, %v2) : tensor<5x32x1x5xf32>
// outputs: %v3
func.func @main(%v0: tensor<5x32x1x5xf32>) -> (tensor<5x32x1x5xf32>) {
  %v1_e_1 = tensor.empty() : tensor<32x1x5xf32>
  %v1_c_2 = arith.constant 0xFF800000 : f32
  %v1_f_3 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<32x1x5xf32>) -> tensor<32x1x5xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>], iterator_types = ["reduction", "parallel", "parallel", "parallel"]} ins(%v0 : tensor<5x32x1x5xf32>) outs(%v1_f_3 : tensor<32x1x5xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = arith.maximumf %i0, %o : f32
    linalg.yield %t_4 : f32
  } -> tensor<32x1x5xf32>
  %v2_e_10 = tensor.empty() : tensor<5x32x1x5xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v0, %v1 : tensor<5x32x1x5xf32>, tensor<32x1x5xf32>) outs(%v2_e_10 : tensor<5x32x1x5xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %one_7 = arith.constant 1.000000000e+00 : f32
    %t_8 = math.absf %i1 : f32
    %t_9 = arith.addf %t_8, %one_7 : f32
    %t_6 = arith.divf %one_7, %t_9 : f32
    %t_5 = arith.mulf %i0, %t_6 : f32
    linalg.yield %t_5 : f32
  } -> tensor<5x32x1x5xf32>
  %v3_e_16 = tensor.empty() : tensor<5x32x1x5xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d2, d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v2, %v2 : tensor<5x32x1x5xf32>, tensor<5x32x1x5xf32>) outs(%v3_e_16 : tensor<5x32x1x5xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_12 = arith.mulf %i1, %i0 : f32
    %one_13 = arith.constant 1.000000000e+00 : f32
    %t_14 = math.absf %t_12 : f32
    %t_15 = arith.addf %t_14, %one_13 : f32
    %t_11 = math.sqrt %t_15 : f32
    linalg.yield %t_11 : f32
  } -> tensor<5x32x1x5xf32>
  return %v3 : tensor<5x32x1x5xf32>
}
