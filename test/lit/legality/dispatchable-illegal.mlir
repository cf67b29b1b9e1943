// Rule 'dispatchable' (rejected): reshapes are left to IREE outside every dispatch, so a pin holding
// tensor.collapse_shape is an error at the first pinned op. Accepted twin: dispatchable.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id1 = affine_map<(d0) -> (d0)>
func.func @collapse_exp(%x: tensor<8x16xf32>) -> tensor<128xf32> {
  %e = tensor.empty() : tensor<128xf32>
  // expected-error @+1 {{rule 'dispatchable'}}
  %c = tensor.collapse_shape %x [[0, 1]] {fusion_opt.fuse = "g"} : tensor<8x16xf32> into tensor<128xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%c : tensor<128xf32>) outs(%e : tensor<128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// -----

// The pinned reshape need not come first: the error is at the first op the pin names.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_expand(%x: tensor<128xf32>) -> tensor<128xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %x2 = tensor.expand_shape %x [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  // expected-error @+1 {{rule 'dispatchable'}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x2 : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %c = tensor.collapse_shape %r [[0, 1]] {fusion_opt.fuse = "g"} : tensor<8x16xf32> into tensor<128xf32>
  return %c : tensor<128xf32>
}
