// Rule 'gather-result' (rejected): in a group with a gather (`tensor.extract` in a body), the gather is
// returned and also read by the add of its region: IREE 3.13 llvm-cpu codegen fails ("write affecting
// operations on global resources are restricted to workgroup distributed contexts"; so does any member
// after the gather returned and read inside; GridSample samplers sharing one grid). Accepted twin:
// gather-result.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#id = affine_map<(d0) -> (d0)>
func.func @returned_gather(%g: tensor<12x3xf32>) -> (tensor<12xf32>, tensor<12xf32>) {
  %e = tensor.empty() : tensor<12xf32>
  // expected-error @+1 {{rule 'gather-result'}}
  %a = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      outs(%e : tensor<12xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c2 = arith.constant 2 : index
    %v = tensor.extract %g[%i, %c2] : tensor<12x3xf32>
    linalg.yield %v : f32
  } -> tensor<12xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<12xf32>) outs(%e : tensor<12xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %y = arith.addf %x, %one : f32
    linalg.yield %y : f32
  } -> tensor<12xf32>
  return %a, %b : tensor<12xf32>, tensor<12xf32>
}
