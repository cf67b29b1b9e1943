// Strategy: elementwise chain. For every all-parallel linalg.generic that no other linalg.generic
// reads and whose operand 0 is produced by another all-parallel linalg.generic (a chain of two or
// more), tile it into an scf.forall over 8x64 tiles (1x8x64 for rank 3) and fuse every producer into
// it (`transform.structured.fuse`, greedy), so the chain reads its inputs and writes its output once.
// Everything the chain transitively reads is fused: a row reduction upstream would be recomputed for
// every column tile (numerically the same; use reduction_elementwise for those).
//
// Apply: fusion-opt IN.mlir --strategy=elementwise_chain
module attributes {transform.with_named_sequence} {
  // All-parallel linalg.generic read by no other linalg.generic, its operand 0 another one.
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
    %prev = transform.get_producer_of_operand %op[0] : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %prev ["linalg.generic"] : !transform.any_op
    transform.match.structured %prev : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] parallel : !transform.any_op
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

  transform.named_sequence @tiles_2d(%sink: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.fuse %sink tile_sizes [8, 64] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @tiles_3d(%sink: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.fuse %sink tile_sizes [1, 8, 64] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root
        @match_sink_2d -> @tiles_2d,
        @match_sink_3d -> @tiles_3d
        : (!transform.any_op) -> !transform.any_op
    %funcs = transform.structured.match ops{["func.func"]} in %updated : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
}
