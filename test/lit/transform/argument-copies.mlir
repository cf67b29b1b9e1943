// An op that updates a function argument in place (a reduction accumulating into it, an insert into it)
// works on a linalg.copy of it, in a region of its own: IREE 3.13 ties such a dispatch's result to the
// argument's buffer and a returned argument came back holding the op's result (fuzz seed 20449). A float
// multiply-accumulate (@accumulate) accumulates into zeros and adds the argument in an epilogue instead
// (a copy was packed for data tiling in its own region, which failed: fuzz seed 21220).
// An init the payload never reads (%c of @overwrite) keeps the argument, and so does one the function does
// not return (@not_returned); --fusion=iree stays IREE's own.
// RUN: fusion-opt %s --split-input-file --fusion=none --emit=regions | filecheck %s
// RUN: fusion-opt %s --split-input-file --fusion=cost --emit=regions | filecheck %s --check-prefixes=CHECK,COST
// RUN: fusion-opt %s --split-input-file --fusion=iree --emit=regions | filecheck %s --check-prefix=IREE
// RUN: fusion-opt %s --split-input-file --emit=plan | filecheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME: %[[A:.+]]: tensor<9x13xf32>, %[[B:.+]]: tensor<13x9xf32>, %[[C:.+]]: tensor<9x9xf32>)
// CHECK-NOT: linalg.copy
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%{{.+}} : tensor<9x9xf32>)
// COST-NEXT: linalg.generic {{.*}} ins(%{{.+}}, %[[C]] : tensor<9x9xf32>, tensor<9x9xf32>)
// CHECK: arith.addf
// CHECK: return %[[C]], %{{.+}}
// IREE-LABEL: func.func @accumulate(
// IREE-NOT: linalg.fill
// PLAN-LABEL: function @accumulate
// PLAN: 0 contraction+epilogue 3 {{.*}} 0:fill 1:matmul 2:generic
// PLAN: note: 1 in-place update(s) of a function argument given a copy to update
func.func @accumulate(%a: tensor<9x13xf32>, %b: tensor<13x9xf32>, %c: tensor<9x9xf32>) -> (tensor<9x9xf32>, tensor<9x9xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<9x13xf32>, tensor<13x9xf32>) outs(%c : tensor<9x9xf32>) -> tensor<9x9xf32>
  return %c, %r : tensor<9x9xf32>, tensor<9x9xf32>
}

// -----

// CHECK-LABEL: func.func @running_max(
// CHECK-SAME: %[[X:.+]]: tensor<9x13xf32>, %[[M:.+]]: tensor<9xf32>)
// CHECK: flow.dispatch.region
// CHECK-NEXT: %[[COPY:.+]] = linalg.copy {{.*}}ins(%[[M]] : tensor<9xf32>)
// COST-NEXT: linalg.generic {{.*}} ins(%[[X]] : tensor<9x13xf32>) outs(%[[COPY]] : tensor<9xf32>)
// CHECK: arith.maximumf
// CHECK: return %[[M]], %{{.+}}
// PLAN-LABEL: function @running_max
// PLAN: note: 1 in-place update(s)
func.func @running_max(%x: tensor<9x13xf32>, %m: tensor<9xf32>) -> (tensor<9xf32>, tensor<9xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<9x13xf32>) outs(%m : tensor<9xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.maximumf %v, %o : f32
    linalg.yield %t : f32
  } -> tensor<9xf32>
  return %m, %r : tensor<9xf32>, tensor<9xf32>
}

// -----

// CHECK-LABEL: func.func @insert(
// CHECK-SAME: %[[X:.+]]: tensor<3x9xf32>, %[[D:.+]]: tensor<9x9xf32>)
// CHECK: %[[COPY:.+]] = flow.dispatch.region
// CHECK-NEXT: linalg.copy {{.*}}ins(%[[D]] : tensor<9x9xf32>)
// CHECK: tensor.insert_slice %[[X]] into %[[COPY]][2, 0] [3, 9] [1, 1]
// PLAN-LABEL: function @insert
// PLAN: note: 1 in-place update(s)
func.func @insert(%x: tensor<3x9xf32>, %d: tensor<9x9xf32>) -> (tensor<9x9xf32>, tensor<9x9xf32>) {
  %r = tensor.insert_slice %x into %d[2, 0] [3, 9] [1, 1] : tensor<3x9xf32> into tensor<9x9xf32>
  return %d, %r : tensor<9x9xf32>, tensor<9x9xf32>
}

// -----

#m = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @overwrite(
// CHECK-NOT: linalg.copy
// PLAN-LABEL: function @overwrite
// PLAN-NOT: in-place update
func.func @overwrite(%a: tensor<9x9xf32>, %c: tensor<9x9xf32>) -> (tensor<9x9xf32>, tensor<9x9xf32>) {
  %r = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<9x9xf32>) outs(%c : tensor<9x9xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<9x9xf32>
  return %c, %r : tensor<9x9xf32>, tensor<9x9xf32>
}

// -----

// Not returned: the matmul keeps accumulating into the argument (MLIR's test idiom), as IREE's own compile.
// CHECK-LABEL: func.func @not_returned(
// CHECK-SAME: %[[C:[^:]+]]: tensor<9x9xf32>)
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul ins({{.*}}) outs(%[[C]] : tensor<9x9xf32>)
// PLAN-LABEL: function @not_returned
// PLAN-NOT: in-place update
func.func @not_returned(%a: tensor<9x13xf32>, %b: tensor<13x9xf32>, %c: tensor<9x9xf32>) -> tensor<9x9xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<9x13xf32>, tensor<13x9xf32>) outs(%c : tensor<9x9xf32>) -> tensor<9x9xf32>
  return %r : tensor<9x9xf32>
}
