// Strategy library: passes/matmul_epilogue.mlir, applied by name (--strategy) or by file (--transform).
// Numeric twin: test/python/test_tile_fuse.py.
// RUN: fusion-opt %s --split-input-file --strategy=matmul_epilogue | filecheck %s
// RUN: fusion-opt %s --split-input-file --transform=%passes/matmul_epilogue.mlir | filecheck %s

// A two-op epilogue (bias, then relu): 32x32 output tiles, the whole chain, matmul and fill fused.
// CHECK-LABEL: func.func @matmul_bias_relu_2ops(
// CHECK-SAME: %[[A:[^:]+]]: tensor<64x128xf32>, %[[B:[^:]+]]: tensor<128x96xf32>
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (2, 3) shared_outs(%[[OUT:.+]] = %{{.+}})
// CHECK: %[[AT:.+]] = tensor.extract_slice %[[A]][%{{.+}}, 0] [32, 128] [1, 1]
// CHECK: %[[BT:.+]] = tensor.extract_slice %[[B]][0, %{{.+}}] [128, 32] [1, 1]
// CHECK: %[[F:.+]] = linalg.fill {{.*}} -> tensor<32x32xf32>
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[AT]], %[[BT]] : {{.*}}) outs(%[[F]] :
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[M]], %{{.+}} : tensor<32x32xf32>, tensor<32xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<32x32xf32>)
// CHECK: tensor.parallel_insert_slice %[[R]] into %[[OUT]]
// CHECK-NOT: linalg.
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu_2ops(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>, %bias: tensor<96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// A 2-layer MLP: one loop per layer; the first layer is not pulled into the second's loop (it would be
// recomputed for every tile); the second matmul reads the first loop's result.
// CHECK-LABEL: func.func @mlp2(
// CHECK: %[[L1:.+]] = scf.forall
// CHECK: linalg.matmul
// CHECK: scf.forall.in_parallel
// CHECK: %[[L2:.+]] = scf.forall
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%[[L1]], %{{.+}} : tensor<32x64xf32>, tensor<64x32xf32>)
// CHECK: math.tanh
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.
// CHECK: return %[[L2]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp2(%x: tensor<32x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<32x64xf32>) outs(%e1 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %zero : f32
    linalg.yield %t : f32
  } -> tensor<32x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %m2 = linalg.matmul ins(%r1, %w2 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2 : tensor<32x64xf32>) outs(%e2 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<32x64xf32>
  return %r2 : tensor<32x64xf32>
}
