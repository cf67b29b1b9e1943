// Pattern int-matmul-narrow: ONNX MatMulInteger as the importer lowers it (u8 activation and i8 weight
// extended to i32, zero points subtracted, torch's i32 x i32 -> i64 matmul, truncated to i32) becomes an
// i16 x i16 -> i32 matmul: the operands' values fit i16 (|u8 - u8| < 256), and sums of products modulo
// 2^32 do not depend on the accumulator's width. The truncation is gone; the i16 casts join the
// zero-point subtractions.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=int-matmul-narrow | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @mm_integer
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi16>, tensor<64x32xi16>) outs(%{{.*}} : tensor<16x32xi32>)
// CHECK-NOT: i64
// CHECK: return %{{.*}} : tensor<16x32xi32>
// PLAN: patterns: int-matmul-narrow 1
// OFF-LABEL: func.func @mm_integer
// OFF: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi32>, tensor<64x32xi32>) outs(%{{.*}} : tensor<16x32xi64>)
// OFF: arith.trunci %{{.*}} : i64 to i32
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @mm_integer(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>, %za: tensor<i8>, %zb: tensor<i8>) -> tensor<16x32xi32> {
  %ea = tensor.empty() : tensor<16x64xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %za : tensor<16x64xi8>, tensor<i8>) outs(%ea : tensor<16x64xi32>) {
  ^bb0(%x: i8, %z: i8, %o: i32):
    %x32 = arith.extui %x : i8 to i32
    %z32 = arith.extui %z : i8 to i32
    %d = arith.subi %x32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<16x64xi32>
  %eb = tensor.empty() : tensor<64x32xi32>
  %b32 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %zb : tensor<64x32xi8>, tensor<i8>) outs(%eb : tensor<64x32xi32>) {
  ^bb0(%x: i8, %z: i8, %o: i32):
    %x32 = arith.extsi %x : i8 to i32
    %z32 = arith.extsi %z : i8 to i32
    %d = arith.subi %x32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<64x32xi32>
  %c0 = arith.constant 0 : i64
  %e64 = tensor.empty() : tensor<16x32xi64>
  %f = linalg.fill ins(%c0 : i64) outs(%e64 : tensor<16x32xi64>) -> tensor<16x32xi64>
  %p = linalg.matmul ins(%a32, %b32 : tensor<16x64xi32>, tensor<64x32xi32>) outs(%f : tensor<16x32xi64>) -> tensor<16x32xi64>
  %e32 = tensor.empty() : tensor<16x32xi32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16x32xi64>) outs(%e32 : tensor<16x32xi32>) {
  ^bb0(%x: i64, %o: i32):
    %t = arith.trunci %x : i64 to i32
    linalg.yield %t : i32
  } -> tensor<16x32xi32>
  return %r : tensor<16x32xi32>
}
