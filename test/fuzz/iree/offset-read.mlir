// offset-read: rule offset-read
// an op reading its input at an offset (d1 + 2) fused with a two-input consumer: IREE 3.13 segfaults (also with --fusion=iree)
// found by fusion-bench fuzz; original finding:
// fusion=greedy: crash: crash: signal 11
// inputs, float64 reference and bounds: offset-read.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<4x13xf32>
// %v1 = stencil taps [2](%v0) : tensor<4x11xf32>
// %v2 = arg() : tensor<4xf32>
// %v3 = elementwise max(x0, x1) maps [(0, 1), (0,)](%v1, %v2) : tensor<4x11xf32>
// outputs: %v3
func.func @main(%v0: tensor<4x13xf32>, %v2: tensor<4xf32>) -> (tensor<4x11xf32>) {
  %v1_e_3 = tensor.empty() : tensor<4x11xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<4x13xf32>) outs(%v1_e_3 : tensor<4x11xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_1 = arith.constant 1.500000000e+00 : f32
    %t_2 = arith.mulf %i0, %t_1 : f32
    linalg.yield %t_2 : f32
  } -> tensor<4x11xf32>
  %v3_e_5 = tensor.empty() : tensor<4x11xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1, %v2 : tensor<4x11xf32>, tensor<4xf32>) outs(%v3_e_5 : tensor<4x11xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_4 = arith.maximumf %i0, %i1 : f32
    linalg.yield %t_4 : f32
  } -> tensor<4x11xf32>
  return %v3 : tensor<4x11xf32>
}
