// Rule 'permuted-read' (accepted): a max over d0, its broadcast epilogue (x / (1 + |max|)), and a product
// of that epilogue with itself read in the same order: one reduction group.
// Rejected twin: permuted-read-illegal.mlir.
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

// CHECK-LABEL: function @max_scale_square:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .*reduction.* 0:fill 1-3:generic$}}
// CHECK-NOT: refused
func.func @max_scale_square(%x: tensor<5x32x1x5xf32>) -> tensor<5x32x1x5xf32> {
  %z = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x1x5xf32>
  %ex = tensor.empty() : tensor<5x32x1x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x1x5xf32>) -> tensor<32x1x5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>], iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<5x32x1x5xf32>) outs(%f : tensor<32x1x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.maximumf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<32x1x5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m : tensor<5x32x1x5xf32>, tensor<32x1x5xf32>) outs(%ex : tensor<5x32x1x5xf32>) {
  ^bb0(%i: f32, %r: f32, %o: f32):
    %ab = math.absf %r : f32
    %d = arith.addf %ab, %one : f32
    %q = arith.divf %i, %d : f32
    linalg.yield %q : f32
  } -> tensor<5x32x1x5xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %s : tensor<5x32x1x5xf32>, tensor<5x32x1x5xf32>) outs(%ex : tensor<5x32x1x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<5x32x1x5xf32>
  return %y : tensor<5x32x1x5xf32>
}
