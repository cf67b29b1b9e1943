// Rule 'packed-multi-output' (accepted): the residual add + row reduction group of
// packed-multi-output-illegal.mlir with one result (the sum is not read outside): the matmul operand's
// packing in its dispatch compiles, so the three ops may share a pin, and the cost planner forms the
// group unpinned too.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s
// RUN: sed -e 's/, fusion_opt.fuse = "g"//g' %s | fusion-opt --fusion=cost --emit=plan | filecheck %s
// CHECK-LABEL: function @residual_norm_matmul:
// CHECK: {{^0 .* 1-3:generic$}}
// CHECK-NOT: illegal [packed-multi-output]

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @residual_norm_matmul(%x: tensor<16x64xf32>, %r: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %er = tensor.empty() : tensor<16xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %r : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "g"}
      ins(%s : tensor<16x64xf32>) outs(%fr : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s, %sum : tensor<16x64xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  %eo = tensor.empty() : tensor<16x32xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%y, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%fo : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %mm : tensor<16x32xf32>
}
