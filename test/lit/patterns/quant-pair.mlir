// Pattern quant-pair: a QDQ model's QuantizeLinear -> DequantizeLinear pair (f32 -> u8 with a scale and
// zero point, the unit batch dim dropped, u8 -> f32) becomes one elementwise op over the quantize's
// domain with the reshape after it: no i8 tensor stored between two dispatches. Each dequantizing
// reader gets its own copy of the quantize's body; the quantize itself stays for its other reader (the
// returned i8 tensor).
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=quant-pair | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @qdq
// CHECK: flow.dispatch.region -> (tensor<1x8x6x6xi8>)
// CHECK: flow.dispatch.region -> (tensor<1x8x6x6xf32>)
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK-NEXT: arith.uitofp %{{.*}} : i8 to f32
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NOT: xi8> into
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x8x6x6xf32> into tensor<8x6x6xf32>
// CHECK-NOT: xi8> into
// CHECK: return
// PLAN: patterns: {{.*}}quant-pair 2
// OFF-LABEL: func.func @qdq
// OFF: tensor.collapse_shape %{{.*}} : tensor<1x8x6x6xi8> into tensor<8x6x6xi8>
// OFF: arith.uitofp
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @qdq(%x: tensor<1x8x6x6xf32>, %w: tensor<4x8x1x1xf32>) -> (tensor<4x6x6xf32>, tensor<1x8x6x6xi8>, tensor<8x6x6xf32>) {
  %s = arith.constant 0.05 : f32
  %z = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %e8 = tensor.empty() : tensor<1x8x6x6xi8>
  %q = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x6x6xf32>) outs(%e8 : tensor<1x8x6x6xi8>) {
  ^bb0(%a: f32, %o: i8):
    %d = arith.divf %a, %s : f32
    %r = math.roundeven %d : f32
    %t = arith.addf %r, %z : f32
    %c1 = arith.maximumf %t, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptoui %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<1x8x6x6xi8>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x8x6x6xi8> into tensor<8x6x6xi8>
  %ef = tensor.empty() : tensor<8x6x6xf32>
  %dq = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qc : tensor<8x6x6xi8>) outs(%ef : tensor<8x6x6xf32>) {
  ^bb0(%a: i8, %o: f32):
    %f = arith.uitofp %a : i8 to f32
    %m = arith.subf %f, %z : f32
    %n = arith.mulf %m, %s : f32
    linalg.yield %n : f32
  } -> tensor<8x6x6xf32>
  %dq2 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qc : tensor<8x6x6xi8>) outs(%ef : tensor<8x6x6xf32>) {
  ^bb0(%a: i8, %o: f32):
    %f = arith.uitofp %a : i8 to f32
    linalg.yield %f : f32
  } -> tensor<8x6x6xf32>
  %wc = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<4x8x1x1xf32> into tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4x6x6xf32>
  %zero = linalg.fill ins(%lo : f32) outs(%e4 : tensor<4x6x6xf32>) -> tensor<4x6x6xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(f, h, w, c) -> (c, h, w)>, affine_map<(f, h, w, c) -> (f, c)>, affine_map<(f, h, w, c) -> (f, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%dq, %wc : tensor<8x6x6xf32>, tensor<4x8xf32>) outs(%zero : tensor<4x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %acc = arith.addf %o, %p : f32
    linalg.yield %acc : f32
  } -> tensor<4x6x6xf32>
  return %y, %q, %dq2 : tensor<4x6x6xf32>, tensor<1x8x6x6xi8>, tensor<8x6x6xf32>
}
