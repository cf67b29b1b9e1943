// Rule 'contraction-prologue' (accepted): a fill fuses into a matmul's accumulator, so the fill and
// the matmul may share a pin. Rejected twins (contraction-prologue-illegal.mlir): an exp feeding the
// matmul's input, or its accumulator.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

// CHECK-LABEL: function @fill_matmul:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:fill 1:matmul$}}
// CHECK-NOT: refused
func.func @fill_matmul(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill {fusion_opt.fuse = "g"} ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}
