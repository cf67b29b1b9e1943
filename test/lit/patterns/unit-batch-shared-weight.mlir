// Pattern unit-batch-matmul, shared-weight form: a batch matmul whose right operand is one [K, N] weight
// broadcast over the batch (torch's export of a Linear on [1, H, W, C]) becomes one [B*M, K] x [K, N]
// linalg.matmul on the weight itself; the broadcast is gone, the GELU-like epilogue stays in its dispatch.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=unit-batch-matmul | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @linear4d
// CHECK-NOT: tensor<4x8x16xf32>
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<4x6x8xf32> into tensor<24x8xf32>
// CHECK: flow.dispatch.region -> (tensor<24x16xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<24x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<24x16xf32>)
// CHECK: math.erf
// CHECK: flow.return
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [4, 6, 16] : tensor<24x16xf32> into tensor<4x6x16xf32>
// PLAN: patterns: {{.*}}unit-batch-matmul 1
// OFF-LABEL: func.func @linear4d
// OFF: tensor<4x8x16xf32>
// OFF: linalg.batch_matmul
// OFF-NOT: linalg.matmul
func.func @linear4d(%x: tensor<4x6x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x6x16xf32> {
  %z = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<4x8x16xf32>
  %wb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x16xf32>) outs(%eb : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8x16xf32>
  %e = tensor.empty() : tensor<4x6x16xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<4x6x16xf32>) -> tensor<4x6x16xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<4x6x8xf32>, tensor<4x8x16xf32>) outs(%i : tensor<4x6x16xf32>) -> tensor<4x6x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<4x6x16xf32>) outs(%e : tensor<4x6x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.erf %a : f32
    linalg.yield %s : f32
  } -> tensor<4x6x16xf32>
  return %r : tensor<4x6x16xf32>
}
