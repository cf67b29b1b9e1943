// Rule 'reduction-result-broadcast' (rejected): a row sum returned, subtracted and the squares summed, computed from a member that
// reads a column vector broadcast over the rows: IREE 3.13 llvm-cpu computed the returned reduction twice into
// its output (2x the value; fuzz seed 27307, test/fuzz/iree/reduction-result-broadcast.mlir). Accepted twin:
// reduction-result-broadcast.mlir (the sum not returned).
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @returned_sum(%x: tensor<16x24xf32>, %w: tensor<24xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x24xf32>
  // expected-error @+1 {{rule 'reduction-result-broadcast': reduction op 2 is a result of the group and read inside it, and op 0 reads an input through a broadcast}}
  %p = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %w : tensor<16x24xf32>, tensor<24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = math.tanh %b : f32
    %r = arith.maximumf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%p : tensor<16x24xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%p, %s : tensor<16x24xf32>, tensor<16xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16x24xf32>
  %q = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%c : tensor<16x24xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %s, %q : tensor<16xf32>, tensor<16xf32>
}
