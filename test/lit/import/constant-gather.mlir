// A generic that only reads `x[t, j]` at a constant step `t` (torch-mlir's unrolled GRU / LSTM reads each
// step's input projection so) becomes a slice, a view IREE folds into its readers: the unseen 2-layer LSTM
// + bidirectional GRU compiled 567 -> 485 dispatches. A gather at a computed index, or one that reads the
// source transposed, is no slice and stays as written.
// RUN: fusion-opt %s --split-input-file --emit=linalg | filecheck %s
// RUN: fusion-opt %s --split-input-file --emit=plan | filecheck %s --check-prefix=PLAN
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @step_of_a_projection(
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [1, 144] [1, 1] : tensor<40x144xf32> to tensor<1x144xf32>
// CHECK-NOT: tensor.extract %
// PLAN-LABEL: function @step_of_a_projection:
// PLAN: left to IREE: a slice alone
func.func @step_of_a_projection(%x: tensor<40x144xf32>) -> tensor<1x144xf32> {
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
  return %g : tensor<1x144xf32>
}
// -----
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @computed_index(
// CHECK: tensor.extract %
func.func @computed_index(%x: tensor<40x144xf32>, %t: tensor<i64>) -> tensor<1x144xf32> {
  %e = tensor.empty() : tensor<1x144xf32>
  %g = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<i64>) outs(%e : tensor<1x144xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%r, %j] : tensor<40x144xf32>
    linalg.yield %v : f32
  } -> tensor<1x144xf32>
  return %g : tensor<1x144xf32>
}
// -----
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transposed_read(
// CHECK: tensor.extract %
func.func @transposed_read(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%j, %i] : tensor<8x8xf32>
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
