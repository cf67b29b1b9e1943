// Strategy library: passes/reduction_elementwise.mlir (softmax, layernorm): 8 rows per tile, the
// innermost loop whole, every producer fused (the reductions run once per row tile, inside the loop).
// Numeric twin: test/python/test_tile_fuse.py.
// RUN: fusion-opt %s --split-input-file --strategy=reduction_elementwise | filecheck %s

// CHECK-LABEL: func.func @softmax(
// CHECK: scf.forall (%[[I:.+]]) = (0) to (32) step (8) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<32x128xf32>) {
// CHECK: %[[X:.+]] = tensor.extract_slice %{{.+}}[%[[I]], 0] [8, 128] [1, 1]
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}}"reduction"]} ins(%[[X]] : tensor<8x128xf32>)
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<8x128xf32>, tensor<8xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}}"reduction"]} ins(%[[EXP]] : tensor<8x128xf32>)
// CHECK: %[[DIV:.+]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<8x128xf32>, tensor<8xf32>)
// CHECK: tensor.parallel_insert_slice %[[DIV]] into %[[OUT]][%[[I]], 0] [8, 128] [1, 1]
// CHECK-NOT: linalg.
// CHECK: return
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %mx = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x128xf32>) outs(%mi : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<32x128xf32>, tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %q = math.exp %d : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sm = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<32x128xf32>) outs(%si : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sm : tensor<32x128xf32>, tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// -----

// CHECK-LABEL: func.func @layernorm(
// CHECK: scf.forall (%{{.+}}) = (0) to (16) step (8)
// CHECK-COUNT-2: "reduction"]}
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.
// CHECK: return
#x = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
func.func @layernorm(%x: tensor<16x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %cent = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x64xf32>, tensor<16xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %t = arith.subf %v, %m : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  %sq = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%cent : tensor<16x64xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %v, %v : f32
    %t = arith.addf %p, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#x, #r, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%cent, %sq, %gamma, %beta : tensor<16x64xf32>, tensor<16xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %s, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %t = arith.mulf %v, %inv : f32
    %u = arith.mulf %t, %g : f32
    %w = arith.addf %u, %b : f32
    linalg.yield %w : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
