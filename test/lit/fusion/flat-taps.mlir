// Flat taps (transforms/flat_taps.py): a 1x1 conv's matmul result [8, 400] split into 20x20 rows, padded
// by 1 and summed over 3x3 windows. The matmul's region stores into a flat padded buffer [8, 20 + 400 + 22]
// in place (no copy dispatch); each tap is a flat slice at 21 + dh * 20 + dw reshaped to rows inside the
// taps' region, the six column-shifted taps masked to the pad value at the image's left or right edge.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=regions --disable-pattern=pad-conv | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @f
// CHECK: %[[BUF:.+]] = linalg.fill {{.*}} -> tensor<8x442xf32>
// CHECK: %[[R:.+]] = flow.dispatch.region -> (tensor<8x442xf32>)
// CHECK: linalg.matmul
// CHECK: tensor.insert_slice %{{.+}} into %[[BUF]][0, 21] [8, 400] [1, 1]
// CHECK: flow.dispatch.region -> (tensor<8x20x20xf32>)
// CHECK: tensor.extract_slice %[[R]][0, 0] [8, 400] [1, 1]
// CHECK-NEXT: tensor.expand_shape {{.*}} output_shape [8, 20, 20]
// CHECK: tensor.extract_slice %[[R]][0, 21] [8, 400] [1, 1]
// CHECK: tensor.extract_slice %[[R]][0, 42] [8, 400] [1, 1]
// CHECK: linalg.generic
// CHECK-COUNT-6: arith.select
// CHECK-NOT: tensor.pad
// OFF: tensor.pad %{{.+}} low[0, 1, 1] high[0, 1, 1]

func.func @f(%x: tensor<8x400xf32>, %w1: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<8x20x20xf32> {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x400xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x400xf32>) -> tensor<8x400xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<8x8xf32>, tensor<8x400xf32>) outs(%f2 : tensor<8x400xf32>) -> tensor<8x400xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<8x400xf32>, tensor<8xf32>) outs(%e2 : tensor<8x400xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<8x400xf32>
  %ex = tensor.expand_shape %r [[0], [1, 2]] output_shape [8, 20, 20] : tensor<8x400xf32> into tensor<8x20x20xf32>
  %pv = arith.constant 0.0 : f32
  %p = tensor.pad %ex low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %pv : f32
  } : tensor<8x20x20xf32> to tensor<8x22x22xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %eo = tensor.empty() : tensor<8x20x20xf32>
  %init = linalg.fill ins(%pv : f32) outs(%eo : tensor<8x20x20xf32>) -> tensor<8x20x20xf32>
  %pool = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>,
      affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %win : tensor<8x22x22xf32>, tensor<3x3xf32>) outs(%init : tensor<8x20x20xf32>) {
  ^bb0(%in: f32, %wn: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<8x20x20xf32>
  return %pool : tensor<8x20x20xf32>
}

