// Op kinds come from indexing maps and iterator types (and, for ops without maps, the op).
// RUN: fusion-opt %s --emit=json --fusion=none --split-input-file | filecheck %s

// CHECK-LABEL: "name": "matmul"
// CHECK: "ops": [
// CHECK: "name": "linalg.matmul",
// CHECK-NEXT: "loc": "{{.*}}classify.mlir:[[# @LINE + 3]]:8",
// CHECK-NEXT: "kind": "contraction"
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: "name": "conv"
// CHECK: "ops": [
// CHECK: "name": "linalg.conv_2d_nchw_fchw",
// CHECK: "kind": "convolution"
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %o: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%o : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Pooling has window loops but multiplies no two tensors: a reduction, not a convolution.
// CHECK-LABEL: "name": "maxpool"
// CHECK: "ops": [
// CHECK: "name": "linalg.pooling_nchw_max",
// CHECK: "kind": "reduction"
func.func @maxpool(%x: tensor<1x4x8x8xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %win = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A named transpose reaches the planner as its copy-only generic (the `.mlir` normalization, as the ONNX
// path gives it): injective from its maps.
// CHECK-LABEL: "name": "transpose"
// CHECK: "ops": [
// CHECK: "name": "linalg.generic",
// CHECK: "kind": "injective"
func.func @transpose(%x: tensor<8x16xf32>, %o: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%o : tensor<16x8xf32>) permutation = [1, 0]
  return %0 : tensor<16x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: "name": "generic_kinds"
// CHECK: "ops": [
// CHECK: "name": "linalg.generic",
// CHECK: "kind": "elementwise"
// CHECK: "ops": [
// CHECK: "name": "linalg.generic",
// CHECK: "kind": "broadcast"
// CHECK: "ops": [
// CHECK: "name": "linalg.generic",
// CHECK: "kind": "reduction"
// A splat is left to IREE, which clones it into its readers (even by `none`: fusion/handoff.py, lone-fill)
// CHECK: "cloned": [
// CHECK: "name": "linalg.fill",
// CHECK: "kind": "broadcast"
func.func @generic_kinds(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %ew = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %bc = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ew, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%bc : tensor<8x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A lone pad and a metadata-only reshape are left to IREE, outside any dispatch region.
// CHECK-LABEL: "name": "pad_and_reshape"
// CHECK: "groups": []
// CHECK: "unplaced": [
// CHECK: "name": "tensor.pad",
// CHECK: "kind": "pad"
// CHECK: "name": "tensor.collapse_shape",
// CHECK: "kind": "injective"
func.func @pad_and_reshape(%x: tensor<4x4xf32>) -> tensor<36xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %c = tensor.collapse_shape %p [[0, 1]] : tensor<6x6xf32> into tensor<36xf32>
  return %c : tensor<36xf32>
}
