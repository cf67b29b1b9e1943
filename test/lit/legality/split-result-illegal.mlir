// Rule 'split-result' (rejected): `y = x + x` returned, `sum(y) * sum(w)`: two independent last reductions,
// and a result of the group feeding only one of them. IREE 3.13 llvm-cpu computes `y` inside that reduction's
// loop and fails ("'vector.store' op write affecting operations on global resources are restricted to
// workgroup distributed contexts"; a Siamese net's cosine of two normalized embeddings fell back).
// Accepted twin: split-result.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#v = affine_map<(d0) -> (d0)>
func.func @one_side_returned(%x: tensor<2x32xf32>, %w: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2xf32>) {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x32xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  // expected-error @+1 {{rule 'split-result': op 1 is a result of the group and feeds reduction 2 but not reduction 3, independent last reductions}}
  %f = linalg.fill {fusion_opt.fuse = "g"} ins(%z : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"} ins(%x : tensor<2x32xf32>) outs(%e2 : tensor<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x32xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"} ins(%y : tensor<2x32xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"} ins(%w : tensor<2x32xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %p = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"], fusion_opt.fuse = "g"} ins(%s1, %s2 : tensor<2xf32>, tensor<2xf32>) outs(%e1 : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  return %y, %p : tensor<2x32xf32>, tensor<2xf32>
}
