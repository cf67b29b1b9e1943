// Hand-written .mlir with named ops is normalized like the ONNX path (importers/mlir_normalize.py): a
// linalg.transpose read by a batch matmul is folded into its map, linalg.map/linalg.broadcast become
// generics and a broadcast bias is read through its consumer's map, so the epilogue joins its matmul.
// RUN: fusion-opt %s --split-input-file --emit=plan | filecheck %s
// RUN: fusion-opt %s --split-input-file --emit=linalg | filecheck %s --check-prefix=IR

// CHECK-LABEL: function @attention:
// CHECK-SAME: 3 groups
// CHECK-NOT: transpose
// CHECK: {{^0 +contraction\+epilogue .* 1:batch_matmul}}
// CHECK-NOT: transpose
// CHECK: {{^1 +opaque .* 3:softmax}}
// CHECK: {{^2 +contraction .* 5:batch_matmul}}
// IR-LABEL: func.func @attention(
// IR-NOT: linalg.transpose
// IR: linalg.batch_matmul indexing_maps
func.func @attention(%q: tensor<4x64x32xf32>, %k: tensor<4x64x32xf32>, %v: tensor<4x64x32xf32>) -> tensor<4x64x32xf32> {
  %cst = arith.constant 0.0 : f32
  %scale = arith.constant 0.17677669 : f32
  %et = tensor.empty() : tensor<4x32x64xf32>
  %kt = linalg.transpose ins(%k : tensor<4x64x32xf32>) outs(%et : tensor<4x32x64xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<4x64x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x64x32xf32>, tensor<4x32x64xf32>) outs(%f : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %sc = linalg.map ins(%s : tensor<4x64x64xf32>) outs(%e : tensor<4x64x64xf32>) (%in: f32, %out: f32) {
    %m = arith.mulf %in, %scale : f32
    linalg.yield %m : f32
  }
  %sm = linalg.softmax dimension(2) ins(%sc : tensor<4x64x64xf32>) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %eo = tensor.empty() : tensor<4x64x32xf32>
  %fo = linalg.fill ins(%cst : f32) outs(%eo : tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
  %o = linalg.batch_matmul ins(%sm, %v : tensor<4x64x64xf32>, tensor<4x64x32xf32>) outs(%fo : tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
  return %o : tensor<4x64x32xf32>
}

// -----

// CHECK-LABEL: function @linear_bias_exp:
// CHECK-SAME: 2 groups
// CHECK: {{^0 +contraction\+epilogue +4 .* 0:fill 1:matmul 2-3:generic$}}
// CHECK: {{^1 +opaque .* 4:softmax}}
// IR-LABEL: func.func @linear_bias_exp(
// IR-NOT: linalg.broadcast
// IR-NOT: linalg.map
// IR: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}]
// IR-SAME: ins(%{{.+}}, %arg2 : tensor<64x256xf32>, tensor<256xf32>)
func.func @linear_bias_exp(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>, %bias: tensor<256xf32>) -> tensor<64x256xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  %bb = linalg.broadcast ins(%bias : tensor<256xf32>) outs(%e : tensor<64x256xf32>) dimensions = [0]
  %s = linalg.map { arith.addf } ins(%mm, %bb : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>)
  %x = linalg.map { math.exp } ins(%s : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>)
  %sm = linalg.softmax dimension(1) ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %sm : tensor<64x256xf32>
}

// -----

// A pinned or barred op is left as written (its pin survives; here the barred broadcast keeps its own group).
// CHECK-LABEL: function @barred_broadcast:
// CHECK-SAME: 2 groups
// CHECK: {{^0 +broadcast .* 0:generic$}}
// CHECK: {{^1 +elementwise .* 1:generic$}}
// IR-LABEL: func.func @barred_broadcast(
// IR: attrs =  {fusion_opt.no_fuse}
func.func @barred_broadcast(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<8x16xf32>) dimensions = [0] {fusion_opt.no_fuse}
  %m = linalg.map { arith.addf } ins(%x, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>)
  return %m : tensor<8x16xf32>
}
