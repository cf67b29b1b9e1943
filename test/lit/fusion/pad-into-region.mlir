// A pad between two of our regions is written into its producer's region when the region's result
// already has the padded value's layout: a fill of the padded buffer outside the region, an insert at
// the pad's offsets inside it (IREE stores the tile in place: no copy dispatch). Unit dims the pad
// leaves alone are dropped from the buffer and put back outside. A matmul result that must be split
// into rows first is stored through the reshape only where the image is one tile (7x7, 8x8), else
// keeps its pad (measured slower in place, transforms/padded_results.py).
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=regions | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=regions --disable-pattern=pad-conv | filecheck %s --check-prefix=OFF

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_relu_pad_conv(
// CHECK: %[[BUF:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x10x10xf32>)
// CHECK: %[[R:.+]] = flow.dispatch.region -> (tensor<8x10x10xf32>)
// CHECK:   linalg.conv_2d_nchw_fchw
// CHECK:   %[[G:.+]] = linalg.generic
// CHECK:   %[[C:.+]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1], [2], [3]] : tensor<1x8x8x8xf32> into tensor<8x8x8xf32>
// CHECK:   %[[I:.+]] = tensor.insert_slice %[[C]] into %[[BUF]][0, 1, 1] [8, 8, 8] [1, 1, 1]
// CHECK:   flow.return %[[I]]
// CHECK: %[[P:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 8, 10, 10]
// CHECK-NOT: tensor.pad
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]],
// OFF-LABEL: func.func @conv_relu_pad_conv(
// OFF: tensor.pad
func.func @conv_relu_pad_conv(%x: tensor<1x8x10x10xf32>, %w1: tensor<8x8x3x3xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// A max pool's pad: -inf from ONNX's f64 constant truncated; padded high only, no unit dim.
// CHECK-LABEL: func.func @relu_pad_pool(
// CHECK: %[[NEG:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BUF:.+]] = linalg.fill ins(%[[NEG]] : f32) outs(%{{.+}} : tensor<16x9x9xf32>)
// CHECK: flow.dispatch.region -> (tensor<16x9x9xf32>)
// CHECK:   tensor.insert_slice %{{.+}} into %[[BUF]][0, 0, 0] [16, 8, 8] [1, 1, 1]
// CHECK-NOT: tensor.pad
func.func @relu_pad_pool(%x: tensor<16x8x8xf32>) -> tensor<16x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %ninf64 = arith.constant 0xFFF0000000000000 : f64
  %ninf = arith.truncf %ninf64 : f64 to f32
  %e0 = tensor.empty() : tensor<16x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<16x8x8xf32>) outs(%e0 : tensor<16x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<16x8x8xf32>
  %p = tensor.pad %r low[0, 0, 0] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %ninf : f32
  } : tensor<16x8x8xf32> to tensor<16x9x9xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<16x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<16x4x4xf32>) -> tensor<16x4x4xf32>
  %pool = linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h * 2 + kh, w * 2 + kw)>, affine_map<(c, h, w, kh, kw) -> (kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %win : tensor<16x9x9xf32>, tensor<3x3xf32>) outs(%f : tensor<16x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  } -> tensor<16x4x4xf32>
  return %pool : tensor<16x4x4xf32>
}

// -----

// A 1x1 conv's matmul result reaches its pad through an expand_shape that splits H*W into rows. The
// whole 8x8 image is one tile (<= 64 columns): stored through the reshape into the padded buffer.
// CHECK-LABEL: func.func @matmul_pad_conv(
// CHECK: %[[BUF:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<16x10x10xf32>)
// CHECK: flow.dispatch.region -> (tensor<16x10x10xf32>)
// CHECK:   %[[MM:.+]] = linalg.matmul
// CHECK:   %[[EX:.+]] = tensor.expand_shape %[[MM]] {{\[\[}}0], [1, 2]] output_shape [16, 8, 8]
// CHECK:   tensor.insert_slice %[[EX]] into %[[BUF]][0, 1, 1] [16, 8, 8] [1, 1, 1]
// CHECK-NOT: tensor.pad
func.func @matmul_pad_conv(%x: tensor<32x64xf32>, %w1: tensor<16x32xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %ex = tensor.expand_shape %mm [[0, 1], [2, 3]] output_shape [1, 16, 8, 8] : tensor<16x64xf32> into tensor<1x16x8x8xf32>
  %p = tensor.pad %ex low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}

// -----

// Rows of a 16x16 image: the data-tiled matmul's tiles (64 columns) would cross image rows, stores
// measured slower in place than the copy (transforms/padded_results.py): the pad stays.
// CHECK-LABEL: func.func @matmul_rows_pad_conv(
// CHECK: flow.dispatch.region -> (tensor<16x256xf32>)
// CHECK: tensor.pad
func.func @matmul_rows_pad_conv(%x: tensor<32x256xf32>, %w1: tensor<16x32xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x256xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<16x32xf32>, tensor<32x256xf32>) outs(%f2 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %ex = tensor.expand_shape %mm [[0, 1], [2, 3]] output_shape [1, 16, 16, 16] : tensor<16x256xf32> into tensor<1x16x16x16xf32>
  %p = tensor.pad %ex low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x16x16x16xf32> to tensor<1x16x18x18xf32>
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x16x18x18xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %c : tensor<1x16x16x16xf32>
}

// -----

// The region's result is also returned: the unpadded value must stay, so the pad stays.
// CHECK-LABEL: func.func @result_used_twice(
// CHECK: flow.dispatch.region -> (tensor<16x8x8xf32>)
// CHECK: tensor.pad
func.func @result_used_twice(%x: tensor<16x8x8xf32>) -> (tensor<16x10x10xf32>, tensor<16x8x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<16x8x8xf32>) outs(%e0 : tensor<16x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<16x8x8xf32>
  %p = tensor.pad %r low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<16x8x8xf32> to tensor<16x10x10xf32>
  return %p, %r : tensor<16x10x10xf32>, tensor<16x8x8xf32>
}
