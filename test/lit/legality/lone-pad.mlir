// Rule 'lone-pad' (accepted): a tensor.pad compiles in a dispatch with the convolution it feeds, so
// a pin of the pad and the conv is one group. See lone-pad-illegal.mlir.
// Checked on the regions: the plan table lists a pinned pad both in its group and under "outside
// groups". (--fusion=none is left out: it leaves the pinned pad unplaced and fails with an internal
// error, "planner 'none' did not obey the constraints".)
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=regions | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=regions | filecheck %s

// CHECK-LABEL: func.func @pad_conv(
// CHECK: tensor.pad
// CHECK-NOT: flow.{{return|dispatch.region}}
// CHECK: linalg.conv_2d_nchw_fchw {fusion_opt.fuse = "g"
// CHECK-NEXT: flow.return
func.func @pad_conv(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } {fusion_opt.fuse = "g"} : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>, fusion_opt.fuse = "g"}
      ins(%p, %w : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
