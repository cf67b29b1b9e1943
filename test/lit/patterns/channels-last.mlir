// --layout=nhwc: every NCHW conv rewritten channels-last before planning; the transposes between the
// two convs cancel (through the relu and the pad), leaving the input's and the output's.
// RUN: fusion-opt %s --layout=nhwc --emit=regions | filecheck %s
// RUN: fusion-opt %s --layout=nhwc --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: not fusion-opt %s --layout=nhwc --fusion=greedy --emit=regions 2>&1 | filecheck %s --check-prefix=ERR
// RUN: fusion-opt %s --layout=nchw --emit=regions | filecheck %s --check-prefix=NCHW

// CHECK-LABEL: func.func @net(
// CHECK: %[[T:.+]] = linalg.transpose ins(%{{.*}} : tensor<1x8x1x16x16xf32>) {{.*}} permutation = [0, 2, 3, 4, 1]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.transpose ins(%{{.*}} : tensor<1x16x16x16xf32>)
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x16x16x16xf32>) {{.*}} permutation = [0, 3, 1, 2]
// PLAN: note: layout: 2 convolutions rewritten channels-last (NHWC)
// ERR: layout nhwc is applied with the cost planner's rewrites
// NCHW-NOT: linalg.transpose
// NCHW-NOT: conv_2d_nhwc
func.func @net(%x: tensor<1x8x16x16xf32>, %w1: tensor<16x8x3x3xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %p1 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p1, %w1 : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x16x16x16xf32>) outs(%e : tensor<1x16x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x16x16x16xf32>
  %p2 = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x16x16x16xf32> to tensor<1x16x18x18xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p2, %w2 : tensor<1x16x18x18xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %c2 : tensor<1x16x16x16xf32>
}
