// Rule 'lone-pad' (rejected): the same relu -> pad -> conv, but the pin holds the relu and the pad
// without the convolution the pad feeds. Accepted twin: lone-pad.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

func.func @relu_pad(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  // expected-error @+1 {{rule 'lone-pad'}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %zero : f32
    linalg.yield %t : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } {fusion_opt.fuse = "g"} : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p, %w : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}

// -----

// A pad pinned with an elementwise consumer (no convolution at all).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @pad_exp(%x: tensor<8x16xf32>) -> tensor<10x18xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x18xf32>
  // expected-error @+1 {{rule 'lone-pad'}}
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %zero : f32
  } {fusion_opt.fuse = "g"} : tensor<8x16xf32> to tensor<10x18xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%p : tensor<10x18xf32>) outs(%e : tensor<10x18xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<10x18xf32>
  return %r : tensor<10x18xf32>
}
