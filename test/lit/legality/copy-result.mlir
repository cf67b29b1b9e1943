// Rule 'copy-result' (accepted), transposing form: a transpose that is the group's sink (its producer's
// value not returned) joins the group and compiles. Rejected twin: copy-result-illegal.mlir (the
// transpose also read inside the group). Without pins, the planners keep a transpose read inside and
// returned apart from its reader.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s -o %t.vmfb

#p = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: function @square_then_transpose:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
func.func @square_then_transpose(%x: tensor<16x4x32xf32>) -> tensor<4x16x32xf32> {
  %e0 = tensor.empty() : tensor<16x4x32xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<16x4x32xf32>) outs(%e0 : tensor<16x4x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<16x4x32xf32>
  %e = tensor.empty() : tensor<4x16x32xf32>
  %t = linalg.generic {indexing_maps = [#p, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m : tensor<16x4x32xf32>) outs(%e : tensor<4x16x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x32xf32>
  return %t : tensor<4x16x32xf32>
}
// CHECK-LABEL: function @transpose_read_and_returned:
// CHECK: not fused (1): copy-result 1
func.func @transpose_read_and_returned(%x: tensor<16x4x32xf32>, %c: tensor<16x32xf32>) -> (tensor<4x16x32xf32>, tensor<4x16x32xf32>) {
  %e = tensor.empty() : tensor<4x16x32xf32>
  %t = linalg.generic {indexing_maps = [#p, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<16x4x32xf32>) outs(%e : tensor<4x16x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x32xf32>
  %m = linalg.generic {indexing_maps = [#id, #b, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %c : tensor<4x16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<4x16x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %r = arith.mulf %in, %in2 : f32
    linalg.yield %r : f32
  } -> tensor<4x16x32xf32>
  return %t, %m : tensor<4x16x32xf32>, tensor<4x16x32xf32>
}
