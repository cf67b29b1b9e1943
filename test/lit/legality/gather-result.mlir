// Rule 'gather-result' (accepted): the same gather and add with only the add returned (the gather feeds its
// group and does not leave it), which IREE compiles. Rejected twin: gather-result-illegal.mlir.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: function @internal_gather:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @internal_gather(%g: tensor<12x3xf32>) -> tensor<12xf32> {
  %e = tensor.empty() : tensor<12xf32>
  %a = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      outs(%e : tensor<12xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c2 = arith.constant 2 : index
    %v = tensor.extract %g[%i, %c2] : tensor<12x3xf32>
    linalg.yield %v : f32
  } -> tensor<12xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<12xf32>) outs(%e : tensor<12xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %y = arith.addf %x, %one : f32
    linalg.yield %y : f32
  } -> tensor<12xf32>
  return %b : tensor<12xf32>
}
