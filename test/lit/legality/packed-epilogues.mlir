// Rule 'packed-epilogues' (accepted): the matmul of packed-epilogues-illegal.mlir with its bias + GELU,
// returning the matmul's own result and the epilogue's: one result of the epilogue, which compiles
// data-tiled at this size (and at 1024 rows), so the pin holds and the cost planner forms the group unpinned too.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s
// RUN: sed -e 's/ {fusion_opt.fuse = "g"}//; s/, fusion_opt.fuse = "g"//g' %s | fusion-opt --fusion=cost --emit=plan | filecheck %s
// CHECK-LABEL: function @matmul_and_gelu:
// CHECK: {{^0 .* 0:fill 1:matmul 2:generic$}}
// CHECK-NOT: illegal [packed-epilogues]

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_and_gelu(%x: tensor<256x48xf32>, %w: tensor<48x192xf32>, %b: tensor<192xf32>) -> (tensor<256x192xf32>, tensor<256x192xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x192xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%x, %w : tensor<256x48xf32>, tensor<48x192xf32>) outs(%f : tensor<256x192xf32>) -> tensor<256x192xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m, %b : tensor<256x192xf32>, tensor<192xf32>) outs(%e : tensor<256x192xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.constant 0.707106769 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.addf %a, %c : f32
    %u = arith.mulf %t, %s : f32
    %r = math.erf %u : f32
    %p = arith.addf %r, %one : f32
    %q = arith.mulf %t, %p : f32
    %y = arith.mulf %q, %h : f32
    linalg.yield %y : f32
  } -> tensor<256x192xf32>
  return %m, %g : tensor<256x192xf32>, tensor<256x192xf32>
}
