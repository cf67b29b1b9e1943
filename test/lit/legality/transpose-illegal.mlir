// Rule 'transpose' (rejected): a linalg.transpose fused with its producers exceeded IREE llvm-cpu's stack
// limit, and a max pool reading through one ran 3.3x slower, so a transpose joins a group only as the
// prologue of elementwise ops (accepted twin: transpose.mlir). Each pin below is an error naming the rule.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

// The transpose as the consumer, permuting a member's result: the error is at the first pinned op.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_transpose(%x: tensor<8x16xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  // expected-error @+1 {{rule 'transpose': op 1 (linalg.transpose) permutes the result of op 0 in the group}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %p = linalg.transpose {fusion_opt.fuse = "g"} ins(%r : tensor<8x16xf32>) outs(%e2 : tensor<16x8xf32>) permutation = [1, 0]
  return %p : tensor<16x8xf32>
}

// -----

// The transpose read by a reduction (a row sum): not a prologue of elementwise work.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @transpose_sum(%x: tensor<16x8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  // expected-error @+1 {{rule 'transpose': op 1 (linalg.transpose) permutes the input of op 2 (reduction)}}
  %p = linalg.transpose {fusion_opt.fuse = "g"} ins(%x : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%p : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %o : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// The transpose also returned: a transposing copy stored by the group and read inside it. Nothing folds
// it into its readers, so the normalization of `.mlir` input (importers/mlir_normalize.py) leaves it a
// copy-only generic, as the ONNX path gives it, and the rule that refuses it is 'copy-result'.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_exp_both(%x: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'copy-result': transposing copy op 0 is a result of the group and read inside it}}
  %p = linalg.transpose {fusion_opt.fuse = "g"} ins(%x : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.sqrt %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r, %q : tensor<8x16xf32>, tensor<8x16xf32>
}
