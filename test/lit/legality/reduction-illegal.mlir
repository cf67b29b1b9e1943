// Rule 'reduction' (rejected): a consumer of a whole reduced extent fuses only in a row-wise
// multi-reduction. Each case pins a reduction and a consumer; the error is at the reduction (the
// first pinned op). Accepted twins: reduction.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
// x - rowsum(x) read at the column (d1): the broadcast runs over a dim other than the reduced one.
func.func @rowsum_sub_transposed(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  // expected-error @+1 {{rule 'reduction'}}
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<16x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
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
#all = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
// sum(rowsum(x)): the second reduction iterates over 8, the first over 8x16 (not row-wise).
func.func @rowsum_sum(%x: tensor<8x16xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  // expected-error @+1 {{rule 'reduction'}}
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#all, #scalar], iterator_types = ["reduction"], fusion_opt.fuse = "g"}
      ins(%s : tensor<8xf32>) outs(%f0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %u = arith.addf %v, %acc : f32
    linalg.yield %u : f32
  } -> tensor<f32>
  return %t : tensor<f32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// rowsum(x) broadcast to 8x4: the consumer runs over neither the reduced (8) nor the full (8x16)
// space.
func.func @rowsum_broadcast_other(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  // expected-error @+1 {{rule 'reduction'}}
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s : tensor<8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%w: f32, %o: f32):
    %t = math.exp %w : f32
    linalg.yield %t : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// A column softmax's max and sum in one group: the sum depends on a reduction of a strided axis
// (x read as (d1, d0): rows not contiguous), which IREE 3.13 runs 2-7x slower than apart.
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @colmax_then_sum(%x: tensor<21x64xf32>) -> tensor<64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %e = tensor.empty() : tensor<64x21xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  // expected-error @+1 {{rule 'reduction'}}
  %m = linalg.generic {indexing_maps = [#t, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<21x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.maximumf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %d = linalg.generic {indexing_maps = [#t, #rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %m : tensor<21x64xf32>, tensor<64xf32>) outs(%e : tensor<64x21xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<64x21xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%d : tensor<64x21xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row3 = affine_map<(d0, d1) -> (d0)>
#r1 = affine_map<(d0) -> (d0)>
// Two independent row sums combined by an epilogue, the first also returned: IREE 3.13's llvm-cpu codegen
// fails to store it ("vector.store op write affecting operations on global resources", fuzz seed 19886).
func.func @independent_sums_one_returned(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  // expected-error @+1 {{rule 'reduction': reductions 1 and 2 are independent}}
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
  return %a, %c : tensor<16xf32>, tensor<16xf32>
}
