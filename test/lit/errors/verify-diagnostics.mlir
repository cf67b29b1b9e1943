// RUN: fusion-opt %s --verify-diagnostics --split-input-file --emit=plan

// expected-error @+1 {{dynamic shape}}
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

func.func @bad_ssa(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addf %a, %nope : tensor<4xf32>
  return %0 : tensor<4xf32>
}
