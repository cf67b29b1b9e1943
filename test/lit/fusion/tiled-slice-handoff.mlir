// A slice that is no view (strided, or an offset sub-block) read by a matmul of a module IREE data-tiles
// stays a copy region of ours: left to IREE, it is fused into the matmul's dispatch, whose packing then
// fails to compile ("exceeded stack allocation limit", IREE 3.13's own formation too), and the compile
// fell back three times before giving up data tiling. A contiguous slice (a view) and a slice into a
// matmul too small to be data-tiled, or a slice small enough for the stack, are still left to IREE.
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --fusion=cost -o %t.vmfb 2>&1 | filecheck %s --allow-empty --check-prefix=COMPILE
// COMPILE-NOT: warning
// PLAN-LABEL: function @strided_rows_and_columns:
// PLAN: note: ops 0 (injective): kept: a slice that is no view, read by a contraction of a data-tiled module
func.func @strided_rows_and_columns(%x: tensor<512x512xf32>, %w: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %s = tensor.extract_slice %x[0, 0] [256, 256] [2, 2] : tensor<512x512xf32> to tensor<256x256xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%s, %w : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}
// -----
// PLAN-LABEL: function @offset_block_into_rhs:
// PLAN: note: ops 0 (injective): kept: a slice that is no view
func.func @offset_block_into_rhs(%x: tensor<512x512xf32>, %w: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %s = tensor.extract_slice %x[0, 64] [256, 256] [1, 1] : tensor<512x512xf32> to tensor<256x256xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%w, %s : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}
// -----
// PLAN-LABEL: function @view:
// PLAN-NOT: kept: a slice
// PLAN: note: ops 0 (injective): left to IREE: a slice alone
func.func @view(%x: tensor<4x256x256xf32>, %w: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %s = tensor.extract_slice %x[1, 0, 0] [1, 256, 256] [1, 1, 1] : tensor<4x256x256xf32> to tensor<256x256xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%s, %w : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}
// -----
// PLAN-LABEL: function @small_slice:
// PLAN-NOT: kept: a slice
// PLAN: note: ops 0 (injective): left to IREE: a slice alone
func.func @small_slice(%x: tensor<128x64xf32>, %w: tensor<32x1024xf32>) -> tensor<64x1024xf32> {
  %s = tensor.extract_slice %x[0, 0] [64, 32] [2, 2] : tensor<128x64xf32> to tensor<64x32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %m = linalg.matmul ins(%s, %w : tensor<64x32xf32>, tensor<32x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %m : tensor<64x1024xf32>
}
// -----
// PLAN-LABEL: function @too_small_to_tile:
// PLAN-NOT: kept: a slice
// PLAN: note: ops 0 (injective): left to IREE: a slice alone
func.func @too_small_to_tile(%x: tensor<64x64xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %s = tensor.extract_slice %x[0, 0] [32, 32] [2, 2] : tensor<64x64xf32> to tensor<32x32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = linalg.matmul ins(%s, %w : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
