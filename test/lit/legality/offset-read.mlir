// Rule 'offset-read' (accepted): the tap as the region's sink: a max of the row bias and the input is
// read by the tap's other operand through its loops, and nothing in the region reads the tap. Rejected
// twin: offset-read-illegal.mlir (the tap feeds the max).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#off = affine_map<(d0, d1) -> (d0, d1 + 2)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: function @max_then_tap:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @max_then_tap(%x: tensor<4x13xf32>, %y: tensor<4x11xf32>, %b: tensor<4xf32>) -> tensor<4x11xf32> {
  %e = tensor.empty() : tensor<4x11xf32>
  %m = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%y, %b : tensor<4x11xf32>, tensor<4xf32>) outs(%e : tensor<4x11xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.maximumf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<4x11xf32>
  %t = linalg.generic {indexing_maps = [#off, #id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %m : tensor<4x13xf32>, tensor<4x11xf32>) outs(%e : tensor<4x11xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.mulf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<4x11xf32>
  return %t : tensor<4x11xf32>
}
