// Rule 'captured-read' (rejected): pinning a gather together with the producer of the tensor it reads
// inside its body (tensor.extract: any element, data-dependent) is an error: the producer cannot be
// tiled into the gather. Accepted twin: captured-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather_of_computed(%x: tensor<16x8xf32>, %idx: tensor<4xi64>) -> tensor<4x8xf32> {
  %c2 = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  // expected-error @+1 {{rule 'captured-read'}}
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<16x8xf32>
  %e4 = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%idx : tensor<4xi64>) outs(%e4 : tensor<4x8xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%r, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
