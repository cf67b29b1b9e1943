// RUN: fusion-opt %s --fusion=greedy --emit=plan --split-input-file | filecheck %s
// RUN: fusion-opt %s --fusion=greedy --emit=regions --split-input-file | filecheck %s --check-prefix=IR

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// Diamond: %r reads the matmul directly and through the reduction %s. Fusing %r into the matmul's
// group would leave %s outside on a path matmul -> %s -> %r: a cycle between dispatches.
// CHECK-LABEL: function @diamond: strategy greedy, 3 groups
// CHECK: refused: {{.*}}cycle
// IR-LABEL: func.func @diamond(
// IR-COUNT-3: flow.dispatch.region
// IR-NOT: flow.dispatch.region
func.func @diamond(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<64x64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %s : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.subf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// A producer with two consumers that are roots of different groups is fused into all or none: none.
// CHECK-LABEL: function @multi_consumer: strategy greedy, 3 groups
// CHECK: refused: producer has 2 consumers in 2 different groups
// IR-LABEL: func.func @multi_consumer(
// IR: %[[X:.+]] = flow.dispatch.region
// IR: math.exp
// IR: flow.dispatch.region
// IR: ins(%[[X]] :
// IR: flow.dispatch.region
// IR: ins(%[[X]] :
func.func @multi_consumer(%x: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<64x64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %mx = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<64x64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.maximumf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %sum, %mx : tensor<64xf32>, tensor<64xf32>
}
