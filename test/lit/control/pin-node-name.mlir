// A pin by ONNX node name: the importer gives a node's reshape the node's name too (`/Mul` names the
// generic and the collapse_shape after it). Pinning the name pins the ops that compute; the reshape,
// left to IREE outside dispatches, is not part of the pin (it was: rule 'dispatchable'). A name that
// matches only a reshape is still an error naming that rule.
// RUN: fusion-opt %s --fusion=none --fuse=/Add,/Mul --emit=plan | filecheck %s
// RUN: not fusion-opt %s --fusion=none --fuse=/Add,/Flat --emit=plan 2>&1 | filecheck %s --check-prefix=ERR
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @named(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %v, %v : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32> loc("/Add")
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.mulf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32> loc("/Mul")
  %c = tensor.collapse_shape %m [[0, 1]] : tensor<4x8xf32> into tensor<32xf32> loc("/Mul")
  %f = tensor.collapse_shape %y [[0, 1]] : tensor<4x8xf32> into tensor<32xf32> loc("/Flat")
  return %c, %f : tensor<32xf32>, tensor<32xf32>
}
// CHECK-LABEL: function @named:
// CHECK: {{^0 +.* 2 .*0-1:generic$}}
// ERR: rule 'dispatchable'
