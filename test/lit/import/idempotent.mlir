// A generic applying an idempotent op to one tensor twice (max(t, t)) is that tensor: normalization folds it
// before planning, as IREE's own formation does; in a region of ours IREE folded it after and returned the
// wrong value for it (fuzz seed 31670; test/fuzz/iree/idempotent-result.mlir).
// RUN: fusion-opt %s --emit=linalg | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// CHECK-LABEL: func.func @main(
// CHECK-NOT: arith.maximumf
// CHECK: return %[[E:.+]], %[[T:.+]], %[[T]] :
// PLAN: {{^0 +elementwise +2 }}
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<31x8xf32>) -> (tensor<31x8xf32>, tensor<31x8xf32>, tensor<31x8xf32>) {
  %e = tensor.empty() : tensor<31x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<31x8xf32>) outs(%e : tensor<31x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  } -> tensor<31x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<31x8xf32>) outs(%e : tensor<31x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.tanh %i : f32
    linalg.yield %r : f32
  } -> tensor<31x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %t : tensor<31x8xf32>, tensor<31x8xf32>) outs(%e : tensor<31x8xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.maximumf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<31x8xf32>
  return %a, %t, %m : tensor<31x8xf32>, tensor<31x8xf32>, tensor<31x8xf32>
}
