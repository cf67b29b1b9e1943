// Rule 'broadcast-result' (accepted): the relu of the bias row added to every row, not returned: one region,
// which IREE compiles. Rejected twin: broadcast-result-illegal.mlir (the relu also returned, fuzz seed 21223).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#row = affine_map<(d0) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: function @bias:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @bias(%x: tensor<32x12xf32>, %b: tensor<12xf32>) -> tensor<32x12xf32> {
  %e = tensor.empty() : tensor<12xf32>
  %r = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%b : tensor<12xf32>) outs(%e : tensor<12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<12xf32>
  %e2 = tensor.empty() : tensor<32x12xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %r : tensor<32x12xf32>, tensor<12xf32>) outs(%e2 : tensor<32x12xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<32x12xf32>
  return %y : tensor<32x12xf32>
}
