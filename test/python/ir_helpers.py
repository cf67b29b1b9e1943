"""Parsing MLIR text for the rewrite tests (imported by test modules; not a test module itself)."""
from __future__ import annotations

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
