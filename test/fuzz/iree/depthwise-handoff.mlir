// depthwise-handoff: fixed: conv-rewrite keeps a depthwise conv with a unit output dim and unread input
// a depthwise conv whose output width is 1 with an unread input column (stride 2): handed back to IREE by --fusion=cost (conv-rewrite), IREE's own rewrite fails to verify ('inferred ... to be 3, but found 2'), also with --fusion=iree; greedy/none compile it
// found by fusion-bench fuzz; original finding:
// fusion=cost: error: compile: CompileError: <string>:5:9: error: 'linalg.generic' op inferred input/output operand #1 has shape's dimension #2 to be 3, but found 2
// inputs, float64 reference and bounds: depthwise-handoff.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x4x10x3xf32>
// %v1 = arg() : tensor<4x3x2xf32>
// %v2 = depthwise conv strides (2, 2) dilations (1, 1)(%v0, %v1) : tensor<1x4x4x1xf32>
// outputs: %v2
func.func @main(%v0: tensor<1x4x10x3xf32>, %v1: tensor<4x3x2xf32>) -> (tensor<1x4x4x1xf32>) {
  %v2_e_1 = tensor.empty() : tensor<1x4x4x1xf32>
  %v2_c_2 = arith.constant 0.000000000e+00 : f32
  %v2_f_3 = linalg.fill ins(%v2_c_2 : f32) outs(%v2_e_1 : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  %v2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[2, 2]> : tensor<2xi64>} ins(%v0, %v1 : tensor<1x4x10x3xf32>, tensor<4x3x2xf32>) outs(%v2_f_3 : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return %v2 : tensor<1x4x4x1xf32>
}
