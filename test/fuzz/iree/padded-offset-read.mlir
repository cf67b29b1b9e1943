// padded-offset-read: fixed: the hand-off `padded` never gives IREE an op that reads at an offset (fusion/handoff.py)
// a stencil (a read at `d1 + 3`) whose result is padded for a second stencil and also read by a reduction of ours: handed to IREE to be written into the padded buffer, IREE 3.13's compiler crashed (SIGSEGV) on the module; the fallback (halving the plan) had covered it
// found by fusion-bench fuzz (seed 34576, 6 of its 17 ops); original finding:
// fusion=cost: fallback: group 4 failed to compile in IREE (IREE's compiler crashed (signal SIGSEGV); left to a smaller plan); the plan compiled without this group (found by halving it): left to IREE's own fusion
// inputs, float64 reference and bounds: padded-offset-read.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<2x24xf32>
// %v1 = arg() : tensor<2x24xf32>
// %v2 = reduce dot over dims [0](%v0, %v1) : tensor<24xf32>
// %v3 = elementwise mul(x0, recip1p(x1)) maps [(0, 1), (1,)](%v0, %v2) : tensor<2x24xf32>
// %v4 = stencil taps [3](%v3) : tensor<2x21xf32>
// %v5 = pad low [0, 1] high [2, 0] value 0.5(%v4) : tensor<4x22xf32>
// %v6 = stencil taps [3](%v5) : tensor<4x19xf32>
// %v7 = arg() : tensor<2x21xf32>
// %v8 = reduce dot over dims [1](%v4, %v7) : tensor<2xf32>
// outputs: %v6, %v8
func.func @main(%v0: tensor<2x24xf32>, %v1: tensor<2x24xf32>, %v7: tensor<2x21xf32>) -> (tensor<4x19xf32>, tensor<2xf32>) {
  %v2_e_1 = tensor.empty() : tensor<24xf32>
  %v2_c_2 = arith.constant 0.000000000e+00 : f32
  %v2_f_3 = linalg.fill ins(%v2_c_2 : f32) outs(%v2_e_1 : tensor<24xf32>) -> tensor<24xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%v0, %v1 : tensor<2x24xf32>, tensor<2x24xf32>) outs(%v2_f_3 : tensor<24xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_4 = arith.mulf %i0, %i1 : f32
    %t_5 = arith.addf %t_4, %o : f32
    linalg.yield %t_5 : f32
  } -> tensor<24xf32>
  %v3_e_11 = tensor.empty() : tensor<2x24xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v0, %v2 : tensor<2x24xf32>, tensor<24xf32>) outs(%v3_e_11 : tensor<2x24xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %one_8 = arith.constant 1.000000000e+00 : f32
    %t_9 = math.absf %i1 : f32
    %t_10 = arith.addf %t_9, %one_8 : f32
    %t_7 = arith.divf %one_8, %t_10 : f32
    %t_6 = arith.mulf %i0, %t_7 : f32
    linalg.yield %t_6 : f32
  } -> tensor<2x24xf32>
  %v4_e_14 = tensor.empty() : tensor<2x21xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v3 : tensor<2x24xf32>) outs(%v4_e_14 : tensor<2x21xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_12 = arith.constant 5.000000000e-01 : f32
    %t_13 = arith.mulf %i0, %t_12 : f32
    linalg.yield %t_13 : f32
  } -> tensor<2x21xf32>
  %v5_c_15 = arith.constant 5.000000000e-01 : f32
  %v5 = tensor.pad %v4 low[0, 1] high[2, 0] {
  ^bb0(%p0: index, %p1: index):
    tensor.yield %v5_c_15 : f32
  } : tensor<2x21xf32> to tensor<4x22xf32>
  %v6_e_18 = tensor.empty() : tensor<4x19xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v5 : tensor<4x22xf32>) outs(%v6_e_18 : tensor<4x19xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_16 = arith.constant 1.500000000e+00 : f32
    %t_17 = arith.mulf %i0, %t_16 : f32
    linalg.yield %t_17 : f32
  } -> tensor<4x19xf32>
  %v8_e_19 = tensor.empty() : tensor<2xf32>
  %v8_c_20 = arith.constant 0.000000000e+00 : f32
  %v8_f_21 = linalg.fill ins(%v8_c_20 : f32) outs(%v8_e_19 : tensor<2xf32>) -> tensor<2xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v4, %v7 : tensor<2x21xf32>, tensor<2x21xf32>) outs(%v8_f_21 : tensor<2xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_22 = arith.mulf %i0, %i1 : f32
    %t_23 = arith.addf %t_22, %o : f32
    linalg.yield %t_23 : f32
  } -> tensor<2xf32>
  return %v6, %v8 : tensor<4x19xf32>, tensor<2xf32>
}
