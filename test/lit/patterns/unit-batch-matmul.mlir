// Pattern unit-batch-matmul: a batch matmul over a batch of one (how ONNX MatMul of a [1, S, H]
// activation by a weight imports) becomes a 2-D linalg.matmul, which IREE's data tiling packs; the
// bias add and ReLU after it become 2-D too and stay in its dispatch, the expand_shape moves below them.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=unit-batch-matmul | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @proj
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x16x32xf32> into tensor<16x32xf32>
// CHECK: flow.dispatch.region -> (tensor<16x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: flow.return
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 16, 64] : tensor<16x64xf32> into tensor<1x16x64xf32>
// PLAN: patterns: unit-batch-matmul 1,
// OFF-LABEL: func.func @proj
// OFF: linalg.batch_matmul
// OFF-NOT: linalg.matmul
func.func @proj(%x: tensor<1x16x32xf32>, %w: tensor<1x32x64xf32>, %b: tensor<64xf32>) -> tensor<1x16x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x64xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %y = linalg.batch_matmul ins(%x, %w : tensor<1x16x32xf32>, tensor<1x32x64xf32>) outs(%i : tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %b : tensor<1x16x64xf32>, tensor<64xf32>) outs(%e : tensor<1x16x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.maximumf %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<1x16x64xf32>
  return %r : tensor<1x16x64xf32>
}
