// A window copy whose output row is longer than IREE's 64-element distribution tile (a 7x7 stride-2
// stem over 224x224: rows of 109, a prime) gets its own tiles: one input channel, the whole 7x7
// window, one output row at a time, the whole row, one vector of the target's f32 lanes, peeled (rewrites/im2col.py,
// `window_tiles`; IREE's own choice, workgroups [3, 7, 7, 1, 1] and scalar code, ran 7.5x slower in
// ZFNet-512). A 3x3 stride-1 conv on 30x30 (rows of 28) keeps IREE's tiles. GPU targets get none.
// RUN: fusion-opt %s --split-input-file --layout=nchw --emit=regions --disable-pattern=winograd | filecheck %s
// RUN: fusion-opt %s --split-input-file --layout=nchw --emit=regions --disable-pattern=winograd --target=sm_90 | filecheck %s --check-prefix=GPU
// CHECK: #[[CFG:.+]] = #iree_cpu.lowering_config<distribution = [1, 7, 7, 1, 109], vector_common_parallel = [1, 1, 1, 1, {{8|16}}]>
// CHECK: #[[INFO:.+]] = #iree_codegen.compilation_info<lowering_config = #[[CFG]], translation_info = #{{.+}}>
// CHECK-LABEL: func.func @stem
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3x224x224xf32>) outs(%{{.*}} : tensor<3x7x7x109x109xf32>) attrs = {compilation_info = #[[INFO]]}
// GPU-LABEL: func.func @stem
// GPU-NOT: compilation_info
func.func @stem(%x: tensor<3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<64x109x109xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x109x109xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<64x109x109xf32>) -> tensor<64x109x109xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 * 2 + d4, d2 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<3x224x224xf32>, tensor<64x3x7x7xf32>) outs(%i : tensor<64x109x109xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<64x109x109xf32>
  return %y : tensor<64x109x109xf32>
}

// -----

// CHECK-LABEL: func.func @short_rows
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<32x30x30xf32>) outs(%{{.*}} : tensor<32x3x3x28x28xf32>) {{[{]$}}
func.func @short_rows(%x: tensor<32x30x30xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<32x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x28x28xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<32x28x28xf32>) -> tensor<32x28x28xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<32x30x30xf32>, tensor<32x32x3x3xf32>) outs(%i : tensor<32x28x28xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<32x28x28xf32>
  return %y : tensor<32x28x28xf32>
}
