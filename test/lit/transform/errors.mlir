// Transform failures are one line, `where: error: what`, exit 1, no traceback and no output file.
// An interpreter failure is reported at the transform op (in the script) with a payload op it
// concerns; a generated script carries each payload op's location on its transform ops.
// RUN: not fusion-opt %s --transform=%inputs/transform_invalidated_handle.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=HANDLE
// RUN: test ! -e %t.out
// HANDLE: transform_invalidated_handle.mlir:7:16: error: transform failed: op uses a handle invalidated by a previously executed transform op (payload op at {{.*}}errors.mlir:{{[0-9]+}}:8)
// HANDLE-NOT: Traceback
// RUN: not fusion-opt %s --transform=%inputs/transform_fuse_unrelated.mlir 2>&1 | filecheck %s --check-prefix=UNRELATED
// UNRELATED: transform_fuse_unrelated.mlir:8:14: error: transform failed: could not find next producer to fuse into container (payload op at {{.*}}errors.mlir:[[# @LINE + 27]]:8)
// RUN: not fusion-opt %s --transform=%inputs/transform_no_entry.mlir 2>&1 | filecheck %s --check-prefix=ENTRY
// ENTRY: transform_no_entry.mlir: error: no transform.named_sequence @__transform_main in the script
// RUN: not fusion-opt %s --transform=%t.missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: missing.mlir: error: no such transform script
// RUN: not fusion-opt %s --transform=%s 2>&1 | filecheck %s --check-prefix=NOTSCRIPT
// NOTSCRIPT: errors.mlir: error: a transform script must be a module with the 'transform.with_named_sequence' attribute
// RUN: not fusion-opt %s --strategy=no_such_strategy 2>&1 | filecheck %s --check-prefix=STRATEGY
// STRATEGY: --strategy: error: unknown strategy 'no_such_strategy' (known: conv_epilogue, elementwise_chain, matmul_epilogue, reduction_elementwise)
// RUN: not fusion-opt %s --tile-and-fuse --emit=regions 2>&1 | filecheck %s --check-prefix=EMIT
// EMIT: error: --tile-and-fuse prints the tiled IR (or --emit=plan|json|dot|transform); tiled loops cannot be handed to IREE as dispatch regions (--emit=regions)
// RUN: not fusion-opt %s --tile-and-fuse --fusion=iree 2>&1 | filecheck %s --check-prefix=IREE
// IREE: error: tile-and-fuse needs one of our planners (--fusion=cost, greedy or none), not --fusion=iree (it plans no groups)
// RUN: not fusion-opt %s --tile-and-fuse --strategy=matmul_epilogue 2>&1 | filecheck %s --check-prefix=BOTH
// BOTH: error: --tile-and-fuse applies the plan's own script; --transform/--strategy apply another: choose one
// RUN: not fusion-opt %s --transform=%inputs/transform_no_entry.mlir --strategy=matmul_epilogue 2>&1 | filecheck %s --check-prefix=TWO
// TWO: error: give either --transform=SCRIPT or --strategy=NAME, not both

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_consumers(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.absf %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %n, %b : tensor<8x16xf32>, tensor<8x16xf32>
}
