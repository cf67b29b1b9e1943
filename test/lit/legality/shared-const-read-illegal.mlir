// Rule 'shared-const-read' (rejected): tanh reads abs at a constant index (its size-1 dim d0 read at
// 0, as importers write unit broadcasts) and is returned, while the add also reads abs: IREE 3.13
// llvm-cpu fails to tile the pinned region ("result is not accessed using a permuted projection"; fuzz
// seeds 13647 and 13675, test/fuzz/iree/shared-const-read.mlir). Accepted twin: shared-const-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#c0 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
func.func @returned_const_reader(%x: tensor<1x9x32xf32>) -> (tensor<1x9x32xf32>, tensor<1x9x32xf32>) {
  %e = tensor.empty() : tensor<1x9x32xf32>
  // expected-error @+1 {{rule 'shared-const-read'}}
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x9x32xf32>) outs(%e : tensor<1x9x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.absf %v : f32
    linalg.yield %t : f32
  } -> tensor<1x9x32xf32>
  %t = linalg.generic {indexing_maps = [#c0, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<1x9x32xf32>) outs(%e : tensor<1x9x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<1x9x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a, %t : tensor<1x9x32xf32>, tensor<1x9x32xf32>) outs(%e : tensor<1x9x32xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1x9x32xf32>
  return %s, %t : tensor<1x9x32xf32>, tensor<1x9x32xf32>
}
