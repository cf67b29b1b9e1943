// strided-slice-escaping: rule copy-result
// a strided extract_slice fused as a reduction's prologue while its result also leaves the region: same error
// found by fusion-bench fuzz; original finding:
// fusion=cost: error: compile: CompileError: <string>:6:9: error: 'linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.
// inputs, float64 reference and bounds: strided-slice-escaping.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<9x31x1x12xf32>
// %v1 = slice offsets [0, 1, 0, 0] strides [1, 2, 1, 2](%v0) : tensor<8x11x1x5xf32>
// %v2 = reduce max over dims [0, 1, 2](%v1) : tensor<5xf32>
// %v3 = expand [(0, 1, 2, 3)](%v2) : tensor<1x1x1x5xf32>
// %v4 = elementwise add(x0, x1) maps [(0, 1, 2, 3), (2, None, None, 3)](%v1, %v3) : tensor<8x11x1x5xf32>
// outputs: %v4
func.func @main(%v0: tensor<9x31x1x12xf32>) -> (tensor<8x11x1x5xf32>) {
  %v1 = tensor.extract_slice %v0[0, 1, 0, 0] [8, 11, 1, 5] [1, 2, 1, 2] : tensor<9x31x1x12xf32> to tensor<8x11x1x5xf32>
  %v2_e_1 = tensor.empty() : tensor<5xf32>
  %v2_c_2 = arith.constant 0xFF800000 : f32
  %v2_f_3 = linalg.fill ins(%v2_c_2 : f32) outs(%v2_e_1 : tensor<5xf32>) -> tensor<5xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>], iterator_types = ["reduction", "reduction", "reduction", "parallel"]} ins(%v1 : tensor<8x11x1x5xf32>) outs(%v2_f_3 : tensor<5xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = arith.maximumf %i0, %o : f32
    linalg.yield %t_4 : f32
  } -> tensor<5xf32>
  %v3 = tensor.expand_shape %v2 [[0, 1, 2, 3]] output_shape [1, 1, 1, 5] : tensor<5xf32> into tensor<1x1x1x5xf32>
  %v4_e_6 = tensor.empty() : tensor<8x11x1x5xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v1, %v3 : tensor<8x11x1x5xf32>, tensor<1x1x1x5xf32>) outs(%v4_e_6 : tensor<8x11x1x5xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_5 = arith.addf %i0, %i1 : f32
    linalg.yield %t_5 : f32
  } -> tensor<8x11x1x5xf32>
  return %v4 : tensor<8x11x1x5xf32>
}
