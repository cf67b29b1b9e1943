"""Single-op ONNX models over a wide input range: ours vs onnxruntime vs a float64 numpy reference.

Run from the repository root: `.venv/bin/python tools/sweeps/unary_precision.py` (docs/reliability.md, op sweeps)."""
import sys, numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings
from onnx import helper as h, TensorProto as T
warnings.filterwarnings("ignore")
N = 2048
def lin(a, b): return np.linspace(a, b, N).astype(np.float32)
CASES = [  # (op, attrs, x range, opset)
 ("Gelu", dict(approximate="tanh"), (-8, 8), 20), ("Gelu", {}, (-8, 8), 20), ("Erf", {}, (-4, 4), 17),
 ("Tanh", {}, (-10, 10), 17), ("Sigmoid", {}, (-20, 20), 17), ("HardSigmoid", {}, (-5, 5), 17),
 ("HardSwish", {}, (-5, 5), 17), ("Mish", {}, (-10, 10), 18), ("Softplus", {}, (-20, 20), 17),
 ("Softsign", {}, (-10, 10), 17), ("Elu", dict(alpha=0.7), (-5, 5), 17), ("Selu", {}, (-5, 5), 17),
 ("Celu", dict(alpha=1.3), (-5, 5), 17), ("LeakyRelu", dict(alpha=0.1), (-5, 5), 17),
 ("ThresholdedRelu", dict(alpha=0.5), (-2, 2), 17), ("Exp", {}, (-20, 20), 17), ("Log", {}, (1e-3, 100), 17),
 ("Sqrt", {}, (0, 100), 17), ("Reciprocal", {}, (0.01, 100), 17), ("Sin", {}, (-20, 20), 17),
 ("Cos", {}, (-20, 20), 17), ("Tan", {}, (-1.5, 1.5), 17), ("Asin", {}, (-1, 1), 17), ("Acos", {}, (-1, 1), 17),
 ("Atan", {}, (-20, 20), 17), ("Sinh", {}, (-8, 8), 17), ("Cosh", {}, (-8, 8), 17), ("Asinh", {}, (-20, 20), 17),
 ("Acosh", {}, (1, 20), 17), ("Atanh", {}, (-0.99, 0.99), 17), ("Round", {}, (-5, 5), 17), ("Floor", {}, (-5, 5), 17),
 ("Ceil", {}, (-5, 5), 17), ("Sign", {}, (-5, 5), 17), ("Abs", {}, (-5, 5), 17), ("Neg", {}, (-5, 5), 17),
 ("Relu", {}, (-5, 5), 17), ("Shrink", dict(lambd=0.5, bias=0.2), (-2, 2), 17),
 ("Softmax", dict(axis=-1), (-30, 30), 17), ("LogSoftmax", dict(axis=-1), (-30, 30), 17),
 ("Hardmax", dict(axis=-1), (-3, 3), 17),
 ("ReduceLogSumExp", dict(keepdims=1), (-30, 30), 17), ("ReduceL1", dict(keepdims=1), (-3, 3), 17),
 ("ReduceL2", dict(keepdims=1), (-3, 3), 17), ("ReduceSumSquare", dict(keepdims=1), (-3, 3), 17),
 ("ReduceLogSum", dict(keepdims=1), (0.1, 3), 17), ("ReduceProd", dict(keepdims=1), (0.99, 1.01), 17),
 ("LpNormalization", dict(p=2, axis=-1), (-3, 3), 17), ("LpNormalization", dict(p=1, axis=-1), (-3, 3), 17),
 ("MeanVarianceNormalization", {}, (-3, 3), 17),
 ("CumSum", {}, (-1, 1), 17), ("Det", {}, (-1, 1), 17),
]
BIN = [("Pow", (0.1, 4), (-3, 3)), ("Div", (-5, 5), (0.5, 3)), ("Mod", (-5, 5), (0.7, 3)), ("Sub", (-5, 5), (-5, 5)),
       ("Max", (-5, 5), (-5, 5)), ("Min", (-5, 5), (-5, 5)), ("PRelu", (-5, 5), (0.1, 0.3))]
def model(nodes, ins, outs, opset):
    m = h.make_model(h.make_graph(nodes, "g", ins, outs), opset_imports=[h.make_opsetid("", opset)]); m.ir_version = 9
    return onnx.shape_inference.infer_shapes(m)
def run(name, m, feeds):
    r = ort.InferenceSession(m.SerializeToString()).run(None, feeds)[0]
    try:
        got = np.asarray(fo.compile_onnx(m, fusion="none")(*feeds.values()))
    except Exception as e:
        print(f"{name:32s} FAIL {type(e).__name__}: {str(e)[:150]}"); return
    err = np.abs(got.astype(np.float64) - r)
    rel = err / np.maximum(np.abs(r), 1e-3)
    i = int(np.nanargmax(rel)) if np.isfinite(rel).any() else 0
    flag = "  <<<" if np.nanmax(rel) > 2e-5 or np.isnan(got).sum() != np.isnan(r).sum() else ""
    print(f"{name:32s} abs {np.nanmax(err):.2e} rel {np.nanmax(rel):.2e} at x={list(feeds.values())[0].flat[i] if list(feeds.values())[0].size > i else '-'} ours {got.flat[i]:.7g} ort {r.flat[i]:.7g}{flag}", flush=True)
for op, attrs, (a, b), opset in CASES:
    shape = [16, N // 16] if op not in ("Det",) else [N // 9, 3, 3]
    x = lin(a, b).reshape(16, N // 16) if op != "Det" else np.random.default_rng(0).uniform(a, b, (N // 9, 3, 3)).astype(np.float32)
    if op in ("Softmax", "LogSoftmax", "Hardmax", "ReduceLogSumExp", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceProd", "LpNormalization", "CumSum", "MeanVarianceNormalization"):
        x = np.random.default_rng(1).permutation(x.ravel()).reshape(x.shape)
    inputs = ["x"]; inits = []
    if op == "CumSum":
        inits = [h.make_tensor("ax", T.INT64, [], [1])]; inputs = ["x", "ax"]
    node = h.make_node(op, inputs, ["y"], **attrs)
    m = model([node], [h.make_tensor_value_info("x", T.FLOAT, list(x.shape))], [h.make_tensor_value_info("y", T.FLOAT, None)], opset)
    m.graph.initializer.extend(inits)
    run(f"{op}{attrs}", m, {"x": x})
for op, ra, rb in BIN:
    x = lin(*ra).reshape(16, N // 16); y = np.random.default_rng(2).uniform(*rb, x.shape).astype(np.float32)
    if op == "PRelu": y = y[:, :1]
    m = model([h.make_node(op, ["x", "y"], ["z"])], [h.make_tensor_value_info("x", T.FLOAT, list(x.shape)), h.make_tensor_value_info("y", T.FLOAT, list(y.shape))], [h.make_tensor_value_info("z", T.FLOAT, None)], 17)
    run(op, m, {"x": x, "y": y})
m = model([h.make_node("Mod", ["x", "y"], ["z"], fmod=1)], [h.make_tensor_value_info("x", T.FLOAT, [16, 128]), h.make_tensor_value_info("y", T.FLOAT, [16, 128])], [h.make_tensor_value_info("z", T.FLOAT, None)], 17)
run("Mod fmod", m, {"x": lin(-5, 5).reshape(16, 128), "y": np.random.default_rng(2).uniform(0.7, 3, (16, 128)).astype(np.float32)})
