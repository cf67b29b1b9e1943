// RUN: not fusion-opt %s --emit=plan 2>&1 | filecheck %s
// RUN: not fusion-opt %s --emit=regions -o %t.out 2>&1 | filecheck %s
// RUN: test ! -e %t.out

// CHECK: parse-error.mlir:[[# @LINE + 3]]:23: error: use of undeclared SSA value name
// CHECK-NOT: Traceback
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %missing : tensor<4xf32>
  return %0 : tensor<4xf32>
}
