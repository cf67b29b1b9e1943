// Rule 'scalar-result' (rejected): a rank-0 tanh read as a scalar by the add of its region while the
// tanh is also returned: IREE 3.13 llvm-cpu codegen fails ("write affecting operations on global
// resources are restricted to workgroup distributed contexts"; fuzz, test/fuzz/iree/scalar-result.mlir).
// Accepted twin: scalar-result.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#s = affine_map<() -> ()>
#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>
func.func @returned_scalar(%x: tensor<13xf32>, %a: tensor<f32>) -> (tensor<13xf32>, tensor<f32>) {
  %e0 = tensor.empty() : tensor<f32>
  // expected-error @+1 {{rule 'scalar-result'}}
  %t = linalg.generic {indexing_maps = [#s, #s], iterator_types = [], fusion_opt.fuse = "g"}
      ins(%a : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<13xf32>
  %s = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%x, %t : tensor<13xf32>, tensor<f32>) outs(%e : tensor<13xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<13xf32>
  return %s, %t : tensor<13xf32>, tensor<f32>
}
