// fusion-bench fuzz reproducer: seed 27307 (2026-12-05): a returned mean computed from a broadcast read, 2x its value in one region (rule reduction-result-broadcast)
// fusion=cost: mismatch: output 1: 2160/2160 elements outside the bound; worst at (1, 1, 0, 1): got -0.005054871, float64 0.0119037, bound 4.81e-05
// inputs, float64 reference and bounds: seed27307-cost-mismatch.npz
// rerun: fusion-opt seed27307-cost-mismatch.mlir --fusion=cost --emit=vmfb -o /tmp/r.vmfb
// %v0 = arg() : tensor<9x5x2x24xf32>
// %v1 = elementwise sqrt1p(tanh(add(tanh(x0), 3.0))) maps [(0, 1, 2, 3)](%v0) : tensor<9x5x2x24xf32>
// %v2 = elementwise exp(x0) maps [(0, 1, 2, 3)](%v1) : tensor<9x5x2x24xf32>
// %v3 = arg() : tensor<9x5x2x24xf32>
// %v4 = reduce dot over dims [0](%v2, %v3) : tensor<5x2x24xf32>
// %v5 = elementwise max(x0, tanh(x1)) maps [(0, 1, 2, 3), (1, 2, 3)](%v2, %v4) : tensor<9x5x2x24xf32>
// %v6 = reduce mean over dims [3](%v5) : tensor<9x5x2xf32>
// %v7 = elementwise sub(x0, x1) maps [(0, 1, 2, 3), (0, 1, 2)](%v5, %v6) : tensor<9x5x2x24xf32>
// %v8 = reduce sumsq over dims [3](%v7) : tensor<9x5x2xf32>
// %v9 = arg() : tensor<24xf32>
// %v10 = elementwise mul(mul(x0, recip1p(x1)), x2) maps [(0, 1, 2, 3), (0, 1, 2), (3,)](%v7, %v8, %v9) : tensor<9x5x2x24xf32>
// %v11 = transpose [2, 1, 0](%v6) : tensor<2x5x9xf32>
// outputs: %v10, %v11
func.func @main(%v0: tensor<9x5x2x24xf32>, %v3: tensor<9x5x2x24xf32>, %v9: tensor<24xf32>) -> (tensor<9x5x2x24xf32>, tensor<2x5x9xf32>) {
  %v1_e_11 = tensor.empty() : tensor<9x5x2x24xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v0 : tensor<9x5x2x24xf32>) outs(%v1_e_11 : tensor<9x5x2x24xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_4 = math.tanh %i0 : f32
    %t_6 = arith.constant 3.000000000e+00 : f32
    %t_3 = arith.addf %t_4, %t_6 : f32
    %t_2 = math.tanh %t_3 : f32
    %one_8 = arith.constant 1.000000000e+00 : f32
    %t_9 = math.absf %t_2 : f32
    %t_10 = arith.addf %t_9, %one_8 : f32
    %t_1 = math.sqrt %t_10 : f32
    linalg.yield %t_1 : f32
  } -> tensor<9x5x2x24xf32>
  %v2_e_14 = tensor.empty() : tensor<9x5x2x24xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v1 : tensor<9x5x2x24xf32>) outs(%v2_e_14 : tensor<9x5x2x24xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_12 = math.exp %i0 : f32
    linalg.yield %t_12 : f32
  } -> tensor<9x5x2x24xf32>
  %v4_e_15 = tensor.empty() : tensor<5x2x24xf32>
  %v4_c_16 = arith.constant 0.000000000e+00 : f32
  %v4_f_17 = linalg.fill ins(%v4_c_16 : f32) outs(%v4_e_15 : tensor<5x2x24xf32>) -> tensor<5x2x24xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>], iterator_types = ["reduction", "parallel", "parallel", "parallel"]} ins(%v2, %v3 : tensor<9x5x2x24xf32>, tensor<9x5x2x24xf32>) outs(%v4_f_17 : tensor<5x2x24xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_18 = arith.mulf %i0, %i1 : f32
    %t_19 = arith.addf %t_18, %o : f32
    linalg.yield %t_19 : f32
  } -> tensor<5x2x24xf32>
  %v5_e_23 = tensor.empty() : tensor<9x5x2x24xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v2, %v4 : tensor<9x5x2x24xf32>, tensor<5x2x24xf32>) outs(%v5_e_23 : tensor<9x5x2x24xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_21 = math.tanh %i1 : f32
    %t_20 = arith.maximumf %i0, %t_21 : f32
    linalg.yield %t_20 : f32
  } -> tensor<9x5x2x24xf32>
  %v6_e_24 = tensor.empty() : tensor<9x5x2xf32>
  %v6_c_25 = arith.constant 0.000000000e+00 : f32
  %v6_f_26 = linalg.fill ins(%v6_c_25 : f32) outs(%v6_e_24 : tensor<9x5x2xf32>) -> tensor<9x5x2xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%v5 : tensor<9x5x2x24xf32>) outs(%v6_f_26 : tensor<9x5x2xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_28 = arith.constant 4.166666791e-02 : f32
    %t_27 = arith.mulf %i0, %t_28 : f32
    %t_29 = arith.addf %t_27, %o : f32
    linalg.yield %t_29 : f32
  } -> tensor<9x5x2xf32>
  %v7_e_31 = tensor.empty() : tensor<9x5x2x24xf32>
  %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v5, %v6 : tensor<9x5x2x24xf32>, tensor<9x5x2xf32>) outs(%v7_e_31 : tensor<9x5x2x24xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_30 = arith.subf %i0, %i1 : f32
    linalg.yield %t_30 : f32
  } -> tensor<9x5x2x24xf32>
  %v8_e_32 = tensor.empty() : tensor<9x5x2xf32>
  %v8_c_33 = arith.constant 0.000000000e+00 : f32
  %v8_f_34 = linalg.fill ins(%v8_c_33 : f32) outs(%v8_e_32 : tensor<9x5x2xf32>) -> tensor<9x5x2xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%v7 : tensor<9x5x2x24xf32>) outs(%v8_f_34 : tensor<9x5x2xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_35 = arith.mulf %i0, %i0 : f32
    %t_36 = arith.addf %t_35, %o : f32
    linalg.yield %t_36 : f32
  } -> tensor<9x5x2xf32>
  %v10_e_43 = tensor.empty() : tensor<9x5x2x24xf32>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v7, %v8, %v9 : tensor<9x5x2x24xf32>, tensor<9x5x2xf32>, tensor<24xf32>) outs(%v10_e_43 : tensor<9x5x2x24xf32>) {
  ^bb0(%i0: f32, %i1: f32, %i2: f32, %o: f32):
    %one_40 = arith.constant 1.000000000e+00 : f32
    %t_41 = math.absf %i1 : f32
    %t_42 = arith.addf %t_41, %one_40 : f32
    %t_39 = arith.divf %one_40, %t_42 : f32
    %t_38 = arith.mulf %i0, %t_39 : f32
    %t_37 = arith.mulf %t_38, %i2 : f32
    linalg.yield %t_37 : f32
  } -> tensor<9x5x2x24xf32>
  %v11_e_44 = tensor.empty() : tensor<2x5x9xf32>
  %v11 = linalg.transpose ins(%v6 : tensor<9x5x2xf32>) outs(%v11_e_44 : tensor<2x5x9xf32>) permutation = [2, 1, 0]
  return %v10, %v11 : tensor<9x5x2x24xf32>, tensor<2x5x9xf32>
}
