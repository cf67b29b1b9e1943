// slice-result-sink: rule copy-result
// an elementwise op reading a size-1 argument at a constant index, then a unit-stride extract_slice of it as the region's result: 'write affecting operations on global resources ...'
// found by fusion-bench fuzz; original finding:
// fusion=greedy: fallback: group 0 failed to compile in IREE ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: slice-result-sink.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<31xf32>
// %v1 = arg() : tensor<1xf32>
// %v2 = elementwise tanh(max(x1, x0)) maps [(0,), (None,)](%v0, %v1) : tensor<31xf32>
// %v3 = slice offsets [1] strides [1](%v2) : tensor<30xf32>
// outputs: %v3
func.func @main(%v0: tensor<31xf32>, %v1: tensor<1xf32>) -> (tensor<30xf32>) {
  %v2_e_4 = tensor.empty() : tensor<31xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v0, %v1 : tensor<31xf32>, tensor<1xf32>) outs(%v2_e_4 : tensor<31xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_2 = arith.maximumf %i1, %i0 : f32
    %t_1 = math.tanh %t_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<31xf32>
  %v3 = tensor.extract_slice %v2[1] [30] [1] : tensor<31xf32> to tensor<30xf32>
  return %v3 : tensor<30xf32>
}
