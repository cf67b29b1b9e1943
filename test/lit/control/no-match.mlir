// A matcher that matches no op is an error (a typo must not plan silently without its pin); so is an
// illegal pin given on the command line, reported at the pinned op's location.
// RUN: not fusion-opt %s --fuse=no-match.mlir:99,linalg.matmul 2>&1 | filecheck %s --check-prefix=LOC
// RUN: not fusion-opt %s --no-fuse='*conv*' 2>&1 | filecheck %s --check-prefix=GLOB
// RUN: not fusion-opt %s --fuse=no-match.mlir:18,no-match.mlir:31 2>&1 | filecheck %s --check-prefix=CYCLE
// RUN: not fusion-opt %s --fusion=iree --no-fuse=linalg.fill 2>&1 | filecheck %s --check-prefix=IREE

// LOC: error: --fuse matcher 'no-match.mlir:99' matches no op
// GLOB: error: --no-fuse matcher '*conv*' matches no op
// CYCLE: no-match.mlir:18:9: error: cannot fuse op 0 (linalg.generic at {{.*}}no-match.mlir:18:9) with op 3 (linalg.generic at {{.*}}no-match.mlir:31:8): rule 'cycle': op 2 (linalg.generic at {{.*}}) depends on the first and feeds the second
// IREE: error: fusion pins and barriers need one of our planners
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @cycle(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x128xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = math.exp %v : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sm = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<32x128xf32>) outs(%si : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sm : tensor<32x128xf32>, tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.subf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// A copy-only named op the .mlir normalization folds into its readers' maps: the error says to name those.
// (Named ops it makes generics match by their written name: source-names.mlir.)
// RUN: not fusion-opt %s --no-fuse='linalg.broad*' 2>&1 | filecheck %s --check-prefix=NAMED
// NAMED: error: --no-fuse matcher 'linalg.broad*' matches no op (linalg.broadcast ops of .mlir input are folded into the indexing maps of the ops that read them before planning: name those)
