// Small images (fusion/epilogue_split.py, transforms/padded_results.py): a 14x14 image's epilogue is
// split off like a 16x16 one (IREE writes it into the padded buffer along the image rows; priced as the
// copy it replaces), while a 7x7 image is one tile: the group stays whole and its region stores the
// result through the reshape into the padded buffer (no copy, no extra dispatch).
// RUN: fusion-opt %s --split-input-file --layout=nchw --emit=regions | filecheck %s
// RUN: fusion-opt %s --split-input-file --layout=nchw --emit=plan | filecheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @rows14(
// CHECK: %[[MM:.+]] = flow.dispatch.region -> (tensor<32x196xf32>)
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: flow.return
// CHECK: %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<32x196xf32>, tensor<32xf32>)
// CHECK: %[[EX:.+]] = tensor.expand_shape %[[EPI]]
// CHECK: tensor.pad %[[EX]]
// PLAN-LABEL: function @rows14
// PLAN: note: ops 2 (epilogue of group 0): left to IREE, which writes it into the buffer of pad op 4 in place
func.func @rows14(%x: tensor<48x196xf32>, %w1: tensor<32x48xf32>, %b: tensor<32xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<32x196xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x196xf32>) -> tensor<32x196xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<32x48xf32>, tensor<48x196xf32>) outs(%f2 : tensor<32x196xf32>) -> tensor<32x196xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<32x196xf32>, tensor<32xf32>) outs(%e2 : tensor<32x196xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<32x196xf32>
  %ex = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, 32, 14, 14] : tensor<32x196xf32> into tensor<1x32x14x14xf32>
  %p = tensor.pad %ex low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x32x14x14xf32> to tensor<1x32x16x16xf32>
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %fo = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x32x16x16xf32>, tensor<32x32x3x3xf32>) outs(%fo : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  return %c : tensor<1x32x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @rows7(
// CHECK: %[[BUF:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<32x9x9xf32>)
// CHECK: flow.dispatch.region -> (tensor<32x9x9xf32>)
// CHECK:   linalg.matmul
// CHECK:   %[[EPI:.+]] = linalg.generic
// CHECK:   %[[EX:.+]] = tensor.expand_shape %[[EPI]] {{\[\[}}0], [1, 2]] output_shape [32, 7, 7]
// CHECK:   tensor.insert_slice %[[EX]] into %[[BUF]][0, 1, 1] [32, 7, 7] [1, 1, 1]
// CHECK-NOT: tensor.pad
// PLAN-LABEL: function @rows7
// PLAN-NOT: epilogue of group
// PLAN: contraction+epilogue
func.func @rows7(%x: tensor<48x49xf32>, %w1: tensor<32x48xf32>, %b: tensor<32xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x7x7xf32> {
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<32x49xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x49xf32>) -> tensor<32x49xf32>
  %mm = linalg.matmul ins(%w1, %x : tensor<32x48xf32>, tensor<48x49xf32>) outs(%f2 : tensor<32x49xf32>) -> tensor<32x49xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<32x49xf32>, tensor<32xf32>) outs(%e2 : tensor<32x49xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<32x49xf32>
  %ex = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, 32, 7, 7] : tensor<32x49xf32> into tensor<1x32x7x7xf32>
  %p = tensor.pad %ex low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x32x7x7xf32> to tensor<1x32x9x9xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %fo = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>) outs(%fo : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %c : tensor<1x32x7x7xf32>
}
