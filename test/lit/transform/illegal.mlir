// Legality comes first: an illegal fusion the user asks for (here two matmuls pinned into one group)
// is refused by the planner's rules, at the op, before any transform script is built or run.
// RUN: fusion-opt %s --tile-and-fuse --verify-diagnostics
// RUN: fusion-opt %s --emit=transform --verify-diagnostics

func.func @two_matmuls(%a: tensor<16x32xf32>, %b: tensor<32x32xf32>, %c: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{rule 'one-contraction'}}
  %m1 = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<16x32xf32>, tensor<32x32xf32>) outs(%f1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m2 = linalg.matmul {fusion_opt.fuse = "g"} ins(%m1, %c : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %m2 : tensor<16x8xf32>
}
