// Rule 'side-input' (accepted): the matmul and the add of the relu's result share a pin; the relu, which
// neither computes from the matmul nor feeds it, stays outside. Rejected twin: side-input-illegal.mlir.
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: function @matmul_add_side_relu:
// CHECK: {{^0 +contraction\+epilogue .* 0:fill 1:matmul 3:generic$}}
func.func @matmul_add_side_relu(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %d: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.no_fuse}
      ins(%d : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %z : f32
    linalg.yield %t : f32
  } -> tensor<16x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%m, %r : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// A row gather at a constant index (an unrolled LSTM step reading its row of the input projection, which
// a batch matmul computed for every step) joins the matmul's epilogue: it reads nothing the group computes.
// IREE's own formation makes the same dispatch; alone it was one dispatch more per step.
#map_row = affine_map<(d0, d1) -> ()>
#id_row = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: function @matmul_add_row_gather:
// CHECK: {{^0 +contraction\+epilogue .* 0:fill 1:matmul 3-4:generic$}}
func.func @matmul_add_row_gather(%h: tensor<1x32xf32>, %w: tensor<32x64xf32>, %xs: tensor<40x64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %t = arith.constant dense<7> : tensor<i64>
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %m = linalg.matmul ins(%h, %w : tensor<1x32xf32>, tensor<32x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  %xe = linalg.generic {indexing_maps = [#id_row, #id_row], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<40x64xf32>) outs(%xs : tensor<40x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<40x64xf32>
  %row = linalg.generic {indexing_maps = [#map_row, #id_row], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<i64>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %c = linalg.index 1 : index
    %v = tensor.extract %xe[%r, %c] : tensor<40x64xf32>
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s = linalg.generic {indexing_maps = [#id_row, #id_row, #id_row], iterator_types = ["parallel", "parallel"]}
      ins(%m, %row : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<1x64xf32>
  return %s : tensor<1x64xf32>
}

// A splat read by the epilogue (hand-written `.mlir` scales by a filled tensor: `linalg.elementwise` takes no
// scalar) joins the matmul's group: it reads nothing, so it neither computes from the matmul nor feeds it
// and yet cannot be the other matmul's value of the miscompile (before: the scale was a dispatch of its own).
// CHECK-LABEL: function @matmul_scale_by_fill:
// CHECK-SAME: 1 groups
// CHECK: {{^0 +contraction\+epilogue .* 0:fill 1:matmul 2:fill 3:generic$}}
func.func @matmul_scale_by_fill(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %hs = linalg.fill ins(%h : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %hs : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.mulf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}
