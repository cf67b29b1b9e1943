// Rule 'tile-fuse' (accepted): a consumer may read its producer through the producer's loops, here
// through a permutation, or through a window when the producer is light (recomputed per tile).
// Rejected twins (tile-fuse-illegal.mlir): a read at a positive offset, a producer written through a
// non-invertible map, a window read of a heavy producer or of one computing from its loop indices.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: function @exp_permuted_read:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @exp_permuted_read(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  %b = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %b : tensor<16x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#win = affine_map<(d0, d1, d2) -> (d0, d1 + d2)>
#k = affine_map<(d0, d1, d2) -> (d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
// A 1-D sliding-window sum (width 3, the shape given by %w as in linalg pooling ops) reads the elementwise exp through a window.
// CHECK-LABEL: function @exp_window_sum:
// CHECK: {{^[0-9]+ .* 0:generic( 1:fill)? 2:generic$}}
// CHECK-NOT: refused: illegal
func.func @exp_window_sum(%x: tensor<8x18xf32>, %w: tensor<3xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x18xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x18xf32>) outs(%e : tensor<8x18xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x18xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#win, #k, #out], iterator_types = ["parallel", "parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%a, %w : tensor<8x18xf32>, tensor<3xf32>) outs(%f : tensor<8x16xf32>) {
  ^bb0(%v: f32, %k: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// A producer computing from its loop indices fuses into a consumer reading it through its own loops.
// CHECK-LABEL: function @index_producer_elementwise:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0-1:generic$}}
// CHECK-NOT: refused
func.func @index_producer_elementwise(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %half = arith.constant 0.5 : f32
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<16x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %h = linalg.index 0 : index
    %c = arith.cmpi uge, %h, %c8 : index
    %t = arith.select %c, %half, %v : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %b : tensor<16x16xf32>
}
