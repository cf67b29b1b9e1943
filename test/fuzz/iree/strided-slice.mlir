// strided-slice: rule copy-result
// an elementwise op and a strided extract_slice of it in one region: 'write affecting operations on global resources are restricted to workgroup distributed contexts'
// found by fusion-bench fuzz; original finding:
// fusion=greedy: error: compile: CompileError: <string>:35:9: error: 'linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.
// inputs, float64 reference and bounds: strided-slice.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<12x1x31xf32>
// %v1 = arg() : tensor<12x1xf32>
// %v2 = elementwise exp(sub(x0, x1)) maps [(0, 1, 2), (0, 1)](%v0, %v1) : tensor<12x1x31xf32>
// %v3 = slice offsets [6, 0, 13] strides [1, 1, 2](%v2) : tensor<4x1x7xf32>
// outputs: %v3
func.func @main(%v0: tensor<12x1x31xf32>, %v1: tensor<12x1xf32>) -> (tensor<4x1x7xf32>) {
  %v2_e_4 = tensor.empty() : tensor<12x1x31xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v0, %v1 : tensor<12x1x31xf32>, tensor<12x1xf32>) outs(%v2_e_4 : tensor<12x1x31xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_2 = arith.subf %i0, %i1 : f32
    %t_1 = math.exp %t_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<12x1x31xf32>
  %v3 = tensor.extract_slice %v2[6, 0, 13] [4, 1, 7] [1, 1, 2] : tensor<12x1x31xf32> to tensor<4x1x7xf32>
  return %v3 : tensor<4x1x7xf32>
}
