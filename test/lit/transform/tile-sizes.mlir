// --tile-sizes=cost: the root of each contraction group gets a compilation_info (lowering config +
// pipeline) chosen from the target description; IREE's own choice is kept otherwise (default
// --tile-sizes=iree). With --emit=vmfb the compile is checked to have used it (test_lowering.py
// checks a dropped one is an error). GPU targets are compile-only on this machine.
// RUN: fusion-opt %s --tile-sizes=cost | filecheck %s --check-prefix=CPU
// RUN: fusion-opt %s --tile-sizes=cost --target=sm_80 | filecheck %s --check-prefix=CUDA
// RUN: fusion-opt %s --tile-sizes=cost --target=vulkan | filecheck %s --check-prefix=SPIRV
// RUN: fusion-opt %s | filecheck %s --check-prefix=DEFAULT
// RUN: fusion-opt %s --tile-sizes=cost --emit=vmfb -o %t.vmfb
// RUN: test -s %t.vmfb

// CPU-DAG: #[[CFG:.+]] = #iree_cpu.lowering_config<distribution = [64, 48, 0], vector_common_parallel = [8, 8, 0], vector_reduction = [0, 0, 1]>
// CPU-DAG: #[[TI:.+]] = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>
// CPU-DAG: #[[CI:.+]] = #iree_codegen.compilation_info<lowering_config = #[[CFG]], translation_info = #[[TI]]>
// CPU: flow.dispatch.region
// CPU: linalg.matmul {compilation_info = #[[CI]]}
// CPU-NOT: compilation_info
// CUDA-DAG: #iree_gpu.lowering_config<{reduction = [0, 0, 16], thread = [1, 4, 0], workgroup = [16, 48, 0]}>
// CUDA-DAG: #iree_gpu.pipeline<TileAndFuse> workgroup_size = [12, 16, 1] subgroup_size = 32
// SPIRV-DAG: #iree_codegen.lowering_config<tile_sizes = {{\[}}[32, 32, 16]]>
// SPIRV-DAG: #iree_gpu.spirv_pipeline<MatmulPromoteVectorize> workgroup_size = [8, 32, 1]
// DEFAULT-NOT: compilation_info

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu_2ops(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>, %bias: tensor<96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.maximumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
