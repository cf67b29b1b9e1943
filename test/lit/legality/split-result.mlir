// Rule 'split-result' (accepted): `y = x + x` returned, `sum(y) * sum(y * y)`: the returned `y` feeds both
// independent last reductions, and the whole graph is one multi-output dispatch (it compiles in IREE 3.13).
// The rejected shape leaves `y` and the reduction it feeds in a group without the other
// (`sum(y) * sum(w)`). Rejected twin: split-result-illegal.mlir.
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

// CHECK-LABEL: function @both_sides_read_the_result:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .*multi-output .* 0:fill 1-5:generic$}}
// CHECK-NOT: refused
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#v = affine_map<(d0) -> (d0)>
func.func @both_sides_read_the_result(%x: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2xf32>) {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x32xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x32xf32>) outs(%e2 : tensor<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x32xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<2x32xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x32xf32>) outs(%e2 : tensor<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x32xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%q : tensor<2x32xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %p = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%s1, %s2 : tensor<2xf32>, tensor<2xf32>) outs(%e1 : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  return %y, %p : tensor<2x32xf32>, tensor<2xf32>
}

