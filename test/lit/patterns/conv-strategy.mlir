// Pattern conv-strategy: a convolution (as our importer writes it: a generic over [C, H, W] with window
// reads) is priced as it is and as a window copy + one 2-D matmul; the cost model takes im2col here
// (a 32-channel 3x3 conv on 30x30), and the matmul's epilogue (ReLU) follows it after IREE's reshape
// propagation. The cost mode data-tiles the matmul: its packed tiles have 8 columns on the reference
// host (AVX2). The window copy's 28-wide image rows are not whole tiles, so the copy is a region of
// ours (IREE packs it in a dispatch of its own); @conv_whole_rows' 32-wide rows are, and its copy is
// left to IREE, which packs it in the copy's own dispatch (handoff packed-copy).
// With the pattern disabled the conv stays one generic with window reads. `winograd` is disabled in
// every run: it takes these 3x3 stride-1 convs (patterns/winograd.mlir).
// RUN: fusion-opt %s --layout=nchw --emit=regions --disable-pattern=winograd | filecheck %s
// RUN: fusion-opt %s --layout=nchw --emit=plan --disable-pattern=winograd | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --layout=nchw --emit=regions --disable-pattern=conv-strategy --disable-pattern=winograd | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @conv
// CHECK: flow.dispatch.region
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : tensor<32x30x30xf32>) outs(%{{.*}} : tensor<32x3x3x28x28xf32>)
// CHECK: flow.return
// CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3, 4]] : tensor<32x3x3x28x28xf32> into tensor<288x784xf32>
// CHECK: flow.dispatch.region
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<32x288xf32>, tensor<288x784xf32>)
// CHECK: arith.maximumf
// CHECK: flow.return
// CHECK: tensor.expand_shape
// CHECK-LABEL: func.func @conv_whole_rows
// CHECK-NOT: flow.dispatch.region
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<32x34x34xf32>) outs(%{{.*}} : tensor<32x3x3x32x32xf32>)
// CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3, 4]] : tensor<32x3x3x32x32xf32> into tensor<288x1024xf32>
// CHECK: flow.dispatch.region
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<32x288xf32>, tensor<288x1024xf32>)
// PLAN-LABEL: function @conv:
// PLAN: note: conv-strategy: op {{[0-9]+}} ({{.*}}): im2col + matmul (predicted direct {{.*}}, im2col + matmul {{.*}})
// PLAN-NOT: left to IREE: a window copy
// PLAN: note: ops 0 (injective): kept: a window copy whose 28-wide image rows are not whole packed tiles (8 columns)
// PLAN: patterns: conv-strategy 1
// PLAN-LABEL: function @conv_whole_rows:
// PLAN: note: ops 0 (injective): left to IREE: a window copy feeding a data-tiled matmul through a reshape, its rows whole packed tiles
// PLAN: patterns: conv-strategy 1
// OFF-LABEL: func.func @conv
// OFF: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x30x30xf32>, tensor<32x32x3x3xf32>)
// OFF-NOT: tensor.collapse_shape
func.func @conv(%x: tensor<32x30x30xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<32x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x28x28xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<32x28x28xf32>) -> tensor<32x28x28xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 * 1 + d4, d2 * 1 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<32x30x30xf32>, tensor<32x32x3x3xf32>) outs(%i : tensor<32x28x28xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<32x28x28xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<32x28x28xf32>) outs(%e : tensor<32x28x28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<32x28x28xf32>
  return %r : tensor<32x28x28xf32>
}

func.func @conv_whole_rows(%x: tensor<32x34x34xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<32x32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32x32xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<32x32x32xf32>) -> tensor<32x32x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 * 1 + d4, d2 * 1 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%i : tensor<32x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<32x32x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<32x32x32xf32>) outs(%e : tensor<32x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.maximumf %a, %z : f32
    linalg.yield %t : f32
  } -> tensor<32x32x32xf32>
  return %r : tensor<32x32x32xf32>
}
