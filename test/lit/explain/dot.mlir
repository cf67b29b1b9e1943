// --emit=dot: one digraph per function, a `subgraph cluster_N` per group labelled with its kind,
// predicted time and bound, ops as nodes (index:name, kind, location), producer -> consumer edges,
// and the edges the plan cuts dashed with the rule that refused them.
// RUN: fusion-opt %s --fusion=greedy --emit=dot --split-input-file | filecheck %s

// CHECK-LABEL: digraph "barrier" {
// CHECK: subgraph cluster_0 {
// CHECK-NEXT: label="group 0: {{[a-z+-]+}}, {{[0-9.]+}}{{us|ms}} {{compute|memory|launch|spill}}";
// CHECK: op1 [label="1:matmul\ncontraction\n{{.*}}dot.mlir:{{[0-9]+}}:8"];
// CHECK: }
// CHECK: subgraph cluster_1 {
// CHECK: op2 [label="2:generic\nelementwise\n{{.*}}dot.mlir:{{[0-9]+}}:8"];
// CHECK: }
// CHECK-NOT: subgraph
// CHECK: op0 -> op1;
// CHECK: op1 -> op2 [style=dashed, color=red, label="barrier"];
// CHECK: }
func.func @barrier(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"], fusion_opt.no_fuse}
      ins(%m : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.negf %x : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// An op outside every group (a reshape, left to IREE) is a dotted node; its edges are cut.
// CHECK-LABEL: digraph "reshape" {
// CHECK: subgraph cluster_0 {
// CHECK: op1 [label="1:tensor.collapse_shape\ninjective\n{{.*}}", style="rounded,dotted"];
// CHECK: op0 -> op1 [style=dashed, color=red, label="{{[a-z-]+}}"];
func.func @reshape(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %c = tensor.collapse_shape %n [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %c : tensor<32xf32>
}
