// Rule 'tile-fuse' (rejected): the consumer must read the producer through the producer's loops.
// Each case pins a producer and its consumer; the error is at the producer (the first pinned op).
// Accepted twins: tile-fuse.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#next = affine_map<(d0, d1) -> (d0, d1 + 1)>
// The consumer reads element j + 1 of the exp: a value of a later iteration (negative dependence
// distance).
func.func @read_ahead(%x: tensor<8x17xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x17xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'tile-fuse'}}
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x17xf32>) outs(%e : tensor<8x17xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x17xf32>
  %b = linalg.generic {indexing_maps = [#next, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<8x17xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
// A keepdim row sum writes 8x1 through (d0, 0): not invertible, so its consumer cannot be tiled
// through it.
func.func @keepdim_sum_sub(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x1xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
  // expected-error @+1 {{rule 'tile-fuse'}}
  %s = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s : tensor<8x16xf32>, tensor<8x1xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

#rows3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#win = affine_map<(d0, d1, d2) -> (d0, d1 + d2)>
#k = affine_map<(d0, d1, d2) -> (d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
// The window sum of tile-fuse.mlir, reading a reduction (heavy: recomputing it per overlapping
// window is not done) instead of an elementwise exp.
func.func @sum_window_sum(%x: tensor<8x18x4xf32>, %w: tensor<3xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x18xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x18xf32>) -> tensor<8x18xf32>
  // expected-error @+1 {{rule 'tile-fuse'}}
  %a = linalg.generic {indexing_maps = [#rows3, #red3], iterator_types = ["parallel", "parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x18x4xf32>) outs(%f0 : tensor<8x18xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
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

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// A producer computing from its loop indices (a select on linalg.index) read through a pooling window:
// IREE 3.13 recomputes its tiles with the wrong indices (wrong by 3.4 when fused; IREE's own formation
// keeps them apart).
func.func @index_producer_in_window(%x: tensor<8x17x17xf32>) -> tensor<8x8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %half = arith.constant 0.5 : f32
  %c15 = arith.constant 15 : index
  %e = tensor.empty() : tensor<8x17x17xf32>
  // expected-error @+1 {{rule 'tile-fuse'}}
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x17x17xf32>) outs(%e : tensor<8x17x17xf32>) {
  ^bb0(%in: f32, %out: f32):
    %h = linalg.index 1 : index
    %a = arith.cmpi uge, %h, %c15 : index
    %r = arith.select %a, %half, %in : f32
    linalg.yield %r : f32
  } -> tensor<8x17x17xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %eo = tensor.empty() : tensor<8x8x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%eo : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h * 2 + kh, w * 2 + kw)>, affine_map<(c, h, w, kh, kw) -> (kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"], fusion_opt.fuse = "g"} ins(%m, %win : tensor<8x17x17xf32>, tensor<3x3xf32>) outs(%f : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %mx = arith.maximumf %out, %in : f32
    linalg.yield %mx : f32
  } -> tensor<8x8x8xf32>
  return %p : tensor<8x8x8xf32>
}
