// Rule 'strided-slice' (rejected): exp and a stride-2 slice of its result pinned into one group.
// IREE cannot tile exp through the slice's strides, so every workgroup would compute all of exp (on its
// stack: "exceeded stack allocation limit" for ShuffleNet's dense stride-2 depthwise taps). Accepted
// twin: strided-slice.mlir (the slice joins its consumer instead).
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @exp_and_its_strided_slice(%x: tensor<8x21x21xf32>) -> tensor<8x11x11xf32> {
  %e = tensor.empty() : tensor<8x21x21xf32>
  %e2 = tensor.empty() : tensor<8x11x11xf32>
  // expected-error @+1 {{rule 'strided-slice'}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x21x21xf32>) outs(%e : tensor<8x21x21xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8x21x21xf32>
  %s = tensor.extract_slice %y[0, 0, 0] [8, 11, 11] [1, 2, 2] {fusion_opt.fuse = "g"} : tensor<8x21x21xf32> to tensor<8x11x11xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s : tensor<8x11x11xf32>) outs(%e2 : tensor<8x11x11xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8x11x11xf32>
  return %r : tensor<8x11x11xf32>
}
