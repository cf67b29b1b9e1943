// Rule 'root-space' (accepted): a bias-add epilogue runs over the matmul's output space, so the
// matmul and the epilogue may share a pin. Rejected twins (root-space-illegal.mlir): an epilogue that
// reduces the matmul's rows, or broadcasts it to a bigger space.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: function @matmul_bias:
// CHECK: {{^[0-9]+ .* 1:matmul 2:generic$}}
func.func @matmul_bias(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %bias: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m, %bias : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
