// Rule 'stacked-row' (accepted): InstanceNorm's mean and variance over 64x64 rows with the centered input
// returned too: one multi-output region (a row of the centered value, 16 KiB, fits IREE's 32 KiB stack).
// Rejected twin: stacked-row-illegal.mlir.
// RUN: fusion-opt %s --fusion=cost --emit=plan | filecheck %s

// CHECK-LABEL: function @instance_norm_rows:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .*multi-output .* 0:fill 1-3:generic$}}
// CHECK-NOT: refused
// CHECK-LABEL: function @instance_norm_many_rows_square_in_body:
// CHECK-NEXT: group
// CHECK-NEXT: {{^0 .* 0:fill 1-3:generic$}}
// CHECK-NOT: refused
func.func @instance_norm_rows(%x: tensor<8x64x64xf32>) -> (tensor<8x64x64xf32>, tensor<8xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 4096.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %ex = tensor.empty() : tensor<8x64x64xf32>

  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x64x64xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.addf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<8x64x64xf32>, tensor<8xf32>) outs(%ex : tensor<8x64x64xf32>) {
  ^bb0(%i: f32, %m: f32, %o: f32):
    %mean = arith.divf %m, %n : f32
    %d = arith.subf %i, %mean : f32
    linalg.yield %d : f32
  } -> tensor<8x64x64xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%c : tensor<8x64x64xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %q = arith.mulf %i, %i : f32
    %a = arith.addf %q, %o : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %c, %v : tensor<8x64x64xf32>, tensor<8xf32>
}

// 64 rows of 32x32 pinned into one region, the variance squaring inside its reduction: IREE keeps one 4 KiB
// row (this group compiles; with the square a separate op it keeps 8 rows and fails, stacked-row-illegal.mlir).
func.func @instance_norm_many_rows_square_in_body(%x: tensor<64x32x32xf32>) -> (tensor<64x32x32xf32>, tensor<64xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %ex = tensor.empty() : tensor<64x32x32xf32>
  %f = linalg.fill {fusion_opt.fuse = "g"} ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<64x32x32xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.addf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s : tensor<64x32x32xf32>, tensor<64xf32>) outs(%ex : tensor<64x32x32xf32>) {
  ^bb0(%i: f32, %m: f32, %o: f32):
    %mean = arith.divf %m, %n : f32
    %d = arith.subf %i, %mean : f32
    linalg.yield %d : f32
  } -> tensor<64x32x32xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%c : tensor<64x32x32xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %q = arith.mulf %i, %i : f32
    %a = arith.addf %q, %o : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  return %c, %v : tensor<64x32x32xf32>, tensor<64xf32>
}
