// Pattern dead-taps: an atrous conv whose outer window taps read only zero padding (a 3x3 conv with
// dilation 6 on a 5x5 image: eight of nine taps) is rebuilt over its live taps. @atrous keeps its centre
// tap: no pad, the filter's centre column as a new constant, the window loops gone (a 1x1 conv, which
// conv-strategy then makes a matmul). @cropped keeps taps 1 and 2 of a (3, 1) window with dilation 3
// over an input padded by 2 rows on top: tap 1 starts one row into the input, so the pad becomes a crop.
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=dead-taps --disable-pattern=conv-strategy | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @atrous
// CHECK-NOT: tensor.pad
// CHECK: arith.constant dense<{{\[\[}}5.000000e+00, 1.400000e+01]]> : tensor<1x2xf32>
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %{{.*}} : tensor<2x5x5xf32>, tensor<1x2xf32>)
// CHECK-LABEL: func.func @cropped
// CHECK-DAG: arith.constant dense<{{\[\[\[}}2.000000e+00, 3.000000e+00], [5.000000e+00, 6.000000e+00]]]> : tensor<1x2x2xf32>
// CHECK-DAG: tensor.extract_slice %arg0[0, 1, 0] [2, 4, 5] [1, 1, 1] : tensor<2x5x5xf32> to tensor<2x4x5xf32>
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x5xf32>, tensor<1x2x2xf32>)
// PLAN: patterns: dead-taps 1,
// PLAN: patterns: dead-taps 1,
// OFF-LABEL: func.func @atrous
// OFF: tensor.pad %arg0 low[0, 6, 6] high[0, 6, 6]
// OFF: ins(%{{.*}}, %{{.*}} : tensor<2x17x17xf32>, tensor<1x2x3x3xf32>)
// OFF-LABEL: func.func @cropped
// OFF: tensor.pad %arg0 low[0, 2, 0] high[0, 0, 0]
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4 * 6, d2 + d5 * 6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>
#o = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @atrous(%x: tensor<2x5x5xf32>) -> tensor<1x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                              [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]]]> : tensor<1x2x3x3xf32>
  %p = tensor.pad %x low[0, 6, 6] high[0, 6, 6] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<2x5x5xf32> to tensor<2x17x17xf32>
  %e = tensor.empty() : tensor<1x5x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5xf32>) -> tensor<1x5x5xf32>
  %c = linalg.generic {indexing_maps = [#x, #w, #o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w : tensor<2x17x17xf32>, tensor<1x2x3x3xf32>) outs(%init : tensor<1x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x5xf32>
  return %c : tensor<1x5x5xf32>
}

#cx = affine_map<(d0, d1, d2, d3, d4) -> (d3, d1 + d4 * 3, d2)>
#cw = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#co = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
func.func @cropped(%x: tensor<2x5x5xf32>) -> tensor<1x1x5xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<1x2x3xf32>
  %p = tensor.pad %x low[0, 2, 0] high[0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<2x5x5xf32> to tensor<2x7x5xf32>
  %e = tensor.empty() : tensor<1x1x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x5xf32>) -> tensor<1x1x5xf32>
  %c = linalg.generic {indexing_maps = [#cx, #cw, #co],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : tensor<2x7x5xf32>, tensor<1x2x3xf32>) outs(%init : tensor<1x1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x5xf32>
  return %c : tensor<1x1x5xf32>
}
