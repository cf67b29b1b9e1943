// Rule 'stacked-row' (rejected): the same InstanceNorm over 128x128 rows pinned into one region: IREE keeps
// a row of the returned centered input (64 KiB) on the stack and fails ("exceeded stack allocation limit of
// 32768 bytes ... Got 65536 bytes"; torchvision-style InstanceNorm after a ConvTranspose fell back).
// Accepted twin: stacked-row.mlir.
// RUN: fusion-opt %s --verify-diagnostics --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --fusion=cost --emit=plan

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
