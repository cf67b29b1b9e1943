// const-read-reduction: rule const-read
// a reduction over a unit dim and a consumer reading it at a constant index in one region: codegen fails
// found by fusion-bench fuzz; original finding:
// fusion=greedy: error: compile: CompileError: <string>:9:9: error: failed to run translation of source executable to target executable for backend #hal.executable.target<...>
// inputs, float64 reference and bounds: const-read-reduction.npz (test/python/test_fuzz_regressions.py)
// %v0 = arg() : tensor<1x4x4x1xf32>
// %v1 = reduce mean over dims [0](%v0) : tensor<4x4x1xf32>
// %v2 = elementwise add(x0, x1) maps [(0, 1, 2, 3), (1, 2, None)](%v0, %v1) : tensor<1x4x4x1xf32>
// outputs: %v2
func.func @main(%v0: tensor<1x4x4x1xf32>) -> (tensor<1x4x4x1xf32>) {
  %v1_e_1 = tensor.empty() : tensor<4x4x1xf32>
  %v1_c_2 = arith.constant 0.000000000e+00 : f32
  %v1_f_3 = linalg.fill ins(%v1_c_2 : f32) outs(%v1_e_1 : tensor<4x4x1xf32>) -> tensor<4x4x1xf32>
  %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>], iterator_types = ["reduction", "parallel", "parallel", "parallel"]} ins(%v0 : tensor<1x4x4x1xf32>) outs(%v1_f_3 : tensor<4x4x1xf32>) {
  ^bb0(%i0: f32, %o: f32):
    %t_5 = arith.constant 1.000000000e+00 : f32
    %t_4 = arith.mulf %i0, %t_5 : f32
    %t_6 = arith.addf %t_4, %o : f32
    linalg.yield %t_6 : f32
  } -> tensor<4x4x1xf32>
  %v2_e_8 = tensor.empty() : tensor<1x4x4x1xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v0, %v1 : tensor<1x4x4x1xf32>, tensor<4x4x1xf32>) outs(%v2_e_8 : tensor<1x4x4x1xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %t_7 = arith.addf %i0, %i1 : f32
    linalg.yield %t_7 : f32
  } -> tensor<1x4x4x1xf32>
  return %v2 : tensor<1x4x4x1xf32>
}
