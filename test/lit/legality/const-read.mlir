// Rule 'const-read' (accepted): the same sum and consumer, the consumer reading the sum through its
// loops (d1, d2, d3): one region, which IREE compiles. Rejected twin: const-read-illegal.mlir (a read at
// index 0).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#red = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-LABEL: function @sum_read_through_loops:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:fill 1-2:generic$}}
// CHECK-NOT: refused
func.func @sum_read_through_loops(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4x1xf32>) -> tensor<4x4x1xf32>
  %s = linalg.generic {indexing_maps = [#in, #red], iterator_types = ["reduction", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x4x4x1xf32>) outs(%f : tensor<4x4x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x4x1xf32>
  %e2 = tensor.empty() : tensor<1x4x4x1xf32>
  %r = linalg.generic {indexing_maps = [#in, #red, #in], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s : tensor<1x4x4x1xf32>, tensor<4x4x1xf32>) outs(%e2 : tensor<1x4x4x1xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}
