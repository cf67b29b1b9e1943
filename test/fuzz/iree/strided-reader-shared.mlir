// IREE 3.13 fuses a multi-use elementwise producer into a reader that reads it through a strided map, as one
// two-result op over the reader's loops: the value its other reader gets is computed at even rows and
// columns only.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#strided = affine_map<(d0, d1, d2) -> (d0, d1 * 2, d2 * 2)>
#tr = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
func.func @main(%x: tensor<8x16x16xf32>) -> (tensor<8x8x8xf32>, tensor<16x16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x16x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x16x16xf32>) outs(%e0 : tensor<8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e1 = tensor.empty() : tensor<8x8x8xf32>
  %copy = linalg.generic {indexing_maps = [#strided, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%relu : tensor<8x16x16xf32>) outs(%e1 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x8x8xf32>
  %e2 = tensor.empty() : tensor<16x16x8xf32>
  %t = linalg.transpose ins(%relu : tensor<8x16x16xf32>) outs(%e2 : tensor<16x16x8xf32>) permutation = [1, 2, 0]
  return %copy, %t : tensor<8x8x8xf32>, tensor<16x16x8xf32>
}
