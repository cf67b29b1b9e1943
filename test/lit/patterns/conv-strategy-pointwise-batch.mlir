// Pattern conv-strategy on 1x1 convs over a batch of images, as imported (`out[n, f, h, w] += x[n, c, h, w] *
// w[f, c]`: two M loops, n and (h, w), that the channel loop separates in the input, so IREE neither packs
// nor vectorizes it well). The rewrite transposes the input to [C, N, H, W], runs one 2-D matmul
// [F, C] x [C, N*H*W] (a named linalg.matmul, which IREE's transpose propagation moves transposes through
// but not into) and transposes the result back; between two such convs the transposes cancel, so the second
// matmul reads the first one's 2-D result (its ReLU epilogue in its dispatch) and one transpose is left at
// each end. @few_channels' 3-channel conv is no site: with fewer input channels than the CPU's f32 lanes the
// direct form measured faster.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @chain
// CHECK: flow.dispatch.region
// CHECK-NEXT: linalg.transpose ins(%arg0 : tensor<2x64x16x16xf32>) outs(%{{.*}} : tensor<64x2x16x16xf32>) permutation = [1, 0, 2, 3]
// CHECK: tensor.collapse_shape {{.*}} : tensor<64x2x16x16xf32> into tensor<64x512xf32>
// CHECK: %[[R1:.*]] = flow.dispatch.region
// CHECK: %[[MM1:.*]] = linalg.matmul ins(%arg1, %{{.*}} : tensor<128x64xf32>, tensor<64x512xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[MM1]] : tensor<128x512xf32>)
// CHECK: arith.maximumf
// CHECK: flow.dispatch.region
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul ins(%arg2, %[[R1]] : tensor<96x128xf32>, tensor<128x512xf32>)
// CHECK: tensor.expand_shape {{.*}} : tensor<96x512xf32> into tensor<96x2x16x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<96x2x16x16xf32>) outs(%{{.*}} : tensor<2x96x16x16xf32>) permutation = [1, 0, 2, 3]
// CHECK-LABEL: func.func @few_channels
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<3x3x512xf32>, tensor<64x3xf32>)
// PLAN-LABEL: function @chain:
// PLAN: note: conv-strategy: op 1 ({{.*}}:{{[0-9]+}}:9): im2col + matmul (predicted direct {{.*}}, im2col + matmul {{.*}})
// PLAN: note: conv-strategy: op 4 ({{.*}}:{{[0-9]+}}:9): im2col + matmul
// PLAN: patterns: conv-strategy 2
// PLAN-LABEL: function @few_channels:
// PLAN-NOT: note: conv-strategy
// OFF-LABEL: func.func @chain
// OFF-NOT: linalg.transpose
// OFF: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x64x16x16xf32>, tensor<128x64xf32>)
func.func @chain(%x: tensor<2x64x16x16xf32>, %w1: tensor<128x64xf32>, %w2: tensor<96x128xf32>) -> tensor<2x96x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x128x16x16xf32>
  %i1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x128x16x16xf32>) -> tensor<2x128x16x16xf32>
  %y1 = linalg.generic {indexing_maps = [affine_map<(n, f, h, w, c) -> (n, c, h, w)>, affine_map<(n, f, h, w, c) -> (f, c)>, affine_map<(n, f, h, w, c) -> (n, f, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w1 : tensor<2x64x16x16xf32>, tensor<128x64xf32>) outs(%i1 : tensor<2x128x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<2x128x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y1 : tensor<2x128x16x16xf32>) outs(%e1 : tensor<2x128x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<2x128x16x16xf32>
  %e2 = tensor.empty() : tensor<2x96x16x16xf32>
  %i2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x96x16x16xf32>) -> tensor<2x96x16x16xf32>
  %y2 = linalg.generic {indexing_maps = [affine_map<(n, f, h, w, c) -> (n, c, h, w)>, affine_map<(n, f, h, w, c) -> (f, c)>, affine_map<(n, f, h, w, c) -> (n, f, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%r1, %w2 : tensor<2x128x16x16xf32>, tensor<96x128xf32>) outs(%i2 : tensor<2x96x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<2x96x16x16xf32>
  return %y2 : tensor<2x96x16x16xf32>
}

func.func @few_channels(%x: tensor<3x3x512xf32>, %w: tensor<64x3xf32>) -> tensor<3x64x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x512xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<3x64x512xf32>) -> tensor<3x64x512xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, f, p, c) -> (n, c, p)>, affine_map<(n, f, p, c) -> (f, c)>, affine_map<(n, f, p, c) -> (n, f, p)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<3x3x512xf32>, tensor<64x3xf32>) outs(%i : tensor<3x64x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<3x64x512xf32>
  return %y : tensor<3x64x512xf32>
}
