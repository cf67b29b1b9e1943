// Pins and barriers from the command line, by location and by op-name pattern. The checks are what
// the constraint guarantees (pinned ops share one region, a barrier op is alone in its region), not
// the rest of the plan, which the planner is free to improve.
// RUN: fusion-opt %s --fusion=none --fuse=%s:15,%s:16 | filecheck %s --check-prefix=LOC
// RUN: fusion-opt %s --fusion=none --fuse=pin-location.mlir:15:8 --fuse=pin-location.mlir:16:8 --fuse=%s:15,%s:16 | filecheck %s --check-prefix=LOC
// RUN: fusion-opt %s --fusion=none --fuse='linalg.matmul,*generic*' | filecheck %s --check-prefix=LOC
// RUN: fusion-opt %s --fusion=greedy --no-fuse=%s:16 --emit=plan | filecheck %s --check-prefix=BAR
// RUN: fusion-opt %s --fusion=cost --no-fuse=linalg.matmul --emit=plan | filecheck %s --check-prefix=BARMM
// RUN: fusion-opt %s --fusion=greedy --no-fuse='*matmul*' --emit=plan | filecheck %s --check-prefix=PLAN

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

// LOC-LABEL: func.func @matmul_bias_relu(
// LOC: linalg.matmul
// LOC-NOT: flow.{{return|dispatch.region}}
// LOC: linalg.generic
// LOC: flow.return

// A barrier is a group of one: its row in the table has #ops 1 and lists only that op.
// BAR-LABEL: function @matmul_bias_relu:
// BAR: {{^[0-9]+ +[a-z+-]+ +1 .* 2:generic$}}

// BARMM-LABEL: function @matmul_bias_relu:
// BARMM: {{^[0-9]+ +[a-z+-]+ +1 .* 1:matmul$}}

// PLAN-LABEL: function @matmul_bias_relu:
// PLAN: not fused
// PLAN-DAG: [barrier] {{.*}}:matmul@{{.*}} -> {{.*}}:generic@{{.*}}: refused: barrier
