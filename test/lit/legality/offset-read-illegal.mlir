// Rule 'offset-read' (rejected): a multiply reading its input at an offset (d1 + 2, a stencil tap) and
// the max that consumes it, pinned into one region: IREE 3.13 llvm-cpu segfaults (fuzz,
// test/fuzz/iree/offset-read.mlir). Accepted twin: offset-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#off = affine_map<(d0, d1) -> (d0, d1 + 2)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @tap_then_max(%x: tensor<4x13xf32>, %b: tensor<4xf32>) -> tensor<4x11xf32> {
  %c = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4x11xf32>
  // expected-error @+1 {{rule 'offset-read'}}
  %t = linalg.generic {indexing_maps = [#off, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<4x13xf32>) outs(%e : tensor<4x11xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x11xf32>
  %m = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%t, %b : tensor<4x11xf32>, tensor<4xf32>) outs(%e : tensor<4x11xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.maximumf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<4x11xf32>
  return %m : tensor<4x11xf32>
}
