// Strategy library: passes/elementwise_chain.mlir: 8x64 tiles, the whole chain fused.
// Numeric twin: test/python/test_tile_fuse.py.
// RUN: fusion-opt %s --split-input-file --strategy=elementwise_chain | filecheck %s

// CHECK-LABEL: func.func @chain5(
// CHECK: scf.forall (%[[I:.+]], %[[J:.+]]) = (0, 0) to (64, 256) step (8, 64) shared_outs(%[[OUT:.+]] = %{{.+}})
// CHECK-COUNT-5: } -> tensor<8x64xf32>
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[I]], %[[J]]] [8, 64] [1, 1]
// CHECK-NOT: linalg.
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain5(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %c1 = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x256xf32>, tensor<256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2 : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %c1 : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%3, %x : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%d: f32, %v: f32, %o: f32):
    %t = arith.divf %v, %d : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  return %4 : tensor<64x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// A lone elementwise op is no chain: left as it is.
// CHECK-LABEL: func.func @lone(
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
// CHECK-NOT: scf.forall
func.func @lone(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
