// const-read-matmul: rule const-read
// a matmul and a consumer reading its result at a constant index (size-1 dim read at 0) in one region: IREE 3.13 llvm-cpu codegen fails ('failed to run translation')
// found by fusion-bench fuzz; original finding:
// fusion=greedy: error: compile: CompileError: <string>:31:9: error: failed to run translation of source executable to target executable for backend #hal.executable.target<...>
// inputs, float64 reference and bounds: const-read-matmul.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<3x1xf32>
// %v1 = arg() : tensor<1x1xf32>
// %v2 = matmul(%v0, %v1) : tensor<3x1xf32>
// %v3 = elementwise tanh(sub(0.5, x0)) maps [(0, None)](%v2) : tensor<3x1xf32>
// outputs: %v3
func.func @main(%v0: tensor<3x1xf32>, %v1: tensor<1x1xf32>) -> (tensor<3x1xf32>) {
  %v2_e_1 = tensor.empty() : tensor<3x1xf32>
  %v2_c_2 = arith.constant 0.000000000e+00 : f32
  %v2_f_3 = linalg.fill ins(%v2_c_2 : f32) outs(%v2_e_1 : tensor<3x1xf32>) -> tensor<3x1xf32>
  %v2 = linalg.matmul ins(%v0, %v1 : tensor<3x1xf32>, tensor<1x1xf32>) outs(%v2_f_3 : tensor<3x1xf32>) -> tensor<3x1xf32>
  %v3_e_8 = tensor.empty() : tensor<3x1xf32>
  %v3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<3x1xf32>) outs(%v3_e_8 : tensor<3x1xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_6 = arith.constant 5.000000000e-01 : f32
    %t_5 = arith.subf %t_6, %i0 : f32
    %t_4 = math.tanh %t_5 : f32
    linalg.yield %t_4 : f32
  } -> tensor<3x1xf32>
  return %v3 : tensor<3x1xf32>
}
