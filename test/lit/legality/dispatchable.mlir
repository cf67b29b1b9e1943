// Rule 'dispatchable' (accepted): a pin may hold any op that goes in a dispatch; tensor.extract_slice
// does, so the slice and its elementwise consumer end in one group. See dispatchable-illegal.mlir.
// RUN: fusion-opt %s --split-input-file --fusion=greedy --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=plan | filecheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: function @slice_exp:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:tensor.extract_slice 1:generic$}}
// CHECK-NOT: refused
func.func @slice_exp(%x: tensor<8x32xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = tensor.extract_slice %x[0, 0] [8, 16] [1, 1] {fusion_opt.fuse = "g"} : tensor<8x32xf32> to tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
