// unit-phase-filter: fixed: conv-transpose-phases stacks its phase filters by one concat along the output channels (rewrites/conv_transpose.py)
// a one-channel transposed conv (strides 3 x 2, 3x2 kernel: one tap per phase) rewritten into its phase conv: the phase filters were stacked as [P, F, C, 1, 1] and collapsed, reshapes of all-unit tensors, which IREE 3.13 failed to verify ("expected rank to be smaller or equal to the other rank"): the whole compile failed, no fallback
// found by fusion-bench fuzz (seed 35043, 10 ops, not shrunk); original finding:
// fusion=cost: error: compile: CompileError: <string>:9:9: error: expected rank to be smaller or equal to the other rank.
// inputs, float64 reference and bounds: unit-phase-filter.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x1x17x17xf32>
// %v1 = spread offsets [0, 0, 2, 1] strides [1, 1, 3, 2](%v0) : tensor<1x1x54x35xf32>
// %v2 = arg() : tensor<1x1x3x2xf32>
// %v3 = conv strides (1, 1) dilations (1, 1)(%v1, %v2) : tensor<1x1x52x34xf32>
// %v4 = elementwise relu(x0) maps [(0, 1, 2, 3)](%v3) : tensor<1x1x52x34xf32>
// %v5 = elementwise sqrt1p(x0) maps [(0, 1, 2, 3)](%v4) : tensor<1x1x52x34xf32>
// %v6 = reduce sum over dims [0, 2, 3](%v1) : tensor<1xf32>
// %v7 = elementwise add(x0, x1) maps [(0, 1, 2, 3), (None,)](%v1, %v6) : tensor<1x1x54x35xf32>
// %v8 = pad low [2] high [0] value 0.0(%v6) : tensor<3xf32>
// %v9 = pad low [1] high [2] value -1.0(%v8) : tensor<6xf32>
// %v10 = arg() : tensor<f32>
// %v11 = elementwise sigmoid(add(neg(x1), x0)) maps [(), (0,)](%v10, %v9) : tensor<6xf32>
// %v12 = concat dim 0(%v11, %v9) : tensor<12xf32>
// outputs: %v5, %v7, %v12
func.func @main(%v0: tensor<1x1x17x17xf32>, %v2: tensor<1x1x3x2xf32>, %v10: tensor<f32>) -> (tensor<1x1x52x34xf32>, tensor<1x1x54x35xf32>, tensor<12xf32>) {
  %v1_e_1 = tensor.empty() : tensor<1x1x54x35xf32>
  %v1_c_2 = arith.constant 0.000000000e+00 : f32
  %v1_f_3 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<1x1x54x35xf32>) -> tensor<1x1x54x35xf32>
  %v1 = tensor.insert_slice %v0 into %v1_f_3[0, 0, 2, 1] [1, 1, 17, 17] [1, 1, 3, 2] : tensor<1x1x17x17xf32> into tensor<1x1x54x35xf32>
  %v3_e_4 = tensor.empty() : tensor<1x1x52x34xf32>
  %v3_c_5 = arith.constant 0.000000000e+00 : f32
  %v3_f_6 = linalg.fill ins(%v3_c_5 : f32) outs(%v3_e_4 : tensor<1x1x52x34xf32>) -> tensor<1x1x52x34xf32>
  %v3 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} ins(%v1, %v2 : tensor<1x1x54x35xf32>, tensor<1x1x3x2xf32>) outs(%v3_f_6 : tensor<1x1x52x34xf32>) -> tensor<1x1x52x34xf32>
  %v4_e_9 = tensor.empty() : tensor<1x1x52x34xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v3 : tensor<1x1x52x34xf32>) outs(%v4_e_9 : tensor<1x1x52x34xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_8 = arith.constant 0.000000000e+00 : f32
    %t_7 = arith.maximumf %i0, %one_8 : f32
    linalg.yield %t_7 : f32
  } -> tensor<1x1x52x34xf32>
  %v5_e_14 = tensor.empty() : tensor<1x1x52x34xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v4 : tensor<1x1x52x34xf32>) outs(%v5_e_14 : tensor<1x1x52x34xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %one_11 = arith.constant 1.000000000e+00 : f32
    %t_12 = math.absf %i0 : f32
    %t_13 = arith.addf %t_12, %one_11 : f32
    %t_10 = math.sqrt %t_13 : f32
    linalg.yield %t_10 : f32
  } -> tensor<1x1x52x34xf32>
  %v6_e_15 = tensor.empty() : tensor<1xf32>
  %v6_c_16 = arith.constant 0.000000000e+00 : f32
  %v6_f_17 = linalg.fill ins(%v6_c_16 : f32) outs(%v6_e_15 : tensor<1xf32>) -> tensor<1xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%v1 : tensor<1x1x54x35xf32>) outs(%v6_f_17 : tensor<1xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_18 = arith.addf %i0, %o : f32
    linalg.yield %t_18 : f32
  } -> tensor<1xf32>
  %v7_e_20 = tensor.empty() : tensor<1x1x54x35xf32>
  %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v1, %v6 : tensor<1x1x54x35xf32>, tensor<1xf32>) outs(%v7_e_20 : tensor<1x1x54x35xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_19 = arith.addf %i0, %i1 : f32
    linalg.yield %t_19 : f32
  } -> tensor<1x1x54x35xf32>
  %v8_c_21 = arith.constant 0.000000000e+00 : f32
  %v8 = tensor.pad %v6 low[2] high[0] {
  ^bb0(%p0: index):
    tensor.yield %v8_c_21 : f32
  } : tensor<1xf32> to tensor<3xf32>
  %v9_c_22 = arith.constant -1.000000000e+00 : f32
  %v9 = tensor.pad %v8 low[1] high[2] {
  ^bb0(%p0: index):
    tensor.yield %v9_c_22 : f32
  } : tensor<3xf32> to tensor<6xf32>
  %v11_e_31 = tensor.empty() : tensor<6xf32>
  %v11 = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v10, %v9 : tensor<f32>, tensor<6xf32>) outs(%v11_e_31 : tensor<6xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_25 = arith.negf %i1 : f32
    %t_24 = arith.addf %t_25, %i0 : f32
    %one_27 = arith.constant 1.000000000e+00 : f32
    %t_28 = arith.negf %t_24 : f32
    %t_29 = math.exp %t_28 : f32
    %t_30 = arith.addf %t_29, %one_27 : f32
    %t_23 = arith.divf %one_27, %t_30 : f32
    linalg.yield %t_23 : f32
  } -> tensor<6xf32>
  %v12 = tensor.concat dim(0) %v11, %v9 : (tensor<6xf32>, tensor<6xf32>) -> tensor<12xf32>
  return %v5, %v7, %v12 : tensor<1x1x52x34xf32>, tensor<1x1x54x35xf32>, tensor<12xf32>
}
