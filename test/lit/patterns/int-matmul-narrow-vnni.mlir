// Pattern int-matmul-narrow keeps 8-bit operands 8-bit on a CPU with VNNI, where IREE's i8 x i8 -> i32 tiles
// use it (128x768x3072 on an AMD EPYC with avx512_vnni: 2.1 ms as written, 3.9-5.8 ms widened to i16).
// Without VNNI (the reference host, AVX2) they are widened to i16 as before (i16 2.3 ms, i8 3.9 ms there).
// RUN: env FUSION_OPT_HOST_DESC=%inputs/host-vnni.json fusion-opt %s --emit=regions | filecheck %s --check-prefix=VNNI
// RUN: env FUSION_OPT_HOST_DESC=%inputs/host-vnni.json fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions | filecheck %s --check-prefix=AVX2
// VNNI-LABEL: func.func @i8_as_written
// VNNI-NOT: i16
// VNNI: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi8>, tensor<64x32xi8>) outs(%{{.*}} : tensor<16x32xi32>)
// VNNI-LABEL: func.func @i8_wide_accumulator
// VNNI-NOT: i16
// VNNI: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi8>, tensor<64x32xi8>) outs(%{{.*}} : tensor<16x32xi32>)
// VNNI-NOT: i64
// PLAN: patterns: none
// PLAN: patterns: int-matmul-narrow 1
// AVX2-LABEL: func.func @i8_as_written
// AVX2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi16>, tensor<64x32xi16>) outs(%{{.*}} : tensor<16x32xi32>)
// AVX2-LABEL: func.func @i8_wide_accumulator
// AVX2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xi16>, tensor<64x32xi16>) outs(%{{.*}} : tensor<16x32xi32>)
// AVX2-NOT: i64
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @i8_as_written(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  %p = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x32xi8>) outs(%f : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %p : tensor<16x32xi32>
}
func.func @i8_wide_accumulator(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<16x32xi64>
  %f = linalg.fill ins(%c0 : i64) outs(%e : tensor<16x32xi64>) -> tensor<16x32xi64>
  %p = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x32xi8>) outs(%f : tensor<16x32xi64>) -> tensor<16x32xi64>
  %et = tensor.empty() : tensor<16x32xi32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16x32xi64>) outs(%et : tensor<16x32xi32>) {
  ^bb0(%x: i64, %o: i32):
    %y = arith.trunci %x : i64 to i32
    linalg.yield %y : i32
  } -> tensor<16x32xi32>
  return %t : tensor<16x32xi32>
}
