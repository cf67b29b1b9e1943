// A group whose result is padded for a convolution is handed back to IREE, which writes it straight
// into the padded buffer; greedy (the first planner) keeps it as a region and pays a copy dispatch.
// RUN: fusion-opt %s --fusion=cost --layout=nchw --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --fusion=cost --layout=nchw --emit=regions | filecheck %s --check-prefix=COST
// RUN: fusion-opt %s --fusion=greedy --emit=regions | filecheck %s --check-prefix=GREEDY

// PLAN-LABEL: function @relu_pad_conv: strategy cost, 1 groups
// PLAN: note: ops 0 (elementwise): left to IREE: its result is padded

// COST-LABEL: func.func @relu_pad_conv(
// COST: %[[R:.+]] = linalg.generic
// COST: %[[P:.+]] = tensor.pad %[[R]]
// COST: flow.dispatch.region
// COST: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]],
// COST-NOT: flow.dispatch.region

// GREEDY-LABEL: func.func @relu_pad_conv(
// GREEDY-COUNT-2: flow.dispatch.region
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @relu_pad_conv(%x: tensor<1x8x16x16xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x8x16x16xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p, %w : tensor<1x8x18x18xf32>, tensor<8x8x3x3xf32>) outs(%f : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %c : tensor<1x8x16x16xf32>
}
