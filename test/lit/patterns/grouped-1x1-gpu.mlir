// A grouped 1x1 conv (ShuffleNet's, as our importer writes it: [G, C/G, H, W] by [G, F/G, C/G]) becomes
// one named batch matmul on a CPU, with IREE's llvm-cpu tiles as a compilation_info (they keep data
// tiling off it). On a GPU the conv stays (IREE's implicit GEMM: the rewrite measured 1.52x slower on
// ShuffleNet, H200) and nothing carries a CPU lowering_config, which fails IREE's GPU pipelines ("failed
// to build pass pipeline": ShuffleNet did not compile for sm_90 before); it compiles for sm_90.
// RUN: fusion-opt %s --emit=regions | filecheck %s --check-prefix=CPU
// RUN: fusion-opt %s --emit=regions --target=sm_90 | filecheck %s --check-prefix=GPU
// RUN: fusion-opt %s --emit=vmfb --target=sm_90 -o %t.vmfb
// CPU: #iree_cpu.lowering_config<cache_parallel = [1, 34, 56, 0]
// CPU: linalg.batch_matmul {compilation_info = #{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4x34x34xf32>, tensor<4x34x784xf32>)
// GPU-NOT: iree_cpu
// GPU-NOT: compilation_info
// GPU: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x34x28x28xf32>, tensor<4x34x34xf32>)
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @g(%arg0: tensor<1x136x28x28xf32>) -> tensor<1x136x28x28xf32> {
  %cst = arith.constant dense<0.5> : tensor<4x34x34xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %expanded = tensor.expand_shape %arg0 [[0], [1, 2], [3], [4]] output_shape [1, 4, 34, 28, 28] : tensor<1x136x28x28xf32> into tensor<1x4x34x28x28xf32>
  %collapsed = tensor.collapse_shape %expanded [[0, 1], [2], [3], [4]] : tensor<1x4x34x28x28xf32> into tensor<4x34x28x28xf32>
  %0 = tensor.empty() : tensor<4x34x28x28xf32>
  %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<4x34x28x28xf32>) -> tensor<4x34x28x28xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%collapsed, %cst : tensor<4x34x28x28xf32>, tensor<4x34x34xf32>) outs(%1 : tensor<4x34x28x28xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %4 = arith.mulf %in, %in_3 : f32
    %5 = arith.addf %out, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<4x34x28x28xf32>
  %3 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<4x34x28x28xf32>) outs(%0 : tensor<4x34x28x28xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.cmpf ugt, %in, %cst_0 : f32
    %5 = arith.select %4, %in, %cst_0 : f32
    linalg.yield %5 : f32
  } -> tensor<4x34x28x28xf32>
  %expanded_1 = tensor.expand_shape %3 [[0, 1], [2], [3], [4]] output_shape [1, 4, 34, 28, 28] : tensor<4x34x28x28xf32> into tensor<1x4x34x28x28xf32>
  %collapsed_2 = tensor.collapse_shape %expanded_1 [[0], [1, 2], [3], [4]] : tensor<1x4x34x28x28xf32> into tensor<1x136x28x28xf32>
  return %collapsed_2 : tensor<1x136x28x28xf32>
}
