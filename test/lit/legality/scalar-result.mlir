// Rule 'scalar-result' (accepted): the same tanh and add with only the add returned: the scalar does not
// leave the region, which IREE compiles. Rejected twin: scalar-result-illegal.mlir (tanh also returned).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#s = affine_map<() -> ()>
#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>
// CHECK-LABEL: function @internal_scalar:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @internal_scalar(%x: tensor<13xf32>, %a: tensor<f32>) -> tensor<13xf32> {
  %e0 = tensor.empty() : tensor<f32>
  %t = linalg.generic {indexing_maps = [#s, #s], iterator_types = [], fusion_opt.fuse = "g"}
      ins(%a : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<13xf32>
  %s = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%x, %t : tensor<13xf32>, tensor<f32>) outs(%e : tensor<13xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<13xf32>
  return %s : tensor<13xf32>
}
