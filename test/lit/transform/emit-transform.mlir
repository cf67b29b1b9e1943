// --emit=transform prints the tile-and-fuse script of the plan, built with the transform dialect's
// Python builders: one comment line per group (what is tiled, by what sizes, which ops are fused and
// why), then the script. Fed back through --transform=, it gives exactly the IR of --tile-and-fuse.
// Two functions in one module: op ids (fusion_opt.id) count over the whole module.
// RUN: fusion-opt %s --emit=transform | filecheck %s
// RUN: fusion-opt %s --emit=transform -o %t.script.mlir
// RUN: fusion-opt %s --transform=%t.script.mlir -o %t.replayed.mlir
// RUN: fusion-opt %s --tile-and-fuse -o %t.tiled.mlir
// RUN: diff %t.replayed.mlir %t.tiled.mlir
// RUN: filecheck %s --input-file=%t.replayed.mlir --check-prefix=IR

// CHECK: // @matmul_bias_relu group 0: tile op 2 (linalg.generic at {{.*}}emit-transform.mlir:[[# @LINE + 37]]:8) by [32, 0], fuse ops 1, 0 [matmul_tile^2 = 4096 output elements]
// CHECK-NEXT: // @diamond group 0: tile op 3 (linalg.generic at {{.*}}) by [4, 0], fuse ops 2, 1, 0
// CHECK-NEXT: module attributes {transform.with_named_sequence} {
// CHECK-NEXT: transform.named_sequence @__transform_main(%[[ROOT:.+]]: !transform.any_op {transform.readonly}) {
// CHECK-NEXT: %[[S:.+]] = transform.structured.match ops{["linalg.generic"]} attributes {fusion_opt.id = 2 : i64} in %[[ROOT]]
// CHECK-NEXT: %{{.+}}, %[[L0:.+]] = transform.structured.tile_using_forall %[[S]] tile_sizes [32, 0]
// CHECK-NEXT: %[[MM:.+]] = transform.structured.match ops{["linalg.matmul"]} attributes {fusion_opt.id = 1 : i64} in %[[ROOT]]
// CHECK-NEXT: %{{.+}}, %[[L1:.+]] = transform.structured.fuse_into_containing_op %[[MM]] into %[[L0]]
// CHECK-NEXT: %[[FILL:.+]] = transform.structured.match ops{["linalg.fill"]} attributes {fusion_opt.id = 0 : i64} in %[[ROOT]]
// CHECK-NEXT: transform.structured.fuse_into_containing_op %[[FILL]] into %[[L1]]
// Ids of @diamond start after the 3 ops of @matmul_bias_relu.
// CHECK-NEXT: %[[S2:.+]] = transform.structured.match ops{["linalg.generic"]} attributes {fusion_opt.id = 6 : i64}
// CHECK-NEXT: tile_using_forall %[[S2]] tile_sizes [4, 0]
// CHECK: fusion_opt.id = 5 : i64
// CHECK: fusion_opt.id = 4 : i64
// CHECK: fusion_opt.id = 3 : i64
// CHECK: %[[F:.+]] = transform.structured.match ops{["func.func"]} in %[[ROOT]]
// CHECK-NEXT: transform.apply_patterns to %[[F]] {
// CHECK-NEXT: transform.apply_patterns.canonicalization
// CHECK-NEXT: } : !transform.any_op
// CHECK-NEXT: transform.apply_cse to %[[F]]
// CHECK-NEXT: transform.yield

// The ids are gone from the result.
// IR-NOT: fusion_opt.id
// IR-LABEL: func.func @matmul_bias_relu(
// IR: scf.forall
// IR-LABEL: func.func @diamond(
// IR: scf.forall

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

#idd = affine_map<(d0, d1) -> (d0, d1)>
func.func @diamond(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %e = tensor.empty() : tensor<32x128xf32>
  %a = linalg.generic {indexing_maps = [#idd, #idd], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x128xf32>) outs(%e : tensor<32x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<32x128xf32>
  %n = linalg.generic {indexing_maps = [#idd, #idd], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x128xf32>) outs(%e : tensor<32x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.negf %v : f32
    linalg.yield %t : f32
  } -> tensor<32x128xf32>
  %s = linalg.generic {indexing_maps = [#idd, #idd], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x128xf32>) outs(%e : tensor<32x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.mulf %v, %v : f32
    linalg.yield %t : f32
  } -> tensor<32x128xf32>
  %r = linalg.generic {indexing_maps = [#idd, #idd, #idd], iterator_types = ["parallel", "parallel"]}
      ins(%n, %s : tensor<32x128xf32>, tensor<32x128xf32>) outs(%e : tensor<32x128xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}
