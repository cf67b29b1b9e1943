// spread-conv: fixed: rule `contraction-prologue` keeps a strided `tensor.insert_slice` out of its conv's group (fusion/legality.py)
// a conv over its input spread out with zeros (ONNX ConvTranspose as imported), the spread fused into the conv's group as a pad prologue: IREE 3.13 failed to compile it ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts); the fallback had covered it. The kernel's width (1) is below its stride (2), so conv-transpose-phases leaves it on every host
// found by fusion-bench fuzz (seed 33025, shrunk from 8 ops, the kernel narrowed from 2 columns to 1); original finding:
// fusion=cost: fallback: group 2 failed to compile in IREE ('linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts.); left to IREE's own fusion
// inputs, float64 reference and bounds: spread-conv.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x3x17x12xf32>
// %v1 = spread offsets [0, 0, 2, 0] strides [1, 1, 3, 2](%v0) : tensor<1x3x55x23xf32>
// %v2 = arg() : tensor<1x3x6x1xf32>
// %v3 = conv strides (1, 1) dilations (1, 1)(%v1, %v2) : tensor<1x1x50x23xf32>
// %v4 = arg() : tensor<1xf32>
// %v5 = elementwise add(x0, x1) maps [(0, 1, 2, 3), (1,)](%v3, %v4) : tensor<1x1x50x23xf32>
// outputs: %v5
func.func @main(%v0: tensor<1x3x17x12xf32>, %v2: tensor<1x3x6x1xf32>, %v4: tensor<1xf32>) -> (tensor<1x1x50x23xf32>) {
  %v1_e_1 = tensor.empty() : tensor<1x3x55x23xf32>
  %v1_c_2 = arith.constant 0.000000000e+00 : f32
  %v1_f_3 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<1x3x55x23xf32>) -> tensor<1x3x55x23xf32>
  %v1 = tensor.insert_slice %v0 into %v1_f_3[0, 0, 2, 0] [1, 3, 17, 12] [1, 1, 3, 2] : tensor<1x3x17x12xf32> into tensor<1x3x55x23xf32>
  %v3_e_4 = tensor.empty() : tensor<1x1x50x23xf32>
  %v3_c_5 = arith.constant 0.000000000e+00 : f32
  %v3_f_6 = linalg.fill ins(%v3_c_5 : f32) outs(%v3_e_4 : tensor<1x1x50x23xf32>) -> tensor<1x1x50x23xf32>
  %v3 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} ins(%v1, %v2 : tensor<1x3x55x23xf32>, tensor<1x3x6x1xf32>) outs(%v3_f_6 : tensor<1x1x50x23xf32>) -> tensor<1x1x50x23xf32>
  %v5_e_8 = tensor.empty() : tensor<1x1x50x23xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v3, %v4 : tensor<1x1x50x23xf32>, tensor<1xf32>) outs(%v5_e_8 : tensor<1x1x50x23xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_7 = arith.addf %i0, %i1 : f32
    linalg.yield %t_7 : f32
  } -> tensor<1x1x50x23xf32>
  return %v5 : tensor<1x1x50x23xf32>
}
