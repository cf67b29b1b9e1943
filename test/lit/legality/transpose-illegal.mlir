// Rule 'transpose' (rejected): a linalg.transpose fused with other ops exceeded IREE llvm-cpu's stack
// limit, so it is kept alone; a pin with its consumer is an error. Accepted twin: transpose.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_exp(%x: tensor<16x8xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'transpose'}}
  %p = linalg.transpose {fusion_opt.fuse = "g"} ins(%x : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// The transpose as the consumer: the error is still at the first pinned op.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_transpose(%x: tensor<8x16xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  // expected-error @+1 {{rule 'transpose'}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %p = linalg.transpose {fusion_opt.fuse = "g"} ins(%r : tensor<8x16xf32>) outs(%e2 : tensor<16x8xf32>) permutation = [1, 0]
  return %p : tensor<16x8xf32>
}
