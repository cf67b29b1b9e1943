// const-read-epilogue: rule const-read
// the same constant-index read two ops below the matmul, in its group: codegen fails
// found by fusion-bench fuzz; original finding:
// fusion=greedy: fallback: group 3 failed to compile in IREE (failed to run translation of source executable to target executable for backend #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "znver3", cpu_features = "+adx,+aes,+avx,+avx2,+bmi,+bm); left to IREE's own fusion
// inputs, float64 reference and bounds: const-read-epilogue.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<3x1xf32>
// %v1 = arg() : tensor<1x1xf32>
// %v2 = matmul(%v0, %v1) : tensor<3x1xf32>
// %v3 = arg() : tensor<1xf32>
// %v4 = elementwise abs(add(x0, x1)) maps [(0, 1), (1,)](%v2, %v3) : tensor<3x1xf32>
// %v5 = elementwise tanh(sub(0.5, x0)) maps [(0, None)](%v4) : tensor<3x1xf32>
// outputs: %v5
func.func @main(%v0: tensor<3x1xf32>, %v1: tensor<1x1xf32>, %v3: tensor<1xf32>) -> (tensor<3x1xf32>) {
  %v2_e_1 = tensor.empty() : tensor<3x1xf32>
  %v2_c_2 = arith.constant 0.000000000e+00 : f32
  %v2_f_3 = linalg.fill ins(%v2_c_2 : f32) outs(%v2_e_1 : tensor<3x1xf32>) -> tensor<3x1xf32>
  %v2 = linalg.matmul ins(%v0, %v1 : tensor<3x1xf32>, tensor<1x1xf32>) outs(%v2_f_3 : tensor<3x1xf32>) -> tensor<3x1xf32>
  %v4_e_7 = tensor.empty() : tensor<3x1xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2, %v3 : tensor<3x1xf32>, tensor<1xf32>) outs(%v4_e_7 : tensor<3x1xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_5 = arith.addf %i0, %i1 : f32
    %t_4 = math.absf %t_5 : f32
    linalg.yield %t_4 : f32
  } -> tensor<3x1xf32>
  %v5_e_12 = tensor.empty() : tensor<3x1xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<3x1xf32>) outs(%v5_e_12 : tensor<3x1xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_10 = arith.constant 5.000000000e-01 : f32
    %t_9 = arith.subf %t_10, %i0 : f32
    %t_8 = math.tanh %t_9 : f32
    linalg.yield %t_8 : f32
  } -> tensor<3x1xf32>
  return %v5 : tensor<3x1xf32>
}
