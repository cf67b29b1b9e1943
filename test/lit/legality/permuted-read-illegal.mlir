// Rule 'permuted-read' (rejected): the same ops with the product reading the epilogue transposed (d0 and
// d3 swapped), pinned into one region: IREE 3.13 computes every element wrong (max error 1.36), and so does
// its own formation of the same ops (fuzz seed 17109). Unpinned, the planner leaves the product apart.
// Accepted twin: permuted-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

func.func @max_scale_transposed(%x: tensor<5x32x1x5xf32>) -> tensor<5x32x1x5xf32> {
  %z = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x1x5xf32>
  %ex = tensor.empty() : tensor<5x32x1x5xf32>
  // expected-error @+1 {{rule 'permuted-read'}}
  %f = linalg.fill {fusion_opt.fuse = "g"} ins(%z : f32) outs(%e : tensor<32x1x5xf32>) -> tensor<32x1x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>], iterator_types = ["reduction", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<5x32x1x5xf32>) outs(%f : tensor<32x1x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.maximumf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<32x1x5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %m : tensor<5x32x1x5xf32>, tensor<32x1x5xf32>) outs(%ex : tensor<5x32x1x5xf32>) {
  ^bb0(%i: f32, %r: f32, %o: f32):
    %ab = math.absf %r : f32
    %d = arith.addf %ab, %one : f32
    %q = arith.divf %i, %d : f32
    linalg.yield %q : f32
  } -> tensor<5x32x1x5xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d2, d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s, %s : tensor<5x32x1x5xf32>, tensor<5x32x1x5xf32>) outs(%ex : tensor<5x32x1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<5x32x1x5xf32>
  return %y : tensor<5x32x1x5xf32>
}
