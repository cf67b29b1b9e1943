// root-position: fixed: rule root-space tracks which root element each epilogue loop meets, through permuting epilogues
// a conv, tanh of its result read through (d3, d0, d2, d1), and a product of that tanh and the conv result: one group of --fusion=cost, which IREE 3.13 llvm-cpu failed to translate; the fallback had covered it
// found by fusion-bench fuzz (seed 25336); original finding:
// fusion=cost: fallback: group 1 failed to compile in IREE (failed to run translation of source executable to target executable for backend #hal.executable.target<...>)
// inputs, float64 reference and bounds: root-position.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<2x2x9x6xf32>
// %v1 = arg() : tensor<2x2x2x3xf32>
// %v2 = conv strides (1, 2) dilations (1, 1)(%v0, %v1) : tensor<2x2x8x2xf32>
// %v3 = elementwise tanh(x0) maps [(3, 0, 2, 1)](%v2) : tensor<2x2x8x2xf32>
// %v4 = elementwise mul(x0, x1) maps [(0, 1, 2, 3), (0, 1, 2, 3)](%v3, %v2) : tensor<2x2x8x2xf32>
// outputs: %v4
func.func @main(%v0: tensor<2x2x9x6xf32>, %v1: tensor<2x2x2x3xf32>) -> (tensor<2x2x8x2xf32>) {
  %v2_e_1 = tensor.empty() : tensor<2x2x8x2xf32>
  %v2_c_2 = arith.constant 0.000000000e+00 : f32
  %v2_f_3 = linalg.fill ins(%v2_c_2 : f32) outs(%v2_e_1 : tensor<2x2x8x2xf32>) -> tensor<2x2x8x2xf32>
  %v2 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%v0, %v1 : tensor<2x2x9x6xf32>, tensor<2x2x2x3xf32>) outs(%v2_f_3 : tensor<2x2x8x2xf32>) -> tensor<2x2x8x2xf32>
  %v3_e_6 = tensor.empty() : tensor<2x2x8x2xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v2 : tensor<2x2x8x2xf32>) outs(%v3_e_6 : tensor<2x2x8x2xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = math.tanh %i0 : f32
    linalg.yield %t_4 : f32
  } -> tensor<2x2x8x2xf32>
  %v4_e_8 = tensor.empty() : tensor<2x2x8x2xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v3, %v2 : tensor<2x2x8x2xf32>, tensor<2x2x8x2xf32>) outs(%v4_e_8 : tensor<2x2x8x2xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_7 = arith.mulf %i0, %i1 : f32
    linalg.yield %t_7 : f32
  } -> tensor<2x2x8x2xf32>
  return %v4 : tensor<2x2x8x2xf32>
}
