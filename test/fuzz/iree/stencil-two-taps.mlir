// stencil-two-taps: IREE bug, not fusion (xfail)
// two reads of one operand at different offsets segfault IREE 3.13 even unfused (--fusion=none or iree); the fuzz generator makes one-tap stencils only
// found by fusion-bench fuzz; original finding:
// fusion=none: crash: crash: signal 11
// inputs, float64 reference and bounds: stencil-two-taps.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x9xf32>
// %v1 = stencil taps [1, 3](%v0) : tensor<1x6xf32>
// outputs: %v1
func.func @main(%v0: tensor<1x9xf32>) -> (tensor<1x6xf32>) {
  %v1_e_6 = tensor.empty() : tensor<1x6xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 1)>, affine_map<(d0, d1) -> (d0, d1 + 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0, %v0 : tensor<1x9xf32>, tensor<1x9xf32>) outs(%v1_e_6 : tensor<1x6xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_1 = arith.constant 2.500000000e-01 : f32
    %t_2 = arith.mulf %i0, %t_1 : f32
    %t_3 = arith.constant 1.500000000e+00 : f32
    %t_4 = arith.mulf %i1, %t_3 : f32
    %t_5 = arith.addf %t_2, %t_4 : f32
    linalg.yield %t_5 : f32
  } -> tensor<1x6xf32>
  return %v1 : tensor<1x6xf32>
}
