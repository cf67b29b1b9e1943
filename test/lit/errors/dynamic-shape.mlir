// RUN: not fusion-opt %s 2>&1 | filecheck %s
// CHECK: dynamic-shape.mlir:[[# @LINE + 1]]:1: error: dynamic shape tensor<?x4xf32> in the signature of a function is not supported
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
