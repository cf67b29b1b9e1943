// Rule 'one-contraction' (rejected): two contractions in one dispatch fail IREE llvm-cpu codegen, so
// pinning a matmul with the matmul it feeds is an error. Accepted twin: one-contraction.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

func.func @matmul_matmul(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{rule 'one-contraction'}}
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.matmul {fusion_opt.fuse = "g"} ins(%m, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
