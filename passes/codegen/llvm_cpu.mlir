// Per-dispatch codegen strategies for IREE's llvm-cpu backend (IREE 3.13), for the canonical group
// shapes of the strategy library: matmul + epilogue, conv + epilogue (NHWC), reduction + elementwise
// (softmax, layernorm), elementwise chains. Used by `fusion-opt --codegen-strategies` (API:
// codegen_strategies=True), which passes
//   --iree-codegen-transform-dialect-library=passes/codegen/llvm_cpu.mlir@__kernel_config
// to iree-compile. IREE runs @__kernel_config on every dispatch function before choosing a pipeline;
// where a matcher fires, the function gets
//   translation_info<pipeline = #iree_codegen.transform_dialect_codegen codegen_spec = @codegen_...>
// and IREE lowers that dispatch with the named sequence (payload: the executable's inner
// builtin.module) instead of its C++ pipelines. Dispatches no matcher fires on keep IREE's choice, as
// do ops carrying a compilation_info (--tile-sizes=cost).
//
// Every codegen sequence: tile the op whose result the dispatch stores (the sink) into an scf.forall
// of workgroups, fusing all its producers (transform.structured.fuse ... use_forall); normalize the
// forall, map it to #gpu.block ids and fill the workgroup count; tile again to register-sized tiles
// (scf.for), reductions by a vector of partial results; vectorize; hoist accumulators into
// loop-carried vectors; bufferize; turn the forall into workgroup ids; lower contractions to
// outer-product FMAs and multi-reductions; mark the function `no_pipeline` (which
// LowerExecutableUsingTransformDialect requires). Tile sizes are fixed per strategy (edit them
// here); a partial tile is correct but not vectorized (scalar loops).
//
// IREE 3.13 facts this file relies on (verified):
// - @__kernel_config gets each dispatch func.func, still reading and writing through
//   iree_tensor_ext.dispatch.tensor.load/store; a codegen sequence gets the inner builtin.module
//   (func.func + iree_codegen.dispatch_config), where they are iree_codegen.load_from_buffer /
//   store_to_buffer;
// - foreach_match matchers may only hold MatchOpInterface ops there (IREE runs the library with
//   expensive checks): get_producer_of_operand, get_parent_op, num_associations, param.constant,
//   match.* are fine; structured.match, collect_matching, get_consumers_of_result are refused
//   ("expected operations in the match part to implement MatchOpInterface");
// - transform.alternatives on the dispatch function crashes iree-compile (it replaces the function
//   MaterializeUserConfigs is iterating over);
// - a library that fails to parse or verify is reported as an error, but iree-compile still exits 0
//   and compiles every dispatch with IREE's pipelines (fusion-opt treats the error as fatal);
// - populate_workgroup_count_region_using_num_threads_slice needs a normalized forall ("Expect the
//   for op to be normalized"): structured.fuse ... use_forall is not, so the pass
//   iree-codegen-normalize-loop-bounds runs first; forall_to_workgroup needs a #gpu.block mapping
//   ("mapping must be #gpu.block<x/y/z/>");
// - strict properties in the assembly format: `get_parent_op %h <op_name = "func.func">`,
//   `match.structured.body %s contraction = [...]`, `print %h name = "..."` (IREE's own samples still
//   write `{op_name = ...}`, which no longer parses).
module attributes {transform.with_named_sequence} {

  //===--------------------------------------------------------------------------------------------===//
  // Kernel config: which dispatches get which strategy.
  //===--------------------------------------------------------------------------------------------===//

  // The op whose result a dispatch stores (the sink), anchored at the store.
  transform.named_sequence @match_sink(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %store ["iree_tensor_ext.dispatch.tensor.store"] : !transform.any_op
    %sink = transform.get_producer_of_operand %store[0] : (!transform.any_op) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }

  // Fails (silenceably) unless the dispatch has one result and nothing but Linalg compute (no pads,
  // reshapes, packs, loops). Not a matcher: IREE runs the kernel config with expensive checks, which
  // refuse ops without MatchOpInterface (structured.match, collect_matching, get_consumers_of_result)
  // in foreach_match matchers ("expected operations in the match part to implement MatchOpInterface").
  transform.named_sequence @check_dispatch(%func: !transform.any_op {transform.readonly}) {
    %stores = transform.structured.match ops{["iree_tensor_ext.dispatch.tensor.store"]} in %func
        : (!transform.any_op) -> !transform.any_op
    %n = transform.num_associations %stores : (!transform.any_op) -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %n, %one : !transform.param<i64>
    %odd = transform.structured.match ops{["tensor.pad", "tensor.expand_shape", "tensor.collapse_shape",
        "tensor.extract_slice", "tensor.insert_slice", "tensor.concat", "linalg.pack", "linalg.unpack",
        "scf.for", "scf.forall", "scf.if"]} in %func : (!transform.any_op) -> !transform.any_op
    transform.match.operation_empty %odd : !transform.any_op
    transform.yield
  }

  // Fails (silenceably) unless every Linalg op of the dispatch is all-parallel.
  transform.named_sequence @check_all_parallel(%func: !transform.any_op {transform.readonly}) {
    %linalg = transform.structured.match interface{LinalgOp} in %func : (!transform.any_op) -> !transform.any_op
    %parallel = transform.collect_matching @match_all_parallel in %func : (!transform.any_op) -> !transform.any_op
    %n_linalg = transform.num_associations %linalg : (!transform.any_op) -> !transform.param<i64>
    %n_parallel = transform.num_associations %parallel : (!transform.any_op) -> !transform.param<i64>
    transform.match.param.cmpi eq %n_linalg, %n_parallel : !transform.param<i64>
    transform.yield
  }

  // (m, n, k) contraction: matmul, matmul with transposed operands, their generic forms. Not one
  // carrying a compilation_info (--tile-sizes=cost): its own config wins.
  transform.named_sequence @is_matmul(%op: !transform.any_op {transform.readonly}) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %three = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %r, %three : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] parallel : !transform.any_op
      transform.match.structured.dim %s[2] reduction : !transform.any_op
      transform.match.structured.body %s contraction = ["arith.mulf", "arith.addf"] : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield
  }

  transform.named_sequence @is_conv_nhwc(%op: !transform.any_op {transform.readonly}) {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    transform.yield
  }

  // All-parallel Linalg op (elementwise, broadcast, transpose) of the given rank.
  transform.named_sequence @is_parallel(%op: !transform.any_op {transform.readonly},
                                        %rank: !transform.param<i64> {transform.readonly}) {
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %r, %rank : !transform.param<i64>
      transform.match.structured.dim %s[all] parallel : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield
  }

  // Reduction over the innermost loop only (row sum/max of softmax and layernorm), of the given rank.
  transform.named_sequence @is_row_reduction(%op: !transform.any_op {transform.readonly},
                                             %rank: !transform.param<i64> {transform.readonly}) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %r, %rank : !transform.param<i64>
      transform.match.structured.dim %s[-1] reduction : !transform.any_op
      transform.match.structured.dim %s[except(-1)] parallel : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield
  }

  // A Linalg op without reduction loops (any rank).
  transform.named_sequence @match_all_parallel(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[all] parallel : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // matmul alone, or an all-parallel 2-D epilogue reading a matmul through operand 0 or 1.
  transform.named_sequence @match_matmul(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    transform.include @is_matmul failures(propagate) (%sink) : (!transform.any_op) -> ()
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_matmul_epilogue0(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.include @is_parallel failures(propagate) (%sink, %two) : (!transform.any_op, !transform.param<i64>) -> ()
    %p = transform.get_producer_of_operand %sink[0] : (!transform.any_op) -> !transform.any_op
    transform.include @is_matmul failures(propagate) (%p) : (!transform.any_op) -> ()
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_matmul_epilogue1(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.include @is_parallel failures(propagate) (%sink, %two) : (!transform.any_op, !transform.param<i64>) -> ()
    %p = transform.get_producer_of_operand %sink[1] : (!transform.any_op) -> !transform.any_op
    transform.include @is_matmul failures(propagate) (%p) : (!transform.any_op) -> ()
    transform.yield %sink : !transform.any_op
  }

  // NHWC conv alone, or an all-parallel 4-D epilogue (batch norm, bias, relu) reading one through operand 0.
  transform.named_sequence @match_conv_nhwc(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    transform.include @is_conv_nhwc failures(propagate) (%sink) : (!transform.any_op) -> ()
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_conv_nhwc_epilogue(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    %four = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.include @is_parallel failures(propagate) (%sink, %four) : (!transform.any_op, !transform.param<i64>) -> ()
    %p = transform.get_producer_of_operand %sink[0] : (!transform.any_op) -> !transform.any_op
    transform.include @is_conv_nhwc failures(propagate) (%p) : (!transform.any_op) -> ()
    transform.yield %sink : !transform.any_op
  }

  // A row reduction, or an all-parallel op reading one through operand 1 or 2 (softmax: x, max, sum;
  // layernorm: centered x, sum of squares), of rank 2 or 3.
  transform.named_sequence @match_reduction_rank(%store: !transform.any_op {transform.readonly},
      %rank: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    transform.include @is_parallel failures(propagate) (%sink, %rank) : (!transform.any_op, !transform.param<i64>) -> ()
    %p1 = transform.get_producer_of_operand %sink[1] : (!transform.any_op) -> !transform.any_op
    transform.include @is_row_reduction failures(propagate) (%p1, %rank) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_reduction2(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    %sink = transform.include @match_reduction_rank failures(propagate) (%store, %two)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_reduction3(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %three = transform.param.constant 3 : i64 -> !transform.param<i64>
    %sink = transform.include @match_reduction_rank failures(propagate) (%store, %three)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }

  // All-parallel sink of rank 1 to 4 (in a dispatch without any reduction, checked by
  // @check_all_parallel: tiling every loop then never recomputes anything).
  transform.named_sequence @match_elementwise_rank(%store: !transform.any_op {transform.readonly},
      %rank: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    %sink = transform.include @match_sink failures(propagate) (%store) : (!transform.any_op) -> !transform.any_op
    transform.include @is_parallel failures(propagate) (%sink, %rank) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_elementwise1(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %r = transform.param.constant 1 : i64 -> !transform.param<i64>
    %sink = transform.include @match_elementwise_rank failures(propagate) (%store, %r)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_elementwise2(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %r = transform.param.constant 2 : i64 -> !transform.param<i64>
    %sink = transform.include @match_elementwise_rank failures(propagate) (%store, %r)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_elementwise3(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %r = transform.param.constant 3 : i64 -> !transform.param<i64>
    %sink = transform.include @match_elementwise_rank failures(propagate) (%store, %r)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }
  transform.named_sequence @match_elementwise4(%store: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %r = transform.param.constant 4 : i64 -> !transform.param<i64>
    %sink = transform.include @match_elementwise_rank failures(propagate) (%store, %r)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }

  // Annotators: the dispatch function gets the codegen sequence to run (foreach_match hands them the
  // sink; only its function is touched).
  transform.named_sequence @use_matmul_epilogue(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_matmul_epilogue> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_conv_nhwc_epilogue(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_conv_nhwc_epilogue> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_reduction_elementwise2(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_reduction_elementwise2> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_reduction_elementwise3(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_reduction_elementwise3> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_elementwise1(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_elementwise1> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_elementwise2(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_elementwise2> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_elementwise3(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_elementwise3> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @use_elementwise4(%sink: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %sink <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    %ti = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.transform_dialect_codegen
        codegen_spec = @codegen_elementwise4> -> !transform.any_param
    transform.annotate %func "translation_info" = %ti : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Try the elementwise strategies: a dispatch of one result, nothing but all-parallel Linalg ops.
  transform.named_sequence @try_elementwise(%func: !transform.any_op {transform.readonly}) {
    transform.include @check_dispatch failures(propagate) (%func) : (!transform.any_op) -> ()
    transform.include @check_all_parallel failures(propagate) (%func) : (!transform.any_op) -> ()
    %store = transform.structured.match ops{["iree_tensor_ext.dispatch.tensor.store"]} in %func
        : (!transform.any_op) -> !transform.any_op
    %m = transform.foreach_match restrict_root in %store
        @match_elementwise1 -> @use_elementwise1,
        @match_elementwise2 -> @use_elementwise2,
        @match_elementwise3 -> @use_elementwise3,
        @match_elementwise4 -> @use_elementwise4
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  // Try the strategies of groups with a contraction, convolution or row reduction.
  transform.named_sequence @try_compute(%func: !transform.any_op {transform.readonly}) {
    transform.include @check_dispatch failures(propagate) (%func) : (!transform.any_op) -> ()
    %store = transform.structured.match ops{["iree_tensor_ext.dispatch.tensor.store"]} in %func
        : (!transform.any_op) -> !transform.any_op
    %m = transform.foreach_match restrict_root in %store
        @match_matmul -> @use_matmul_epilogue,
        @match_matmul_epilogue0 -> @use_matmul_epilogue,
        @match_matmul_epilogue1 -> @use_matmul_epilogue,
        @match_conv_nhwc -> @use_conv_nhwc_epilogue,
        @match_conv_nhwc_epilogue -> @use_conv_nhwc_epilogue,
        @match_reduction2 -> @use_reduction_elementwise2,
        @match_reduction3 -> @use_reduction_elementwise3
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  // Entry point: IREE's MaterializeUserConfigs runs it on each dispatch function (before IREE picks a
  // pipeline; the dispatch still reads/writes through iree_tensor_ext.dispatch.tensor.load/store).
  // A silenceable failure inside an included sequence ends that sequence (failures(propagate));
  // the enclosing `failures(suppress)` sequence then drops it and goes on: a failed check leaves the
  // dispatch to IREE. (In a `failures(suppress)` sequence itself, a failed check would not stop the
  // ops after it.) foreach_match consumes its root, so it walks a handle to the store (a fresh one per
  // try), never the function; `restrict_root` makes it match the root itself (without it the root
  // is skipped).
  transform.named_sequence @__kernel_config(%func: !transform.any_op {transform.readonly}) {
    transform.sequence %func : !transform.any_op failures(suppress) {
    ^bb0(%f: !transform.any_op):
      transform.include @try_elementwise failures(propagate) (%f) : (!transform.any_op) -> ()
    }
    transform.sequence %func : !transform.any_op failures(suppress) {
    ^bb0(%f: !transform.any_op):
      transform.include @try_compute failures(propagate) (%f) : (!transform.any_op) -> ()
    }
    transform.yield
  }

  //===--------------------------------------------------------------------------------------------===//
  // Codegen: shared steps.
  //===--------------------------------------------------------------------------------------------===//

  // The sink: the op whose result the dispatch stores.
  transform.named_sequence @get_sink(%module: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %store = transform.structured.match ops{["iree_codegen.store_to_buffer"]} in %module : (!transform.any_op) -> !transform.any_op
    %sink = transform.get_producer_of_operand %store[0] : (!transform.any_op) -> !transform.any_op
    transform.yield %sink : !transform.any_op
  }

  // The workgroup forall: normalized (0 to N step 1), mapped to #gpu.block ids (innermost loop to x),
  // its trip counts written into the dispatch's workgroup count.
  transform.named_sequence @distribute_2d(%module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    %nfunc = transform.apply_registered_pass "iree-codegen-normalize-loop-bounds"
        with options = {"normalize-for" = false} to %func : (!transform.any_op) -> !transform.any_op
    %forall = transform.structured.match ops{["scf.forall"]} in %nfunc : (!transform.any_op) -> !transform.any_op
    %map = transform.param.constant [#gpu.block<y>, #gpu.block<x>] -> !transform.any_param
    transform.annotate %forall "mapping" = %map : !transform.any_op, !transform.any_param
    transform.iree.populate_workgroup_count_region_using_num_threads_slice %forall : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @distribute_1d(%module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    %nfunc = transform.apply_registered_pass "iree-codegen-normalize-loop-bounds"
        with options = {"normalize-for" = false} to %func : (!transform.any_op) -> !transform.any_op
    %forall = transform.structured.match ops{["scf.forall"]} in %nfunc : (!transform.any_op) -> !transform.any_op
    %map = transform.param.constant [#gpu.block<x>] -> !transform.any_param
    transform.annotate %forall "mapping" = %map : !transform.any_op, !transform.any_param
    transform.iree.populate_workgroup_count_region_using_num_threads_slice %forall : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @distribute_3d(%module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    %nfunc = transform.apply_registered_pass "iree-codegen-normalize-loop-bounds"
        with options = {"normalize-for" = false} to %func : (!transform.any_op) -> !transform.any_op
    %forall = transform.structured.match ops{["scf.forall"]} in %nfunc : (!transform.any_op) -> !transform.any_op
    %map = transform.param.constant [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>] -> !transform.any_param
    transform.annotate %forall "mapping" = %map : !transform.any_op, !transform.any_param
    transform.iree.populate_workgroup_count_region_using_num_threads_slice %forall : (!transform.any_op) -> ()
    transform.yield
  }

  // Vectorize, bufferize, distribute, lower vectors, mark the function as lowered.
  transform.named_sequence @vectorize_bufferize_lower(%module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.scf.for_loop_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %func : !transform.any_op
    %vfunc = transform.structured.vectorize_children_and_apply_patterns %func : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %vfunc {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.scf.for_loop_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.iree.apply_licm %vfunc : !transform.any_op
    transform.apply_cse to %vfunc : !transform.any_op
    // Accumulators (contraction tiles, partial reductions) become loop-carried vectors.
    %loops = transform.structured.match ops{["scf.for"]} in %vfunc : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    transform.iree.eliminate_empty_tensors %vfunc : (!transform.any_op) -> ()
    transform.apply_patterns to %vfunc {
      transform.apply_patterns.linalg.erase_unnecessary_inputs
    } : !transform.any_op
    %bfunc = transform.iree.bufferize %vfunc : (!transform.any_op) -> !transform.any_op
    transform.iree.forall_to_workgroup %bfunc : (!transform.any_op) -> ()
    // CSE first: canonicalization then erases the copy of the output tile onto itself.
    transform.apply_cse to %bfunc : !transform.any_op
    transform.apply_patterns to %bfunc {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %hfunc = transform.structured.hoist_redundant_vector_transfers %bfunc : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %hfunc {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.reorder_multi_reduction_dims lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.multi_reduction_flattening lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.multi_reduction_unrolling lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %hfunc : !transform.any_op
    transform.memref.erase_dead_alloc_and_stores %hfunc : (!transform.any_op) -> ()
    %none = transform.param.constant #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline> -> !transform.any_param
    transform.annotate %hfunc "translation_info" = %none : !transform.any_op, !transform.any_param
    transform.yield
  }

  //===--------------------------------------------------------------------------------------------===//
  // matmul + epilogue: 32x32 workgroup tiles (whole K), 8x16 register tiles, K by 1: each step is
  // 8 broadcast-FMAs of a 16-wide row, with the 8x16 accumulator in registers.
  //===--------------------------------------------------------------------------------------------===//

  transform.named_sequence @tile_k_by_1(%op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, 0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_matmul_op(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.include @is_matmul failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @codegen_matmul_epilogue(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [32, 32] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_2d failures(propagate) (%module) : (!transform.any_op) -> ()
    %reg, %loops:2 = transform.structured.fuse %wg tile_sizes [8, 16] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    %f = transform.foreach_match in %func @match_matmul_op -> @tile_k_by_1 : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }

  //===--------------------------------------------------------------------------------------------===//
  // conv + epilogue, NHWC (conv_2d_nhwc_hwcf): workgroups of 8 output rows (whole width, all
  // channels); register tiles of 8 output columns x 8 channels of one row; the conv's window rows by
  // 1 and input channels by 8, then decomposed to a 1-D convolution (transform.structured.decompose),
  // which the vectorizer turns into broadcast-FMAs.
  // NCHW convs (what ONNX gives) are left to IREE: the same scheme for conv_2d_nchw_fchw (decomposed
  // to conv_1d_ncw_fcw) miscompiles in IREE 3.13 with more than one output channel per register
  // tile (only channel 0 of each tile right: the 1-D conv's vector<1xFxW> result reaches the
  // 1xFx1xW accumulator through a transfer_write lacking the permutation map of its transfer_read,
  // {in_bounds = [true, false, true]}), and with one channel per tile it is correct but 12x slower
  // than IREE's ConvTileAndDecomposeExpert (the NCW vectorization transposes every tile).
  //===--------------------------------------------------------------------------------------------===//

  transform.named_sequence @match_conv_nhwc_op(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.include @is_conv_nhwc failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield %op : !transform.any_op
  }
  // (n, oh, ow, f, kh, kw, c): window rows by 1, input channels by 8, then 1-D.
  transform.named_sequence @tile_decompose_nhwc(%op: !transform.any_op {transform.consumed}) {
    %t, %l:2 = transform.structured.tile_using_for %op tile_sizes [0, 0, 0, 0, 1, 0, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    // Shapes decompose cannot handle (dynamic sizes of partial tiles) stay 2-D: scalar loops.
    transform.sequence %t : !transform.any_op failures(suppress) {
    ^bb0(%conv: !transform.any_op):
      %d = transform.structured.decompose %conv : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }

  // NHWC output (n, oh, ow, f): workgroups of 8 rows; registers 8 columns x 8 channels of a row.
  transform.named_sequence @codegen_conv_nhwc_epilogue(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [1, 8, 0, 0] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_2d failures(propagate) (%module) : (!transform.any_op) -> ()
    %reg, %loops:3 = transform.structured.fuse %wg tile_sizes [0, 1, 8, 8] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    // The untiled ops left outside the loops die here (else the conv below would match them).
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %func : !transform.any_op
    %f = transform.foreach_match in %func @match_conv_nhwc_op -> @tile_decompose_nhwc : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }

  //===--------------------------------------------------------------------------------------------===//
  // reduction + elementwise (softmax, layernorm): workgroups of 8 rows, each row computed whole
  // (its reductions fused in, once per row); per op, reductions by 8 columns into a vector of
  // partial results (tile_reduction_using_for), elementwise ops by 8 columns.
  //===--------------------------------------------------------------------------------------------===//

  transform.named_sequence @match_row_reduction2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.include @is_row_reduction failures(propagate) (%op, %two) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_parallel2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.include @is_parallel failures(propagate) (%op, %two) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_row_reduction3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %three = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.include @is_row_reduction failures(propagate) (%op, %three) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_parallel3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %three = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.include @is_parallel failures(propagate) (%op, %three) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @split_reduction2(%op: !transform.any_op {transform.consumed}) {
    %fill, %partial, %merge, %loop = transform.structured.tile_reduction_using_for %op by tile_sizes = [0, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @columns2(%op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @split_reduction3(%op: !transform.any_op {transform.consumed}) {
    %fill, %partial, %merge, %loop = transform.structured.tile_reduction_using_for %op by tile_sizes = [0, 0, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @columns3(%op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, 0, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @codegen_reduction_elementwise2(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [8, 0] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_1d failures(propagate) (%module) : (!transform.any_op) -> ()
    %row, %loop = transform.structured.fuse %wg tile_sizes [1, 0] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    %f = transform.foreach_match in %func
        @match_row_reduction2 -> @split_reduction2,
        @match_parallel2 -> @columns2
        : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @codegen_reduction_elementwise3(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [1, 8, 0] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_2d failures(propagate) (%module) : (!transform.any_op) -> ()
    %row, %loops:2 = transform.structured.fuse %wg tile_sizes [1, 1, 0] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.any_op
    %f = transform.foreach_match in %func
        @match_row_reduction3 -> @split_reduction3,
        @match_parallel3 -> @columns3
        : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }

  //===--------------------------------------------------------------------------------------------===//
  // elementwise chains: workgroup tiles of 8 rows x 64 columns (rank 2; 4096 elements for rank 1, 8 x 64
  // of the two inner loops for rank 3, 8 channels of a whole image for rank 4), the whole chain fused
  // again at 8 columns (one vector) per step.
  //===--------------------------------------------------------------------------------------------===//

  transform.named_sequence @codegen_elementwise1(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [4096] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_1d failures(propagate) (%module) : (!transform.any_op) -> ()
    %v, %l = transform.structured.fuse %wg tile_sizes [8] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @codegen_elementwise2(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [8, 64] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_2d failures(propagate) (%module) : (!transform.any_op) -> ()
    %v, %l:2 = transform.structured.fuse %wg tile_sizes [1, 8] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @codegen_elementwise3(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [1, 8, 64] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_3d failures(propagate) (%module) : (!transform.any_op) -> ()
    %v, %l:3 = transform.structured.fuse %wg tile_sizes [1, 1, 8] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @codegen_elementwise4(%module: !transform.any_op {transform.readonly}) {
    %sink = transform.include @get_sink failures(propagate) (%module) : (!transform.any_op) -> !transform.any_op
    %wg, %forall = transform.structured.fuse %sink tile_sizes [1, 8, 0, 0] apply_cleanup use_forall
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @distribute_2d failures(propagate) (%module) : (!transform.any_op) -> ()
    %v, %l:4 = transform.structured.fuse %wg tile_sizes [1, 1, 1, 8] apply_cleanup
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @vectorize_bufferize_lower failures(propagate) (%module) : (!transform.any_op) -> ()
    transform.yield
  }
}
