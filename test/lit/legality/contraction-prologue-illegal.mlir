// Rule 'contraction-prologue' (rejected): only a fill (accumulator) or a pad (convolution input)
// fuses into a contraction; an exp pinned with the matmul it feeds is an error, at the exp (the first
// pinned op). Accepted twin: contraction-prologue.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
// The exp feeds the matmul's left input.
func.func @exp_into_input(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'contraction-prologue'}}
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%x, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// The exp is the matmul's accumulator (in place of the fill).
func.func @exp_into_accumulator(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'contraction-prologue'}}
  %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%c : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %m = linalg.matmul {fusion_opt.fuse = "g"} ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// -----

// A conv over its input spread out with zeros (ONNX ConvTranspose as imported): the strided insert is a pad
// kind of op, but IREE 3.13 cannot compile it in the conv's dispatch (test/fuzz/iree/spread-conv.mlir).
func.func @spread_into_conv(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x15x15xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x17x17xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x17x17xf32>) -> tensor<1x3x17x17xf32>
  // expected-error @+1 {{rule 'contraction-prologue'}}
  %s = tensor.insert_slice %x into %z[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 2, 2] {fusion_opt.fuse = "g"} : tensor<1x3x8x8xf32> into tensor<1x3x17x17xf32>
  %o = tensor.empty() : tensor<1x2x15x15xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<1x2x15x15xf32>) -> tensor<1x2x15x15xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, fusion_opt.fuse = "g"}
      ins(%s, %w : tensor<1x3x17x17xf32>, tensor<2x3x3x3xf32>) outs(%f : tensor<1x2x15x15xf32>) -> tensor<1x2x15x15xf32>
  return %c : tensor<1x2x15x15xf32>
}
