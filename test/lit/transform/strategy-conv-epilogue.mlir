// Strategy library: passes/conv_epilogue.mlir (conv + batch-norm + relu).
// Numeric twin: test/python/test_tile_fuse.py.
// RUN: fusion-opt %s --strategy=conv_epilogue | filecheck %s

// Batch by 1, output channels by 8: two tiles; the filter and the BN vectors are sliced per tile.
// CHECK-LABEL: func.func @conv_bn_relu(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x16x16xf32>, %[[W:[^:]+]]: tensor<16x8x3x3xf32>
// CHECK: scf.forall (%[[I:.+]]) in (2) shared_outs(%[[OUT:.+]] = %{{.+}})
// CHECK: %[[WT:.+]] = tensor.extract_slice %[[W]][%{{.+}}, 0, 0, 0] [8, 8, 3, 3]
// CHECK: %[[F:.+]] = linalg.fill {{.*}} -> tensor<1x8x14x14xf32>
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[WT]] : {{.*}}) outs(%[[F]] :
// CHECK: %[[BN:.+]] = linalg.generic {{.*}} ins(%[[C]], %{{.+}}, %{{.+}} : tensor<1x8x14x14xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[BN]] :
// CHECK: tensor.parallel_insert_slice %[[R]] into %[[OUT]][0, %{{.+}}, 0, 0] [1, 8, 14, 14]
// CHECK-NOT: linalg.
// CHECK: return
#c4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv_bn_relu(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %scale: tensor<16xf32>, %shift: tensor<16xf32>) -> tensor<1x16x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %bn = linalg.generic {indexing_maps = [#c4, #ch, #ch, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %scale, %shift : tensor<1x16x14x14xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %t : f32
    linalg.yield %a : f32
  } -> tensor<1x16x14x14xf32>
  %r = linalg.generic {indexing_maps = [#c4, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bn : tensor<1x16x14x14xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x16x14x14xf32>
  return %r : tensor<1x16x14x14xf32>
}
