// Rule 'copy-result' (rejected), transposing form: a head transpose (a body-less generic reading through
// a permutation, how the importer writes ONNX Transpose) and the rotary multiply reading it, pinned into
// one group that returns both. IREE 3.13 cannot compile that dispatch ("write affecting operations on
// global resources are restricted to workgroup distributed contexts"; Llama and Qwen2 exports fell back
// on it). Accepted twin: copy-result.mlir (the transpose as the group's sink).
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#p = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @transpose_read_and_returned(%x: tensor<16x4x32xf32>, %c: tensor<16x32xf32>) -> (tensor<4x16x32xf32>, tensor<4x16x32xf32>) {
  %e = tensor.empty() : tensor<4x16x32xf32>
  // expected-error @+1 {{rule 'copy-result': transposing copy op 0 is a result of the group and read inside it}}
  %t = linalg.generic {indexing_maps = [#p, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x4x32xf32>) outs(%e : tensor<4x16x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x32xf32>
  %m = linalg.generic {indexing_maps = [#id, #b, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%t, %c : tensor<4x16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<4x16x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %r = arith.mulf %in, %in2 : f32
    linalg.yield %r : f32
  } -> tensor<4x16x32xf32>
  return %t, %m : tensor<4x16x32xf32>, tensor<4x16x32xf32>
}
