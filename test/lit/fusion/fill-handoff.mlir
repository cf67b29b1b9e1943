// A fill shared by groups that cannot take it (here the init of a LayerNorm's two reductions and an input
// of an add kept apart by a no_fuse mark; MobileViT's 4x4 zero fill fed 21 reductions) is left to IREE, which clones
// the splat into each dispatch reading it. As a region of ours it was a dispatch, and the LayerNorm
// region, whose two reductions both accumulated into it in place, failed to compile
// ("'iree_tensor_ext.dispatch.tensor.store' op operand #1 must be dispatch.tensor").
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --fusion=cost --emit=regions | filecheck %s --check-prefix=IR
// RUN: fusion-opt %s --fusion=cost -o %t.vmfb 2>&1 | filecheck %s --allow-empty --check-prefix=COMPILE
// PLAN-LABEL: function @layernorm_sharing_a_fill:
// PLAN: note: ops 0 (broadcast): left to IREE: a splat alone
// IR-LABEL: func.func @layernorm_sharing_a_fill
// IR: %[[F:.+]] = linalg.fill
// IR-NEXT: flow.dispatch.region
// COMPILE-NOT: warning
#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @layernorm_sharing_a_fill(%x: tensor<4x4x80xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4x80xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 80.0 : f32
  %e2 = tensor.empty() : tensor<4x4xf32>
  %e3 = tensor.empty() : tensor<4x4x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x4x80xf32>) outs(%f : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x4xf32>
  %d = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<4x4x80xf32>, tensor<4x4xf32>) outs(%e3 : tensor<4x4x80xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %mean = arith.divf %m, %n : f32
    %t = arith.subf %a, %mean : f32
    linalg.yield %t : f32
  } -> tensor<4x4x80xf32>
  %v = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%d : tensor<4x4x80xf32>) outs(%f : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.no_fuse}
      ins(%f, %v, %b : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
  ^bb0(%a: f32, %c: f32, %g: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  } -> tensor<4x4xf32>
  return %d, %y : tensor<4x4x80xf32>, tensor<4x4xf32>
}
