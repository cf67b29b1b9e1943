// A transform script with a bug: it tiles the same op twice, through a handle the first tiling
// consumed. Used by test/lit/transform/errors.mlir.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t1, %l1 = transform.structured.tile_using_forall %op tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %l2 = transform.structured.tile_using_forall %op tile_sizes [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
