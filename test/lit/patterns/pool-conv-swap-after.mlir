// Pattern pool-conv-swap, the other direction: a 1x1 conv halving the channels, then a 2x2 stride-2
// average pool (DenseNet's transitions). The pool runs first, on the conv's 16 input channels, and the
// conv on the 4x4 pooled pixels: a quarter of the products for twice the pool's adds.
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy --disable-pattern=pool-conv-swap | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @transition
// CHECK: ins(%arg0, %{{.*}} : tensor<16x8x8xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<16x4x4xf32>)
// CHECK: arith.divf
// CHECK: ins(%{{.*}}, %arg1 : tensor<16x4x4xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x4x4xf32>)
// CHECK: arith.mulf
// PLAN: patterns: {{.*}}pool-conv-swap 1
// OFF-LABEL: func.func @transition
// OFF: ins(%arg0, %arg1 : tensor<16x8x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x8x8xf32>)
// OFF: tensor<8x8x8xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<8x4x4xf32>)
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @transition(%x: tensor<16x8x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %eo = tensor.empty() : tensor<8x8x8xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %conv = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>,
                                           affine_map<(d0, d1, d2, d3) -> (d0, d3)>,
                                           affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x8x8xf32>, tensor<8x16xf32>) outs(%fo : tensor<8x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<8x8x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<8x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 2 + d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%conv, %win : tensor<8x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<8x4x4xf32>) {
  ^bb0(%in: f32, %u: f32, %o: f32):
    %a = arith.addf %o, %in : f32
    linalg.yield %a : f32
  } -> tensor<8x4x4xf32>
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x4x4xf32>) outs(%e : tensor<8x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %four : f32
    linalg.yield %d : f32
  } -> tensor<8x4x4xf32>
  return %avg : tensor<8x4x4xf32>
}
