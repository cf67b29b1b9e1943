// Rule 'broadcast-result' (rejected): a relu of a bias row, returned, and added to every row of a matrix, in
// one region: IREE 3.13 llvm-cpu codegen fails ("'vector.store' op write affecting operations on global
// resources are restricted to workgroup distributed contexts"; fuzz seed 21223). Accepted twin:
// broadcast-result.mlir (the relu not returned).
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#row = affine_map<(d0) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d1)>
func.func @returned_bias(%x: tensor<32x12xf32>, %b: tensor<12xf32>) -> (tensor<12xf32>, tensor<32x12xf32>) {
  %e = tensor.empty() : tensor<12xf32>
  // expected-error @+1 {{rule 'broadcast-result': op 0 is broadcast by op 1 and is a result of the group}}
  %r = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%b : tensor<12xf32>) outs(%e : tensor<12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<12xf32>
  %e2 = tensor.empty() : tensor<32x12xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %r : tensor<32x12xf32>, tensor<12xf32>) outs(%e2 : tensor<32x12xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<32x12xf32>
  return %r, %y : tensor<12xf32>, tensor<32x12xf32>
}
