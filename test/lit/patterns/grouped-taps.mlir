// Pattern grouped-taps: a grouped conv with 4 input channels a group (the generic form the ONNX import leaves:
// input [G, C, Hp, Wp] read at (g, c, h + kh, w + kw), filter [G, F, C, 3, 3]) becomes one elementwise op per
// input channel of the group, each adding 9 taps (an input slice of that channel times a filter column) to
// the previous one's result; the planner puts the chain in one dispatch.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=grouped-taps --disable-pattern=conv-strategy | filecheck %s --check-prefix=OFF
// RUN: fusion-opt %s --emit=plan --target=sm_90 | filecheck %s --check-prefix=GPU
// CHECK-LABEL: func.func @grouped
// CHECK: flow.dispatch.region -> (tensor<8x4x16x16xf32>)
// CHECK-DAG: tensor.extract_slice %arg0[0, 0, 0, 0] [8, 1, 16, 16] [1, 1, 1, 1] : tensor<8x4x18x18xf32> to tensor<8x16x16xf32>
// CHECK-DAG: tensor.extract_slice %arg0[0, 3, 2, 2] [8, 1, 16, 16] [1, 1, 1, 1] : tensor<8x4x18x18xf32> to tensor<8x16x16xf32>
// CHECK-DAG: tensor.extract_slice %arg1[0, 0, 3, 2, 2] [8, 4, 1, 1, 1] [1, 1, 1, 1, 1] : tensor<8x4x4x3x3xf32> to tensor<8x4xf32>
// CHECK: linalg.generic {indexing_maps = [{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-NOT: "reduction"
// CHECK: flow.return %{{.*}} : tensor<8x4x16x16xf32>
// PLAN: note: grouped-taps: op {{[0-9]+}} ({{.*}}grouped-taps.mlir:{{[0-9:]+}}): channel chain of window taps (predicted kept
// PLAN: patterns: {{.*}}grouped-taps 1
// OFF-NOT: tensor.extract_slice
// OFF: ins(%arg0, %arg1 : tensor<8x4x18x18xf32>, tensor<8x4x4x3x3xf32>)
// GPU: patterns:
// GPU-NOT: grouped-taps {{[0-9]}}
#x = affine_map<(g, f, h, w, c, kh, kw) -> (g, c, h + kh, w + kw)>
#w = affine_map<(g, f, h, w, c, kh, kw) -> (g, f, c, kh, kw)>
#o = affine_map<(g, f, h, w, c, kh, kw) -> (g, f, h, w)>
func.func @grouped(%x: tensor<8x4x18x18xf32>, %w: tensor<8x4x4x3x3xf32>) -> tensor<8x4x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4x16x16xf32>) -> tensor<8x4x16x16xf32>
  %c = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<8x4x18x18xf32>, tensor<8x4x4x3x3xf32>) outs(%init : tensor<8x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4x16x16xf32>
  return %c : tensor<8x4x16x16xf32>
}
