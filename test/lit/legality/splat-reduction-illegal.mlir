// Rule 'splat-reduction' (rejected): a sum of a splat (a fill of -1) pinned into one region with the fill:
// IREE 3.13 llvm-cpu computes it wrong without an error (the body applied once: -0.125 for the mean of
// eight -1s; fuzz seeds 13506, 15003, 15132, test/fuzz/iree/splat-reduction.mlir). Accepted twin:
// splat-reduction.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

func.func @mean_of_a_splat() -> tensor<f32> {
  %e = tensor.empty() : tensor<8xf32>
  %c = arith.constant -1.0 : f32
  // expected-error @+1 {{rule 'splat-reduction'}}
  %v = linalg.fill {fusion_opt.fuse = "g"} ins(%c : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<f32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"], fusion_opt.fuse = "g"}
      ins(%v : tensor<8xf32>) outs(%f : tensor<f32>) {
  ^bb0(%i: f32, %o: f32):
    %k = arith.constant 0.125 : f32
    %t = arith.mulf %i, %k : f32
    %r = arith.addf %t, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
