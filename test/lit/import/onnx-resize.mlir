// ONNX Resize imported as one pass per resized axis (importers/onnx_legalize._resize_separable): a
// gather of constant source indices, no per-element coordinate arithmetic. Linear: two gathers per
// axis, each times a constant weight column, added; the innermost axis first. Nearest with a whole
// factor: each element repeated, a broadcast (no gather at all).
// RUN: fusion-opt %inputs/resize_linear.onnx --emit=linalg | filecheck %s --check-prefix=LINEAR
// RUN: fusion-opt %inputs/resize_linear.onnx --emit=plan | filecheck %s --check-prefix=PLAN
// RUN: fusion-opt %inputs/resize_nearest.onnx --emit=linalg | filecheck %s --check-prefix=NEAREST

// LINEAR-LABEL: func.func @resize(
// LINEAR-DAG: arith.constant dense<[0, 0, 0, 0, 1, 1, 2, 2, 2, 3]> : tensor<10xi64>
// LINEAR-DAG: arith.constant dense<[1, 1, 1, 1, 2, 2, 3, 3, 3, 3]> : tensor<10xi64>
// LINEAR-DAG: arith.constant dense<[0, 0, 0, 1, 1, 2]> : tensor<6xi64>
// LINEAR-NOT: math.floor
// LINEAR-NOT: arith.divf
// LINEAR: tensor.extract %collapsed[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x3x4xf32>
// LINEAR: arith.mulf
// LINEAR: tensor.extract %collapsed[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x3x4xf32>
// LINEAR: arith.mulf
// LINEAR: arith.addf
// LINEAR: tensor.extract %{{.*}} : tensor<2x3x10xf32>
// LINEAR: tensor.extract %{{.*}} : tensor<2x3x10xf32>
// LINEAR-NOT: tensor.extract
// LINEAR: return

// One group per pass: a pass gathers from the whole result of the one before (rule captured-read).
// PLAN: function @resize: strategy cost, 2 groups
// PLAN: [captured-read]

// NEAREST-LABEL: func.func @resize(
// NEAREST-NOT: tensor.extract
// NEAREST: linalg.generic {{.*}} ins(%collapsed : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3x4x2xf32>)
// NEAREST: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<2x3x4x2xf32> into tensor<2x3x8xf32>
// NEAREST: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x2x8xf32>)
// NEAREST-NOT: tensor.extract
// NEAREST: return
