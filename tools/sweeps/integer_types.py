"""uint8 / int8 / int16 / int32 / bool ops: ours (fusion none) against onnxruntime, bit-exact.

Run from the repository root: `.venv/bin/python tools/sweeps/integer_types.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(0)
a = R.integers(0, 256, (4, 8)).astype(np.uint8); b = R.integers(0, 256, (4, 8)).astype(np.uint8)
def run(name, nodes, inputs, outs=("y",), inits=(), opset=18):
    ins = [h.make_tensor_value_info(k, onnx.helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)) for k, v in inputs.items()]
    g = h.make_graph(nodes, "g", ins, [h.make_tensor_value_info(o, T.UNDEFINED, None) for o in outs], [nh.from_array(v, k) for k, v in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)]); m.ir_version = 8
    try:
        m = onnx.shape_inference.infer_shapes(m, strict_mode=True); r = ort.InferenceSession(m.SerializeToString()).run(None, inputs)
    except Exception as e: print(f"{name:28s} (ort: {str(e)[:90]})"); return
    try:
        got = fo.compile_onnx(m, fusion="none")(*inputs.values()); got = got if isinstance(got, (list, tuple)) else [got]
    except Exception as e: print(f"{name:28s} REJECT {str(e)[:140]}"); return
    ok = all(np.asarray(x).dtype == y.dtype and np.array_equal(np.asarray(x), y) for x, y in zip(got, r))
    print(f"{name:28s} {'OK' if ok else 'WRONG   <<< ' + str([(np.asarray(x).dtype, np.asarray(x).ravel()[:6].tolist(), y.ravel()[:6].tolist()) for x, y in zip(got, r)])}", flush=True)
N = lambda op, ins, **k: h.make_node(op, ins, ["y"], **k)
for op in ("Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal", "Max", "Min", "Add", "Sub", "Mul", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Sum", "Mean"):
    run(f"u8 {op}", [N(op, ["a", "b"])], {"a": a, "b": b})
run("u8 BitwiseNot", [N("BitwiseNot", ["a"])], {"a": a})
run("u8 BitShift RIGHT", [N("BitShift", ["a", "s"], direction="RIGHT")], {"a": a}, inits=[("s", np.array(3, np.uint8))])
run("u8 ArgMax", [N("ArgMax", ["a"], axis=1)], {"a": a})
run("u8 ArgMin", [N("ArgMin", ["a"], axis=1)], {"a": a})
run("u8 ReduceMax", [N("ReduceMax", ["a", "ax"])], {"a": a}, inits=[("ax", np.array([1], np.int64))])
run("u8 ReduceMin", [N("ReduceMin", ["a", "ax"])], {"a": a}, inits=[("ax", np.array([1], np.int64))])
run("u8 ReduceSum", [N("ReduceSum", ["a", "ax"])], {"a": a}, inits=[("ax", np.array([1], np.int64))])
run("u8 Where", [N("Where", ["c", "a", "b"])], {"a": a, "b": b}, inits=[("c", R.random((4, 8)) > 0.5)])
run("u8 Resize nearest", [N("Resize", ["a4", "", "sc"], mode="nearest")], {"a4": a.reshape(1, 1, 4, 8)}, inits=[("sc", np.array([1, 1, 2, 2], np.float32))])
run("u8 Resize linear", [N("Resize", ["a4", "", "sc"], mode="linear")], {"a4": a.reshape(1, 1, 4, 8)}, inits=[("sc", np.array([1, 1, 2, 2], np.float32))])
run("u8 TopK", [h.make_node("TopK", ["a", "k"], ["y", "i"])], {"a": a}, outs=("y", "i"), inits=[("k", np.array([3], np.int64))])
run("u8 Pad", [N("Pad", ["a", "p", "v"])], {"a": a}, inits=[("p", np.array([1, 1, 1, 1], np.int64)), ("v", np.array(200, np.uint8))])
run("u8 Gather", [N("Gather", ["a", "i"])], {"a": a}, inits=[("i", np.array([3, 0], np.int64))])
run("u8 Transpose", [N("Transpose", ["a"])], {"a": a})
run("u8 MaxPool", [N("MaxPool", ["a4"], kernel_shape=[2, 2])], {"a4": a.reshape(1, 1, 4, 8)})
run("u8 Clip", [N("Clip", ["a", "lo", "hi"])], {"a": a}, inits=[("lo", np.array(50, np.uint8)), ("hi", np.array(200, np.uint8))])
run("u8 Div", [N("Div", ["a", "b"])], {"a": a, "b": np.maximum(b, 1)})
run("u8 Mod", [N("Mod", ["a", "b"])], {"a": a, "b": np.maximum(b, 1)})
run("u8 CumSum", [N("CumSum", ["a", "ax"])], {"a": a}, inits=[("ax", np.array(1, np.int64))])
run("u8 Sign", [N("Sign", ["a"])], {"a": a})
run("u8 Abs", [N("Abs", ["a"])], {"a": a})
run("u8 Relu?", [N("Relu", ["a8"])], {"a8": a.view(np.int8)})
run("i8 Max", [N("Max", ["a", "b"])], {"a": a.view(np.int8), "b": b.view(np.int8)})
run("u8 Less vs const", [N("Less", ["a", "c"])], {"a": a}, inits=[("c", np.array(150, np.uint8))])
run("u8 DequantizeLinear", [N("DequantizeLinear", ["a", "s", "z"])], {"a": a}, inits=[("s", np.array(0.1, np.float32)), ("z", np.array(128, np.uint8))])
run("f->u8 QuantizeLinear", [N("QuantizeLinear", ["f", "s", "z"])], {"f": (R.standard_normal((4, 8)) * 20).astype(np.float32)}, inits=[("s", np.array(0.1, np.float32)), ("z", np.array(128, np.uint8))])
run("u16 Add", [N("Add", ["a", "b"])], {"a": a.astype(np.uint16), "b": b.astype(np.uint16)})
run("i16 Mul", [N("Mul", ["a", "b"])], {"a": a.astype(np.int16) * 100, "b": b.astype(np.int16)})
run("i32 Mul overflow", [N("Mul", ["a", "b"])], {"a": a.astype(np.int32) * 10000000, "b": b.astype(np.int32)})
run("bool And/Not", [h.make_node("And", ["p", "q"], ["t"]), N("Not", ["t"])], {"p": a > 100, "q": b > 50})
run("bool Xor", [N("Xor", ["p", "q"])], {"p": a > 100, "q": b > 50})
run("i64 ReduceProd", [N("ReduceProd", ["a", "ax"])], {"a": (a % 5).astype(np.int64) + 1}, inits=[("ax", np.array([1], np.int64))])
