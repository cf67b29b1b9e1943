// Rule 'captured-read' (accepted): a gather reads the tensor %t inside its body (tensor.extract at
// indices from %idx), not through an operand; the graph now has that edge (`captured`). Without it the
// planner fused %t into the gather's group here, and in a 2-layer TransformerEncoder it grouped an
// embedding gather with a later residual add around the attention between them: a cycle ("fusion
// groups form a cycle"). The gather joins the sum; %t, read whole, stays apart. Rejected twin:
// captured-read-illegal.mlir.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost | filecheck %s --check-prefix=REGIONS
// CHECK-LABEL: function @gather_of_computed:
// CHECK: {{^0 .* 0:generic$}}
// CHECK: {{^1 .* 1:generic 2:tensor.extract_slice 3:generic$}}
// CHECK: [captured-read] 0:generic@{{.*}} -> 1:generic
// REGIONS-COUNT-2: flow.dispatch.region

#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather_of_computed(%x: tensor<16x8xf32>, %idx: tensor<4xi64>) -> tensor<4x8xf32> {
  %c2 = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<16x8xf32>
  %e4 = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<4xi64>) outs(%e4 : tensor<4x8xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%r, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %top = tensor.extract_slice %t[0, 0] [4, 8] [1, 1] : tensor<16x8xf32> to tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %top : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e4 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
