// Rule 'constant' (accepted): two ops that both compute only from constants may share a pin, and
// without pins the cost planner leaves them to IREE's compile-time evaluation (a plan note says so)
// while the op reading the input gets its own group. Rejected twin: constant-illegal.mlir.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s --check-prefix=PIN
// RUN: sed 's/, fusion_opt.fuse = "g"//' %s | fusion-opt --fusion=cost --emit=plan | filecheck %s --check-prefix=COST

#id = affine_map<(d0, d1) -> (d0, d1)>
#ch = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
// PIN-LABEL: function @scale:
// PIN: {{^0 .* 0-1:generic$}}
// COST-LABEL: function @scale:
// COST: {{^0 .* 2:generic$}}
// COST: note: ops 0, 1: left to IREE: it computes only from constants
func.func @scale(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %var = arith.constant dense<4.0> : tensor<16xf32>
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %v1 = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%var : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %eps : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%v1 : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.rsqrt %a : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
