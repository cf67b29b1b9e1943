// Rule 'packed-multi-output' (rejected): a residual add + row reduction group with two results (the sum,
// read by the caller, and the centred rows) whose second result is the left operand of a 2-D matmul of
// 12 rows. With data tiling IREE packs that operand inside the group's dispatch, which then exceeds
// llvm-cpu's 32 KiB stack (ViT-B/16's residual + LayerNorm before its 197-row MLP matmul, a GPT block's
// before its 64-row QKV matmul); pinning the three ops together is an error. Accepted twin:
// packed-multi-output.mlir (one result).
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @residual_norm_matmul(%x: tensor<12x64xf32>, %r: tensor<12x64xf32>, %w: tensor<64x32xf32>) -> (tensor<12x64xf32>, tensor<12x32xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x64xf32>
  %er = tensor.empty() : tensor<12xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<12xf32>) -> tensor<12xf32>
  // expected-error @+1 {{rule 'packed-multi-output'}}
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %r : tensor<12x64xf32>, tensor<12x64xf32>) outs(%e : tensor<12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<12x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%s : tensor<12x64xf32>) outs(%fr : tensor<12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<12xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s, %sum : tensor<12x64xf32>, tensor<12xf32>) outs(%e : tensor<12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<12x64xf32>
  %eo = tensor.empty() : tensor<12x32xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<12x32xf32>) -> tensor<12x32xf32>
  %mm = linalg.matmul ins(%y, %w : tensor<12x64xf32>, tensor<64x32xf32>) outs(%fo : tensor<12x32xf32>) -> tensor<12x32xf32>
  return %s, %mm : tensor<12x64xf32>, tensor<12x32xf32>
}

// -----

// The accumulator counts too: the group's first result %s reaches the matmul only as a term added to
// its result, which IREE folds into the matmul's init and packs in the group's dispatch (a
// TransformerEncoder's embedding + LayerNorm: 44k lines of LLVM IR, 37 s to compile).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @residual_into_accumulator(%x: tensor<12x64xf32>, %r: tensor<12x64xf32>, %h: tensor<12x64xf32>, %w: tensor<64x64xf32>) -> (tensor<12x64xf32>, tensor<12x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x64xf32>
  %er = tensor.empty() : tensor<12xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<12xf32>) -> tensor<12xf32>
  // expected-error @+1 {{rule 'packed-multi-output'}}
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %r : tensor<12x64xf32>, tensor<12x64xf32>) outs(%e : tensor<12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<12x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%s : tensor<12x64xf32>) outs(%fr : tensor<12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<12xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s, %sum : tensor<12x64xf32>, tensor<12xf32>) outs(%e : tensor<12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<12x64xf32>
  %fo = linalg.fill ins(%z : f32) outs(%e : tensor<12x64xf32>) -> tensor<12x64xf32>
  %mm = linalg.matmul ins(%h, %w : tensor<12x64xf32>, tensor<64x64xf32>) outs(%fo : tensor<12x64xf32>) -> tensor<12x64xf32>
  %res = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %s : tensor<12x64xf32>, tensor<12x64xf32>) outs(%e : tensor<12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<12x64xf32>
  return %y, %res : tensor<12x64xf32>, tensor<12x64xf32>
}

// -----

// A contraction's group with two results (the matmul's own, returned, and its ReLU epilogue, the left
// operand of the next matmul): DenseNet-121's third transition once its pool ran first (rewrites/pool_conv.py)
// failed IREE's llvm-cpu codegen ("large vector sizes (32768 bytes)"), IREE's own formation too.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_two_results(%x: tensor<12x64xf32>, %w: tensor<64x32xf32>, %w2: tensor<32x16xf32>) -> (tensor<12x32xf32>, tensor<12x16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<12x32xf32>) -> tensor<12x32xf32>
  // expected-error @+1 {{rule 'packed-multi-output'}}
  %mm = linalg.matmul {fusion_opt.fuse = "g"} ins(%x, %w : tensor<12x64xf32>, tensor<64x32xf32>) outs(%f : tensor<12x32xf32>) -> tensor<12x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%mm : tensor<12x32xf32>) outs(%e : tensor<12x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<12x32xf32>
  %e2 = tensor.empty() : tensor<12x16xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<12x16xf32>) -> tensor<12x16xf32>
  %mm2 = linalg.matmul ins(%r, %w2 : tensor<12x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<12x16xf32>) -> tensor<12x16xf32>
  return %mm, %mm2 : tensor<12x32xf32>, tensor<12x16xf32>
}
