// Pattern slice-concat: rotary embeddings' rotate_half, cat(-q[..., 4:], q[..., :4], -1), written as two
// slices, a negate and an innermost-dim tensor.concat, becomes one elementwise op over the concat's
// result reading q's row at a selected column (tensor.extract) with the negate selected by linalg.index;
// it then shares a dispatch with the rotary multiply-add (q * cos + rotate_half(q) * sin).
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=slice-concat | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @rope
// CHECK-NOT: tensor.concat
// CHECK: flow.dispatch.region -> (tensor<2x6x8xf32>)
// CHECK: linalg.index 2
// CHECK: arith.cmpi ult, %{{.*}}, %c4
// CHECK: arith.select
// CHECK: tensor.extract %{{.*}} : tensor<2x6x8xf32>
// CHECK-NEXT: arith.negf
// CHECK-NEXT: arith.select
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: flow.return
// CHECK-NOT: flow.dispatch.region
// CHECK: return
// PLAN: 1 groups
// PLAN: patterns: {{.*}}slice-concat 1
// OFF-LABEL: func.func @rope
// OFF: tensor.concat dim(2)
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tab = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @rope(%q: tensor<2x6x8xf32>, %cos: tensor<6x8xf32>, %sin: tensor<6x8xf32>) -> tensor<2x6x8xf32> {
  %hi = tensor.extract_slice %q[0, 0, 4] [2, 6, 4] [1, 1, 1] : tensor<2x6x8xf32> to tensor<2x6x4xf32>
  %lo = tensor.extract_slice %q[0, 0, 0] [2, 6, 4] [1, 1, 1] : tensor<2x6x8xf32> to tensor<2x6x4xf32>
  %e4 = tensor.empty() : tensor<2x6x4xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%hi : tensor<2x6x4xf32>) outs(%e4 : tensor<2x6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<2x6x4xf32>
  %rot = tensor.concat dim(2) %neg, %lo : (tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x8xf32>
  %e = tensor.empty() : tensor<2x6x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #tab, #id, #tab, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %cos, %rot, %sin : tensor<2x6x8xf32>, tensor<6x8xf32>, tensor<2x6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x6x8xf32>) {
  ^bb0(%a: f32, %c: f32, %r: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %rs = arith.mulf %r, %s : f32
    %v = arith.addf %ac, %rs : f32
    linalg.yield %v : f32
  } -> tensor<2x6x8xf32>
  return %y : tensor<2x6x8xf32>
}
