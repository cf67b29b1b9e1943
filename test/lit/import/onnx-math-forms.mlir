// Two ONNX math ops the importer lowers imprecisely, rewritten before import
// (importers/onnx_legalize._gelu_tanh, _asinh_odd):
// - Gelu approximate="tanh" (opset 20, torch's default exporter): the importer's constant is 0.797724,
//   the spec's sqrt(2/pi) is 0.7978846 (5e-5 off onnxruntime on O(1) activations).
// - Asinh: log(x + sqrt(x^2 + 1)) cancels for negative x (-inf at -1e4); computed on |x|, sign restored.
// RUN: fusion-opt %inputs/gelu_tanh.onnx --emit=linalg | filecheck %s --check-prefix=GELU
// RUN: fusion-opt %inputs/gelu_tanh.onnx --emit=plan | filecheck %s --check-prefix=GELU-PLAN
// RUN: fusion-opt %inputs/asinh.onnx --emit=linalg | filecheck %s --check-prefix=ASINH

// GELU-LABEL: func.func @gelu(
// GELU-DAG: arith.constant dense<0.797884583> : tensor<f32>
// GELU-DAG: arith.constant dense<4.471500e-02> : tensor<f32>
// GELU-NOT: 7.977240e-01
// GELU-NOT: math.fpowi
// GELU: math.tanh
// GELU: return

// One elementwise group, as the form older exporters write.
// GELU-PLAN: function @gelu: strategy cost, 1 groups, 0 ops outside groups
// GELU-PLAN: elementwise-chain 1

// ASINH-LABEL: func.func @asinh(
// ASINH: math.absf
// ASINH: math.sqrt
// ASINH: math.log
// ASINH: arith.cmpf olt
// ASINH: arith.select
// ASINH: arith.mulf
// ASINH: return
