"""Parsing MLIR text for the rewrite tests (imported by test modules; not a test module itself)."""
from __future__ import annotations

import numpy as np

from fusion_opt.analysis.describe import describe_function
from fusion_opt.ir import functions, ir, new_session


def parse_module(text: str):
    """(session, module): the session owns the context, so keep it alive as long as the module."""
    sess = new_session()
    with sess.context:
        module = ir.Module.parse(text)
    return sess, module


def describe_text(text: str):
    """(session, module, first function, its DataflowGraph, its ops)."""
    sess, module = parse_module(text)
    f = functions(module)[0]
    graph, ops = describe_function(f)
    return sess, module, f, graph, ops


def compiled_and_ort(model, **compile_kw):
    """`fo.compile_onnx(model)`, its output and onnxruntime's on one seeded input (a one-input float model)."""
    import fusion_opt as fo
    import onnxruntime as ort

    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    m = fo.compile_onnx(model, **compile_kw)
    return m, m(x), ref


def rewritten_like_ort(model, pattern: str, hits: int, tol: float = 1e-4):
    """`compiled_and_ort(model)` checked as every rewrite test checks it: `pattern` hit `hits` times, the output
    within `tol` (relative and absolute) of onnxruntime's, no group fell back; returns (model, output)."""
    m, got, ref = compiled_and_ort(model)
    assert dict(m.plan.patterns).get(pattern, 0) == hits
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    assert not m.fallbacks
    return m, got


def relu_pad_conv_mlir(c: int, f: int, h: int, first_conv: bool = False) -> str:
    """`@net`: [an NCHW 3x3 conv c -> f, pad 1, then] relu, zero pad by 1, a 3x3 conv f -> f, on an
    h x h image with unit batch; the weights are arguments (`%w1` only with `first_conv`)."""
    src, ch = ("%c1", f) if first_conv else ("%x", c)
    w1 = f"%w1: tensor<{f}x{c}x3x3xf32>, " if first_conv else ""
    head = (f"func.func @net(%x: tensor<1x{c}x{h}x{h}xf32>, {w1}"
            f"%w: tensor<{f}x{f}x3x3xf32>) -> tensor<1x{f}x{h}x{h}xf32> {{\n  %z = arith.constant 0.0 : f32\n"
            f"  %e = tensor.empty() : tensor<1x{f}x{h}x{h}xf32>\n"
            f"  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x{f}x{h}x{h}xf32>) -> tensor<1x{f}x{h}x{h}xf32>\n")
    conv1 = f"""  %p1 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  }} : tensor<1x{c}x{h}x{h}xf32> to tensor<1x{c}x{h + 2}x{h + 2}xf32>
  %c1 = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%p1, %w1 : tensor<1x{c}x{h + 2}x{h + 2}xf32>, tensor<{f}x{c}x3x3xf32>) outs(%f : tensor<1x{f}x{h}x{h}xf32>) -> tensor<1x{f}x{h}x{h}xf32>
""" if first_conv else ""
    rest = f"""  %r = linalg.generic {{indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins({src} : tensor<1x{ch}x{h}x{h}xf32>) outs(%e : tensor<1x{f}x{h}x{h}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  }} -> tensor<1x{f}x{h}x{h}xf32>
  %p2 = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  }} : tensor<1x{f}x{h}x{h}xf32> to tensor<1x{f}x{h + 2}x{h + 2}xf32>
  %c2 = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%p2, %w : tensor<1x{f}x{h + 2}x{h + 2}xf32>, tensor<{f}x{f}x3x3xf32>) outs(%f : tensor<1x{f}x{h}x{h}xf32>) -> tensor<1x{f}x{h}x{h}xf32>
  return %c2 : tensor<1x{f}x{h}x{h}xf32>
}}
"""
    return head + conv1 + rest


def conv3x3_ref(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """3x3 stride-1 conv of NCHW `a` padded by 1 (float64)."""
    p = np.pad(a.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    h = a.shape[2]
    out = np.zeros((1, w.shape[0], h, h))
    for i in range(3):
        for j in range(3):
            out[0] += np.einsum("fc,chw->fhw", w[:, :, i, j], p[0, :, i:i + h, j:j + h])
    return out


def matmul_relu_head(f: int, c: int, h: int, args: str, result: str, channels_last: bool = False) -> str:
    """`@f(%x: [c, h*h], %w1: [f, c], %b: [f]<args>) -> <result>` up to `%r`: a 1x1 conv's matmul + bias +
    ReLU, `[f, h*h]` (needs the caller's reshape and tail). `channels_last`: `%x: [h*h, c]`, `%w1: [c, f]`,
    `%r`: `[h*h, f]`."""
    hw = h * h
    xt, wt, rt = (f"{hw}x{c}", f"{c}x{f}", f"{hw}x{f}") if channels_last else (f"{c}x{hw}", f"{f}x{c}", f"{f}x{hw}")
    lhs, lhs_t, rhs, rhs_t, bias = ("%x", xt, "%w1", wt, "(b)") if channels_last else ("%w1", wt, "%x", xt, "(a)")
    return f"""
func.func @f(%x: tensor<{xt}xf32>, %w1: tensor<{wt}xf32>, %b: tensor<{f}xf32>{args}) -> {result} {{
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<{rt}xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<{rt}xf32>) -> tensor<{rt}xf32>
  %mm = linalg.matmul ins({lhs}, {rhs} : tensor<{lhs_t}xf32>, tensor<{rhs_t}xf32>) outs(%f2 : tensor<{rt}xf32>) -> tensor<{rt}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> {bias}>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]}} ins(%mm, %b : tensor<{rt}xf32>, tensor<{f}xf32>) outs(%e2 : tensor<{rt}xf32>) {{
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  }} -> tensor<{rt}xf32>
"""


def matmul_pad_conv_mlir(f: int, c: int, h: int) -> str:
    return matmul_relu_head(f, c, h, f", %w: tensor<{f}x{f}x3x3xf32>", f"tensor<1x{f}x{h}x{h}xf32>") + f"""\
  %ex = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, {f}, {h}, {h}] : tensor<{f}x{h * h}xf32> into tensor<1x{f}x{h}x{h}xf32>
""" + pad_conv3x3_tail(f, h, nhwc=False) + "}\n"


def pad_conv3x3_tail(f: int, h: int, nhwc: bool) -> str:
    """`%ex` (a [1, f, h, h] or, `nhwc`, [1, h, h, f] activation) padded by 1 and convolved 3x3 by `%w`
    into `%c`, returned: the end of the pad-into-conv test functions (needs `%z`, the 0.0 constant)."""
    p = h + 2
    act, padded = ((f"1x{h}x{h}x{f}", f"1x{p}x{p}x{f}") if nhwc else (f"1x{f}x{h}x{h}", f"1x{f}x{p}x{p}"))
    low, conv, filt = (("0, 1, 1, 0", "conv_2d_nhwc_hwcf", f"3x3x{f}x{f}") if nhwc
                       else ("0, 0, 1, 1", "conv_2d_nchw_fchw", f"{f}x{f}x3x3"))
    return f"""  %p = tensor.pad %ex low[{low}] high[{low}] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  }} : tensor<{act}xf32> to tensor<{padded}xf32>
  %e = tensor.empty() : tensor<{act}xf32>
  %fo = linalg.fill ins(%z : f32) outs(%e : tensor<{act}xf32>) -> tensor<{act}xf32>
  %c = linalg.{conv} {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%p, %w : tensor<{padded}xf32>, tensor<{filt}xf32>) outs(%fo : tensor<{act}xf32>) -> tensor<{act}xf32>
  return %c : tensor<{act}xf32>
"""


def matmul_pool_mlir(f: int, c: int, h: int, low: int, high: int, body: str, pad: str,
                     channels_last: bool = False) -> str:
    """`matmul_relu_head`, its `[f, h*h]` result split into rows, padded by `low`/`high` along rows and
    columns with `pad` and reduced over 3x3 windows at stride 1 by `body` (`arith.addf`/`arith.maximumf`).
    `channels_last`: `@f(%x: [h*h, c], %w1: [c, f], %b: [f])`, the matmul's `[h*h, f]` result split into
    `[h, h, f]`."""
    p, hw = h + low + high, h * h
    o = p - 2
    img, pimg, oimg = ((f"{h}x{h}x{f}", f"{p}x{p}x{f}", f"{o}x{o}x{f}") if channels_last else
                       (f"{f}x{h}x{h}", f"{f}x{p}x{p}", f"{f}x{o}x{o}"))
    if channels_last:
        head = matmul_relu_head(f, c, h, "", f"tensor<{oimg}xf32>", channels_last=True) + f"""\
  %ex = tensor.expand_shape %r [[0, 1], [2]] output_shape [{h}, {h}, {f}] : tensor<{hw}x{f}xf32> into tensor<{img}xf32>
"""
        lows, highs, win = f"{low}, {low}, 0", f"{high}, {high}, 0", "(d0 + d3, d1 + d4, d2)"
    else:
        head = matmul_relu_head(f, c, h, "", f"tensor<{oimg}xf32>") + f"""\
  %ex = tensor.expand_shape %r [[0], [1, 2]] output_shape [{f}, {h}, {h}] : tensor<{f}x{hw}xf32> into tensor<{img}xf32>
"""
        lows, highs, win = f"0, {low}, {low}", f"0, {high}, {high}", "(d0, d1 + d3, d2 + d4)"
    return head + f"""\
  %pv = arith.constant {pad} : f32
  %p = tensor.pad %ex low[{lows}] high[{highs}] {{
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %pv : f32
  }} : tensor<{img}xf32> to tensor<{pimg}xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %eo = tensor.empty() : tensor<{oimg}xf32>
  %init = linalg.fill ins(%pv : f32) outs(%eo : tensor<{oimg}xf32>) -> tensor<{oimg}xf32>
  %pool = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> {win}>,
      affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}}
      ins(%p, %win : tensor<{pimg}xf32>, tensor<3x3xf32>) outs(%init : tensor<{oimg}xf32>) {{
  ^bb0(%in: f32, %wn: f32, %acc: f32):
    %v = {body} %acc, %in : f32
    linalg.yield %v : f32
  }} -> tensor<{oimg}xf32>
  return %pool : tensor<{oimg}xf32>
}}
"""


def conv_relu_model(x_shape, weight, bn: bool = False, op_type: str = "Conv", **conv_attrs):
    """A one-input ONNX model `x -> Conv(weight, bias) [-> BatchNormalization] -> Relu` (random bias and BN
    parameters, seeded) for the conv rewrite tests; `conv_attrs` are the Conv node's attributes. `op_type`
    "ConvTranspose": its weight is `[C, F, k..]`."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    f = weight.shape[1 if op_type == "ConvTranspose" else 0]
    inits = [numpy_helper.from_array(weight.astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(f).astype(np.float32), "b")]
    nodes = [helper.make_node(op_type, ["x", "w", "b"], ["y"], **conv_attrs)]
    last = "y"
    if bn:
        for name, v in (("s", rng.uniform(0.5, 1.5, f)), ("o", rng.uniform(-0.2, 0.2, f)),
                        ("m", rng.uniform(-0.2, 0.2, f)), ("v", rng.uniform(0.5, 1.5, f))):
            inits.append(numpy_helper.from_array(v.astype(np.float32), name))
        nodes.append(helper.make_node("BatchNormalization", ["y", "s", "o", "m", "v"], ["n"]))
        last = "n"
    nodes.append(helper.make_node("Relu", [last], ["z"]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
