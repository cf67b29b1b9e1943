// Rule 'bool-operand' (accepted): the mask of bool-operand-illegal.mlir as an f32 tensor (added, scaled) joins the
// batch matmul's group; the i1 form is planned with the select in a group of its own.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s
// RUN: sed -e 's/, fusion_opt.fuse = "g"}}/}}/' %s | fusion-opt --fusion=cost --emit=plan | filecheck %s
// CHECK-LABEL: function @masked_scores:
// CHECK: {{^0 .*contraction.* 1:batch_matmul 2:generic$}}
// CHECK-NOT: illegal [bool-operand]

#q = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @masked_scores(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e+30 : f32
  %c8 = arith.constant 8.0 : f32
  %mask = arith.constant dense<[[0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<2x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %d = linalg.generic {indexing_maps = [#q, #m, #q], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s, %mask : tensor<2x4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<2x4x4xf32>) {
  ^bb0(%v: f32, %k: f32, %o: f32):
    %t = arith.divf %v, %c8 : f32
    %u = arith.mulf %k, %ninf : f32
    %r = arith.addf %t, %u : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %d : tensor<2x4x4xf32>
}
