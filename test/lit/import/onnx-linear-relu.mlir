// Import of an ONNX file to Linalg on tensors, and its plan.
// RUN: fusion-opt %inputs/linear_relu.onnx --emit=linalg | filecheck %s --check-prefix=LINALG
// RUN: fusion-opt %inputs/linear_relu.onnx --emit=regions | filecheck %s --check-prefix=REGIONS
// RUN: fusion-opt %inputs/linear_relu.onnx --emit=json | filecheck %s --check-prefix=JSON
// RUN: fusion-opt %inputs/linear_relu.onnx --fusion=none --emit=regions | filecheck %s --check-prefix=NONE
// RUN: fusion-opt %inputs/linear_relu.onnx --fusion=iree --emit=regions | filecheck %s --check-prefix=IREE
// RUN: cat %inputs/linear_relu.onnx | fusion-opt - --emit=plan | filecheck %s --check-prefix=STDIN

// LINALG-LABEL: func.func @linear_relu(
// LINALG-SAME: tensor<4x16xf32>) -> tensor<4x8xf32>
// LINALG: linalg.fill
// LINALG: linalg.matmul
// LINALG: linalg.generic
// LINALG-NOT: flow.dispatch.region

// REGIONS-LABEL: func.func @linear_relu(
// REGIONS-COUNT-1: flow.dispatch.region
// REGIONS: linalg.matmul
// REGIONS: linalg.generic
// REGIONS: flow.return
// REGIONS-NOT: flow.dispatch.region

// JSON: "functions": [
// JSON: "name": "linear_relu"
// JSON: "kind": "contraction+epilogue"
// JSON: "ops": [
// JSON: "name": "linalg.matmul",
// JSON-NEXT: "loc": "fc",
// JSON-NEXT: "kind": "contraction"

// NONE-COUNT-3: flow.dispatch.region
// NONE-NOT: flow.dispatch.region

// IREE-NOT: flow.dispatch.region

// STDIN: 1 groups
