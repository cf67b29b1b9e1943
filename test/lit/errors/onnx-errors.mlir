// Bad ONNX input: one line each, nonzero exit, no traceback, no partial output file.
// RUN: not fusion-opt %inputs/truncated.onnx -o %t.mlir 2>&1 | filecheck %s --check-prefix=TRUNC
// RUN: test ! -e %t.mlir
// RUN: not fusion-opt %inputs/dynamic_batch.onnx 2>&1 | filecheck %s --check-prefix=DYN
// RUN: fusion-opt %inputs/dynamic_batch.onnx --input-shape x=4x16 --emit=plan | filecheck %s --check-prefix=PINNED
// RUN: not fusion-opt %inputs/unsupported_op.onnx 2>&1 | filecheck %s --check-prefix=UNSUP
// RUN: not fusion-opt %inputs/does-not-exist.onnx 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not fusion-opt %inputs/shape_from_input.onnx -o %t.shape.mlir 2>&1 | filecheck %s --check-prefix=SHAPEIN
// RUN: test ! -e %t.shape.mlir
// RUN: not fusion-opt %inputs/axes_from_input.onnx -o %t.axes.mlir 2>&1 | filecheck %s --check-prefix=AXESIN
// RUN: test ! -e %t.axes.mlir

// TRUNC: truncated.onnx: error: cannot parse ONNX protobuf
// TRUNC-NOT: Traceback
// DYN: dynamic_batch.onnx: error: graph input 'x' has dynamic dimension 'N'
// DYN-NOT: Traceback
// PINNED: 1 groups
// UNSUP: unsupported_op.onnx: error: node 'mystery' is FancyOp, an op of domain 'com.example', not standard ONNX; it is not supported
// UNSUP-NOT: Traceback
// MISSING: does-not-exist.onnx: error: no such file
// SHAPEIN: shape_from_input.onnx: error: Expand (node 'grow') takes its output shape from graph input 'shape': shapes that depend on input values are not supported
// SHAPEIN-NOT: Traceback
// AXESIN: axes_from_input.onnx: error: ReduceMax (node 'peak') takes its axes from graph input 'axes': axes that depend on input values are not supported
// AXESIN-NOT: Traceback
