// Rule 'partial-read' (accepted): the same relu and strided copy, with relu read only by the copy:
// the elements the copy skips are never needed, so the pin is legal. Rejected twin:
// partial-read-illegal.mlir (relu also returned).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#s2 = affine_map<(d0, d1) -> (d0, d1 * 2)>
// CHECK-LABEL: function @strided_copy_of_relu:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
func.func @strided_copy_of_relu(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %z = arith.constant 0.0 : f32
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
  return %c : tensor<8x8xf32>
}
