// Rule 'constant' (rejected): an op computing only from constants (rsqrt(var + eps) of a BatchNorm) is
// evaluated by IREE at compile time outside dispatch regions, so a pin with an op reading the
// function's input is an error. Accepted twin: constant.mlir.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=greedy --emit=plan
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --fusion=cost --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#ch = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
func.func @scale(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %var = arith.constant dense<4.0> : tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'constant'}}
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"], fusion_opt.fuse = "g"}
      ins(%var : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.rsqrt %a : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %r : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// An elementwise op of a splat computes only from constants too (fuzz seed 22255: IREE folded it to a splat
// inside the region, which then returned a splat and failed to compile).
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @half_of_splat(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %c = arith.constant 0.5 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%c : f32) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{rule 'constant': op 1 (linalg.generic) computes only from constants (IREE evaluates it at compile time outside dispatches) and op 2 does not}}
  %h = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%f : tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "g"}
      ins(%x, %h : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.maximumf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %h, %y : tensor<8x16xf32>, tensor<8x16xf32>
}
