// Pins and barriers written in the IR: `fusion_opt.fuse = "tag"` (ops sharing a tag end in one group)
// and `fusion_opt.no_fuse` (the op is kept alone).
// RUN: fusion-opt %s --fusion=none --split-input-file | filecheck %s
// RUN: fusion-opt %s --fusion=greedy --split-input-file --emit=plan | filecheck %s --check-prefix=PLAN

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// Under --fusion=none nothing is fused, except what the tag pins: exp and the row sum.
// CHECK-LABEL: func.func @ir_pin(
// CHECK: math.exp
// CHECK-NOT: flow.{{return|dispatch.region}}
// CHECK: arith.addf
// CHECK: flow.return
// PLAN-LABEL: function @ir_pin:
// PLAN: {{^[0-9]+ .* 0:generic .*2:generic}}
func.func @ir_pin(%x: tensor<32x128xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "softmax"}
      ins(%x : tensor<32x128xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = math.exp %v : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sm = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"], fusion_opt.fuse = "softmax"}
      ins(%ex : tensor<32x128xf32>) outs(%si : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %sm : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// The barrier keeps the bias+relu epilogue out of the matmul's group.
// CHECK-LABEL: func.func @ir_barrier(
// PLAN-LABEL: function @ir_barrier:
// PLAN: {{^[0-9]+ +[a-z+-]+ +1 .* 3:generic$}}
// PLAN: [barrier] {{.*}}: refused: barrier
func.func @ir_barrier(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.negf %x : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"], fusion_opt.no_fuse}
      ins(%n, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
