// A batch-2 projection (batch_matmul over a broadcast weight, as torch exports a Linear on [B, T, C])
// followed by a residual add and a LayerNorm. unit-batch-matmul makes the projection a [34, 64] matmul;
// IREE's reshape propagation then made the elementwise ops 2-D but left both reductions in [2, 17, 64],
// a reshape between each op: the LayerNorm planned as 4 groups. rewrites/collapse_dims.py rebuilds the
// reductions over the collapsed rows, so the LayerNorm is one row-wise multi-reduction group in [34, 64].
// RUN: fusion-opt %s --emit=plan | filecheck %s
// RUN: fusion-opt %s --emit=regions | filecheck %s --check-prefix=IR
// RUN: fusion-opt %s --emit=plan --disable-pattern=unit-batch-matmul | filecheck %s --check-prefix=OFF
// CHECK-LABEL: function @proj_layernorm:
// CHECK: {{^0 +contraction\+epilogue .* 2:matmul@}}
// CHECK-NEXT: {{^1 +reduction\+multi-reduction\+epilogue }}
// CHECK-NOT: {{^2 }}
// CHECK: patterns: {{.*}}unit-batch-matmul 1
// IR: linalg.matmul ins({{.*}} : tensor<34x64xf32>, tensor<64x64xf32>)
// IR: iterator_types = ["parallel", "reduction"]} ins({{.*}} : tensor<34x64xf32>) outs({{.*}} : tensor<34xf32>)
// IR: iterator_types = ["parallel", "reduction"]} ins({{.*}} : tensor<34x64xf32>) outs({{.*}} : tensor<34xf32>)
// OFF: batch_matmul

#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @proj_layernorm(%x: tensor<2x17x64xf32>, %r: tensor<2x17x64xf32>) -> tensor<2x17x64xf32> {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %w = arith.constant dense<0.01> : tensor<64x64xf32>
  %ew = tensor.empty() : tensor<2x64x64xf32>
  %wb = linalg.generic {indexing_maps = [#b, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<64x64xf32>) outs(%ew : tensor<2x64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x64x64xf32>
  %e = tensor.empty() : tensor<2x17x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x17x64xf32>) -> tensor<2x17x64xf32>
  %mm = linalg.batch_matmul ins(%x, %wb : tensor<2x17x64xf32>, tensor<2x64x64xf32>) outs(%f : tensor<2x17x64xf32>) -> tensor<2x17x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %r : tensor<2x17x64xf32>, tensor<2x17x64xf32>) outs(%e : tensor<2x17x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<2x17x64xf32>
  %er = tensor.empty() : tensor<2x17xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<2x17xf32>) -> tensor<2x17xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x17x64xf32>) outs(%fr : tensor<2x17xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<2x17xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %sum : tensor<2x17x64xf32>, tensor<2x17xf32>) outs(%e : tensor<2x17x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %mean = arith.divf %m, %n : f32
    %t = arith.subf %a, %mean : f32
    linalg.yield %t : f32
  } -> tensor<2x17x64xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c : tensor<2x17x64xf32>) outs(%fr : tensor<2x17xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %o : f32
    linalg.yield %t : f32
  } -> tensor<2x17xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %var : tensor<2x17x64xf32>, tensor<2x17xf32>) outs(%e : tensor<2x17x64xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %vm = arith.divf %v, %n : f32
    %ve = arith.addf %vm, %eps : f32
    %rs = math.rsqrt %ve : f32
    %t = arith.mulf %a, %rs : f32
    linalg.yield %t : f32
  } -> tensor<2x17x64xf32>
  return %y : tensor<2x17x64xf32>
}
