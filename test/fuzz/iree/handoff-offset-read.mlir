// handoff-offset-read: fixed: feeds-iree keeps ops that read at an offset
// --fusion=cost hands the lone slice back to IREE, then (feeds-iree) the ops feeding it; IREE's own dispatch formation fuses the offset read with its consumer and segfaults (as --fusion=iree does); greedy/none compile it
// found by fusion-bench fuzz; original finding:
// fusion=cost: crash: crash: signal 11
// inputs, float64 reference and bounds: handoff-offset-read.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<5x4xf32>
// %v1 = stencil taps [2](%v0) : tensor<5x2xf32>
// %v2 = arg() : tensor<5x2xf32>
// %v3 = elementwise add(abs(x0), x1) maps [(0, 1), (0, 1)](%v1, %v2) : tensor<5x2xf32>
// %v4 = slice offsets [0, 0] strides [1, 1](%v3) : tensor<1x2xf32>
// outputs: %v4
func.func @main(%v0: tensor<5x4xf32>, %v2: tensor<5x2xf32>) -> (tensor<1x2xf32>) {
  %v1_e_3 = tensor.empty() : tensor<5x2xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<5x4xf32>) outs(%v1_e_3 : tensor<5x2xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_1 = arith.constant 1.500000000e+00 : f32
    %t_2 = arith.mulf %i0, %t_1 : f32
    linalg.yield %t_2 : f32
  } -> tensor<5x2xf32>
  %v3_e_7 = tensor.empty() : tensor<5x2xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1, %v2 : tensor<5x2xf32>, tensor<5x2xf32>) outs(%v3_e_7 : tensor<5x2xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_5 = math.absf %i0 : f32
    %t_4 = arith.addf %t_5, %i1 : f32
    linalg.yield %t_4 : f32
  } -> tensor<5x2xf32>
  %v4 = tensor.extract_slice %v3[0, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<1x2xf32>
  return %v4 : tensor<1x2xf32>
}
