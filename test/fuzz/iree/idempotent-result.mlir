// idempotent-result: fixed: normalization folds max(t, t) to t before planning (mlir_normalize.fold_idempotent_generics), as IREE's own formation does
// exp, tanh and max(tanh, tanh) in one region of ours (greedy and cost), all three returned: IREE 3.13 folded the max into the tanh inside the region and returned the exp for it (20.46 off); IREE's own formation right
// found by fusion-bench fuzz (seed 31670, in a batch whose other function's transpose propagation CSE'd two equal tanh ops into one); hand-reduced
// inputs, float64 reference and bounds: idempotent-result.npz (test/python/test_fuzz_regressions.py)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<31x8xf32>) -> (tensor<31x8xf32>, tensor<31x8xf32>, tensor<31x8xf32>) {
  %e = tensor.empty() : tensor<31x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<31x8xf32>) outs(%e : tensor<31x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  } -> tensor<31x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<31x8xf32>) outs(%e : tensor<31x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.tanh %i : f32
    linalg.yield %r : f32
  } -> tensor<31x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %t : tensor<31x8xf32>, tensor<31x8xf32>) outs(%e : tensor<31x8xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.maximumf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<31x8xf32>
  return %a, %t, %m : tensor<31x8xf32>, tensor<31x8xf32>, tensor<31x8xf32>
}
