// An illegal pin is a one-line error naming the rule and the ops, at the first op it names.
// RUN: fusion-opt %s --verify-diagnostics --split-input-file --emit=plan

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// exp -> sum -> sub, and exp -> sub: pinning exp and sub without the sum between them would make
// the group both feed and consume the sum's dispatch.
func.func @cycle(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x128xf32>
  // expected-error @+1 {{rule 'cycle'}}
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "t"}
      ins(%x : tensor<32x128xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = math.exp %v : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sm = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<32x128xf32>) outs(%si : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"], fusion_opt.fuse = "t"}
      ins(%ex, %sm : tensor<32x128xf32>, tensor<32xf32>) outs(%e2 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.subf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// -----

// A pinned op that is also a barrier.
func.func @pinned_barrier(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill {fusion_opt.fuse = "t"} ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @+1 {{rule 'barrier'}}
  %m = linalg.matmul {fusion_opt.fuse = "t", fusion_opt.no_fuse} ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// A non-string tag.
func.func @bad_tag(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @+1 {{fusion_opt.fuse must be a string tag}}
  %m = linalg.matmul {fusion_opt.fuse = 3 : i32} ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
