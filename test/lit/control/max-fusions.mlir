// --max-fusions=N stops after N merges: each merge removes one group, so a 3-op chain the planner
// would fuse whole keeps 3, 2 and 1 groups for N = 0, 1 and unbounded (whatever the merge order).
// A fill left in a group of its own is then given to IREE, which clones the splat into the matmul's
// dispatch (hand-off `lone-fill`, a correctness rule every strategy takes): N = 0 compiles 2 regions
// with the fill before them; N = 1 (greedy merges the relu into the matmul first) 1 region.
// RUN: fusion-opt %s --fusion=greedy --max-fusions=0 | filecheck %s --check-prefix=N0
// RUN: fusion-opt %s --fusion=greedy --max-fusions=1 | filecheck %s --check-prefix=N1
// RUN: fusion-opt %s --fusion=greedy --max-fusions=0 --emit=plan | filecheck %s --check-prefix=PLAN0
// RUN: fusion-opt %s --fusion=greedy --max-fusions=1 --emit=plan | filecheck %s --check-prefix=PLAN1
// RUN: fusion-opt %s --fusion=greedy --max-fusions=9 --emit=plan | filecheck %s --check-prefix=PLAN9
// RUN: not fusion-opt %s --max-fusions=-1 2>&1 | filecheck %s --check-prefix=NEG

// N0-LABEL: func.func @matmul_bias_relu(
// N0: linalg.fill
// N0-COUNT-2: flow.dispatch.region
// N0-NOT: flow.dispatch.region
// N1-LABEL: func.func @matmul_bias_relu(
// N1: linalg.fill
// N1-COUNT-1: flow.dispatch.region
// N1-NOT: flow.dispatch.region
// PLAN1: function @matmul_bias_relu: strategy greedy, 1 groups, 1 ops outside groups
// PLAN0: function @matmul_bias_relu: strategy greedy, 2 groups, 1 ops outside groups
// PLAN0: [max-fusions] {{.*}}max{{.*}}fusions
// PLAN9: function @matmul_bias_relu: strategy greedy, 1 groups
// NEG: --max-fusions: expected a non-negative integer, got '-1'
func.func @matmul_bias_relu(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
