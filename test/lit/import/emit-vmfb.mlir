// --emit=vmfb writes an IREE module exactly at -o; without -o it is an error, and nothing is written.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fusion-opt %inputs/linear_relu.onnx --emit=vmfb -o %t/model.vmfb
// RUN: test -s %t/model.vmfb
// RUN: iree-run-module --module=%t/model.vmfb --input=4x16xf32=1 | filecheck %s --check-prefix=EXEC
// RUN: not fusion-opt %inputs/linear_relu.onnx --emit=vmfb 2>&1 | filecheck %s --check-prefix=NOOUT
// RUN: not fusion-opt %inputs/truncated.onnx --emit=vmfb -o %t/bad.vmfb 2>&1 | filecheck %s --check-prefix=BAD
// RUN: test ! -e %t/bad.vmfb
// Without --emit, an output named *.vmfb gets the module (not IR text); any other name gets the regions.
// RUN: fusion-opt %inputs/linear_relu.onnx -o %t/implied.vmfb
// RUN: iree-run-module --module=%t/implied.vmfb --input=4x16xf32=1 | filecheck %s --check-prefix=EXEC
// RUN: fusion-opt %inputs/linear_relu.onnx -o %t/regions.mlir && filecheck %s --check-prefix=TEXT < %t/regions.mlir

// EXEC-LABEL: EXEC @linear_relu
// EXEC: 4x8xf32=
// TEXT: flow.dispatch.region
// NOOUT: error: --emit=vmfb writes a binary module: give an output file with -o
// BAD: truncated.onnx: error: cannot parse ONNX protobuf
