// Rule 'root-space' (rejected): epilogues of a contraction iterate over its output space; a pinned
// epilogue that reduces or broadcasts the matmul's result is an error at the matmul (the first pinned
// op). Accepted twin: root-space.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// A row sum of the matmul (a reduction epilogue; 'root-space' is checked before 'reduction').
func.func @matmul_rowsum(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{rule 'root-space'}}
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%m : tensor<8x16xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// A broadcast of the matmul's result over a new dim: the epilogue runs over 8x16x4.
func.func @matmul_broadcast(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>) -> tensor<8x16x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %e3 = tensor.empty() : tensor<8x16x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{rule 'root-space'}}
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m : tensor<8x16xf32>) outs(%e3 : tensor<8x16x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16x4xf32>
  return %r : tensor<8x16x4xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#xt = affine_map<(d0, d1) -> (d1, d0)>
// The matmul's result read twice by one epilogue, once transposed (fuzz seed 19404: a depthwise conv read
// through two permutations failed IREE's llvm-cpu translation).
func.func @matmul_read_two_ways(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{rule 'root-space'}}
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.generic {indexing_maps = [#x, #xt, #x], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m, %m : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %t = arith.mulf %u, %v : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// A permuting epilogue (tanh read through (d1, d0)) and an op reading it and the matmul directly: each op
// reads the group through one map, but the last meets each matmul element at two positions (fuzz seed
// 25336, on a conv: IREE 3.13's llvm-cpu translation failed).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
func.func @matmul_transposed_twice(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @+1 {{rule 'root-space': epilogue op 3 of contraction op 1 reads its elements at two positions}}
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m : tensor<8x8xf32>) outs(%e1 : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.tanh %v : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%t, %m : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %y = arith.mulf %v, %w : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32>
  return %p : tensor<8x8xf32>
}
