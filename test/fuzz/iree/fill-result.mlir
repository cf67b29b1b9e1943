// fill-result: rule copy-result
// a linalg.fill that is also a function result, fused with the op reading it: IREE fails at the fill ('write affecting operations on global resources are restricted to workgroup distributed contexts')
// found by fusion-bench fuzz; original finding:
// fusion=greedy: error: compile: CompileError: <string>:3:13: error: 'vector.store' op write affecting operations on global resources are restricted to workgroup distributed contexts.
// inputs, float64 reference and bounds: fill-result.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<3x3xf32>
// %v1 = fill 0.5() : tensor<3x1xf32>
// %v2 = elementwise recip1p(max(x1, x0)) maps [(0, 1), (0, None)](%v0, %v1) : tensor<3x3xf32>
// outputs: %v1, %v2
func.func @main(%v0: tensor<3x3xf32>) -> (tensor<3x1xf32>, tensor<3x3xf32>) {
  %v1_e_1 = tensor.empty() : tensor<3x1xf32>
  %v1_c_2 = arith.constant 5.000000000e-01 : f32
  %v1 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<3x1xf32>) -> tensor<3x1xf32>
  %v2_e_8 = tensor.empty() : tensor<3x3xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0, %v1 : tensor<3x3xf32>, tensor<3x1xf32>) outs(%v2_e_8 : tensor<3x3xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_4 = arith.maximumf %i1, %i0 : f32
    %one_5 = arith.constant 1.000000000e+00 : f32
    %t_6 = math.absf %t_4 : f32
    %t_7 = arith.addf %t_6, %one_5 : f32
    %t_3 = arith.divf %one_5, %t_7 : f32
    linalg.yield %t_3 : f32
  } -> tensor<3x3xf32>
  return %v1, %v2 : tensor<3x1xf32>, tensor<3x3xf32>
}
