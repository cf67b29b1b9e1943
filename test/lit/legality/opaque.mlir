// Rule 'opaque' (accepted): ops whose data movement is known (here two elementwise generics) may
// share a pin. The rejected twin (opaque-illegal.mlir) replaces the first with linalg.softmax.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: function @exp_neg:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @exp_neg(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
