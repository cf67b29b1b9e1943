// Rule 'strided-slice' (accepted): a stride-2 slice joins its consumer's group, reading its source
// from memory: of a function argument, and of exp's result when exp is a group of its own. Rejected
// twin: strided-slice-illegal.mlir (exp pinned with the slice).
// RUN: fusion-opt %s --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: function @strided_slice_of_an_argument:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:tensor.extract_slice 1:generic$}}
func.func @strided_slice_of_an_argument(%x: tensor<8x21x21xf32>) -> tensor<8x11x11xf32> {
  %e2 = tensor.empty() : tensor<8x11x11xf32>
  %s = tensor.extract_slice %x[0, 0, 0] [8, 11, 11] [1, 2, 2] : tensor<8x21x21xf32> to tensor<8x11x11xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x11x11xf32>) outs(%e2 : tensor<8x11x11xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8x11x11xf32>
  return %r : tensor<8x11x11xf32>
}

// CHECK-LABEL: function @strided_slice_of_exp:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:generic$}}
// CHECK-NEXT: {{^1 .* 1:tensor.extract_slice 2:generic$}}
// CHECK: [strided-slice] 0:generic{{.*}} -> 1:tensor.extract_slice{{.*}}: refused: illegal [strided-slice]: strided slice op 1 reads op 0 of the same group
func.func @strided_slice_of_exp(%x: tensor<8x21x21xf32>) -> tensor<8x11x11xf32> {
  %e = tensor.empty() : tensor<8x21x21xf32>
  %e2 = tensor.empty() : tensor<8x11x11xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x21x21xf32>) outs(%e : tensor<8x21x21xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8x21x21xf32>
  %s = tensor.extract_slice %y[0, 0, 0] [8, 11, 11] [1, 2, 2] : tensor<8x21x21xf32> to tensor<8x11x11xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x11x11xf32>) outs(%e2 : tensor<8x11x11xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8x11x11xf32>
  return %r : tensor<8x11x11xf32>
}
