// A pad of a pad is one pad (importers/pad_chains.py): IREE 3.13 fails to compile a producer fused with two
// pads in a row. Same padding value: the amounts add up. Different values (an explicit zero pad before a
// max pool's -inf one): one -inf pad, then a select writes 0 into the inner ring, read from an i8 mask.
// RUN: fusion-opt %s --split-input-file --emit=linalg | filecheck %s

// CHECK-LABEL: func.func @same_value(
// CHECK: tensor.pad %{{.*}} low[0, 1, 2] high[0, 3, 2]
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @same_value(%x: tensor<4x8x8xf32>) -> tensor<4x12x12xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 0] high[0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<4x8x8xf32> to tensor<4x10x8xf32>
  %q = tensor.pad %p low[0, 0, 2] high[0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<4x10x8xf32> to tensor<4x12x12xf32>
  return %q : tensor<4x12x12xf32>
}

// -----

// CHECK-LABEL: func.func @two_values(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[P:.+]] = tensor.pad %{{.*}} low[0, 0, 0] high[0, 3, 3]
// CHECK-NOT: tensor.pad
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MASK:.+]] = arith.constant dense<{{.*}}> : tensor<11x11xi8>
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[MASK]] : tensor<4x11x11xf32>, tensor<11x11xi8>)
// CHECK: arith.trunci
// CHECK: arith.select %{{.*}}, %[[ZERO]], %{{.*}} : f32
func.func @two_values(%x: tensor<4x8x8xf32>) -> tensor<4x11x11xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 0] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<4x8x8xf32> to tensor<4x9x9xf32>
  %q = tensor.pad %p low[0, 0, 0] high[0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %ninf : f32
  } : tensor<4x9x9xf32> to tensor<4x11x11xf32>
  return %q : tensor<4x11x11xf32>
}
