// Fuses an op that the loop does not read: the interpreter refuses, at this script's line, naming the
// payload op. Used by test/lit/transform/errors.mlir.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %neg = transform.structured.match ops{["linalg.generic"]} attributes {fusion_opt.id = 1 : i64} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loop = transform.structured.tile_using_forall %neg tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %abs = transform.structured.match ops{["linalg.generic"]} attributes {fusion_opt.id = 2 : i64} in %root : (!transform.any_op) -> !transform.any_op
    %f, %l = transform.structured.fuse_into_containing_op %abs into %loop : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
