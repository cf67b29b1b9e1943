// Rule 'partial-read' (rejected): relu's result is returned, and the strided copy in the same pin reads
// only every other element of it: tiled by the copy's space, the dispatch would write relu in part
// (wrong ResNet-50 numbers before this rule). Accepted twin: partial-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#s2 = affine_map<(d0, d1) -> (d0, d1 * 2)>
func.func @relu_and_strided_copy(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{rule 'partial-read'}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %z : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %c = linalg.generic {indexing_maps = [#s2, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%r : tensor<8x16xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  return %r, %c : tensor<8x16xf32>, tensor<8x8xf32>
}
