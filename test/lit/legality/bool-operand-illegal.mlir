// Rule 'bool-operand' (rejected): the scaled scores of a batch matmul masked by an i1 causal mask in the
// matmul's group. With data tiling IREE gives the i1 mask the matmul result's packed layout and cannot
// encode it ("load_from_buffer ... element types must match"; a GPT block's masked scores came out
// wrong once that group was handed back), so pinning the mask's select into the matmul's group is an
// error. Accepted twin: bool-operand.mlir (the same mask as f32).
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#q = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @masked_scores(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e+30 : f32
  %c8 = arith.constant 8.0 : f32
  %mask = arith.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %e = tensor.empty() : tensor<2x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // expected-error @+1 {{rule 'bool-operand'}}
  %s = linalg.batch_matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %d = linalg.generic {indexing_maps = [#q, #m, #q], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s, %mask : tensor<2x4x4xf32>, tensor<4x4xi1>) outs(%e : tensor<2x4x4xf32>) {
  ^bb0(%v: f32, %k: i1, %o: f32):
    %t = arith.divf %v, %c8 : f32
    %r = arith.select %k, %ninf, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %d : tensor<2x4x4xf32>
}
