// Strategy: convolution + elementwise epilogue (conv + batch-norm + relu, as ONNX Conv+BN+Relu lower
// once BN is a per-channel multiply-add). For every 2-D convolution whose accumulator is a
// linalg.fill and whose result feeds a chain of one or two all-parallel linalg.generics (through
// operand 0; the last one read by no other linalg.generic), tile the last generic into an
// scf.forall over its two outer loops (batch by 1 and channels by 8 in NCHW; batch by 1 and rows by
// 8 in NHWC) and fuse the chain, the convolution (whole window per tile) and the fill into it. The
// convolution's input and a tensor.pad before it are read through slices, not fused.
// Longer epilogue chains are not matched (use --tile-and-fuse, which follows the plan).
//
// Apply: fusion-opt IN.mlir --strategy=conv_epilogue   (or --transform=passes/conv_epilogue.mlir)
module attributes {transform.with_named_sequence} {
  // An all-parallel linalg.generic that no other linalg.generic reads: the end of an epilogue chain.
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
    %linalg_users = transform.structured.match ops{["linalg.generic"]} in %users : (!transform.any_op) -> !transform.any_op
    transform.match.operation_empty %linalg_users : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  // A 2-D convolution accumulating into a linalg.fill; yields (conv, fill).
  transform.named_sequence @match_conv_fill(%mm: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %mm ["linalg.conv_2d_nchw_fchw", "linalg.conv_2d_nhwc_hwcf",
        "linalg.conv_2d_nhwc_fhwc", "linalg.depthwise_conv_2d_nchw_chw", "linalg.depthwise_conv_2d_nhwc_hwc"]
        : !transform.any_op
    %fill = transform.get_producer_of_operand %mm[2] : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %fill ["linalg.fill"] : !transform.any_op
    transform.yield %mm, %fill : !transform.any_op, !transform.any_op
  }

  // sink <- conv <- fill
  transform.named_sequence @match_epilogue1(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_op, !transform.any_op) {
    %sink = transform.include @match_sink failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %p = transform.get_producer_of_operand %sink[0] : (!transform.any_op) -> !transform.any_op
    %mm, %fill = transform.include @match_conv_fill failures(propagate) (%p)
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %sink, %mm, %fill : !transform.any_op, !transform.any_op, !transform.any_op
  }

  // sink <- generic <- conv <- fill
  transform.named_sequence @match_epilogue2(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) {
    %sink = transform.include @match_sink failures(propagate) (%op) : (!transform.any_op) -> !transform.any_op
    %mid = transform.get_producer_of_operand %sink[0] : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %mid ["linalg.generic"] : !transform.any_op
    %p = transform.get_producer_of_operand %mid[0] : (!transform.any_op) -> !transform.any_op
    %mm, %fill = transform.include @match_conv_fill failures(propagate) (%p)
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %sink, %mid, %mm, %fill : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
  }

  transform.named_sequence @tile_fuse1(%sink: !transform.any_op {transform.consumed},
      %mm: !transform.any_op {transform.consumed}, %fill: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.tile_using_forall %sink tile_sizes [1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f1, %loop1 = transform.structured.fuse_into_containing_op %mm into %loop
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f2, %loop2 = transform.structured.fuse_into_containing_op %fill into %loop1
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @tile_fuse2(%sink: !transform.any_op {transform.consumed},
      %mid: !transform.any_op {transform.consumed}, %mm: !transform.any_op {transform.consumed},
      %fill: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.tile_using_forall %sink tile_sizes [1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f0, %loop0 = transform.structured.fuse_into_containing_op %mid into %loop
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f1, %loop1 = transform.structured.fuse_into_containing_op %mm into %loop0
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f2, %loop2 = transform.structured.fuse_into_containing_op %fill into %loop1
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root
        @match_epilogue2 -> @tile_fuse2,
        @match_epilogue1 -> @tile_fuse1
        : (!transform.any_op) -> !transform.any_op
    %funcs = transform.structured.match ops{["func.func"]} in %updated : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
}
