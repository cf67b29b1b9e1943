// Pattern depthwise-taps: a depthwise conv (no channel reduction: the filter reads the channel loop and
// the window loops only) is priced as it is and as one elementwise op over its 9 window taps; the cost
// model takes the taps. Each tap is a slice of the input and a [C] filter column. This conv has stride
// 2: its taps are computed densely (unit-stride slices, 27x27 positions, into zeros) in one dispatch
// (IREE reads a strided slice element by element), then a stride-2 slice of that sum is added to the
// conv's own init in the next, with the ReLU (rule strided-slice keeps the slice apart from the sum
// it reads). A stride-1 conv (@dw1) accumulates its taps straight into its init.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=depthwise-taps | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @dw
// CHECK: %[[DENSE:.*]] = flow.dispatch.region -> (tensor<24x27x27xf32>)
// CHECK-COUNT-9: tensor.extract_slice %{{.*}}[0, {{[0-2]}}, {{[0-2]}}] [24, 27, 27] [1, 1, 1] : tensor<24x29x29xf32> to tensor<24x27x27xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-COUNT-9: arith.mulf
// CHECK: flow.return
// CHECK: flow.dispatch.region -> (tensor<24x14x14xf32>)
// CHECK: %[[SUB:.*]] = tensor.extract_slice %[[DENSE]][0, 0, 0] [24, 14, 14] [1, 2, 2] : tensor<24x27x27xf32> to tensor<24x14x14xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUB]] : tensor<24x14x14xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: flow.return
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @dw1
// CHECK: flow.dispatch.region -> (tensor<24x14x14xf32>)
// CHECK-COUNT-9: tensor.extract_slice %{{.*}}[0, {{[0-2]}}, {{[0-2]}}] [24, 14, 14] [1, 1, 1] : tensor<24x16x16xf32> to tensor<24x14x14xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-COUNT-9: arith.mulf
// CHECK-NOT: tensor.extract_slice
// CHECK: flow.return
// PLAN: note: depthwise-taps: op {{[0-9]+}} ({{.*}}): window taps (predicted direct {{.*}}, window taps {{.*}})
// PLAN: patterns: {{.*}}depthwise-taps 1
// OFF-LABEL: func.func @dw
// OFF-NOT: tensor.extract_slice
// OFF: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
func.func @dw(%x: tensor<24x29x29xf32>, %w: tensor<24x3x3xf32>) -> tensor<24x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x14x14xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<24x14x14xf32>) -> tensor<24x14x14xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 2 + d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<24x29x29xf32>, tensor<24x3x3xf32>) outs(%i : tensor<24x14x14xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<24x14x14xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<24x14x14xf32>) outs(%e : tensor<24x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<24x14x14xf32>
  return %r : tensor<24x14x14xf32>
}

func.func @dw1(%x: tensor<24x16x16xf32>, %w: tensor<24x3x3xf32>) -> tensor<24x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x14x14xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<24x14x14xf32>) -> tensor<24x14x14xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<24x16x16xf32>, tensor<24x3x3xf32>) outs(%i : tensor<24x14x14xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<24x14x14xf32>
  return %y : tensor<24x14x14xf32>
}
