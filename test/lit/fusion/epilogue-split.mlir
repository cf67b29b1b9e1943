// A 1x1 conv's matmul whose epilogue (bias + relu) reaches the next conv's pad through a reshape that
// splits its rows ([F, H*W] -> [1, F, H, W]): kept in the matmul's region, the pad is a copy dispatch.
// The cost planner hands the epilogue to IREE instead (it writes it into the padded buffer in place)
// and keeps the matmul as a region of its own (fusion/epilogue_split.py). Greedy keeps the group
// whole; so does --disable-pattern=pad-conv.
// RUN: fusion-opt %s --layout=nchw --emit=regions | filecheck %s
// RUN: fusion-opt %s --layout=nchw --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --layout=nchw --emit=regions --disable-pattern=pad-conv | filecheck %s --check-prefix=OFF
// RUN: fusion-opt %s --fusion=greedy --emit=regions | filecheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @matmul_relu_pad_conv(
// CHECK: %[[MM:.+]] = flow.dispatch.region -> (tensor<32x256xf32>)
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: flow.return
// CHECK: %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<32x256xf32>, tensor<32xf32>)
// CHECK: %[[EX:.+]] = tensor.expand_shape %[[EPI]]
// CHECK: tensor.pad %[[EX]]
// PLAN: outside groups: 2:generic@{{.+}}, 3:tensor.expand_shape@{{.+}}, 4:tensor.pad@
// PLAN: note: ops 2 (epilogue of group 0): left to IREE, which writes it into the buffer of pad op 4 in place (predicted {{.+}} against {{.+}} with the epilogue in the group)
// PLAN: [epilogue-split] 1:matmul@{{.+}} -> 2:generic@{{.+}}: refused: [epilogue-split] the epilogue is left to IREE
// OFF-LABEL: func.func @matmul_relu_pad_conv(
// OFF: flow.dispatch.region -> (tensor<32x256xf32>)
// OFF-NEXT: linalg.fill
// OFF-NEXT: linalg.matmul
// OFF-NEXT: linalg.generic
// OFF: flow.return
func.func @matmul_relu_pad_conv(%x: tensor<48x256xf32>, %w1: tensor<32x48xf32>, %b: tensor<32xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<32x256xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<32x48xf32>, tensor<48x256xf32>) outs(%f2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<32x256xf32>, tensor<32xf32>) outs(%e2 : tensor<32x256xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<32x256xf32>
  %ex = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, 32, 16, 16] : tensor<32x256xf32> into tensor<1x32x16x16xf32>
  %p = tensor.pad %ex low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %fo = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%fo : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %c : tensor<1x32x16x16xf32>
}
