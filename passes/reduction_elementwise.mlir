// Strategy: row-wise reduction + elementwise consumers (softmax, layernorm, x - mean(x)). For every
// all-parallel linalg.generic that no other linalg.generic reads and whose operand 1 is produced by a
// reduction over the innermost loop (a row sum/max), tile the outer loops into an scf.forall (8 rows
// per tile; batch by 1 for rank 3) with the innermost loop whole, and fuse every producer into it
// (`transform.structured.fuse`, greedy): the reductions then run once per row tile, in the loop.
// Everything the sink transitively reads is fused, e.g. a matmul feeding a softmax (row tiles of
// it, computed once).
//
// Apply: fusion-opt IN.mlir --strategy=reduction_elementwise
module attributes {transform.with_named_sequence} {
  // All-parallel linalg.generic read by no other linalg.generic, its operand 1 a row reduction.
  transform.named_sequence @match_sink(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] parallel : !transform.any_op
      transform.match.structured.yield
    }
    %users = transform.get_consumers_of_result %op[0] : (!transform.any_op) -> !transform.any_op
    // One consumer (a return, the next layer): `structured.match ... in` takes a single op.
    %n = transform.num_associations %users : (!transform.any_op) -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %n, %one : !transform.param<i64>
    %generic_users = transform.structured.match ops{["linalg.generic"]} in %users : (!transform.any_op) -> !transform.any_op
    transform.match.operation_empty %generic_users : !transform.any_op
    %red = transform.get_producer_of_operand %op[1] : (!transform.any_op) -> !transform.any_op
    transform.match.structured %red : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[-1] reduction : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @match_rank(%op: !transform.any_op {transform.readonly}, %rank: !transform.param<i64> {transform.readonly}) {
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %r, %rank : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield
  }

  transform.named_sequence @match_sink_2d(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.include @match_rank failures(propagate) (%sink, %two) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %sink : !transform.any_op
  }

  transform.named_sequence @match_sink_3d(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %three = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.include @match_rank failures(propagate) (%sink, %three) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %sink : !transform.any_op
  }

  transform.named_sequence @rows_2d(%sink: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.fuse %sink tile_sizes [8, 0] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @rows_3d(%sink: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.fuse %sink tile_sizes [1, 8, 0] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root
        @match_sink_2d -> @rows_2d,
        @match_sink_3d -> @rows_3d
        : (!transform.any_op) -> !transform.any_op
    %funcs = transform.structured.match ops{["func.func"]} in %updated : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
}
