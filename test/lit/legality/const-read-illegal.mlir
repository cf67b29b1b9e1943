// Rule 'const-read' (rejected): a sum over a size-1 dim and its consumer reading the sum at a constant
// index (the size-1 dim read at 0) in one region: IREE 3.13 llvm-cpu codegen fails ("failed to run
// translation"; fuzz, test/fuzz/iree/const-read-reduction.mlir). Accepted twin: const-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#red = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#c0 = affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>
func.func @sum_read_at_zero(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4x1xf32>) -> tensor<4x4x1xf32>
  // expected-error @+1 {{rule 'const-read'}}
  %s = linalg.generic {indexing_maps = [#in, #red], iterator_types = ["reduction", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x4x4x1xf32>) outs(%f : tensor<4x4x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x4x1xf32>
  %e2 = tensor.empty() : tensor<1x4x4x1xf32>
  %r = linalg.generic {indexing_maps = [#in, #c0, #in], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s : tensor<1x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e2 : tensor<1x4x4x1xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}
