// Ops of .mlir input that normalization turns into generics (`linalg.elementwise`, `linalg.map`, an
// `arith` op on whole tensors) are still matched by the name they were written with.
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=ALL
// RUN: fusion-opt %s --emit=plan --no-fuse=linalg.map | filecheck %s --check-prefix=MAP
// RUN: fusion-opt %s --emit=plan --no-fuse='arith.*' | filecheck %s --check-prefix=ARITH
// RUN: fusion-opt %s --emit=plan --fuse=linalg.elementwise,linalg.map --no-fuse=linalg.matmul | filecheck %s --check-prefix=PIN
// RUN: fusion-opt %s --emit=json | filecheck %s --check-prefix=JSON
// RUN: fusion-opt %s --emit=regions | filecheck %s --check-prefix=IR

// ALL: 1 groups
// ALL: contraction+epilogue  5
// MAP: [barrier] 2:generic@{{.*}} -> 3:generic@{{.*}}: refused: barrier: op 3 is marked no-fuse
// MAP: [barrier] 3:generic@{{.*}} -> 4:generic@{{.*}}: refused: barrier: op 3 is marked no-fuse
// ARITH: contraction+epilogue  4
// ARITH: [barrier] 3:generic@{{.*}} -> 4:generic@{{.*}}: refused: barrier: op 4 is marked no-fuse
// PIN: contraction  1 {{.*}} 1:matmul
// PIN-NEXT: elementwise  3 {{.*}} 2-4:generic
// JSON: "source_op": "linalg.elementwise"
// JSON: "source_op": "linalg.map"
// JSON: "source_op": "arith.negf"
// The planner's bookkeeping attribute never reaches printed IR.
// IR-NOT: fusion_opt.source_op
func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>, %bias: tensor<96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %bb = linalg.broadcast ins(%bias : tensor<96xf32>) outs(%e : tensor<64x96xf32>) dimensions = [0]
  %s = linalg.elementwise <add> ins(%m, %bb : tensor<64x96xf32>, tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.map { math.tanh } ins(%s : tensor<64x96xf32>) outs(%e : tensor<64x96xf32>)
  %t = arith.negf %r : tensor<64x96xf32>
  return %t : tensor<64x96xf32>
}
