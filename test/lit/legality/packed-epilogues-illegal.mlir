// Rule 'packed-epilogues' (rejected): a data-tiled matmul whose epilogue (bias + GELU) and a further op
// of it (its square, for a norm) are both results of the group. IREE computes the epilogue in the packed
// layout and unpacks each result; the second unpack became one vector<128x64xf32> and llvm-cpu refused it
// ("large vector sizes (32768 bytes)"; a ConvNeXt-V2 block's 256x48x192 MLP matmul). Pinning the three
// ops together is an error. Accepted twin: packed-epilogues.mlir (the matmul's own result and its epilogue).
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @gelu_and_square(%x: tensor<256x48xf32>, %w: tensor<48x192xf32>, %b: tensor<192xf32>) -> (tensor<256x192xf32>, tensor<256x192xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x192xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
  // expected-error @+1 {{rule 'packed-epilogues'}}
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%x, %w : tensor<256x48xf32>, tensor<48x192xf32>) outs(%f : tensor<256x192xf32>) -> tensor<256x192xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m, %b : tensor<256x192xf32>, tensor<192xf32>) outs(%e : tensor<256x192xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.constant 0.707106769 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.addf %a, %c : f32
    %u = arith.mulf %t, %s : f32
    %r = math.erf %u : f32
    %p = arith.addf %r, %one : f32
    %q = arith.mulf %t, %p : f32
    %y = arith.mulf %q, %h : f32
    linalg.yield %y : f32
  } -> tensor<256x192xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%g : tensor<256x192xf32>) outs(%e : tensor<256x192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<256x192xf32>
  return %g, %sq : tensor<256x192xf32>, tensor<256x192xf32>
}
