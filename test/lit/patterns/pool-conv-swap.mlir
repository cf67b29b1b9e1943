// Pattern pool-conv-swap: an average pool (zero pad, 3x3 sum at stride 1, divided by the count of taps
// that read the input) projected by a 1x1 conv to fewer channels: the conv runs first on the unpadded
// input and the pad and pool see its 8 channels instead of 16. The bias and relu stay after the pool.
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy | filecheck %s
// RUN: fusion-opt %s --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %s --emit=regions --disable-pattern=conv-strategy --disable-pattern=pool-conv-swap | filecheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @pool_proj
// The conv's region stores into the padded buffer itself (the taps read the pad's interior, so IREE would
// copy it whoever formed the conv: handoff `padded` keeps the group, transforms/padded_results.py).
// CHECK: %[[P:.+]] = flow.dispatch.region -> (tensor<8x8x8xf32>)
// CHECK: %[[C:.+]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<16x6x6xf32>, tensor<8x16xf32>)
// CHECK: tensor.insert_slice %[[C]] into %{{.+}}[0, 1, 1] [8, 6, 6] [1, 1, 1] : tensor<8x6x6xf32> into tensor<8x8x8xf32>
// CHECK: flow.dispatch.region -> (tensor<8x6x6xf32>)
// CHECK-COUNT-9: tensor.extract_slice %[[P]]
// CHECK: arith.divf
// CHECK: arith.addf
// CHECK: arith.cmpf ugt
// PLAN: patterns: {{.*}}pool-conv-swap 1
// OFF-LABEL: func.func @pool_proj
// OFF: tensor.pad %arg0 low[0, 1, 1] high[0, 1, 1]
// OFF: tensor<16x6x6xf32> to tensor<16x8x8xf32>
// OFF-NOT: tensor.pad
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @pool_proj(%x: tensor<16x6x6xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<8x6x6xf32> {
  %z = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c0 = arith.constant 0 : i64
  %c6 = arith.constant 6 : i64
  %c7 = arith.constant 7 : i64
  %win = tensor.empty() : tensor<3x3xf32>
  %p = tensor.pad %x low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<16x6x6xf32> to tensor<16x8x8xf32>
  %e = tensor.empty() : tensor<16x6x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x6x6xf32>) -> tensor<16x6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %win : tensor<16x8x8xf32>, tensor<3x3xf32>) outs(%f : tensor<16x6x6xf32>) {
  ^bb0(%in: f32, %u: f32, %o: f32):
    %a = arith.addf %o, %in : f32
    linalg.yield %a : f32
  } -> tensor<16x6x6xf32>
  // divide by the taps inside the image: (min(y + 2, 7), 6) - (y - 1) - max(1 - y, 0), per axis
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<16x6x6xf32>) outs(%e : tensor<16x6x6xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = linalg.index 1 : index
    %yi = arith.index_cast %y : index to i64
    %y0 = arith.subi %yi, %c1 : i64
    %y1 = arith.addi %yi, %c2 : i64
    %y2 = arith.minsi %y1, %c7 : i64
    %y3 = arith.minsi %y2, %c6 : i64
    %y4 = arith.subi %c1, %yi : i64
    %y5 = arith.maxsi %y4, %c0 : i64
    %y6 = arith.subi %y3, %y0 : i64
    %ny = arith.subi %y6, %y5 : i64
    %xx = linalg.index 2 : index
    %xi = arith.index_cast %xx : index to i64
    %x0 = arith.subi %xi, %c1 : i64
    %x1 = arith.addi %xi, %c2 : i64
    %x2 = arith.minsi %x1, %c7 : i64
    %x3 = arith.minsi %x2, %c6 : i64
    %x4 = arith.subi %c1, %xi : i64
    %x5 = arith.maxsi %x4, %c0 : i64
    %x6 = arith.subi %x3, %x0 : i64
    %nx = arith.subi %x6, %x5 : i64
    %n = arith.muli %ny, %nx : i64
    %nf = arith.sitofp %n : i64 to f32
    %d = arith.divf %in, %nf : f32
    linalg.yield %d : f32
  } -> tensor<16x6x6xf32>
  %eo = tensor.empty() : tensor<8x6x6xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<8x6x6xf32>) -> tensor<8x6x6xf32>
  %conv = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>,
                                           affine_map<(d0, d1, d2, d3) -> (d0, d3)>,
                                           affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%avg, %w : tensor<16x6x6xf32>, tensor<8x16xf32>) outs(%fo : tensor<8x6x6xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<8x6x6xf32>
  %biased = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1, d2) -> (d0)>, #id],
      iterator_types = ["parallel", "parallel", "parallel"]} ins(%conv, %b : tensor<8x6x6xf32>, tensor<8xf32>)
      outs(%eo : tensor<8x6x6xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x6x6xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%biased : tensor<8x6x6xf32>) outs(%eo : tensor<8x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.cmpf ugt, %a, %z : f32
    %r = arith.select %c, %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x6x6xf32>
  return %relu : tensor<8x6x6xf32>
}
