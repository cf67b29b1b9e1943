"""Ops of opsets 1-11 whose meaning the opset upgrade must keep: ours against onnxruntime running the
original model.

Run from the repository root: `.venv/bin/python tools/sweeps/old_opsets.py ...` (docs/reliability.md, op sweeps)."""
import numpy as np, onnx, onnxruntime as ort, fusion_opt as fo, warnings
from onnx import helper as h, TensorProto as T, numpy_helper as nh
warnings.filterwarnings("ignore")
R = np.random.default_rng(0)
F = lambda *s: R.standard_normal(s).astype(np.float32)
def case(name, nodes, inputs, inits=(), opset=9, outs=("y",)):
    ins = [h.make_tensor_value_info(k, onnx.helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)) for k, v in inputs.items()]
    g = h.make_graph(nodes, "g", ins, [h.make_tensor_value_info(o, T.FLOAT, None) for o in outs], [nh.from_array(v, k) for k, v in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)]); m.ir_version = 7
    try:
        ref = ort.InferenceSession(m.SerializeToString()).run(None, inputs)
    except Exception as e:
        print(f"{name:36s} (ort failed: {str(e)[:100]})"); return
    try:
        got = fo.compile_onnx(m, fusion="none")(*inputs.values()); got = got if isinstance(got, (list, tuple)) else [got]
    except Exception as e:
        print(f"{name:36s} REJECT {type(e).__name__}: {str(e)[:160]}"); return
    d = max(float(np.abs(np.asarray(a, np.float64) - r).max()) if np.asarray(a).shape == r.shape else 1e9 for a, r in zip(got, ref))
    print(f"{name:36s} err {d:.1e}{'   <<<' if d > 1e-5 else ''}", flush=True)
N = lambda op, ins, **a: h.make_node(op, ins, ["y"], **a)
x = F(1, 2, 5, 6)
for opset in (7, 8):
    case(f"Upsample-{opset} linear attr", [N("Upsample", ["x"], mode="linear", scales=[1.0, 1.0, 2.0, 2.0])], {"x": x}, opset=opset)
    case(f"Upsample-{opset} nearest 1.5", [N("Upsample", ["x"], mode="nearest", scales=[1.0, 1.0, 1.5, 2.5])], {"x": x}, opset=opset)
case("Upsample-9 linear", [N("Upsample", ["x", "sc"], mode="linear")], {"x": x}, [("sc", np.array([1, 1, 2, 2], np.float32))])
case("Upsample-9 linear 1.5", [N("Upsample", ["x", "sc"], mode="linear")], {"x": x}, [("sc", np.array([1, 1, 1.5, 2.5], np.float32))])
case("Upsample-9 nearest 1.5", [N("Upsample", ["x", "sc"], mode="nearest")], {"x": x}, [("sc", np.array([1, 1, 1.5, 2.5], np.float32))])
case("Resize-10 linear", [N("Resize", ["x", "sc"], mode="linear")], {"x": x}, [("sc", np.array([1, 1, 2, 1.5], np.float32))], opset=10)
case("Resize-10 nearest", [N("Resize", ["x", "sc"], mode="nearest")], {"x": x}, [("sc", np.array([1, 1, 1.5, 2.5], np.float32))], opset=10)
case("Resize-10 linear down", [N("Resize", ["x", "sc"], mode="linear")], {"x": x}, [("sc", np.array([1, 1, 0.6, 0.5], np.float32))], opset=10)
for ax in (0, 1, 2, 3):
    case(f"Hardmax-11 axis {ax}", [N("Hardmax", ["x"], axis=ax)], {"x": x}, opset=11)
case("Hardmax-1 default", [N("Hardmax", ["x"])], {"x": x}, opset=1)
case("Softmax-1 default", [N("Softmax", ["x"])], {"x": x}, opset=1)
case("LogSoftmax-11 axis 2", [N("LogSoftmax", ["x"], axis=2)], {"x": x}, opset=11)
case("Softmax-11 axis -2", [N("Softmax", ["x"], axis=-2)], {"x": x}, opset=11)
case("Clip-6", [N("Clip", ["x"], min=-0.5, max=0.3)], {"x": x}, opset=6)
case("Pad-2 reflect", [N("Pad", ["x"], mode="reflect", pads=[0, 0, 1, 2, 0, 0, 2, 1])], {"x": x}, opset=2)
case("Slice-1", [N("Slice", ["x"], starts=[1, 2], ends=[4, 100], axes=[2, 3])], {"x": x}, opset=1)
case("TopK-1", [h.make_node("TopK", ["x"], ["y", "i"], k=3)], {"x": x}, opset=1, outs=("y",))
case("Split-2", [h.make_node("Split", ["x"], ["y", "z"], axis=3, split=[2, 4])], {"x": x}, opset=2, outs=("y", "z"))
case("Add-6 bcast axis", [N("Add", ["x", "b"], broadcast=1, axis=1)], {"x": x}, [("b", F(2))], opset=6)
case("Mul-6 bcast axis", [N("Mul", ["x", "b"], broadcast=1, axis=1)], {"x": x}, [("b", F(2, 5))], opset=6)
case("Gemm-6 bcast", [N("Gemm", ["a", "w", "c"], broadcast=1, transB=1)], {"a": F(3, 4)}, [("w", F(5, 4)), ("c", F(5))], opset=6)
case("BatchNorm-6", [N("BatchNormalization", ["x", "s", "b", "m", "v"], is_test=1, epsilon=1e-3)], {"x": x}, [("s", F(2)), ("b", F(2)), ("m", F(2)), ("v", np.abs(F(2)) + .1)], opset=6)
case("BatchNorm-7 spatial0", [N("BatchNormalization", ["x", "s", "b", "m", "v"], spatial=0)], {"x": x}, [("s", F(2, 5, 6)), ("b", F(2, 5, 6)), ("m", F(2, 5, 6)), ("v", np.abs(F(2, 5, 6)) + .1)], opset=7)
case("Dropout-6", [N("Dropout", ["x"], is_test=1, ratio=0.3)], {"x": x}, opset=6)
case("AvgPool-1 pads", [N("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])], {"x": x}, opset=1)
case("MaxPool-1", [N("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2])], {"x": x}, opset=1)
case("Reshape-1 attr", [N("Reshape", ["x"], shape=[1, 2, 30])], {"x": x}, opset=1)
case("Squeeze-1", [N("Squeeze", ["x"], axes=[0])], {"x": x}, opset=1)
case("Concat-1 default axis", [N("Concat", ["x", "x"])], {"x": x}, opset=1)
case("Flatten-1", [N("Flatten", ["x"], axis=2)], {"x": x}, opset=1)
case("ReduceMean-1 kd", [N("ReduceMean", ["x"], axes=[2, 3], keepdims=0)], {"x": x}, opset=1)
case("LRN-1", [N("LRN", ["x"], size=3, alpha=1e-2, beta=0.75)], {"x": x}, opset=1)
case("ConvTranspose-1 outshape", [N("ConvTranspose", ["x", "w"], strides=[2, 2], output_shape=[11, 12])], {"x": x}, [("w", F(2, 3, 3, 3))], opset=1)
case("InstanceNorm-1", [N("InstanceNormalization", ["x", "s", "b"])], {"x": x}, [("s", F(2)), ("b", F(2))], opset=1)
case("PRelu-6 per-chan", [N("PRelu", ["x", "s"])], {"x": x}, [("s", F(2))], opset=6)
case("Elu-1", [N("Elu", ["x"], alpha=0.5)], {"x": x}, opset=1)
case("Tile-1", [N("Tile", ["x", "t", "a"])], {"x": F(2, 3)}, [("t", np.array(2, np.int64)), ("a", np.array(1, np.int64))], opset=1)
case("Sum-6", [N("Sum", ["x", "x"])], {"x": x}, opset=6)
case("Max-6", [N("Max", ["x", "x"])], {"x": x}, opset=6)
