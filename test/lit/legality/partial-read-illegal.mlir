// Rule 'partial-read' (rejected): relu's result is returned, and the strided copy in the same pin reads
// only every other element of it: tiled by the copy's space, the dispatch would write relu in part
// (wrong ResNet-50 numbers before this rule). Accepted twin: partial-read.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#s2 = affine_map<(d0, d1) -> (d0, d1 * 2)>
func.func @relu_and_strided_copy(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{rule 'partial-read'}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %z : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %c = linalg.generic {indexing_maps = [#s2, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%r : tensor<8x16xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  return %r, %c : tensor<8x16xf32>, tensor<8x8xf32>
}

// -----

// Through a slice: the tanh is returned and a consumer in the pin reads ten of its 31 elements through
// a tensor.extract_slice: IREE refuses the region ("write affecting operations on global resources are
// restricted to workgroup distributed contexts"; fuzz seed 15080).
#i1 = affine_map<(d0) -> (d0)>
func.func @sigmoid_and_a_slice_of_it(%x: tensor<31xf32>, %y: tensor<10xf32>) -> (tensor<31xf32>, tensor<10xf32>) {
  %e = tensor.empty() : tensor<31xf32>
  %e2 = tensor.empty() : tensor<10xf32>
  // expected-error @+1 {{rule 'partial-read'}}
  %s = linalg.generic {indexing_maps = [#i1, #i1], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<31xf32>) outs(%e : tensor<31xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<31xf32>
  %p = tensor.extract_slice %s[12] [10] [1] {fusion_opt.fuse = "g"} : tensor<31xf32> to tensor<10xf32>
  %m = linalg.generic {indexing_maps = [#i1, #i1, #i1], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%p, %y : tensor<10xf32>, tensor<10xf32>) outs(%e2 : tensor<10xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.mulf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<10xf32>
  return %s, %m : tensor<31xf32>, tensor<10xf32>
}
