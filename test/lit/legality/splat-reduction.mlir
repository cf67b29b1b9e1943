// Rule 'splat-reduction' (accepted): a splat as a reduction's accumulator (its init) joins the reduction's
// region, as every LayerNorm and softmax reduction's zero fill does; only a splat read as the reduced
// input is kept apart. Rejected twin: splat-reduction-illegal.mlir.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

// CHECK-LABEL: function @mean_of_an_input:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:fill 1:generic$}}
// CHECK-NOT: refused
func.func @mean_of_an_input(%x: tensor<8xf32>) -> tensor<f32> {
  %e1 = tensor.empty() : tensor<f32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%f : tensor<f32>) {
  ^bb0(%i: f32, %o: f32):
    %k = arith.constant 0.125 : f32
    %t = arith.mulf %i, %k : f32
    %r = arith.addf %t, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
