// slice-result-escaping: rule copy-result
// a unit-stride extract_slice fused into its consumer while its result also leaves the region: same error
// found by fusion-bench fuzz; original finding:
// fusion=cost: fallback: group 1 failed to compile in IREE ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: slice-result-escaping.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x12xf32>
// %v1 = slice offsets [0, 1] strides [1, 1](%v0) : tensor<1x10xf32>
// %v2 = elementwise exp(add(x0, 0.5)) maps [(None, 0)](%v1) : tensor<10x1xf32>
// outputs: %v1, %v2
func.func @main(%v0: tensor<1x12xf32>) -> (tensor<1x10xf32>, tensor<10x1xf32>) {
  %v1 = tensor.extract_slice %v0[0, 1] [1, 10] [1, 1] : tensor<1x12xf32> to tensor<1x10xf32>
  %v2_e_5 = tensor.empty() : tensor<10x1xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<1x10xf32>) outs(%v2_e_5 : tensor<10x1xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_3 = arith.constant 5.000000000e-01 : f32
    %t_2 = arith.addf %i0, %t_3 : f32
    %t_1 = math.exp %t_2 : f32
    linalg.yield %t_1 : f32
  } -> tensor<10x1xf32>
  return %v1, %v2 : tensor<1x10xf32>, tensor<10x1xf32>
}
