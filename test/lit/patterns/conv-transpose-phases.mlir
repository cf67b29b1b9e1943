// Pattern conv-transpose-phases: a transposed conv as torch-mlir imports ONNX ConvTranspose (3x3, stride 2, pad 1,
// output 31x31): the input spread with stride 2 into a zero fill, then a stride-1 conv over it, where three of
// four products multiply an inserted zero. Rewritten, each output phase's taps (2x2, zero-padded where the
// kernel has fewer) are stacked as 16 = 2*2*4 output channels of one conv over the input padded by one row and
// column, interleaved back by a transpose ([r1, r2, F, q1, q2] -> [F, q1, r1, q2, r2]) and cropped to 31x31.
// The cost model takes it here (the note); with the pattern disabled the spread conv stays.
// RUN: fusion-opt %s | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --disable-pattern=conv-transpose-phases | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @up
// CHECK-NOT: tensor.insert_slice
// CHECK: tensor.pad %arg0 low[0, 0, 0] high[0, 1, 1]
// CHECK: tensor.concat dim(0) {{.*}} -> tensor<16x8x2x2xf32>
// CHECK: flow.dispatch.region -> (tensor<16x16x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x17x17xf32>, tensor<16x8x2x2xf32>)
// CHECK: tensor.expand_shape {{.*}} : tensor<16x16x16xf32> into tensor<2x2x4x16x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x2x4x16x16xf32>) outs(%{{.*}} : tensor<4x16x2x16x2xf32>) permutation = [2, 3, 0, 4, 1]
// CHECK: tensor.collapse_shape {{.*}} : tensor<4x16x2x16x2xf32> into tensor<4x32x32xf32>
// CHECK: tensor.extract_slice {{.*}}[0, 0, 0] [4, 31, 31] [1, 1, 1] : tensor<4x32x32xf32> to tensor<4x31x31xf32>
// PLAN: note: conv-transpose-phases: op 3 ({{.*}}): phases (predicted spread {{.*}}, phases {{.*}})
// PLAN: patterns: conv-transpose-phases 1
// OFF-LABEL: func.func @up
// OFF: tensor.insert_slice %arg0 into %{{.*}}[0, 1, 1] [8, 16, 16] [1, 2, 2]
// OFF-NOT: tensor.concat
func.func @up(%x: tensor<8x16x16xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<4x31x31xf32> {
  %z = arith.constant 0.0 : f32
  %v = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x33x33xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8x33x33xf32>) -> tensor<8x33x33xf32>
  %s = tensor.insert_slice %x into %f[0, 1, 1] [8, 16, 16] [1, 2, 2] : tensor<8x16x16xf32> into tensor<8x33x33xf32>
  %o = tensor.empty() : tensor<4x31x31xf32>
  %i = linalg.fill ins(%z : f32) outs(%o : tensor<4x31x31xf32>) -> tensor<4x31x31xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(f, y, x, c, i, j) -> (c, y + i, x + j)>,
                                        affine_map<(f, y, x, c, i, j) -> (f, c, i, j)>,
                                        affine_map<(f, y, x, c, i, j) -> (f, y, x)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%s, %w : tensor<8x33x33xf32>, tensor<4x8x3x3xf32>) outs(%i : tensor<4x31x31xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<4x31x31xf32>
  return %c : tensor<4x31x31xf32>
}
