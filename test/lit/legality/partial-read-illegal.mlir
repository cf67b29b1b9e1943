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

// -----

// Through an elementwise op: x - b is returned, its relu is read by a max pool whose window leaves the last
// column unread; tiled by the pool's space, the dispatch wrote x - b without that column (fuzz seed 24538).
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @returned_before_a_pool(%x: tensor<1x2x4x13xf32>, %b: tensor<13xf32>) -> (tensor<1x2x3x6xf32>, tensor<1x2x4x13xf32>) {
  %e = tensor.empty() : tensor<1x2x4x13xf32>
  %e1 = tensor.empty() : tensor<1x2x4x13xf32>
  // expected-error @+1 {{rule 'partial-read': op 0 is a result of the group but op 3 reads only part of op 1, which computes from it in the group}}
  %d = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %b : tensor<1x2x4x13xf32>, tensor<13xf32>) outs(%e : tensor<1x2x4x13xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<1x2x4x13xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%d : tensor<1x2x4x13xf32>) outs(%e1 : tensor<1x2x4x13xf32>) {
  ^bb0(%v: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %t = arith.maximumf %v, %z : f32
    linalg.yield %t : f32
  } -> tensor<1x2x4x13xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<1x2x3x6xf32>
  %f = linalg.fill {fusion_opt.fuse = "g"} ins(%ninf : f32) outs(%e2 : tensor<1x2x3x6xf32>) -> tensor<1x2x3x6xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>, fusion_opt.fuse = "g"}
      ins(%r, %w : tensor<1x2x4x13xf32>, tensor<2x2xf32>) outs(%f : tensor<1x2x3x6xf32>) -> tensor<1x2x3x6xf32>
  return %p, %d : tensor<1x2x3x6xf32>, tensor<1x2x4x13xf32>
}
