// Pattern bmm-tiles: IREE's llvm-cpu vector tiles divide a batch matmul's M and N, so a prime length
// (ViT's 197 tokens) gets tiles of 1; the batch matmul gets IREE's peeled 8 x 8 register tile as a
// compilation_info instead. 128 (divisible) keeps IREE's choice; GPU targets and
// --disable-pattern=bmm-tiles attach nothing.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=json | filecheck %s --check-prefix=JSON
// RUN: fusion-opt %s --emit=regions --disable-pattern=bmm-tiles | filecheck %s --check-prefix=OFF
// RUN: fusion-opt %s --emit=regions --target=sm_80 | filecheck %s --check-prefix=OFF

// CHECK-DAG: #[[CFG:.+]] = #iree_cpu.lowering_config<cache_parallel = [1, 64, 64, 0], distribution = [1, 64, 64, 0], vector_common_parallel = [1, 8, 8, 0], vector_reduction = [0, 0, 0, 8]>
// CHECK-DAG: #[[TI:.+]] = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, {enable_loop_peeling}>
// CHECK-DAG: #[[CI:.+]] = #iree_codegen.compilation_info<lowering_config = #[[CFG]], translation_info = #[[TI]]>
// CHECK-LABEL: func.func @scores_197(
// CHECK: linalg.batch_matmul {compilation_info = #[[CI]]} ins
// CHECK-LABEL: func.func @scores_128(
// CHECK-NOT: compilation_info
// CHECK: linalg.batch_matmul ins
// JSON: "bmm-tiles": 1
// JSON: "bmm-tiles": 0
// OFF-NOT: compilation_info
func.func @scores_197(%q: tensor<8x197x64xf32>, %k: tensor<8x64x197xf32>) -> tensor<8x197x197xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x197x197xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x197x197xf32>) -> tensor<8x197x197xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<8x197x64xf32>, tensor<8x64x197xf32>) outs(%f : tensor<8x197x197xf32>) -> tensor<8x197x197xf32>
  return %s : tensor<8x197x197xf32>
}

func.func @scores_128(%q: tensor<8x128x64xf32>, %k: tensor<8x64x128xf32>) -> tensor<8x128x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<8x128x64xf32>, tensor<8x64x128xf32>) outs(%f : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  return %s : tensor<8x128x128xf32>
}
