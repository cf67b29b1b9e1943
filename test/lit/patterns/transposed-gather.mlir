// Pattern transposed-gather: a transposing copy read only by tensor.extract (PyTorch's multi-head attention
// takes q, k, v as constant-index Gathers of its packed projection transposed to [3, L, N, E]) is erased and
// each extract reads the copy's source at the permuted indices: no copy dispatch, the same elements.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=transposed-gather | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @qkv(%arg0: tensor<4x2x3x8xf32>)
// CHECK-NOT: tensor<3x4x2x8xf32>
// CHECK: flow.dispatch.region -> (tensor<4x2x8xf32>)
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[K:.*]] = linalg.index 2
// CHECK: tensor.extract %arg0[%[[I]], %[[J]], %c0, %[[K]]] : tensor<4x2x3x8xf32>
// CHECK: tensor.extract %arg0[%[[I]], %[[J]], %c1, %[[K]]] : tensor<4x2x3x8xf32>
// CHECK: flow.return
// CHECK-NOT: flow.dispatch.region
// CHECK: return
// The copy is also returned: it is materialized anyway, so the extracts keep reading it.
// CHECK-LABEL: func.func @returned
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x4x2x8xf32>)
// CHECK: tensor.extract %{{.*}}[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<3x4x2x8xf32>
// A transposed constant is left to IREE's const-eval (no per-call cost).
// CHECK-LABEL: func.func @constant
// CHECK: tensor.extract %{{.*}}[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<3x4x2x8xf32>
// PLAN-LABEL: @qkv
// PLAN: 1 groups
// PLAN: patterns: {{.*}}transposed-gather 1
// PLAN-LABEL: @returned
// PLAN: patterns: none
// PLAN-LABEL: @constant
// PLAN: patterns: none
// OFF-LABEL: func.func @qkv
// OFF: outs(%{{.*}} : tensor<3x4x2x8xf32>)
// OFF: tensor.extract %{{.*}}[%c0, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<3x4x2x8xf32>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#tr = affine_map<(d0, d1, d2, d3) -> (d1, d2, d0, d3)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @qkv(%p: tensor<4x2x3x8xf32>) -> tensor<4x2x8xf32> {
  %e = tensor.empty() : tensor<3x4x2x8xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x2x3x8xf32>) outs(%e : tensor<3x4x2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4x2x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e3 = tensor.empty() : tensor<4x2x8xf32>
  %y = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e3 : tensor<4x2x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %q = tensor.extract %t[%c0, %i, %j, %k] : tensor<3x4x2x8xf32>
    %v = tensor.extract %t[%c1, %i, %j, %k] : tensor<3x4x2x8xf32>
    %s = arith.addf %q, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x2x8xf32>
  return %y : tensor<4x2x8xf32>
}
func.func @returned(%p: tensor<4x2x3x8xf32>) -> (tensor<4x2x8xf32>, tensor<3x4x2x8xf32>) {
  %e = tensor.empty() : tensor<3x4x2x8xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x2x3x8xf32>) outs(%e : tensor<3x4x2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4x2x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e3 = tensor.empty() : tensor<4x2x8xf32>
  %y = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e3 : tensor<4x2x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %q = tensor.extract %t[%c0, %i, %j, %k] : tensor<3x4x2x8xf32>
    %v = tensor.extract %t[%c1, %i, %j, %k] : tensor<3x4x2x8xf32>
    %s = arith.addf %q, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x2x8xf32>
  return %y, %t : tensor<4x2x8xf32>, tensor<3x4x2x8xf32>
}
func.func @constant() -> tensor<4x2x8xf32> {
  %p = arith.constant dense<1.5> : tensor<4x2x3x8xf32>
  %e = tensor.empty() : tensor<3x4x2x8xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x2x3x8xf32>) outs(%e : tensor<3x4x2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4x2x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e3 = tensor.empty() : tensor<4x2x8xf32>
  %y = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e3 : tensor<4x2x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %q = tensor.extract %t[%c0, %i, %j, %k] : tensor<3x4x2x8xf32>
    %v = tensor.extract %t[%c1, %i, %j, %k] : tensor<3x4x2x8xf32>
    %s = arith.addf %q, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x2x8xf32>
  return %y : tensor<4x2x8xf32>
}
