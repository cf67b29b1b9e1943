// Pattern bias-epilogue: a conv accumulating into its bias broadcast over the whole output (how ONNX
// importers write Conv with a bias) accumulates into a zero fill instead, and the [F] bias is added in
// an epilogue op that joins the conv's dispatch: no output-sized bias tensor is computed or read.
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy --disable-pattern=bias-epilogue | filecheck %s --check-prefix=OFF
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @conv_bias
// CHECK: flow.dispatch.region -> (tensor<16x8x8xf32>)
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x8x8xf32>)
// CHECK: %[[C:.+]] = linalg.generic {{.*}} outs(%[[Z]] : tensor<16x8x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CH]], #{{.*}}]{{.*}} ins(%[[C]], %{{.*}} : tensor<16x8x8xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: flow.return
// PLAN: patterns: bias-epilogue 1,
// OFF-LABEL: func.func @conv_bias
// OFF: linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<16x8x8xf32>)
// OFF-NOT: linalg.fill
func.func @conv_bias(%x: tensor<8x10x10xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<16x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %b = arith.constant dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6]> : tensor<16xf32>
  %e = tensor.empty() : tensor<16x8x8xf32>
  %i = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<16xf32>) outs(%e : tensor<16x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<16x8x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%i : tensor<16x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<16x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<16x8x8xf32>) outs(%e : tensor<16x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<16x8x8xf32>
  return %r : tensor<16x8x8xf32>
}
