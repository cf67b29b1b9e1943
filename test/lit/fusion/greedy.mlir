// RUN: fusion-opt %s --fusion=greedy --emit=regions --split-input-file | filecheck %s
// RUN: fusion-opt %s --fusion=greedy --emit=plan --split-input-file | filecheck %s --check-prefix=PLAN

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// The bias+relu epilogue and the accumulator fill join the matmul: one dispatch.
// CHECK-LABEL: func.func @matmul_bias_relu(
// CHECK: %[[R:.+]] = flow.dispatch.region -> (tensor<64x32xf32>) {
// CHECK-NEXT: %[[F:.+]] = linalg.fill
// CHECK-NEXT: %[[M:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x128xf32>, tensor<128x32xf32>) outs(%[[F]] :
// CHECK-NEXT: %[[E:.+]] = linalg.generic {{.*}} ins(%[[M]], %{{.+}} :
// CHECK: flow.return %[[E]] : tensor<64x32xf32>
// CHECK-NOT: flow.dispatch.region
// CHECK: return %[[R]]
// PLAN-LABEL: function @matmul_bias_relu: strategy greedy, 1 groups
// PLAN: contraction+epilogue  3
func.func @matmul_bias_relu(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

#c4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
// BatchNorm (as a per-channel mul/add) and ReLU are elementwise epilogues of the conv.
// CHECK-LABEL: func.func @conv_bn_relu(
// CHECK: flow.dispatch.region -> (tensor<1x16x14x14xf32>) {
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: flow.return
// CHECK-NOT: flow.dispatch.region
// PLAN-LABEL: function @conv_bn_relu: strategy greedy, 1 groups
// PLAN: convolution+epilogue  4
func.func @conv_bn_relu(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %scale: tensor<16xf32>, %shift: tensor<16xf32>) -> tensor<1x16x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %bn = linalg.generic {indexing_maps = [#c4, #ch, #ch, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %scale, %shift : tensor<1x16x14x14xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %t : f32
    linalg.yield %a : f32
  } -> tensor<1x16x14x14xf32>
  %r = linalg.generic {indexing_maps = [#c4, #c4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bn : tensor<1x16x14x14xf32>) outs(%e : tensor<1x16x14x14xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x16x14x14xf32>
  return %r : tensor<1x16x14x14xf32>
}

// -----

#id3 = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
// A first greedy planner keeps each reduction a root of its own group and will not fuse the exp,
// whose two consumers (sum and div) end in different groups.
// CHECK-LABEL: func.func @softmax(
// CHECK-COUNT-4: flow.dispatch.region
// CHECK-NOT: flow.dispatch.region
// PLAN-LABEL: function @softmax: strategy greedy, 4 groups
// PLAN: refused
func.func @softmax(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %mx = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x128xf32>) outs(%mi : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<32x128xf32>, tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %q = math.exp %d : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sm = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<32x128xf32>) outs(%si : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sm : tensor<32x128xf32>, tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
// LayerNorm, decomposed as exporters write it. The first greedy planner never puts two reductions in
// one group: mean and variance are separate roots, and the centering feeds the second reduction as a
// prologue only when it has no other consumer.
// CHECK-LABEL: func.func @layernorm(
// CHECK-COUNT-4: flow.dispatch.region
// CHECK-NOT: flow.dispatch.region
// PLAN-LABEL: function @layernorm: strategy greedy, 4 groups
// PLAN: reduction
// PLAN: reduction
// PLAN-NOT: reduction+reduction
func.func @layernorm(%x: tensor<16x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %cent = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x64xf32>, tensor<16xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %t = arith.subf %v, %m : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  %sq = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%cent : tensor<16x64xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %v, %v : f32
    %t = arith.addf %p, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#x, #r, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%cent, %sq, %gamma, %beta : tensor<16x64xf32>, tensor<16xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %s, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %t = arith.mulf %v, %inv : f32
    %u = arith.mulf %t, %g : f32
    %w = arith.addf %u, %b : f32
    linalg.yield %w : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
