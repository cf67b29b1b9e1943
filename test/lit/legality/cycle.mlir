// Rule 'cycle' (accepted): exp -> rowsum -> sub with exp -> sub; pinning all three is convex (no
// path leaves the group and re-enters it). Rejected twins (cycle-illegal.mlir): the same function
// with the sum left out of the pin, and two pins that feed each other.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: function @exp_sum_sub:
// CHECK: {{^[0-9]+ .* 0:generic( 1:fill)? 2-3:generic$}}
// CHECK-NOT: refused: illegal
func.func @exp_sum_sub(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%ex : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%ex, %s : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
