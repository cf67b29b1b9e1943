// Pattern sort-topk: a descending sort of whole rows with an iota of indices (torch-mlir's ONNX TopK),
// read only through slices of its first 3 entries, becomes IREE's top-k op: slots start NaN, the
// comparator is `ugt` (so a -inf element still gets its own index), indices widened back to i64.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=sort-topk | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @topk
// CHECK-NOT: tm_tensor.sort
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: linalg.fill ins(%[[NAN]] : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: iree_linalg_ext.topk {{.*}}dimension(1) ins(%{{.*}} : tensor<4x10xf32>) outs(%{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x3xi32>)
// CHECK: arith.cmpf ugt
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: return %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x3xi64>
// PLAN: patterns: {{.*}}sort-topk 1
// OFF-LABEL: func.func @topk
// OFF: tm_tensor.sort
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @topk(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>) {
  %e = tensor.empty() : tensor<4x10xi64>
  %iota = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x10xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<4x10xi64>
  %s:2 = tm_tensor.sort dimension(1) outs(%x, %iota : tensor<4x10xf32>, tensor<4x10xi64>) {
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %ge = arith.cmpf oge, %a, %b : f32
    tm_tensor.yield %ge : i1
  } -> tensor<4x10xf32>, tensor<4x10xi64>
  %v = tensor.extract_slice %s#0[0, 0] [4, 3] [1, 1] : tensor<4x10xf32> to tensor<4x3xf32>
  %i = tensor.extract_slice %s#1[0, 0] [4, 3] [1, 1] : tensor<4x10xi64> to tensor<4x3xi64>
  return %v, %i : tensor<4x3xf32>, tensor<4x3xi64>
}
