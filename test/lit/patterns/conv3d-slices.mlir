// Pattern conv3d-slices: a 3-D conv (the generic form the ONNX import leaves, unit batch folded) becomes one
// 2-D conv per kernel plane over the output depths as a batch, chained through their inits. @strided: a
// 2x3x3 kernel with depth stride 2 and depth dilation 2 over a [4, 9, 10, 10] input: plane k reads depths
// 2k, 2k + 2, 2k + 4 (a strided slice of 3 of 9), the filter's plane k as [8, 4, 3, 3]; no depth loop left.
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy --disable-pattern=conv-layout | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv3d-slices --disable-pattern=conv-strategy | filecheck %s --check-prefix=OFF
// RUN: fusion-opt %s --emit=plan --target=sm_90 | filecheck %s --check-prefix=GPU
// CHECK: affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d2 + d5, d3 + d6)>
// CHECK-LABEL: func.func @strided
// CHECK-DAG: %[[X0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [4, 3, 10, 10] [1, 2, 1, 1] : tensor<4x9x10x10xf32> to tensor<4x3x10x10xf32>
// CHECK-DAG: %[[W0:.*]] = tensor.extract_slice %arg1[0, 0, 0, 0, 0] [8, 4, 1, 3, 3] [1, 1, 1, 1, 1] : tensor<8x4x2x3x3xf32> to tensor<8x4x3x3xf32>
// CHECK: %[[R0:.*]] = flow.dispatch.region
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X0]], %[[W0]] : tensor<4x3x10x10xf32>, tensor<8x4x3x3xf32>)
// CHECK-DAG: %[[X1:.*]] = tensor.extract_slice %arg0[0, 2, 0, 0] [4, 3, 10, 10] [1, 2, 1, 1] : tensor<4x9x10x10xf32> to tensor<4x3x10x10xf32>
// CHECK-DAG: %[[W1:.*]] = tensor.extract_slice %arg1[0, 0, 1, 0, 0] [8, 4, 1, 3, 3] [1, 1, 1, 1, 1] : tensor<8x4x2x3x3xf32> to tensor<8x4x3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X1]], %[[W1]] : tensor<4x3x10x10xf32>, tensor<8x4x3x3xf32>) outs(%[[R0]] : tensor<8x3x8x8xf32>)
// CHECK-NOT: linalg.generic {{.*}}tensor<4x9x10x10xf32>, tensor<8x4x2x3x3xf32>
// PLAN: patterns: {{.*}}conv3d-slices 1
// OFF-NOT: tensor.extract_slice
// OFF: ins(%arg0, %arg1 : tensor<4x9x10x10xf32>, tensor<8x4x2x3x3xf32>)
// GPU: patterns:
// GPU-NOT: conv3d-slices
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d1 * 2 + d5 * 2, d2 + d6, d3 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d4, d5, d6, d7)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3)>
func.func @strided(%x: tensor<4x9x10x10xf32>, %w: tensor<8x4x2x3x3xf32>) -> tensor<8x3x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x3x8x8xf32>) -> tensor<8x3x8x8xf32>
  %c = linalg.generic {indexing_maps = [#x, #w, #o],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<4x9x10x10xf32>, tensor<8x4x2x3x3xf32>) outs(%init : tensor<8x3x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x3x8x8xf32>
  return %c : tensor<8x3x8x8xf32>
}
