// A generic that only reads `x[t, j]` at a constant step `t`, read only by slices (torch-mlir's unrolled GRU
// reads each step's input projection so and splits it into gates) becomes a slice, a view IREE folds into its
// readers: the unseen 2-layer LSTM + bidirectional GRU compiled 567 -> 487 dispatches. A gather at a computed
// index, one that reads the source transposed, or one an elementwise op reads (an LSTM step's row, which
// joins its matmul's epilogue as it is: legality/side-input.mlir) stays as written.
// RUN: fusion-opt %s --split-input-file --emit=linalg | filecheck %s
// RUN: fusion-opt %s --split-input-file --emit=plan | filecheck %s --check-prefix=PLAN
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @step_of_a_projection(
// CHECK: %[[ROW:.+]] = tensor.extract_slice %{{.*}}[3, 0] [1, 144] [1, 1] : tensor<40x144xf32> to tensor<1x144xf32>
// CHECK: tensor.extract_slice %[[ROW]][0, 0] [1, 48] [1, 1]
// CHECK: tensor.extract_slice %[[ROW]][0, 48] [1, 48] [1, 1]
// CHECK-NOT: tensor.extract %
// PLAN-LABEL: function @step_of_a_projection:
// PLAN: left to IREE: a slice alone
func.func @step_of_a_projection(%x: tensor<40x144xf32>) -> (tensor<48xf32>, tensor<48xf32>) {
  %t = arith.constant dense<3> : tensor<i64>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<40x144xf32>) outs(%x : tensor<40x144xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.tanh %a : f32
    linalg.yield %s : f32
  } -> tensor<40x144xf32>
  %e = tensor.empty() : tensor<1x144xf32>
  %g = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<i64>) outs(%e : tensor<1x144xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %p[%r, %j] : tensor<40x144xf32>
    linalg.yield %v : f32
  } -> tensor<1x144xf32>
  %r0 = tensor.extract_slice %g[0, 0] [1, 48] [1, 1] : tensor<1x144xf32> to tensor<48xf32>
  %z0 = tensor.extract_slice %g[0, 48] [1, 48] [1, 1] : tensor<1x144xf32> to tensor<48xf32>
  return %r0, %z0 : tensor<48xf32>, tensor<48xf32>
}
// -----
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @computed_index(
// CHECK: tensor.extract %
func.func @computed_index(%x: tensor<40x144xf32>, %t: tensor<i64>) -> tensor<48xf32> {
  %e = tensor.empty() : tensor<1x144xf32>
  %g = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<i64>) outs(%e : tensor<1x144xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%r, %j] : tensor<40x144xf32>
    linalg.yield %v : f32
  } -> tensor<1x144xf32>
  %r0 = tensor.extract_slice %g[0, 0] [1, 48] [1, 1] : tensor<1x144xf32> to tensor<48xf32>
  return %r0 : tensor<48xf32>
}
// -----
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_read(
// CHECK: tensor.extract %
func.func @transposed_read(%x: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%j, %i] : tensor<8x8xf32>
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %h = tensor.extract_slice %g[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}
// -----
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @row_added(
// CHECK: tensor.extract %
func.func @row_added(%x: tensor<40x144xf32>, %b: tensor<1x144xf32>) -> tensor<1x144xf32> {
  %t = arith.constant dense<3> : tensor<i64>
  %e = tensor.empty() : tensor<1x144xf32>
  %g = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<i64>) outs(%e : tensor<1x144xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%r, %j] : tensor<40x144xf32>
    linalg.yield %v : f32
  } -> tensor<1x144xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<1x144xf32>, tensor<1x144xf32>) outs(%e : tensor<1x144xf32>) {
  ^bb0(%u: f32, %w: f32, %o: f32):
    %y = arith.addf %u, %w : f32
    linalg.yield %y : f32
  } -> tensor<1x144xf32>
  return %s : tensor<1x144xf32>
}
