// A select on linalg.index read by a stride-2 max pool through its window: fused into one dispatch, IREE 3.13
// computed it wrong (3.4); legality rule tile-fuse keeps them apart.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @main(%x: tensor<8x17x17xf32>) -> tensor<8x8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %half = arith.constant 0.5 : f32
  %c15 = arith.constant 15 : index
  %e = tensor.empty() : tensor<8x17x17xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x17x17xf32>) outs(%e : tensor<8x17x17xf32>) {
  ^bb0(%in: f32, %out: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %a = arith.cmpi uge, %h, %c15 : index
    %b = arith.cmpi uge, %w, %c15 : index
    %ab = arith.ori %a, %b : i1
    %r = arith.select %ab, %half, %in : f32
    linalg.yield %r : f32
  } -> tensor<8x17x17xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %eo = tensor.empty() : tensor<8x8x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%eo : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(c, h, w, kh, kw) -> (c, h * 2 + kh, w * 2 + kw)>, affine_map<(c, h, w, kh, kw) -> (kh, kw)>, affine_map<(c, h, w, kh, kw) -> (c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%m, %win : tensor<8x17x17xf32>, tensor<3x3xf32>) outs(%f : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %mx = arith.maximumf %out, %in : f32
    linalg.yield %mx : f32
  } -> tensor<8x8x8xf32>
  return %p : tensor<8x8x8xf32>
}
