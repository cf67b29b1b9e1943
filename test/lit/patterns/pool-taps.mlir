// Pattern pool-taps: a 3x3 stride-2 max pool (our importer's window reduction over [C, H, W]) is
// priced against one elementwise op over the output that takes the max of the init and nine strided
// slices of the input, and rewritten where cheaper (here): the slices join the op's group. With the pattern disabled it stays a
// reduction.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=pool-taps | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @pool
// CHECK: flow.dispatch.region
// CHECK: linalg.fill
// CHECK-COUNT-9: tensor.extract_slice %arg0[{{[0-2]}}, {{[0-2]}}, 0] [27, 27, 64] [2, 2, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-COUNT-9: arith.maximumf
// CHECK: flow.return
// PLAN: note: pool-taps: op {{[0-9]+}} ({{.*}}): taps (predicted window reduction {{.*}}, taps {{.*}})
// PLAN: patterns: pool-taps 1
// OFF-LABEL: func.func @pool
// OFF-NOT: tensor.extract_slice
// OFF: "reduction", "reduction"
func.func @pool(%x: tensor<55x55x64xf32>) -> tensor<64x27x27xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64x27x27xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<64x27x27xf32>) -> tensor<64x27x27xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1 * 2 + d3, d2 * 2 + d4, d0)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %k : tensor<55x55x64xf32>, tensor<3x3xf32>) outs(%i : tensor<64x27x27xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64x27x27xf32>
  return %y : tensor<64x27x27xf32>
}
