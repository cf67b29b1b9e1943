// Rule 'const-read' (accepted): the mean of exp(x[0, ...]) over the last three dims, keeping the size-1
// dim (a `[1]` result, not a scalar): one region, which IREE compiles. Rejected twin:
// const-read-scalar-illegal.mlir (the mean over everything, fuzz seed 20920).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=vmfb -o %t.vmfb

#c0 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: function @mean_of_read_at_zero:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:generic 1:fill 2:generic$}}
// CHECK-NOT: refused
func.func @mean_of_read_at_zero(%x: tensor<1x8x6x10xf32>) -> tensor<1xf32> {
  %e = tensor.empty() : tensor<1x8x6x10xf32>
  %p = linalg.generic {indexing_maps = [#c0, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x8x6x10xf32>) outs(%e : tensor<1x8x6x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<1x8x6x10xf32>
  %e2 = tensor.empty() : tensor<1xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%p : tensor<1x8x6x10xf32>) outs(%f : tensor<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %k = arith.constant 2.0e-03 : f32
    %m = arith.mulf %a, %k : f32
    %t = arith.addf %m, %o : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  return %s : tensor<1xf32>
}
