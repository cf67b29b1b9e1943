// scalar-result: rule scalar-result
// a rank-0 op read as a scalar by a 4-D op of its group while its result also leaves the region: 'write affecting operations on global resources ...'
// found by fusion-bench fuzz; original finding:
// fusion=cost: fallback: group 2 failed to compile in IREE ('memref.store' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: scalar-result.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<13xf32>
// %v1 = arg() : tensor<f32>
// %v2 = elementwise tanh(x0) maps [()](%v1) : tensor<f32>
// %v3 = elementwise add(x0, x1) maps [(0,), ()](%v0, %v2) : tensor<13xf32>
// %v4 = arg() : tensor<1x1x11x7xf32>
// %v5 = elementwise half(add(relu(x1), sub(x0, x2))) maps [(), (None, 0, 2, 3), ()](%v1, %v4, %v2) : tensor<1x1x11x7xf32>
// outputs: %v3, %v5
func.func @main(%v0: tensor<13xf32>, %v1: tensor<f32>, %v4: tensor<1x1x11x7xf32>) -> (tensor<13xf32>, tensor<1x1x11x7xf32>) {
  %v2_e_3 = tensor.empty() : tensor<f32>
  %v2 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%v1 : tensor<f32>) outs(%v2_e_3 : tensor<f32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_1 = math.tanh %i0 : f32
    linalg.yield %t_1 : f32
  } -> tensor<f32>
  %v3_e_5 = tensor.empty() : tensor<13xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v0, %v2 : tensor<13xf32>, tensor<f32>) outs(%v3_e_5 : tensor<13xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_4 = arith.addf %i0, %i1 : f32
    linalg.yield %t_4 : f32
  } -> tensor<13xf32>
  %v5_e_12 = tensor.empty() : tensor<1x1x11x7xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (0, d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v1, %v4, %v2 : tensor<f32>, tensor<1x1x11x7xf32>, tensor<f32>) outs(%v5_e_12 : tensor<1x1x11x7xf32>) {
  ^bb0(%i0: f32, %i1: f32, %i2: f32, %o: f32):
    %one_9 = arith.constant 0.000000000e+00 : f32
    %t_8 = arith.maximumf %i1, %one_9 : f32
    %t_10 = arith.subf %i0, %i2 : f32
    %t_7 = arith.addf %t_8, %t_10 : f32
    %one_11 = arith.constant 5.000000000e-01 : f32
    %t_6 = arith.mulf %t_7, %one_11 : f32
    linalg.yield %t_6 : f32
  } -> tensor<1x1x11x7xf32>
  return %v3, %v5 : tensor<13xf32>, tensor<1x1x11x7xf32>
}
