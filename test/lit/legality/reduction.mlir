// Rule 'reduction' (accepted): row-wise groups. A row sum whose consumer broadcasts it back over the
// reduced rows, and a multi-reduction (two row reductions of the same space feeding one consumer).
// Rejected twins (reduction-illegal.mlir): broadcast over the wrong dim, reductions over different
// spaces, a consumer over another space.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// x - rowsum(x), the sum read at the row (d0) it reduced.
// CHECK-LABEL: function @rowsum_sub:
// CHECK: {{^[0-9]+ .* 1-2:generic$}}
// CHECK-NOT: refused: illegal
func.func @rowsum_sub(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// (x - rowsum(x)) * rowsum(x * x): two reductions over the same 8x16 space, one consumer.
// CHECK-LABEL: function @two_rowsums:
// CHECK: {{^[0-9]+ .* 1-3:generic$}}
// CHECK-NOT: refused: illegal
func.func @two_rowsums(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %q = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows, #rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s, %q : tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %a: f32, %b: f32, %o: f32):
    %d = arith.subf %v, %a : f32
    %t = arith.mulf %d, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A column max (the reduced axis d1 is strided: x varies fastest along d0... read as (d1, d0)) and its
// broadcast consumer: one reduction and the consumer, as IREE forms them itself (legal).
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: function @colmax_sub:
// CHECK: {{^[0-9]+ .* 1-2:generic$}}
// CHECK-NOT: refused: illegal
func.func @colmax_sub(%x: tensor<21x64xf32>) -> tensor<64x21xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %e = tensor.empty() : tensor<64x21xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#t, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<21x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.maximumf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#t, #rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %m : tensor<21x64xf32>, tensor<64xf32>) outs(%e : tensor<64x21xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<64x21xf32>
  return %r : tensor<64x21xf32>
}

// -----

// Two independent row sums combined by an epilogue, only the epilogue returned (returning a sum as well is
// rejected: reduction-illegal.mlir, fuzz seed 19886).
// CHECK-LABEL: function @independent_sums_combined:
// CHECK: {{^[0-9]+ .* 1-3:generic$}}
// CHECK-NOT: refused: illegal
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row3 = affine_map<(d0, d1) -> (d0)>
#r1 = affine_map<(d0) -> (d0)>
func.func @independent_sums_combined(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%y : tensor<16x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%u: f32, %w: f32, %o: f32):
    %t = arith.mulf %u, %w : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %c, %c : tensor<16xf32>, tensor<16xf32>
}
