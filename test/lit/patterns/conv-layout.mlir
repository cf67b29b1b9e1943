// --layout=auto: each windowed NCHW conv gets the layout the cost model predicts faster. The wide 7x7/2
// stem conv goes channels-last (IREE's direct NHWC conv against a 147-row window copy + matmul), between
// an input and an output transpose; the 3x3 conv at 7x7 stays NCHW (a row of 7 fills 7 of the 8 pixels
// of IREE's NHWC tile and 49 positions leave cores idle).
// RUN: fusion-opt %s --layout=auto --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --layout=auto --emit=regions | filecheck %s
// RUN: fusion-opt %s --layout=auto --disable-pattern=conv-layout --emit=regions | filecheck %s --check-prefix=OFF
// RUN: fusion-opt %s --layout=auto --emit=json | filecheck %s --check-prefix=JSON

// PLAN: note: conv-layout: op {{[0-9]+}} ({{.*}}conv-layout.mlir:[[STEM:[0-9]+]]:{{[0-9]+}}): channels-last (predicted
// PLAN: note: conv-layout: op {{[0-9]+}} ({{.*}}conv-layout.mlir:{{[0-9]+}}:{{[0-9]+}}): {{direct|im2col \+ matmul|winograd}} (predicted {{.*}}, channels-last

// CHECK-LABEL: func.func @stem_and_tail(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x3x230x230xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x230x230x3xf32>, tensor<7x7x3x64xf32>) outs(%{{.*}} : tensor<1x112x112x64xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x112x112x64xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT: tensor<7x7x512xf32>

// OFF-NOT: linalg.transpose
// JSON: "conv-layout": 2
func.func @stem_and_tail(%x: tensor<1x3x230x230xf32>, %w: tensor<64x3x7x7xf32>,
                         %y: tensor<512x9x9xf32>, %v: tensor<512x512x3x3xf32>)
    -> (tensor<1x64x112x112xf32>, tensor<512x7x7xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x112x112xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>) outs(%f : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x64x112x112xf32>) outs(%e : tensor<1x64x112x112xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x64x112x112xf32>
  %e2 = tensor.empty() : tensor<512x7x7xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<512x7x7xf32>) -> tensor<512x7x7xf32>
  %c2 = linalg.generic {indexing_maps = [affine_map<(f, h, w, c, kh, kw) -> (c, h + kh, w + kw)>,
                                         affine_map<(f, h, w, c, kh, kw) -> (f, c, kh, kw)>,
                                         affine_map<(f, h, w, c, kh, kw) -> (f, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%y, %v : tensor<512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%f2 : tensor<512x7x7xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x7x7xf32>
  return %r, %c2 : tensor<1x64x112x112xf32>, tensor<512x7x7xf32>
}
