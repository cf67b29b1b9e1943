// Pattern int-matmul-narrow does not fire where it would not be exact: an operand built by a multiply
// (no bound is trusted through it) and an i64 accumulator that is returned, not truncated.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// CHECK-LABEL: func.func @scaled_operand
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi32>, tensor<64x32xi32>) outs(%{{.*}} : tensor<16x32xi32>)
// CHECK-LABEL: func.func @wide_result
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi32>, tensor<64x32xi32>) outs(%{{.*}} : tensor<16x32xi64>)
// PLAN: patterns: none
// PLAN: patterns: none
// PLAN-NOT: int-matmul-narrow {{[0-9]}}
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scaled_operand(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %ea = tensor.empty() : tensor<16x64xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x64xi8>) outs(%ea : tensor<16x64xi32>) {
  ^bb0(%x: i8, %o: i32):
    %x32 = arith.extsi %x : i8 to i32
    %sq = arith.muli %x32, %x32 : i32
    linalg.yield %sq : i32
  } -> tensor<16x64xi32>
  %eb = tensor.empty() : tensor<64x32xi32>
  %b32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x32xi8>) outs(%eb : tensor<64x32xi32>) {
  ^bb0(%x: i8, %o: i32):
    %x32 = arith.extsi %x : i8 to i32
    linalg.yield %x32 : i32
  } -> tensor<64x32xi32>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  %p = linalg.matmul ins(%a32, %b32 : tensor<16x64xi32>, tensor<64x32xi32>) outs(%f : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %p : tensor<16x32xi32>
}
func.func @wide_result(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi64> {
  %ea = tensor.empty() : tensor<16x64xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x64xi8>) outs(%ea : tensor<16x64xi32>) {
  ^bb0(%x: i8, %o: i32):
    %x32 = arith.extsi %x : i8 to i32
    linalg.yield %x32 : i32
  } -> tensor<16x64xi32>
  %eb = tensor.empty() : tensor<64x32xi32>
  %b32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64x32xi8>) outs(%eb : tensor<64x32xi32>) {
  ^bb0(%x: i8, %o: i32):
    %x32 = arith.extsi %x : i8 to i32
    linalg.yield %x32 : i32
  } -> tensor<64x32xi32>
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<16x32xi64>
  %f = linalg.fill ins(%c0 : i64) outs(%e : tensor<16x32xi64>) -> tensor<16x32xi64>
  %p = linalg.matmul ins(%a32, %b32 : tensor<16x64xi32>, tensor<64x32xi32>) outs(%f : tensor<16x32xi64>) -> tensor<16x32xi64>
  return %p : tensor<16x32xi64>
}
