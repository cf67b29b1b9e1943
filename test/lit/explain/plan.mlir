// --emit=plan explains every cut edge: an illegal one with its rule in brackets, an unprofitable
// one with the predicted times apart and fused; a count per rule heads the list.
// RUN: fusion-opt %s --fusion=greedy --emit=plan --no-fuse=linalg.matmul | filecheck %s
// RUN: fusion-opt %s --fusion=none --emit=plan | filecheck %s --check-prefix=NONE

// The barrier leaves the fill alone, and a lone splat is IREE's (cloned into the matmul's dispatch): 1 op outside.
// CHECK-LABEL: function @mm_relu: strategy greedy, {{[0-9]+}} groups, 1 ops outside groups, predicted {{.*}} on host
// CHECK-NEXT: group  kind {{ +}}#ops  predicted  bound {{ +}}root {{ +}}ops
// CHECK: not fused ({{[0-9]+}}): {{.*}}barrier {{[0-9]+}}
// CHECK: [barrier] {{ *}}1:matmul@{{.*}}plan.mlir:{{[0-9]+}}:8 -> 2:generic@{{.*}}: refused: barrier
// `none` leaves the splat to IREE, which clones it into the matmul's dispatch (fusion/handoff.py, lone-fill)
// NONE-LABEL: function @mm_relu: strategy none, 2 groups
// NONE: {{^0 +contraction +1 .* 1:matmul$}}
// NONE: cloned into consumers: 0:fill@
// NONE: not fused (1): strategy 1
// NONE-NEXT: [strategy] 1:matmul@{{.*}} -> 2:generic@{{.*}}: refused: strategy 'none' fuses nothing
func.func @mm_relu(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
