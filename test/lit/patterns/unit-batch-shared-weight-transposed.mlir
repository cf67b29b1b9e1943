// Pattern unit-batch-matmul, transposed shared weight: torch-mlir's GRU / LSTM lowering projects every time
// step's input at once as a batch matmul of [T, B, I] by W^T broadcast over T (the broadcast reads the [N, K]
// weight at (k, n)). It becomes one [T*B, K] x [N, K]^T contraction on the weight itself, the broadcast gone.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=regions --disable-pattern=unit-batch-matmul | filecheck %s --check-prefix=OFF
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @gru_input_projection
// CHECK-NOT: tensor<50x40x192xf32>
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<50x2x40xf32> into tensor<100x40xf32>
// CHECK: flow.dispatch.region -> (tensor<100x192xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %arg1 : tensor<100x40xf32>, tensor<192x40xf32>)
// CHECK: tensor.expand_shape %{{.*}} output_shape [50, 2, 192] : tensor<100x192xf32> into tensor<50x2x192xf32>
// OFF: tensor<50x40x192xf32>
// OFF: linalg.batch_matmul
func.func @gru_input_projection(%x: tensor<50x2x40xf32>, %w: tensor<192x40xf32>) -> tensor<50x2x192xf32> {
  %z = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<50x40x192xf32>
  %wb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<192x40xf32>) outs(%eb : tensor<50x40x192xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<50x40x192xf32>
  %e = tensor.empty() : tensor<50x2x192xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<50x2x192xf32>) -> tensor<50x2x192xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<50x2x40xf32>, tensor<50x40x192xf32>) outs(%i : tensor<50x2x192xf32>) -> tensor<50x2x192xf32>
  return %y : tensor<50x2x192xf32>
}
