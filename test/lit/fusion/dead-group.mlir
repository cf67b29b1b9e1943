// A group whose results nothing reads (dead code in hand-written input) gets no dispatch region: a
// region yielding nothing prints without its `flow.return` and the output no longer parsed ("block
// with no terminator"). The live group is wrapped, the dead matmul left for IREE to erase, and the
// output parses back.
// RUN: fusion-opt %s --emit=regions | filecheck %s
// RUN: fusion-opt %s --emit=regions | fusion-opt --emit=regions | filecheck %s
// CHECK-LABEL: func.func @dead_matmul
// CHECK: flow.dispatch.region
// CHECK: math.tanh
// CHECK: flow.return
// CHECK-NOT: flow.dispatch.region
// CHECK: linalg.matmul
// CHECK: return

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dead_matmul(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<16x32xf32>
  %w = arith.constant dense<0.5> : tensor<32x8xf32>
  %em = tensor.empty() : tensor<16x8xf32>
  %fm = linalg.fill ins(%z : f32) outs(%em : tensor<16x8xf32>) -> tensor<16x8xf32>
  %unused = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%fm : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %t : tensor<16x32xf32>
}
