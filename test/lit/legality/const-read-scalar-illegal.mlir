// Rule 'const-read' (rejected): a mean to a scalar of exp(x[0, ...]), the prologue reading its input's
// size-1 dim at index 0, in one region: IREE 3.13 llvm-cpu codegen fails ("'vector.contract' op invalid
// accumulator/result vector shape"; fuzz seed 20920). Accepted twin: const-read-scalar.mlir (the same
// group keeping the size-1 dim).
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#c0 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#all = affine_map<(d0, d1, d2, d3) -> ()>
func.func @mean_of_read_at_zero(%x: tensor<1x8x6x10xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<1x8x6x10xf32>
  // expected-error @+1 {{rule 'const-read': op 0 reads an operand at a constant index in a group with op 2's reduction to a scalar}}
  %p = linalg.generic {indexing_maps = [#c0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x8x6x10xf32>) outs(%e : tensor<1x8x6x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<1x8x6x10xf32>
  %e2 = tensor.empty() : tensor<f32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%p : tensor<1x8x6x10xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %k = arith.constant 2.0e-03 : f32
    %m = arith.mulf %a, %k : f32
    %t = arith.addf %m, %o : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
