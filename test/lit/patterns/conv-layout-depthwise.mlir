// --layout=auto on depthwise convs: IREE 3.13 vectorizes a depthwise conv along the channel loop, a
// strided gather when channels come first (a 96x56x56 7x7 one 8.7 ms NCHW, 0.74 ms NHWC). The 7x7
// conv has too many taps (49) for window taps and goes channels-last, in the loop order of IREE's
// `depthwise_conv_2d_nhwc_hwc` (OH, OW, C, KH, KW), between an input and an output transpose; the
// filter is transposed to [KH, KW, C]. The small 3x3 one at 7x7 stays channels-first: its window taps
// are predicted faster than the NHWC conv with its two transposes.
// RUN: fusion-opt %s --layout=auto --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --layout=auto --emit=regions | filecheck %s
// RUN: fusion-opt %s --layout=nchw --emit=regions | filecheck %s --check-prefix=OFF

// PLAN: note: conv-layout: op {{[0-9]+}} ({{.*}}conv-layout-depthwise.mlir:26:{{[0-9]+}}): channels-last (predicted direct
// PLAN: note: conv-layout: op {{[0-9]+}} ({{.*}}conv-layout-depthwise.mlir:38:{{[0-9]+}}): window taps (predicted window taps {{.*}}, channels-last

// CHECK-LABEL: func.func @depthwise(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<96x62x62xf32>) {{.*}} permutation = [1, 2, 0]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<62x62x96xf32>, tensor<7x7x96xf32>) outs(%{{.*}} : tensor<56x56x96xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<56x56x96xf32>) {{.*}} permutation = [2, 0, 1]
// CHECK-NOT: tensor<7x7x128xf32>

// OFF-NOT: linalg.transpose
func.func @depthwise(%x: tensor<96x62x62xf32>, %w: tensor<96x7x7xf32>, %y: tensor<128x9x9xf32>,
                     %v: tensor<128x3x3xf32>) -> (tensor<96x56x56xf32>, tensor<128x7x7xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x56x56xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<96x56x56xf32>) -> tensor<96x56x56xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(h, w, c, kh, kw) -> (c, h + kh, w + kw)>,
                                        affine_map<(h, w, c, kh, kw) -> (c, kh, kw)>,
                                        affine_map<(h, w, c, kh, kw) -> (c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<96x62x62xf32>, tensor<96x7x7xf32>) outs(%f : tensor<96x56x56xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<96x56x56xf32>
  %e2 = tensor.empty() : tensor<128x7x7xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<128x7x7xf32>) -> tensor<128x7x7xf32>
  %c2 = linalg.generic {indexing_maps = [affine_map<(h, w, c, kh, kw) -> (c, h + kh, w + kw)>,
                                         affine_map<(h, w, c, kh, kw) -> (c, kh, kw)>,
                                         affine_map<(h, w, c, kh, kw) -> (c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%y, %v : tensor<128x9x9xf32>, tensor<128x3x3xf32>) outs(%f2 : tensor<128x7x7xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x7x7xf32>
  return %c, %c2 : tensor<96x56x56xf32>, tensor<128x7x7xf32>
}
