// Pattern conv-bn: a constant per-channel affine chain (BatchNorm: sub mean, mul rstd, add beta) after a
// conv is folded into the conv's weights and one bias add; the scale/shift/weight ops compute only
// from constants and stay outside the dispatch region (IREE evaluates them at compile time).
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy | filecheck %s
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-bn --disable-pattern=conv-strategy | filecheck %s --check-prefix=OFF
// RUN: fusion-opt %s --emit=json | filecheck %s --check-prefix=JSON
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK-NOT: arith.subf
// CHECK: %[[W:.+]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x3x3x3xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: flow.dispatch.region
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<3x10x10xf32>, tensor<4x3x3x3xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: flow.return
// OFF: flow.dispatch.region
// OFF: arith.subf
// JSON: "conv-bn": 1
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ch3 = affine_map<(d0, d1, d2) -> (d0)>
func.func @conv_bn_relu(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.25> : tensor<4x3x3x3xf32>
  %mean = arith.constant dense<0.5> : tensor<4xf32>
  %rstd = arith.constant dense<2.0> : tensor<4xf32>
  %beta = arith.constant dense<0.1> : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %xs = tensor.collapse_shape %x [[0, 1], [2], [3]] : tensor<1x3x8x8xf32> into tensor<3x8x8xf32>
  %p = tensor.pad %xs low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %zero : f32
  } : tensor<3x8x8xf32> to tensor<3x10x10xf32>
  %e = tensor.empty() : tensor<4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(f, h, w, c, kh, kw) -> (c, h + kh, w + kw)>,
                                        affine_map<(f, h, w, c, kh, kw) -> (f, c, kh, kw)>,
                                        affine_map<(f, h, w, c, kh, kw) -> (f, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w : tensor<3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8xf32>
  %s1 = linalg.generic {indexing_maps = [#id3, #ch3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %mean : tensor<4x8x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id3, #ch3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1, %rstd : tensor<4x8x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %s3 = linalg.generic {indexing_maps = [#id3, #ch3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s2, %beta : tensor<4x8x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s3 : tensor<4x8x8xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %out = tensor.expand_shape %relu [[0, 1], [2], [3]] output_shape [1, 4, 8, 8] : tensor<4x8x8xf32> into tensor<1x4x8x8xf32>
  return %out : tensor<1x4x8x8xf32>
}

