// Pattern winograd: a 3x3 stride-1 conv (our importer's generic over [C, H, W], zero-filled
// accumulator) is priced against its best other strategy and, where cheaper, written as IREE's
// Winograd F(6x6, 3x3): the filter transform stays outside every region (IREE evaluates it at
// compile time on constant weights), the input transform, the batch matmul (with IREE's own tiles as
// a compilation_info, which keeps data tiling off it) and the output transform are one dispatch each,
// and the ReLU epilogue reads the output slice.
// RUN: fusion-opt %s --layout=nchw --emit=regions | filecheck %s
// RUN: fusion-opt %s --layout=nchw --emit=regions | filecheck %s --check-prefix=TILES
// RUN: fusion-opt %s --layout=nchw --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --layout=nchw --emit=plan --target=sm_80 | filecheck %s --check-prefix=GPU
// RUN: fusion-opt %s --layout=nchw --emit=regions --disable-pattern=winograd | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @conv
// CHECK: iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([2, 3]) ins(%{{.*}} : tensor<64x64x3x3xf32>)
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_linalg_ext.winograd.input_transform {{.*}} ins(%{{.*}} : tensor<1x64x30x30xf32>) outs(%{{.*}} : tensor<8x8x1x5x5x64xf32>)
// CHECK: flow.dispatch.region
// CHECK: linalg.batch_matmul {compilation_info = #{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<64x25x64xf32>, tensor<64x64x64xf32>)
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_linalg_ext.winograd.output_transform {{.*}} outs(%{{.*}} : tensor<1x64x30x30xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 64, 28, 28] [1, 1, 1, 1]
// CHECK: flow.dispatch.region
// CHECK: arith.maximumf
// The batch matmul's tiles: IREE's own choice for M = 25, N = 64.
// TILES: #config = #iree_cpu.lowering_config<cache_parallel = [1, 25, 64, 0], distribution = [1, 25, 64, 0], vector_common_parallel = [1, 8, 8, 0], vector_reduction = [0, 0, 0, 8]>
// TILES: #translation = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, {enable_loop_peeling}>
// PLAN: opaque {{.*}}winograd.input_transform
// PLAN: note: winograd: op 1 ({{.*}}): winograd (predicted {{direct|im2col \+ matmul}} {{.*}}, winograd {{.*}})
// PLAN: patterns: winograd 1
// On GPU targets the transforms are not offered (efficiency 0 until measured there).
// GPU: note: winograd: op 1 ({{.*}}): {{direct|im2col \+ matmul}} (predicted
// GPU-NOT: iree_linalg_ext.winograd.input_transform
// OFF-LABEL: func.func @conv
// OFF-NOT: iree_linalg_ext.winograd
// OFF: tensor<64x3x3x28x28xf32>
// OFF-NOT: iree_linalg_ext.winograd

// A strided conv and a conv accumulating into a non-zero init are not sites.
// PLAN-LABEL: function @not_sites
// PLAN-NOT: note: winograd
// PLAN: patterns:
// PLAN-NOT: winograd {{[0-9]}}
func.func @conv(%x: tensor<64x30x30xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<64x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x28x28xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<64x28x28xf32>) -> tensor<64x28x28xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<64x30x30xf32>, tensor<64x64x3x3xf32>) outs(%i : tensor<64x28x28xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<64x28x28xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<64x28x28xf32>) outs(%e : tensor<64x28x28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<64x28x28xf32>
  return %r : tensor<64x28x28xf32>
}

func.func @not_sites(%x: tensor<64x30x30xf32>, %w: tensor<64x64x3x3xf32>, %b: tensor<64x28x28xf32>) -> (tensor<64x14x14xf32>, tensor<64x28x28xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x14x14xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<64x14x14xf32>) -> tensor<64x14x14xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 * 2 + d4, d2 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<64x30x30xf32>, tensor<64x64x3x3xf32>) outs(%i : tensor<64x14x14xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<64x14x14xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<64x30x30xf32>, tensor<64x64x3x3xf32>) outs(%b : tensor<64x28x28xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<64x28x28xf32>
  return %s, %y : tensor<64x14x14xf32>, tensor<64x28x28xf32>
}
