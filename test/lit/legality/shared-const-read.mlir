// Rule 'shared-const-read' (accepted): the same three ops with only the add returned: tanh, the
// constant-index reader, does not leave the region, and IREE compiles the group. Rejected twin:
// shared-const-read-illegal.mlir (tanh also returned).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#c0 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-LABEL: function @internal_const_reader:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-2:generic$}}
// CHECK-NOT: refused
func.func @internal_const_reader(%x: tensor<1x9x32xf32>) -> tensor<1x9x32xf32> {
  %e = tensor.empty() : tensor<1x9x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x9x32xf32>) outs(%e : tensor<1x9x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.absf %v : f32
    linalg.yield %t : f32
  } -> tensor<1x9x32xf32>
  %t = linalg.generic {indexing_maps = [#c0, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<1x9x32xf32>) outs(%e : tensor<1x9x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<1x9x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a, %t : tensor<1x9x32xf32>, tensor<1x9x32xf32>) outs(%e : tensor<1x9x32xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1x9x32xf32>
  return %s : tensor<1x9x32xf32>
}
