// splat-sumsq: rule splat-reduction
// a sum of squares of a splat (ten 0.5s) with the fill in the reduction's dispatch: IREE 3.13 computes it wrong, no error
// found by fusion-bench fuzz (seed 15003; 15132 the same); original finding:
// fusion=greedy: mismatch: output 4: 1/1 elements outside the bound; worst at (): got 2.25, float64 4.5, bound 2.06e-06
// inputs, float64 reference and bounds: splat-sumsq.npz (test/python/test_fuzz_regressions.py)
// %v0 = fill 0.5() : tensor<10xf32>
// %v1 = reduce sumsq over dims [0](%v0) : tensor<f32>
// outputs: %v1
func.func @main() -> (tensor<f32>) {
  %v0_e_1 = tensor.empty() : tensor<10xf32>
  %v0_c_2 = arith.constant 5.000000000e-01 : f32
  %v0 = linalg.fill ins(%v0_c_2 : f32) outs(%v0_e_1 : tensor<10xf32>) -> tensor<10xf32>
  %v1_e_3 = tensor.empty() : tensor<f32>
  %v1_c_4 = arith.constant 0.000000000e+00 : f32
  %v1_f_5 = linalg.fill ins(%v1_c_4 : f32) outs(%v1_e_3 : tensor<f32>) -> tensor<f32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%v0 : tensor<10xf32>) outs(%v1_f_5 : tensor<f32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_6 = arith.mulf %i0, %i0 : f32
    %t_7 = arith.addf %t_6, %o : f32
    linalg.yield %t_7 : f32
  } -> tensor<f32>
  return %v1 : tensor<f32>
}
