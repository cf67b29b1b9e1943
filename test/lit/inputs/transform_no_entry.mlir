// A transform library without @__transform_main. Used by test/lit/transform/errors.mlir.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @helper(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
