// Rule 'stacked-row' (rejected): the same InstanceNorm over 128x128 rows pinned into one region: IREE keeps
// a row of the returned centered input (64 KiB) on the stack and fails ("exceeded stack allocation limit of
// 32768 bytes ... Got 65536 bytes"; torchvision-style InstanceNorm after a ConvTranspose fell back).
// Accepted twin: stacked-row.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

func.func @instance_norm_rows_pinned(%x: tensor<8x128x128xf32>) -> (tensor<8x128x128xf32>, tensor<8xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 16384.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %ex = tensor.empty() : tensor<8x128x128xf32>
  // expected-error @+1 {{rule 'stacked-row'}}
  %f = linalg.fill {fusion_opt.fuse = "g"} ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%x : tensor<8x128x128xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.addf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %s : tensor<8x128x128xf32>, tensor<8xf32>) outs(%ex : tensor<8x128x128xf32>) {
  ^bb0(%i: f32, %m: f32, %o: f32):
    %mean = arith.divf %m, %n : f32
    %d = arith.subf %i, %mean : f32
    linalg.yield %d : f32
  } -> tensor<8x128x128xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%c : tensor<8x128x128xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %q = arith.mulf %i, %i : f32
    %a = arith.addf %q, %o : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %c, %v : tensor<8x128x128xf32>, tensor<8xf32>
}

// -----

// Rows of 32x32 only (4 KiB), but 64 of them, squared by a separate op: IREE fuses the square into the
// subtraction, tiles a workgroup by 8 rows and keeps all 8 (32768 bytes + 64: "Got 32832 bytes", a
// style-transfer net's InstanceNorms fell back). Squared in the reduction's body, the same group compiles.
func.func @instance_norm_many_rows_pinned(%x: tensor<64x32x32xf32>) -> (tensor<64x32x32xf32>, tensor<64xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %ex = tensor.empty() : tensor<64x32x32xf32>
  // expected-error @+1 {{rule 'stacked-row': op 2 is a result of the group and reduction 4 reads it: 8 row(s) of 4096 bytes on IREE's stack, 32832 (limit 32768)}}
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
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%c : tensor<64x32x32xf32>) outs(%ex : tensor<64x32x32xf32>) {
  ^bb0(%i: f32, %o: f32):
    %sq = arith.mulf %i, %i : f32
    linalg.yield %sq : f32
  } -> tensor<64x32x32xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"], fusion_opt.fuse = "g"}
      ins(%q : tensor<64x32x32xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.addf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  return %c, %v : tensor<64x32x32xf32>, tensor<64xf32>
}
